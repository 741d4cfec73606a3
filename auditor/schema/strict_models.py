"""The built-in models of three strict-mode transforms, ported step by step from the wheels
the profiles name (``auditor.schema.profiles``), on a copy of the schema:

- ``openai-agents``: ``agents/strict_schema.py`` ``ensure_strict_json_schema`` (openai-agents
  0.24.0), which a ``FunctionTool`` with ``strict_json_schema=True`` applies to its params;
- ``anthropic-strict``: ``anthropic/lib/_parse/_transform.py`` ``transform_schema``
  (anthropic 2.15.0), which rebuilds a schema from the keywords the API's strict mode takes
  and writes every other one into ``description``;
- ``langchain-strict``: ``langchain_core/utils/function_calling.py``
  ``_recursive_set_additional_properties_false``, what ``convert_to_openai_tool(strict=True)``
  does to ``parameters`` (langchain-core 1.8.3).

Where the SDK raises, the model raises :class:`Refused` with the SDK's message.
"""

from __future__ import annotations

import copy
from typing import Any, Final
from urllib.parse import unquote

from auditor.models import JSON
from auditor.schema.refused import Refused

# --- openai-agents: ensure_strict_json_schema -------------------------------------------------


def _user_error(message: str) -> Refused:
    """What the SDK raises as its ``UserError``, worded as an SDK run words it."""
    return Refused(f"UserError: {message}")


_EMPTY_SCHEMA: Final[dict[str, Any]] = {
    "additionalProperties": False,
    "type": "object",
    "properties": {},
    "required": [],
}
_MAX_SCHEMA_NODES: Final = 100_000
_MAX_SCHEMA_DEPTH: Final = 100
_ADDITIONAL_PROPERTIES_ERROR: Final = (
    "additionalProperties should not be set for object types. This could be because "
    "you're using an older version of Pydantic, or because you configured additional "
    "properties to be allowed. If you really need this, update the function or output tool "
    "to not use a strict schema."
)
_NESTED_RESOURCE_REF_ERROR: Final = (
    "JSON schema contains a reference owned by or crossing a nested `$id` resource that cannot "
    "be resolved against the document root."
)
_SCHEMA_DEPTH_ERROR: Final = (
    "JSON schema is too deeply nested to process safely. Simplify or flatten the schema."
)
_REF_NON_CONSTRAINING_SIBLINGS: Final = frozenset(
    {
        "$anchor",
        "$comment",
        "$defs",
        "$schema",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "default",
        "definitions",
        "deprecated",
        "description",
        "examples",
        "readOnly",
        "title",
        "writeOnly",
    }
)
_ROOT_REF_NON_CONSTRAINING_SIBLINGS: Final = _REF_NON_CONSTRAINING_SIBLINGS | {"$id"}


class _Budget:
    def __init__(self) -> None:
        self.remaining = _MAX_SCHEMA_NODES

    def spend(self) -> None:
        self.remaining -= 1
        if self.remaining < 0:
            raise _user_error(
                "JSON schema is too large to convert to a strict schema. This can happen when a "
                "schema expands `$ref`s exponentially, which may indicate a malformed or "
                "malicious schema."
            )


