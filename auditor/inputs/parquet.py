"""Columnar logs: Parquet and Arrow IPC files of one call per row, read with pyarrow, the
optional ``parquet`` extra.

A row is a call: a tool-name column and an arguments column (JSON text, or a struct, map or
list the row holds as a value). Their names are given (``Columns``, from ``--tool-column``
and ``--arguments-column``) or found among the names common exports use. The file is read in
record batches of the two columns only, so memory holds a batch, not the table.

Every row is accounted for as a line and a record of the file's ``LogStats``: a row whose
tool is null or empty holds no call (a span table's chat spans, say); a row with a tool and
null arguments is an ``unparseable`` call, as a JSON Lines record without arguments is. A
call's source is ``file#row``, row 1 being the first, as line 1 is. A file that breaks mid-way
ends with one more ``unparseable`` call saying so, as a truncated gzip log does.

The engines read a Parquet file's row groups (an Arrow IPC file's record batches) apart, as
parts (``layout``, ``group_batches``), and tally batches of rows the engine read itself
(``auditor.engines.core.audit_batch``): both turn rows into calls and count them here
(``row_calls``, ``RowCount``), as the one-pass read does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import IO, Any, Final

from auditor.inputs.columns import Columns
from auditor.inputs.limits import DEFAULT_MAX_RECORD_BYTES
from auditor.inputs.log_files import LogFormatError, LogProblem, display_name
from auditor.inputs.log_formats import ARGUMENT_KEYS, TOOL_KEYS
from auditor.inputs.otel_calls import ARGUMENTS as OTEL_ARGUMENTS
from auditor.inputs.otel_calls import TOOL as OTEL_TOOL
from auditor.inputs.records import MAX_RAW
from auditor.models import JSON, Call, Location, LogStats, Unparsed

EXTRA: Final = "pip install 'tool-schema-auditor[parquet]'"
TOOL_COLUMNS: Final = ("tool_name", OTEL_TOOL, *TOOL_KEYS)
"""Tool-name columns looked for, in order (an OTel span table's ``name`` is the span's: the
attribute comes first)."""
ARGUMENT_COLUMNS: Final = (ARGUMENT_KEYS[0], OTEL_ARGUMENTS, *ARGUMENT_KEYS[1:])
BATCH_ROWS: Final = 4_096
"""Rows read at a time."""


class Columnar(str, Enum):
    """The columnar containers read, by their magic bytes (the name is not trusted)."""

    PARQUET = "parquet"
    ARROW = "arrow"
    """An Arrow IPC file (Feather v2)."""
    ARROW_STREAM = "arrow-stream"
    """The Arrow IPC stream format: no footer, so it can come on standard input."""


_MAGIC: Final = (
    (b"PAR1", Columnar.PARQUET),
    (b"ARROW1\x00\x00", Columnar.ARROW),  # the magic and its padding to 8 bytes
    (b"\xff\xff\xff\xff", Columnar.ARROW_STREAM),
)
MAGIC_BYTES: Final = 8
"""Bytes to peek at to tell a columnar file (the longest magic)."""


def columnar(head: bytes) -> Columnar | None:
    """The columnar container whose magic bytes ``head`` starts with, if any."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    return None


class ColumnarLog:
    """The calls of one columnar log, read lazily; ``stats`` is complete once they are."""

    def __init__(
        self,
        name: str,
        stream: IO[bytes],
        kind: Columnar,
        columns: Columns | None = None,
        max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    ) -> None:
        self._name = name
        self._kind = kind
        self._batches, _, self._arguments = _open(name, stream, kind, columns or Columns())
        self._max = max_record_bytes
        self.stats = LogStats(name, kind.value)

    def __iter__(self) -> Iterator[Call]:
        counted = RowCount()
        try:
            yield from batches_calls(
                self._name, self._kind, self._batches, self._arguments, self._max, counted
            )
        finally:
            self.stats = counted.stats(self._name, self._kind)


@dataclass
class RowCount:
    """How the rows read so far of one columnar log (or a part of it) were accounted for;
    ``rows`` is also the number of the row before the next one, less the part's first."""

    first_row: int = 1
    """The file's number of the first row counted here (1: the file's first row)."""
    rows: int = 0
    without_calls: int = 0
    calls: int = 0

    def stats(self, name: str, kind: Columnar) -> LogStats:
        """The accounting of the rows counted, as a ``LogStats`` of the file (of this part
        of it: the parts' add up, ``LogStats.merge``)."""
        return LogStats(
            name,
            kind.value,
            lines=self.rows,
            records=self.rows,
            records_without_calls=self.without_calls,
            calls=self.calls,
        )

    def broken(self, name: str, kind: Columnar, error: BaseException) -> Call:
        """The row that stands for the rest of a log that cannot be read, counted as one
        more ``unparseable`` call (as a truncated gzip log ends)."""
        source = f"{name}#{self.first_row + self.rows}"
        self.rows += 1
        self.calls += 1
        return _unparsed(
            source,
            "<not shown: the rest of the file cannot be read>",
            f"the rest of the {kind.value} log cannot be read: {_reason(error)}",
        )


