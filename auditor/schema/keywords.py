"""The JSON Schema vocabulary by draft: which keywords exist, and what each one's value is.

The normalizer, the linter and the cause finder all walk schemas through this one table, so a
keyword's meaning is decided in exactly one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from enum import Enum
from typing import Final

from auditor import pointers
from auditor.models import JSON


class Draft(str, Enum):
    DRAFT4 = "draft-04"
    DRAFT6 = "draft-06"
    DRAFT7 = "draft-07"
    DRAFT2019 = "2019-09"
    DRAFT2020 = "2020-12"


DEFAULT_DRAFT: Final = Draft.DRAFT2020


class Kind(Enum):
    """What a keyword's value is, which decides how the walk treats it."""

    SCHEMA = "schema"
    SCHEMA_LIST = "list of schemas"
    SCHEMA_MAP = "map of names to schemas"
    SCHEMA_OR_LIST = "schema or list of schemas"
    DEPENDENCIES = "map of names to schemas or name lists"
    TYPE = "type names"
    DATA = "data"


_DRAFT4: Final[dict[str, Kind]] = {
    "id": Kind.DATA,
    "$schema": Kind.DATA,
    "$ref": Kind.DATA,
    "title": Kind.DATA,
    "description": Kind.DATA,
    "default": Kind.DATA,
    "multipleOf": Kind.DATA,
    "maximum": Kind.DATA,
    "exclusiveMaximum": Kind.DATA,
    "minimum": Kind.DATA,
    "exclusiveMinimum": Kind.DATA,
    "maxLength": Kind.DATA,
    "minLength": Kind.DATA,
    "pattern": Kind.DATA,
    "additionalItems": Kind.SCHEMA,
    "items": Kind.SCHEMA_OR_LIST,
    "maxItems": Kind.DATA,
    "minItems": Kind.DATA,
    "uniqueItems": Kind.DATA,
    "maxProperties": Kind.DATA,
    "minProperties": Kind.DATA,
    "required": Kind.DATA,
    "additionalProperties": Kind.SCHEMA,
    "definitions": Kind.SCHEMA_MAP,
    "properties": Kind.SCHEMA_MAP,
    "patternProperties": Kind.SCHEMA_MAP,
    "dependencies": Kind.DEPENDENCIES,
    "enum": Kind.DATA,
    "type": Kind.TYPE,
    "format": Kind.DATA,
    "allOf": Kind.SCHEMA_LIST,
    "anyOf": Kind.SCHEMA_LIST,
    "oneOf": Kind.SCHEMA_LIST,
    "not": Kind.SCHEMA,
}

_DRAFT6: Final[dict[str, Kind]] = {
    **{k: v for k, v in _DRAFT4.items() if k != "id"},
    "$id": Kind.DATA,
    "const": Kind.DATA,
    "contains": Kind.SCHEMA,
    "propertyNames": Kind.SCHEMA,
    "examples": Kind.DATA,
}

_DRAFT7: Final[dict[str, Kind]] = {
    **_DRAFT6,
    "$comment": Kind.DATA,
    "if": Kind.SCHEMA,
    "then": Kind.SCHEMA,
    "else": Kind.SCHEMA,
    "readOnly": Kind.DATA,
    "writeOnly": Kind.DATA,
    "contentMediaType": Kind.DATA,
    "contentEncoding": Kind.DATA,
}

# `definitions` stays a schema location in 2019-09 and 2020-12: their meta-schemas keep it for
# compatibility and `$ref: "#/definitions/x"` still resolves. `dependencies` is gone: the
# validators ignore it, so its value is data there.
_DRAFT2019: Final[dict[str, Kind]] = {
    **{k: v for k, v in _DRAFT7.items() if k != "dependencies"},
    "$anchor": Kind.DATA,
    "$defs": Kind.SCHEMA_MAP,
    "$recursiveRef": Kind.DATA,
    "$recursiveAnchor": Kind.DATA,
    "$vocabulary": Kind.DATA,
    "dependentRequired": Kind.DATA,
    "dependentSchemas": Kind.SCHEMA_MAP,
    "maxContains": Kind.DATA,
    "minContains": Kind.DATA,
    "unevaluatedItems": Kind.SCHEMA,
    "unevaluatedProperties": Kind.SCHEMA,
    "deprecated": Kind.DATA,
    "contentSchema": Kind.SCHEMA,
}

_DRAFT2020: Final[dict[str, Kind]] = {
    **{
        k: v
        for k, v in _DRAFT2019.items()
        if k not in {"$recursiveRef", "$recursiveAnchor", "additionalItems"}
    },
    "$dynamicRef": Kind.DATA,
    "$dynamicAnchor": Kind.DATA,
    "prefixItems": Kind.SCHEMA_LIST,
    "items": Kind.SCHEMA,
}

VOCABULARY: Final[dict[Draft, dict[str, Kind]]] = {
    Draft.DRAFT4: _DRAFT4,
    Draft.DRAFT6: _DRAFT6,
    Draft.DRAFT7: _DRAFT7,
    Draft.DRAFT2019: _DRAFT2019,
    Draft.DRAFT2020: _DRAFT2020,
}

JSON_TYPES: Final = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})

