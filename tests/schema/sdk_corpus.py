"""The corpus the differential test runs the SDKs and the profiles' models on.

Suite-style schemas (JSON-Schema-Test-Suite's way: each exercises one keyword family, here
inside a tool's parameter object, as a catalog holds them), each in six spellings: as written
(camelCase, lower-case types), snake_case keywords, upper-case and capitalized type names,
Gemini's own (snake_case and upper case), and with ``$schema``. The bases cover what the
issue found the SDKs treat differently: ``$ref``/``$defs``, nullable unions, ``nullable``,
``type`` lists, integer enums, ``const``, ``oneOf``/``allOf``, open and closed objects.

Names are ``base/spelling``: the documented differences (docs/profile-differences.yaml)
match them by glob.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final

from auditor.models import JSON
from auditor.schema.keywords import SNAKE_SPELLINGS, VOCABULARY, Draft, Kind

_SCHEMA_2020: Final = "https://json-schema.org/draft/2020-12/schema"


def _tool(
    properties: dict[str, JSON],
    required: list[str] | None = None,
    extra: dict[str, JSON] | None = None,
    **more: JSON,
) -> JSON:
    """A tool's parameter object; ``extra`` and ``more``: its other keywords."""
    schema: dict[str, JSON] = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = list(required)
    schema.update(extra or {})
    schema.update(more)
    return schema


BASES: Final[dict[str, JSON]] = {
    "empty": {},
    "string-bounds": _tool(
        {"q": {"type": "string", "minLength": 1, "maxLength": 5, "pattern": "^a"}}, ["q"]
    ),
    "number-bounds": _tool(
        {
            "n": {"type": "number", "minimum": 0, "maximum": 10},
            "i": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 2},
        },
        ["n"],
    ),
    "array-bounds": _tool(
        {"tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3}},
        ["tags"],
    ),
    "unique-items": _tool(
        {"ids": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}}
    ),
    "tuple": _tool(
        {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]}}
    ),
    "closed-object": _tool({"a": {"type": "string"}}, ["a"], additionalProperties=False),
    "typed-additional": _tool({}, None, additionalProperties={"type": "integer"}),
    "open-object": _tool({"a": {"type": "string"}, "b": {"type": "boolean"}}, ["a"]),
    "nested-objects": _tool(
        {
            "outer": {
                "type": "object",
                "properties": {
                    "inner": {
                        "type": "object",
                        "properties": {"leaf": {"type": "string", "maxLength": 3}},
                        "required": ["leaf"],
                    }
                },
            }
        },
        ["outer"],
    ),
    "array-of-objects": _tool(
        {
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "integer", "minimum": 1}},
                    "required": ["id"],
                },
            }
        }
    ),
    "optional-default-null": _tool(
        {"a": {"type": "string"}, "b": {"type": "string", "default": None}}, ["a"]
    ),
    "nullable-union": _tool(
        {"a": {"anyOf": [{"type": "string", "maxLength": 4}, {"type": "null"}]}}, ["a"]
    ),
    "nullable-keyword": _tool({"a": {"type": "string", "nullable": True}}, ["a"]),
    "type-null": _tool({"a": {"type": "null"}}),
    "type-list": _tool({"a": {"type": ["string", "null"]}}),
    "string-enum": _tool({"unit": {"type": "string", "enum": ["c", "f"]}}, ["unit"]),
    "integer-enum": _tool({"level": {"type": "integer", "enum": [1, 2, 3]}}),
    "untyped-enum": _tool({"v": {"enum": ["a", 1, None]}}),
    "const-string": _tool({"kind": {"type": "string", "const": "card"}}),
    "const-untyped": _tool({"kind": {"const": 3}}),
    "ref-defs": _tool(
        {"home": {"$ref": "#/$defs/address"}},
        ["home"],
        {
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "minLength": 2}},
                    "required": ["city"],
                }
            }
        },
    ),
    "ref-with-siblings": _tool(
        {"home": {"$ref": "#/$defs/city", "description": "where"}},
        None,
        {"$defs": {"city": {"type": "string", "maxLength": 8}}},
    ),
    "ref-definitions": _tool(
        {"when": {"$ref": "#/definitions/day"}},
        None,
        definitions={"day": {"type": "string", "format": "date"}},
    ),
    "any-of": _tool(
        {"id": {"anyOf": [{"type": "string", "minLength": 3}, {"type": "integer", "minimum": 0}]}}
    ),
    "one-of": _tool({"id": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}),
    "all-of-one": _tool({"n": {"allOf": [{"type": "integer", "maximum": 9}]}}),
    "all-of-two": _tool({"n": {"allOf": [{"type": "integer"}, {"minimum": 1}]}}),
    "not": _tool({"s": {"type": "string", "not": {"enum": ["x"]}}}),
    "if-then-else": _tool(
        {"a": {"type": "integer"}},
        None,
        {"if": {"required": ["a"]}, "then": {"required": ["b"]}},
    ),
    "pattern-properties": _tool({}, None, patternProperties={"^x-": {"type": "string"}}),
    "property-counts": _tool({"a": {"type": "string"}}, None, minProperties=1, maxProperties=2),
    "dependent-required": _tool(
        {"a": {"type": "string"}, "b": {"type": "string"}}, None, dependentRequired={"a": ["b"]}
    ),
    "format": _tool({"at": {"type": "string", "format": "date-time"}}),
    "annotations": _tool(
        {"q": {"type": "string", "title": "Query", "description": "what", "examples": ["x"]}},
        ["q"],
        title="search",
        description="search things",
    ),
    "untyped-properties": {"properties": {"a": {"type": "string", "minLength": 1}}},
    "root-any-of": {"anyOf": [_tool({"a": {"type": "string"}}), _tool({"b": {"type": "integer"}})]},
    "type-list-two": _tool(
        {"a": {"type": ["string", "integer", "null"], "minLength": 1, "minimum": 0}}
    ),
    "items-list": _tool({"pair": {"type": "array", "items": [{"type": "string"}]}}),
    "described-options": _tool(
        {"unit": {"anyOf": [{"const": "c", "description": "Celsius"}, {"const": "f"}]}}
    ),
    "ref-into-a-list": _tool(
        {"v": {"$ref": "#/$defs/rev/anyOf/0", "description": "a sha"}},
        None,
        {"$defs": {"rev": {"anyOf": [{"type": "string", "minLength": 7}, {"type": "integer"}]}}},
    ),
    "property-not-a-schema": _tool({"a": "string"}),
    "required-not-a-list": _tool({"a": {"type": "string"}}, None, {"required": "a"}),
}
"""Suite-style schemas by name: each exercises one keyword family."""

