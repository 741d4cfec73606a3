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

The file is hostile input, and pyarrow trusts what it reads: so every record batch is
validated in full (``validate``: offsets, indices, UTF-8, as ``RecordBatch.validate(full=True)``
does, a shared dictionary once) before any value is used, and a batch that fails is one
``unparseable`` record standing for its rows. Sizes are checked before values are built:
each row's size is measured on the Arrow arrays (``row_bytes``) against
``--max-record-bytes`` before a Python value of it exists. A Parquet row group is read in
batches sized by what it takes once read (``group_size``: its footer's figures, and its
dictionary pages' longest value for every value that may refer to one, which a few hundred
bytes of a file can make gigabytes), and one that would take more than its rows may is not
read.

The engines read a Parquet file's row groups (an Arrow IPC file's record batches) apart, as
parts (``layout``, ``group_batches``), and tally batches of rows the engine read itself
(``auditor.engines.core.audit_batch``): both turn rows into calls and count them here
(``batches_calls``, ``RowCount``), as the one-pass read does, with the same checks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import IO, Any, Final

from auditor.inputs.arguments import call_from
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
"""Most rows read at a time."""
BATCH_BYTES: Final = 64 * 1024 * 1024
"""What a Parquet batch is sized for: the rows of a row group whose footer says they take
about this much once read (``group_batch_rows``), 1 to ``BATCH_ROWS`` of them."""
GROUP_ALLOWANCE: Final = 64 * 1024 * 1024
"""What a Parquet row group may take once read beyond ``--max-record-bytes`` for each of its
rows (``readable_group``)."""
VALUE_BYTES: Final = 16
"""Bytes a Parquet value may take once read beyond what its page holds: a dictionary index
or a run of repeated values takes next to nothing in a page and 8 bytes (an offset, an int64,
levels) in memory."""
SLICE_BYTES: Final = 16 * 1024 * 1024
"""Most bytes of rows turned into Python values at once (a larger row goes alone)."""
THRIFT_STRING_LIMIT: Final = 16 * 1024 * 1024
"""Longest string a Parquet footer may hold (statistics, key-value metadata)."""
THRIFT_CONTAINER_LIMIT: Final = 1_000_000
"""Most items of one list in a Parquet footer (row groups, columns)."""
READ_BUFFER: Final = 1024 * 1024
"""Bytes of a Parquet column chunk read at a time (not the whole chunk: ``pre_buffer``)."""
_TEXT_TYPES: Final = frozenset({"STRING", "NONE", "JSON", "ENUM", "BSON"})
"""Logical types of the Parquet BYTE_ARRAY leaves read as dictionaries (not decimals)."""


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
        self._max = max_record_bytes
        self._batches, self._arguments = _open(
            name, stream, kind, columns or Columns(), max_record_bytes
        )
        self.stats = LogStats(name, kind.value)

    def __iter__(self) -> Iterator[Call]:
        counted = RowCount()
        try:
            yield from batches_calls(
                self._name, self._kind, self._batches, self._arguments, self._max, counted
            )
        finally:
            self.stats = counted.stats(self._name, self._kind)


@dataclass(frozen=True)
class Unreadable:
    """Consecutive rows of a columnar log that are not read (a Parquet row group too large
    for the bounds, or the rest of one that does not decode): one ``unparseable`` record
    stands for them."""

    rows: int
    reason: str


@dataclass
class RowCount:
    """How the rows read so far of one columnar log (or a part of it) were accounted for;
    ``rows`` is also the number of the row before the next one, less the part's first."""

    first_row: int = 1
    """The file's number of the first row counted here (1: the file's first row)."""
    rows: int = 0
    records: int = 0
    """Rows, but for rows not read, which are one record for each run of them."""
    without_calls: int = 0
    calls: int = 0

    def stats(self, name: str, kind: Columnar) -> LogStats:
        """The accounting of the rows counted, as a ``LogStats`` of the file (of this part
        of it: the parts' add up, ``LogStats.merge``)."""
        return LogStats(
            name,
            kind.value,
            lines=self.rows,
            records=self.records,
            records_without_calls=self.without_calls,
            calls=self.calls,
        )

    def broken(self, name: str, kind: Columnar, error: BaseException) -> Call:
        """The row that stands for the rest of a log that cannot be read, counted as one
        more ``unparseable`` call (as a truncated gzip log ends)."""
        return self.unread(
            name,
            1,
            "<not shown: the rest of the file cannot be read>",
            f"the rest of the {kind.value} log cannot be read: {_reason(error)}",
        )

    def unread(self, name: str, rows: int, raw: str, reason: str) -> Call:
        """The ``unparseable`` record that stands for the next ``rows`` rows, not read."""
        source = f"{name}#{self.first_row + self.rows}"
        self.rows += rows
        self.records += 1
        self.calls += 1
        return _unparsed(source, raw, reason)

    def row(self, name: str) -> str:
        """Counts one more row read as a record; its source (``file#row``)."""
        self.rows += 1
        self.records += 1
        return f"{name}#{self.first_row + self.rows - 1}"


