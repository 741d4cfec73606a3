"""Test-side compositions of the pipeline's stages: one call's result, and a whole audit of an
in-memory call stream. Production composes the same stages in ``auditor.aggregate.parallel``
(``audit_logs``), which the CLI calls; these let a test skip files and processes."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence

from auditor.aggregate.pipeline import (
    CallSource,
    ReportSettings,
    build_report,
    count_calls,
    evaluate_call,
    prepare,
)
from auditor.models import Call, CallResult, LogStats, Override, Report, Rule, ToolSchema
from auditor.replay.budget import DEFAULT_CALL_TIMEOUT
from auditor.replay.tool import ToolReplay
from auditor.schema.normalize import DEFAULT_RULES


class CallList:
    """A call source over calls already in memory (``CallSource``), with no log statistics."""

    def __init__(self, calls: list[Call]) -> None:
        self._calls = calls

    def __iter__(self) -> Iterator[Call]:
        return iter(self._calls)

    def stats(self) -> tuple[LogStats, ...]:
        return ()


def replay_call(replays: Mapping[str, ToolReplay], call: Call) -> CallResult:
    """One call's result, checked in the order docs/architecture.md gives."""
    return evaluate_call(replays, call)[0]


def audit(
    tools: Sequence[ToolSchema],
    calls: CallSource,
    schema_inputs: Sequence[str],
    overrides: Sequence[Override] = (),
    rules: Collection[Rule] = DEFAULT_RULES,
    settings: ReportSettings | None = None,
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
) -> Report:
    """Replay every call of ``calls`` in this process and build the Report."""
    settings = settings or ReportSettings()
    replays = prepare(tools, rules, call_timeout=call_timeout, old_runtime=settings.old_runtime)
    tally = count_calls(replays, calls, settings)
    return build_report(replays, tally, calls.stats(), schema_inputs, overrides, settings)
