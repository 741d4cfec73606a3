"""Call logs -> the tools' *results*, each as a ``Call`` of its tool whose ``arguments`` are
the structured content the tool returned, with the ``path:line`` of the result.

Where a log records results:

- MCP JSON-RPC: the ``result`` of a response to a ``tools/call`` request, paired with the
  request by its JSON-RPC id (``auditor.inputs.log_formats``' rpc ids) within ``WINDOW``
  records. Its ``structuredContent`` is what a client validates against the tool's
  ``outputSchema`` (MCP 2025-06-18). A result with ``isError: true`` is not validated, as MCP
  says; one without ``structuredContent`` has nothing to validate. Both are counted apart.
- OpenTelemetry: ``gen_ai.tool.call.result`` of a tool span or record that names its tool,
  where it is a JSON object (as text or as a structured value); other text is counted as
  unstructured. A span whose status is an error is an error result.

Other formats hold no results this reader can tell from text the model saw. Every line is
accounted for in the stats, as the call reader accounts for it (``LogStats``: ``calls`` are
the results read here, validated or not).
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import IO, Final

from auditor.inputs import otlp
from auditor.inputs.arguments import call_from
from auditor.inputs.limits import DEFAULT_MAX_RECORD_BYTES
from auditor.inputs.lines import Blank, bounded_lines
from auditor.inputs.log_files import display_name, open_log
from auditor.inputs.log_format_names import LogFormat
from auditor.inputs.parquet import MAGIC_BYTES, columnar
from auditor.inputs.records import Framed, Record, detect_format, loads, records
from auditor.models import JSON, Call, LogStats

WINDOW: Final = 1_000
"""Requests held at most while their results may still come (as ``inputs.pairing``)."""
RESULT: Final = "gen_ai.tool.call.result"
"""The OTel GenAI attribute of a tool's result (recorded when content capture is on)."""
TOOL: Final = "gen_ai.tool.name"
ERROR_STATUS: Final = ("STATUS_CODE_ERROR", 2)
"""An OTLP span status that marks the tool's execution as failed."""


@dataclass(frozen=True)
class _Result:
    """One result found in a record: its tool, its structured content, or why it has none."""

    tool: str
    content: JSON = None
    is_error: bool = False
    structured: bool = True


class ResultReader:
    """Iterates the results of several log files in order (a ``CallSource``): a result is a
    ``Call`` of its tool with the structured content as its arguments. Error results and
    results without structured content are counted (``error_results``, ``unstructured``),
    not yielded."""

    def __init__(
        self,
        files: Sequence[str],
        fmt: LogFormat | None = None,
        max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    ) -> None:
        self._files = tuple(files)
        self._fmt = fmt
        self._limit = max_record_bytes
        self._stats = {file: LogStats(display_name(file)) for file in self._files}
        self.error_results = 0
        self.unstructured = 0

    def __iter__(self) -> Iterator[Call]:
        for file in self._files:
            yield from self._read(file)

    def stats(self) -> tuple[LogStats, ...]:
        """How each file's lines were accounted for (complete once iteration has ended)."""
        return tuple(self._stats.values())

    def _read(self, file: str) -> Iterator[Call]:
        name = display_name(file)
        with open_log(file) as stream:
            if self._fmt is None and _columnar(stream):
                return  # a Parquet or Arrow log holds calls, never results
            framed: Iterator[Framed] = records(bounded_lines(stream, self._limit), self._limit)
            fmt = self._fmt
            head: list[Framed] = []
            if fmt is None:
                head, fmt = detect_format(framed, name)
            lines = blank = count = without = results = 0
            pending: OrderedDict[str, str] = OrderedDict()  # JSON-RPC id -> tool called
            try:
                for item in chain(head, framed):
                    if isinstance(item, Blank):
                        lines += item.count
                        blank += item.count
                        continue
                    lines += item.lines
                    blank += item.blank
                    count += 1
                    found = _results(fmt, item, pending) if item.problem is None else []
                    if not found:
                        without += 1
                    for result in found:
                        results += 1
                        if result.is_error:
                            self.error_results += 1
                        elif not result.structured:
                            self.unstructured += 1
                        else:
                            yield call_from(f"{name}:{item.line}", result.tool, result.content)
            finally:
                self._stats[file] = LogStats(
                    name, fmt.value if fmt else "", lines, blank, count, without, 0, results
                ).merge(self._stats[file])


def _columnar(stream: IO[bytes]) -> bool:
    """Whether ``stream`` starts as a Parquet or Arrow file does (``inputs.parquet``); a
    stream that cannot be peeked, or whose first bytes cannot be read, is read as text (the
    reading then accounts for what it can)."""
    peek = getattr(stream, "peek", None)
    try:
        head = peek(MAGIC_BYTES) if peek is not None else None
    except (OSError, EOFError, zlib.error):
        return False
    return head is not None and columnar(head[:MAGIC_BYTES]) is not None


def _results(fmt: LogFormat, record: Record, pending: OrderedDict[str, str]) -> list[_Result]:
    if fmt is LogFormat.MCP:
        return list(_mcp_results(record.value, pending))
    if fmt is LogFormat.OTEL:
        return list(_otel_results(record.value))
    return []


def _messages(record: JSON) -> Iterator[dict[str, JSON]]:
    """One JSON-RPC message, or each message of a batch."""
    if isinstance(record, dict):
        yield record
    elif isinstance(record, list):
        yield from (message for message in record if isinstance(message, dict))


def _rpc_id(message: dict[str, JSON]) -> str | None:
    identity = message.get("id")
    if isinstance(identity, bool) or not isinstance(identity, (str, int)):
        return None
    return f"{type(identity).__name__}:{identity}"  # 1 and "1" are different ids


def _mcp_results(record: JSON, pending: OrderedDict[str, str]) -> Iterator[_Result]:
    """The results of ``tools/call`` responses in one record; the requests it holds are
    remembered (the last ``WINDOW`` of them) for the responses that follow."""
    for message in _messages(record):
        key = _rpc_id(message)
        if key is None:
            continue
        if message.get("method") == "tools/call":
            params = message.get("params")
            tool = params.get("name") if isinstance(params, dict) else None
            if isinstance(tool, str) and tool:
                pending[key] = tool
                pending.move_to_end(key)
                while len(pending) > WINDOW:
                    pending.popitem(last=False)
            continue
        result = message.get("result")
        if "method" in message or not isinstance(result, dict) or key not in pending:
            continue  # another request, an error reply, or the reply to no tools/call read
        tool = pending.pop(key)
        if result.get("isError") is True:
            yield _Result(tool, is_error=True)
        elif "structuredContent" in result:
            yield _Result(tool, result["structuredContent"])
        else:
            yield _Result(tool, structured=False)


def _otel_results(record: JSON) -> Iterator[_Result]:
    for item in otlp.items(record):
        tool = item.attributes.get(TOOL)
        if RESULT not in item.attributes or not isinstance(tool, str) or not tool:
            continue
        if item.status_code in ERROR_STATUS:
            yield _Result(tool, is_error=True)
            continue
        value = item.attributes[RESULT]
        if isinstance(value, str):
            decoded, problem = loads(value)
            value = None if problem is not None else decoded
        if isinstance(value, dict):
            yield _Result(tool, value)
        else:  # text, or JSON that is no object: no structured content
            yield _Result(tool, structured=False)