def batch_values(tools: Any, arguments: Any) -> tuple[list[Any], list[Any]]:
    """The Python values of a record batch's tool and arguments columns (maps as dicts);
    pyarrow's errors (a value Python cannot hold) are the caller's to report."""
    return tools.to_pylist(), arguments.to_pylist(maps_as_pydicts="strict")


def batches_calls(
    name: str,
    kind: Columnar,
    batches: Iterable[Any],
    arguments: str,
    max_record_bytes: int,
    counted: RowCount,
) -> Iterator[Call]:
    """The calls of record batches of the tool and arguments columns (in that order) of
    log ``name``, counted into ``counted``: each batch validated in full first, each row
    measured against ``max_record_bytes`` before its values are built. ``Unreadable`` rows
    among the batches are one ``unparseable`` record each; a batch that cannot be read at
    all ends them with one more ``unparseable`` call saying so."""
    found = iter(batches)
    dictionaries: dict[int, Any] = {}  # the dictionaries validated (validate)
    while True:
        try:
            batch = next(found, None)
        except LogFormatError:
            # A part's worker opens the file itself: one without pyarrow, or that cannot open
            # it, must fail the run, not report the file broken (a misconfigured executor).
            raise
        except Exception as error:  # pyarrow's errors: a file that breaks mid-way
            yield counted.broken(name, kind, error)
            return
        if batch is None:
            return
        if isinstance(batch, Unreadable):
            yield counted.unread(name, batch.rows, _not_read(batch.rows), batch.reason)
            continue
        if isinstance(batch, Validated):
            yield from _batch_calls(name, batch.batch, arguments, max_record_bytes, counted)
            continue
        problem = _invalid(batch, dictionaries)
        if problem is not None:
            reason = f"{_rows(counted, batch.num_rows)} are not valid Arrow data: {problem}"
            yield counted.unread(name, batch.num_rows, _not_read(batch.num_rows), reason)
            continue
        yield from _batch_calls(name, batch, arguments, max_record_bytes, counted)


def _invalid(batch: Any, dictionaries: dict[int, Any]) -> str | None:
    """Why a record batch is not valid (``validate``), or None."""
    import pyarrow as pa

    try:
        validate(batch, dictionaries)
    except pa.ArrowException as error:
        return _reason(error)
    return None


def _batch_calls(
    name: str, batch: Any, arguments: str, max_record_bytes: int, counted: RowCount
) -> Iterator[Call]:
    """The calls of one valid record batch, row by row."""
    tools, values = batch.column(0), batch.column(1)
    tool_sizes = _sizes(tools, len(tools), nulls=True)
    sizes = [
        (tool or 0) + size
        for tool, size in zip(tool_sizes, _sizes(values, len(values)), strict=True)
    ]
    start = 0
    while start < len(sizes):
        if not tool_sizes[start]:  # null or empty: no call, nothing to build
            end = start + 1
            while end < len(sizes) and not tool_sizes[end]:
                end += 1
            counted.without_calls += end - start
            for _ in range(start, end):
                counted.row(name)
        elif sizes[start] > max_record_bytes:
            end = start + 1
            yield _too_long(name, counted, tools, values, start, sizes[start])
        else:
            end = _slice_end(start, tool_sizes, sizes, max_record_bytes)
            yield from _rows_calls(name, counted, tools, values, start, end, arguments)
        start = end


