"""The built-in model of ``litellm-gemini``: litellm's ``build_vertex_schema`` (litellm 1.110.2,
``litellm/llms/vertex_ai/common_utils.py``; ``_build_vertex_schema`` is its older name, kept as
an alias), what litellm does to a tool's ``parameters`` before it sends them to Gemini or
Vertex AI (``vertex_and_google_ai_studio_gemini.py``), ported step by step on a copy, with
litellm's defaults (``add_property_ordering`` and ``send_integer_enums`` off):

1. ``$defs`` popped and every ``$ref`` to one of them (or to the ``definitions`` of a schema
   around it) inlined, its siblings dropped (``unpack_defs``, in
   ``litellm_core_utils/prompt_templates/common_utils.py``); an unknown or circular one is
   left as written;
2. ``_convert_schema_types``: a ``type`` list of two types or more becomes an ``anyOf`` by
   type (an object or array member takes the object and array keywords along);
3. ``convert_anyof_null_to_nullable``: a ``{"type": "null"}`` member of ``anyOf`` removed,
   the others made ``nullable``;
4. ``_fix_enum_empty_strings``, ``_fix_enum_types``: ``""`` in an ``enum`` becomes null, and
   an ``enum`` on anything but a string is removed;
5. ``process_items``, ``add_object_type``: an array without ``items`` gets ``items: {"type":
   "object"}``; a schema with none of ``type``, ``anyOf``, ``oneOf``, ``allOf`` becomes an
   object, as does every schema with ``properties`` (an empty one is removed);
6. ``filter_schema_fields``: only the keys of litellm's Vertex ``Schema`` stay (``type``,
   ``minLength``, ``anyOf``, ``nullable``...; ``additionalProperties``, ``allOf``, ``oneOf``,
   ``const``, ``$ref`` go), a schema with ``anyOf`` keeps nothing else (its ``title`` and
   ``description`` copied into each member), and ``format`` only as ``enum`` or ``date-time``.

The result is read as the JSON Schema the API evaluates (``sdk_adapters.gemini_reading``).
What litellm raises on a schema (a subschema that is no object where it reads one) is the
refusal, worded ``Type: message`` as ``sdk_runs.reason`` words an SDK's exception.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from auditor.models import JSON
from auditor.schema.refused import Refused
from auditor.schema.sdk_adapters import gemini_reading

MAX_DEPTH: Final = 100
"""litellm's ``DEFAULT_MAX_RECURSE_DEPTH``."""

_VALID_FIELDS: Final = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "default",
        "items",
        "minItems",
        "maxItems",
        "enum",
        "properties",
        "propertyOrdering",
        "required",
        "minProperties",
        "maxProperties",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
    }
)
"""The keys of ``litellm.types.llms.vertex_ai.Schema`` (``get_type_hints``)."""

_TYPE_SPECIFIC: Final = (
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
)
"""What an object or array member of a split ``type`` list takes along, in litellm's set
(the order only decides the members' key order)."""


def litellm_gemini(schema: JSON) -> JSON:
    """``build_vertex_schema(schema)``, read as JSON Schema."""
    if not isinstance(schema, dict):
        raise Refused(f"AttributeError: '{type(schema).__name__}' object has no attribute 'pop'")
    parameters = copy.deepcopy(schema)
    try:
        defs: Any = parameters.pop("$defs", {})
        _unpack_defs(parameters, defs)
        _convert_schema_types(parameters, 0)
        _anyof_null_to_nullable(parameters, 0)
        _fix_enum_empty_strings(parameters, 0)
        _fix_enum_types(parameters, 0)
        _process_items(parameters, 0)
        _add_object_type(parameters)
        filtered = _filter_fields(parameters)
    except Refused:
        raise
    except (AttributeError, TypeError, KeyError, ValueError) as error:
        lines = str(error).strip().splitlines()
        message = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
        raise Refused(message) from None
    return gemini_reading(filtered)


def _too_deep(depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"Max depth of {MAX_DEPTH} exceeded while processing schema.")


def _unpack_defs(schema: dict[str, Any], defs: dict[str, Any]) -> None:
    """``unpack_defs``: each ``$ref`` whose last segment names a definition in scope is
    replaced by a copy of it (walked in turn, its own definitions in scope)."""
    scope = {**defs, **schema.get("$defs", {}), **schema.get("definitions", {})}
    replaced = _unpacked(schema, scope, frozenset())
    if replaced is not schema:  # the root itself was a reference
        schema.clear()
        schema.update(replaced)


def _unpacked(node: Any, scope: dict[str, Any], chain: frozenset[str]) -> Any:
    if isinstance(node, list):
        for index, item in enumerate(node):
            node[index] = _unpacked(item, scope, chain)
        return node
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].split("/")[-1]
        target = scope.get(name)
        if name in chain or target is None:
            return node  # circular or unknown: left as written
        inner = {**scope, **target.get("$defs", {}), **target.get("definitions", {})}
        return _unpacked(copy.deepcopy(target), inner, chain | {name})
    here = {**scope, **node.get("$defs", {}), **node.get("definitions", {})}
    for key, value in node.items():
        node[key] = _unpacked(value, here, chain)
    return node


