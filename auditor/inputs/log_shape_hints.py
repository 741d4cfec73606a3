"""What an unrecognised log's first record holds, said in one clause: the shape seen and,
where it is close to a format's, what differs.

"Not a call log in a known format" alone leaves the user to guess; the clause names the top
keys of the first record that parsed (``its first record is a mapping with keys event, ts``)
and, for a record one step away from a format, that step: a key the format reads holding
the wrong kind of value (``its `tool` is a number, not a string (jsonl)``), or a key close
to one a format reads (``tool_name`` for ``tool``, ``candidate`` for ``candidates``), or a
Gemini part logged without the body around it.
"""

from __future__ import annotations

import difflib
from typing import Final

from auditor.inputs.shape_hints import kind_of, shape_seen
from auditor.models import JSON

READ_KEYS: Final[dict[str, tuple[str, type, str]]] = {
    # key: (the format that reads it, the kind it must be, that kind in words)
    "tool": ("jsonl", str, "a string"),
    "name": ("jsonl", str, "a string"),
    "jsonrpc": ("mcp", str, "a string"),
    "resourceSpans": ("otel", list, "a list"),
    "resourceLogs": ("otel", list, "a list"),
    "output": ("openai-responses", list, "a list"),
    "choices": ("openai", list, "a list"),
    "messages": ("openai", list, "a list"),
    "candidates": ("gemini", list, "a list"),
    "contents": ("gemini", list, "a list"),
}
"""The top-level keys detection reads, by the format that reads them."""
_GEMINI_PART_KEYS: Final = ("functionCall", "function_call", "functionResponse")
"""A Gemini part logged alone: the body that holds it is what the format reads."""
_SHARED: Final = frozenset({"output", "messages"})
"""Keys other APIs use for other things (Bedrock's ``output`` is a mapping): a value of
another kind under them says nothing about which format was meant."""
_NAME_KEYS: Final = frozenset(
    {"toolname", "tool_name", "function", "functionname", "function_name", "fn", "method"}
)
"""Keys a call's tool name is often logged under that no format reads (folded)."""


def describe(record: JSON) -> str:
    """``its first record is a mapping with keys event, ts``; with ``; <what differs>`` when
    it is close to a format."""
    seen = f"its first record is {shape_seen(record)}"
    near = near_miss(record)
    return seen if near is None else f"{seen}; {near}"


def near_miss(record: JSON) -> str | None:
    """What keeps a record that looks meant as a format's from being one; None when it
    looks like none."""
    if not isinstance(record, dict):
        return None
    part = next((key for key in _GEMINI_PART_KEYS if key in record), None)
    if part is not None:
        return (
            f"`{part}` is a part of a Gemini turn; a record is the body around it "
            "(`candidates[].content.parts[]` or `contents[].parts[]`) (gemini)"
        )
    for key, (fmt, kind, words) in READ_KEYS.items():
        if key in _SHARED or key not in record:
            continue
        if not isinstance(record[key], kind):
            return f"its `{key}` is {kind_of(record[key])}, not {words} ({fmt})"
    for key in record:
        folded = str(key).lower().replace("-", "_")
        if folded in _NAME_KEYS or folded.replace("_", "") in _NAME_KEYS:
            return (
                f"`{_short(key)}` is not a key any format reads; a call names its tool in "
                "`tool` or `name` (jsonl)"
            )
        close = difflib.get_close_matches(str(key), list(READ_KEYS), 1, 0.8)
        if close and close[0] != key:
            fmt = READ_KEYS[close[0]][0]
            return f"`{_short(key)}` is not a key any format reads; `{close[0]}` is ({fmt})"
    return None


MAX_KEY: Final = 40


def _short(key: object) -> str:
    text = str(key)
    return text if len(text) <= MAX_KEY else text[: MAX_KEY - 1] + "…"