def validate(batch: Any, dictionaries: dict[int, Any], growing: bool = False) -> None:
    """Validates a record batch in full (offsets, indices, UTF-8: pyarrow trusts them), as
    ``RecordBatch.validate(full=True)`` does, but for the dictionaries of its dictionary
    columns already validated, which ``dictionaries`` holds by column (held: so that their
    buffers cannot become another's): every batch of an Arrow file or stream shares them,
    and would validate them again. ``growing``: batches of one Parquet row group, whose
    dictionary pyarrow grows with each batch (new entries after the old: only those are
    validated). ``ArrowInvalid`` when the batch is not valid."""
    import pyarrow as pa
    import pyarrow.compute as pc

    batch.validate()  # the shape: every column as long as the batch, buffers large enough
    for number, column in enumerate(batch.columns):
        if not pa.types.is_dictionary(column.type):
            column.validate(full=True)
            continue
        indices, dictionary = column.indices, column.dictionary
        indices.validate(full=True)
        known = dictionaries.get(number)
        if growing and known is not None and len(known) <= len(dictionary):
            dictionary.slice(len(known)).validate(full=True)
            dictionaries[number] = dictionary
        elif known is None or _buffers(known) != _buffers(dictionary):
            dictionary.validate(full=True)
            dictionaries[number] = dictionary
        low, high = pc.min_max(indices).values()
        if low.is_valid and (low.as_py() < 0 or high.as_py() >= len(dictionary)):
            raise pa.ArrowInvalid(
                f"In column {number}: dictionary index {high.as_py()} or {low.as_py()} out of "
                f"bounds of a dictionary of {len(dictionary)}"
            )


@dataclass(frozen=True)
class Validated:
    """A record batch already validated (``validate``) where it was read."""

    batch: Any


def _buffers(array: Any) -> tuple[Any, ...]:
    """What tells an array's data apart from another's (of arrays held alive)."""
    found = tuple((buffer.address, buffer.size) if buffer else None for buffer in array.buffers())
    return (str(array.type), array.offset, len(array), *found)


def _slice_end(
    start: int, tool_sizes: Sequence[int | None], sizes: Sequence[int], max_record_bytes: int
) -> int:
    """The end of the rows from ``start`` that hold calls within the bound, up to
    ``SLICE_BYTES`` of them together (the first row at least)."""
    end, total = start + 1, sizes[start]
    while (
        end < len(sizes)
        and tool_sizes[end]
        and sizes[end] <= max_record_bytes
        and total + sizes[end] <= SLICE_BYTES
    ):
        total += sizes[end]
        end += 1
    return end


def _rows_calls(
    name: str,
    counted: RowCount,
    tools: Any,
    values: Any,
    start: int,
    end: int,
    arguments: str,
) -> Iterator[Call]:
    """The calls of rows ``start`` to ``end`` of a batch, each with a tool and within the
    bound."""
    for tool, value in _values(tools, values, start, end):
        counted.rows += 1  # counted.row, inline: this is the loop over every row
        counted.records += 1
        counted.calls += 1
        source = f"{name}#{counted.first_row + counted.rows - 1}"
        if isinstance(value, BaseException):
            why = f"a value Python cannot hold: {_reason(value)}"
            yield _unparsed(source, "<not shown>", why, tool)
        else:
            yield _call(source, tool, value, arguments)


def _values(tools: Any, values: Any, start: int, end: int) -> list[tuple[Any, Any]]:
    """The Python values of rows ``start`` to ``end``: (tool, arguments), the arguments an
    exception for a row whose value Python cannot hold (a date past the year 9999)."""
    try:
        found_tools, found_values = batch_values(
            tools.slice(start, end - start), values.slice(start, end - start)
        )
        return list(zip(found_tools, found_values, strict=True))
    except Exception:  # pyarrow's or Python's: find the row, one at a time
        pass
    found: list[tuple[Any, Any]] = []
    for row in range(start, end):
        tool = tools.slice(row, 1).to_pylist()[0]
        try:
            found.append((tool, batch_values(tools.slice(row, 1), values.slice(row, 1))[1][0]))
        except Exception as error:
            found.append((tool, error))
    return found