def batch_values(tools: Any, arguments: Any) -> tuple[list[Any], list[Any]]:
    """The Python values of a record batch's tool and arguments columns (maps as dicts);
    pyarrow's errors (a page that does not decode) are the caller's to report."""
    return tools.to_pylist(), arguments.to_pylist(maps_as_pydicts="strict")


def row_calls(
    name: str,
    counted: RowCount,
    tools: Sequence[Any],
    values: Sequence[Any],
    arguments: str,
    max_record_bytes: int,
) -> Iterator[Call]:
    """The calls of consecutive rows of log ``name`` (the tool's and arguments' values of
    each), the first being row ``counted.first_row + counted.rows``; each row is counted
    into ``counted``: a row whose tool is null or empty holds no call. ``arguments``: the
    arguments column's name, which a call without arguments names."""
    for tool, value in zip(tools, values, strict=True):
        counted.rows += 1
        if not isinstance(tool, str) or not tool:
            counted.without_calls += 1
            continue
        counted.calls += 1
        source = f"{name}#{counted.first_row + counted.rows - 1}"
        yield _call(source, tool, value, arguments, max_record_bytes)


def _call(source: str, tool: str, value: Any, arguments: str, max_record_bytes: int) -> Call:
    """The call of one row: its arguments JSON text (or UTF-8 bytes of it), or a struct, map
    or list value; null arguments, text that is too long and values JSON has no type for
    make it ``unparseable``."""
    from auditor.inputs.reader import call_from  # the reader imports this module

    if value is None:
        return _unparsed(source, "null", f"has no '{arguments}' (null)", tool)
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError as error:
            raw = value[:200].decode("utf-8", "backslashreplace")
            why = f"arguments are not UTF-8 text ({error.reason})"
            return _unparsed(source, raw, why, tool)
    if isinstance(value, str):
        if len(value) > max_record_bytes:
            return _unparsed(
                source,
                value[:200],
                f"arguments longer than {max_record_bytes:,} bytes (--max-record-bytes)",
                tool,
            )
        return call_from(source, tool, value)
    plain, problem = _json(value)
    if problem is not None:
        return _unparsed(source, repr(value)[:200], problem, tool)
    return call_from(source, tool, plain)


def _open(name: str, stream: IO[bytes], kind: Columnar, columns: Columns) -> tuple[Any, str, str]:
    """Record batches of the tool and arguments columns (in that order), and their names."""
    reader, schema = _opened(name, stream, kind)
    tool, arguments = found_columns(name, schema, columns)
    wanted = [tool, arguments]
    if kind is Columnar.PARQUET:
        return reader.iter_batches(BATCH_ROWS, columns=wanted), tool, arguments
    batches = (
        (reader.get_batch(i) for i in range(reader.num_record_batches))
        if kind is Columnar.ARROW
        else iter(reader)
    )
    return (batch.select(wanted) for batch in batches), tool, arguments


def _pyarrow(name: str, kind: Columnar) -> Any:
    """pyarrow, an optional extra: imported where a columnar log is read."""
    try:
        import pyarrow as pa
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise LogFormatError(
            LogProblem(
                Location(name), f"a {kind.value} log needs pyarrow, the parquet extra: {EXTRA}"
            )
        ) from None
    return pa


def _opened(name: str, stream: IO[bytes], kind: Columnar) -> tuple[Any, Any]:
    """A pyarrow reader of the log (a ``ParquetFile`` or an IPC reader) and its schema."""
    pa = _pyarrow(name, kind)
    try:
        if kind is Columnar.PARQUET:
            parquet = pa.parquet.ParquetFile(stream)
            return parquet, parquet.schema_arrow
        reader = (pa.ipc.open_file if kind is Columnar.ARROW else pa.ipc.open_stream)(stream)
        return reader, reader.schema
    except (pa.ArrowException, OSError, ValueError) as error:
        problem = f"cannot be read as {kind.value}: {_reason(error)}"
        raise LogFormatError(LogProblem(Location(name), problem)) from None


def found_columns(name: str, schema: Any, columns: Columns) -> tuple[str, str]:
    """The tool and arguments columns of a log of Arrow ``schema``: given, else found among
    the names common exports use; ``LogFormatError`` when one is missing or the tool column
    holds no text."""
    import pyarrow as pa

    names = list(schema.names)
    tool = _column(name, names, columns.tool, TOOL_COLUMNS, "--tool-column", "tool")
    arguments = _column(
        name, names, columns.arguments, ARGUMENT_COLUMNS, "--arguments-column", "arguments"
    )
    if not pa.types.is_string(schema.field(tool).type) and not pa.types.is_large_string(
        schema.field(tool).type
    ):
        problem = f"the tool column '{tool}' holds {schema.field(tool).type}, not strings"
        raise LogFormatError(LogProblem(Location(name), problem))
    return tool, arguments