_SCHEMA_URIS: Final[dict[str, Draft]] = {
    "json-schema.org/draft-04/schema": Draft.DRAFT4,
    "json-schema.org/draft-06/schema": Draft.DRAFT6,
    "json-schema.org/draft-07/schema": Draft.DRAFT7,
    "json-schema.org/draft/2019-09/schema": Draft.DRAFT2019,
    "json-schema.org/draft/2020-12/schema": Draft.DRAFT2020,
}


def draft_of(schema: object) -> Draft:
    """The draft a schema declares with ``$schema``, or the default (2020-12)."""
    if isinstance(schema, dict):
        uri = schema.get("$schema")
        if isinstance(uri, str):
            bare = re.sub(r"^https?://", "", uri).rstrip("#")
            if bare in _SCHEMA_URIS:
                return _SCHEMA_URIS[bare]
    return DEFAULT_DRAFT


def snake_case(keyword: str) -> str:
    """``minItems`` -> ``min_items``."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", keyword).lower()


def _snake_spellings(vocabulary: dict[str, Kind]) -> dict[str, str]:
    # `$`-keywords are identifiers of the core vocabulary; no dialect spells them in snake_case.
    return {
        snake_case(keyword): keyword
        for keyword in vocabulary
        if not keyword.startswith("$") and snake_case(keyword) != keyword
    }


SNAKE_SPELLINGS: Final[dict[Draft, dict[str, str]]] = {
    draft: _snake_spellings(vocabulary) for draft, vocabulary in VOCABULARY.items()
}
"""For each draft: snake_case spelling -> the camelCase keyword it stands for."""

ANY_DRAFT: Final[frozenset[str]] = frozenset(k for v in VOCABULARY.values() for k in v)
"""Every keyword of every supported draft."""

ANY_DRAFT_SNAKE: Final[dict[str, str]] = {
    snake: keyword for spellings in SNAKE_SPELLINGS.values() for snake, keyword in spellings.items()
}

ANNOTATIONS: Final = frozenset(
    {
        # OpenAPI, editors and model providers: meaningful to some tool, harmless here.
        "example",
        "discriminator",
        "externalDocs",
        "xml",
        "markdownDescription",
        "enumDescriptions",
        "errorMessage",
        "deprecationMessage",
        "propertyOrdering",
        "property_ordering",
    }
)
"""Keys that are not JSON Schema keywords but are well-known annotations, never findings."""

DRAFT_AGNOSTIC_LOCATIONS: Final = frozenset({"$defs", "definitions"})
"""Containers that ``$ref`` can point into whatever the draft; never 'not in this draft'."""

APPLIES_TO: Final[dict[str, frozenset[str]]] = {
    **dict.fromkeys(
        ("multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"),
        frozenset({"number", "integer"}),
    ),
    **dict.fromkeys(("maxLength", "minLength", "pattern"), frozenset({"string"})),
    **dict.fromkeys(
        (
            "items",
            "prefixItems",
            "additionalItems",
            "maxItems",
            "minItems",
            "uniqueItems",
            "contains",
            "maxContains",
            "minContains",
            "unevaluatedItems",
        ),
        frozenset({"array"}),
    ),
    **dict.fromkeys(
        (
            "maxProperties",
            "minProperties",
            "required",
            "properties",
            "patternProperties",
            "additionalProperties",
            "dependentRequired",
            "dependentSchemas",
            "propertyNames",
            "unevaluatedProperties",
            "dependencies",
        ),
        frozenset({"object"}),
    ),
}
"""Keywords that constrain only instances of some JSON types."""

REF_SIBLINGS_KEPT: Final = frozenset(
    {
        "$ref",
        "$id",
        "id",
        "$schema",
        "$comment",
        "definitions",
        "$defs",
        "title",
        "description",
        "default",
        "examples",
    }
)
"""Keys beside ``$ref`` that still mean something in drafts 4 to 7 (annotations, locations)."""

REF_OVERRIDES_SIBLINGS: Final = frozenset({Draft.DRAFT4, Draft.DRAFT6, Draft.DRAFT7})


def schema_objects(
    node: JSON, at: str, vocabulary: dict[str, Kind]
) -> Iterator[tuple[dict[str, JSON], str]]:
    """Every schema object in keyword positions, with its pointer (data is never entered)."""
    stack: list[tuple[JSON, str]] = [(node, at)]
    while stack:
        current, where = stack.pop()
        if not isinstance(current, dict):
            continue
        yield current, where
        for key, value in current.items():
            kind = vocabulary.get(key)
            if kind is None or kind is Kind.DATA or kind is Kind.TYPE:
                continue  # most keys: no pointer to build (a walk of every tool, every audit)
            here = pointers.join(where, key)
            if kind is Kind.SCHEMA:
                stack.append((value, here))
            elif kind in (Kind.SCHEMA_LIST, Kind.SCHEMA_OR_LIST) and isinstance(value, list):
                stack.extend((item, pointers.join(here, i)) for i, item in enumerate(value))
            elif kind is Kind.SCHEMA_OR_LIST:
                stack.append((value, here))
            elif kind in (Kind.SCHEMA_MAP, Kind.DEPENDENCIES) and isinstance(value, dict):
                stack.extend((item, pointers.join(here, name)) for name, item in value.items())
