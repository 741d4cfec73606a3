"""Compose the stages into a Report: normalize each tool, replay each call, count everything.

Writes nothing and reads nothing but the call stream it is given, so the same inputs always
give the same Report.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Protocol

from auditor import __version__
from auditor.keywords import draft_of
from auditor.models import (
    Call,
    CallResult,
    Finding,
    LogStats,
    Outcome,
    Override,
    Report,
    Rule,
    ToolSchema,
    ToolSummary,
)
from auditor.normalize import DEFAULT_RULES, Normalized, normalize
from auditor.replay import ToolReplay


class CallSource(Protocol):
    """A lazy stream of calls that can say, afterwards, how it accounted for its input."""

    def __iter__(self) -> Iterator[Call]: ...

    def stats(self) -> tuple[LogStats, ...]: ...


def prepare(tools: Iterable[ToolSchema], rules: Collection[Rule]) -> dict[str, ToolReplay]:
    """Normalize and compile every tool once."""
    return {tool.name: ToolReplay(tool, _normalize(tool, rules)) for tool in tools}


def _normalize(tool: ToolSchema, rules: Collection[Rule]) -> Normalized:
    try:
        return normalize(tool.schema, rules)
    except RecursionError:
        # Too deep to walk: left as written; compiling it reports the same depth problem.
        return Normalized(tool.schema, (), (), draft_of(tool.schema))


def _unresolved(normalized: Normalized) -> tuple[Finding, ...]:
    """Findings the rewrites do not already fix: the report lists a rewrite once."""
    fixed = {r.pointer for r in normalized.rewrites}
    return tuple(f for f in normalized.findings if f.pointer not in fixed)


def replay_call(replays: dict[str, ToolReplay], call: Call) -> CallResult:
    """One call's outcome, checked in the order DESIGN.md gives."""
    if call.tool is not None and call.tool not in replays:
        return CallResult(call, Outcome.UNKNOWN_TOOL)
    if call.tool is None or call.unparsed is not None:
        return CallResult(call, Outcome.UNPARSEABLE)
    return replays[call.tool].replay(call)


def audit(
    tools: Sequence[ToolSchema],
    calls: CallSource,
    schema_inputs: Sequence[str],
    overrides: Sequence[Override] = (),
    rules: Collection[Rule] = DEFAULT_RULES,
) -> Report:
    """Replay every call of ``calls`` and aggregate the outcomes into a Report."""
    replays = prepare(tools, rules)
    counts = {name: dict.fromkeys(Outcome, 0) for name in replays}
    totals = dict.fromkeys(Outcome, 0)
    unknown: dict[str, int] = {}
    nameless = 0
    kept: list[CallResult] = []
    for call in calls:
        result = replay_call(replays, call)
        totals[result.outcome] += 1
        if result.outcome is Outcome.UNKNOWN_TOOL and call.tool is not None:
            unknown[call.tool] = unknown.get(call.tool, 0) + 1
        elif call.tool in counts:
            counts[call.tool][result.outcome] += 1
        else:
            nameless += 1
        if result.outcome is not Outcome.ACCEPTED:
            kept.append(result)
    summaries = tuple(
        ToolSummary(
            name=name,
            location=replay.tool.location,
            pointer=replay.tool.pointer,
            shape=replay.tool.shape,
            rewrites=replay.normalized.rewrites,
            findings=_unresolved(replay.normalized),
            counts=counts[name],
            old_schema_problem=replay.old.problem,
            new_schema_problem=replay.new.problem,
        )
        for name, replay in sorted(replays.items())
    )
    return Report(
        version=__version__,
        schema_inputs=tuple(schema_inputs),
        log_inputs=calls.stats(),
        totals=totals,
        tools=summaries,
        calls=tuple(kept),
        unknown_tools=dict(sorted(unknown.items())),
        nameless_calls=nameless,
        overrides=tuple(overrides),
    )
