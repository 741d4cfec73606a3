"""The lines of a JSON Lines buffer grouped by payload, in C where it is built, else in Python.

``group_payloads(buffer, final, limit)`` takes whole lines (the last may lack its newline when
``final``) and gives ``(ids, tools, texts, alone)``: per line one native ``uint32`` in
``ids`` (``BLANK`` for whitespace only; ``ALONE`` for a line it does not vouch for, whose
bytes, newline included, are the next item of ``alone``; else its group), and per group, in
the order of its first line, the decoded strings of the records' ``tool`` and ``arguments``.

A line is vouched for when two lines with the same payload would give the reader the same
call but for its ``path:line``: at most ``limit`` bytes (its newline not counted), one JSON
object orjson reads as JSON reads it (strict syntax and UTF-8; none of the raw patterns of
``RAW_REFUSED``, which a reader may read as a float or not at all; nesting at most
``MAX_DEPTH``), whose ``tool`` is a non-empty string, whose ``arguments`` is a string (what
the reader's short way takes, ``log_formats.jsonl_call``), and that names no caller
(``log_formats._CALLER_FIELDS``). Any other line is left to the reader's ordinary way.

The compiled function (``_payload_groups.c``) makes no Python object per grouped line;
``python_group_payloads`` is its twin, line by line with orjson, with the same output (the
tests hold them to it). Which one runs is decided once, here: the compiled one where it
imports, unless ``AUDITOR_PURE_PYTHON=1`` is set (the reader then reads grouped with the twin,
as the tests do; where the module is not built and nothing is set, it reads line by line,
which is faster than the twin: ``pays``).

``split_known(ids, known_mask)`` takes those ids and one byte per group (non-zero: the
group's lines are known accepted repeats, counted in bulk) and gives ``(known, rest, blank)``:
the lines of each known group (``{group: lines}``, in the order of its first line), the native
``uint32`` indices of the lines neither blank nor known (what Python still reads, in order),
and the number of blank lines. It is compiled too, with ``python_split_known`` its twin, and
chosen with ``group_payloads``.
"""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Callable
from typing import Final

import orjson

from auditor.inputs.log_formats import _CALLER_FIELDS, ARGUMENT_KEYS, TOOL_KEYS
from auditor.models import JSON

BLANK: Final = 0xFFFFFFFF
ALONE: Final = 0xFFFFFFFE
MAX_DEPTH: Final = 64
"""Containers nested in a vouched line, the record itself included."""
RAW_REFUSED: Final = re.compile(rb"\\u[dD][89a-fA-F]|[0-9]{19}|[0-9][eE][+-]?[0-9]{3}")
"""Bytes that leave a line to the reader wherever they stand (in a string too): the escape
of half a surrogate pair, an integer orjson reads as a float, an exponent that may
overflow a double."""
TOOL_KEY: Final = TOOL_KEYS[0]
ARGUMENTS_KEY: Final = ARGUMENT_KEYS[0]
"""The first keys the reader looks for: present, they decide (the others are not read)."""
EXCLUDED: Final = tuple(sorted(str(name) for name in _CALLER_FIELDS))
"""Members that name a caller: a line holding one is left to the reader."""
PURE_PYTHON_VARIABLE: Final = "AUDITOR_PURE_PYTHON"

Grouped = tuple[bytes, list[str], list[str], list[bytes]]
"""``(ids, tools, texts, alone)``."""
GroupFunction = Callable[[bytes, bool, int, str, str, tuple[str, ...]], Grouped]
Split = tuple[dict[int, int], bytes, int]
"""``(known, rest, blank)``."""
SplitFunction = Callable[[bytes, bytes], Split]


def python_group_payloads(
    buffer: bytes,
    final: bool,
    limit: int,
    tool_key: str = TOOL_KEY,
    arguments_key: str = ARGUMENTS_KEY,
    excluded: tuple[str, ...] = EXCLUDED,
) -> Grouped:
    """``group_payloads`` in Python: the same output, a few µs a line."""
    if buffer and not buffer.endswith(b"\n") and not final:
        raise ValueError("a buffer that is not final must end with a newline")
    ids = array("I")
    tools: list[str] = []
    texts: list[str] = []
    alone: list[bytes] = []
    groups: dict[tuple[str, str], int] = {}
    refused = frozenset(excluded)
    lines = buffer.split(b"\n")
    last = len(lines) - 1
    for number, line in enumerate(lines):
        raw = line if number == last else line + b"\n"
        if not raw:
            continue  # after the final newline
        if raw.isspace():
            ids.append(BLANK)
            continue
        pair = _payload(line, limit, tool_key, arguments_key, refused)
        if pair is None:
            ids.append(ALONE)
            alone.append(raw)
            continue
        group = groups.get(pair)
        if group is None:
            group = groups[pair] = len(tools)
            tools.append(pair[0])
            texts.append(pair[1])
        ids.append(group)
    return ids.tobytes(), tools, texts, alone


