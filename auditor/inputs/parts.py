"""Work items for ``--jobs`` and the engines: parts of the logs that workers read apart.

A plain file of independent records (``SPLITTABLE``) can be cut into runs of whole lines
(``LogPart``); a gzip file or a small one is read whole (``WholeFiles``, a few small files
together), decompressed where it is read. Standard input, a file that is one JSON document,
and formats whose calls repeat or are answered across records (and across files) make the
whole log one item, read in one pass (unless only the response side of a history format
is read: ``--calls-from responses``). For the engines, a Parquet or Arrow IPC file is cut in
runs of row groups (``ColumnarPart``). The accounting of the parts adds up to that of one
pass (``LogStats.merge``): each part knows the number of its first line (or row).
"""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Final, TypeAlias, cast

from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.columns import Columns
from auditor.inputs.limits import DEFAULT_MAX_RECORD_BYTES
from auditor.inputs.lines import bounded_lines
from auditor.inputs.log_files import STDIN, LogFormatError, display_name, open_log
from auditor.inputs.log_format_names import LogFormat
from auditor.inputs.log_formats import has_histories
from auditor.inputs.parquet import MAGIC_BYTES, Columnar, Layout, columnar, layout
from auditor.inputs.records import Record, detect_format, records

SPLITTABLE: Final = frozenset({LogFormat.JSONL})
"""Formats whose records are independent: no call repeats one of an earlier record, nor is
answered by a later one (MCP replies are), so parts of a file can be read apart and their
counts added. Not OpenTelemetry: a call's execute_tool span or history may come in a later
export than its chat span, and is counted as a repeat of it. With ``--calls-from
responses`` the request/response history formats are splittable too (``splittable``)."""


def splittable(fmt: LogFormat, calls_from: CallsFrom) -> bool:
    """Whether parts of a log of ``fmt`` can be read apart: its records are independent, or
    only their response side is read (no repeats, no replies paired across records)."""
    return fmt in SPLITTABLE or (calls_from is CallsFrom.RESPONSES and has_histories(fmt))


@dataclass(frozen=True)
class LogPart:
    """A run of whole lines of one log file, read apart from the rest (by a worker)."""

    file: str
    start: int
    """Byte offset of its first line."""
    end: int
    first_line: int
    fmt: LogFormat
    data: str | None = None
    """The file the part's bytes are in, when not ``file`` itself: a gzip log's text,
    spilled in parts (``spill``); offsets are in it, names and lines are ``file``'s."""
    calls_from: CallsFrom = CallsFrom.ALL


@dataclass(frozen=True)
class WholeFiles:
    """Log files read whole, one after the other, in one pass (by one worker)."""

    files: tuple[str, ...]
    fmt: LogFormat | None
    """The format forced for every file; None: each file's is detected."""
    size: int
    """Bytes on disk (compressed, for gzip): what progress counts."""
    calls_from: CallsFrom = CallsFrom.ALL
    repeats: bool = False
    """One file whose calls may repeat those of earlier files (a request history): read
    apart from them only given the call ids they hold (``LogReader(seen=...)``), which the
    engines find by a shuffle (``auditor.engines.core.call_ids``)."""


@dataclass(frozen=True)
class ColumnarPart:
    """Consecutive row groups of a Parquet file (record batches of an Arrow IPC file), read
    apart from the rest (by a worker, or by the engine itself in record batches)."""

    file: str
    kind: Columnar
    groups: tuple[int, ...]
    """The row groups (record batches), in order; none for a file without rows."""
    first_row: int
    """The file's number of its first row (1: the file's first row)."""
    rows: int
    size: int
    """Bytes of its rows (uncompressed): what progress counts."""
    tool: str
    arguments: str
    """The columns its calls are read from, found (or given) once for the file."""
    types: str = ""
    """Their Arrow types, in words (``auditor.inputs.parquet.Layout``)."""


WorkItem: TypeAlias = LogPart | WholeFiles | ColumnarPart
"""What one worker reads apart from the rest; a log's items in order are the whole log."""


