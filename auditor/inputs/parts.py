"""Parts of a log file for ``--jobs``: runs of whole lines that workers read apart.

Only a plain file of independent records can be cut (``SPLITTABLE``); standard input, gzip,
a file that is one JSON document, and formats whose calls repeat or are answered across
records are read in one pass. The accounting of the parts adds up to that of one pass
(``LogStats.merge``): each part knows the number of its first line.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Final, cast

from auditor.inputs.limits import DEFAULT_MAX_RECORD_BYTES
from auditor.inputs.lines import bounded_lines
from auditor.inputs.log_files import STDIN, LogFormatError, display_name, open_log
from auditor.inputs.log_formats import LogFormat
from auditor.inputs.records import Record, detect_format, records

SPLITTABLE: Final = frozenset({LogFormat.JSONL})
"""Formats whose records are independent: no call repeats one of an earlier record, nor is
answered by a later one (MCP replies are), so parts of a file can be read apart and their
counts added. Not OpenTelemetry: a call's execute_tool span or history may come in a later
export than its chat span, and is counted as a repeat of it."""


@dataclass(frozen=True)
class LogPart:
    """A run of whole lines of one log file, read apart from the rest (by a worker)."""

    file: str
    start: int
    """Byte offset of its first line."""
    end: int
    first_line: int
    fmt: LogFormat


def split(
    file: str, parts: int, fmt: LogFormat | None, limit: int = DEFAULT_MAX_RECORD_BYTES
) -> list[LogPart] | None:
    """``file`` cut into about ``parts`` runs of whole lines, or None when it must be read
    in one pass (standard input, gzip, one JSON document, or a format with repeats)."""
    if file == STDIN or parts < 2:
        return None
    with open_log(file) as stream:
        if not isinstance(stream, io.BufferedReader):
            return None  # gzip: no seeking
        try:
            framed = records(bounded_lines(stream, limit), limit)
            head, detected = detect_format(framed, display_name(file))
        except LogFormatError:
            return None  # the one-pass read reports it
        if any(isinstance(item, Record) and item.document for item in head):
            return None
    fmt = fmt or detected
    if fmt not in SPLITTABLE:
        return None
    size = os.path.getsize(file)
    starts = [0]
    with open(file, "rb") as stream:
        for k in range(1, parts):
            start = _next_line_start(stream, size * k // parts)
            if starts[-1] < start < size:
                starts.append(start)
        lines = _line_numbers(stream, starts)
    ends = [*starts[1:], size]
    return [
        LogPart(file, start, end, line, fmt)
        for start, end, line in zip(starts, ends, lines, strict=True)
    ]


@contextmanager
def open_part(part: LogPart) -> Iterator[IO[bytes]]:
    """A binary stream of the lines of ``part``, ending where the part ends."""
    with open(part.file, "rb") as stream:
        stream.seek(part.start)
        yield cast(IO[bytes], _Range(stream, part.end))


def _next_line_start(stream: IO[bytes], offset: int) -> int:
    """The offset just after the first newline at or after ``offset`` (or the end), found
    in blocks: a line of any length costs no more memory than a block."""
    stream.seek(offset)
    while True:
        block = stream.read(1 << 20)
        if not block:
            return offset
        newline = block.find(b"\n")
        if newline >= 0:
            return offset + newline + 1
        offset += len(block)


class _Range:
    """The lines of a file from where it stands up to ``end``, for ``bounded_lines`` (with
    ``peek`` and ``read``, so that runs of blank lines are skipped in bulk here too)."""

    def __init__(self, stream: io.BufferedReader, end: int) -> None:
        self._stream = stream
        self._end = end

    def _left(self, size: int) -> int:
        left = self._end - self._stream.tell()
        return max(0, left if size < 0 else min(size, left))

    def readline(self, size: int = -1) -> bytes:
        left = self._left(size)
        return self._stream.readline(left) if left else b""

    def read(self, size: int = -1) -> bytes:
        left = self._left(size)
        return self._stream.read(left) if left else b""

    def peek(self, size: int = 0) -> bytes:
        left = self._left(-1)
        return self._stream.peek(size)[:left] if left else b""


def _line_numbers(stream: IO[bytes], starts: Sequence[int]) -> list[int]:
    """The line number at each start offset, counting newlines in blocks."""
    numbers = [1]
    stream.seek(0)
    position, line = 0, 1
    for start in starts[1:]:
        while position < start:
            block = stream.read(min(1 << 24, start - position))
            line += block.count(b"\n")
            position += len(block)
        numbers.append(line)
    return numbers
