"""Record framing: the lines of a log stream -> records, and the format of their file.

A file is read as JSON Lines, one record per line, unless its first non-blank line is a
lone ``{`` or ``[``: then the whole file is one pretty-printed JSON document (an OTLP
export, a saved response), one record at the line where it starts.

Framing accounts for every line by what it yields, never by writing to a shared counter:
a ``Record`` says how many lines and bytes it took (and how many of them were blank), and a
run of blank lines between records comes as a ``Blank``. A record that does not parse keeps
its reason (``problem``); the reader turns it into an ``unparseable`` call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple

import orjson

from auditor.inputs import log_shape_hints
from auditor.inputs.lines import Blank, Line, Overlong, Unreadable, finite_float, lone_surrogate
from auditor.inputs.log_files import LogFormatError, LogProblem
from auditor.inputs.log_formats import FORMATS, LogFormat, detect
from auditor.models import JSON, Location

MAX_RAW: Final = 500
"""Characters of an unparseable record kept for the report."""
DETECTION_WINDOW: Final = 10_000
"""Records read, at most, to recognize a file's format (they are kept, then replayed): a log
whose first records are broken is still read, and the broken ones are ``unparseable``."""
DETECTION_BYTES: Final = 16 * 1024 * 1024
"""Text of parsed records held, at most, while the format is not known yet (a broken record
is held by its first ``MAX_RAW`` characters only, which is all its report shows)."""
_BOM: Final = b"\xef\xbb\xbf"


class Record(NamedTuple):
    """One record of a log: a line, or the whole file as one document.

    A named tuple, frozen as a dataclass would be: one is made per line, and a frozen
    dataclass takes three times as long to make (0.9 against 0.3 µs)."""

    line: int
    text: str
    """The record's text, or a lossy decoding of it when it is not UTF-8."""
    value: JSON = None
    problem: str | None = None
    """Why the record does not parse."""
    document: bool = False
    """The whole file is this one record (pretty-printed JSON)."""
    lines: int = 1
    """Lines of the file the record took."""
    blank: int = 0
    """Of those, the blank ones (inside a document)."""
    size: int = 0
    """Bytes of the file the record took (uncompressed), newlines included but that of an
    over-long line (``Overlong`` does not say whether it had one): for progress reports."""


Framed = Record | Blank
"""What framing yields: a record, or a run of blank lines between records."""

_new_record = tuple.__new__
"""Makes a ``Record`` from all its fields in order: 80 ns, where ``Record(...)`` takes 250."""
_orjson_loads = orjson.loads


def records(lines: Iterator[Line], limit: int, first_line: int = 1) -> Iterator[Framed]:
    """The non-blank lines of a stream as records, or the whole stream as one document
    (when its first non-blank line is a lone bracket; later, such a line is a broken record).

    ``first_line`` is the number of the stream's first line (a part of a file starts later;
    only a stream starting at line 1 can be a document).
    """
    expect_document = first_line == 1
    number = first_line - 1
    for raw in lines:
        if isinstance(raw, Blank):  # a run of blank lines, skipped in bulk
            number += raw.count
            yield raw
            continue
        number += 1
        if not isinstance(raw, bytes):
            expect_document = False
            yield _unusable(number, raw)
            continue
        line = raw[3:] if number == 1 and raw.startswith(_BOM) else raw
        if not line or line.isspace():  # what ``not line.strip()`` says, without a copy
            yield Blank(1, len(raw))
            continue
        if expect_document and line.strip() in (b"{", b"["):
            yield _document(number, line, len(raw), lines, limit)
            return
        expect_document = False
        line = line.rstrip(b"\r\n")
        # Inline, the way most lines go (valid UTF-8, JSON orjson reads): what ``_record``
        # gives them, at a third of the cost; any other line takes ``_record``'s way.
        try:
            text = line.decode()
            value = _orjson_loads(text)
        except (UnicodeDecodeError, orjson.JSONDecodeError):
            yield _record(number, line, len(raw))
        else:
            yield _new_record(Record, (number, text, value, None, False, 1, 0, len(raw)))


def _unusable(number: int, line: Overlong | Unreadable) -> Record:
    """The record of a line too long to parse, or of the point where reading failed."""
    if isinstance(line, Unreadable):
        return Record(number, "", problem=_unreadable(line))
    return Record(
        number,
        line.head.decode("utf-8", "replace"),
        problem=f"line of {line.size:,} bytes is longer than --max-record-bytes: not parsed",
        size=line.size,
    )


