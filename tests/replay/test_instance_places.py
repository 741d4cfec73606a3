"""Where the counterexample search aims: the instance paths a schema object applies to,
followed through the references that lead into it."""

from __future__ import annotations

from typing import Any

import pytest

from auditor.models import JSON
from auditor.replay import instance_places
from auditor.replay.budget import SearchCeiling
from auditor.replay.instance_places import (
    ABSENT,
    EVERY_PLACE,
    MAX_REFERENCE_STEPS,
    MAX_TEMPLATES,
    places,
    templates,
    wrapped,
)


def _steps(schema: Any, holder: str) -> list[tuple[str, ...] | None]:
    return [
        None if t is EVERY_PLACE else t.steps for t in templates(schema, holder, SearchCeiling())
    ]


def test_a_property_is_aimed_at_by_its_own_path_alone() -> None:
    schema = {"properties": {"a": {"items": {"properties": {"b": {"type": "string"}}}}}}
    assert _steps(schema, "/properties/a/items/properties/b") == [("a", "*", "b")]


def test_a_definition_is_aimed_at_through_each_reference_into_it() -> None:
    schema = {
        "properties": {
            "tags": {"items": {"$ref": "#/$defs/tag"}},
            "main": {"$ref": "#/$defs/tag"},
        },
        "$defs": {"tag": {"type": "string"}},
    }
    # Both referrers, the shallowest first; both ways known: no argument's every place.
    assert _steps(schema, "/$defs/tag") == [("main",), ("tags", "*")]
    # Of ways equally deep, the first in the document first.
    twice = {
        "properties": {"b": {"$ref": "#/$defs/t"}, "a": {"$ref": "#/$defs/t"}},
        "$defs": {"t": {}},
    }
    assert _steps(twice, "/$defs/t") == [("b",), ("a",)]
    # Below the target, the rest of the path is walked from the definition.
    nested = {
        "properties": {"p": {"$ref": "#/$defs/obj"}},
        "$defs": {"obj": {"properties": {"q": {"allOf": [{"maxLength": 1}]}}}},
    }
    assert _steps(nested, "/$defs/obj/properties/q/allOf/0") == [("p", "q")]


def test_a_recursive_definition_gives_its_ways_in_once_each_and_ends() -> None:
    schema = {
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "$defs": {
            "node": {
                "properties": {
                    "name": {"type": "string"},
                    "children": {"items": {"$ref": "#/$defs/node"}},
                }
            }
        },
    }
    assert _steps(schema, "/$defs/node/properties/name") == [
        ("root", "name"),
        ("root", "children", "*", "name"),
    ]
    # A reference back to the root: the root's own place, then through the referrer.
    looped = {"properties": {"a": {"type": "string"}, "self": {"$ref": "#"}}}
    assert _steps(looped, "/properties/a") == [("a",), ("self", "a")]


def test_ways_no_template_surely_covers_end_with_every_place() -> None:
    # Nothing refers to the definition: no template, every place.
    assert _steps({"$defs": {"d": {"type": "string"}}}, "/$defs/d") == [None]
    # A reference by anchor may lead here too: the pointer's way, then every place.
    anchored = {
        "properties": {"a": {"$ref": "#/$defs/d"}, "b": {"$ref": "#d"}},
        "$defs": {"d": {"$anchor": "d", "type": "string"}},
    }
    assert _steps(anchored, "/$defs/d") == [("a",), None]
    # A name's subschema applies to no value of the argument a path can say.
    named = {"properties": {"o": {"propertyNames": {"maxLength": 2}}}}
    assert _steps(named, "/properties/o/propertyNames") == [None]


def test_a_definition_referred_to_from_many_places_keeps_a_bounded_number() -> None:
    count = MAX_TEMPLATES + 3
    schema: dict[str, Any] = {
        "properties": {f"p{i:02}": {"$ref": "#/$defs/d"} for i in range(count)},
        "$defs": {"d": {"type": "string"}},
    }
    found = _steps(schema, "/$defs/d")
    assert len(found) == MAX_TEMPLATES + 1 and found[-1] is None
    # The first in the document, each its own property.
    assert found[:-1] == [(f"p{i:02}",) for i in range(MAX_TEMPLATES)]
    # Exactly at the bound, the templates cover every way: no every-place fallback. (A new
    # schema: the references are indexed by the schema's identity.)
    bounded = {
        "properties": {f"p{i}": {"$ref": "#/$defs/d"} for i in range(MAX_TEMPLATES)},
        "$defs": {"d": {"type": "string"}},
    }
    assert _steps(bounded, "/$defs/d") == [(f"p{i}",) for i in range(MAX_TEMPLATES)]


def test_a_missing_place_is_built_as_its_containers_want_it() -> None:
    schema: dict[str, Any] = {
        "properties": {
            "filter": {
                "properties": {"field": {"type": "string"}, "value": {"$ref": "#/$defs/v"}},
                "required": ["field"],
            }
        },
        "$defs": {"v": {"type": "string"}},
    }
    (template,) = templates(schema, "/$defs/v", SearchCeiling())
    assert template is not None
    found = list(places({"id": 1}, template))
    assert len(found) == 1
    where, value, wrap = found[0]
    assert (where, value, list(wrap[0])) == ("/filter", ABSENT, ["value"])
    # The container's schema says what stands beside the added value.
    required = {"field": ""}

    def built(container: JSON) -> JSON:
        return dict(required) if container is schema["properties"]["filter"] else None

    assert wrapped(None, wrap, built) == {"field": "", "value": None}
    # Present values are edited where they stand, and a list's next item is a place too.
    listed: dict[str, Any] = {
        "properties": {"t": {"items": {"$ref": "#/$defs/v"}}},
        "$defs": {"v": {}},
    }
    (items,) = templates(listed, "/$defs/v", SearchCeiling())
    assert [(w, v) for w, v, _ in places({"t": ["x"]}, items)] == [("/t/0", "x"), ("/t/1", ABSENT)]


def test_thousands_of_references_to_the_root_cost_a_bounded_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each property refers back to the root: every property's place is also each other's
    # place's member, without end. The walk takes MAX_REFERENCE_STEPS referrers at most.
    walked: list[Any] = []
    walk = instance_places._walk

    def counted(*args: Any) -> Any:
        walked.append(args)
        return walk(*args)

    monkeypatch.setattr(instance_places, "_walk", counted)
    schema: dict[str, Any] = {"properties": {f"p{i}": {"$ref": "#"} for i in range(2_000)}}
    found = _steps(schema, "/properties/p5")
    assert found[0] == ("p5",) and found[-1] is None and len(found) == MAX_TEMPLATES + 1
    assert len(walked) <= 2 * MAX_REFERENCE_STEPS + 1
