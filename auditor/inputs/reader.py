"""Call logs -> a lazy stream of Call records, each with its ``path:line``, and their stats.

The reader detects each file's format (unless one is forced), pairs calls with the replies
that answer them, counts a repeated call once, and accounts for every line of the framing
(``auditor.inputs.records``); what a record of each format holds is
``auditor.inputs.log_formats``' business.

Nothing is dropped: a blank line is counted as blank; a record that does not parse becomes
an ``unparseable`` call; a record that parses but holds no call is counted as such; a call
that repeats one already read (the same tool-call id, as request histories do) is counted
as repeated. A file whose first records match no format stops the run (``LogFormatError``).
A Parquet or Arrow file, recognized by its magic bytes, is read by ``auditor.inputs.parquet``.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from itertools import chain
from typing import IO, Protocol, runtime_checkable

from auditor import pointers
from auditor.inputs import payload_groups
from auditor.inputs.arguments import call_from, unparsed
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.columns import Columns
from auditor.inputs.limits import DEFAULT_MAX_RECORD_BYTES
from auditor.inputs.line_buffers import line_buffers
from auditor.inputs.lines import Blank, Line, Overlong, bounded_lines, unreadable
from auditor.inputs.log_files import display_name, open_log
from auditor.inputs.log_formats import (
    Found,
    LogFormat,
    answered,
    answers,
    caller_of,
    describe,
    extract,
    has_histories,
    item_at,
    jsonl_call,
    opens_sessions,
    session_caller,
)
from auditor.inputs.pairing import Pairing
from auditor.inputs.parquet import MAGIC_BYTES, Columnar, ColumnarLog, columnar
from auditor.inputs.parts import LogPart, open_part
from auditor.inputs.paths import STDIN
from auditor.inputs.payload_groups import ALONE, BLANK, group_payloads, split_known
from auditor.inputs.positions import key_positions
from auditor.inputs.records import Framed, Record, detect_format, records
from auditor.models import Call, LogStats, Payload

Reopen = Callable[[], AbstractContextManager[IO[bytes]]]
"""Opens a stream again from its start, to read on past a failure the ordinary way."""


@runtime_checkable
class BulkRepeats(Protocol):
    """Counts calls of payloads known accepted, one by one or a buffer's at once; structural,
    so that the reader needs nothing of the aggregate layer (``AcceptedRepeats`` is one)."""

    def repeat_aside(self, payload: Payload) -> bool:
        """Count one call of ``payload`` if it is known accepted; whether it was."""
        ...

    def known_mask(self, payloads: Sequence[Payload]) -> bytes:
        """One byte per payload: non-zero where its calls can be counted in bulk now."""
        ...

    def repeat_many(self, payloads: Sequence[Payload], counts: Mapping[int, int]) -> None:
        """Count ``counts[index]`` calls of ``payloads[index]``, each marked by ``known_mask``
        (nothing counted or replayed since), as ``repeat_aside`` would one by one."""
        ...


class LogReader:
    """Iterates the calls of several log files in order, accounting for every line.

    ``fmt`` forces one format for every file; otherwise each file's is detected from its
    first records. Memory does not grow with the logs beyond one record at a time and one
    8-byte digest per tool-call id (to count a call repeated in later histories once).
    With ``calls_from`` responses, the calls of request histories are not read at all
    (nor any digest kept), and replies are not paired with calls: what a record yields
    then depends on that record alone, so parts of a log can be read apart.

    ``known`` (``AcceptedRepeats.repeat_aside``) counts a call whose payload is known to be
    accepted, and says so: such a call of a generic JSON Lines record is only counted here,
    straight from the record's fields, without a ``Call``, its decoded arguments or its
    ``path:line`` (nothing of an accepted repeat is shown; see ``auditor.aggregate.repeats``).
    Given as a ``BulkRepeats`` (``AcceptedRepeats`` itself), it counts the known lines of a
    grouped buffer in one step, by group, with no Python work per line.
    """

    def __init__(
        self,
        files: Sequence[str],
        fmt: LogFormat | None = None,
        max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
        columns: Columns | None = None,
        calls_from: CallsFrom = CallsFrom.ALL,
        seen: Iterable[int] = (),
        known: Callable[[Payload], bool] | BulkRepeats | None = None,
    ) -> None:
        """``seen``: the call ids (``call_ids``) of earlier logs read apart from these,
        whose repeats here are counted as such, as one pass over all of them counts them.
        ``known``: a ``BulkRepeats`` also counts the known lines of a grouped buffer at once."""
        self._files = tuple(files)
        self._calls_from = calls_from
        self._fmt = fmt
        self._max_record_bytes = max_record_bytes
        self._columns = columns or Columns()
        self._stats = {file: LogStats(display_name(file)) for file in self._files}
        self._bytes = 0
        self._seen: set[int] = set(seen)
        self._bulk = known if isinstance(known, BulkRepeats) else None
        self._known = known.repeat_aside if isinstance(known, BulkRepeats) else known

    def __iter__(self) -> Iterator[Call]:
        for file in self._files:
            yield from self._read(file)

    def stats(self) -> tuple[LogStats, ...]:
        """How each file's lines were accounted for (complete once iteration has ended)."""
        return tuple(self._stats.values())

    def call_ids(self) -> set[int]:
        """The digests of the call ids read so far (and given as ``seen``)."""
        return self._seen

    @property
    def bytes_read(self) -> int:
        """Bytes of log text read so far (uncompressed), for progress reports."""
        return self._bytes

    def read_part(self, part: LogPart) -> Iterator[Call]:
        """The calls of one part of one file (of this reader's files), counted as such."""
        limit = self._max_record_bytes
        with open_part(part) as stream:
            framed = records(bounded_lines(stream, limit), limit, part.first_line)
            if not self._grouped_format(part.fmt, part.file):
                yield from self._calls_of(framed, part.fmt, part.file)
                return
            head, after = _head(framed, part.first_line)
            yield from self._calls_of(head, part.fmt, part.file)
            yield from self._grouped(stream, part.fmt, part.file, after, lambda: open_part(part))

    def _read(self, file: str) -> Iterator[Call]:
        with open_log(file) as stream:
            peek = getattr(stream, "peek", None)
            # A log whose text format is given is text, whatever its first bytes say.
            limit = self._max_record_bytes
            lines: Iterator[Line] | None = None
            try:
                sniffed = peek(MAGIC_BYTES) if peek is not None and self._fmt is None else None
            except (OSError, EOFError, zlib.error) as error:
                # A truncated gzip, say: read as a file whose first line cannot be read.
                sniffed, lines = None, iter([unreadable(error)])
            kind = columnar(sniffed[:MAGIC_BYTES]) if sniffed is not None else None
            if kind is not None:
                yield from self._columnar(file, stream, kind)
                return
            if lines is None:
                lines = bounded_lines(stream, limit)
            framed: Iterable[Framed] = records(lines, limit)
            fmt = self._fmt
            head: list[Framed] = []
            if fmt is None:
                head, fmt = detect_format(framed, display_name(file))
            if not self._grouped_format(fmt, file):
                yield from self._calls_of(chain(head, framed), fmt, file)
                return
            # Past the first record (which may open a document), the lines go grouped.
            if self._fmt is None:  # detection read up to a record
                after = 1 + sum(_lines_of(item) for item in head)
            else:
                head, after = _head(framed, 1)
            yield from self._calls_of(head, fmt, file)
            yield from self._grouped(stream, fmt, file, after, lambda: open_log(file))

    def _grouped_format(self, fmt: LogFormat, file: str) -> bool:
        """Whether the lines of ``file`` in ``fmt`` are read grouped by payload: generic JSON
        Lines, whose records depend on no other (no sessions, answers nor call ids), from a
        file that can be opened again (not standard input), where grouping pays."""
        return fmt is LogFormat.JSONL and file != STDIN and payload_groups.pays()

    def _grouped(
        self, stream: IO[bytes], fmt: LogFormat, file: str, first_line: int, reopen: Reopen
    ) -> Iterator[Call]:
        """The calls of the rest of ``stream``, from line ``first_line``, read in buffers
        grouped by payload (``auditor.inputs.payload_groups``): the line of each group is
        decoded once, and a line whose payload ``known`` counts makes no object at all. Every
        other line (one the grouping does not vouch for) is read as ``_calls_of`` reads it;
        so are the lines after a failing read, from a stream opened again (``reopen``)."""
        name = display_name(file)
        limit = self._max_record_bytes
        known, bulk = self._known, self._bulk
        number = first_line  # of the next line not read yet
        lines = blank = 0
        buffers = line_buffers(stream, limit)
        failed = False
        try:
            while True:
                try:
                    buffer = next(buffers, None)
                except (OSError, EOFError, zlib.error):
                    failed = True
                    break
                if buffer is None:
                    break
                if isinstance(buffer, Overlong):
                    self._bytes += buffer.size
                    lines += 1
                    number += 1
                    yield from self._alone(buffer, number - 1, fmt, name)
                    continue
                self._bytes += len(buffer)
                if buffer and not buffer.strip(b" \t\r\n"):
                    # A buffer of blank lines only (a hostile log holds 100 MiB of them) is
                    # counted in bulk: a loop over its ids costs seconds, more under a tracer.
                    count = buffer.count(b"\n") + (not buffer.endswith(b"\n"))
                    blank += count
                    lines += count
                    number += count
                    continue
                ids, tools, texts, alone = group_payloads(buffer, not buffer.endswith(b"\n"), limit)
                unvouched = iter(alone)
                payloads: list[Payload] = [
                    (tool, text, None) for tool, text in zip(tools, texts, strict=True)
                ]
                view = memoryview(ids).cast("I")
                indices: Iterable[int] = range(len(view))
                if bulk is not None:
                    # The lines of payloads known accepted are counted per group, in C where
                    # it is built; Python reads the others only (10% of a log of repeats).
                    counts, others, blanks = split_known(ids, bulk.known_mask(payloads))
                    bulk.repeat_many(payloads, counts)
                    indices = memoryview(others).cast("I")
                    # The whole buffer is accounted for now, as its known calls are counted.
                    lines += len(view)
                    blank += blanks
                offset = -1
                try:
                    for offset in indices:
                        group = view[offset]
                        if group == BLANK:
                            blank += 1
                            continue
                        if group == ALONE:
                            yield from self._alone(next(unvouched), number + offset, fmt, name)
                            continue
                        payload = payloads[group]
                        if known is not None and known(payload):
                            continue
                        # Made anew, as line by line: a call kept per group would hold every
                        # decoded payload of the buffer (+100 MiB measured) for the collector
                        # to walk.
                        yield call_from(f"{name}:{number + offset}", payload[0], payload[1])
                finally:
                    if bulk is None:
                        lines += offset + 1
                        number += offset + 1
                    else:
                        number += len(view)
        finally:
            # Every line of generic JSON Lines is one record and one call.
            calls = lines - blank
            counted = LogStats(name, fmt.value, lines, blank, calls, calls=calls)
            self._stats[file] = counted.merge(self._stats[file])
        if failed:
            with reopen() as again:
                rest = records(_after(bounded_lines(again, limit), number - 1), limit, number)
                yield from self._calls_of(rest, fmt, file)

    def _alone(
        self, line: bytes | Overlong, number: int, fmt: LogFormat, name: str
    ) -> Iterator[Call]:
        """The call of one line the grouping left to the reader, as ``_calls_of`` makes it."""
        item: Line = line
        if isinstance(line, bytes):
            ended = line.endswith(b"\n")
            if len(line) - ended > self._max_record_bytes:
                item = Overlong(line[:_HEAD_BYTES], len(line) - ended)
        for record in records(iter([item]), self._max_record_bytes, number):
            assert isinstance(record, Record)  # a line the grouping left alone is not blank
            if record.problem is None and not record.document:
                short = jsonl_call(record.value)
                if short is not None:
                    tool, text = short
                    if self._known is None or not self._known((tool, text, None)):
                        who = caller_of(fmt, record.value)
                        yield call_from(f"{name}:{record.line}", tool, text, None, who)
                    return
            for one in self._calls(record, fmt, name):
                assert one is not None  # no call of generic JSON Lines repeats another
                yield one[0]

    def _columnar(self, file: str, stream: IO[bytes], kind: Columnar) -> Iterator[Call]:
        """The calls of a Parquet or Arrow log, counted into its stats however the pass ends."""
        log = ColumnarLog(display_name(file), stream, kind, self._columns, self._max_record_bytes)
        try:
            yield from log
        finally:
            self._stats[file] = log.stats.merge(self._stats[file])

    def _calls_of(self, framed: Iterable[Framed], fmt: LogFormat, file: str) -> Iterator[Call]:
        """The calls of one pass over ``file`` (the whole of it, or a part), counted into
        its stats when the pass ends, however it ends."""
        name = display_name(file)
        lines = blank = records_read = without_calls = repeated = calls = 0
        responses_only = self._responses_only(fmt)
        pairing = Pairing() if answered(fmt) and not responses_only else None
        session: str | None = None  # the caller an MCP initialize named, for what follows
        sessions = opens_sessions(fmt)
        known = self._known
        jsonl = fmt is LogFormat.JSONL  # no sessions, answers, call ids nor histories
        try:
            for item in framed:
                self._bytes += item.size
                if isinstance(item, Blank):
                    lines += item.count
                    blank += item.count
                    continue
                lines += item.lines
                blank += item.blank
                number = records_read
                records_read += 1
                if jsonl and item.problem is None and not item.document:
                    # The short way: one call, named by its line (what ``_calls`` gives it).
                    short = jsonl_call(item.value)
                    if short is not None:
                        calls += 1
                        tool, text = short
                        if known is None or not known((tool, text, None)):
                            who = caller_of(fmt, item.value)
                            yield call_from(f"{name}:{item.line}", tool, text, None, who)
                        continue
                if sessions and item.problem is None:
                    session = session_caller(fmt, item.value) or session
                found = self._calls(item, fmt, name, session, responses_only)
                if not found:
                    without_calls += 1
                for one in found:
                    if one is None:
                        repeated += 1
                        continue
                    calls += 1
                    call, key = one
                    if pairing is None:
                        yield call
                    else:
                        pairing.add(call, key, number)
                if pairing is not None:
                    if item.problem is None:
                        for answer in answers(fmt, item.value):
                            pairing.answer(answer)
                    yield from pairing.ready(number)
            if pairing is not None:
                yield from pairing.rest()
        finally:
            counted = LogStats(
                name,
                fmt.value,
                lines=lines,
                blank=blank,
                records=records_read,
                records_without_calls=without_calls,
                repeated_calls=repeated,
                calls=calls,
            )
            self._stats[file] = counted.merge(self._stats[file])

    def _responses_only(self, fmt: LogFormat) -> bool:
        """Whether only the response side of ``fmt``'s records is read (``--calls-from``)."""
        return self._calls_from is CallsFrom.RESPONSES and has_histories(fmt)

    def _calls(
        self,
        record: Record,
        fmt: LogFormat,
        name: str,
        session: str | None = None,
        responses_only: bool = False,
    ) -> list[tuple[Call, str | None] | None]:
        """The calls of one record, with the key an answer would name each by; None stands
        for a call already read (a repeat). ``session``: the caller of calls that name none.
        ``responses_only``: the response's calls alone, which never repeat (no dedupe)."""
        if record.problem is not None:
            return [(unparsed(f"{name}:{record.line}", None, record.text, record.problem), None)]
        found = extract(fmt, record.value, responses_only)
        caller = (caller_of(fmt, record.value) or session) if found else None
        positions = {}
        if record.document and found:
            # Pad with the lines before the document so that positions are file lines.
            positions = key_positions("\n" * (record.line - 1) + record.text)
        calls: list[tuple[Call, str | None] | None] = []
        for item in found:
            if (
                item.call_id is not None
                and not responses_only
                and not self._first_sight(fmt, item.call_id)
            ):
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
            who = item.caller or caller or None  # an empty name names nobody, as before
            calls.append((_call(item, record, source, who), item.answer_key))
        return calls

    def _first_sight(self, fmt: LogFormat, call_id: str) -> bool:
        digest = hashlib.blake2b(f"{fmt.value}\0{call_id}".encode(), digest_size=8).digest()
        key = int.from_bytes(digest, "big")
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