def _too_long(name: str, counted: RowCount, tools: Any, values: Any, row: int, size: int) -> Call:
    """The ``unparseable`` call of a row longer than the bound, built from the first
    characters of its tool and text only (a tool name cut there is no name a catalog has)."""
    counted.calls += 1
    source = counted.row(name)
    tool = _head(tools, row)
    reason = f"row of {size:,} bytes is longer than --max-record-bytes: not parsed"
    return _unparsed(source, _head(values, row) or "<not shown>", reason, tool)


def _head(column: Any, row: int) -> str:
    """The first characters of a text value of ``column`` (empty for other values)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    one = column.slice(row, 1)
    if pa.types.is_dictionary(one.type):
        index = column.indices[row].as_py()
        if index is None:
            return ""
        one = column.dictionary.slice(index, 1)  # the value itself, not a copy
    if pa.types.is_string(one.type) or pa.types.is_large_string(one.type):
        return str(pc.utf8_slice_codeunits(one, 0, MAX_RAW).to_pylist()[0] or "")
    if pa.types.is_binary(one.type) or pa.types.is_large_binary(one.type):
        head = pc.binary_slice(one, 0, MAX_RAW).to_pylist()[0] or b""
        return str(head.decode("utf-8", "backslashreplace"))
    return ""


def _call(source: str, tool: str, value: Any, arguments: str) -> Call:
    """The call of one row: its arguments JSON text (or UTF-8 bytes of it), or a struct, map
    or list value; null arguments and values JSON has no type for make it ``unparseable``."""
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
        return call_from(source, tool, value)
    plain, problem = _json(value)
    if problem is not None:
        return _unparsed(source, repr(value)[:200], problem, tool)
    return call_from(source, tool, plain)


def _sizes(column: Any, rows: int, nulls: bool = False) -> list[Any]:
    """Each row's ``row_bytes`` as a list; with ``nulls``, None for a null row (a text
    column's)."""
    measured = row_bytes(column, nulls)
    return [measured] * rows if isinstance(measured, int) else measured.to_pylist()


def row_bytes(column: Any, nulls: bool = False) -> Any:
    """The size of each row of an Arrow array, measured on its buffers without building a
    value: text and binary as their bytes, other values as their width (at least 1), a null
    as 1, and one byte more for each item of a list or map and each field of a struct. A
    dictionary value counts where a row refers to it: a row's size is what its Python value
    would hold. An int64 Array, or one int for every row alike; with ``nulls`` a null row is
    null (for text)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_dictionary(kind):
        values = column.dictionary
        if _is_text(values.type):
            # The offsets of the rows' values only: a dictionary (a Parquet row group's
            # grows with each batch) is not walked again for each batch.
            large = pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type)
            offsets = pa.Array.from_buffers(
                pa.int64() if large else pa.int32(),
                len(values) + 1,
                [None, values.buffers()[1]],
                offset=values.offset,
            ).cast(pa.int64())
            indices = column.indices.cast(pa.int64())
            taken = pc.subtract(pc.take(offsets, pc.add(indices, 1)), pc.take(offsets, indices))
        else:
            inner = row_bytes(values)
            if isinstance(inner, int):
                inner = _constant(len(values), inner)
            taken = pc.take(inner, column.indices)
        return taken if nulls else pc.fill_null(taken, 1)
    if isinstance(kind, pa.ExtensionType):
        return row_bytes(column.storage, nulls)
    if _is_text(kind):
        lengths = pc.binary_length(column).cast(pa.int64())
        return lengths if nulls else pc.fill_null(lengths, 1)
    if pa.types.is_struct(kind):
        total: Any = kind.num_fields + 1
        for index in range(kind.num_fields):
            total = _add(total, row_bytes(column.field(index)))
        return total
    if pa.types.is_fixed_size_list(kind):
        size = kind.list_size
        items = column.flatten()
        starts = pc.subtract(pc.cumulative_sum(_constant(len(column) + 1, size)), size)
        return _summed(row_bytes(items), starts, len(column), _constant(len(column), size))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_map(kind):
        offsets = column.offsets.cast(pa.int64())
        counts = pc.subtract(offsets.slice(1), offsets.slice(0, len(column)))
        return _summed(row_bytes(column.values), offsets, len(column), counts)
    if pa.types.is_null(kind):
        return 1
    return max(1, kind.bit_width // 8)  # a fixed-width value (readable_type)


def _summed(items: Any, offsets: Any, rows: int, counts: Any) -> Any:
    """Each row's size of a list-like array: its items' sizes (``items``, one for each item
    of its values, which ``offsets`` cut into rows) and one byte for each item and the row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(items, int):
        return pc.add(pc.multiply(counts, items + 1), 1)
    running = pa.concat_arrays(
        [pa.array([0], pa.int64()), pc.cumulative_sum(pc.add(items, 1)).cast(pa.int64())]
    )
    ends = pc.take(running, offsets.slice(1, rows))
    starts = pc.take(running, offsets.slice(0, rows))
    return pc.add(pc.subtract(ends, starts), 1)


