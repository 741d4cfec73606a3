"""What an unrecognised catalog file holds, said in one clause: the shape seen and, where it
is close to a known one, what differs.

"Not a catalog in a known format" alone leaves the user to guess which key was missing; the
clause names the top keys seen (``a mapping with keys name, description, input_schema``) and,
for a document one step away from a catalog shape, that step (``its tools lack
`inputSchema` (MCP), `input_schema` (Anthropic) or `parameters` (OpenAI)``).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Final

from auditor.models import JSON

MAX_KEYS: Final = 6
"""Keys named, at most; the rest are counted."""

SCHEMA_KEYS: Final = ("inputSchema", "input_schema", "parameters", "parametersJsonSchema")
_WANTED: Final = (
    "a tool needs `inputSchema` (MCP), `input_schema` (Anthropic) or `parameters` (OpenAI, Gemini)"
)


def describe(document: JSON) -> str:
    """``a mapping with keys on, jobs, name``; with ``; <what differs>`` when the document
    is close to a catalog shape."""
    seen = _seen(document)
    near = near_miss(document)
    return seen if near is None else f"{seen}; {near}"


def near_miss(document: JSON) -> str | None:
    """What keeps a document that looks meant as a catalog from being one; None when it
    looks like none."""
    if isinstance(document, dict):
        tools = document.get("tools")
        if "tools" in document and not isinstance(tools, list):
            return f"its `tools` is {_kind(tools)}, not a list"
        if isinstance(tools, list):
            return _items_miss(tools, "tools")
        if _meant_as_tool(document):
            return _tool_miss(document)
        return None
    if isinstance(document, list):
        return _items_miss(document, "items")
    return None


def _items_miss(items: Sequence[JSON], what: str) -> str | None:
    odd = [i for i, item in enumerate(items) if not isinstance(item, dict)]
    if odd:
        return f"its {what} {_indexes(odd)} are not objects"
    named = [item for item in items if isinstance(item, dict) and _meant_as_tool(item)]
    if not named:
        return None
    misses = {miss for item in named if (miss := _tool_miss(item)) is not None}
    if len(misses) == 1:
        return next(iter(misses))
    keys = {frozenset(item) for item in items if isinstance(item, dict)}
    if len(keys) > 1:
        return f"its {what} are not all of one shape"
    return None


def _meant_as_tool(document: dict[str, JSON]) -> bool:
    """A named object with a description, a schema key or a close spelling of one: a
    workflow's ``name: CI`` alone is no tool."""
    if not isinstance(document.get("name"), str):
        return False
    return any(
        key in ("description", "type", "function", *SCHEMA_KEYS) or _close_to_schema_key(key)
        for key in document
    )


def _close_to_schema_key(key: object) -> bool:
    """``input_scheme``, ``InputSchema``, ``params``: a key a tool's schema was probably
    meant to be under."""
    folded = str(key).lower().replace("_", "").replace("-", "")
    return folded in _SPELLINGS or bool(difflib.get_close_matches(folded, _SPELLINGS, 1, 0.8))


def _tool_miss(tool: dict[str, JSON]) -> str | None:
    """Why one named object is no tool of a known shape."""
    for key in SCHEMA_KEYS:
        if key in tool and not isinstance(tool[key], (dict, bool)):
            return f"its `{key}` is {_kind(tool[key])}, not a schema (an object)"
    if tool.get("type") == "function" and "function" not in tool and "name" not in tool:
        return "`type: function` without `function` (Chat Completions) or `name` (Responses)"
    if isinstance(tool.get("function"), dict) and tool.get("type") != "function":
        return '`function` without `"type": "function"` beside it (Chat Completions)'
    if not any(key in tool for key in SCHEMA_KEYS) and "function" not in tool:
        close = [k for k in tool if _close_to_schema_key(k)]
        if close:
            return f"`{close[0]}` is not a key any shape reads; {_WANTED}"
        return _WANTED
    return None


_SPELLINGS: Final = frozenset(
    {"inputschema", "schema", "params", "parameter", "parameters", "jsonschema", "arguments"}
)
"""Keys, lowercased without ``_``, that a tool's schema was probably meant to be under."""


def shape_seen(document: JSON) -> str:
    """``a mapping with keys on, jobs, name``: a document's shape in a few words (the log
    readers' hints say it too)."""
    return _seen(document)


def kind_of(value: JSON) -> str:
    """``a string``, ``a list``, ``null``: a value's JSON kind in words."""
    return _kind(value)


def _seen(document: JSON) -> str:
    if isinstance(document, dict):
        if not document:
            return "an empty mapping"
        return f"a mapping with keys {_keys(list(document))}"
    if isinstance(document, list):
        dicts = [item for item in document if isinstance(item, dict)]
        if dicts and len(dicts) == len(document):
            keys: list[object] = list(dict.fromkeys(key for item in dicts for key in item))
            return f"a list of {len(document):,} objects with keys {_keys(keys)}"
        return f"a list of {len(document):,} items"
    return _kind(document)


MAX_KEY: Final = 40
"""Characters of a key named: a name, not a payload."""


def _keys(keys: list[object]) -> str:
    names = [str(key) for key in keys[:MAX_KEYS]]
    shown = ", ".join(k if len(k) <= MAX_KEY else k[: MAX_KEY - 1] + "…" for k in names)
    more = len(keys) - MAX_KEYS
    return f"{shown} and {more:,} more" if more > 0 else shown


def _indexes(indexes: list[int]) -> str:
    listed = ", ".join(str(i) for i in indexes[:MAX_KEYS])
    return listed + (" and more" if len(indexes) > MAX_KEYS else "")


def _kind(value: JSON) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"
