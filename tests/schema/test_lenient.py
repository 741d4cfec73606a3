"""The lenient reading of an old schema, as a truth table: each kind of place a lenient
runtime cannot evaluate, what is left of the schema, and where it was read as enforcing
nothing. Expectations are reasoned from the meta-schemas, not produced by the code."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import validators

from auditor.models import JSON
from auditor.replay.tool import VALIDATORS
from auditor.schema.keywords import draft_of
from auditor.schema.lenient import (
    DANGLING_REF,
    NOT_A_TYPE,
    NOT_VALID,
    REMOTE_REF,
    read_leniently,
    tolerant,
)

DRAFT7 = "http://json-schema.org/draft-07/schema#"


def _meta(schema: JSON) -> Any:
    """The validator of ``schema``'s draft's meta-schema, as jsonschema builds it."""
    cls: Any = VALIDATORS[draft_of(schema)]
    meta_cls: Any = validators.validator_for(cls.META_SCHEMA, default=cls)
    return meta_cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)


CASES: list[tuple[str, Any, Any, list[tuple[str, str]]]] = [
    ("a type name that is not a JSON type", {"type": "String"}, {}, [("/type", NOT_A_TYPE)]),
    (
        "a type list keeps its valid names",
        {"type": ["Integer", "null"]},
        {"type": ["null"]},
        [("/type", NOT_A_TYPE)],
    ),
    (
        "a type list of which nothing is left is absent",
        {"type": "object", "properties": {"n": {"type": ["Integer", "Null"], "minimum": 1}}},
        {"type": "object", "properties": {"n": {"minimum": 1}}},
        [("/properties/n/type", NOT_A_TYPE)],
    ),
    ("a type that is not a name at all", {"type": ["string", 5]}, {}, [("/type", NOT_VALID)]),
    (
        "a bound that is not a number",
        {"minLength": "3", "maxLength": 5},
        {"maxLength": 5},
        [("/minLength", NOT_VALID)],
    ),
    ("required as a string, not a list", {"required": "name"}, {}, [("/required", NOT_VALID)]),
    ("enum that is not a list", {"enum": "abc"}, {}, [("/enum", NOT_VALID)]),
    ("a pattern that is not a regex", {"pattern": "(unclosed"}, {}, [("/pattern", NOT_VALID)]),
    (
        "a property whose schema is not a schema accepts anything",
        {"properties": {"a": 5, "b": {"type": "string"}}},
        {"properties": {"a": {}, "b": {"type": "string"}}},
        [("/properties/a", NOT_VALID)],
    ),
    (
        "an allOf branch that is not a schema accepts anything",
        {"allOf": [{"minLength": 1}, 7]},
        {"allOf": [{"minLength": 1}, {}]},
        [("/allOf/1", NOT_VALID)],
    ),
    (
        "an anyOf branch that is not a schema takes anyOf with it",
        {"anyOf": [{"type": "string"}, 7], "maxLength": 3},
        {"maxLength": 3},
        [("/anyOf", NOT_VALID)],
    ),
    ("not of a non-schema is absent, never 'reject all'", {"not": 5}, {}, [("/not", NOT_VALID)]),
    (
        "a dependentRequired entry that is not a list",
        {"dependentRequired": {"a": "b"}},
        {},
        [("/dependentRequired", NOT_VALID)],
    ),
    (
        "draft-07 dependencies entry that is neither a schema nor a list",
        {"$schema": DRAFT7, "dependencies": {"a": 5, "b": ["c"]}},
        {"$schema": DRAFT7, "dependencies": {"a": {}, "b": ["c"]}},
        [("/dependencies/a", NOT_VALID)],
    ),
    (
        "a $ref that points nowhere",
        {"properties": {"a": {"$ref": "#/$defs/missing", "type": "string"}}},
        {"properties": {"a": {"type": "string"}}},
        [("/properties/a/$ref", DANGLING_REF)],
    ),
    (
        "a remote $ref is never fetched",
        {"$ref": "https://example.com/s.json", "type": "object"},
        {"type": "object"},
        [("/$ref", REMOTE_REF)],
    ),
    (
        "a $ref to an anchor that exists is kept",
        {"$ref": "#name", "$defs": {"x": {"$anchor": "name", "type": "string"}}},
        {"$ref": "#name", "$defs": {"x": {"$anchor": "name", "type": "string"}}},
        [],
    ),
    (
        "a $ref to an anchor that no schema defines points nowhere",
        {"$ref": "#other", "$defs": {"x": {"$anchor": "name"}}, "type": "string"},
        {"$defs": {"x": {"$anchor": "name"}}, "type": "string"},
        [("/$ref", DANGLING_REF)],
    ),
    (
        "a $ref to the whole schema (a recursive tree) is kept",
        {"type": "object", "properties": {"child": {"$ref": "#"}}},
        {"type": "object", "properties": {"child": {"$ref": "#"}}},
        [],
    ),
    (
        "a $ref spelled with ~ escapes and percent-encoding that resolves is kept",
        {
            "$defs": {"a/b c": {"type": "string"}, "m~n": {}},
            "allOf": [{"$ref": "#/$defs/a~1b%20c"}, {"$ref": "#/$defs/m~0n"}],
        },
        {
            "$defs": {"a/b c": {"type": "string"}, "m~n": {}},
            "allOf": [{"$ref": "#/$defs/a~1b%20c"}, {"$ref": "#/$defs/m~0n"}],
        },
        [],
    ),
    (
        "a $ref whose escape names another key points nowhere",
        {"$defs": {"a/b": {}}, "$ref": "#/$defs/a~0b"},
        {"$defs": {"a/b": {}}},
        [("/$ref", DANGLING_REF)],
    ),
    (
        "data that looks like a type name is never touched",
        {"properties": {"type": {"enum": ["String"]}}, "default": {"type": "String"}},
        {"properties": {"type": {"enum": ["String"]}}, "default": {"type": "String"}},
        [],
    ),
    (
        "snake_case keywords are unknown: valid, kept, enforcing nothing",
        {"type": "object", "min_properties": "x"},
        {"type": "object", "min_properties": "x"},
        [],
    ),
    ("a schema that is not an object or boolean", 5, {}, [("", NOT_VALID)]),
]


@pytest.mark.parametrize(
    ("schema", "read", "places"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_lenient_reading(schema: Any, read: Any, places: list[tuple[str, str]]) -> None:
    meta = _meta(schema)
    got, readings = read_leniently(schema, draft_of(schema), meta)
    assert got == read
    assert [(r.pointer, r.reason) for r in readings] == places
    # What is left is valid JSON Schema (a boolean schema always is).
    assert isinstance(got, (dict, bool)), got
    assert not list(meta.iter_errors(got)), "what is left is valid JSON Schema"


def test_the_input_schema_is_never_modified() -> None:
    schema: JSON = {"type": "object", "properties": {"a": {"type": "String"}}}
    meta = _meta(schema)
    read_leniently(schema, draft_of(schema), meta)
    assert schema == {"type": "object", "properties": {"a": {"type": "String"}}}


def test_a_keyword_that_raises_while_evaluating_enforces_nothing_and_the_rest_applies() -> None:
    # Left as written (no lenient reading first): comparing with a string raises TypeError.
    schema = {"properties": {"n": {"minimum": "3"}, "s": {"type": "string"}}}
    plain = validators.Draft202012Validator(schema)
    with pytest.raises(TypeError):
        plain.is_valid({"n": 5})
    lenient = tolerant(validators.Draft202012Validator)(schema)
    assert lenient.is_valid({"n": 5})
    assert not lenient.is_valid({"n": 5, "s": 1})  # the rest of the schema still applies


def test_an_unresolvable_reference_inside_a_nested_resource_enforces_nothing() -> None:
    # A nested $id changes what references are relative to: left to evaluation time.
    schema = {
        "$defs": {"x": {"$id": "https://example.com/x", "$ref": "#/missing"}},
        "properties": {"a": {"$ref": "#/$defs/x"}, "b": {"maxLength": 2}},
    }
    lenient = tolerant(validators.Draft202012Validator)(schema)
    assert lenient.is_valid({"a": 1, "b": "ok"})
    assert not lenient.is_valid({"a": 1, "b": "too long"})
