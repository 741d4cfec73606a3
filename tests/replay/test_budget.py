"""The per-call time budget: every keyword that matches a regex is interruptible, in every
draft, and the linear ``uniqueItems`` agrees with python-jsonschema's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.replay.budget import CallBudget, CallTimeout, budgeted
from auditor.replay.tool import VALIDATORS
from auditor.schema.keywords import Draft
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
