"""The structural difference between two schemas of a tool, as the rewrites causes follow.

Every expectation is worked out from the two schemas: which keyword positions differ, and
what one change per pointer says there.
"""

from __future__ import annotations

from auditor.models import JSON, Change, Edit, Location, Rule, ToolSchema
from auditor.replay.causes import keyword_position
from auditor.schema.diff import MAX_SHOWN, compare, diff, difference, same


def _changes(old: JSON, new: JSON) -> list[tuple[str, str, str, str, Edit]]:
    found = diff(old, new)
    assert all(r.rule is Rule.EDIT for r in found)
    return [(r.pointer, r.new_pointer, r.old, r.new, r.edit) for r in found]


def test_identical_schemas_have_no_changes() -> None:
    schema: JSON = {"type": "object", "properties": {"a": {"type": "string", "enum": [1, 2]}}}
    assert (
        diff(schema, {"properties": {"a": {"enum": [1, 2], "type": "string"}}, "type": "object"})
        == ()
    )


def test_a_changed_bound_is_one_change_at_its_keyword_not_at_every_schema_above() -> None:
    old: JSON = {"properties": {"city": {"type": "string", "maxLength": 100}}}
    new: JSON = {"properties": {"city": {"type": "string", "maxLength": 10}}}
    at = "/properties/city/maxLength"
    assert _changes(old, new) == [(at, at, "100", "10", Edit.REPLACE)]


def test_added_and_removed_keywords_show_their_values() -> None:
    old: JSON = {"type": "object", "minProperties": 1}
    new: JSON = {"type": "object", "additionalProperties": False}
    assert _changes(old, new) == [
        ("/additionalProperties", "/additionalProperties", "", "false", Edit.ADD),
        ("/minProperties", "/minProperties", "1", "", Edit.REMOVE),
    ]


def test_a_respelled_keyword_is_one_rename_and_its_value_is_compared_below_it() -> None:
    old: JSON = {"any_of": [{"type": "string"}, {"type": "integer", "minimum": 0}]}
    new: JSON = {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 1}]}
    assert _changes(old, new) == [
        ("/any_of", "/anyOf", "any_of", "anyOf", Edit.RENAME),
        ("/any_of/1/minimum", "/anyOf/1/minimum", "0", "1", Edit.REPLACE),
    ]


def test_two_spellings_of_one_keyword_on_a_side_are_not_guessed_at() -> None:
    # min_length and MinLength both spell minLength: which one became it cannot be told.
    old: JSON = {"min_length": 1, "MinLength": 2}
    new: JSON = {"minLength": 1}
    assert {c[4] for c in _changes(old, new)} == {Edit.ADD, Edit.REMOVE}


def test_a_property_added_or_removed_belongs_to_properties() -> None:
    old: JSON = {"properties": {"a": {}, "gone": {"type": "string"}}}
    new: JSON = {"properties": {"a": {}, "new": {"type": "integer"}}}
    found = diff(old, new)
    assert [(r.pointer, r.edit, r.old, r.new) for r in found] == [
        ("/properties/new", Edit.ADD, "", '{"type":"integer"}'),
        ("/properties/gone", Edit.REMOVE, '{"type":"string"}', ""),
    ]
    # Property names are data: the entries are changes of the properties keyword.
    assert [keyword_position(r) for r in found] == ["/properties", "/properties"]


def test_data_values_are_replaced_whole() -> None:
    old: JSON = {"required": ["a"], "enum": ["x", "y"], "type": ["string", "null"]}
    new: JSON = {"required": ["a", "b"], "enum": ["x"], "type": "string"}
    assert _changes(old, new) == [
        ("/required", "/required", '["a"]', '["a","b"]', Edit.REPLACE),
        ("/enum", "/enum", '["x","y"]', '["x"]', Edit.REPLACE),
        ("/type", "/type", '["string","null"]', '"string"', Edit.REPLACE),
    ]


def test_branches_added_to_a_list_replace_the_list() -> None:
    old: JSON = {"oneOf": [{"type": "string"}]}
    new: JSON = {"oneOf": [{"type": "string"}, {"type": "null"}]}
    assert _changes(old, new) == [
        ("/oneOf", "/oneOf", '[{"type":"string"}]', '[{"type":"string"},{"type":"null"}]',
         Edit.REPLACE),
    ]  # fmt: skip


