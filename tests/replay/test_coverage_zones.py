"""Coverage through value zones: below ``anyOf``, ``oneOf``, ``if``, ``not``, ``contains``,
``patternProperties``, ``dependentSchemas``..., the walk hands the schema object and its part
of the arguments to the tracking validator and remembers the answer by that part's exact text
(``auditor.replay.coverage``). Calls with one signature must reach the same keywords, and the
remembered answer must be the full tracking evaluation's, call for call."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import pointers
from auditor.aggregate.pipeline import prepare
from auditor.models import JSON, Location, ToolSchema
from auditor.replay import coverage
from auditor.replay.coverage import CoverageTracker
from auditor.replay.tool import ToolReplay
from auditor.schema.normalize import DEFAULT_RULES
from tests.replay.test_fast_validator import INSTANCES
from tests.schema.test_normalize_properties import dialect, leaf

KEYS = st.sampled_from(["mode", "path", "a", "ab", "b", "min_items", "type"])
"""Property names of the schemas and keys of the instances: they must meet."""
PATTERNS = st.sampled_from(["^a", "b$", "^[a-c]+$", "^min_items$"])
REF: dict[str, Any] = {"$ref": "#/$defs/d"}


def _branches(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    # Every applicator: the ones the walk follows and the ones it leaves to value zones.
    listed = st.lists(children, min_size=1, max_size=2)
    return st.fixed_dictionaries(
        {},
        optional={
            **{key: children for key in ("not", "if", "then", "else", "contains", "items")},
            "additionalProperties": children,
            **{key: listed for key in ("anyOf", "oneOf", "allOf", "prefixItems")},
            "properties": st.dictionaries(KEYS, children, max_size=3),
            "patternProperties": st.dictionaries(PATTERNS, children, max_size=2),
            "dependentSchemas": st.dictionaries(KEYS, children, max_size=2),
            "unevaluatedProperties": st.booleans() | children,
            "minContains": st.integers(0, 2),
            "maxContains": st.integers(0, 2),
        },
    )


def _schemas(base: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        base,
        lambda children: st.tuples(leaf, _branches(children)).map(
            lambda pair: {**pair[0], **pair[1]}
        ),
        max_leaves=10,
    )


# The target of the reference holds no reference: a schema that refers to itself on the same
# value recurses until evaluation raises, which is not what this test compares.
zoned_schemas = st.tuples(_schemas(leaf | st.booleans() | st.just(REF)), _schemas(leaf)).map(
    lambda pair: {**pair[0], "$defs": {"d": pair[1]}} if isinstance(pair[0], dict) else pair[0]
)
KEYED = st.dictionaries(KEYS, INSTANCES, max_size=4)
"""Objects whose keys the schemas name, so that their values reach the zones."""


def _replay(schema: JSON) -> ToolReplay:
    return prepare([ToolSchema("t", schema, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]


def test_one_signature_one_answer_and_it_is_the_full_evaluations() -> None:
    seen = {"examples": 0, "tracked": 0, "instances": 0, "zoned": 0, "shared": 0}

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        zoned_schemas,
        st.randoms(use_true_random=False),
        st.lists(KEYED | INSTANCES, min_size=2, max_size=8),
    )
    def agree(schema: Any, rng: random.Random, instances: list[Any]) -> None:
        tracker = _replay(dialect(schema, rng)).coverage
        seen["examples"] += 1
        if tracker is None or not tracker.tracks:
            return  # nothing is tracked: no keyword to reach
        seen["tracked"] += 1
        by_signature: dict[Any, frozenset[int]] = {}
        zones: set[Any] = set()
        # Twice: the second round answers from what the first remembered.
        for round, instance in [*((0, i) for i in instances), *((1, i) for i in instances)]:
            signature = tracker.signature(instance)
            # No remote reference, no $id, a few levels deep: the walk always answers.
            assert signature is not None, instance
            remembered = tracker.reached(instance)
            evaluated = tracker.reached(instance, by_shape=False)
            assert remembered == evaluated, instance
            assert by_signature.setdefault(signature, evaluated) == evaluated, instance
            if round == 0:
                seen["instances"] += 1
                seen["zoned"] += bool(signature[1])
                seen["shared"] += bool(signature[1] & zones)
                zones |= signature[1]

    agree()
    # The comparisons are real: most tools track a keyword, many calls meet a zone (the
    # answer is then the zone's evaluation), and some zones' values recur in another
    # instance of the same example (the answer is then remembered: about one in six).
    assert seen["tracked"] >= 0.5 * seen["examples"], seen  # about 75%
    assert seen["zoned"] >= 0.2 * seen["instances"], seen  # about 37%
    assert seen["shared"] >= 0.08 * seen["zoned"], seen


def _pointers(replay: ToolReplay, tracker: CoverageTracker, instance: JSON) -> set[str]:
    """The keyword pointers ``instance`` reaches (constraints only: no rewrites below),
    after checking the remembered answer against the full evaluation."""
    assert not replay.normalized.rewrites
    remembered = tracker.reached(instance)
    assert remembered == tracker.reached(instance, by_shape=False), instance
    return {replay.constraints[i].pointer for i in remembered}


def test_an_any_of_of_consts_is_a_zone_on_its_property_alone() -> None:
    # The commonest pattern in real catalogs: a property `anyOf` two consts (or T and null).
    # anyOf stops at its first valid branch: "a" never reaches the second const, "b" does.
    schema: JSON = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^[a-z]+_[0-9]+$"},
            "mode": {"anyOf": [{"const": "a"}, {"const": "b", "maxLength": 3}]},
        },
    }
    replay = _replay(schema)
    tracker = replay.coverage
    assert tracker is not None
    top, id_type, pattern = "/type", "/properties/id/type", "/properties/id/pattern"
    any_of = "/properties/mode/anyOf"
    first, second, longest = (
        "/properties/mode/anyOf/0/const",
        "/properties/mode/anyOf/1/const",
        "/properties/mode/anyOf/1/maxLength",
    )
    for _ in range(2):
        assert _pointers(replay, tracker, {"id": "u_1", "mode": "a"}) == {
            top,
            id_type,
            pattern,
            any_of,
            first,
        }
        assert _pointers(replay, tracker, {"id": "u_2", "mode": "b"}) == {
            top,
            id_type,
            pattern,
            any_of,
            first,
            second,
            longest,
        }
        assert _pointers(replay, tracker, {"mode": 7}) == {top, any_of, first, second, longest}
        assert _pointers(replay, tracker, {"id": 3}) == {top, id_type, pattern}
    # The zone is the `mode` schema object on the value of `mode` alone, decided by its
    # branches' verdicts: calls with other ids share its signature; another mode does not.
    one = tracker.signature({"id": "u_1", "mode": "a"})
    mode = id(pointers.resolve(replay.normalized.schema, "/properties/mode")[1])
    assert one is not None and one == tracker.signature({"id": "zz_9", "mode": "a"})
    assert (mode, ((1,),)) in one[0] and not one[1]  # passed the first branch; no text
    assert one != tracker.signature({"id": "u_1", "mode": "b"})
    # 1, 1.0 and True fail both consts alike: one decision, whatever their text.
    assert len({tracker.signature({"mode": value}) for value in (1, 1.0, True)}) == 1
    assert not tracker._zone_validators  # no tracking evaluation of the zone


def test_pattern_properties_decide_which_properties_are_additional() -> None:
    # `additionalProperties` gets the properties no pattern matches: the object holding
    # both is a zone, evaluated on the object with its keys.
    schema: JSON = {
        "properties": {
            "tags": {
                "type": "object",
                "patternProperties": {"^x-": {"maxLength": 4}},
                "additionalProperties": {"type": "integer"},
            }
        }
    }
    replay = _replay(schema)
    tracker = replay.coverage
    assert tracker is not None
    tags, pattern, extra = (
        "/properties/tags/type",
        "/properties/tags/patternProperties/^x-/maxLength",
        "/properties/tags/additionalProperties/type",
    )
    for _ in range(2):
        assert _pointers(replay, tracker, {"tags": {"x-a": "v"}}) == {tags, pattern}
        assert _pointers(replay, tracker, {"tags": {"y": 1}}) == {tags, extra}
        assert _pointers(replay, tracker, {"tags": {"x-a": "v", "y": 1}}) == {tags, pattern, extra}
        assert _pointers(replay, tracker, {"tags": []}) == {tags}
        assert _pointers(replay, tracker, {"other": {"x-a": 1}}) == set()


def test_if_decides_then_or_else_and_a_ref_below_is_followed() -> None:
    schema: JSON = {
        "properties": {
            "n": {
                "if": {"type": "integer"},
                "then": {"$ref": "#/$defs/small"},
                "else": {"minLength": 1},
            }
        },
        "$defs": {"small": {"maximum": 9}},
    }
    replay = _replay(schema)
    tracker = replay.coverage
    assert tracker is not None
    condition, small, length = (
        "/properties/n/if/type",
        "/$defs/small/maximum",
        ("/properties/n/else/minLength"),
    )
    for _ in range(2):
        assert _pointers(replay, tracker, {"n": 3}) == {condition, small}
        assert _pointers(replay, tracker, {"n": "x"}) == {condition, length}
        assert _pointers(replay, tracker, {"m": 3}) == set()


def test_a_zone_left_to_evaluation_is_remembered_once_its_values_recur() -> None:
    # A mode below ``contains`` beside ``anyOf`` (contains is left to the tracking
    # evaluation), an id beside it: the call's signature is its keys and the mode's text. A
    # mode met once is not remembered by signature (ids, free text would fill the memory
    # with signatures never met again); met again, it is, and answers in one lookup.
    schema: JSON = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "mode": {"anyOf": [{"const": "a"}, {"const": "b"}], "contains": {"maxLength": 1}},
        },
    }
    replay = _replay(schema)
    tracker = replay.coverage
    assert tracker is not None
    everything = {"/type", "/properties/id/type", "/properties/mode/anyOf"}
    everything.add("/properties/mode/contains")
    first, second = "/properties/mode/anyOf/0/const", "/properties/mode/anyOf/1/const"
    assert _pointers(replay, tracker, {"id": "u1", "mode": "a"}) == {*everything, first}
    assert not tracker._by_shape  # the step was new, and so was the mode's value
    assert _pointers(replay, tracker, {"id": "u2", "mode": "a"}) == {*everything, first}
    mode = id(pointers.resolve(replay.normalized.schema, "/properties/mode")[1])
    assert set(tracker._by_shape) == {(("id", "mode"), ((mode, "'a'"),))}
    assert _pointers(replay, tracker, {"id": "u3", "mode": "b"}) == {*everything, first, second}
    assert _pointers(replay, tracker, {"id": "u4", "mode": "a"}) == {*everything, first}
    assert len(tracker._by_shape) == 1  # "b" met once
    assert _pointers(replay, tracker, {"id": "u5", "mode": "b"}) == {*everything, first, second}
    assert len(tracker._by_shape) == 2


def test_a_decided_zone_is_remembered_by_its_verdicts_from_the_first_value() -> None:
    # The same mode below anyOf alone: its branches' verdicts decide it, and values with the
    # same verdicts share one signature, so the signature is remembered from the first call
    # whose step is known, whatever the mode's text.
    schema: JSON = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "mode": {"anyOf": [{"const": "a"}, {"const": "b"}]},
        },
    }
    replay = _replay(schema)
    tracker = replay.coverage
    assert tracker is not None
    everything = {"/type", "/properties/id/type", "/properties/mode/anyOf"}
    first, second = "/properties/mode/anyOf/0/const", "/properties/mode/anyOf/1/const"
    mode = id(pointers.resolve(replay.normalized.schema, "/properties/mode")[1])
    assert _pointers(replay, tracker, {"id": "u1", "mode": "a"}) == {*everything, first}
    assert not tracker._by_shape  # the step was new
    assert _pointers(replay, tracker, {"id": "u3", "mode": "b"}) == {*everything, first, second}
    assert set(tracker._by_shape) == {(("id", "mode"), ((mode, ((0, 1),)),))}
    assert _pointers(replay, tracker, {"id": "u4", "mode": "c"}) == {*everything, first, second}
    assert _pointers(replay, tracker, {"id": "u5", "mode": 7}) == {*everything, first, second}
    assert _pointers(replay, tracker, {"id": "u2", "mode": "a"}) == {*everything, first}
    assert set(tracker._by_shape) == {
        (("id", "mode"), ((mode, ((0, 1),)),)),
        (("id", "mode"), ((mode, ((0, 0),)),)),  # "c" and 7 alike
        (("id", "mode"), ((mode, ((1,),)),)),
    }
    assert not tracker._zone_validators


@pytest.mark.parametrize("decided", [True, False])
def test_a_zone_past_its_share_of_values_is_worked_out_each_time(
    monkeypatch: pytest.MonkeyPatch, decided: bool
) -> None:
    monkeypatch.setattr(coverage, "_VALUES_PER_ZONE", 2)
    note: dict[str, JSON] = {"anyOf": [{"maxLength": 2}, {"type": "null"}]}
    if not decided:  # contains is left to the tracking evaluation, and the zone with it
        note["contains"] = {"minLength": 1}
    replay = _replay({"properties": {"note": note}})
    tracker = replay.coverage
    assert tracker is not None
    short, null = "/properties/note/anyOf/0/maxLength", "/properties/note/anyOf/1/type"
    any_of = "/properties/note/anyOf"
    also = set() if decided else {"/properties/note/contains"}
    for _ in range(2):  # past the share, answers are the same, worked out each time
        assert _pointers(replay, tracker, {"note": "ab"}) == {any_of, short, *also}
        assert _pointers(replay, tracker, {"note": "abc"}) == {any_of, short, null, *also}
        # maxLength holds for anything but a string: null passes the first branch.
        assert _pointers(replay, tracker, {"note": None}) == {any_of, short, *also}
        assert _pointers(replay, tracker, {"note": "abcd"}) == {any_of, short, null, *also}
        assert _pointers(replay, tracker, {"note": "x"}) == {any_of, short, *also}
    remembered = tracker._decisions if decided else tracker._by_zone
    assert len(remembered) == 2
    assert bool(tracker._zone_validators) is not decided


def test_a_zone_whose_evaluation_raises_sends_the_call_to_the_full_evaluation() -> None:
    # "x" refers to itself below anyOf on the same value: evaluation recurses until Python
    # stops it, in the zone as in the whole call, which then reached only the anyOf.
    schema: JSON = {"properties": {"x": {"anyOf": [{"$ref": "#/properties/x"}]}}}
    replay = _replay(schema)
    tracker = replay.coverage
    assert tracker is not None
    for _ in range(2):
        assert _pointers(replay, tracker, {"x": 1}) == {"/properties/x/anyOf"}
        assert _pointers(replay, tracker, {"y": 1}) == set()
    assert not tracker._by_zone  # nothing remembered from an evaluation that raised


def test_a_root_zone_with_its_own_dialect_is_evaluated_with_the_tracking_validator() -> None:
    # The whole schema is a zone (patternProperties): evaluated as it is, not evolved onto
    # itself, which would pick the standard class $schema names and track nothing.
    schema: JSON = {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "patternProperties": {"^a": {"maxLength": 1}},
    }
    replay = _replay(schema)
    tracker = replay.coverage
    assert tracker is not None
    for _ in range(2):
        assert _pointers(replay, tracker, {"a": "xy"}) == {"/patternProperties/^a/maxLength"}
        assert _pointers(replay, tracker, {"b": "xy"}) == set()
