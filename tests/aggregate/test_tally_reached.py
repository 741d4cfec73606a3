"""The calls that reached each rewrite: counted by the set of rewrites a call reached, and
added up by rewrite when read, exactly as one count per rewrite a call would give."""

from __future__ import annotations

import pickle

import pytest

from auditor.aggregate import pipeline
from auditor.aggregate.pipeline import ReportSettings, Tally, prepare
from auditor.models import Call, CallResult, Location, Outcome, ToolSchema
from auditor.schema.normalize import DEFAULT_RULES

_TOOL = ToolSchema("t", {"type": "object"}, Location("tools.json", 1, 1), "", "mapping")
_OTHER = ToolSchema("u", {"type": "object"}, Location("tools.json", 2, 1), "", "mapping")


def _accepted(tool: str, line: int) -> CallResult:
    return CallResult(Call(f"log:{line}", tool, {}), Outcome.ACCEPTED)


def _tally() -> Tally:
    return Tally(prepare([_TOOL, _OTHER], DEFAULT_RULES), ReportSettings())


def _count(tally: Tally, counted: list[tuple[str, frozenset[int], int]]) -> None:
    for line, (tool, reached, weight) in enumerate(counted, start=1):
        tally.add(_accepted(tool, line), reached, weight)


# Rewrite 0 is reached by 1 + 1 + 3 calls of t, 1 by 1 + 3, 2 by 1 + 1 (+ an equal set that
# is another object) and 7 by 1; u's rewrite 0 by 2; the empty set reaches nothing.
_CALLS = [
    ("t", frozenset({0, 1}), 1),
    ("t", frozenset({0, 2}), 1),
    ("u", frozenset({0}), 2),
    ("t", frozenset({0, 1}), 3),
    ("t", frozenset(), 1),
    ("t", frozenset({2}), 1),
    ("t", frozenset({7}), 1),
]
_EXPECTED = {"t": {0: 5, 1: 4, 2: 2, 7: 1}, "u": {0: 2}}


def test_counts_by_set_add_up_to_the_counts_by_rewrite() -> None:
    tally = _tally()
    _count(tally, _CALLS)
    assert tally.reached == _EXPECTED
    assert tally.totals[Outcome.ACCEPTED] == 10


def test_past_the_bound_of_sets_the_counts_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "MAX_REACHED_SETS", 1)
    tally = _tally()
    _count(tally, _CALLS)
    assert tally.reached == _EXPECTED


def test_reading_the_counts_midway_then_counting_on_adds_up() -> None:
    tally = _tally()
    _count(tally, _CALLS[:3])
    assert tally.reached == {"t": {0: 2, 1: 1, 2: 1}, "u": {0: 2}}
    _count(tally, _CALLS[3:])
    assert tally.reached == _EXPECTED


def test_merged_part_tallies_give_one_pass_counts_also_through_pickle() -> None:
    first, later = _tally(), _tally()
    _count(first, _CALLS[:4])
    _count(later, _CALLS[4:])
    returned = pickle.loads(pickle.dumps(later))  # as a --jobs worker's comes back
    first.merge(returned)
    assert first.reached == _EXPECTED