def python_split_known(ids: bytes, known_mask: bytes) -> Split:
    """``split_known`` in Python: the same output."""
    if len(ids) % 4:
        raise ValueError("ids must hold whole uint32 items")
    known: dict[int, int] = {}
    rest = array("I")
    blank = 0
    groups = len(known_mask)
    for index, group in enumerate(memoryview(ids).cast("I")):
        if group == BLANK:
            blank += 1
        elif group != ALONE and group < groups and known_mask[group]:
            known[group] = known.get(group, 0) + 1
        else:
            rest.append(index)
    return known, rest.tobytes(), blank


def _payload(
    line: bytes, limit: int, tool_key: str, arguments_key: str, excluded: frozenset[str]
) -> tuple[str, str] | None:
    """The (tool, arguments) of a line vouched for; None for any other."""
    if len(line) > limit or RAW_REFUSED.search(line):
        return None
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(record, dict):
        return None
    tool = record.get(tool_key)
    text = record.get(arguments_key)
    if not isinstance(tool, str) or not tool or not isinstance(text, str):
        return None
    if not excluded.isdisjoint(record) or _deeper(record, MAX_DEPTH):
        return None
    return tool, text


def _deeper(record: dict[str, JSON], most: int) -> bool:
    """Whether containers nest more than ``most`` deep in ``record`` (itself included)."""
    stack: list[tuple[dict[str, JSON] | list[JSON], int]] = [
        (value, 2) for value in record.values() if isinstance(value, (dict, list))
    ]
    while stack:
        node, depth = stack.pop()
        if depth > most:
            return True
        children = list(node.values()) if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _compiled() -> tuple[GroupFunction, SplitFunction] | None:
    """The compiled functions, unless they are not built or ``AUDITOR_PURE_PYTHON=1``. A
    module built from an older C file (an editable install not rebuilt since) lacks
    ``split_known``: it counts as not built, and the log is read as without it."""
    if os.environ.get(PURE_PYTHON_VARIABLE) == "1":
        return None
    try:
        from auditor.inputs import _payload_groups  # type: ignore[attr-defined]
    except ImportError:
        return None
    function: GroupFunction | None = getattr(_payload_groups, "group_payloads", None)
    split: SplitFunction | None = getattr(_payload_groups, "split_known", None)
    if function is None or split is None:
        return None
    return function, split


_functions: Final = _compiled()
compiled_group_payloads: Final = _functions[0] if _functions is not None else None
compiled_split_known: Final = _functions[1] if _functions is not None else None
"""The compiled function, where it runs (None: the Python twin runs)."""
COMPILED: Final = _functions is not None
twin_forced: Final = os.environ.get(PURE_PYTHON_VARIABLE) == "1"
"""Whether ``AUDITOR_PURE_PYTHON=1`` asks for the Python twin."""


def pays() -> bool:
    """Whether the reader should read grouped: with the compiled function (4.3 against 6.1 µs
    a line measured), or when the twin is asked for. The twin is slower than reading line by
    line (10 to 14 µs), so where the module is not built the reader reads line by line."""
    return compiled_group_payloads is not None or twin_forced


def group_payloads(buffer: bytes, final: bool, limit: int) -> Grouped:
    """The lines of ``buffer`` grouped by payload (the module's docstring says how)."""
    function = compiled_group_payloads or python_group_payloads
    return function(buffer, final, limit, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED)


def split_known(ids: bytes, known_mask: bytes) -> Split:
    """A buffer's known lines counted by group, and the others (the module's docstring);
    compiled where the grouping is (a test that swaps the grouping for the twin swaps both)."""
    function = (compiled_group_payloads and compiled_split_known) or python_split_known
    return function(ids, known_mask)