def _check_depth(schema: object) -> None:
    stack: list[tuple[object, int]] = [(schema, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > _MAX_SCHEMA_DEPTH:
            raise _user_error(_SCHEMA_DEPTH_ERROR)
        if isinstance(value, dict):
            stack.extend((c, depth + 1) for c in value.values() if isinstance(c, (dict, list)))
        elif isinstance(value, list):
            stack.extend((c, depth + 1) for c in value if isinstance(c, (dict, list)))


def openai_agents(schema: JSON) -> JSON:
    """``ensure_strict_json_schema`` (reject_open_objects off, as FunctionTool calls it)."""
    if not isinstance(schema, dict):
        raise Refused(f"TypeError: Expected {schema} to be a dictionary; path=()")
    _check_depth(schema)
    if schema == {}:
        return copy.deepcopy(_EMPTY_SCHEMA)
    root = copy.deepcopy(schema)
    try:
        strict = _agents_strict(root, (), root, _Budget(), 1, False)
    except (TypeError, ValueError, KeyError, AssertionError) as error:
        raise Refused(f"{type(error).__name__}: {error}") from None
    if isinstance(strict.get("anyOf"), list):
        raise _user_error("The root of a strict JSON schema must not use `anyOf`.")
    kind = strict.get("type")
    if isinstance(kind, list) and "object" in kind:
        if kind == ["object"]:
            strict["type"] = "object"
        else:
            raise _user_error(
                "The root of a strict JSON schema must be a non-nullable object, but its type "
                f"is {kind}. Make the root a plain object, or update the function or output "
                "tool to not use a strict schema."
            )
    return strict


def _agents_strict(
    node: object,
    path: tuple[str, ...],
    root: dict[str, Any],
    budget: _Budget,
    depth: int,
    nested: bool,
) -> dict[str, Any]:
    if depth > _MAX_SCHEMA_DEPTH:
        raise _user_error(_SCHEMA_DEPTH_ERROR)
    if not isinstance(node, dict):
        raise TypeError(f"Expected {node} to be a dictionary; path={path}")
    closed = node.get("additionalProperties") is False
    budget.spend()
    deeper = depth + 1
    nested = nested or (node is not root and isinstance(node.get("$id"), str))

    def go(child: object, *at: str) -> dict[str, Any]:
        return _agents_strict(child, (*path, *at), root, budget, deeper, nested)

    if "$ref" in node:
        if nested:
            raise _user_error(_NESTED_RESOURCE_REF_ERROR)
        allowed = (
            _ROOT_REF_NON_CONSTRAINING_SIBLINGS if node is root else _REF_NON_CONSTRAINING_SIBLINGS
        )
        incompatible = set(node) - {"$ref"} - allowed
        if incompatible:
            raise _user_error(
                "JSON schema contains a `$ref` with incompatible sibling keyword(s) "
                f"({', '.join(sorted(incompatible))}) that cannot be merged "
                "without changing its accepted values."
            )
    for defs_key in ("$defs", "definitions"):
        defs = node.get(defs_key)
        if isinstance(defs, dict):
            for name, member in defs.items():
                go(member, defs_key, name)
    kind = node.get("type")
    properties = node.get("properties")
    if kind is None and isinstance(properties, dict):
        kind = node["type"] = "object"
    elif kind is None and node.get("additionalProperties", False) is not False:
        raise _user_error(_ADDITIONAL_PROPERTIES_ERROR)
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
    if is_object and "additionalProperties" not in node:
        node["additionalProperties"] = False
    elif is_object and node["additionalProperties"] is not False:
        raise _user_error(_ADDITIONAL_PROPERTIES_ERROR)
    if isinstance(properties, dict):
        node["required"] = list(properties.keys())
        node["properties"] = {
            key: go(value, "properties", key) for key, value in properties.items()
        }
    items = node.get("items")
    if isinstance(items, dict):
        node["items"] = go(items, "items")
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        node["anyOf"] = [go(v, "anyOf", str(i)) for i, v in enumerate(any_of)]
    one_of = node.get("oneOf")
    if isinstance(one_of, list):
        existing = node.get("anyOf", [])
        if not isinstance(existing, list):
            existing = []
        node["anyOf"] = existing + [go(v, "oneOf", str(i)) for i, v in enumerate(one_of)]
        node.pop("oneOf")
    all_of = node.get("allOf")
    if isinstance(all_of, list):
        if len(all_of) == 1:
            entry = all_of[0]
            if (
                isinstance(entry, dict)
                and "$ref" in entry
                and not (set(entry) - {"$ref"} - _REF_NON_CONSTRAINING_SIBLINGS)
            ):
                if nested:
                    raise _user_error(_NESTED_RESOURCE_REF_ERROR)
                budget.spend()
                strict_entry = _ref_chain(root, entry, budget)
            else:
                strict_entry = go(entry, "allOf", "0")
            node.pop("allOf")
            if not closed:
                node.pop("additionalProperties", None)
            merged = _merge_single_all_of(strict_entry, node)
            node.clear()
            node.update(merged)
            return _agents_strict(node, path, root, budget, deeper, nested)
        node["allOf"] = [go(v, "allOf", str(i)) for i, v in enumerate(all_of)]
    if "default" in node and node["default"] is None:
        node.pop("default")
    ref = node.get("$ref")
    if ref and len(node) > 1:
        if not isinstance(ref, str):
            raise AssertionError(f"Received non-string $ref - {ref}")
        resolved = _resolve_ref(root, ref)
        if not isinstance(resolved, dict):
            raise ValueError(
                f"Expected `$ref: {ref}` to resolve to a dictionary but got {resolved}"
            )
        node.pop("$ref")
        node.update({**resolved, **node})
        return _agents_strict(node, path, root, budget, deeper, nested)
    return node


def _resolve_ref(root: dict[str, Any], ref: str) -> object:
    if not ref.startswith("#/"):
        raise ValueError(f"Unexpected $ref format {ref!r}; Does not start with #/")
    resolved: Any = root
    for raw in unquote(ref[2:], errors="strict").split("/"):
        value = resolved[raw.replace("~1", "/").replace("~0", "~")]
        if not isinstance(value, dict):
            raise AssertionError(
                f"encountered non-dictionary entry while resolving {ref} - {resolved}"
            )
        resolved = value
        if isinstance(resolved.get("$id"), str):
            raise _user_error(_NESTED_RESOURCE_REF_ERROR)
    return resolved


def _ref_chain(root: dict[str, Any], schema: dict[str, Any], budget: _Budget) -> dict[str, Any]:
    resolved = schema
    seen: set[str] = set()
    carried: dict[str, Any] = {}
    while "$ref" in resolved and not (set(resolved) - {"$ref"} - _REF_NON_CONSTRAINING_SIBLINGS):
        ref = resolved["$ref"]
        if not isinstance(ref, str):
            raise AssertionError(f"Received non-string $ref - {ref}")
        if ref in seen:
            raise _user_error("JSON schema contains a circular `$ref` chain.")
        seen.add(ref)
        carried = {**{k: v for k, v in resolved.items() if k != "$ref"}, **carried}
        budget.spend()
        target = _resolve_ref(root, ref)
        if not isinstance(target, dict):
            raise ValueError(f"Expected `$ref: {ref}` to resolve to a dictionary but got {target}")
        resolved = target
    return {**resolved, **carried}


def _merge_single_all_of(entry: dict[str, Any], parent: dict[str, Any]) -> dict[str, Any]:
    merged = dict(entry)
    incompatible: list[str] = []
    if (
        parent.get("additionalProperties") is False
        and ("properties" not in parent or parent["properties"] == {})
        and isinstance(entry.get("properties"), dict)
        and entry["properties"] != {}
    ):
        incompatible.append("properties")
    for key, value in parent.items():
        if key not in merged or key in _REF_NON_CONSTRAINING_SIBLINGS:
            merged[key] = value
        elif (
            _same(value, merged[key])
            or (key == "properties" and value == {})
            or (key == "required" and value == [])
        ):
            continue
        else:
            incompatible.append(key)
    if incompatible:
        raise _user_error(
            "JSON schema contains a singleton `allOf` entry with incompatible parent "
            f"keyword(s) ({', '.join(sorted(incompatible))}) that cannot be merged "
            "without changing its accepted values."
        )
    return merged


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return bool(left == right)
    if isinstance(left, list) or isinstance(right, list):
        if not isinstance(left, list) or not isinstance(right, list):
            return False
        return len(left) == len(right) and all(
            _same(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, dict) or isinstance(right, dict):
        if not isinstance(left, dict) or not isinstance(right, dict):
            return False
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    return type(left) is type(right) and bool(left == right)


# --- anthropic: transform_schema -----------------------------------------------------------------

_STRING_FORMATS: Final = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
_SCALAR_TYPES: Final = frozenset({"boolean", "integer", "number", "null"})


def anthropic_strict(schema: JSON) -> JSON:
    """``transform_schema`` of a dict schema."""
    try:
        return _transform(schema)
    except (TypeError, ValueError, AttributeError) as error:
        raise Refused(f"{type(error).__name__}: {error}") from None


def _primitive(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _transform(source: Any) -> dict[str, Any]:
    strict: dict[str, Any] = {}
    rest = {**source}
    defs = rest.pop("$defs", None)
    if defs is not None:
        strict["$defs"] = {name: _transform(member) for name, member in defs.items()}
    ref = rest.pop("$ref", None)
    if ref is not None:
        strict["$ref"] = ref
        return strict
    kind = rest.pop("type", None)
    any_of = rest.pop("anyOf", None)
    one_of = rest.pop("oneOf", None)
    all_of = rest.pop("allOf", None)
    enum = rest.get("enum")
    if isinstance(enum, list) and enum and all(_primitive(value) for value in enum):
        strict["enum"] = list(rest.pop("enum"))
    if "const" in rest and _primitive(rest["const"]):
        strict["const"] = rest.pop("const")
    literals = "enum" in strict or "const" in strict
    if literals:
        kind = None
    if isinstance(any_of, list):
        strict["anyOf"] = [_transform(variant) for variant in any_of]
    elif isinstance(one_of, list):
        strict["anyOf"] = [_transform(variant) for variant in one_of]
    elif isinstance(all_of, list):
        strict["allOf"] = [_transform(variant) for variant in all_of]
    elif not literals:
        if kind is None:
            raise ValueError(
                "Schema must have a 'type', 'anyOf', 'oneOf', or 'allOf' field, "
                "or a 'const' or non-empty 'enum' of strings, numbers, booleans, or null."
            )
        strict["type"] = kind
    description = rest.pop("description", None)
    if description is not None:
        strict["description"] = description
    title = rest.pop("title", None)
    if title is not None:
        strict["title"] = title
    if kind == "object":
        properties = rest.pop("properties", {})
        strict["properties"] = {key: _transform(value) for key, value in properties.items()}
        rest.pop("additionalProperties", None)
        strict["additionalProperties"] = False
        required = rest.pop("required", None)
        if required is not None:
            strict["required"] = list(required) if isinstance(required, list) else required
    elif kind == "string":
        format_ = rest.pop("format", None)
        if format_ and format_ in _STRING_FORMATS:
            strict["format"] = format_
        elif format_:
            rest["format"] = format_  # back among the leftovers, into the description
    elif kind == "array":
        items = rest.pop("items", None)
        if items is not None:
            strict["items"] = _transform(items)
        min_items = rest.pop("minItems", None)
        # The SDK's own precedence: `(a and b) or c`.
        if (min_items is not None and min_items == 0) or min_items == 1:
            strict["minItems"] = min_items
        elif min_items is not None:
            rest["minItems"] = min_items
    elif kind is not None and not (isinstance(kind, str) and kind in _SCALAR_TYPES):
        # typing_extensions.assert_never's message
        raise Refused(f"AssertionError: Expected code to be unreachable, but got: {kind!r}")
    if rest:
        # What the API's strict mode does not take is written into the description, so
        # that the model "might" follow it: the constraint itself is gone.
        before = strict.get("description")
        strict["description"] = (
            (before + "\n\n" if before is not None else "")
            + "{"
            + ", ".join(f"{key}: {value}" for key, value in rest.items())
            + "}"
        )
    return strict


# --- langchain-core: convert_to_openai_tool(strict=True) -----------------------------------------


def langchain_strict(schema: JSON) -> JSON:
    """``_recursive_set_additional_properties_false`` of ``parameters``, on a copy (as
    ``convert_to_openai_function`` deep-copies a dict tool under ``strict``)."""
    result = copy.deepcopy(schema)
    try:
        _close(result)
    except (TypeError, AttributeError, KeyError) as error:
        raise Refused(f"{type(error).__name__}: {error}") from None
    return result


def _close(schema: Any) -> None:
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if isinstance(properties, dict) and properties:
        schema["required"] = list(properties.keys())
    if (
        "required" in schema
        or ("properties" in schema and not schema["properties"])
        or "additionalProperties" in schema
    ):
        schema["additionalProperties"] = False
    if "anyOf" in schema:
        for member in schema["anyOf"]:
            _close(member)
    if "allOf" in schema:
        for member in schema["allOf"]:
            _close(member)
    if "properties" in schema:
        for member in schema["properties"].values():
            _close(member)
    if "items" in schema:
        _close(schema["items"])
    for defs_key in ("$defs", "definitions"):
        if isinstance(schema.get(defs_key), dict):
            for member in schema[defs_key].values():
                _close(member)