def _add(one: Any, other: Any) -> Any:
    import pyarrow.compute as pc

    if isinstance(one, int) and isinstance(other, int):
        return one + other
    return pc.add(one, other)


def _constant(rows: int, value: int) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.fill_null(pa.nulls(rows, pa.int64()), value)


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
    )


def readable_type(kind: Any) -> bool:
    """Whether ``row_bytes`` measures values of Arrow type ``kind``: text, binary, numbers,
    booleans, dates and times, nulls, and structs, lists, maps and dictionaries of them. Not
    views, run-end encoded arrays or unions, whose rows can refer to shared data in ways the
    measure would have to follow (it would not be bounded)."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        return readable_type(kind.value_type)
    if isinstance(kind, pa.ExtensionType):
        return readable_type(kind.storage_type)
    if pa.types.is_struct(kind):
        return all(readable_type(kind.field(index).type) for index in range(kind.num_fields))
    if pa.types.is_map(kind):
        return readable_type(kind.key_type) and readable_type(kind.item_type)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return readable_type(kind.value_type)
    return bool(
        _is_text(kind)
        or pa.types.is_null(kind)
        or pa.types.is_primitive(kind)
        or pa.types.is_decimal(kind)
        or pa.types.is_fixed_size_binary(kind)
    )


def _open(
    name: str, stream: IO[bytes], kind: Columnar, columns: Columns, max_record_bytes: int
) -> tuple[Iterator[Any], str]:
    """Record batches of the tool and arguments columns (in that order), with ``Unreadable``
    rows among them, and the arguments column's name."""
    reader, schema = _opened(name, stream, kind)
    tool, arguments = found_columns(name, schema, columns)
    if kind is Columnar.PARQUET:
        probe = _probe(stream, reader, (tool, arguments))
        groups = range(reader.metadata.num_row_groups)
        batches = _groups_batches(reader, probe, groups, (tool, arguments), max_record_bytes)
        return batches, arguments
    wanted = [tool, arguments]
    if kind is Columnar.ARROW:
        reader = _fields(stream, reader, wanted)
        batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
        return (batch.select(wanted) for batch in batches), arguments
    return (batch.select(wanted) for batch in reader), arguments


def _pyarrow(name: str, kind: Columnar) -> Any:
    """pyarrow, an optional extra: imported where a columnar log is read."""
    try:
        import pyarrow as pa
        import pyarrow.compute
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
            parquet = pa.parquet.ParquetFile(stream, **_PARQUET_OPTIONS)
            return parquet, parquet.schema_arrow
        reader = (pa.ipc.open_file if kind is Columnar.ARROW else pa.ipc.open_stream)(stream)
        return reader, reader.schema
    except (pa.ArrowException, OSError, ValueError) as error:
        raise LogFormatError(LogProblem(Location(name), _unopened(kind, error))) from None


_PARQUET_OPTIONS: Final = {
    "pre_buffer": False,
    "buffer_size": READ_BUFFER,
    "thrift_string_size_limit": THRIFT_STRING_LIMIT,
    "thrift_container_size_limit": THRIFT_CONTAINER_LIMIT,
}


def _unopened(kind: Columnar, error: BaseException) -> str:
    return f"cannot be read as {kind.value}: {_reason(error)}"