def test_changes_inside_defs_are_found_where_they_are() -> None:
    old: JSON = {"$defs": {"id": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/id"}}}
    new: JSON = {
        "$defs": {"id": {"type": "string", "pattern": "^u"}},
        "properties": {"a": {"$ref": "#/$defs/id"}},
    }
    assert _changes(old, new) == [
        ("/$defs/id/pattern", "/$defs/id/pattern", "", '"^u"', Edit.ADD),
    ]


def test_json_equality_tells_true_from_one() -> None:
    assert same(1, 1.0) and same({"a": [1]}, {"a": [1.0]})
    assert not same(True, 1) and not same(0, False) and not same("1", 1)
    assert _changes({"maxLength": 1}, {"maxLength": True}) == [
        ("/maxLength", "/maxLength", "1", "true", Edit.REPLACE)
    ]


def test_property_names_that_look_like_keywords_stay_names() -> None:
    old: JSON = {"properties": {"min_length": {"type": "string"}}}
    new: JSON = {"properties": {"minLength": {"type": "string"}}}
    # Two different properties, not a rename: names in properties are data.
    assert [r.edit for r in diff(old, new)] == [Edit.ADD, Edit.REMOVE]


def test_a_long_value_is_cut() -> None:
    new: JSON = {"enum": ["x" * 500]}
    (change,) = diff({}, new)
    assert len(change.new) == MAX_SHOWN and change.new.endswith("…")


def test_boolean_schemas_are_compared_as_values() -> None:
    assert _changes({"items": True}, {"items": False}) == [
        ("/items", "/items", "true", "false", Edit.REPLACE)
    ]


def _tool(name: str, schema: JSON) -> ToolSchema:
    return ToolSchema(name, schema, Location("t.json"), "", "mapping")


def test_a_removed_tool_refuses_every_call_with_one_change() -> None:
    side = compare(_tool("t", {"type": "object"}), None, ())
    assert side.schema is False
    assert side.rewrites == (Change("", "t", "tool removed", Rule.EDIT, "", Edit.REMOVE),)
    assert side.rewrites[0].removes_tool
    assert side.rewrites[0].describe() == "tool t removed"


def test_the_new_side_is_normalized_only_by_the_rules_given() -> None:
    old = _tool("t", {"type": "object"})
    new = _tool("t", {"type": "object", "min_properties": 1})
    as_written = compare(old, new, ())
    assert as_written.schema == {"type": "object", "min_properties": 1}
    assert [r.edit for r in as_written.rewrites] == [Edit.ADD]
    normalized = compare(old, new, (Rule.KEYWORD_CASE,))
    assert normalized.schema == {"type": "object", "minProperties": 1}
    assert [(r.new_pointer, r.edit) for r in normalized.rewrites] == [("/minProperties", Edit.ADD)]


def test_annotations_edited_alone_are_text_only_edits_counted_apart() -> None:
    old: JSON = {
        "type": "object",
        "description": "Find a city.",
        "title": "Search",
        "properties": {
            "city": {"type": "string", "examples": ["Oslo"], "$comment": "kept short"},
            "limit": {"type": "integer"},
        },
    }
    new: JSON = {
        "type": "object",
        "description": "Find a city by name.",  # replaced
        "properties": {  # the title removed
            "city": {"type": "string", "examples": ["Oslo", "Rome"]},  # replaced; removed
            "limit": {"type": "integer", "description": "At most."},  # added
        },
    }
    found = difference(old, new)
    assert (found.changes, found.text_edits) == ((), 5)
    assert diff(old, new) == ()  # none of them is a change


def test_an_annotation_beside_a_change_is_counted_apart_from_it() -> None:
    old: JSON = {"properties": {"q": {"type": "string", "maxLength": 5}}}
    new: JSON = {"properties": {"q": {"type": "string", "maxLength": 3, "title": "Query"}}}
    found = difference(old, new)
    at = "/properties/q/maxLength"
    assert [(r.pointer, r.edit) for r in found.changes] == [(at, Edit.REPLACE)]
    assert found.text_edits == 1


def test_what_looks_like_an_annotation_but_is_not_one_is_a_change() -> None:
    # A property named "description" is data of properties: adding it changes what passes.
    named: JSON = {"properties": {"description": {"type": "string"}}}
    assert [r.pointer for r in diff({"properties": {}}, named)] == ["/properties/description"]
    # A title that is no string fails the meta-schema: a change, whatever it says.
    assert [r.edit for r in diff({"title": "A"}, {"title": 1})] == [Edit.REPLACE]
    # A whole subschema added with its description is one change, not a text-only edit.
    added = difference({}, {"properties": {"a": {"description": "x"}}})
    assert ([r.pointer for r in added.changes], added.text_edits) == (["/properties"], 0)
    # examples must be a list to be an annotation.
    assert [r.edit for r in diff({}, {"examples": "a"})] == [Edit.ADD]


def test_compare_carries_the_text_only_edits_to_the_report() -> None:
    old = _tool("t", {"type": "object", "description": "old words"})
    new = _tool("t", {"type": "object", "description": "new words"})
    side = compare(old, new, ())
    assert (side.rewrites, side.text_edits) == ((), 1)