@dataclass(frozen=True)
class Layout:
    """What a columnar file read in parts holds: its columns and its row groups (a Parquet
    file's, or an Arrow IPC file's record batches), each as (rows, bytes)."""

    kind: Columnar
    tool: str
    arguments: str
    groups: tuple[tuple[int, int], ...]
    types: str = ""
    """The Arrow types of the tool and arguments columns, in words: files alike in columns
    and types can be read by one scan (``auditor.engines.on_spark``)."""


def layout(file: str, kind: Columnar, columns: Columns) -> Layout | None:
    """The layout of the Parquet or Arrow IPC file ``file``, from its footer (no data is
    read: an Arrow file is memory-mapped); ``LogFormatError`` as reading it would raise.
    None when a record batch of an Arrow file cannot be read: the file breaks mid-way, which
    the one-pass read reports where it breaks."""
    name = display_name(file)
    pa = _pyarrow(name, kind)
    with pa.memory_map(file) as stream:
        reader, schema = _opened(name, stream, kind)
        tool, arguments = found_columns(name, schema, columns)
        if kind is Columnar.PARQUET:
            meta = reader.metadata
            groups = [meta.row_group(i) for i in range(meta.num_row_groups)]
            sizes = tuple((group.num_rows, group.total_byte_size) for group in groups)
        else:
            try:
                batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]
            except (pa.ArrowException, OSError, ValueError):
                return None
            sizes = tuple((batch.num_rows, batch.nbytes) for batch in batches)
    types = f"{schema.field(tool).type} {schema.field(arguments).type}"
    return Layout(kind, tool, arguments, sizes, types)


def group_batches(
    file: str, kind: Columnar, groups: Sequence[int], columns: Sequence[str]
) -> Iterator[Any]:
    """The record batches of ``columns`` of some row groups of a Parquet file (or record
    batches of an Arrow IPC file), in order."""
    name = display_name(file)
    pa = _pyarrow(name, kind)
    with pa.memory_map(file) as stream:
        reader, _ = _opened(name, stream, kind)
        if kind is Columnar.PARQUET:
            if groups:  # no row groups: pyarrow would read them all
                yield from reader.iter_batches(BATCH_ROWS, row_groups=list(groups), columns=columns)
            return
        for group in groups:
            yield reader.get_batch(group).select(list(columns))


def batches_calls(
    name: str,
    kind: Columnar,
    batches: Iterable[Any],
    arguments: str,
    max_record_bytes: int,
    counted: RowCount,
) -> Iterator[Call]:
    """The calls of record batches of the tool and arguments columns (in that order) of
    log ``name``, counted into ``counted``; a batch that cannot be read ends them with one
    more ``unparseable`` call saying so."""
    found = iter(batches)
    while True:
        try:
            batch = next(found, None)
            if batch is None:
                return
            tools, values = batch_values(batch.column(0), batch.column(1))
        except LogFormatError:
            # A part's worker opens the file itself: one without pyarrow, or that cannot open
            # it, must fail the run, not report the file broken (a misconfigured executor).
            raise
        except Exception as error:  # pyarrow's errors: a file that breaks mid-way
            yield counted.broken(name, kind, error)
            return
        yield from row_calls(name, counted, tools, values, arguments, max_record_bytes)


def _column(
    file: str, names: Sequence[str], given: str | None, common: Sequence[str], flag: str, what: str
) -> str:
    """The column ``given``, else the first of ``common`` the file has."""
    if given is not None:
        if given in names:
            return given
        problem = f"no column '{given}' ({flag}); its columns: {_listed(names)}"
        raise LogFormatError(LogProblem(Location(file), problem))
    for candidate in common:
        if candidate in names:
            return candidate
    problem = (
        f"no {what} column ({', '.join(common)}; name it with {flag}); "
        f"its columns: {_listed(names)}"
    )
    raise LogFormatError(LogProblem(Location(file), problem))


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(repr(name)[1:-1][:80] for name in names[:20])
    return shown + (f" and {len(names) - 20} more" if len(names) > 20 else "")


def _json(value: Any) -> tuple[JSON, str | None]:
    """A struct, map or list cell (maps read as dicts) as JSON; a value JSON has no type for
    (a timestamp, bytes, a decimal, NaN) is a problem."""
    if value is None or isinstance(value, (str, bool, int)):
        return value, None
    if isinstance(value, float):
        return (value, None) if math.isfinite(value) else (None, f"{value} is not a JSON number")
    if isinstance(value, list):
        converted: list[JSON] = []
        for item in value:
            plain, problem = _json(item)
            if problem is not None:
                return None, problem
            converted.append(plain)
        return converted, None
    if not isinstance(value, dict):
        return None, f"a {type(value).__name__} value, which JSON has no type for"
    found: dict[str, JSON] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            return None, f"a key of type {type(key).__name__}, not a string"
        plain, problem = _json(item)
        if problem is not None:
            return None, problem
        found[key] = plain
    return found, None


def _unparsed(source: str, raw: str, reason: str, tool: str | None = None) -> Call:
    clipped = raw if len(raw) <= MAX_RAW else raw[: MAX_RAW - 1] + "…"
    return Call(source, tool, None, Unparsed(clipped, reason))


def _reason(error: BaseException) -> str:
    return " ".join(str(error).split())[:300] or type(error).__name__
