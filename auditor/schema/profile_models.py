"""The built-in models of the SDK functions the upgrade profiles follow, one function each.

A model takes a tool's schema (after the spelling families the audit chose) and returns the
schema the SDK's function produces, as JSON Schema the API evaluates, or raises
:class:`Refused` with the reason the SDK gives when that function raises on it. Each model is
written from the SDK's source named in :data:`auditor.schema.profiles.PROFILES` (``follows``),
step by step, so that the differential test can hold it to the SDK's own output; the
rewrites of a model are the structural difference between its input and its output
(:func:`auditor.schema.normalize.normalize` records them under the profile's rule).

Pure: a model never modifies its argument (the SDKs mutate in place; the models copy first).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Final

from auditor.models import JSON, Rule
from auditor.schema.profile_gemini_mcp import google_genai_mcp
from auditor.schema.profile_lax import lax_boolean, lax_number
from auditor.schema.profile_litellm import litellm_gemini
from auditor.schema.profile_pydantic_ai import pydantic_ai_google
from auditor.schema.refused import Refused
from auditor.schema.strict_models import anthropic_strict, langchain_strict, openai_agents

Model = Callable[[JSON], JSON]

# --- google-genai, the tool path: types.Tool.model_validate -> types.Schema -------------------
#
# google/genai/_transformers.py t_tool: a dict tool is `types.Tool.model_validate(origin)`;
# `function_declarations[].parameters` is a `types.Schema` (google/genai/types.py). Its
# model_config (`_common.BaseModel`): alias_generator=to_camel, populate_by_name=True,
# extra='forbid'. So each field is read under its snake name or its camelCase alias, at every
# depth the fields' types reach (`defs`, `any_of`, `items`, `properties` are Schemas;
# `additional_properties` is `Any`, never validated), and every other key is refused.

_STR, _INT, _FLOAT, _BOOL, _ANY = "str", "int", "float", "bool", "any"
_STR_LIST, _SCHEMA, _SCHEMA_LIST, _SCHEMA_MAP, _TYPE = (
    "str-list",
    "schema",
    "schema-list",
    "schema-map",
    "type",
)

_SCHEMA_FIELDS: Final[dict[str, tuple[str, str]]] = {
    "additional_properties": ("additionalProperties", _ANY),
    "defs": ("$defs", _SCHEMA_MAP),
    "ref": ("$ref", _STR),
    "any_of": ("anyOf", _SCHEMA_LIST),
    "default": ("default", _ANY),
    "description": ("description", _STR),
    "enum": ("enum", _STR_LIST),
    "example": ("example", _ANY),
    "format": ("format", _STR),
    "items": ("items", _SCHEMA),
    "max_items": ("maxItems", _INT),
    "max_length": ("maxLength", _INT),
    "max_properties": ("maxProperties", _INT),
    "maximum": ("maximum", _FLOAT),
    "min_items": ("minItems", _INT),
    "min_length": ("minLength", _INT),
    "min_properties": ("minProperties", _INT),
    "minimum": ("minimum", _FLOAT),
    "nullable": ("nullable", _BOOL),
    "pattern": ("pattern", _STR),
    "properties": ("properties", _SCHEMA_MAP),
    "property_ordering": ("propertyOrdering", _STR_LIST),
    "required": ("required", _STR_LIST),
    "title": ("title", _STR),
    "type": ("type", _TYPE),
}
"""``types.Schema``'s fields (google-genai 2.34.0): snake name -> JSON Schema keyword, kind."""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


_FIELD_BY_KEY: Final[dict[str, str]] = {
    **{name: name for name in _SCHEMA_FIELDS},
    **{_camel(name): name for name in _SCHEMA_FIELDS},
}
"""Every key ``types.Schema`` reads (populate_by_name: the name or its alias) -> the field."""

