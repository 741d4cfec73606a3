"""Coverage by the arguments' shape must equal coverage by real evaluation, call for call."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import pointers
from auditor.aggregate.pipeline import prepare
from auditor.inputs.reader import call_from
from auditor.models import JSON, Call, Location, ToolSchema
from auditor.replay import coverage
from auditor.replay.tool import ToolReplay
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import load_cases
from tests.replay.test_fast_validator import INSTANCES
from tests.schema.test_normalize_properties import NAMES, dialect, leaf

KEYED = st.dictionaries(
    st.sampled_from(["type", "any_of", "min_items", "enum", "anyOf", "path", "mode", "a"]),
    INSTANCES,
    max_size=4,
)
REF: dict[str, Any] = {"$ref": "#/$defs/d"}


def _shape_branches(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    # Only the applicators the shape walk follows (see auditor.replay.coverage._FOLLOWED):
    # below anything else it defers to evaluation, and the comparison would be with itself.
    return st.fixed_dictionaries(
        {},
        optional={
            "items": children,
            "additionalProperties": children,
            "prefixItems": st.lists(children, min_size=1, max_size=2),
            "allOf": st.lists(children, min_size=1, max_size=2),
            "properties": st.dictionaries(NAMES, children, max_size=3),
        },
    )


def _walkable(base: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        base,
        lambda children: st.tuples(leaf, _shape_branches(children)).map(
            lambda pair: {**pair[0], **pair[1]}
        ),
        max_leaves=12,
    )


# The target of the reference holds no reference: a schema that refers to itself on the same
# value recurses until evaluation raises, which is not what this test compares.
walkable_schemas = st.tuples(
    _walkable(leaf | st.booleans() | st.just(REF)), _walkable(leaf | st.booleans())
).map(lambda pair: {**pair[0], "$defs": {"d": pair[1]}} if isinstance(pair[0], dict) else pair[0])
"""Schemas whose rewritten keywords the shape walk reaches on its own, local $ref included."""


def _both_ways(replay: ToolReplay, instance: Any) -> tuple[frozenset[int], frozenset[int]]:
    tracker = replay.coverage
    if tracker is None:
        return frozenset(), frozenset()
    return tracker.reached(instance), tracker.reached(instance, by_shape=False)


def _tracked(replay: ToolReplay) -> bool:
    """Whether the tool has a rewrite whose keyword evaluation can run (else both ways give
    the empty set without looking at the instance)."""
    return replay.coverage is not None and replay.coverage.tracks


def _walked(replay: ToolReplay, instance: Any) -> bool:
    """Whether ``reached`` answers for ``instance`` by the shape walk, not by evaluating."""
    tracker = replay.coverage
    if tracker is None or not tracker.tracks or tracker._paths is None:
        return False
    return tracker._paths.visit(instance) is not None


def test_shape_and_evaluation_agree_on_generated_dialects() -> None:
    compared = {"examples": 0, "tracked": 0, "instances": 0, "walked": 0}

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        walkable_schemas,
        st.randoms(use_true_random=False),
        st.lists(KEYED | INSTANCES, min_size=1, max_size=6),
    )
    def agree(schema: Any, rng: random.Random, instances: list[Any]) -> None:
        tool = ToolSchema("t", dialect(schema, rng), Location("x"), "", "mapping")
        replay = prepare([tool], DEFAULT_RULES)["t"]
        compared["examples"] += 1
        compared["tracked"] += _tracked(replay)
        for instance in instances:
            by_shape, evaluated = _both_ways(replay, instance)
            assert by_shape == evaluated, instance
            if _tracked(replay):
                compared["instances"] += 1
                compared["walked"] += _walked(replay, instance)

    agree()
    # The comparisons are real: where a tool has a rewrite to track (most do: the dialect
    # leaves some schemas, `true` say, with none), the shape walk answers for every instance
    # and is compared with evaluation, not evaluation with itself.
    assert compared["tracked"] >= 0.3 * compared["examples"], compared  # about 60%
    assert compared["walked"] == compared["instances"], compared


@pytest.mark.parametrize("case", load_cases("replay"))
def test_shape_and_evaluation_agree_on_the_replay_cases(case: dict[str, Any]) -> None:
    tool = ToolSchema("t", case["schema"], Location("x"), "", "mapping")
    replay = prepare([tool], DEFAULT_RULES)["t"]
    # Arguments given as JSON text are compared as the reader decodes them; text that does
    # not parse reaches no keyword (every case has at least one call that parses).
    texts = [
        call_from("case", "t", s["arguments_text"]) for s in case["calls"] if "arguments_text" in s
    ]
    literal = [spec["arguments"] for spec in case["calls"] if "arguments" in spec]
    instances = [*literal, *(call.arguments for call in texts if call.unparsed is None)]
    assert instances, case["name"]
    for arguments in instances:
        by_shape, evaluated = _both_ways(replay, arguments)
        assert by_shape == evaluated, arguments


def test_the_shape_walk_is_used_for_plain_schemas_and_not_below_any_of() -> None:
    plain: JSON = {"type": "object", "properties": {"tags": {"type": "array", "min_items": 1}}}
    replay = prepare([ToolSchema("t", plain, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    assert replay.coverage is not None and replay.coverage._paths is not None
    assert replay.coverage._paths.visit({"tags": []}) is not None
    # Indices after the rewrites' are the constraints' (constraint coverage).
    assert replay.evaluate(Call("x:1", "t", {"tags": []}))[1] == frozenset({0, 1, 2, 3})
    assert [s.pointer for s in replay.constraints] == [
        "/properties/tags/minItems",
        "/properties/tags/type",
        "/type",
    ]
    assert replay.evaluate(Call("x:2", "t", {"other": 1}))[1] == frozenset({3})
    branchy: JSON = {"any_of": [{"type": "string", "min_length": 2}, {"type": "integer"}]}
    replay = prepare([ToolSchema("t", branchy, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    assert replay.coverage is not None and replay.coverage._paths is not None
    assert replay.coverage._paths.visit("ab") is None  # min_length lies below anyOf: evaluate


def _reached_pointers(replay: ToolReplay, instance: Any) -> set[str]:
    """The constraint pointers ``instance`` reaches by the shape walk, after checking that
    real evaluation reaches the same (the schemas below have no rewrites)."""
    assert replay.coverage is not None and not replay.normalized.rewrites
    by_shape, evaluated = _both_ways(replay, instance)
    assert by_shape == evaluated, instance
    return {replay.constraints[i].pointer for i in by_shape}


def test_the_walk_remembers_each_key_set_apart() -> None:
    # The walk remembers per schema object what an object with given keys leads to: calls
    # with other keys, the same keys in another order, and nested values must not share it.
    schema: JSON = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"$ref": "#/$defs/t"},
            "list": {"type": "array", "items": {"$ref": "#/$defs/t"}},
            "tree": {"$ref": "#/$defs/node"},
        },
        "additionalProperties": {"minLength": 1},
        "$defs": {
            "t": {"maxLength": 3},
            "node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}}},
        },
    }
    replay = prepare([ToolSchema("t", schema, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    top, a, t, extra = (
        "/type",
        "/properties/a/type",
        "/$defs/t/maxLength",
        "/additionalProperties/minLength",
    )
    array, node = "/properties/list/type", "/$defs/node/type"
    for _ in range(2):  # the second round answers from what the first remembered
        assert _reached_pointers(replay, {"a": "x"}) == {top, a}
        assert _reached_pointers(replay, {"b": "y"}) == {top, t}
        assert _reached_pointers(replay, {"a": 1, "b": 2}) == {top, a, t}
        assert _reached_pointers(replay, {"b": 2, "a": 1}) == {top, a, t}
        assert _reached_pointers(replay, {"zz": 1}) == {top, extra}
        assert _reached_pointers(replay, {"a": "x", "zz": 1}) == {top, a, extra}
        assert _reached_pointers(replay, {"list": []}) == {top, array}
        assert _reached_pointers(replay, {"list": ["a", "b"]}) == {top, array, t}
        assert _reached_pointers(replay, {"tree": {"child": {"child": 1}}}) == {top, node}
        assert _reached_pointers(replay, {"tree": 1}) == {top, node}
        assert _reached_pointers(replay, {}) == {top}
        assert _reached_pointers(replay, "not an object") == {top}


def test_references_deeper_than_the_walk_are_evaluated() -> None:
    # 70 references in a row reach a constraint whatever the value: past the walk's depth
    # bound the call is evaluated for real, and both ways still agree.
    defs: dict[str, JSON] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(70)}
    defs["d70"] = {"maxLength": 1}
    schema: JSON = {
        "properties": {"deep": {"$ref": "#/$defs/d0"}, "near": {"$ref": "#/$defs/d69"}},
        "$defs": defs,
    }
    replay = prepare([ToolSchema("t", schema, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    assert replay.coverage is not None and replay.coverage._paths is not None
    assert replay.coverage._paths.visit({"deep": "x"}) is None
    assert replay.coverage._paths.visit({"near": "x"}) is not None
    assert _reached_pointers(replay, {"deep": "x"}) == {"/$defs/d70/maxLength"}
    assert _reached_pointers(replay, {"near": ["x"]}) == {"/$defs/d70/maxLength"}
    assert _reached_pointers(replay, {"other": "x"}) == set()


def _nested(levels: int, wrap: Any, leaf_schema: JSON) -> JSON:
    schema = leaf_schema
    for _ in range(levels):
        schema = wrap(schema)
    return schema


_CHAIN: dict[str, JSON] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(62)}
"""62 references in a row, to ``d62``."""


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        # A property below 62 references, then 64 nested arrays: the constraint met whatever
        # the value lies past the walk's depth bound; it is not added at once but left to
        # real evaluation.
        (
            {
                "properties": {"x": {"$ref": "#/$defs/d0"}},
                "$defs": {**_CHAIN, "d62": {"properties": {"a": {"type": "string"}}}},
            },
            {"x": {"a": "s"}},
        ),
        (_nested(64, lambda s: {"items": s}, {"type": "string"}), _nested(64, lambda v: [v], "x")),
    ],
)
def test_values_deeper_than_the_walk_are_evaluated(schema: JSON, instance: Any) -> None:
    replay = prepare([ToolSchema("t", schema, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    assert replay.coverage is not None and replay.coverage._paths is not None
    assert replay.coverage._paths.visit(instance) is None
    # Only the innermost ``type`` constrains anything, and the instance reaches it.
    assert len(replay.constraints) == 1
    assert _reached_pointers(replay, instance) == {replay.constraints[0].pointer}


def test_tuple_items_are_walked_by_position() -> None:
    schema: JSON = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "items": [{"type": "string"}, {"type": "integer"}],
    }
    replay = prepare([ToolSchema("t", schema, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    assert replay.coverage is not None and replay.coverage._paths is not None
    assert replay.coverage._paths.visit(["a"]) is not None
    assert _reached_pointers(replay, ["a"]) == {"/items/0/type"}
    assert _reached_pointers(replay, ["a", 1, True]) == {"/items/0/type", "/items/1/type"}
    assert _reached_pointers(replay, {"a": 1}) == set()


def test_past_the_allowance_nothing_more_is_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    schema: JSON = {"properties": {"a": {"type": "string"}, "b": {"maxLength": 2}}}
    monkeypatch.setattr(coverage, "KEY_SETS", coverage._Allowance(1))
    replay = prepare([ToolSchema("t", schema, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    assert replay.coverage is not None and replay.coverage._paths is not None
    for _ in range(2):
        assert _reached_pointers(replay, {"a": "x"}) == {"/properties/a/type"}
        assert _reached_pointers(replay, {"b": "x"}) == {"/properties/b/maxLength"}
        assert _reached_pointers(replay, {"a": 1, "b": 2}) == {
            "/properties/a/type",
            "/properties/b/maxLength",
        }
    # The one key set allowed went to the first object's step; none to the tracker's answers.
    assert coverage.KEY_SETS.left == 0
    assert not replay.coverage._by_keys


def test_the_walk_remembers_keys_with_the_kinds_of_the_values_it_walks() -> None:
    # Where only whether a list has items past its positions matters below an object's keys,
    # calls with the same keys share one answer per kind of value: a list with items past
    # ``prefixItems``, a shorter one, an object, anything else. Each kind must answer apart.
    schema: JSON = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "prefixItems": [{}], "items": {"$ref": "#/$defs/t"}},
            "n": {"type": "integer"},
        },
        "$defs": {"t": {"maxLength": 3}},
    }
    replay = prepare([ToolSchema("t", schema, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    top, tags, t, n = "/type", "/properties/tags/type", "/$defs/t/maxLength", "/properties/n/type"
    cases: list[tuple[JSON, set[str]]] = [
        ({"tags": ["a", "b"], "n": 1}, {top, tags, t, n}),
        ({"tags": ["a"], "n": 1}, {top, tags, n}),  # the items start after the one position
        ({"tags": [], "n": 1}, {top, tags, n}),
        ({"tags": {"a": 1}, "n": 1}, {top, tags, n}),
        ({"tags": "a", "n": 1}, {top, tags, n}),
        ({"tags": ["x", "y", "z"], "n": 1}, {top, tags, t, n}),
        ({"n": 1, "tags": ["a", "b"]}, {top, tags, t, n}),  # other keys (in order)
    ]
    for _ in range(3):  # later rounds answer from what the first ones remembered
        for instance, expected in cases:
            assert _reached_pointers(replay, instance) == expected, instance
    assert replay.coverage is not None
    shapes = replay.coverage._by_shape
    assert set(shapes) == {
        (("tags", "n"), (3,)),
        (("tags", "n"), (2,)),
        (("tags", "n"), (1,)),
        (("tags", "n"), (0,)),
        (("n", "tags"), (3,)),
    }
    assert not replay.coverage._by_keys  # the keys alone never decide here


def test_values_walked_further_than_one_list_are_not_remembered_by_kind() -> None:
    schema: JSON = {
        "type": "object",
        "properties": {
            "rows": {"type": "array", "items": {"$ref": "#/$defs/row"}},
            "pair": {"type": "array", "prefixItems": [{"maxLength": 1}]},
        },
        "$defs": {"row": {"type": "object", "properties": {"a": {"maxLength": 2}}}},
    }
    replay = prepare([ToolSchema("t", schema, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    rows, row, a = "/properties/rows/type", "/$defs/row/type", "/$defs/row/properties/a/maxLength"
    pair, first = "/properties/pair/type", "/properties/pair/prefixItems/0/maxLength"
    for _ in range(2):
        assert _reached_pointers(replay, {"rows": [{"a": "x"}]}) == {"/type", rows, row, a}
        assert _reached_pointers(replay, {"rows": [{"b": "x"}]}) == {"/type", rows, row}
        assert _reached_pointers(replay, {"pair": ["x"]}) == {"/type", pair, first}
        assert _reached_pointers(replay, {"pair": []}) == {"/type", pair}
    assert replay.coverage is not None and not replay.coverage._by_shape


def test_a_value_below_an_applicator_is_remembered_by_its_branches_verdicts_not_its_kind() -> None:
    # "a" is below anyOf: which branches run depends on their verdicts on the value of "a"
    # (a value zone). The call is remembered by the kind of "b" and those verdicts: another
    # value with the same verdicts is answered from it, another of the same kind is not.
    schema: JSON = {
        "type": "object",
        "properties": {
            "b": {"type": "array", "items": {"maxLength": 2}},
            "a": {"anyOf": [{"maxLength": 1}, {"type": "integer"}]},
        },
    }
    replay = prepare([ToolSchema("t", schema, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    b, item = "/properties/b/type", "/properties/b/items/maxLength"
    any_of, first = "/properties/a/anyOf", "/properties/a/anyOf/0/maxLength"
    second = "/properties/a/anyOf/1/type"
    for _ in range(3):
        # anyOf stops at its first valid branch: maxLength 1 holds for "y" and ignores 7.
        assert _reached_pointers(replay, {"b": ["x"], "a": "y"}) == {
            "/type",
            b,
            item,
            any_of,
            first,
        }
        assert _reached_pointers(replay, {"b": [], "a": 7}) == {"/type", b, any_of, first}
    # "yy" is a string as "y" is, but too long for the first branch: the second one runs.
    assert _reached_pointers(replay, {"b": ["x"], "a": "yy"}) == {
        "/type",
        b,
        item,
        any_of,
        first,
        second,
    }
    # "z" is another string that passes the first branch: answered from what "y" left.
    assert _reached_pointers(replay, {"b": ["x"], "a": "z"}) == {"/type", b, item, any_of, first}
    assert replay.coverage is not None
    zone = id(pointers.resolve(replay.normalized.schema, "/properties/a")[1])
    assert set(replay.coverage._by_shape) == {
        (("b", "a"), (3, (zone, ((1,),)))),
        (("b", "a"), (2, (zone, ((1,),)))),
        (("b", "a"), (3, (zone, ((0, 0),)))),
    }
    assert not replay.coverage._by_keys
    # No zone went to the tracking evaluation: every branch's verdict came from its keywords.
    assert not replay.coverage._zone_validators and not replay.coverage._by_zone


def test_a_nested_object_is_remembered_by_its_keys_and_its_values_kinds() -> None:
    # Below a property that names properties, what the walk meets depends on the nested
    # object's keys and, in turn, on what decides its values' walks: calls with the same
    # keys at both levels share one answer, whatever the strings are; other nested keys,
    # or a value that is not an object, answer apart.
    schema: JSON = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "filter": {
                "type": "object",
                "properties": {
                    "field": {"type": "string"},
                    "mode": {"anyOf": [{"const": "eq"}, {"maxLength": 2}]},
                },
            },
        },
    }
    replay = prepare([ToolSchema("t", schema, Location("x"), "", "mapping")], DEFAULT_RULES)["t"]
    top, ident, kind = "/type", "/properties/id/type", "/properties/filter/type"
    field = "/properties/filter/properties/field/type"
    any_of = "/properties/filter/properties/mode/anyOf"
    eq = "/properties/filter/properties/mode/anyOf/0/const"
    short = "/properties/filter/properties/mode/anyOf/1/maxLength"
    for _ in range(2):
        for n in range(3):
            instance = {"id": f"u{n}", "filter": {"field": f"f{n}"}}
            assert _reached_pointers(replay, instance) == {top, ident, kind, field}
        assert _reached_pointers(replay, {"id": "u", "filter": {"mode": "eq"}}) == {
            top,
            ident,
            kind,
            any_of,
            eq,
        }
        assert _reached_pointers(replay, {"id": "u", "filter": {"mode": "ne"}}) == {
            top,
            ident,
            kind,
            any_of,
            eq,
            short,
        }
        assert _reached_pointers(replay, {"id": "u", "filter": "x"}) == {top, ident, kind}
    assert replay.coverage is not None
    mode = id(pointers.resolve(replay.normalized.schema, "/properties/filter/properties/mode")[1])
    # The id and the field walk nothing below them (the steps' leaves): only the filter counts.
    assert set(replay.coverage._by_shape) == {
        (("id", "filter"), ((("field",), ()),)),
        (("id", "filter"), ((("mode",), ((mode, ((1,),)),)),)),
        (("id", "filter"), ((("mode",), ((mode, ((0, 1),)),)),)),
        (("id", "filter"), (0,)),
    }
