"""Compose the stages into a Report: normalize each tool, replay each call, count everything.

Writes nothing and reads nothing but the call stream it is given, so the same inputs always
give the same Report.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from auditor import __version__
from auditor.baseline import Baseline
from auditor.budget import DEFAULT_CALL_TIMEOUT, CallBudget
from auditor.groups import DEFAULT_EXAMPLES, GroupCollector
from auditor.keywords import draft_of
from auditor.models import (
    BaselineUse,
    Call,
    CallResult,
    FailOn,
    Finding,
    Group,
    Location,
    LogStats,
    Outcome,
    Override,
    Report,
    Rewrite,
    Rule,
    ToolSchema,
    ToolSummary,
)
from auditor.normalize import DEFAULT_RULES, Normalized, normalize
from auditor.redact import DEFAULT_LIMIT, Sanitizer
from auditor.replay import ToolReplay


class CallSource(Protocol):
    """A lazy stream of calls that can say, afterwards, how it accounted for its input."""

    def __iter__(self) -> Iterator[Call]: ...

    def stats(self) -> tuple[LogStats, ...]: ...


def prepare(
    tools: Iterable[ToolSchema],
    rules: Collection[Rule],
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
) -> dict[str, ToolReplay]:
    """Normalize and compile every tool once; evaluating one call may take ``call_timeout``
    seconds (None: unbounded)."""
    budget = CallBudget(call_timeout)  # calls run one at a time: one budget serves all
    return {tool.name: ToolReplay(tool, _normalize(tool, rules), budget) for tool in tools}


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


@dataclass(frozen=True)
class ReportSettings:
    """How much of the logs a report keeps and shows; none of it changes any verdict."""

    examples: int = DEFAULT_EXAMPLES
    """Example calls kept per group."""
    redact: bool = False
    value_limit: int = DEFAULT_LIMIT
    max_calls: int | None = None
    """Non-accepted calls kept in ``Report.calls``; None keeps all (memory grows with them)."""
    baseline: Baseline | None = None
    generated_at: str | None = None
    fail_on: FailOn = FailOn.NEWLY_REJECTED


def audit(
    tools: Sequence[ToolSchema],
    calls: CallSource,
    schema_inputs: Sequence[str],
    overrides: Sequence[Override] = (),
    rules: Collection[Rule] = DEFAULT_RULES,
    settings: ReportSettings = ReportSettings(),
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
) -> Report:
    """Replay every call of ``calls`` and aggregate the outcomes into a Report.

    Streaming: memory holds counts, ``settings.examples`` calls per group, and the kept
    ``calls`` (all non-accepted ones unless ``settings.max_calls`` bounds them).
    """
    replays = prepare(tools, rules, call_timeout)
    sanitizer = Sanitizer(settings.redact, settings.value_limit)
    counts = {name: dict.fromkeys(Outcome, 0) for name in replays}
    reached = {name: [0] * len(r.normalized.rewrites) for name, r in replays.items()}
    totals = dict.fromkeys(Outcome, 0)
    unknown: dict[str, int] = {}
    nameless = 0
    kept: list[CallResult] = []
    omitted = 0
    collector = GroupCollector(settings.examples)
    for call in calls:
        result = replay_call(replays, call)
        totals[result.outcome] += 1
        if result.outcome is Outcome.UNKNOWN_TOOL and call.tool is not None:
            unknown[call.tool] = unknown.get(call.tool, 0) + 1
        elif call.tool in counts:
            counts[call.tool][result.outcome] += 1
            for index in replays[call.tool].reached_rewrites(call):
                reached[call.tool][index] += 1
        else:
            nameless += 1
        if result.outcome is Outcome.ACCEPTED:
            continue
        shown = sanitizer.result(result)
        collector.add(shown)
        if settings.max_calls is None or len(kept) < settings.max_calls:
            kept.append(shown)
        else:
            omitted += 1
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
            reached=tuple(reached[name]),
            rewrite_locations=tuple(_location(replay.tool, r) for r in replay.normalized.rewrites),
        )
        for name, replay in sorted(replays.items())
    )
    accepted = settings.baseline.fingerprints if settings.baseline else frozenset()
    groups = collector.groups({t.name: t.call_count for t in summaries}, accepted)
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
        groups=groups,
        calls_omitted=omitted,
        redacted=settings.redact,
        baseline=_baseline_use(settings.baseline, groups),
        generated_at=settings.generated_at,
        fail_on=settings.fail_on,
    )


def _location(tool: ToolSchema, rewrite: Rewrite) -> Location | None:
    """Where the rewritten key stands in the catalog file (the key, even for a type value)."""
    position = tool.positions.get(rewrite.pointer)
    return None if position is None else Location(tool.location.path, *position)


def _baseline_use(baseline: Baseline | None, groups: Sequence[Group]) -> BaselineUse | None:
    if baseline is None:
        return None
    accepted = [g for g in groups if g.baselined]
    present = {g.fingerprint for g in groups}
    return BaselineUse(
        path=baseline.path,
        accepted_groups=len(accepted),
        accepted_calls=sum(g.count for g in accepted),
        stale=tuple(sorted(baseline.fingerprints - present)),
    )