def _unreadable(line: Unreadable) -> str:
    return f"the rest of the file cannot be read: {line.reason}"


def _document(number: int, first: bytes, read: int, lines: Iterator[Line], limit: int) -> Record:
    """The document that starts with ``first`` (``read`` bytes of the file, a byte-order mark
    included) and takes the rest of the stream; held only while it fits in ``limit``."""
    rest: list[bytes] = []
    size = len(first)
    count, blank = 1, 0
    failure: Overlong | Unreadable | None = None
    for raw in lines:
        if isinstance(raw, Blank):
            count += raw.count
            blank += raw.count
            read += raw.size
            size += raw.size
            if failure is None and size > limit:
                failure = Overlong(first[:2048], 0)
                rest = []
            if failure is None:
                rest.append(b"\n" * raw.count)  # lines count for positions; spaces do not
            continue
        count += 1
        if isinstance(raw, Unreadable):
            failure = raw
            continue
        length = raw.size if isinstance(raw, Overlong) else len(raw)
        read += length
        size += length
        if failure is None and (isinstance(raw, Overlong) or size > limit):
            failure = Overlong(first[:2048], 0)
            rest = []  # the document will not be parsed: stop holding it
        if isinstance(raw, bytes) and not raw.strip():
            blank += 1
        if failure is None and isinstance(raw, bytes):
            rest.append(raw)
    if failure is None:
        parsed = _record(number, first + b"".join(rest), read)
        return parsed._replace(document=True, lines=count, blank=blank)
    if isinstance(failure, Unreadable):
        text, problem = "", _unreadable(failure)
    else:
        text = first.decode("utf-8", "replace")
        problem = f"document of {size:,} bytes is longer than --max-record-bytes: not parsed"
    return Record(number, text, problem=problem, document=True, lines=count, blank=blank, size=read)


def _record(number: int, raw: bytes, size: int) -> Record:
    """The record of one line's (or document's) bytes, ``size`` bytes of the file."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        lossy = raw.decode("utf-8", "replace")
        return Record(number, lossy, problem=f"not UTF-8 ({error.reason})", size=size)
    value, problem = loads(text)
    if problem is not None:
        return Record(number, text, problem=f"not JSON: {problem}", size=size)
    return Record(number, text, value, size=size)


def detect_format(framed: Iterable[Framed], name: str) -> tuple[list[Framed], LogFormat]:
    """Read records until one is recognized; what was read is returned to be read again.

    ``LogFormatError`` when none of the first ``DETECTION_WINDOW`` records (or of those
    that fit in ``DETECTION_BYTES``) is in a known format.
    """
    head: list[Framed] = []
    count = held = 0
    first: Record | None = None  # the first record that parsed, for the error's hint
    for item in framed:
        if isinstance(item, Blank):
            head.append(item)
            continue
        count += 1
        if item.problem is None:
            head.append(item)
            if first is None:
                first = item
            fmt = detect(item.value)
            if fmt is not None:
                return head, fmt
            held += len(item.text)
        else:
            head.append(item._replace(text=item.text[: MAX_RAW + 1]))
        if count >= DETECTION_WINDOW or held > DETECTION_BYTES:
            break
    if not count:  # an empty log holds no calls in any format
        return head, LogFormat.JSONL
    tried = ", ".join(fmt.value for fmt in FORMATS)
    seen = "" if first is None else f": {log_shape_hints.describe(first.value)}"
    raise LogFormatError(
        LogProblem(
            Location(name),
            f"not a call log in a known format in its first "
            f"{'record' if count == 1 else f'{count:,} records'} "
            f"(tried: {tried}){seen}; use --log-format to force one",
        )
    )


def _reject_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


def loads(text: str) -> tuple[JSON, str | None]:
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
        value = json.loads(text, parse_constant=_reject_constant, parse_float=finite_float)
        if lone_surrogate(text, value):
            return None, "holds a \\u escape of half a surrogate pair, which is not Unicode text"
        return value, None
    except json.JSONDecodeError as error:
        # Some messages end in "at", expecting the position after them ("Unterminated string
        # starting at"): one "at" before the column either way.
        return None, f"{error.msg.removesuffix(' at')} at column {error.colno}"
    except ValueError as error:
        return None, str(error)
    except RecursionError:
        return None, "nested too deeply"
