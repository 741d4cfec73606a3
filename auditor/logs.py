"""Call logs -> a lazy stream of Call records, each with its ``path:line``.

This module owns files, standard input (``-``), gzip, lines, format detection, dedupe and
accounting; what a record of each format holds is ``auditor.log_formats``' business.

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
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path
from typing import IO, Final, cast

import orjson

from auditor import pointers
from auditor.log_formats import FORMATS, Found, LogFormat, describe, detect, extract, item_at
from auditor.models import JSON, Call, LogStats, Unparsed
from auditor.positions import key_positions

LOG_SUFFIXES: Final = (".jsonl", ".ndjson", ".json", ".log", ".gz")
STDIN: Final = "-"
"""The path that means standard input."""
STDIN_NAME: Final = "<stdin>"
"""How standard input is named in sources, statistics and messages."""
MAX_RAW: Final = 500
"""Characters of an unparseable record kept for the report."""
DETECTION_WINDOW: Final = 100
"""Records read, at most, to recognize a file's format (they are kept, then replayed)."""
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
    """The name a log goes by in sources and messages."""
    return STDIN_NAME if path == STDIN else path


def log_files(path: str) -> list[str]:
    """``path`` itself, or the log files below a directory in a stable order."""
    root = Path(path)
    if path != STDIN and root.is_dir():
        return [
            str(p)
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.name.lower().endswith(LOG_SUFFIXES)
        ]
    return [path]


def check_logs(paths: Sequence[str]) -> tuple[list[str], list[LogProblem]]:
    """Every log file to read, and the inputs that cannot be read at all."""
    files: list[str] = []
    problems: list[LogProblem] = []
    for path in paths:
        found = log_files(path)
        if not found:
            problems.append(LogProblem(path, "no log files (.jsonl, .ndjson, .json, .log, .gz)"))
        for file in found:
            if file == STDIN:  # read once, when its turn comes
                files.append(file)
                continue
            try:
                with _open(file):
                    pass
            except FileNotFoundError:
                problems.append(LogProblem(file, "no such file"))
            except OSError as error:
                problems.append(LogProblem(file, f"cannot read: {error.strerror or error}"))
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


SPLITTABLE: Final = frozenset({LogFormat.JSONL, LogFormat.MCP, LogFormat.OTEL})
"""Formats whose records are independent: no call repeats one of an earlier record, so parts
of a file can be read apart and their counts added."""


def split(file: str, parts: int, fmt: LogFormat | None) -> list[LogPart] | None:
    """``file`` cut into about ``parts`` runs of whole lines, or None when it must be read
    in one pass (standard input, gzip, one JSON document, or a format with repeats)."""
    if file == STDIN or parts < 2:
        return None
    with _open(file) as stream:
        if not isinstance(stream, io.BufferedReader):
            return None  # gzip: no seeking
        records = _records(stream, _Counts())
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
            stream.seek(size * k // parts)
            stream.readline()  # to the start of the next whole line
            if stream.tell() > starts[-1] and stream.tell() < size:
                starts.append(stream.tell())
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

    def __init__(self, files: Sequence[str], fmt: LogFormat | None = None) -> None:
        self._files = tuple(files)
        self._fmt = fmt
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
        with open(part.file, "rb") as stream:
            stream.seek(part.start)
            data = stream.read(part.end - part.start)
        counts = self._stats[part.file]
        records = _records(io.BytesIO(data), counts, part.first_line)
        yield from self._calls_of(records, part.fmt, display_name(part.file), counts)

    def _read(self, file: str) -> Iterator[Call]:
        counts = self._stats[file]
        name = display_name(file)
        with _open(file) as stream:
            records = _records(stream, counts)
            fmt = self._fmt
            if fmt is None:
                head, fmt = _detect(records, name)
                records = chain(head, records)
            yield from self._calls_of(records, fmt, name, counts)

    def _calls_of(
        self, records: Iterable[_Record], fmt: LogFormat, name: str, counts: _Counts
    ) -> Iterator[Call]:
        counts.format = fmt.value
        for record in records:
            counts.records += 1
            calls = self._calls(record, fmt, name)
            if not calls:
                counts.records_without_calls += 1
            for call in calls:
                if call is None:
                    counts.repeated_calls += 1
                else:
                    counts.calls += 1
                    yield call

    def _calls(self, record: _Record, fmt: LogFormat, name: str) -> list[Call | None]:
        """The calls of one record; None stands for a call already read (a repeat)."""
        if record.problem is not None:
            return [_unparsed(f"{name}:{record.line}", None, record.text, record.problem)]
        found = extract(fmt, record.value)
        positions = {}
        if record.document and found:
            # Pad with the lines before the document so that positions are file lines.
            positions = key_positions("\n" * (record.line - 1) + record.text)
        calls: list[Call | None] = []
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
            calls.append(_call(item, record, source))
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
                yield cast(IO[bytes], unzipped)
        else:
            yield stream
    finally:
        if file != STDIN:
            stream.close()


def _records(stream: IO[bytes], counts: _Counts, first_line: int = 1) -> Iterator[_Record]:
    """The non-blank lines of a stream as records, or the whole stream as one document
    (when its first non-blank line is a lone bracket; later, such a line is a broken record).
    """
    expect_document = first_line == 1
    for number, raw in enumerate(stream, start=first_line):
        counts.lines += 1
        counts.bytes += len(raw)
        line = raw[3:] if number == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
        if not line.strip():
            counts.blank += 1
            continue
        if expect_document and line.strip() in (b"{", b"["):
            yield _document(number, line, stream, counts)
            return
        expect_document = False
        yield _record(number, line.rstrip(b"\r\n"))


def _document(number: int, first: bytes, stream: IO[bytes], counts: _Counts) -> _Record:
    rest = []
    for raw in stream:
        counts.lines += 1
        counts.bytes += len(raw)
        if not raw.strip():
            counts.blank += 1
        rest.append(raw)
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
    for record in records:
        head.append(record)
        if record.problem is None:
            fmt = detect(record.value)
            if fmt is not None:
                return head, fmt
        if len(head) >= DETECTION_WINDOW:
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
    return call_from(source, item.tool, item.arguments)


def call_from(source: str, tool: str | None, arguments: JSON) -> Call:
    """A call whose arguments, when a string, are JSON text to decode (as OpenAI logs them);
    text that does not decode is kept, with the reason, as an ``Unparsed`` call."""
    if isinstance(arguments, str):
        decoded, problem = _loads(arguments)
        if problem is not None:
            return _unparsed(source, tool, arguments, f"arguments are not valid JSON: {problem}")
        return Call(source, tool, decoded, text=arguments)
    return Call(source, tool, arguments)


def _unparsed(source: str, tool: str | None, raw: str, reason: str) -> Call:
    clipped = raw if len(raw) <= MAX_RAW else raw[: MAX_RAW - 1] + "…"
    return Call(source, tool, None, Unparsed(clipped, reason))


def _reject_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


def _loads(text: str) -> tuple[JSON, str | None]:
    """Strict JSON: ``NaN`` and ``Infinity`` are refused, as JSON itself refuses them.

    orjson parses what it can (most of the time of a large audit is parsing); what it refuses
    (an integer beyond 64 bits, nesting past 1024 levels, a lone surrogate, or plain bad
    JSON) is parsed again by the json module, whose verdict and message are the reference.
    """
    try:
        return orjson.loads(text), None
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(text, parse_constant=_reject_constant), None
    except json.JSONDecodeError as error:
        return None, f"{error.msg} at column {error.colno}"
    except ValueError as error:
        return None, str(error)
    except RecursionError:
        return None, "nested too deeply"
