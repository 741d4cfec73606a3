"""A short string a regular expression matches: a property name for ``patternProperties``,
a value for ``pattern``, built deterministically from the expression's parsed structure.

Covers the forms schemas use (literals, classes, ranges, ``\\d``/``\\w``/``\\s``, ``.``,
repeats, groups, alternatives, anchors); anything else (lookarounds, back references) gives
None. The result is always checked with the ``regex`` module the validators' patterns use, so
a wrong guess is never offered as a match.

The check runs within the searches' bounds (``auditor.replay.budget.SearchCeiling``): the
pattern is compiled only if its counted repeats stay within ``MAX_PATTERN_EXPANSION`` (the
alternative not built, ``b|(?:(?:a{1000}){1000}){1000}``, still took 20 GB to compile), and
matched within one call's CPU budget: a wrong guess can backtrack exponentially
(``^(a|a){40}$b`` on the ``aaa…ab`` built for it, where ``$`` was dropped, took days).
Parsing and building are linear in the pattern and done once per pattern.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Final

from auditor.replay.budget import SearchCeiling

_parser: Any = getattr(re, "_parser", None)
"""The standard library's regular-expression parser (``sre_parse`` before 3.11)."""

MAX_REPEAT_SHOWN: Final = 64
"""A repeat asking for more copies than this is not built out."""
MAX_BUILT: Final = 1024
"""Characters a built string may reach (nested repeats multiply): beyond it, none is built."""
_CATEGORY_EXAMPLES: Final = {
    "CATEGORY_DIGIT": "0",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_WORD": "a",
    "CATEGORY_NOT_WORD": "-",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": "a",
}
_FALLBACKS: Final = "aA0_- .:/@"
"""Characters tried, in order, where a negated class or ``.`` allows almost anything."""


class _Unsupported(Exception):
    """A construct this builder does not write examples for."""


def example_matching(pattern: str, ceiling: SearchCeiling | None = None) -> str | None:
    """A short string ``pattern`` matches (``regex.search``), or None when none is built or
    the match cannot be told within one step of ``ceiling`` (by default: a call's budget)."""
    built = _built(pattern)
    if built is None:
        return None
    matched = (ceiling or SearchCeiling()).matches(pattern, built)
    return built if matched else None


@functools.lru_cache(maxsize=1024)
def _built(pattern: str) -> str | None:
    """The string guessed from ``pattern``'s parse (unchecked), or None."""
    if _parser is None:  # pragma: no cover - every supported Python has it
        return None
    try:
        return _build(_parser.parse(pattern).data)
    except (_Unsupported, re.error, RecursionError, OverflowError, ValueError):
        return None


def _build(items: Any) -> str:
    parts: list[str] = []
    length = 0
    for op, value in items:
        part = _one(str(op), value)
        length += len(part)
        if length > MAX_BUILT:  # checked as it grows: a long sequence is never joined
            raise _Unsupported("too long")
        parts.append(part)
    return "".join(parts)


def _one(op: str, value: Any) -> str:
    if op == "LITERAL":
        return chr(value)
    if op == "AT":
        return ""
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _high, inner = value
        if low > MAX_REPEAT_SHOWN:
            raise _Unsupported(op)
        part = _build(inner)
        if len(part) * low > MAX_BUILT:
            raise _Unsupported(op)
        return str(part * low)
    if op == "SUBPATTERN":
        return _build(value[-1])
    if op == "ATOMIC_GROUP":
        return _build(value)
    if op == "BRANCH":
        return _build(value[1][0])
    if op == "IN":
        return _in_class(value)
    if op in ("ANY", "NOT_LITERAL"):
        excluded = "\n" if op == "ANY" else chr(value)
        return next(c for c in _FALLBACKS if c != excluded)
    raise _Unsupported(op)


def _in_class(members: Any) -> str:
    if members and str(members[0][0]) == "NEGATE":
        # Whatever the negated class leaves: the first fallback its members do not name.
        probe = "[" + "".join(_class_text(op, v) for op, v in members[1:]) + "]"
        return next((c for c in _FALLBACKS if not re.fullmatch(probe, c)), "é")
    op, value = members[0]
    return _class_member(str(op), value)


def _class_member(op: str, value: Any) -> str:
    if op == "LITERAL":
        return chr(value)
    if op == "RANGE":
        return chr(value[0])
    if op == "CATEGORY":
        example = _CATEGORY_EXAMPLES.get(str(value))
        if example is not None:
            return example
    raise _Unsupported(op)


def _class_text(op: Any, value: Any) -> str:
    """A class member written back as pattern text, to test a candidate against."""
    op = str(op)
    if op == "LITERAL":
        return re.escape(chr(value))
    if op == "RANGE":
        return f"{re.escape(chr(value[0]))}-{re.escape(chr(value[1]))}"
    if op == "CATEGORY":
        letter = {
            "CATEGORY_DIGIT": "d",
            "CATEGORY_NOT_DIGIT": "D",
            "CATEGORY_WORD": "w",
            "CATEGORY_NOT_WORD": "W",
            "CATEGORY_SPACE": "s",
            "CATEGORY_NOT_SPACE": "S",
        }.get(str(value))
        if letter is not None:
            return "\\" + letter
    raise _Unsupported(op)
