"""Acceptance over sample_logs/: every call's outcome is the one reasoned by hand."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from auditor.models import OldRuntime, Outcome, Report
from tests.samples import Scenario, rendered, run, scenarios

SCENARIOS = scenarios()
IDS = [s.name for s in SCENARIOS]


def _expected(scenario: Scenario) -> dict[str, Any]:
    expected: dict[str, Any] = yaml.safe_load(scenario.expected.read_text(encoding="utf-8"))
    return expected


def test_there_are_at_least_two_scenarios_with_enough_calls_and_tools() -> None:
    assert len(SCENARIOS) >= 2
    reports = [run(s) for s in SCENARIOS]
    assert sum(r.call_count for r in reports) >= 300
    assert sum(len(r.tools) for r in reports) >= 8


def _place(entry: dict[str, Any]) -> str:
    """``12`` or ``12#choices[0].message.tool_calls[1]``: the source after ``path:``."""
    return f"{entry['line']}#{entry['at']}" if "at" in entry else str(entry["line"])


@dataclass(frozen=True)
class Mode:
    """One way of auditing a scenario, and where expected.yaml says what it gives."""

    name: str
    old_runtime: OldRuntime
    evidence: bool
    """Whether the log's evidence about each call is applied (as ``auditor audit`` does)."""
    totals: tuple[str, ...]
    """The totals block that holds, the first present of these."""

    def expectation(self, entry: dict[str, Any]) -> dict[str, Any]:
        """The outcome, causes and why of one call in this mode: ``evidence:`` where the log
        shows what became of the call, else ``lenient:`` under lenient, else the entry."""
        if self.evidence and "evidence" in entry:
            return dict(entry["evidence"])
        if self.old_runtime is OldRuntime.LENIENT and "lenient" in entry:
            return dict(entry["lenient"])
        return entry


MODES = [
    # The old-runtime models alone: what `--old-runtime standard` and `lenient` decide.
    Mode("standard", OldRuntime.STANDARD, False, ("totals",)),
    Mode("lenient", OldRuntime.LENIENT, False, ("lenient_totals",)),
    # The default audit (the committed reports): lenient, and the log's evidence applied.
    Mode("default", OldRuntime.LENIENT, True, ("evidence_totals", "lenient_totals")),
]
CASES = [(s, m) for s in SCENARIOS for m in MODES]
CASE_IDS = [f"{s.name}-{m.name}" for s, m in CASES]


def _run(scenario: Scenario, mode: Mode) -> Report:
    return run(scenario, mode.old_runtime, evidence=mode.evidence)


def _totals(expected: dict[str, Any], mode: Mode) -> dict[str, int]:
    name = next(n for n in mode.totals if n in expected)
    return dict(expected[name])


@pytest.mark.parametrize(("scenario", "mode"), CASES, ids=CASE_IDS)
def test_every_call_has_its_expected_outcome(scenario: Scenario, mode: Mode) -> None:
    expected = _expected(scenario)
    report = _run(scenario, mode)
    by_place = {_place(entry): mode.expectation(entry) for entry in expected["calls"]}
    assert len(by_place) == len(expected["calls"]), "two expectations for one call"
    # expected.yaml has one entry per call read, so the tool read exactly that many.
    assert report.call_count == len(by_place)
    got = {r.call.source.split(":")[-1]: r for r in report.calls}
    mismatches = []
    for place, entry in by_place.items():
        result = got.get(place)
        outcome = result.outcome.value if result else Outcome.ACCEPTED.value
        if outcome != entry["outcome"]:
            mismatches.append(f"{place}: want {entry['outcome']}, got {outcome}")
            continue
        if "causes" in entry and result is not None:
            causes = sorted({c.pointer for e in result.errors for c in e.causes})
            if causes != sorted(set(entry["causes"])):
                mismatches.append(f"{place}: want causes {entry['causes']}, got {causes}")
    unexpected = sorted(set(got) - set(by_place))
    assert not unexpected, f"calls without an expectation: {unexpected}"
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize(("scenario", "mode"), CASES, ids=CASE_IDS)
def test_totals_match_and_add_up(scenario: Scenario, mode: Mode) -> None:
    totals = _totals(_expected(scenario), mode)
    want = {o.value: totals.get(o.value, 0) for o in Outcome}
    report = _run(scenario, mode)
    assert report.call_count == totals["calls"] == sum(s.calls for s in report.log_inputs)
    assert {o.value: n for o, n in report.totals.items()} == want
    # The calls the report lists (every call not accepted) add up to the same totals: the
    # tally and the list agree, and with the per-call check above, expected.yaml's totals
    # block is the count of its entries.
    assert report.calls_omitted == 0
    listed = Counter(r.outcome.value for r in report.calls)
    listed[Outcome.ACCEPTED.value] = report.call_count - len(report.calls)
    assert {o.value: listed[o.value] for o in Outcome} == want
    for tool in report.tools:
        assert sum(tool.counts.values()) <= report.call_count


def test_samples_reach_every_outcome_and_only_standard_finds_the_old_schema_unusable() -> None:
    """Over every mode checked above, every outcome happens; schema_error_before only under
    the standard old runtime (a lenient runtime enforces what it can of a broken schema)."""
    seen: dict[str, Counter[Outcome]] = {mode.name: Counter() for mode in MODES}
    for scenario in SCENARIOS:
        for mode in MODES:
            seen[mode.name].update({o: n for o, n in _run(scenario, mode).totals.items() if n})
    assert set().union(*seen.values()) == set(Outcome)
    unusable = {name: counts[Outcome.SCHEMA_ERROR_BEFORE] for name, counts in seen.items()}
    assert unusable["lenient"] == unusable["default"] == 0 < unusable["standard"], unusable


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_committed_reports_are_current(scenario: Scenario) -> None:
    for name, text in rendered(scenario).items():
        path = scenario.report_dir / name
        assert path.exists(), f"{path} missing: run python3 -m tests.regenerate_reports"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run python3 -m tests.regenerate_reports"
        )


# The scenarios whose expected.yaml reasons out their counterexamples (the MCP ones so far).
REASONED = [s for s in SCENARIOS if "counterexamples" in _expected(s)]


@pytest.mark.parametrize("scenario", REASONED, ids=[s.name for s in REASONED])
def test_counterexamples_are_the_reasoned_ones(scenario: Scenario) -> None:
    expected = _expected(scenario)["counterexamples"]
    report = _run(scenario, MODES[2])  # the default audit
    got = {f"{c.tool} {c.change.pointer}": c.status.value for c in report.counterexamples}
    assert got == {entry["change"]: entry["status"] for entry in expected}
