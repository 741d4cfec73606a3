"""The bounds that keep hostile input from exhausting the stack, memory or time.

Every stage after the readers walks schemas and arguments recursively (python-jsonschema
does, and so do redaction and rendering). Rather than let each walk find its own limit,
where ``RecursionError`` strikes at a depth that depends on who is calling, the readers
measure nesting once, without recursion, and refuse what is deeper than ``MAX_NESTING``:
a call's arguments become ``unparseable``, a schema becomes unusable (``schema_error_after``
for every call of its tool). The same input then gives the same outcome everywhere.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import Final, TypeVar

from auditor.models import JSON

MAX_NESTING: Final = 100
"""Deepest nesting of arrays and objects in a schema or in a call's arguments.

Tool schemas and arguments seen in practice nest under 20 levels. The validators of
python-jsonschema need several Python frames per level (its meta-schema check gives up near
200 levels of ``properties``), so 100 leaves room whatever the depth of the caller.
"""
MAX_PARSE_NESTING: Final = 20_000
"""Deepest JSON catalog that is parsed at all (deeper: an invalid-JSON problem, exit 2)."""
DEFAULT_MAX_RECORD_BYTES: Final = 64 * 1024 * 1024
"""Longest log line (or whole-file JSON document) parsed; longer is ``unparseable``."""
DEFAULT_MAX_CATALOG_BYTES: Final = 256 * 1024 * 1024
"""Largest catalog file read (``--max-catalog-bytes``): a catalog is held whole, parsed and
placed key by key, which takes several times its size in memory; larger is refused (exit 2)."""
MAX_DECOMPRESSED_BYTES: Final = 16 * 1024**3
"""Most bytes read out of one gzip log (or gzip standard input). Gzip packs up to ~1,000
bytes into one, so a small file can hold a very large stream; past this bound the rest of the
file is one ``unparseable`` record, counted like a truncated gzip. A larger log is read in full
when decompressed outside (``zcat big.jsonl.gz | auditor audit ... --logs -``)."""
MAX_YAML_NODES: Final = 1_000_000
"""Most nodes a YAML catalog may expand to through its aliases (a "billion laughs" bomb
expands a few hundred bytes to 10^9 nodes; every walk over the schema would visit them all)."""

_DEEP_STACK: Final = 512 * 1024 * 1024
"""Thread stack for parsing up to ``MAX_PARSE_NESTING`` levels (virtual: pages are touched
only as deep as the parse goes)."""

T = TypeVar("T")


def nesting(value: JSON, limit: int = MAX_NESTING) -> int:
    """How deep ``value`` nests (a scalar is 0, ``[]`` is 1), counting no further than
    ``limit + 1``: iterative, so any depth is measured safely and a deep value stops early."""
    deepest = 0
    stack: list[tuple[JSON, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        children: Iterable[JSON]
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        stack.extend((child, depth) for child in children)
    return deepest


def too_deep(value: JSON, limit: int = MAX_NESTING, text: str | None = None) -> bool:
    """Whether ``value`` nests deeper than ``limit``. ``text``, the JSON ``value`` was parsed
    from, answers most calls at C speed: fewer brackets than ``limit`` cannot nest deeper."""
    if text is not None and text.count("[") + text.count("{") <= limit:
        return False
    return nesting(value, limit) > limit


def on_deep_stack(function: Callable[[], T], depth: int = MAX_PARSE_NESTING) -> T:
    """``function()`` run in a worker thread with a large stack and a recursion limit of about
    ``depth`` levels, for parsers that recurse once per nesting level.

    The recursion limit is the interpreter's, so it is raised only while the worker runs (the
    caller waits for it) and put back afterwards. Exceptions are re-raised in the caller.
    """
    result: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            result.append(function())
        except BaseException as error:  # handed to the caller, whatever it is
            failure.append(error)

    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size()
    try:
        threading.stack_size(_DEEP_STACK)
        sys.setrecursionlimit(max(old_limit, depth + 1_000))
        worker = threading.Thread(target=work, name="auditor-deep-parse")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    if failure:
        raise failure[0]
    return result[0]


def byte_size(count: int) -> str:
    """``268435456`` -> ``256 MiB``; a count that is no whole number of MiB, in bytes."""
    mib = 1024 * 1024
    return f"{count // mib:,} MiB" if count % mib == 0 else f"{count:,} bytes"


def readable_value_error(error: ValueError) -> str:
    """A parser's ValueError for the user: Python's message for an integer it will not
    convert (more than ``sys.get_int_max_str_digits()`` digits) names its own setting."""
    if "integer string conversion" in str(error):
        limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
        return f"a number of more than {limit:,} digits"
    return str(error)


MAX_SCHEMA_NODES: Final = 200_000
"""Most values (objects, arrays, keys' values and items, counted where they appear) one tool
schema may hold. Preparing a schema (its meta-schema check, the fast validator's trust, causes,
coverage) is linear in its size: this bounds the work done before any call of the tool."""


def too_large(value: JSON, limit: int = MAX_SCHEMA_NODES) -> bool:
    """Whether ``value`` holds more than ``limit`` values, counting no further."""
    count = 0
    stack: list[JSON] = [value]
    while stack:
        node = stack.pop()
        count += 1
        if count > limit:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
