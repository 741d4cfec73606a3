"""The built-in model of ``google-genai-mcp``: google-genai's ``_mcp_utils.mcp_to_gemini_tool``,
what the Gemini SDK does to an MCP tool's ``inputSchema`` when an MCP session or tool is
passed in ``tools`` (google-genai 2.34.0, ``google/genai/_mcp_utils.py`` and
``google/genai/types.py``), in three steps:

1. ``_filter_to_supported_schema``: every key that is not a field name of ``types.JSONSchema``
   (snake_case: ``min_length``, ``any_of``...) nor one of ``additionalProperties``, ``anyOf``,
   ``oneOf``, ``$defs``, ``$ref`` is dropped, at every depth it recurses (``items``,
   ``additional_properties``, ``anyOf``/``oneOf``, ``properties``, ``$defs``): a camelCase
   ``minLength`` goes, a snake ``min_length`` stays. This is the step that loosens.
2. ``types.JSONSchema(**filtered)``: pydantic validation (lax numbers, lower-case type names
   only, strings where strings are asked, the alias read before its field name).
3. ``types.Schema.from_json_schema``: each ``$ref`` inlined (its siblings dropped, a
   recursive one left empty), a ``type`` list split into ``anyOf`` by type, ``"null"`` read
   as ``nullable``, ``additionalProperties``, ``oneOf`` and ``uniqueItems`` dropped, an
   ``anyOf`` of a schema and a null folded into the schema.

The result is read as the JSON Schema the API evaluates (``sdk_adapters.gemini_reading``).
Where the SDK raises, the model raises :class:`Refused` with the SDK's reason.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from auditor.models import JSON
from auditor.schema.profile_lax import lax_boolean, lax_number
from auditor.schema.refused import Refused
from auditor.schema.sdk_adapters import gemini_reading

_JSON_SCHEMA_FIELDS: Final = (
    "type",
    "format",
    "title",
    "description",
    "default",
    "items",
    "min_items",
    "max_items",
    "enum",
    "properties",
    "required",
    "min_properties",
    "max_properties",
    "minimum",
    "maximum",
    "min_length",
    "max_length",
    "pattern",
    "additional_properties",
    "any_of",
    "unique_items",
    "ref",
    "defs",
    "one_of",
)
"""``types.JSONSchema``'s fields (google-genai 2.34.0)."""

_ALIASES: Final[dict[str, str]] = {
    "additionalProperties": "additional_properties",
    "anyOf": "any_of",
    "oneOf": "one_of",
    "$defs": "defs",
    "$ref": "ref",
}
"""The other keys the filter keeps (``supported_fields.update``), by the field each is the
alias of: to_camel's for three, the declared ``$ref``/``$defs`` for the others."""

_ALIAS_OF: Final = {field: alias for alias, field in _ALIASES.items()}
_SUPPORTED: Final = frozenset(_JSON_SCHEMA_FIELDS) | frozenset(_ALIASES)
_ONE_SCHEMA: Final = ("items", "additionalProperties", "additional_properties")
_SCHEMA_LISTS: Final = ("anyOf", "any_of", "oneOf", "one_of")
_SCHEMA_MAPS: Final = ("properties", "defs", "$defs")

_TYPES: Final = ("null", "boolean", "object", "array", "number", "integer", "string")
_TYPE_ERROR: Final = (
    "Input should be 'null', 'boolean', 'object', 'array', 'number', 'integer' or 'string'"
)
_INTEGERS: Final = frozenset(
    {"min_items", "max_items", "min_properties", "max_properties", "min_length", "max_length"}
)
_STRINGS: Final = frozenset({"format", "title", "description", "pattern", "ref"})

_SCHEMA_FIELDS: Final = frozenset(
    {
        "additional_properties",
        "defs",
        "ref",
        "any_of",
        "default",
        "description",
        "enum",
        "example",
        "format",
        "items",
        "max_items",
        "max_length",
        "max_properties",
        "maximum",
        "min_items",
        "min_length",
        "min_properties",
        "minimum",
        "nullable",
        "pattern",
        "properties",
        "property_ordering",
        "required",
        "title",
        "type",
    }
)
"""``types.Schema``'s fields: what ``from_json_schema`` copies (``hasattr(schema, name)``)."""