_HEAD_BYTES = 2_048
"""Bytes of an over-long line kept to show in the report, as ``bounded_lines`` keeps them."""


def _head(framed: Iterable[Framed], first_line: int) -> tuple[list[Framed], int]:
    """The items of ``framed`` up to its first record (which may be a whole document), and
    the number of the line after them."""
    head: list[Framed] = []
    after = first_line
    for item in framed:
        head.append(item)
        after += _lines_of(item)
        if not isinstance(item, Blank):
            break
    return head, after


def _lines_of(item: Framed) -> int:
    return item.count if isinstance(item, Blank) else item.lines


def _after(lines: Iterator[Line], skip: int) -> Iterator[Line]:
    """``lines`` without their first ``skip`` lines (a run of blank lines cut where they end)."""
    for line in lines:
        if skip <= 0:
            yield line
        elif isinstance(line, Blank):
            if line.count > skip:
                yield Blank(line.count - skip, 0)
            skip -= line.count
        else:
            skip -= 1


def _call(item: Found, record: Record, source: str, caller: str | None) -> Call:
    """A found call with its arguments decoded; a problem becomes an ``Unparsed`` reason."""
    if item.problem is not None:
        raw = json.dumps(item_at(record.value, item.at)) if item.at else record.text
        return unparsed(source, item.tool, raw, item.problem, caller)
    return call_from(source, item.tool, item.arguments, item.evidence, caller)
