"""Coverage by the arguments' shape must equal coverage by real evaluation, call for call."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.aggregate.pipeline import prepare
from auditor.models import Call, Location, ToolSchema
from auditor.replay.tool import ToolReplay
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import load_cases
from tests.test_engine import INSTANCES
from tests.test_normalize_properties import dialect, schemas

KEYED = st.dictionaries(
    st.sampled_from(["type", "any_of", "min_items", "enum", "anyOf", "path", "mode", "a"]),
    INSTANCES,
    max_size=4,
)


def _both_ways(replay: ToolReplay, instance: Any) -> tuple[frozenset[int], frozenset[int]]:
    tracker = replay._coverage
    if tracker is None:
        return frozenset(), frozenset()
    return tracker.reached(instance), tracker.reached(instance, by_shape=False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas, st.randoms(use_true_random=False), st.lists(KEYED | INSTANCES, max_size=6))
def test_shape_and_evaluation_agree_on_generated_dialects(
    schema: Any, rng: random.Random, instances: list[Any]
) -> None:
    tool = ToolSchema("t", dialect(schema, rng), Location("x"), "", "mapping")
    replay = prepare([tool], DEFAULT_RULES)["t"]
    for instance in instances:
        by_shape, evaluated = _both_ways(replay, instance)
        assert by_shape == evaluated, instance


@pytest.mark.parametrize("case", load_cases("replay"))
def test_shape_and_evaluation_agree_on_the_replay_cases(case: dict[str, Any]) -> None:
    tool = ToolSchema("t", case["schema"], Location("x"), "", "mapping")
    replay = prepare([tool], DEFAULT_RULES)["t"]
    for spec in case["calls"]:
        if "arguments" in spec:
            by_shape, evaluated = _both_ways(replay, spec["arguments"])
            assert by_shape == evaluated, spec["arguments"]


def test_the_shape_walk_is_used_for_plain_schemas_and_not_below_any_of() -> None:
    plain = {"type": "object", "properties": {"tags": {"type": "array", "min_items": 1}}}
    replay = prepare([ToolSchema("t", plain, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    assert replay._coverage is not None and replay._coverage._paths is not None
    assert replay._coverage._paths.visit({"tags": []}) is not None
    assert replay.evaluate(Call("x:1", "t", {"tags": []}))[1] == frozenset({0})
    assert replay.evaluate(Call("x:2", "t", {"other": 1}))[1] == frozenset()
    branchy = {"any_of": [{"type": "string", "min_length": 2}, {"type": "integer"}]}
    replay = prepare([ToolSchema("t", branchy, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    assert replay._coverage is not None and replay._coverage._paths is not None
    assert replay._coverage._paths.visit("ab") is None  # min_length lies below anyOf: evaluate
