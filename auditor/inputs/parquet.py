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
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from enum import Enum
from typing import IO, Any, Final

from auditor.inputs.columns import Columns
from auditor.inputs.limits import DEFAULT_MAX_RECORD_BYTES
from auditor.inputs.log_files import LogFormatError, LogProblem
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
        self._batches, self._tool, self._arguments = _open(name, stream, kind, columns or Columns())
        self._max = max_record_bytes
        self.stats = LogStats(name, kind.value)

    def __iter__(self) -> Iterator[Call]:
        rows = without_calls = calls = 0
        batches = iter(self._batches)
        try:
            while True:
                try:
                    batch = next(batches, None)
                    if batch is None:
                        break
                    tools = batch.column(0).to_pylist()
                    arguments = batch.column(1).to_pylist(maps_as_pydicts="strict")
                except Exception as error:  # pyarrow's errors: a file that breaks mid-way
                    rows += 1
                    calls += 1
                    yield _unparsed(
                        f"{self._name}#{rows}",
                        "<not shown: the rest of the file cannot be read>",
                        f"the rest of the {self._kind.value} log cannot be read: {_reason(error)}",
                    )
                    break
                for tool, value in zip(tools, arguments, strict=True):
                    rows += 1
                    if not isinstance(tool, str) or not tool:
                        without_calls += 1
                        continue
                    calls += 1
                    yield self._call(f"{self._name}#{rows}", tool, value)
        finally:
            self.stats = LogStats(
                self._name,
                self._kind.value,
                lines=rows,
                records=rows,
                records_without_calls=without_calls,
                calls=calls,
            )

    def _call(self, source: str, tool: str, value: Any) -> Call:
        from auditor.inputs.reader import call_from  # the reader imports this module

        if value is None:
            return _unparsed(source, "null", f"has no '{self._arguments}' (null)", tool)
        if isinstance(value, bytes):
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError as error:
                raw = value[:200].decode("utf-8", "backslashreplace")
                why = f"arguments are not UTF-8 text ({error.reason})"
                return _unparsed(source, raw, why, tool)
        if isinstance(value, str):
            if len(value) > self._max:
                return _unparsed(
                    source,
                    value[:200],
                    f"arguments longer than {self._max:,} bytes (--max-record-bytes)",
                    tool,
                )
            return call_from(source, tool, value)
        plain, problem = _json(value)
        if problem is not None:
            return _unparsed(source, repr(value)[:200], problem, tool)
        return call_from(source, tool, plain)


def _open(name: str, stream: IO[bytes], kind: Columnar, columns: Columns) -> tuple[Any, str, str]:
    """Record batches of the tool and arguments columns (in that order), and their names."""
    try:
        import pyarrow as pa  # an optional extra: imported where a columnar log is read
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise LogFormatError(
            LogProblem(
                Location(name), f"a {kind.value} log needs pyarrow, the parquet extra: {EXTRA}"
            )
        ) from None
    try:
        if kind is Columnar.PARQUET:
            parquet = pyarrow.parquet.ParquetFile(stream)
            schema = parquet.schema_arrow
        elif kind is Columnar.ARROW:
            reader = pyarrow.ipc.open_file(stream)
            schema = reader.schema
        else:
            reader = pyarrow.ipc.open_stream(stream)
            schema = reader.schema
    except (pa.ArrowException, OSError, ValueError) as error:
        problem = f"cannot be read as {kind.value}: {_reason(error)}"
        raise LogFormatError(LogProblem(Location(name), problem)) from None
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
    wanted = [tool, arguments]
    if kind is Columnar.PARQUET:
        return parquet.iter_batches(BATCH_ROWS, columns=wanted), tool, arguments
    batches = (
        (reader.get_batch(i) for i in range(reader.num_record_batches))
        if kind is Columnar.ARROW
        else iter(reader)
    )
    return (batch.select(wanted) for batch in batches), tool, arguments


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
