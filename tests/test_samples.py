"""Acceptance over sample_logs/: every call's outcome is the one reasoned by hand."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import yaml

from auditor.models import Outcome
from tests.samples import Scenario, rendered, run, scenarios

SCENARIOS = scenarios()
IDS = [s.name for s in SCENARIOS]


def _expected(scenario: Scenario) -> dict[str, Any]:
    return yaml.safe_load(scenario.expected.read_text(encoding="utf-8"))


def test_there_are_at_least_two_scenarios_with_enough_calls_and_tools() -> None:
    assert len(SCENARIOS) >= 2
    reports = [run(s) for s in SCENARIOS]
    assert sum(r.call_count for r in reports) >= 300
    assert sum(len(r.tools) for r in reports) >= 8


def _place(entry: dict[str, Any]) -> str:
    """``12`` or ``12#choices[0].message.tool_calls[1]``: the source after ``path:``."""
    return f"{entry['line']}#{entry['at']}" if "at" in entry else str(entry["line"])


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_every_call_has_its_expected_outcome(scenario: Scenario) -> None:
    expected = _expected(scenario)
    report = run(scenario)
    by_place = {_place(entry): entry for entry in expected["calls"]}
    assert len(by_place) == len(expected["calls"]), "two expectations for one call"
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


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_totals_match_and_add_up(scenario: Scenario) -> None:
    expected = _expected(scenario)["totals"]
    report = run(scenario)
    assert report.call_count == expected["calls"] == sum(s.calls for s in report.log_inputs)
    assert {o.value: n for o, n in report.totals.items()} == {
        o.value: expected.get(o.value, 0) for o in Outcome
    }
    for tool in report.tools:
        assert sum(tool.counts.values()) <= report.call_count


def test_samples_reach_every_outcome() -> None:
    seen: Counter[Outcome] = Counter()
    for scenario in SCENARIOS:
        seen.update({o: n for o, n in run(scenario).totals.items() if n})
    assert set(seen) == set(Outcome)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_committed_reports_are_current(scenario: Scenario) -> None:
    for name, text in rendered(scenario).items():
        path = scenario.report_dir / name
        assert path.exists(), f"{path} missing: run python3 -m tests.regenerate_reports"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run python3 -m tests.regenerate_reports"
        )
