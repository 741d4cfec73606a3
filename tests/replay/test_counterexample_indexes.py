"""What the counterexample searches of one tool share, worked out once for all its changes,
answers as the per-change work it replaces: whether nothing changed at or below a place
(a loop over every change and reading, for each change), and the argument built from the
schema (built again for each change)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import pointers
from auditor.models import JSON, Counterexample, Location, Rule, ToolSchema
from auditor.replay import counterexamples
from auditor.replay.causes import keyword_position
from auditor.replay.counterexamples import SearchBudget, counterexample, minimal
from auditor.replay.tool import ToolReplay
from auditor.schema.diff import compare
from auditor.schema.keywords import VOCABULARY, schema_objects
from auditor.schema.normalize import DEFAULT_RULES, normalize
from tests.conftest import load_cases
from tests.replay.test_coverage import KEYED, walkable_schemas
from tests.replay.test_fast_validator import INSTANCES
from tests.schema.test_normalize_properties import dialect


def _loop_unchanged(replay: ToolReplay, place: str) -> bool:
    """What ``_unchanged`` was: a loop over every change and lenient reading."""
    return not any(
        pointers.is_within(keyword_position(other), place) for other in replay.normalized.rewrites
    ) and not any(pointers.is_within(reading.pointer, place) for reading in replay.readings)


def _loop_read(replay: ToolReplay, place: str) -> bool:
    """What ``_members_refused_before`` asked of the readings: a loop over them."""
    return any(pointers.is_within(reading.pointer, place) for reading in replay.readings)


def _places(replay: ToolReplay) -> set[str]:
    """Every pointer the proofs could ask about: each schema object of both sides, its
    ``type`` and each of its keys, each change's and reading's pointer and those above it."""
    found = {""}
    for schema in (replay.tool.schema, replay.normalized.schema):
        for node, where in schema_objects(schema, "", VOCABULARY[replay.normalized.draft]):
            found |= {where, pointers.join(where, "type")}
            found |= {pointers.join(where, key) for key in node}
    points = [keyword_position(r) for r in replay.normalized.rewrites]
    points += [r.pointer for r in replay.normalized.rewrites]
    points += [r.pointer for r in replay.readings]
    for point in points:
        while point:
            found.add(point)
            point = pointers.parent(point)
    return found


def _case_replay(case: dict[str, Any]) -> ToolReplay:
    tool = ToolSchema("t", case["schema"], Location("tools.json"), "", "mapping")
    if "new_schema" in case:
        new = ToolSchema("t", case["new_schema"], Location("new.json"), "", "mapping")
        return ToolReplay(tool, compare(tool, new, frozenset()))
    rules = frozenset(Rule(r) for r in case["rules"]) if "rules" in case else DEFAULT_RULES
    return ToolReplay(tool, normalize(case["schema"], rules))


def _searched(replay: ToolReplay, samples: list[tuple[str, Any]]) -> list[Counterexample]:
    budget = SearchBudget()
    return [
        counterexample(replay, index, samples, budget)
        for index in range(len(replay.normalized.rewrites))
    ]


def _built_again(sides: Any) -> Any:
    schema = sides.replay.normalized.schema
    return minimal(schema, schema, ceiling=sides._ceiling)


def _as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The searches as they were: the loops, and the argument built for each change."""
    monkeypatch.setattr(counterexamples, "_unchanged", _loop_unchanged)
    monkeypatch.setattr(
        counterexamples._Places,
        "read_at_or_below",
        lambda self, place: _loop_read(self.replay, place),
    )
    monkeypatch.setattr(counterexamples._Sides, "built", property(_built_again))


def _compared(replay: ToolReplay, samples: list[tuple[str, Any]]) -> int:
    """Asserts the indexes answer as the loops at every place; the places asked."""
    index = counterexamples._places_of(replay)
    places = _places(replay)
    for place in places:
        assert counterexamples._unchanged(replay, place) == _loop_unchanged(replay, place), place
        assert index.read_at_or_below(place) == _loop_read(replay, place), place
    schema = replay.normalized.schema
    budget = SearchBudget()
    assert budget.sides(replay).built == minimal(schema, schema, ceiling=budget.ceiling)
    with pytest.MonkeyPatch.context() as monkeypatch:
        found = _searched(replay, samples)
        _as_before(monkeypatch)
        assert _searched(replay, samples) == found
    return len(places)


@pytest.mark.parametrize("case", load_cases("counterexamples"))
def test_the_indexes_answer_as_the_loops_on_the_cases(case: dict[str, Any]) -> None:
    replay = _case_replay(case)
    samples = [(s["source"], s["arguments"]) for s in case["samples"]]
    assert _compared(replay, samples) > 0


def test_the_cases_ask_the_indexes_both_ways() -> None:
    # Some place has a change or reading at or below it and some has none, on both indexes.
    answers: set[tuple[str, bool]] = set()
    for param in load_cases("counterexamples"):
        [case] = param.values
        replay = _case_replay(case)
        for place in _places(replay):
            answers.add(("unchanged", counterexamples._unchanged(replay, place)))
            answers.add(("read", counterexamples._places_of(replay).read_at_or_below(place)))
    assert answers == {("unchanged", True), ("unchanged", False), ("read", True), ("read", False)}


@settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(walkable_schemas, st.randoms(use_true_random=False), st.lists(KEYED | INSTANCES, max_size=3))
def test_the_indexes_answer_as_the_loops_on_generated_schemas(
    schema: Any, rng: random.Random, calls: list[Any]
) -> None:
    tool = ToolSchema("t", dialect(schema, rng), Location("x"), "", "mapping")
    replay = ToolReplay(tool, normalize(tool.schema, DEFAULT_RULES))
    _compared(replay, [(f"log:{i}", c) for i, c in enumerate(calls)])


def test_the_argument_built_from_the_schema_is_built_once_per_tool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every property required: each change's search edits the argument built from the
    # schema, which holds all of them; it was built again for each change.
    properties: dict[str, JSON] = {f"p{i}": {"type": "string", "max_length": 1} for i in range(30)}
    schema: JSON = {"type": "object", "properties": properties, "required": list(properties)}
    tool = ToolSchema("t", schema, Location("tools.json"), "", "mapping")
    replay = ToolReplay(tool, normalize(schema, DEFAULT_RULES))
    built: list[Any] = []

    def counted(node: Any, root: Any, *rest: Any, **named: Any) -> Any:
        if node is root:
            built.append(node)
        return minimal(node, root, *rest, **named)

    monkeypatch.setattr(counterexamples, "minimal", counted)
    found = _searched(replay, [])
    assert len(built) == 1
    assert [c.status.value for c in found] == ["found"] * 30
    assert found[7].arguments == {**dict.fromkeys(properties, ""), "p7": "aa"}
