"""Acceptance over sample_logs/mcp_results/: every result's outcome and causes are the ones
reasoned by hand in its expected.yaml, under ``standard -> standard``, the default audit and
``mcp-ts-v1 -> mcp-ts-v2``; what MCP does not validate is counted apart, never replayed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from auditor.api import audit
from auditor.models import NewRuntime, OldRuntime, Outcome, Report, Subject
from auditor.request import AuditRequest, Inputs, TheChange
from tests.samples import ROOT

FOLDER = ROOT / "sample_logs" / "mcp_results"
CATALOG = str(FOLDER / "tools.json")
LOG = str(FOLDER / "calls.jsonl")
EXPECTED: dict[str, Any] = yaml.safe_load((FOLDER / "expected.yaml").read_text("utf-8"))


@dataclass(frozen=True)
class Mode:
    name: str
    old: OldRuntime
    new: NewRuntime
    totals: str
    """The totals block of expected.yaml's results that holds in this mode."""
    override: str | None
    """The key of an entry that replaces its outcome in this mode, where one does."""


MODES = [
    Mode("standard", OldRuntime.STANDARD, NewRuntime.STANDARD, "totals", None),
    Mode("default", OldRuntime.LENIENT, NewRuntime.STANDARD, "totals", None),
    Mode("mcp-ts", OldRuntime.MCP_TS_V1, NewRuntime.MCP_TS_V2, "mcp_ts_totals", "mcp-ts"),
]


def _audit(mode: Mode, subject: Subject = Subject.BOTH) -> Report:
    change = TheChange(old_runtime=mode.old, new_runtime=mode.new)
    request = AuditRequest(Inputs(schemas=(CATALOG,), logs=(LOG,), subject=subject), change)
    return audit(request).report


def _results(mode: Mode) -> Report:
    results = _audit(mode).results
    assert results is not None, "the log holds results of tools with an output schema"
    return results


def _expectation(entry: dict[str, Any], mode: Mode) -> dict[str, Any]:
    if mode.override is not None and mode.override in entry:
        return dict(entry[mode.override])
    return entry


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_every_result_has_its_reasoned_outcome_and_causes(mode: Mode) -> None:
    results = _results(mode)
    expected = {e["line"]: _expectation(e, mode) for e in EXPECTED["results"]["validated"]}
    got = {int(r.call.source.rsplit(":", 1)[1]): r for r in results.calls}
    assert set(got) <= set(expected), f"results without an expectation: {set(got) - set(expected)}"
    for line, entry in expected.items():
        result = got.get(line)
        outcome = Outcome.ACCEPTED if result is None else result.outcome
        assert outcome.value == entry["outcome"], f"line {line}"
        if result is not None and "causes" in entry:
            causes = sorted({c.pointer for e in result.errors for c in e.causes})
            assert causes == sorted(entry["causes"]), f"line {line}"


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_results_totals_are_counted_apart_from_the_arguments(mode: Mode) -> None:
    report = _audit(mode)
    results = report.results
    assert results is not None
    want = dict(EXPECTED["results"][mode.totals])
    assert results.call_count == want.pop("results")
    assert {o.value: n for o, n in results.totals.items() if n} == want
    # The arguments are as expected.yaml says, and no result is among them.
    arguments = dict(EXPECTED["totals"])
    assert report.call_count == arguments.pop("calls")
    assert {o.value: n for o, n in report.totals.items()} == arguments
    assert report.subject is Subject.ARGUMENTS and results.subject is Subject.RESULTS
    # Each subject is gated on its own groups: both hold newly rejected ones here.
    assert report.gate.exit_code == 1 and results.gate.exit_code == 1
    assert not {g.fingerprint for g in report.groups} & {g.fingerprint for g in results.groups}


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_error_and_unstructured_results_are_not_validated(mode: Mode) -> None:
    results = _results(mode)
    counted = results.not_validated
    assert counted is not None
    want = Counter(entry["reason"] for entry in EXPECTED["results"]["not_validated"])
    assert counted.error_results == want["error_results"] == 2
    assert counted.unstructured == want["unstructured"] == 1
    assert counted.without_output_schema == want["without_output_schema"] == 1
    lines = {entry["line"] for entry in EXPECTED["results"]["not_validated"]}
    assert not {int(r.call.source.rsplit(":", 1)[1]) for r in results.calls} & lines


def test_results_hints_speak_of_the_server_and_the_output_schema() -> None:
    results = _results(MODES[0])
    (group,) = results.groups
    text = "".join(span.text for span in group.hint.text.spans)
    assert "results of" in text and "calls of" not in text
    assert "server bugs" in text and "caller" not in text


def test_subject_arguments_leaves_the_results_out_and_results_makes_them_the_report() -> None:
    assert _audit(MODES[0], Subject.ARGUMENTS).results is None
    only = _audit(MODES[0], Subject.RESULTS)
    assert only.subject is Subject.RESULTS and only.results is None
    assert only.totals[Outcome.NEWLY_REJECTED] == EXPECTED["results"]["totals"]["newly_rejected"]
