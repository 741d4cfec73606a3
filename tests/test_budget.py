"""The per-call time budget: every keyword that matches a regex is interruptible, in every
draft, and the linear ``uniqueItems`` agrees with python-jsonschema's."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.replay.budget import CallBudget, CallTimeout, budgeted
from auditor.replay.tool import VALIDATORS
from auditor.schema.keywords import Draft
from tests.conftest import seconds

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
    started = time.monotonic()
    with pytest.raises(CallTimeout, match=r"pattern '\^\(a\|a\)\*\$' did not finish"):
        list(validator.iter_errors(instance))
    assert time.monotonic() - started < seconds(1.5)


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