_CAMEL_TO_SNAKE: Final = {camel: snake for snake, camel in SNAKE_SPELLINGS[Draft.DRAFT2020].items()}
_KINDS: Final = VOCABULARY[Draft.DRAFT2020]


def respelled(schema: JSON, key: Callable[[str], str], kind: Callable[[str], str] = str) -> JSON:
    """``schema`` with every keyword respelled by ``key`` and every type name by ``kind``;
    property names and data as they were."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, JSON] = {}
    for name, value in schema.items():
        meaning = _KINDS.get(name)
        if meaning is Kind.TYPE:
            value = (
                [kind(v) if isinstance(v, str) else v for v in value]
                if isinstance(value, list)
                else (kind(value) if isinstance(value, str) else value)
            )
        elif meaning is Kind.SCHEMA:
            value = respelled(value, key, kind)
        elif meaning in (Kind.SCHEMA_LIST, Kind.SCHEMA_OR_LIST) and isinstance(value, list):
            value = [respelled(v, key, kind) for v in value]
        elif meaning is Kind.SCHEMA_OR_LIST:
            value = respelled(value, key, kind)
        elif meaning in (Kind.SCHEMA_MAP, Kind.DEPENDENCIES) and isinstance(value, dict):
            value = {n: respelled(v, key, kind) for n, v in value.items()}
        out[key(name)] = value
    return out


def _snake(name: str) -> str:
    return _CAMEL_TO_SNAKE.get(name, name)


def _with_schema(schema: JSON) -> JSON:
    return {"$schema": _SCHEMA_2020, **schema} if isinstance(schema, dict) else schema


SPELLINGS: Final[dict[str, Callable[[JSON], JSON]]] = {
    "as-written": lambda s: s,
    "snake": lambda s: respelled(s, _snake),
    "upper-types": lambda s: respelled(s, str, str.upper),
    "capitalized-types": lambda s: respelled(s, str, str.capitalize),
    "gemini": lambda s: respelled(s, _snake, str.upper),
    "with-$schema": _with_schema,
}
"""The dialects each base is written in."""


def corpus() -> Iterator[tuple[str, JSON]]:
    """Every base in every spelling, as ``(base/spelling, schema)``."""
    for base, schema in BASES.items():
        for spelling, spell in SPELLINGS.items():
            yield f"{base}/{spelling}", spell(schema)
