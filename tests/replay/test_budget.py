"""The per-call time budget: every keyword that matches a regex is interruptible, in every
draft, and the linear ``uniqueItems`` agrees with python-jsonschema's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.models import ACCEPTS, REJECTS, Location, ToolSchema
from auditor.replay import budget as budget_module
from auditor.replay.budget import CallBudget, CallTimeout, budgeted
from auditor.replay.tool import VALIDATORS, ToolReplay
from auditor.schema.diff import compare
from auditor.schema.keywords import Draft
from benchmarks.counting_clock import CountingClock
from tests.conftest import cpu_seconds, run_cli, seconds

BOMB = "^(a|a)*$"
LONG = "a" * 40 + "!"

CASES: list[tuple[str, Any, Any, tuple[Draft, ...]]] = [
    ("pattern", {"pattern": BOMB}, LONG, tuple(Draft)),
    ("patternProperties", {"patternProperties": {BOMB: {}}}, {LONG: 1}, tuple(Draft)),
    (
        "additionalProperties",
        {"patternProperties": {BOMB: {}}, "additionalProperties": False},
        {LONG: 1},
        tuple(Draft),
    ),
    (
        "propertyNames",
        {"propertyNames": {"pattern": BOMB}},
        {LONG: 1},
        (Draft.DRAFT6, Draft.DRAFT7, Draft.DRAFT2019, Draft.DRAFT2020),
    ),
    (
        # unevaluatedProperties first: it re-matches patternProperties on its own.
        "unevaluatedProperties",
        {"unevaluatedProperties": False, "allOf": [{"patternProperties": {BOMB: {}}}]},
        {LONG: 1},
        (Draft.DRAFT2019, Draft.DRAFT2020),
    ),
]


@pytest.mark.parametrize(
    ("schema", "instance", "draft"),
    [
        pytest.param(schema, instance, draft, id=f"{name}-{draft.name}")
        for name, schema, instance, drafts in CASES
        for draft in drafts
    ],
)
def test_every_regex_keyword_stops_at_the_budget(schema: Any, instance: Any, draft: Draft) -> None:
    validator = budgeted(VALIDATORS[draft], budget := CallBudget(0.2))(schema)
    budget.start()
    started = cpu_seconds()
    with pytest.raises(CallTimeout, match=r"pattern '\^\(a\|a\)\*\$' did not finish"):
        list(validator.iter_errors(instance))
    assert cpu_seconds() - started < seconds(1.5)


def _spend_cpu(seconds: float) -> None:
    """Busy the thread for ``seconds`` of its CPU time."""
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


def test_descending_stops_at_the_budget() -> None:
    budget = CallBudget(0.05)
    validator = budgeted(VALIDATORS[Draft.DRAFT2020], budget)({"items": {"items": {}}})
    budget.start()
    _spend_cpu(0.06)
    with pytest.raises(CallTimeout, match=r"longer than the 0\.05 s budget of a call"):
        list(validator.iter_errors([[1]]))


def test_time_spent_waiting_is_not_spent_from_the_budget() -> None:
    # A thread that waits (descheduled on a loaded machine, here asleep) uses no CPU time:
    # the wall time is past the budget, the call's evaluation is not.
    budget = CallBudget(0.05)
    validator = budgeted(VALIDATORS[Draft.DRAFT2020], budget)({"items": {"items": {}}})
    budget.start()
    time.sleep(0.1)
    assert list(validator.iter_errors([[1]])) == []
    remaining = budget.remaining()
    assert remaining is not None and 0 < remaining <= 0.05


def _outcomes(budget: CallBudget) -> list[str]:
    """Whether each of a few calls finished within ``budget``: a bomb that never does, and
    values the same pattern decides in a few thousand steps."""
    validator = budgeted(VALIDATORS[Draft.DRAFT2020], budget)({"pattern": BOMB})
    found = []
    for instance in (LONG, "a" * 12 + "!", "a" * 30, LONG):
        budget.start()
        try:
            found.append("valid" if validator.is_valid(instance) else "invalid")
        except CallTimeout:
            found.append("timeout")
    return found


def test_the_budget_decides_the_same_with_the_machine_loaded() -> None:
    expected = ["timeout", "invalid", "valid", "timeout"]
    assert _outcomes(CallBudget(0.3)) == expected
    # Processes busy on every core: this one gets a fraction of the wall time it got, and
    # its calls still get the same CPU time, so the same outcomes.
    load = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 1)
    ]
    try:
        assert _outcomes(CallBudget(0.3)) == expected
    finally:
        for process in load:
            process.kill()
            process.wait()


def test_no_budget_means_no_deadline() -> None:
    budget = CallBudget(None)
    validator = budgeted(VALIDATORS[Draft.DRAFT2020], budget)({"pattern": "^a+$"})
    budget.start()
    assert validator.is_valid("aaa")
    assert not validator.is_valid("aab")


scalars = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from([1.0, 0.0, -1.0, "1"])
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(items=st.lists(values, max_size=6))
def test_unique_items_agrees_with_python_jsonschema(items: list[Any]) -> None:
    plain = VALIDATORS[Draft.DRAFT2020]({"uniqueItems": True})
    fast = budgeted(VALIDATORS[Draft.DRAFT2020], CallBudget(None))({"uniqueItems": True})
    assert fast.is_valid(items) == plain.is_valid(items)


def test_the_report_counts_the_calls_that_ran_out_of_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bomb = {"type": "object", "properties": {"s": {"type": "string", "pattern": BOMB}}}
    plain = {"type": "object", "properties": {"s": {"type": "string"}}}
    # t: only the old schema has the pattern; u: only the new one has it.
    (tmp_path / "old.json").write_text(json.dumps({"t": bomb, "u": plain}))
    (tmp_path / "new.json").write_text(json.dumps({"t": plain, "u": bomb}))
    calls = [("t", LONG), ("t", "aaa"), ("u", LONG), ("u", "aaa")]
    (tmp_path / "calls.jsonl").write_text(
        "".join(json.dumps({"tool": tool, "arguments": {"s": s}}) + "\n" for tool, s in calls)
    )
    args = ["audit", "--schemas", str(tmp_path / "old.json"), "--new-schemas"]
    args += [str(tmp_path / "new.json"), "--logs", str(tmp_path / "calls.jsonl")]
    args += ["--call-timeout", "0.2", "--no-report-files", "--format", "json"]
    for runtime, totals in [
        # Lenient: the old pattern that cannot finish enforces nothing, so t's long value was
        # accepted before and after; u's new pattern cannot finish: schema_error_after.
        ("lenient", {"accepted": 3, "schema_error_after": 1}),
        # Standard: the old schema cannot be used for t's long value: schema_error_before.
        ("standard", {"accepted": 2, "schema_error_after": 1, "schema_error_before": 1}),
    ]:
        code, out, _ = run_cli([*args, "--old-runtime", runtime], capsys)
        report = json.loads(out)
        assert code == 1  # u's new pattern cannot finish: that call fails after the change
        assert {k: v for k, v in report["totals"].items() if v and k != "calls"} == totals
        assert report["calls_over_budget"] == 2
    code, out, _ = run_cli([*args[:-1], "markdown"], capsys)
    assert (
        "2 calls ran out of the CPU time one call may take (`--call-timeout`): where the new "
        "schema could not finish, the call is `schema_error_after`; where the old schema, read "
        "leniently, could not, what did not finish enforced nothing.\n"
    ) in out


@pytest.fixture
def clocks(monkeypatch: pytest.MonkeyPatch) -> CountingClock:
    counting = CountingClock()
    monkeypatch.setattr(budget_module, "time", counting)
    return counting


def test_a_deferred_budget_reads_no_clock_until_an_evaluation_asks(clocks: CountingClock) -> None:
    budget = CallBudget(0.05)
    budget.start()
    _spend_cpu(0.06)  # the previous call's budget is spent...
    budget.defer()  # ...and forgotten: the new call's starts when its evaluation asks
    assert clocks.reads == 2  # start's two, none since
    validator = budgeted(VALIDATORS[Draft.DRAFT2020], budget)({"items": {"items": {}}})
    assert list(validator.iter_errors([[1]])) == []
    assert clocks.reads > 2
    remaining = budget.remaining()
    assert remaining is not None and 0 < remaining <= 0.05


def test_a_deferred_budget_still_stops_a_runaway_evaluation() -> None:
    budget = CallBudget(0.2)
    validator = budgeted(VALIDATORS[Draft.DRAFT2020], budget)({"pattern": BOMB})
    budget.defer()
    started = cpu_seconds()
    with pytest.raises(CallTimeout, match=r"pattern '\^\(a\|a\)\*\$' did not finish"):
        validator.is_valid(LONG)
    assert cpu_seconds() - started < seconds(1.5)
    budget.defer()
    assert validator.is_valid("aaa")  # a new call, a new budget


def test_ensure_started_starts_a_deferred_budget_once() -> None:
    budget = CallBudget(0.05)
    budget.defer()
    budget.ensure_started()
    _spend_cpu(0.06)
    budget.ensure_started()  # started already: the time spent counts
    assert budget.spent()
    budget.defer()
    assert not budget.spent()  # the first ask starts the new call's budget
    unbounded = CallBudget(None)
    unbounded.defer()
    unbounded.ensure_started()
    assert unbounded.remaining() is None and not unbounded.spent()


PLAIN = {
    "type": "object",
    "properties": {"s": {"type": "string", "maxLength": 4}},
    "additionalProperties": False,
}


def test_a_call_the_fast_validator_decides_reads_no_clock(clocks: CountingClock) -> None:
    replay = _replay(PLAIN, {**PLAIN, "required": ["s"]})
    clocks.reads = 0
    assert replay.verdicts({"s": "abc"}) == (ACCEPTS, ACCEPTS)
    assert clocks.reads == 0
    # A rejection is described by the reference, under the budget: its clocks are read.
    old, new = replay.verdicts({})
    assert old == ACCEPTS and not new.accepts and new.errors[0].keyword == "required"
    assert clocks.reads > 0
    # Light, it is described by the fast validator's errors, and the compiled lenient
    # reading rejects it too: no clock again.
    clocks.reads = 0
    old, new = replay.light_verdicts({"s": "abcde"})
    assert old == REJECTS and [e.keyword for e in new.errors] == ["maxLength"]
    assert clocks.reads == 0


def test_a_replays_reference_evaluation_still_stops_at_the_budget() -> None:
    # Python's backtracking on the bomb, which the fast validator's regex engine never does:
    # it rejects, so the reference describes the rejection, and runs out of the budget.
    bomb = {"type": "object", "properties": {"s": {"type": "string", "pattern": BOMB}}}
    replay = _replay({"type": "object"}, bomb, CallBudget(0.2))
    started = cpu_seconds()
    old, new = replay.verdicts({"s": LONG})
    assert cpu_seconds() - started < seconds(1.5)
    assert old is None and new.over_budget and new.problem is not None
    assert "did not finish" in new.problem
    assert replay.verdicts({"s": "aaa"}) == (ACCEPTS, ACCEPTS)


def _replay(old: Any, new: Any, budget: CallBudget | None = None) -> ToolReplay:
    """A replay of ``old`` against ``new``, with a budget (a replay's default has none)."""
    tool = ToolSchema("t", old, Location("catalog.json"), "", "mapping")
    normalized = compare(tool, replace(tool, schema=new), ())
    return ToolReplay(tool, normalized, budget=budget or CallBudget(2.0))