_RELATED: Final[dict[str, tuple[str, ...]]] = {
    "number": ("description", "enum", "format", "maximum", "minimum", "title"),
    "integer": ("description", "enum", "format", "maximum", "minimum", "title"),
    "string": (
        "description",
        "enum",
        "format",
        "max_length",
        "min_length",
        "pattern",
        "title",
    ),
    "object": (
        "any_of",
        "description",
        "max_properties",
        "min_properties",
        "properties",
        "required",
        "title",
    ),
    "array": ("description", "items", "max_items", "min_items", "title"),
    "boolean": ("description", "title"),
}
"""``related_field_names_by_type``: what each member of a split ``type`` list keeps."""

_WIRE: Final[dict[str, str]] = {
    "additional_properties": "additionalProperties",
    "any_of": "anyOf",
    "max_items": "maxItems",
    "max_length": "maxLength",
    "max_properties": "maxProperties",
    "min_items": "minItems",
    "min_length": "minLength",
    "min_properties": "minProperties",
    "property_ordering": "propertyOrdering",
}
"""``types.Schema``'s fields under their wire (camelCase) names, the ones that differ."""


def google_genai_mcp(schema: JSON) -> JSON:
    """``mcp_to_gemini_tool`` of a tool whose ``inputSchema`` is ``schema``: its
    ``parameters``, read as JSON Schema."""
    if not isinstance(schema, dict):
        raise Refused(f"AttributeError: '{type(schema).__name__}' object has no attribute 'items'")
    validated = _validated(_filtered(schema), "")
    root = copy.deepcopy(validated)  # from_json_schema resolves in a dump of its own, mutated
    converted = _converted(validated, root, set())
    return gemini_reading(_wire(converted))


def _filtered(schema: Any) -> dict[str, Any]:
    """``_filter_to_supported_schema``: its ``.items()`` on what is not a dict raises."""
    if not isinstance(schema, dict):
        raise Refused(f"AttributeError: '{type(schema).__name__}' object has no attribute 'items'")
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ONE_SCHEMA:
            kept[key] = _filtered(value)
        elif key in _SCHEMA_LISTS:
            if not isinstance(value, list):
                raise Refused(f"TypeError: '{type(value).__name__}' object is not iterable")
            kept[key] = [_filtered(member) for member in value]
        elif key in _SCHEMA_MAPS:
            if not isinstance(value, dict):
                raise Refused(
                    f"AttributeError: '{type(value).__name__}' object has no attribute 'items'"
                )
            kept[key] = {name: _filtered(member) for name, member in value.items()}
        elif key in _SUPPORTED:
            kept[key] = value
    return kept


def _join(where: str, key: str | int) -> str:
    return f"{where}.{key}" if where else str(key)


def _validated(node: Any, where: str) -> dict[str, Any]:
    """``types.JSONSchema(**node)``: each field by its name (the alias read first, the name
    beside it extra), checked and converted as pydantic's lax mode does; None is unset."""
    if not isinstance(node, dict):
        raise Refused("Input should be a valid dictionary or instance of JSONSchema", where)
    fields: dict[str, Any] = {}
    for key, value in node.items():
        at = _join(where, key)
        field: str = _ALIASES.get(key) or key
        if key == field and _ALIAS_OF.get(field) in node:
            # pydantic reads a field by its alias first: beside it, the name is extra.
            raise Refused("Extra inputs are not permitted", at)
        if value is None:
            continue
        fields[field] = _field(field, value, at)
    return fields


def _field(field: str, value: Any, at: str) -> Any:
    if field == "type":
        return _type(value, at)
    if field in ("items",):
        return _validated(value, at)
    if field in ("properties", "defs"):
        if not isinstance(value, dict):
            raise Refused("Input should be a valid dictionary", at)
        return {name: _validated(member, _join(at, name)) for name, member in value.items()}
    if field in ("any_of", "one_of"):
        return [_validated(member, _join(at, i)) for i, member in enumerate(value)]
    if field in _INTEGERS:
        return lax_number(value, at, integer=True)
    if field in ("minimum", "maximum"):
        return float(lax_number(value, at, integer=False))
    if field == "unique_items":
        return lax_boolean(value, at)
    if field in _STRINGS:
        if not isinstance(value, str):
            raise Refused("Input should be a valid string", at)
        return value
    if field == "required":
        if not isinstance(value, list):
            raise Refused("Input should be a valid list", at)
        for i, name in enumerate(value):
            if not isinstance(name, str):
                raise Refused("Input should be a valid string", _join(at, i))
        return list(value)
    if field == "enum" and not isinstance(value, list):
        raise Refused("Input should be a valid list", at)
    return value  # default, enum, additional_properties: Any