_GENAI_TYPES: Final = frozenset(
    {"TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}
)
_GENAI_DEFS: Final = "#/defs/"


def _join(where: str, key: str | int) -> str:
    return f"{where}.{key}" if where else str(key)


def _strings(value: JSON, where: str) -> list[JSON]:
    if not isinstance(value, list):
        raise Refused("Input should be a valid list", where)
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise Refused("Input should be a valid string", _join(where, index))
    return list(value)


def _genai_type(value: JSON, where: str) -> str | None:
    """``types.Type`` (a ``CaseInSensitiveEnum``): any case; an unknown name is kept (the SDK
    warns); a non-string fails in ``value.upper()``. None: TYPE_UNSPECIFIED, no type."""
    if not isinstance(value, str):
        raise Refused(f"'{type(value).__name__}' object has no attribute 'upper'", where)
    upper = value.upper()
    if upper == "TYPE_UNSPECIFIED":
        return None
    return upper.lower() if upper in _GENAI_TYPES else value


def genai_schema(node: JSON, where: str = "parameters") -> JSON:
    """``types.Schema.model_validate(node)`` as JSON Schema: each field under its JSON Schema
    name, in the order written; type names lowercased; ``nullable: true`` as ``"null"`` in
    ``type`` (a bare one as ``type: "null"``, as ``Schema.json_schema`` writes it)."""
    if not isinstance(node, dict):
        raise Refused("Input should be a valid dictionary or object to extract fields from", where)
    result: dict[str, JSON] = {}
    nullable = False
    for key, value in node.items():
        at = _join(where, key)
        field = _FIELD_BY_KEY.get(key)
        if field is None or (key == field != _camel(field) and _camel(field) in node):
            # pydantic reads a field by its alias first: beside it, the snake name is extra.
            raise Refused("Extra inputs are not permitted", at)
        if value is None:
            continue  # Optional[...] = None: the field is unset
        keyword, kind = _SCHEMA_FIELDS[field]
        converted: JSON
        if kind == _SCHEMA:
            converted = genai_schema(value, at)
        elif kind == _SCHEMA_LIST:
            if not isinstance(value, list):
                raise Refused("Input should be a valid list", at)
            converted = [genai_schema(item, _join(at, i)) for i, item in enumerate(value)]
        elif kind == _SCHEMA_MAP:
            if not isinstance(value, dict):
                raise Refused("Input should be a valid dictionary", at)
            converted = {name: genai_schema(item, _join(at, name)) for name, item in value.items()}
        elif kind == _STR:
            if not isinstance(value, str):
                raise Refused("Input should be a valid string", at)
            converted = value
            if field == "ref" and value.startswith(_GENAI_DEFS):
                # The API resolves `ref` among the root's `defs`, which stand as `$defs` here.
                converted = "#/$defs/" + value[len(_GENAI_DEFS) :]
        elif kind == _STR_LIST:
            converted = _strings(value, at)
        elif kind in (_INT, _FLOAT):
            converted = lax_number(value, at, kind == _INT)
        elif kind == _BOOL:
            nullable = lax_boolean(value, at)
            continue
        elif kind == _TYPE:
            name = _genai_type(value, at)
            if name is None:
                continue
            converted = name
        else:
            converted = value
        result[keyword] = converted
    if nullable:
        kind_now = result.get("type")
        if kind_now is None:
            result["type"] = "null"
        elif kind_now != "null":
            result["type"] = [kind_now, "null"]
    return result


def google_genai(schema: JSON) -> JSON:
    """google-genai's tool path: ``types.Tool.model_validate`` of the parameters."""
    return genai_schema(schema)


# --- google-genai, response_schema: _transformers.t_schema ------------------------------------
#
# t_schema runs process_schema(origin, client) in place, then types.Schema.model_validate.
# process_schema and handle_null_fields below are google-genai 2.34.0's, with client=None
# (no Gemini Developer API check of additionalProperties) and order_properties=True.


def _handle_null_fields(schema: dict[str, Any]) -> None:
    if schema.get("type") == "null":
        schema["nullable"] = True
        del schema["type"]
    elif "anyOf" in schema:
        for item in schema["anyOf"]:
            if "type" in item and item["type"] == "null":
                schema["nullable"] = True
                schema["anyOf"].remove({"type": "null"})
                if len(schema["anyOf"]) == 1:
                    for key, val in schema["anyOf"][0].items():
                        schema[key] = val
                    del schema["anyOf"]


def _process_schema(schema: dict[str, Any], defs: dict[str, Any] | None, visited: set[int]) -> None:
    if id(schema) in visited:
        return
    visited.add(id(schema))
    if schema.get("title") == "PlaceholderLiteralEnum":
        del schema["title"]
    for from_name, to_name in (
        ("additional_properties", "additionalProperties"),
        ("any_of", "anyOf"),
        ("prefix_items", "prefixItems"),
        ("property_ordering", "propertyOrdering"),
    ):
        if (value := schema.pop(from_name, None)) is not None:
            schema[to_name] = value
    if defs is None:
        defs = schema.pop("$defs", {})
        for _, sub_schema in defs.items():
            _process_schema(sub_schema, defs, visited)
    _handle_null_fields(schema)
    if (ref := schema.pop("$ref", None)) is not None:
        schema.update(defs[ref.split("defs/")[-1]])

    def recurse(sub_schema: dict[str, Any]) -> dict[str, Any]:
        if (ref := sub_schema.pop("$ref", None)) is not None:
            sub_schema = defs[ref.split("defs/")[-1]]
            if id(sub_schema) in visited:
                return {}
        _process_schema(sub_schema, defs, visited)
        return sub_schema

    if (any_of := schema.get("anyOf")) is not None:
        schema["anyOf"] = [recurse(sub_schema) for sub_schema in any_of]
        visited.remove(id(schema))
        return
    schema_type = schema.get("type")
    if isinstance(schema_type, str):
        schema_type = schema_type.upper()
    const = schema.get("const")
    if const is not None:
        if schema_type == "STRING":
            schema["enum"] = [const]
            del schema["const"]
        else:
            raise ValueError("Literal values must be strings.")
    if schema_type == "OBJECT":
        if (properties := schema.get("properties")) is not None:
            for name, sub_schema in list(properties.items()):
                properties[name] = recurse(sub_schema)
            if len(properties.items()) > 1 and "propertyOrdering" not in schema:
                schema["property_ordering"] = list(properties.keys())
        if (additional := schema.get("additionalProperties")) is not None and isinstance(
            additional, dict
        ):
            schema["additionalProperties"] = recurse(additional)
    elif schema_type == "ARRAY":
        if (items := schema.get("items")) is not None:
            schema["items"] = recurse(items)
        if (prefixes := schema.get("prefixItems")) is not None:
            schema["prefixItems"] = [recurse(prefix) for prefix in prefixes]
    visited.remove(id(schema))


def google_genai_response_schema(schema: JSON) -> JSON:
    """google-genai's ``t_schema`` of a dict: ``process_schema``, then ``types.Schema``."""
    if not isinstance(schema, dict) or not schema:
        return schema  # t_schema returns None for an empty schema; a non-dict is not a dict
    working = copy.deepcopy(schema)
    try:
        _process_schema(working, None, set())
    except KeyError as error:  # a $ref to a name the root's $defs does not have
        raise Refused(f"KeyError: {error}") from None
    except (ValueError, TypeError, AttributeError) as error:
        raise Refused(f"{type(error).__name__}: {error}") from None
    # process_schema writes the ordering it adds under the snake name; the copy shares the
    # inlined $defs members between places, so validation below reads a tree, never mutates.
    # t_schema validates the schema itself (types.Schema.model_validate): pydantic's
    # locations start at its own fields, as an SDK run reports them.
    return genai_schema(working, "")


MODELS: Final[dict[Rule, Model]] = {
    Rule.GOOGLE_GENAI: google_genai,
    Rule.GOOGLE_GENAI_RESPONSE_SCHEMA: google_genai_response_schema,
    Rule.GOOGLE_GENAI_MCP: google_genai_mcp,
    Rule.OPENAI_AGENTS: openai_agents,
    Rule.ANTHROPIC_STRICT: anthropic_strict,
    Rule.LANGCHAIN_STRICT: langchain_strict,
    Rule.LITELLM_GEMINI: litellm_gemini,
    Rule.PYDANTIC_AI_GOOGLE: pydantic_ai_google,
}
"""The profiles whose built-in model is a function of the whole schema, in the order they
apply (after the walk of :mod:`auditor.schema.normalize`, which runs the others)."""
