"""The built-in model of ``pydantic-ai-google``: pydantic-ai's ``GoogleJsonSchemaTransformer``
(pydantic-ai-slim 2.68.0, ``pydantic_ai/profiles/google.py`` on the walk of
``pydantic_ai/_json_schema.py`` ``JsonSchemaTransformer``), what ``GoogleModel`` does to a
tool's parameters before it sends them as ``parameters_json_schema``:

- ``JsonSchemaTransformer.__init__``: ``_check_schema_shape`` refuses (``UserError``) a
  subschema that is neither an object nor a boolean, a container of the wrong kind
  (``properties`` not an object, ``anyOf`` not a list...), a ``$ref`` that is no string, a
  ``type`` that is no string or list of strings, a ``required``/``enum`` that is no list, a
  ``minItems`` that is no integer;
- ``walk``: ``$defs`` set aside, walked last and put back at the end; each schema walked
  children first: an object's ``properties``, ``additionalProperties``,
  ``patternProperties``, an array's ``prefixItems`` and ``items``, only where ``type`` is
  exactly ``object`` or ``array``; without ``type``, each of ``allOf``, ``anyOf``, ``oneOf``
  is walked and a one-member one merged into its parent (the parent's keys win);
- ``transform`` on each schema: ``$schema``, ``discriminator``, ``examples``, ``title``,
  ``exclusiveMinimum``, ``exclusiveMaximum`` removed; ``const`` becomes ``enum: [const]``
  (with the ``type`` its value implies, where none is given); an ``anyOf`` of one-value
  enums becomes one ``enum``; a string's ``format`` moves into ``description``.

Every other keyword is sent as written: the snake and capitalized spellings too (the
transformer reads only camelCase, lower-case ``type``). Where the SDK raises, the model
raises :class:`Refused` with the SDK's reason.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from auditor.models import JSON
from auditor.schema.refused import Refused

_SCHEMA_KEYWORDS: Final = ("additionalProperties", "items", "propertyNames", "contains")
_CONTAINERS: Final[dict[str, type]] = {
    "properties": dict,
    "patternProperties": dict,
    "$defs": dict,
    "prefixItems": list,
    "allOf": list,
    "anyOf": list,
    "oneOf": list,
}
_UNIONS: Final = ("allOf", "anyOf", "oneOf")
_DROPPED: Final = ("discriminator", "examples")
_OPTION_KEYS: Final = frozenset({"enum", "type", "description"})


def pydantic_ai_google(schema: JSON) -> JSON:
    """``GoogleJsonSchemaTransformer(schema).walk()``."""
    _check_shape(schema, "")
    if not isinstance(schema, dict):  # _check_shape lets a boolean through; walk() needs a dict
        raise Refused(f"AttributeError: '{type(schema).__name__}' object has no attribute 'get'")
    definitions: Any = copy.deepcopy(schema.get("$defs", {}))
    walked = copy.deepcopy(schema)
    walked.pop("$defs", None)
    handled: Any = _handle(walked)
    if definitions and isinstance(handled, dict):
        handled["$defs"] = {name: _handle(member) for name, member in definitions.items()}
    result: JSON = handled
    return result


def _user_error(path: str, what: str, value: Any) -> Refused:
    return Refused(f"UserError: Invalid JSON Schema at `{path or '<root>'}`: {what}, got {value!r}")


def _is_integer(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and value.is_integer()
    )


def _well_formed(key: str, value: Any) -> str | None:
    """What ``_VALUE_KEYWORDS`` asks of ``value`` when it is not that, else None."""
    if key == "$ref" and not isinstance(value, str):
        return "must be a string"
    if key == "type" and not (
        isinstance(value, str)
        or (isinstance(value, list) and all(isinstance(name, str) for name in value))
    ):
        return "must be a string or a list of strings"
    if key in ("required", "enum") and not isinstance(value, list):
        return "must be a list"
    if key == "minItems" and not _is_integer(value):
        return "must be an integer"
    return None


def _check_shape(node: Any, path: str) -> None:
    """``_check_schema_shape``: the first malformed place, in the SDK's order of checks."""
    if isinstance(node, bool):
        return
    if not isinstance(node, dict):
        raise _user_error(path, "a schema must be an object or a boolean", node)
    prefix = f"{path}." if path else ""
    value: Any
    for key in _SCHEMA_KEYWORDS:
        value = node.get(key)
        if value is None:
            continue
        if key == "items" and isinstance(value, list):
            for index, member in enumerate(value):
                _check_shape(member, f"{prefix}{key}.{index}")
        else:
            _check_shape(value, f"{prefix}{key}")
    for key, container in _CONTAINERS.items():
        value = node.get(key)
        if value is None:
            continue
        if not isinstance(value, container):
            kind = "an object" if container is dict else "a list"
            raise _user_error(f"{prefix}{key}", f"`{key}` must be {kind} of schemas", value)
        members: list[tuple[Any, Any]] = (
            list(value.items()) if isinstance(value, dict) else list(enumerate(_as_list(value)))
        )
        for name, member in members:
            _check_shape(member, f"{prefix}{key}.{name}")
    for key in ("$ref", "type", "required", "enum", "minItems"):
        value = node.get(key)
        if value is not None and (what := _well_formed(key, value)) is not None:
            raise _user_error(f"{prefix}{key}", f"`{key}` {what}", value)