def _probe(stream: Any, parquet: Any, columns: Sequence[str]) -> Any:
    """The Parquet file read again (its footer as read) with the text leaves of ``columns``
    read as dictionaries: what ``group_size`` reads a row of, to learn how long the values
    of a row group's dictionary pages are before the rows that refer to them are read."""
    import pyarrow.parquet as pq

    meta = parquet.metadata
    leaves = [
        index
        for index in _leaves(parquet, columns)
        if meta.schema.column(index).physical_type == "BYTE_ARRAY"
        and meta.schema.column(index).logical_type.type in _TEXT_TYPES
    ]
    return pq.ParquetFile(stream, metadata=meta, read_dictionary=leaves, **_PARQUET_OPTIONS)


def _leaves(parquet: Any, columns: Sequence[str]) -> list[int]:
    """The Parquet leaf columns of the top-level ``columns`` (by their path's first name,
    which may hold dots: ``gen_ai.tool.name``)."""
    return [index for index, path in enumerate(parquet.reader.column_paths) if path[0] in columns]


def _fields(stream: Any, reader: Any, wanted: Sequence[str]) -> Any:
    """The Arrow IPC file opened again to read the ``wanted`` fields only: the others are
    neither read nor decompressed."""
    import pyarrow as pa

    names = list(reader.schema.names)
    fields = sorted({names.index(field) for field in wanted})
    stream.seek(0)
    return pa.ipc.open_file(stream, options=pa.ipc.IpcReadOptions(included_fields=fields))


def group_size(probe: Any, group: int, columns: Sequence[str]) -> int:
    """What Parquet row group ``group`` takes once read, for ``columns``: its leaves'
    uncompressed bytes and ``VALUE_BYTES`` a value (the footer's figures), and for a leaf
    with a dictionary page, each of its values as long as the longest value of that page
    (any row may refer to it: read as text, each row holds its own copy). The dictionary
    pages are read for that (one row of ``probe``, ``_probe``); pyarrow's errors are the
    caller's."""
    meta = probe.metadata
    found = meta.row_group(group)
    size = 0
    paged: dict[str, int] = {}
    for leaf in _leaves(probe, columns):
        chunk = found.column(leaf)
        width = meta.schema.column(leaf).length or 0
        size += chunk.total_uncompressed_size + chunk.num_values * (VALUE_BYTES + width)
        if chunk.has_dictionary_page:
            column = probe.reader.column_paths[leaf][0]
            paged[column] = paged.get(column, 0) + chunk.num_values
    for column, values in paged.items():
        first = next(
            probe.iter_batches(1, row_groups=[group], columns=[column], use_threads=False), None
        )
        if first is not None:
            size += values * _longest(first.column(0))
    return size


