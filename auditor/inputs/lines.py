"""Lines of a log stream, read with bounded memory, and the text checks JSON leaves open.

A log line can be any size (a 100 MB line, a binary file with no newline at all): reading it
whole would hold it in memory, then its decoding, then its parse. ``bounded_lines`` reads at
most ``limit + 1`` bytes of a line; a longer line is skipped in chunks and stands as an
``Overlong`` with its first bytes and its size. A stream that fails mid-way (a truncated
gzip, an I/O error) ends with an ``Unreadable``: the reader reports it as one more line that
could not be read, and goes on with the next file.

Blank lines cost nothing per line: after a blank line, the run of blank lines that follows is
found in the stream's buffer and skipped in bulk as one ``Blank`` (a gigabyte of newlines,
which gzip packs into a megabyte, is read in about a second instead of minutes).
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Final

from auditor.models import JSON

_HEAD: Final = 2_048
"""Bytes of an over-long line kept to show in the report."""
_CHUNK: Final = 1024 * 1024
"""Bytes read at a time while skipping the rest of an over-long line."""


@dataclass(frozen=True)
class Overlong:
    """A line longer than the limit: its first bytes and its length (newline excluded)."""

    head: bytes
    size: int


@dataclass(frozen=True)
class Unreadable:
    """The stream failed here; nothing after it can be read."""

    reason: str


@dataclass(frozen=True)
class Blank:
    """A run of blank lines (whitespace only), skipped in bulk: how many, and their bytes."""

    count: int
    size: int


Line = bytes | Overlong | Unreadable | Blank

_BLANKS: Final = re.compile(rb"(?:[ \t\r\x0b\x0c]*\n)+")
"""Whole blank lines, as ``bytes.strip()`` sees them."""


def bounded_lines(stream: IO[bytes], limit: int) -> Iterator[Line]:
    """The lines of ``stream`` (newline kept), each at most ``limit`` bytes long without its
    newline; longer ones as ``Overlong``; a read failure as a final ``Unreadable``.

    A line is read in chunks: memory holds at most ``limit`` bytes of it, and nothing of it
    once it is known to be too long. After a blank line, the blank lines that follow come as
    one ``Blank``, found in the stream's buffer (where it has ``peek``).
    """
    peek: Callable[[int], bytes] | None = getattr(stream, "peek", None)
    while True:
        try:
            chunks: list[bytes] | None = []
            head = b""
            size = 0
            ended = False
            while not ended:
                chunk = stream.readline(_CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                ended = chunk.endswith(b"\n")
                if chunks is None:
                    continue
                if size - ended > limit:
                    head = (chunks[0] if chunks else chunk)[:_HEAD]
                    chunks = None  # too long: let go of what was read
                else:
                    chunks.append(chunk)
            if size == 0:
                return
            if chunks is None:
                yield Overlong(head, size - ended)
                continue
            line = chunks[0] if len(chunks) == 1 else b"".join(chunks)
            yield line
            if peek is not None and ended and line.isspace():
                run = _blank_run(stream, peek)
                if run is not None:
                    yield run
        except (OSError, EOFError, zlib.error) as error:
            yield Unreadable(_reason(error))
            return


def _blank_run(stream: IO[bytes], peek: Callable[[int], bytes]) -> Blank | None:
    """The whole blank lines at the stream's position, consumed buffer by buffer."""
    count = size = 0
    while True:
        window = peek(_CHUNK)
        match = _BLANKS.match(window)
        if match is None:
            break
        taken = match.end()
        count += window.count(b"\n", 0, taken)
        size += taken
        stream.read(taken)
        if taken < len(window):
            break
    return Blank(count, size) if count else None


def unreadable(error: BaseException) -> Unreadable:
    """Where reading a stream failed with ``error``, as ``bounded_lines`` yields it."""
    return Unreadable(_reason(error))


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def lone_surrogate(text: str, value: JSON) -> bool:
    """Whether ``value``, parsed from ``text``, holds a string that is not Unicode text: a
    ``\\ud800``-style escape without its pair, which no report could write out as UTF-8.

    Such an escape can only come from a ``\\u`` escape, so most text is cleared by a search.
    """
    if "\\ud" not in text and "\\uD" not in text:
        return False
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def finite_float(text: str) -> float:
    """A JSON number's text as a float, for ``json.loads(parse_float=...)``: the json module
    reads catalogs and the logs orjson refuses, and both refuse the same numbers."""
    # A number past a float's range (1e400) would be read as infinity, which no strict JSON
    # report can hold: it is refused as NaN and Infinity are.
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise ValueError(f"number out of range: {shown}")
    return value
