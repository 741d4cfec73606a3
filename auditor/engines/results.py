"""The results of the logged calls, replayed as a second subject of the same audit.

Each result with structured content is a call of its tool whose arguments are that content,
replayed against the tool's old and new output schema by the same replay, tally and report
as arguments are (``auditor.aggregate.pipeline``), in this process; the report is labelled
as results and its hints worded for them (``auditor.aggregate.subjects``). Results are
counted apart: nothing here touches the arguments' report.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

from auditor.aggregate.pipeline import ReportSettings, build_report, count_calls, prepare
from auditor.aggregate.subjects import as_results
from auditor.inputs.results import ResultReader
from auditor.models import Call, LogStats, NotValidated, Report, Subject, ToolSchema
from auditor.request import AuditRequest
from auditor.schema.diff import NewCatalogs


class _WithOutputSchemas:
    """The results of tools that declare an output schema (or that no catalog names, which
    the replay counts as unknown tools); those of a tool without one are counted apart."""

    def __init__(self, reader: ResultReader, without_schema: frozenset[str]) -> None:
        self._reader = reader
        self._without = without_schema
        self.skipped = 0

    def __iter__(self) -> Iterator[Call]:
        for call in self._reader:
            if call.tool in self._without:
                self.skipped += 1
                continue
            yield call

    def stats(self) -> tuple[LogStats, ...]:
        return self._reader.stats()


def output_tools(tools: Sequence[ToolSchema]) -> tuple[ToolSchema, ...]:
    """The output schemas the tools declare, each as a tool schema of its tool's name."""
    return tuple(tool.output for tool in tools if tool.output is not None)


def audit_results(
    tools: Sequence[ToolSchema],
    files: Sequence[str],
    schema_inputs: Sequence[str],
    request: AuditRequest,
    settings: ReportSettings,
    new_catalogs: NewCatalogs | None = None,
) -> Report:
    """The results of the log ``files`` against the output schemas of ``tools`` (old) and of
    ``new_catalogs`` (new; else the old output schemas normalized by the request's rules)."""
    outputs = output_tools(tools)
    new_side = None
    declared = {tool.name for tool in outputs}
    if new_catalogs is not None:
        # A tool whose new version declares no output schema has its results validated by
        # nothing after: an empty schema, rather than a tool the change removed.
        new_tools = tuple(
            tool.output or dataclasses.replace(tool, schema={}, positions={})
            for tool in new_catalogs.tools
            if tool.output is not None or tool.name in declared
        )
        new_side = dataclasses.replace(new_catalogs, tools=new_tools)
        # One that declares one only after is an added tool: nothing enforced before.
        declared |= {tool.name for tool in new_catalogs.tools if tool.output is not None}
    replays = prepare(
        outputs,
        request.change.normalization,
        call_timeout=request.limits.call_timeout or None,
        old_runtime=settings.old_runtime,
        new_catalogs=new_side,
        runtimes=settings.runtimes,
    )
    reader = ResultReader(
        files, request.inputs.log_format.to_format(), request.limits.max_record_bytes
    )
    without = frozenset(tool.name for tool in tools) - declared
    source = _WithOutputSchemas(reader, without)
    settings = dataclasses.replace(settings, subject=Subject.RESULTS)
    tally = count_calls(replays, source, settings)
    report = build_report(replays, tally, source.stats(), schema_inputs, (), settings)
    counts = NotValidated(reader.error_results, reader.unstructured, source.skipped)
    return dataclasses.replace(as_results(report), not_validated=counts)