def _longest(array: Any) -> int:
    """The longest text value of the dictionaries ``array`` holds (0 without any)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = array.type
    if pa.types.is_dictionary(kind):
        values = array.dictionary
        if _is_text(values.type):
            return int(pc.max(pc.binary_length(values)).as_py() or 0)
        return _longest(values)
    if pa.types.is_struct(kind):
        return max((_longest(array.field(i)) for i in range(kind.num_fields)), default=0)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_map(kind):
        return _longest(array.values)
    if pa.types.is_fixed_size_list(kind):
        return _longest(array.flatten())
    return 0


def group_batch_rows(rows: int, size: int) -> int:
    """Rows of a batch of a row group of ``rows`` rows taking ``size`` bytes once read: as
    many as take about ``BATCH_BYTES``, 1 to ``BATCH_ROWS``."""
    return max(1, min(BATCH_ROWS, BATCH_BYTES * rows // max(size, 1)))


def _groups_batches(
    parquet: Any,
    probe: Any,
    groups: Iterable[int],
    columns: Sequence[str],
    max_record_bytes: int,
) -> Iterator[Any]:
    """The record batches of ``columns`` of some row groups of a Parquet file, in order,
    with ``Unreadable`` rows for a row group that would take more than its rows may
    (``group_size`` past ``max_record_bytes`` a row and ``GROUP_ALLOWANCE``), and for the
    rest of one that does not decode (the next one is read: the footer says where)."""
    import pyarrow as pa

    unreadable = (pa.ArrowException, MemoryError, OSError, ValueError)
    for group in groups:
        rows = parquet.metadata.row_group(group).num_rows
        if rows <= 0:
            continue
        try:
            size = group_size(probe, group, columns)
        except unreadable as error:
            yield Unreadable(rows, f"row group {group} cannot be read: {_reason(error)}")
            continue
        if size > rows * max_record_bytes + GROUP_ALLOWANCE:
            why = (
                f"row group {group} is not read: its {rows:,} rows would take {size:,} bytes "
                "once read (by its footer and dictionary pages), more than --max-record-bytes "
                "for each row allows"
            )
            yield Unreadable(rows, why)
            continue
        done = 0
        held: dict[int, Any] = {}  # this row group's dictionaries, validated
        try:
            for batch in parquet.iter_batches(
                group_batch_rows(rows, size),
                row_groups=[group],
                columns=list(columns),
                use_threads=False,
            ):
                done += batch.num_rows
                try:
                    validate(batch, held, growing=True)
                except pa.ArrowException as error:
                    why = f"row group {group}: not valid Arrow data: {_reason(error)}"
                    yield Unreadable(batch.num_rows, why)
                    continue
                yield Validated(batch)
        except unreadable as error:
            if done < rows:
                why = f"row group {group} cannot be read from here: {_reason(error)}"
                yield Unreadable(rows - done, why)


def found_columns(name: str, schema: Any, columns: Columns) -> tuple[str, str]:
    """The tool and arguments columns of a log of Arrow ``schema``: given, else found among
    the names common exports use; ``LogFormatError`` when one is missing, the tool column
    holds no text, or the arguments column holds values that are not read
    (``readable_type``)."""
    import pyarrow as pa

    names = list(schema.names)
    tool = _column(name, names, columns.tool, TOOL_COLUMNS, "--tool-column", "tool")
    arguments = _column(
        name, names, columns.arguments, ARGUMENT_COLUMNS, "--arguments-column", "arguments"
    )
    tool_type = schema.field(tool).type
    text = tool_type.value_type if pa.types.is_dictionary(tool_type) else tool_type
    if not pa.types.is_string(text) and not pa.types.is_large_string(text):
        problem = f"the tool column '{tool}' holds {tool_type}, not strings"
        raise LogFormatError(LogProblem(Location(name), problem))
    if not readable_type(schema.field(arguments).type):
        problem = (
            f"the arguments column '{arguments}' holds {schema.field(arguments).type}, which is "
            "not read (views, run-end encoded arrays and unions are not)"
        )
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
    read: an Arrow file is memory-mapped, and only its two columns are read); ``LogFormatError``
    as reading it would raise. None when a record batch of an Arrow file cannot be read: the
    file breaks mid-way, which the one-pass read reports where it breaks."""
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
            reader = _fields(stream, reader, [tool, arguments])
            try:
                batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]
            except (pa.ArrowException, OSError, ValueError):
                return None
            sizes = tuple((batch.num_rows, batch.get_total_buffer_size()) for batch in batches)
    types = f"{schema.field(tool).type} {schema.field(arguments).type}"
    return Layout(kind, tool, arguments, sizes, types)


def group_batches(
    file: str,
    kind: Columnar,
    groups: Sequence[int],
    columns: Sequence[str],
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
) -> Iterator[Any]:
    """The record batches of ``columns`` of some row groups of a Parquet file (or record
    batches of an Arrow IPC file), in order, with ``Unreadable`` rows among them as the
    one-pass read has (``batches_calls`` reads them)."""
    name = display_name(file)
    pa = _pyarrow(name, kind)
    with pa.memory_map(file) as stream:
        reader, _ = _opened(name, stream, kind)
        if kind is Columnar.PARQUET:
            probe = _probe(stream, reader, columns)
            yield from _groups_batches(reader, probe, groups, columns, max_record_bytes)
            return
        reader = _fields(stream, reader, list(columns))
        for group in groups:
            yield reader.get_batch(group).select(list(columns))


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


def _not_read(rows: int) -> str:
    return f"<not shown: {rows:,} rows not read>" if rows != 1 else "<not shown: a row not read>"


def _rows(counted: RowCount, rows: int) -> str:
    first = counted.first_row + counted.rows
    return f"rows {first:,}-{first + rows - 1:,}" if rows != 1 else f"row {first:,}"


def _reason(error: BaseException) -> str:
    return " ".join(str(error).split())[:300] or type(error).__name__
