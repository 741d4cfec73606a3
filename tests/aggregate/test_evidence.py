"""What the log says became of a call: read per format, paired in order, and weighed against
the old-runtime model (tests/fixtures/evidence/expected.yaml, reasoned by hand)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.aggregate.pipeline import ReportSettings, evaluate_call, prepare
from auditor.api import replay
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_formats import Answer
from auditor.inputs.pairing import Pairing
from auditor.inputs.reader import LogReader
from auditor.models import JSON, Call, Evidence, Location, OldRuntime, Outcome, ToolSchema
from auditor.report import Format, render
from auditor.schema.normalize import DEFAULT_RULES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
EXPECTED: dict[str, Any] = yaml.safe_load((FIXTURES / "expected.yaml").read_text("utf-8"))
LOGS = sorted(EXPECTED)
RUNS = [(log, runtime) for log in LOGS for runtime in OldRuntime if runtime.value in EXPECTED[log]]


def _calls(log: str) -> list[Call]:
    return list(LogReader([str(FIXTURES / log)]))


def _place(call: Call) -> str:
    return call.source.rsplit(":", 1)[1]


@pytest.mark.parametrize("log", LOGS)
def test_each_format_reads_the_evidence(log: str) -> None:
    reader = LogReader([str(FIXTURES / log)])
    calls = list(reader)
    assert reader.stats()[0].format == EXPECTED[log]["format"]
    got = {_place(c): None if c.evidence is None else c.evidence.value for c in calls}
    assert got == EXPECTED[log]["evidence"]


@pytest.mark.parametrize(("log", "runtime"), RUNS, ids=[f"{lg}-{r.value}" for lg, r in RUNS])
def test_strong_evidence_overrides_the_model(log: str, runtime: OldRuntime) -> None:
    want = EXPECTED[log][runtime.value]
    tools = load_catalogs([str(FIXTURES / "tools.yaml")]).tools
    replays = prepare(tools, DEFAULT_RULES, old_runtime=runtime)
    results = [evaluate_call(replays, call)[0] for call in _calls(log)]
    assert {_place(r.call): r.outcome.value for r in results} == want["outcomes"]
    assert sum(r.proven for r in results) == want["proven"]
    assert sum(r.contradicts for r in results) == want["contradictions"]

    report = replay(
        tools,
        LogReader([str(FIXTURES / log)]),
        None,
        ["tools.yaml"],
        settings=ReportSettings(old_runtime=runtime),
    )
    assert report.proven_count == want["proven"]
    assert report.contradiction_count == want["contradictions"]


def test_reports_show_evidence_proven_regressions_first_and_contradictions() -> None:
    tools = load_catalogs([str(FIXTURES / "tools.yaml")]).tools
    report = replay(tools, LogReader([str(FIXTURES / "mcp.jsonl")]), None, ["tools.yaml"])
    data = json.loads(render(report, Format.JSON))
    assert data["old_runtime"] == "lenient"
    # Line 3 is proven (min_length -> minLength rejects the empty path it sent); line 7 ran
    # although the model rejects it at maximum, which no change touched: a contradiction.
    assert data["proven_regressions"] == 1 and data["contradictions"] == 2
    by_source = {c["source"]: c for c in data["calls"]}
    assert by_source[f"{FIXTURES / 'mcp.jsonl'}:3"]["evidence"] == "ran"
    assert by_source[f"{FIXTURES / 'mcp.jsonl'}:5"]["contradicts_old_runtime"] is True
    assert "evidence" not in by_source[f"{FIXTURES / 'mcp.jsonl'}:11"] or (
        by_source[f"{FIXTURES / 'mcp.jsonl'}:11"]["evidence"] == "answered"
    )
    # The groups with proven calls come before the larger or equal ones without.
    newly = [g for g in data["groups"] if g["outcome"] == "newly_rejected"]
    assert [g["proven"] > 0 for g in newly] == sorted(
        (g["proven"] > 0 for g in newly), reverse=True
    )
    markdown = render(report, Format.MARKDOWN)
    assert markdown.index("1 proven regression") < markdown.index("would be newly rejected")
    assert "contradicts the lenient model for 2 calls (2 of `read_file`)" in markdown
    assert "the log says it ran" in markdown


def test_a_later_answer_reaches_a_waiting_call_and_order_is_kept() -> None:
    pairing = Pairing(window=3)
    pairing.add(Call("l:1", "t", {}), "a", 0)
    pairing.add(Call("l:2", "t", {}), None, 0)
    assert list(pairing.ready(0)) == []  # l:1 may still be answered; l:2 waits behind it
    pairing.answer(Answer("a", Evidence.RAN))
    released = list(pairing.ready(1))
    assert [(c.source, c.evidence) for c in released] == [("l:1", Evidence.RAN), ("l:2", None)]


def test_an_unanswered_call_goes_on_after_the_window_and_a_late_answer_is_ignored() -> None:
    pairing = Pairing(window=2)
    pairing.add(Call("l:1", "t", {}), "a", 0)
    assert list(pairing.ready(1)) == []
    assert [c.evidence for c in pairing.ready(2)] == [None]
    pairing.answer(Answer("a", Evidence.REFUSED))  # too late: nothing waits for it
    pairing.add(Call("l:3", "t", {}), "a", 3)
    assert [c.evidence for c in pairing.rest()] == [None]


def test_answers_go_to_the_earliest_call_with_their_key_and_waiting_is_bounded() -> None:
    pairing = Pairing(window=100, max_waiting=2)
    pairing.add(Call("l:1", "t", {}), "1", 0)
    pairing.add(Call("l:2", "t", {}), "1", 0)  # JSON-RPC ids restart with each session
    pairing.answer(Answer("1", Evidence.REFUSED))
    pairing.answer(Answer("1", Evidence.RAN))
    assert [(c.source, c.evidence) for c in pairing.ready(0)] == [
        ("l:1", Evidence.REFUSED),
        ("l:2", Evidence.RAN),
    ]
    for number in range(3):
        pairing.add(Call(f"m:{number}", "t", {}), f"k{number}", 0)
    assert [c.source for c in pairing.ready(0)] == ["m:0"]  # over the bound: the oldest goes


def test_weak_evidence_never_changes_an_outcome() -> None:
    tools = load_catalogs([str(FIXTURES / "tools.yaml")]).tools
    replays = prepare(tools, DEFAULT_RULES)
    arguments: JSON = {"path": "a", "limit": 500}
    plain = evaluate_call(replays, Call("l:1", "read_file", arguments))[0]
    answered = evaluate_call(
        replays, Call("l:2", "read_file", arguments, evidence=Evidence.ANSWERED)
    )[0]
    assert plain.outcome is answered.outcome is Outcome.STILL_REJECTED
    assert not answered.contradicts


def test_a_type_fix_elsewhere_is_not_the_cause_of_a_proven_regression() -> None:
    # "String" on path made only path unevaluable before; limit's type was always checked.
    # The call ran (the log says so), so it is newly rejected, but no change explains it:
    # the log contradicts the model at limit's type, which is no proven regression.
    schema: JSON = {
        "type": "object",
        "properties": {"path": {"type": "String"}, "limit": {"type": "array"}},
    }
    tool = ToolSchema("t", schema, Location("t.json"), "", "mapping")
    replays = prepare([tool], DEFAULT_RULES)
    ran = Call("l:1", "t", {"path": "a", "limit": "x"}, evidence=Evidence.RAN)
    result = evaluate_call(replays, ran)[0]
    assert result.outcome is Outcome.NEWLY_REJECTED and result.contradicts
    assert not result.proven
    assert [e.causes for e in result.errors] == [()]
    wrong_type = evaluate_call(replays, Call("l:2", "t", {"path": 1}))[0]
    assert [r.pointer for e in wrong_type.errors for r in e.causes] == ["/properties/path/type"]