def work_items(
    files: Sequence[str],
    fmt: LogFormat | None,
    jobs: int,
    min_part_bytes: int,
    parts_per_job: int,
    limit: int = DEFAULT_MAX_RECORD_BYTES,
    calls_from: CallsFrom = CallsFrom.ALL,
    repeats_apart: bool = False,
    columns: Columns | None = None,
) -> list[WorkItem]:
    """``files`` as independent work items in log order, about ``parts_per_job`` for each of
    ``jobs`` workers: large plain files cut in byte ranges, gzip and small files whole (small
    ones batched together, in order). One item for all of them when any must be read in the
    same pass as the others (standard input, one JSON document, a format with repeats, or
    a file whose format is not recognized: the one-pass read reports it). With
    ``repeats_apart``, a file with repeats (or a document) is an item of its own instead
    (``WholeFiles.repeats``), for an engine that finds the repeats across files itself.
    With ``columns``, Parquet and Arrow IPC files are cut in runs of row groups
    (``ColumnarPart``), their calls read from those columns; without, they are read whole."""
    sizes = [os.path.getsize(file) if os.path.isfile(file) else 0 for file in files]
    whole = [WholeFiles(tuple(files), fmt, sum(sizes), calls_from)]
    target = max(min_part_bytes, sum(sizes) // max(1, jobs * parts_per_job))
    groups = [
        columnar_parts(file, fmt, columns, target) if columns is not None else None
        for file in files
    ]
    found = [
        None if grouped is not None else _independent(file, fmt, limit, calls_from)
        for file, grouped in zip(files, groups, strict=True)
    ]
    readable = [one for one, grouped in zip(found, groups, strict=True) if one or grouped]
    alone = [one is None and grouped is None for one, grouped in zip(found, groups, strict=True)]
    if len(readable) < len(files) and not (
        repeats_apart
        and all(
            grouped is not None or _recognized(file, fmt, limit)
            for file, grouped in zip(files, groups, strict=True)
        )
    ):
        return list(whole)
    items: list[WorkItem] = []
    batch: list[str] = []
    batched = 0
    for file, size, one, by_itself, grouped in zip(files, sizes, found, alone, groups, strict=True):
        plain = one is not None and one[1]
        count = min(jobs * parts_per_job, size // min_part_bytes)
        cut: Sequence[WorkItem] | None = grouped
        if cut is None and plain and count >= 2:
            cut = split(file, count, fmt, limit, calls_from)
        if cut is not None or by_itself or (batch and batched + size > target):
            if batch:
                items.append(WholeFiles(tuple(batch), fmt, batched, calls_from))
            batch, batched = [], 0
        if by_itself:
            items.append(WholeFiles((file,), fmt, size, calls_from, repeats=True))
            continue
        if cut is not None:
            items.extend(cut)
            continue
        batch.append(file)
        batched += size
    if batch:
        items.append(WholeFiles(tuple(batch), fmt, batched, calls_from))
    return items


def columnar_parts(
    file: str, fmt: LogFormat | None, columns: Columns, target: int
) -> list[ColumnarPart] | None:
    """A Parquet or Arrow IPC file (told by its magic bytes, its format not forced) as runs
    of consecutive row groups of about ``target`` bytes each (a row group is never cut),
    its calls read from ``columns``; None for any other file (an Arrow stream, a gzip or a
    text log, standard input) and for an Arrow file that breaks mid-way. ``LogFormatError``
    when its columns are not there."""
    if fmt is not None or file == STDIN or not os.path.isfile(file):
        return None
    with open(file, "rb") as stream:
        kind = columnar(stream.read(MAGIC_BYTES))
    if kind not in (Columnar.PARQUET, Columnar.ARROW):
        return None
    found = layout(file, kind, columns)
    if found is None:  # it breaks mid-way: read in one pass, which says where
        return None
    parts: list[ColumnarPart] = []
    run: list[int] = []
    first = row = 1
    size = 0
    for group, (rows, group_bytes) in enumerate(found.groups):
        if run and size + group_bytes > target:
            parts.append(_columnar_part(file, found, run, first, row - first, size))
            run, first, size = [], row, 0
        run.append(group)
        row += rows
        size += group_bytes
    parts.append(_columnar_part(file, found, run, first, row - first, size))
    return parts


def _columnar_part(
    file: str, found: Layout, groups: Sequence[int], first_row: int, rows: int, size: int
) -> ColumnarPart:
    return ColumnarPart(
        file,
        found.kind,
        tuple(groups),
        first_row,
        rows,
        size,
        found.tool,
        found.arguments,
        found.types,
    )


def _recognized(file: str, fmt: LogFormat | None, limit: int) -> bool:
    """Whether ``file`` is a file whose format is given or detected (not standard input,
    nor a pipe, nor a file the one-pass read must report), so that it can be read apart."""
    if file == STDIN or not os.path.isfile(file):
        return False
    if fmt is not None:
        return True
    with open_log(file) as stream:
        try:
            detect_format(records(bounded_lines(stream, limit), limit), display_name(file))
        except LogFormatError:
            return False
    return True


def _independent(
    file: str, fmt: LogFormat | None, limit: int, calls_from: CallsFrom = CallsFrom.ALL
) -> tuple[LogFormat, bool] | None:
    """The format of ``file`` and whether it is plain (not gzip), when its records can be
    read apart from other files' and from each other; None when it must be read in the one
    pass over all the logs (standard input, or a pipe: reading its head would consume it)."""
    if file == STDIN or not os.path.isfile(file):
        return None
    with open_log(file) as stream:
        try:
            framed = records(bounded_lines(stream, limit), limit)
            head, detected = detect_format(framed, display_name(file))
        except LogFormatError:
            return None  # the one-pass read reports it
        if any(isinstance(item, Record) and item.document for item in head):
            return None
        plain = isinstance(stream, io.BufferedReader)  # gzip is no BufferedReader: no seeking
    fmt = fmt or detected
    return (fmt, plain) if splittable(fmt, calls_from) else None


def split(
    file: str,
    parts: int,
    fmt: LogFormat | None,
    limit: int = DEFAULT_MAX_RECORD_BYTES,
    calls_from: CallsFrom = CallsFrom.ALL,
) -> list[LogPart] | None:
    """``file`` cut into about ``parts`` runs of whole lines, or None when it must be read
    in one pass (standard input, gzip, one JSON document, or a format with repeats)."""
    if parts < 2:
        return None
    found = _independent(file, fmt, limit, calls_from)
    if found is None or not found[1]:
        return None
    fmt = found[0]
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
        LogPart(file, start, end, line, fmt, calls_from=calls_from)
        for start, end, line in zip(starts, ends, lines, strict=True)
    ]


def spill(
    file: str,
    fmt: LogFormat,
    into: str,
    part_bytes: int,
    calls_from: CallsFrom = CallsFrom.ALL,
) -> Iterator[LogPart]:
    """A gzip log as parts of about ``part_bytes`` of its text, each written to a file of its
    own in the folder ``into`` as the log is decompressed (in blocks: a line of any length
    costs no more memory than a block), so that workers replay them while it goes on."""
    line = 1
    with open_log(file) as stream:
        for number in itertools.count():
            block = stream.read(part_bytes)
            if not block:
                return
            path = os.path.join(into, f"part-{number}")
            size = len(block)
            newlines = block.count(b"\n")
            with open(path, "wb") as out:
                out.write(block)
                while not block.endswith(b"\n"):  # end the part at the end of a line
                    block = stream.readline(1 << 20)
                    if not block:
                        break
                    out.write(block)
                    size += len(block)
                    newlines += block.count(b"\n")
            yield LogPart(file, 0, size, line, fmt, data=path, calls_from=calls_from)
            line += newlines


def spillable(item: WorkItem, fmt: LogFormat | None, limit: int) -> tuple[str, LogFormat] | None:
    """The gzip log and its format, when ``item`` is one gzip log of independent records."""
    if not isinstance(item, WholeFiles) or len(item.files) != 1:
        return None
    found = _independent(item.files[0], fmt, limit, item.calls_from)
    return None if found is None or found[1] else (item.files[0], found[0])


@contextmanager
def open_part(part: LogPart) -> Iterator[IO[bytes]]:
    """A binary stream of the lines of ``part``, ending where the part ends."""
    with open(part.data or part.file, "rb") as stream:
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