def _as_list(value: Any) -> list[Any]:
    return list(value)


def _handle(schema: Any) -> Any:
    """``JsonSchemaTransformer._handle`` (no inlining: ``prefer_inlined_defs`` is off)."""
    if isinstance(schema, bool):
        return schema
    kind = schema.get("type")
    if kind == "object":
        schema = _handle_object(schema)
    elif kind == "array":
        schema = _handle_array(schema)
    elif kind is None:
        for union in _UNIONS:
            schema = _handle_union(schema, union)
    if kind is not None:
        for union in _UNIONS:
            if members := schema.get(union):
                schema[union] = [_handle(member) for member in members]
    return _transform(schema)


def _handle_object(schema: dict[str, Any]) -> dict[str, Any]:
    if properties := schema.get("properties"):
        schema["properties"] = {name: _handle(value) for name, value in properties.items()}
    additional = schema.get("additionalProperties")
    if additional is not None and not isinstance(additional, bool):
        schema["additionalProperties"] = _handle(additional)
    if (patterns := schema.get("patternProperties")) is not None:
        schema["patternProperties"] = {name: _handle(value) for name, value in patterns.items()}
    return schema  # propertyNames is walked only when $defs are inlined


def _handle_array(schema: dict[str, Any]) -> dict[str, Any]:
    if prefix := schema.get("prefixItems"):
        schema["prefixItems"] = [_handle(item) for item in prefix]
    items = schema.get("items")
    if isinstance(items, list):
        schema["items"] = [_handle(item) for item in items]
    elif items:
        schema["items"] = _handle(items)
    return schema  # contains is walked only when $defs are inlined


def _handle_union(schema: dict[str, Any], union: str) -> dict[str, Any]:
    if union not in schema:
        return schema
    members = schema.pop(union)
    handled = [_handle(member) for member in members]
    if len(handled) == 1 and isinstance(handled[0], dict) and handled[0].get("not") != {}:
        return handled[0] | schema  # the member, under the parent's other keys
    schema = dict(schema)
    schema[union] = handled  # back, at the end of the keys
    return schema


def _transform(schema: dict[str, Any]) -> dict[str, Any]:
    """``GoogleJsonSchemaTransformer.transform``."""
    schema.pop("$schema", None)
    const = schema.pop("const", None)
    if const is not None:
        schema["enum"] = [const]
        if "type" not in schema:
            implied = _const_type(const)
            if implied is not None:
                schema["type"] = implied
    for key in _DROPPED:
        schema.pop(key, None)
    _fold_described_options(schema)
    schema.pop("title", None)
    if schema.get("type") == "string" and (fmt := schema.pop("format", None)):
        description = schema.get("description")
        schema["description"] = (
            f"{description} (format: {fmt})" if description else f"Format: {fmt}"
        )
    schema.pop("exclusiveMinimum", None)
    schema.pop("exclusiveMaximum", None)
    return schema


def _const_type(const: Any) -> str | None:
    if isinstance(const, str):
        return "string"
    if isinstance(const, bool):
        return "boolean"
    if isinstance(const, int):
        return "integer"
    if isinstance(const, float):
        return "number"
    return None


def _fold_described_options(schema: dict[str, Any]) -> None:
    """An ``anyOf`` of one-value enums (``enum``, ``type``, ``description`` only), all of one
    type the parent does not contradict and without an ``enum`` of its own: one ``enum``,
    each option's description appended to the parent's as ``value: description``."""
    options = schema.get("anyOf", [])
    if not options or not all(
        isinstance(option, dict)
        and len(option.get("enum", [])) == 1
        and option.keys() <= _OPTION_KEYS
        for option in options
    ):
        return
    kinds = [option.get("type") for option in options]
    if any(isinstance(kind, (list, dict)) for kind in kinds):
        found = next(kind for kind in kinds if isinstance(kind, (list, dict)))
        raise Refused(f"TypeError: unhashable type: '{type(found).__name__}'")
    distinct = list(dict.fromkeys(kinds))
    if len(distinct) != 1 or "enum" in schema or schema.get("type", distinct[0]) != distinct[0]:
        return
    schema.pop("anyOf")
    schema["enum"] = [option["enum"][0] for option in options]
    if distinct[0] is not None:
        schema["type"] = distinct[0]
    described = [
        f"{option['enum'][0]}: {option['description']}"
        for option in options
        if option.get("description")
    ]
    if described:
        schema["description"] = "\n".join([*filter(None, [schema.get("description")]), *described])
