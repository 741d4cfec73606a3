"""Removed properties: where in the arguments they are, and when the new schema ignores them.

Each expectation is read off the schemas by hand: a removal is an entry of ``properties`` the
new side no longer has; it is ``ignored`` only where nothing in the new schema can refuse an
undeclared member at that place.
"""

from __future__ import annotations

from typing import Any

import pytest

from auditor.schema.removals import (
    ANY_ITEM,
    RemovedProperty,
    declares,
    ignores,
    instance_path,
    removed_properties,
    undeclared,
)
from auditor.schema.structure import diff

OLD: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sha": {"type": "string"},
        "include_diff": {"type": "boolean"},
        "files": {"type": "array", "items": {"properties": {"mode": {}, "path": {}}}},
    },
}


def _removed(old: Any, new: Any) -> tuple[RemovedProperty, ...]:
    return removed_properties(new, diff(old, new))


def test_a_top_level_removal_is_at_the_arguments_and_ignored_where_objects_are_open() -> None:
    new = {
        "type": "object",
        "properties": {"sha": {"type": "string"}, "files": OLD["properties"]["files"]},
    }
    [found] = _removed(OLD, new)
    assert (found.name, found.path, found.pointer, found.ignored) == (
        "include_diff",
        (),
        "/include_diff",
        True,
    )
    assert found.change.pointer == "/properties/include_diff"
    assert found.sent_by({"sha": "a", "include_diff": False})
    assert found.sent_by({"include_diff": None})  # whatever its value
    assert not found.sent_by({"sha": "a"})
    assert not found.sent_by({"files": [{"include_diff": True}]})  # another place


def test_a_removal_below_items_is_sent_by_any_member_of_the_array() -> None:
    new = {
        "type": "object",
        "properties": {
            "sha": {"type": "string"},
            "include_diff": {"type": "boolean"},
            "files": {"type": "array", "items": {"properties": {"path": {}}}},
        },
    }
    [found] = _removed(OLD, new)
    assert (found.name, found.path, found.pointer) == ("mode", ("files", ANY_ITEM), "/files/*/mode")
    assert found.sent_by({"files": [{"path": "a"}, {"mode": "x"}]})
    assert not found.sent_by({"files": [{"path": "a"}], "mode": "x"})
    assert not found.sent_by({"files": {"mode": "x"}})  # not an array: no member


@pytest.mark.parametrize(
    ("closing", "ignored"),
    [
        ({}, True),
        ({"additionalProperties": True}, True),
        ({"additionalProperties": {}}, True),
        ({"additionalProperties": False}, False),
        ({"additionalProperties": {"type": "string"}}, False),  # a value may fail it
        ({"propertyNames": {"maxLength": 3}}, False),
        ({"patternProperties": {"^include_": {"type": "string"}}}, False),  # it matches
        ({"patternProperties": {"^x-": {"type": "string"}}}, True),  # it does not
        ({"patternProperties": {"(?<": {}}}, False),  # unreadable: no proof rests on a guess
        ({"unevaluatedProperties": False}, False),
    ],
)
def test_objects_are_open_only_when_nothing_can_refuse_the_member(
    closing: dict[str, Any], ignored: bool
) -> None:
    new = {"type": "object", "properties": {"sha": {"type": "string"}}, **closing}
    assert ignores(new, "", "include_diff") is ignored


def test_an_unevaluated_properties_anywhere_defeats_the_proof() -> None:
    # It sees through applicators and references: the removal's object can be closed from
    # a schema object around it.
    new: dict[str, Any] = {
        "allOf": [{"properties": {"sha": {}}}],
        "$defs": {"x": {"unevaluatedProperties": False}},
    }
    assert not ignores(new, "/allOf/0", "include_diff")
    assert ignores({"allOf": [{"properties": {"sha": {}}}]}, "/allOf/0", "include_diff")


def test_a_property_moved_into_an_applicator_is_not_removed() -> None:
    new: dict[str, Any] = {
        "type": "object",
        "allOf": [{"properties": {"include_diff": {"type": "boolean"}}}],
    }
    old = {"type": "object", "properties": {"include_diff": {"type": "boolean"}}}
    assert declares(new, "", "include_diff")
    assert _removed(old, new) == ()


def test_the_place_is_traced_through_keywords_that_name_it_only() -> None:
    assert instance_path(["properties", "a", "items", "prefixItems", "1"]) == ("a", ANY_ITEM, 1)
    assert instance_path(["anyOf", "0", "then", "properties", "b"]) == ("b",)
    assert instance_path(["$defs", "a"]) is None  # reached from wherever a $ref is
    assert instance_path(["additionalProperties"]) is None  # any member: no name
    old: dict[str, Any] = {"$defs": {"d": {"properties": {"x": {}, "y": {}}}}}
    new: dict[str, Any] = {"$defs": {"d": {"properties": {"x": {}}}}}
    assert _removed(old, new) == ()


@pytest.mark.parametrize(
    ("old", "expected"),
    [
        ({"properties": {"a": {}}}, True),
        ({"properties": {"a": {}}, "additionalProperties": False}, True),
        ({"properties": {"detail": {}}}, False),  # declared: the old schema judged it
        ({"additionalProperties": {"type": "string"}}, False),
        ({"patternProperties": {"^det": {}}}, False),
        ({"anyOf": [{"properties": {"detail": {"type": "string"}}}]}, False),
    ],
)
def test_a_name_is_undeclared_when_the_old_object_gave_it_no_schema(
    old: dict[str, Any], expected: bool
) -> None:
    assert undeclared(old, "", "detail") is expected


OPEN_NODE: dict[str, Any] = {"properties": {"sha": {}}}


@pytest.mark.parametrize(
    ("schema", "holder"),
    [
        ({"not": OPEN_NODE}, "/not"),
        ({"oneOf": [OPEN_NODE, {}]}, "/oneOf/0"),
        ({"if": OPEN_NODE, "then": {}}, "/if"),
        ({"properties": {"a": {"contains": OPEN_NODE}}}, "/properties/a/contains"),
        ({"$defs": {"d": OPEN_NODE}, "not": {"$ref": "#/$defs/d"}}, "/$defs/d"),
    ],
)
def test_no_proof_where_accepting_more_can_refuse_more(schema: dict[str, Any], holder: str) -> None:
    # Under `not` a subschema that accepts more refuses more; under `oneOf` a second branch
    # that passes fails it; `if` switches to `then`; a definition may be reached from any of
    # them. The same open object, proved ignored at the root or under `allOf`, is not there.
    assert ignores(OPEN_NODE, "", "include_diff")
    assert ignores({"allOf": [OPEN_NODE]}, "/allOf/0", "include_diff")
    assert not ignores(schema, holder, "include_diff")