def _type(value: Any, at: str) -> str | list[str]:
    """``Optional[Union[JSONSchemaType, list[JSONSchemaType]]]``: the lower-case names only;
    pydantic's first error is the enum branch's, whatever the value."""
    names = value if isinstance(value, list) else [value]
    if not all(isinstance(name, str) and name in _TYPES for name in names):
        raise Refused(_TYPE_ERROR, _join(at, "enum[JSONSchemaType]"))
    return list(value) if isinstance(value, list) else str(value)


def _resolved(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    """``_resolve_ref``: the path under the root's ``model_dump`` (``$defs`` read as ``defs``;
    an unset field is there as None), its ``title`` and its properties' titles removed, in
    the dump itself."""
    current: Any = root
    schema = True  # whether `current` is a schema (whose dump holds every field, None unset)
    for part in ref.lstrip("#/").split("/"):
        part = "defs" if part == "$defs" else part
        try:
            if schema and isinstance(current, dict) and part in _JSON_SCHEMA_FIELDS:
                current = current.get(part)
                schema = part == "items"
            else:
                current = current[part]
                schema = not schema
        except KeyError as error:
            raise Refused(f"KeyError: {error}") from None
        except (TypeError, IndexError) as error:
            raise Refused(f"{type(error).__name__}: {error}") from None
    if not isinstance(current, dict):
        raise Refused(f"AttributeError: '{type(current).__name__}' object has no attribute 'pop'")
    current.pop("title", None)
    properties = current.get("properties")
    if isinstance(properties, dict):
        for member in properties.values():
            if isinstance(member, dict):
                member.pop("title", None)
    return current


def _converted(node: dict[str, Any], root: dict[str, Any], visited: set[str]) -> dict[str, Any]:
    """``convert_json_schema``: a ``types.Schema`` as the fields it sets (snake names, the
    type upper-case), from a validated ``JSONSchema``."""
    schema: dict[str, Any] = {}
    ref = node.get("ref")
    if ref:
        if ref in visited:
            return {}
        visited.add(ref)
        node = _resolved(ref, root)
    kinds = node.get("type")
    names = [kinds] if isinstance(kinds, str) else list(kinds or [])
    others = [name for name in names if name != "null"]
    union = len(others) > 1
    if union:
        if "null" in names:
            schema["nullable"] = True
        members = []
        for kind in others:
            member: dict[str, Any] = {"type": kind}
            for name in _RELATED.get(kind, ()):
                if node.get(name) is not None:
                    member[name] = node[name]
            members.append(member)
        node = {"any_of": members}
    # The SDK meets the fields in JSONSchema's order; the schema keeps the order written
    # (a renamed key keeps its place), which changes nothing but where `type` is checked.
    for name, value in node.items():
        if value is None or name == "defs":
            continue
        if name == "items":
            schema["items"] = _converted(value, root, visited)
        elif name == "any_of":
            schema["any_of"] = [_converted(member, root, visited) for member in value]
        elif name == "properties":
            schema["properties"] = {
                key: _converted(member, root, visited) for key, member in value.items()
            }
        elif name == "type":
            kinds_here = [value] if isinstance(value, str) else list(value)
            if "null" in kinds_here:
                schema["nullable"] = True
            non_null = [kind for kind in kinds_here if kind != "null"]
            if non_null:
                schema["type"] = non_null[0].upper()
        elif name in _SCHEMA_FIELDS and name != "additional_properties":
            schema[name] = value
    if node.get("any_of") == [] and not schema.get("type") and not union:
        schema["type"] = "OBJECT"  # `type` comes first in JSONSchema: set by now if given
    if schema.get("type") == "ARRAY" and "items" in schema and not schema["items"]:
        del schema["items"]  # an items schema with nothing set is none
    branches = schema.get("any_of")
    if isinstance(branches, list) and len(branches) == 2:
        nullable_part: dict[str, Any] | None = None
        type_part: dict[str, Any] | None = None
        for part in branches:
            if part == {"nullable": True}:
                nullable_part = part
            else:
                type_part = part
        if nullable_part is not None and type_part is not None:
            default = schema.get("default")
            schema = type_part
            schema["nullable"] = True
            if default is not None:
                schema["default"] = default
    if ref:
        visited.discard(ref)
    return schema


def _wire(schema: Any) -> Any:
    """A converted schema as ``Schema.model_dump(by_alias=True)`` writes it."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for name, value in schema.items():
        name = str(name)
        if name == "items":
            value = _wire(value)
        elif name == "properties":
            value = {key: _wire(member) for key, member in value.items()}
        elif name == "any_of":
            value = [_wire(member) for member in value]
        out[_WIRE.get(name, name)] = value
    return out
