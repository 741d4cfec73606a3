"""Call logs -> a lazy stream of Call records, each with its ``path:line``.

This module owns files, standard input (``-``), gzip, lines, format detection, dedupe and
accounting; what a record of each format holds is ``auditor.inputs.log_formats``' business.

Nothing is dropped: a blank line is counted as blank; a record that does not parse becomes
an ``unparseable`` call; a record that parses but holds no call is counted as such; a call
that repeats one already read (the same tool-call id, as request histories do) is counted
as repeated. A file whose first records match no format stops the run (``LogFormatError``).

A file is read as JSON Lines, one record per line, unless its first non-blank line is a
lone ``{`` or ``[``: then the whole file is one pretty-printed JSON document (an OTLP
export, a saved response), and each call is located at the line where it starts.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path
from typing import IO, Final, cast

import orjson

from auditor.inputs.limits import (
    DEFAULT_MAX_RECORD_BYTES,
    MAX_DECOMPRESSED_BYTES,
    MAX_NESTING,
    too_deep,
)
from auditor.inputs.lines import Blank, Line, Overlong, Unreadable, bounded_lines, lone_surrogate
from auditor.inputs.log_formats import (
    FORMATS,
    Found,
    LogFormat,
    answered,
    answers,
    describe,
    detect,
    extract,
    item_at,
)
from auditor.inputs.pairing import Pairing
from auditor.inputs.paths import shown, walk
from auditor.inputs.positions import key_positions
from auditor.models import JSON, Call, Evidence, LogStats, Unparsed
from auditor.schema import pointers

LOG_SUFFIXES: Final = (".jsonl", ".ndjson", ".json", ".log", ".gz")
STDIN: Final = "-"
"""The path that means standard input."""
STDIN_NAME: Final = "<stdin>"
"""How standard input is named in sources, statistics and messages."""
MAX_RAW: Final = 500
"""Characters of an unparseable record kept for the report."""
DETECTION_WINDOW: Final = 10_000
"""Records read, at most, to recognize a file's format (they are kept, then replayed): a log
whose first records are broken is still read, and the broken ones are ``unparseable``."""
DETECTION_BYTES: Final = 16 * 1024 * 1024
"""Text of parsed records held, at most, while the format is not known yet (a broken record
is held by its first ``MAX_RAW`` characters only, which is all its report shows)."""
_GZIP_MAGIC: Final = b"\x1f\x8b"


@dataclass(frozen=True)
class LogProblem:
    """Why a log input cannot be used; ``str()`` is the one-line message for the user."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class LogFormatError(Exception):
    """A log file in no known format (or not in the forced one), found while reading it."""

    def __init__(self, problem: LogProblem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def display_name(path: str) -> str:
    """The name a log goes by in sources and messages (a non-UTF-8 name escaped)."""
    return STDIN_NAME if path == STDIN else shown(path)


def log_files(path: str) -> tuple[list[str], list[LogProblem]]:
    """``path`` itself, or the log files below a directory in a stable order, with the
    entries there that cannot be read: a FIFO (opening it would wait forever for a writer),
    a broken link, an unreadable folder. A path given by name is the user's choice."""
    if path == STDIN or not Path(path).is_dir():
        return [path], []
    files, unreadable = walk(path, lambda name: name.lower().endswith(LOG_SUFFIXES))
    return files, [LogProblem(shown(entry), why) for entry, why in unreadable]


def check_logs(paths: Sequence[str]) -> tuple[list[str], list[LogProblem]]:
    """Every log file to read, and the inputs that cannot be read at all."""
    files: list[str] = []
    problems: list[LogProblem] = []
    for path in paths:
        found, unreadable = log_files(path)
        problems.extend(unreadable)
        if not found and not unreadable:
            problems.append(
                LogProblem(shown(path), "no log files (.jsonl, .ndjson, .json, .log, .gz)")
            )
        for file in found:
            if file == STDIN:  # read once, when its turn comes
                files.append(file)
                continue
            try:
                # Opened, not read: peeking would consume what a pipe holds.
                open(file, "rb").close()
            except FileNotFoundError:
                problems.append(LogProblem(shown(file), "no such file"))
            except OSError as error:
                problems.append(LogProblem(shown(file), f"cannot read: {error.strerror or error}"))
            else:
                files.append(file)
    return files, problems


@dataclass(frozen=True)
class LogPart:
    """A run of whole lines of one log file, read apart from the rest (by a worker)."""

    file: str
    start: int
    """Byte offset of its first line."""
    end: int
    first_line: int
    fmt: LogFormat


SPLITTABLE: Final = frozenset({LogFormat.JSONL, LogFormat.OTEL})
"""Formats whose records are independent: no call repeats one of an earlier record, nor is
answered by a later one (MCP replies are), so parts of a file can be read apart and their
counts added."""


def split(
    file: str, parts: int, fmt: LogFormat | None, limit: int = DEFAULT_MAX_RECORD_BYTES
) -> list[LogPart] | None:
    """``file`` cut into about ``parts`` runs of whole lines, or None when it must be read
    in one pass (standard input, gzip, one JSON document, or a format with repeats)."""
    if file == STDIN or parts < 2:
        return None
    with _open(file) as stream:
        if not isinstance(stream, io.BufferedReader):
            return None  # gzip: no seeking
        records = _records(bounded_lines(stream, limit), _Counts(), limit)
        try:
            head, detected = _detect(records, display_name(file))
        except LogFormatError:
            return None  # the one-pass read reports it
        if any(record.document for record in head):
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


def merge_stats(earlier: LogStats, later: LogStats) -> LogStats:
    """The accounting of two parts of one file, read apart."""
    return replace(
        earlier,
        lines=earlier.lines + later.lines,
        blank=earlier.blank + later.blank,
        calls=earlier.calls + later.calls,
        records=earlier.records + later.records,
        records_without_calls=earlier.records_without_calls + later.records_without_calls,
        repeated_calls=earlier.repeated_calls + later.repeated_calls,
    )


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


@dataclass(frozen=True)
class _Record:
    line: int
    text: str
    """The record's text, or a lossy decoding of it when it is not UTF-8."""
    value: JSON = None
    problem: str | None = None
    """Why the record does not parse."""
    document: bool = False
    """The whole file is this one record (pretty-printed JSON)."""


class LogReader:
    """Iterates the calls of several log files in order, accounting for every line.

    ``fmt`` forces one format for every file; otherwise each file's is detected from its
    first records. Memory does not grow with the logs beyond one record at a time and one
    8-byte digest per tool-call id (to count a call repeated in later histories once).
    """

    def __init__(
        self,
        files: Sequence[str],
        fmt: LogFormat | None = None,
        max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    ) -> None:
        self._files = tuple(files)
        self._fmt = fmt
        self._max_record_bytes = max_record_bytes
        self._stats = {file: _Counts() for file in self._files}
        self._seen: set[int] = set()

    def __iter__(self) -> Iterator[Call]:
        for file in self._files:
            yield from self._read(file)

    def stats(self) -> tuple[LogStats, ...]:
        """How each file's lines were accounted for (complete once iteration has ended)."""
        return tuple(
            LogStats(
                path=display_name(file),
                lines=counts.lines,
                blank=counts.blank,
                calls=counts.calls,
                format=counts.format,
                records=counts.records,
                records_without_calls=counts.records_without_calls,
                repeated_calls=counts.repeated_calls,
            )
            for file, counts in self._stats.items()
        )

    @property
    def bytes_read(self) -> int:
        """Bytes of log text read so far (uncompressed), for progress reports."""
        return sum(counts.bytes for counts in self._stats.values())

    def read_part(self, part: LogPart) -> Iterator[Call]:
        """The calls of one part of one file (of this reader's files), counted as such."""
        counts = self._stats[part.file]
        limit = self._max_record_bytes
        with open(part.file, "rb") as stream:
            stream.seek(part.start)
            lines = bounded_lines(cast(IO[bytes], _Range(stream, part.end)), limit)
            records = _records(lines, counts, limit, part.first_line)
            yield from self._calls_of(records, part.fmt, display_name(part.file), counts)

    def _read(self, file: str) -> Iterator[Call]:
        counts = self._stats[file]
        name = display_name(file)
        with _open(file) as stream:
            limit = self._max_record_bytes
            records = _records(bounded_lines(stream, limit), counts, limit)
            fmt = self._fmt
            if fmt is None:
                head, fmt = _detect(records, name)
                records = chain(head, records)
            yield from self._calls_of(records, fmt, name, counts)

    def _calls_of(
        self, records: Iterable[_Record], fmt: LogFormat, name: str, counts: _Counts
    ) -> Iterator[Call]:
        counts.format = fmt.value
        pairing = Pairing() if answered(fmt) else None
        for number, record in enumerate(records):
            counts.records += 1
            calls = self._calls(record, fmt, name)
            if not calls:
                counts.records_without_calls += 1
            for item in calls:
                if item is None:
                    counts.repeated_calls += 1
                    continue
                counts.calls += 1
                call, key = item
                if pairing is None:
                    yield call
                else:
                    pairing.add(call, key, number)
            if pairing is not None:
                if record.problem is None:
                    for answer in answers(fmt, record.value):
                        pairing.answer(answer)
                yield from pairing.ready(number)
        if pairing is not None:
            yield from pairing.rest()

    def _calls(
        self, record: _Record, fmt: LogFormat, name: str
    ) -> list[tuple[Call, str | None] | None]:
        """The calls of one record, with the key an answer would name each by; None stands
        for a call already read (a repeat)."""
        if record.problem is not None:
            return [(_unparsed(f"{name}:{record.line}", None, record.text, record.problem), None)]
        found = extract(fmt, record.value)
        positions = {}
        if record.document and found:
            # Pad with the lines before the document so that positions are file lines.
            positions = key_positions("\n" * (record.line - 1) + record.text)
        calls: list[tuple[Call, str | None] | None] = []
        for item in found:
            if item.call_id is not None and not self._first_sight(fmt, item.call_id):
                calls.append(None)
                continue
            line = (
                positions.get(pointers.from_segments(item.at), (record.line,))[0]
                if positions
                else record.line
            )
            source = f"{name}:{line}"
            if len(found) > 1:  # the position tells apart the calls of one record
                source += f"#{describe(item.at)}"
            calls.append((_call(item, record, source), item.answer_key))
        return calls

    def _first_sight(self, fmt: LogFormat, call_id: str) -> bool:
        digest = hashlib.blake2b(f"{fmt.value}\0{call_id}".encode(), digest_size=8).digest()
        key = int.from_bytes(digest, "big")
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


@dataclass
class _Counts:
    bytes: int = 0
    lines: int = 0
    blank: int = 0
    calls: int = 0
    format: str = ""
    records: int = 0
    records_without_calls: int = 0
    repeated_calls: int = 0


@contextmanager
def _open(file: str) -> Iterator[IO[bytes]]:
    """A binary stream of the file or of standard input, gunzipped when it is gzip data
    (recognized by its magic bytes, so a ``.gz`` name is not needed, nor trusted)."""
    stream: IO[bytes] = sys.stdin.buffer if file == STDIN else open(file, "rb")  # noqa: SIM115
    try:
        # Peeking keeps the bytes in the buffer: nothing is consumed to recognize gzip.
        peek = getattr(stream, "peek", None)
        head = peek(2)[:2] if peek is not None else b""
        if head == _GZIP_MAGIC:
            with gzip.GzipFile(fileobj=stream, mode="rb") as unzipped:
                yield cast(IO[bytes], _Capped(unzipped, MAX_DECOMPRESSED_BYTES))
        else:
            yield stream
    finally:
        if file != STDIN:
            stream.close()


class _Capped:
    """A decompressed stream that fails once more than ``cap`` bytes have come out of it, so
    a gzip bomb ends as one unreadable record (``bounded_lines`` reports the failure)."""

    def __init__(self, stream: gzip.GzipFile, cap: int) -> None:
        self._stream = stream
        self._cap = cap
        self._read = 0

    def _count(self, data: bytes) -> bytes:
        self._read += len(data)
        if self._read > self._cap:
            raise OSError(
                f"decompressed past {self._cap:,} bytes, the bound on one gzip log "
                "(decompress it outside and pipe it in to read it all)"
            )
        return data

    def readline(self, size: int = -1) -> bytes:
        return self._count(self._stream.readline(size))

    def read(self, size: int = -1) -> bytes:
        return self._count(self._stream.read(size))

    def peek(self, size: int = 0) -> bytes:
        return self._stream.peek(size)


def _records(
    lines: Iterator[Line], counts: _Counts, limit: int, first_line: int = 1
) -> Iterator[_Record]:
    """The non-blank lines of a stream as records, or the whole stream as one document
    (when its first non-blank line is a lone bracket; later, such a line is a broken record).
    """
    expect_document = first_line == 1
    number = first_line - 1
    for raw in lines:
        if isinstance(raw, Blank):  # a run of blank lines, skipped in bulk
            number += raw.count
            counts.lines += raw.count
            counts.blank += raw.count
            counts.bytes += raw.size
            continue
        number += 1
        counts.lines += 1
        if not isinstance(raw, bytes):
            counts.bytes += raw.size if isinstance(raw, Overlong) else 0
            expect_document = False
            yield _unusable(number, raw)
            continue
        counts.bytes += len(raw)
        line = raw[3:] if number == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
        if not line.strip():
            counts.blank += 1
            continue
        if expect_document and line.strip() in (b"{", b"["):
            yield _document(number, line, lines, counts, limit)
            return
        expect_document = False
        yield _record(number, line.rstrip(b"\r\n"))


def _unusable(number: int, line: Overlong | Unreadable) -> _Record:
    """The record of a line too long to parse, or of the point where reading failed."""
    if isinstance(line, Unreadable):
        return _Record(number, "", problem=f"the rest of the file cannot be read: {line.reason}")
    return _Record(
        number,
        line.head.decode("utf-8", "replace"),
        problem=f"line of {line.size:,} bytes is longer than --max-record-bytes: not parsed",
    )


def _document(
    number: int, first: bytes, lines: Iterator[Line], counts: _Counts, limit: int
) -> _Record:
    rest: list[bytes] = []
    size = len(first)
    failure: Overlong | Unreadable | None = None
    for raw in lines:
        if isinstance(raw, Blank):
            counts.lines += raw.count
            counts.blank += raw.count
            counts.bytes += raw.size
            size += raw.size
            if failure is None and size > limit:
                failure = Overlong(first[:2048], 0)
                rest = []
            if failure is None:
                rest.append(b"\n" * raw.count)  # lines count for positions; spaces do not
            continue
        counts.lines += 1
        if isinstance(raw, Unreadable):
            failure = raw
            continue
        counts.bytes += raw.size if isinstance(raw, Overlong) else len(raw)
        size += raw.size if isinstance(raw, Overlong) else len(raw)
        if failure is None and (isinstance(raw, Overlong) or size > limit):
            failure = Overlong(first[:2048], 0)
            rest = []  # the document will not be parsed: stop holding it
        if isinstance(raw, bytes) and not raw.strip():
            counts.blank += 1
        if failure is None and isinstance(raw, bytes):
            rest.append(raw)
    if isinstance(failure, Unreadable):
        return _Record(number, "", problem=f"the rest of the file cannot be read: {failure.reason}")
    if failure is not None:
        problem = f"document of {size:,} bytes is longer than --max-record-bytes: not parsed"
        return _Record(number, first.decode("utf-8", "replace"), problem=problem, document=True)
    record = _record(number, first + b"".join(rest))
    return _Record(number, record.text, record.value, record.problem, document=True)


def _record(number: int, raw: bytes) -> _Record:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return _Record(
            number, raw.decode("utf-8", "replace"), problem=f"not UTF-8 ({error.reason})"
        )
    value, problem = _loads(text)
    if problem is not None:
        return _Record(number, text, problem=f"not JSON: {problem}")
    return _Record(number, text, value)


def _detect(records: Iterator[_Record], name: str) -> tuple[list[_Record], LogFormat]:
    """Read records until one is recognized; they are returned to be read again."""
    head: list[_Record] = []
    held = 0
    for record in records:
        if record.problem is None:
            head.append(record)
            fmt = detect(record.value)
            if fmt is not None:
                return head, fmt
            held += len(record.text)
        else:
            head.append(replace(record, text=record.text[: MAX_RAW + 1]))
        if len(head) >= DETECTION_WINDOW or held > DETECTION_BYTES:
            break
    if not head:  # an empty log holds no calls in any format
        return head, LogFormat.JSONL
    tried = ", ".join(fmt.value for fmt in FORMATS)
    raise LogFormatError(
        LogProblem(
            name,
            f"not a call log in a known format in its first {len(head)} records "
            f"(tried: {tried}); use --log-format to force one",
        )
    )


def _call(item: Found, record: _Record, source: str) -> Call:
    """A found call with its arguments decoded; a problem becomes an ``Unparsed`` reason."""
    if item.problem is not None:
        raw = json.dumps(item_at(record.value, item.at)) if item.at else record.text
        return _unparsed(source, item.tool, raw, item.problem)
    return call_from(source, item.tool, item.arguments, item.evidence)


def call_from(
    source: str, tool: str | None, arguments: JSON, evidence: Evidence | None = None
) -> Call:
    """A call whose arguments, when a string, are JSON text to decode (as OpenAI logs them);
    text that does not decode is kept, with the reason, as an ``Unparsed`` call."""
    if isinstance(arguments, str):
        decoded, problem = _loads(arguments)
        if problem is not None:
            return _unparsed(source, tool, arguments, f"arguments are not valid JSON: {problem}")
        text, arguments = arguments, decoded
    else:
        text = None
    if too_deep(arguments, text=text):  # later stages recurse into arguments: bound it here
        raw = text if text is not None else "<not shown: nested too deeply>"
        return _unparsed(source, tool, raw, f"arguments nest more than {MAX_NESTING} levels deep")
    return Call(source, tool, arguments, text=text, evidence=evidence)


def _unparsed(source: str, tool: str | None, raw: str, reason: str) -> Call:
    clipped = raw if len(raw) <= MAX_RAW else raw[: MAX_RAW - 1] + "…"
    return Call(source, tool, None, Unparsed(clipped, reason))


def _reject_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    # A number past a float's range (1e400) would be read as infinity, which no strict JSON
    # report can hold: it is refused as NaN and Infinity are.
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise ValueError(f"number out of range: {shown}")
    return value


def _loads(text: str) -> tuple[JSON, str | None]:
    """Strict JSON: ``NaN`` and ``Infinity`` are refused, as JSON itself refuses them, and so
    is a number past a float's range (``1e400``), which would otherwise become infinity.

    orjson parses what it can (most of the time of a large audit is parsing); what it refuses
    (an integer beyond 64 bits, a number past a float's range, nesting past 1024 levels, a
    lone surrogate, or plain bad JSON) is parsed again by the json module, whose verdict and
    message are the reference.
    """
    try:
        return orjson.loads(text), None
    except orjson.JSONDecodeError:
        pass
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
        if lone_surrogate(text, value):
            return None, "holds a \\u escape of half a surrogate pair, which is not Unicode text"
        return value, None
    except json.JSONDecodeError as error:
        return None, f"{error.msg} at column {error.colno}"
    except ValueError as error:
        return None, str(error)
    except RecursionError:
        return None, "nested too deeply"
