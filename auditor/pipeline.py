"""Compose the stages into a Report: normalize each tool, replay each call, count everything.

Writes nothing and reads nothing but the call stream it is given, so the same inputs always
give the same Report.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

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
    OldRuntime,
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
from auditor.replay import MEMO_ENTRIES, Memo, ToolReplay


class CallSource(Protocol):
    """A lazy stream of calls that can say, afterwards, how it accounted for its input."""

    def __iter__(self) -> Iterator[Call]: ...

    def stats(self) -> tuple[LogStats, ...]: ...


def prepare(
    tools: Iterable[ToolSchema],
    rules: Collection[Rule],
    fast: bool = True,
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
    old_runtime: OldRuntime = OldRuntime.LENIENT,
) -> dict[str, ToolReplay]:
    """Normalize and compile every tool once. ``fast=False``: the reference engine only;
    evaluating one call may take ``call_timeout`` seconds (None: unbounded); ``old_runtime``
    is what enforced the old schemas when the logs were written."""
    memo = Memo(MEMO_ENTRIES)
    budget = CallBudget(call_timeout)  # calls run one at a time: one budget serves all
    return {
        tool.name: ToolReplay(tool, _normalize(tool, rules), fast, memo, budget, old_runtime)
        for tool in tools
    }


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
    return evaluate_call(replays, call)[0]


_NOTHING_REACHED: frozenset[int] = frozenset()


def evaluate_call(replays: dict[str, ToolReplay], call: Call) -> tuple[CallResult, frozenset[int]]:
    """One call's outcome and the indices of its tool's rewrites its evaluation reached."""
    if call.tool is not None and call.tool not in replays:
        return CallResult(call, Outcome.UNKNOWN_TOOL), _NOTHING_REACHED
    if call.tool is None or call.unparsed is not None:
        return CallResult(call, Outcome.UNPARSEABLE), _NOTHING_REACHED
    return replays[call.tool].evaluate(call)


DEFAULT_MAX_CALLS: Final = 10_000
"""Enough to list every changed call of a normal audit, bounded for a week of traffic."""


@dataclass(frozen=True)
class ReportSettings:
    """How much of the logs a report keeps and shows; none of it changes any verdict."""

    examples: int = DEFAULT_EXAMPLES
    """Example calls kept per group."""
    redact: bool = False
    value_limit: int = DEFAULT_LIMIT
    max_calls: int | None = DEFAULT_MAX_CALLS
    """Non-accepted calls listed in ``Report.calls``; None lists all (memory grows with them).
    Groups, counts and examples always cover every call."""
    baseline: Baseline | None = None
    generated_at: str | None = None
    fail_on: FailOn = FailOn.NEWLY_REJECTED
    old_runtime: OldRuntime = OldRuntime.LENIENT


class Tally:
    """What the report counts, filled call by call in log order.

    Mergeable: chunks of a log can be counted apart (in worker processes) and merged in log
    order, which gives exactly the tally of one pass over the whole log.
    """

    def __init__(self, replays: dict[str, ToolReplay], settings: ReportSettings) -> None:
        self._sanitizer = Sanitizer(settings.redact, settings.value_limit)
        self._max_calls = settings.max_calls
        self.counts = {name: dict.fromkeys(Outcome, 0) for name in replays}
        self.reached = {name: [0] * len(r.normalized.rewrites) for name, r in replays.items()}
        self.proven = dict.fromkeys(replays, 0)
        self.contradictions = dict.fromkeys(replays, 0)
        self.totals = dict.fromkeys(Outcome, 0)
        self.unknown: dict[str, int] = {}
        self.nameless = 0
        self.kept: list[CallResult] = []
        self.omitted = 0
        self.collector = GroupCollector(settings.examples)

    def add(self, result: CallResult, reached: frozenset[int]) -> None:
        call = result.call
        self.totals[result.outcome] += 1
        if result.outcome is Outcome.UNKNOWN_TOOL and call.tool is not None:
            self.unknown[call.tool] = self.unknown.get(call.tool, 0) + 1
        elif call.tool in self.counts:
            self.counts[call.tool][result.outcome] += 1
            self.proven[call.tool] += result.proven
            self.contradictions[call.tool] += result.contradicts
            for index in reached:
                self.reached[call.tool][index] += 1
        else:
            self.nameless += 1
        if result.outcome is Outcome.ACCEPTED:
            return
        shown = self._sanitizer.result(result)
        self.collector.add(shown)
        if self._max_calls is None or len(self.kept) < self._max_calls:
            self.kept.append(shown)
        else:
            self.omitted += 1

    def merge(self, later: Tally) -> None:
        """Add the tally of the calls that come after these in the log."""
        for outcome, count in later.totals.items():
            self.totals[outcome] += count
        for name, counts in later.counts.items():
            for outcome, count in counts.items():
                self.counts[name][outcome] += count
        for name in later.counts:
            self.proven[name] += later.proven[name]
            self.contradictions[name] += later.contradictions[name]
        for name, reached in later.reached.items():
            self.reached[name] = [a + b for a, b in zip(self.reached[name], reached, strict=True)]
        for name, count in later.unknown.items():
            self.unknown[name] = self.unknown.get(name, 0) + count
        self.nameless += later.nameless
        room = len(later.kept) if self._max_calls is None else self._max_calls - len(self.kept)
        self.kept.extend(later.kept[: max(room, 0)])
        self.omitted += later.omitted + len(later.kept) - min(max(room, 0), len(later.kept))
        self.collector.merge(later.collector)


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
    replays = prepare(tools, rules, call_timeout=call_timeout, old_runtime=settings.old_runtime)
    tally = count_calls(replays, calls, settings)
    return build_report(replays, tally, calls.stats(), schema_inputs, overrides, settings)


def count_calls(
    replays: dict[str, ToolReplay], calls: Iterable[Call], settings: ReportSettings
) -> Tally:
    """Replay a stream of calls into a fresh tally."""
    tally = Tally(replays, settings)
    for call in calls:
        tally.add(*evaluate_call(replays, call))
    return tally


def build_report(
    replays: dict[str, ToolReplay],
    tally: Tally,
    log_inputs: tuple[LogStats, ...],
    schema_inputs: Sequence[str],
    overrides: Sequence[Override],
    settings: ReportSettings,
) -> Report:
    """The Report of a complete tally."""
    summaries = tuple(
        ToolSummary(
            name=name,
            location=replay.tool.location,
            pointer=replay.tool.pointer,
            shape=replay.tool.shape,
            rewrites=replay.normalized.rewrites,
            findings=_unresolved(replay.normalized),
            counts=tally.counts[name],
            old_schema_problem=replay.old_problem,
            new_schema_problem=replay.new.problem,
            reached=tuple(tally.reached[name]),
            rewrite_locations=tuple(_location(replay.tool, r) for r in replay.normalized.rewrites),
            lenient_readings=replay.readings,
            proven=tally.proven[name],
            contradictions=tally.contradictions[name],
        )
        for name, replay in sorted(replays.items())
    )
    accepted = settings.baseline.fingerprints if settings.baseline else frozenset()
    groups = tally.collector.groups({t.name: t.call_count for t in summaries}, accepted)
    return Report(
        version=__version__,
        schema_inputs=tuple(schema_inputs),
        log_inputs=log_inputs,
        totals=tally.totals,
        tools=summaries,
        calls=tuple(tally.kept),
        unknown_tools=dict(sorted(tally.unknown.items())),
        nameless_calls=tally.nameless,
        overrides=tuple(overrides),
        groups=groups,
        calls_omitted=tally.omitted,
        redacted=settings.redact,
        baseline=_baseline_use(settings.baseline, groups),
        generated_at=settings.generated_at,
        fail_on=settings.fail_on,
        old_runtime=settings.old_runtime,
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