def _convert_schema_types(schema: Any, depth: int) -> None:
    _too_deep(depth)
    if not isinstance(schema, dict):
        return
    kinds = schema.get("type")
    if "type" in schema and isinstance(kinds, list) and len(kinds) > 1:
        members: list[dict[str, Any]] = []
        for kind in kinds:
            if not isinstance(kind, str):
                continue
            if kind == "null":
                members.append({"type": "null"})
            elif kind in ("object", "array"):
                member: dict[str, Any] = {"type": kind}
                for field in _TYPE_SPECIFIC:
                    if field in schema:
                        member[field] = copy.deepcopy(schema[field])
                members.append(member)
            elif kind == "integer" and isinstance(schema.get("enum"), list):
                values = [value for value in schema["enum"] if value is not None]
                members.append({"type": kind, "enum": values})
            else:
                members.append({"type": kind})
        if any(kind in ("object", "array") for kind in kinds if isinstance(kind, str)):
            for field in _TYPE_SPECIFIC:
                schema.pop(field, None)
        schema["anyOf"] = members
        schema.pop("type")
    elif "type" in schema and isinstance(kinds, list) and len(kinds) == 1:
        schema["type"] = kinds[0]
    for key in ("properties", "items", "anyOf"):
        if key not in schema:
            continue
        value = schema[key]
        if key == "properties" and isinstance(value, dict):
            for member_schema in value.values():
                _convert_schema_types(member_schema, depth + 1)
        elif key == "items":
            _convert_schema_types(value, depth + 1)
        elif key == "anyOf" and isinstance(value, list):
            for member_schema in value:
                _convert_schema_types(member_schema, depth + 1)


def _anyof_null_to_nullable(schema: Any, depth: int) -> None:
    _too_deep(depth)
    members = schema.get("anyOf", None)
    if isinstance(members, list):
        kept = [m for m in members if not (isinstance(m, dict) and m.get("type") == "null")]
        with_null = len(kept) < len(members)
        members[:] = kept or members[:1]
        for member in members:
            if not isinstance(member, dict):
                continue
            if not member:
                member["type"] = "object"
            if with_null:
                member["nullable"] = True
            _anyof_null_to_nullable(member, depth + 1)
    properties = schema.get("properties", None)
    if properties is not None:
        for value in properties.values():
            _anyof_null_to_nullable(value, depth + 1)
    items = schema.get("items", None)
    if items is not None:
        _anyof_null_to_nullable(items, depth + 1)


def _fix_enum_empty_strings(schema: Any, depth: int) -> None:
    _too_deep(depth)
    if "enum" in schema and isinstance(schema["enum"], list):
        schema["enum"] = [None if value == "" else value for value in schema["enum"]]
    properties = schema.get("properties", None)
    if properties is not None:
        for value in properties.values():
            _fix_enum_empty_strings(value, depth + 1)
    items = schema.get("items", None)
    if items is not None:
        _fix_enum_empty_strings(items, depth + 1)


def _is_string(kind: Any) -> bool:
    return isinstance(kind, str) and kind.lower() == "string"


def _fix_enum_types(schema: Any, depth: int) -> None:
    """An ``enum`` stays on a string, or beside an ``anyOf`` with a string member."""
    _too_deep(depth)
    if not isinstance(schema, dict):
        return
    if "enum" in schema and isinstance(schema["enum"], list):
        members = schema.get("anyOf")
        keep = _is_string(schema.get("type")) or (
            isinstance(members, list)
            and any(isinstance(m, dict) and _is_string(m.get("type")) for m in members)
        )
        if not keep:
            schema.pop("enum", None)
    properties = schema.get("properties", None)
    if properties is not None:
        for value in properties.values():
            _fix_enum_types(value, depth + 1)
    items = schema.get("items", None)
    if items is not None:
        _fix_enum_types(items, depth + 1)
    members = schema.get("anyOf", None)
    if isinstance(members, list):
        for member in members:
            if isinstance(member, dict):
                _fix_enum_types(member, depth + 1)


def _process_items(schema: Any, depth: int) -> None:
    _too_deep(depth)
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if (
        isinstance(kind, str)
        and kind.lower() == "array"
        and ("items" not in schema or schema.get("items") == {})
    ):
        schema["items"] = {"type": "object"}
    for value in schema.values():
        if isinstance(value, dict):
            _process_items(value, depth + 1)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    _process_items(item, depth + 1)


def _add_object_type(schema: Any) -> None:
    if all(key not in schema for key in ("type", "anyOf", "oneOf", "allOf")):
        schema["type"] = "object"
    properties = schema.get("properties", None)
    if properties is not None:
        if "required" in schema and schema["required"] is None:
            schema.pop("required", None)
        if not properties:
            schema.pop("properties", None)
            schema.pop("required", None)
            schema["type"] = "object"
        else:
            schema["type"] = "object"
            for value in properties.values():
                _add_object_type(value)
    items = schema.get("items", None)
    if items is not None:
        _add_object_type(items)
    for key in ("anyOf", "oneOf", "allOf"):
        values = schema.get(key, None)
        if isinstance(values, list):
            for value in values:
                if isinstance(value, dict):
                    _add_object_type(value)


def _filter_fields(schema: Any) -> Any:
    """``filter_schema_fields``: the Vertex ``Schema`` keys, at every depth it recurses."""
    if not isinstance(schema, dict):
        return schema
    if schema.get("anyOf"):
        # _filter_anyof_fields: only the anyOf stays, its title and description copied in.
        members = schema["anyOf"]
        title, description = schema.get("title"), schema.get("description")
        if (
            (title or description)
            and isinstance(members, list)
            and all(isinstance(member, dict) for member in members)
        ):
            for member in members:
                if title:
                    member["title"] = title
                if description:
                    member["description"] = description
        schema = {"anyOf": members}
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _VALID_FIELDS:
            continue
        if key == "properties" and isinstance(value, dict):
            result[key] = {name: _filter_fields(member) for name, member in value.items()}
        elif key == "format":
            if value in ("enum", "date-time"):
                result[key] = value
        elif key == "items" and isinstance(value, dict):
            result[key] = _filter_fields(value)
        elif key == "anyOf" and isinstance(value, list):
            result[key] = [_filter_fields(member) for member in value]
        else:
            result[key] = value
    return result
