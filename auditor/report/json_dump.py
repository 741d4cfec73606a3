"""Indented JSON text exactly as the standard library writes it, at orjson's speed.

``json.dumps(..., indent=2)`` runs Python's pure-Python encoder (an indent turns the C one
off): on a report listing thousands of calls it was most of what rendering cost. orjson
writes the same text for the data reports hold — the same separators and indent, key order,
string escapes (``ensure_ascii=False``: only ``"``, ``\\`` and the controls, in the same
spellings) and integers — with one difference, handled here: a float below 1e-4 in
magnitude, which Python writes ``1e-05`` and orjson ``0.00001`` (or ``1e-5``).

Whatever orjson would write otherwise, or refuse, goes to ``json.dumps`` itself, so the text
(or the error) is always the standard library's: a non-finite float (orjson writes ``null``,
the reports refuse it), a key that is not a string, a type other than the plain JSON ones
(subclasses included), an integer beyond 64 bits, a lone surrogate, nesting past orjson's
limit.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

import orjson

_ORJSON_DEPTH: Final = 254
"""Containers nested deeper than this go to ``json.dumps`` (orjson refuses past 255)."""
_SCALARS: Final = frozenset({str, int, bool, type(None)})
_FLOAT_SPELLED_OTHERWISE: Final = re.compile(r"e-\d(?!\d)|0\.0000")
"""What only a float orjson spells unlike Python can put in the text (strings may too: then
the exact pass below runs for nothing)."""
_NUMBER_LINE: Final = re.compile(
    r'( *(?:"(?:[^"\\\n]|\\.)*": )?)(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)(,?)'
)
"""A line of indented JSON text whose value is a number: the value is alone on its line,
after the indent and the key (a string: its escapes are skipped whole, so a quote inside
does not end it)."""


def dumps_indented(data: Any) -> str:
    """``json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)``, byte for byte
    (and raising what it raises)."""
    try:
        found = _plain(data, 0)
    except RecursionError:
        found = None
    if found is None:
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    try:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONEncodeError:  # an integer beyond 64 bits, a lone surrogate
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    return _python_floats(text) if found is _SMALL else text


def _python_floats(text: str) -> str:
    """``text`` with each float orjson spells unlike Python respelled: only the lines where
    one may be are looked at."""
    out: list[str] = []
    done = 0
    for found in _FLOAT_SPELLED_OTHERWISE.finditer(text):
        start = text.rfind("\n", 0, found.start()) + 1
        if start < done:
            continue  # a line already looked at
        end = text.find("\n", found.end())
        end = len(text) if end < 0 else end
        line = _NUMBER_LINE.fullmatch(text, start, end)
        if line is not None and ("." in line[2] or "e" in line[2]):
            out += [text[done:start], line[1], repr(float(line[2])), line[3]]
            done = end
    return "".join([*out, text[done:]])


_SMALL: Final = "small"
_ALIKE: Final = "alike"


def _plain(value: Any, depth: int) -> str | None:
    """None unless ``value`` holds only what orjson writes as ``json.dumps`` does: dicts
    with string keys, lists, tuples, strings, integers, finite floats, booleans and None, of
    exactly those types, nested within orjson's limit; then ``_SMALL`` when a float in it is
    one orjson spells otherwise (below 1e-4 in magnitude), else ``_ALIKE``."""
    kind = type(value)
    if kind is float:
        if not math.isfinite(value):
            return None
        return _SMALL if 0 < abs(value) < 1e-4 else _ALIKE
    if kind in _SCALARS:
        return _ALIKE
    if kind is dict:
        members = value.values()
        if any(type(key) is not str for key in value):
            return None
    elif kind is list or kind is tuple:
        members = value
    else:
        return None
    if depth >= _ORJSON_DEPTH:
        return None
    verdict = _ALIKE
    for member in members:
        kind = type(member)
        if kind is str or kind is int or kind is bool or member is None:
            continue  # most members: decided without a call
        found = _plain(member, depth + 1)
        if found is None:
            return None
        if found is _SMALL:
            verdict = _SMALL
    return verdict
