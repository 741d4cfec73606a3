"""Compose the stages into a Report: normalize each tool, replay each call, count everything.

Writes nothing and reads nothing but the call stream it is given, so the same inputs always
give the same Report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final, Protocol, runtime_checkable

from auditor import __version__, pointers
from auditor.aggregate.baseline import Baseline
from auditor.aggregate.evidence import evidence_line
from auditor.aggregate.gate import decide
from auditor.aggregate.groups import DEFAULT_EXAMPLES, GroupCollector
from auditor.aggregate.hints import nullable_tip, type_alias_tip
from auditor.aggregate.loosen import FileSide, ToolPatches, eligible, suggest
from auditor.aggregate.redact import DEFAULT_LIMIT, Sanitizer, tool_name
from auditor.aggregate.removed_sent import RemovedSent
from auditor.aggregate.repeats import AcceptedRepeats
from auditor.aggregate.rollup import roll_up
from auditor.defaults import DEFAULT_MAX_CALLS
from auditor.gc_thresholds import fewer_collections
from auditor.models import (
    JSON,
    BaselineUse,
    Call,
    CallResult,
    Change,
    ConstraintUse,
    Counterexample,
    CounterexampleStatus,
    DecisionHint,
    Edit,
    FailOn,
    Finding,
    Group,
    GroupBy,
    Location,
    LogStats,
    OldRuntime,
    Outcome,
    Override,
    Payload,
    ProfileRun,
    Prose,
    Report,
    Rule,
    Subject,
    ToolSchema,
    ToolSummary,
)
from auditor.replay.budget import DEFAULT_CALL_TIMEOUT, CallBudget, SearchCeiling
from auditor.replay.counterexamples import (
    MAX_SAMPLE_BYTES,
    MAX_SAMPLES,
    Sample,
    SearchBudget,
    counterexample,
)
from auditor.replay.runtimes import Runtimes, sides, with_runtime_changes
from auditor.replay.tool import (
    MEMO_ENTRIES,
    Detailed,
    Memo,
    SchemaSummary,
    ToolReplay,
    summarize,
    text_of,
)
from auditor.schema.diff import NewCatalogs, compare
from auditor.schema.keywords import draft_of
from auditor.schema.normalize import Normalized
from auditor.schema.profiles import fitting_profile, profile_tip
from auditor.schema.removals import RemovedProperty, removed_properties
from auditor.schema.sdk_runs import choose, upgrade


@runtime_checkable
class CallSource(Protocol):
    """A lazy stream of calls that can say, afterwards, how it accounted for its input."""

    def __iter__(self) -> Iterator[Call]: ...

    def stats(self) -> tuple[LogStats, ...]: ...


class CallList:
    """A call source over calls already in memory (a notebook's, a test's): no log, so no
    log statistics."""

    def __init__(self, calls: Iterable[Call]) -> None:
        self._calls = calls

    def __iter__(self) -> Iterator[Call]:
        return iter(self._calls)

    def stats(self) -> tuple[LogStats, ...]:
        return ()


class Replays(Mapping[str, ToolReplay]):
    """Every tool's replay by name, each built on its tool's first call.

    Compiling a tool (validators, the fast validator, coverage, causes) is most of an audit's
    setup, and a catalog may hold far more tools than the logs call: 100,000 tools took
    765 MB and 50 s up front. A tool never called is only normalized and checked against its
    meta-schema when the report is built (``summary``), then forgotten.
    """

    def __init__(
        self,
        tools: Iterable[ToolSchema],
        rules: Collection[Rule],
        fast: bool = True,
        call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
        old_runtime: OldRuntime = OldRuntime.LENIENT,
        new_catalogs: NewCatalogs | None = None,
        profile_runs: Sequence[ProfileRun] | None = None,
        runtimes: Runtimes | None = None,
    ) -> None:
        self._tools = {tool.name: tool for tool in tools}
        self._rules = rules
        self.profile_runs: tuple[ProfileRun, ...] = (
            choose(rules if new_catalogs is None else new_catalogs.rules)
            if profile_runs is None
            else tuple(profile_runs)
        )
        """For each profile among ``rules``: whether its SDK's own code or its model makes
        the new schemas (``auditor.schema.sdk_runs``); decided once, by whoever made the plan.
        Between two catalogs, a profile among the new catalogs' rules transforms the new
        catalogs (``--new-schemas B --rules google-genai``: B as the SDK sends it)."""
        self.new_catalogs = new_catalogs
        self._new_tools = (
            None if new_catalogs is None else {tool.name: tool for tool in new_catalogs.tools}
        )
        self.added = tuple(sorted(set(self._new_tools or ()) - set(self._tools)))
        """Tools only the new catalogs define. The log holds calls of them when something
        already served them: whatever that was, the old catalogs constrained nothing, so
        their old side is the schema that accepts everything (``{}``)."""
        for name in self.added:
            new = (self._new_tools or {})[name]
            self._tools[name] = replace(new, schema={}, positions={})
        self._fast = fast
        self._old_runtime = old_runtime
        self.runtimes = runtimes
        """How each side's runtime reads its schemas, when not as today (None)."""
        self._memo = Memo(MEMO_ENTRIES)
        self._budget = CallBudget(call_timeout)  # calls run one at a time: one budget serves all
        self.call_timeout = call_timeout
        self._built: dict[str, ToolReplay] = {}
        self._alias_tips: dict[str, Prose | None] = {}
        """The type-alias tip of each tool asked for one (``tips``), worked out once."""

    def profile_tip(self, name: str) -> Prose | None:
        """The upgrade profile the tool's catalog shape implies, when the audit normalizes
        without it (``auditor.schema.profiles.profile_tip``); None between two catalogs."""
        tool = self._tools.get(name)
        if tool is None or self.new_catalogs is not None:
            return None
        return profile_tip(tool, self._rules)

    def tips(self, group: Group, observed: Counter[str]) -> tuple[Prose, ...]:
        """What the group's hint adds about the dialect (issue #29): the rule family that
        reads a ``nullable: true`` beside a failing ``type``, the one that rewrites type
        aliases (``auditor.aggregate.hints``), and the profile the catalog's shape implies
        (unless the first names it); none between two catalogs, which are taken as written."""
        tool = self._tools.get(group.tool)
        if tool is None or self.new_catalogs is not None:
            return ()
        fitting = fitting_profile(tool)
        profile = None if fitting is None or fitting[0] in self._rules else fitting[0]
        tips: list[Prose] = []
        _, normalized, _ = self.summary(group.tool)
        nullable = nullable_tip(
            group.keyword, group.schema_pointer, normalized.schema, observed, self._rules, profile
        )
        if nullable is not None:
            tips.append(nullable[1])
        if group.keyword == "type" or group.outcome is Outcome.SCHEMA_ERROR_AFTER:
            if group.tool not in self._alias_tips:
                self._alias_tips[group.tool] = type_alias_tip(tool.schema, self._rules)
            alias = self._alias_tips[group.tool]
            if alias is not None:
                tips.append(alias)
        tip = self.profile_tip(group.tool)
        if tip is not None and (nullable is None or nullable[0] is not profile):
            tips.append(tip)
        return tuple(tips)

    def __getitem__(self, name: str) -> ToolReplay:
        replay = self._built.get(name)
        if replay is None:
            tool = self._tools[name]
            normalized = self._new_side(tool)
            replay = ToolReplay(
                tool,
                normalized,
                self._fast,
                self._memo,
                self._budget,
                self._old_runtime,
                self.runtimes,
            )
            self._built[name] = replay
        return replay

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def build_all(self, most: int) -> None:
        """Compile every tool now when there are at most ``most`` of them: before forking
        workers, so that they share the compiled tools instead of each compiling its own."""
        if len(self._tools) <= most:
            for name in self._tools:
                self[name]

    def summary(self, name: str) -> tuple[ToolSchema, Normalized, SchemaSummary]:
        """A tool, its normalization and what the report says of its schemas, without
        compiling a tool that was never called."""
        replay = self._built.get(name)
        if replay is not None:
            schemas = SchemaSummary(replay.old_problem, replay.new.problem, replay.readings)
            return replay.tool, replay.normalized, schemas
        tool = self._tools[name]
        normalized = self._new_side(tool)
        return tool, normalized, summarize(tool, normalized, self._old_runtime, self.runtimes)

    def _new_side(self, tool: ToolSchema) -> Normalized:
        if self._new_tools is None or self.new_catalogs is None:
            normalized = _normalize(tool, self._rules, self.profile_runs)
        else:
            new = self._new_tools.get(tool.name)
            normalized = compare(tool, new, self.new_catalogs.rules, self.profile_runs)
        return with_runtime_changes(normalized, self.runtimes)

    @property
    def rules(self) -> Collection[Rule]:
        """The normalization of the old catalogs (the new side when there are no new ones)."""
        return self._rules

    def searchable(self, name: str) -> ToolReplay:
        """The tool's replay, compiled for the counterexample search if no call built it;
        not kept: a catalog may hold far more tools than the logs call."""
        built = self._built.get(name)
        if built is not None:
            return built
        tool = self._tools[name]
        return ToolReplay(
            tool,
            self._new_side(tool),
            self._fast,
            self._memo,
            self._budget,
            self._old_runtime,
            self.runtimes,
        )

    def new_tool(self, name: str) -> ToolSchema | None:
        """The tool of this name in the new catalogs, when there are new catalogs."""
        return None if self._new_tools is None else self._new_tools.get(name)

    def edited(self, name: str, schema: JSON) -> ToolReplay:
        """The tool's replay as the audit would make it were its catalog file's schema
        ``schema`` (the old catalog's for a normalization, the new one's between catalogs):
        the same rules, profiles and runtimes, with a memo of its own (the verdicts differ)."""
        tool = self._tools[name]
        if self._new_tools is None or self.new_catalogs is None:
            tool = replace(tool, schema=schema)
            normalized = _normalize(tool, self._rules, self.profile_runs)
        else:
            new = replace(self._new_tools[name], schema=schema)
            normalized = compare(tool, new, self.new_catalogs.rules)
        return ToolReplay(
            tool,
            with_runtime_changes(normalized, self.runtimes),
            self._fast,
            Memo(MAX_SAMPLES),
            self._budget,
            self._old_runtime,
            self.runtimes,
        )


_NEW_SIDE_REJECTS: Final = frozenset(
    {Outcome.NEWLY_REJECTED, Outcome.STILL_REJECTED, Outcome.SCHEMA_ERROR_AFTER}
)
"""Outcomes where the new side rejects a call (or cannot be used for it)."""


class HeldCalls:
    """A tool's accepted calls the tally holds (its samples: the first distinct ones, bounded
    by ``MAX_SAMPLES`` and ``MAX_SAMPLE_BYTES``), replayed against the tool's catalog schema
    edited by a patch (``auditor.aggregate.loosen.HeldCalls``)."""

    def __init__(self, replays: Replays, tool: str, samples: Mapping[str, Sample]) -> None:
        self.replays = replays
        self.tool = tool
        self.samples = samples
        self._last: tuple[JSON, ToolReplay] | None = None
        """The replay of the schema last asked about: a patch asks twice of one schema."""

    def _replay(self, edited: JSON) -> ToolReplay:
        if self._last is None or self._last[0] is not edited:
            self._last = (edited, self.replays.edited(self.tool, edited))
        return self._last[1]

    def renormalized(self, edited: JSON) -> JSON:
        return self._replay(edited).normalized.schema

    def newly_rejected(self, edited: JSON) -> tuple[str, ...]:
        replay = self._replay(edited)
        rejected = []
        for text, (source, arguments) in self.samples.items():
            result, _ = replay.evaluate(Call(source, self.tool, arguments, text=text))
            # The new side decides: the sample, accepted by the audit, is replayed without
            # what the log said of it, so the old side's verdict may differ from the audit's.
            if result.outcome in _NEW_SIDE_REJECTS:
                rejected.append(source)
        return tuple(rejected)


def prepare(
    tools: Iterable[ToolSchema],
    rules: Collection[Rule],
    fast: bool = True,
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
    old_runtime: OldRuntime = OldRuntime.LENIENT,
    new_catalogs: NewCatalogs | None = None,
    profile_runs: Sequence[ProfileRun] | None = None,
    runtimes: Runtimes | None = None,
) -> Replays:
    """Every tool, normalized and compiled on its first call. ``fast=False``: the reference
    validator only; evaluating one call may take ``call_timeout`` seconds (None: unbounded);
    ``old_runtime`` is what enforced the old schemas when the logs were written;
    ``new_catalogs``, when given, is the new side instead of the normalized ``tools``;
    ``profile_runs``: which code makes each profile's schemas (None: decided here,
    ``auditor.schema.sdk_runs.choose``); ``runtimes``: how each side's runtime reads its
    schemas, when not as today."""
    return Replays(
        tools, rules, fast, call_timeout, old_runtime, new_catalogs, profile_runs, runtimes
    )


def _normalize(
    tool: ToolSchema, rules: Collection[Rule], runs: Sequence[ProfileRun] = ()
) -> Normalized:
    try:
        return upgrade(tool.schema, rules, runs)
    except RecursionError:
        # Too deep to walk: left as written; compiling it reports the same depth problem.
        return Normalized(tool.schema, (), (), draft_of(tool.schema))


def _unresolved(normalized: Normalized) -> tuple[Finding, ...]:
    """Findings the rewrites do not already fix: the report lists a rewrite once."""
    fixed = {r.pointer for r in normalized.rewrites}
    return tuple(f for f in normalized.findings if f.pointer not in fixed)


_NOTHING_REACHED: frozenset[int] = frozenset()


def evaluate_call(
    replays: Mapping[str, ToolReplay], call: Call, detailed: Detailed | None = None
) -> tuple[CallResult, frozenset[int]]:
    """One call's outcome and the indices of its tool's rewrites its evaluation reached;
    ``detailed``: whether the report shows a result in detail (``Tally.detailed``)."""
    if call.tool is not None and call.tool not in replays:
        return CallResult(call, Outcome.UNKNOWN_TOOL), _NOTHING_REACHED
    if call.tool is None or call.unparsed is not None:
        return CallResult(call, Outcome.UNPARSEABLE), _NOTHING_REACHED
    return replays[call.tool].evaluate(call, detailed)


MAX_UNKNOWN_TOOLS: Final = 1_000
"""Distinct unknown tool names counted by name; calls of the others are counted together.
100,000 distinct names took 737 MB, a 116 MB table and a 113 MB JSON report."""

MAX_REACHED_SETS: Final = 4_096
"""Distinct sets of reached rewrites a tool's calls are counted by before they are added to
its counts by rewrite: memory stays bounded when nearly every call reaches a set of its own."""

MAX_SAMPLED_TOOLS: Final = 1_000
"""Tools whose accepted calls are kept as samples (the first names in sorted order); the
others' counterexamples are built from their schemas."""
MAX_UNCALLED_SEARCHED: Final = 50
"""Tools no call named whose changes the counterexample search compiles them for."""


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
    runtimes: Runtimes | None = None
    """How each side's runtime reads its schemas, when not as today (``--new-runtime``,
    ``--assert-formats``, ``--default-dialect``, an SDK ``--old-runtime``)."""
    group_by: GroupBy = GroupBy.CONSTRAINT
    fail_min_calls: int = 1
    fail_min_share: float = 0.0
    subject: Subject = Subject.ARGUMENTS
    """What the calls are: results get group fingerprints of their own."""


class Tally:
    """What the report counts, filled call by call in log order.

    Mergeable: chunks of a log can be counted apart (in worker processes) and merged in log
    order, which gives exactly the tally of one pass over the whole log.
    """

    def __init__(self, replays: Mapping[str, ToolReplay], settings: ReportSettings) -> None:
        """``replays``: the tools calls are counted for (only the called ones take room)."""
        self._sanitizer = Sanitizer(settings.redact, settings.value_limit)
        self._max_calls = settings.max_calls
        self.counts: dict[str, dict[Outcome, int]] = {}
        """Outcome counts of each tool called at least once."""
        self._reached: dict[str, dict[int, int]] = {}
        """Calls that reached each rewrite (by index) of each tool, but those still counted
        by set in ``_reached_sets`` (``reached`` adds them)."""
        self._reached_sets: dict[str, dict[frozenset[int], int]] = {}
        """Per tool, calls by the set of rewrite indices they reached: one dict step a call
        whatever the set's size, where adding one per index took 3% of an audit (a tool's
        calls reach a few sets, each one object: ``ToolReplay.evaluate`` shares them)."""
        self.proven: dict[str, int] = {}
        self.contradictions: dict[str, int] = {}
        self.totals = dict.fromkeys(Outcome, 0)
        self.unknown: dict[str, int] = {}
        """Calls by unknown tool name: the ``MAX_UNKNOWN_TOOLS`` first names in sorted order,
        whatever order the calls come in, so that merging part tallies gives one pass's."""
        self.unknown_other = 0
        """Calls of unknown tools whose names are not in ``unknown``."""
        self._unknown_above: str | None = None
        """Names above this one can no longer be among the first: counted in the other."""
        self.nameless = 0
        self.over_budget = 0
        """Calls whose evaluation ran out of the CPU-time budget of a call."""
        self.kept: list[CallResult] = []
        self.omitted = 0
        self.collector = GroupCollector(
            settings.examples,
            by_caller=settings.group_by is GroupBy.CALLER,
            results=settings.subject is Subject.RESULTS,
        )
        self._replays: Mapping[str, ToolReplay] | None = replays
        self.samples: dict[str, dict[str, Sample]] = {}
        """Per tool, the first ``MAX_SAMPLES`` distinct small accepted arguments in log order,
        by their text: what counterexamples are edited from."""
        self._samples_above: str | None = None
        """Tools named above this one keep no samples (see ``_samples_of``)."""
        self.failed_changes: dict[str, set[Change]] = {}
        """Per tool, the changes that caused an error of a newly rejected call."""
        self.failed: dict[str, dict[str, int]] = {}
        """Per tool, calls the new schema rejected at each keyword pointer."""
        self.filled_before: Collection[str] = ()
        """Groups whose examples calls before these, counted apart, filled (a ``--jobs``
        worker's earlier parts): ``detailed`` counts them as settled."""
        self.removed_sent = RemovedSent()
        """The calls that still send a property the change removed (``removed_sent``)."""
        self._removals: dict[str, tuple[RemovedProperty, ...]] = {}
        """Per tool counted, the properties its change removed (``removals``)."""

    def __getstate__(self) -> dict[str, object]:
        # A part tally comes back from its worker by pickle: without the compiled tools, and
        # with its calls counted by rewrite, not by set: a few ints per tool instead of one
        # frozenset per set, which the parent unpickled at 2.48 CPU s per 300,000 calls.
        self._fold_reached()
        state = dict(self.__dict__)
        state["_replays"] = None
        state["_removals"] = {}
        return state

    def add(self, result: CallResult, reached: frozenset[int], weight: int = 1) -> None:
        """Count one call, or ``weight`` calls of one accepted payload: an accepted call is
        only counted (its sample is kept once), so that its repeats can be counted together
        (``auditor.aggregate.repeats``); any other call is listed and grouped on its own."""
        outcome = result.outcome
        if weight != 1 and outcome is not Outcome.ACCEPTED:
            raise ValueError(f"a {outcome.value} call is counted one at a time")
        call = result.call
        tool = call.tool
        # Once per call: what is zero for most calls is only added when it is not.
        self.totals[outcome] += weight
        if result.over_budget:
            self.over_budget += weight
        if outcome is Outcome.UNKNOWN_TOOL and tool is not None:
            self._count_unknown(tool_name(tool), 1)
        elif tool is not None:  # a known tool: unknown ones are counted above
            counts = self.counts.get(tool)
            if counts is None:
                counts = self.counts[tool] = dict.fromkeys(Outcome, 0)
                self.proven[tool] = self.contradictions[tool] = 0
            counts[outcome] += weight
            if result.proven:
                self.proven[tool] += weight
            if result.contradicts:
                self.contradictions[tool] += weight
            if reached:
                by_set = self._reached_sets.get(tool)
                if by_set is None:
                    by_set = self._reached_sets[tool] = {}
                by_set[reached] = by_set.get(reached, 0) + weight
                if len(by_set) > MAX_REACHED_SETS:
                    self._add_reached(tool)
            self._note_use(tool, result)
            removals = self.removals(tool)
            if removals:
                caller = None if call.caller is None else self._sanitizer.caller(call.caller)
                self.removed_sent.add(tool, removals, result, caller, weight)
        else:
            self.nameless += 1
        if outcome is Outcome.ACCEPTED:
            return
        shown = self._sanitizer.result(result)
        schema = None
        if result.outcome is Outcome.NEWLY_REJECTED and self._replays is not None and call.tool:
            schema = self._replays[call.tool].normalized.schema
        self.collector.add(shown, result, schema)
        if self._max_calls is None or len(self.kept) < self._max_calls:
            self.kept.append(shown)
        else:
            self.omitted += 1

    @property
    def reached(self) -> dict[str, dict[int, int]]:
        """Calls that reached each rewrite (by index) of each tool called at least once."""
        self._fold_reached()
        return self._reached

    def _fold_reached(self) -> None:
        """Add every tool's calls counted by set to its counts by rewrite."""
        for tool in list(self._reached_sets):
            self._add_reached(tool)

    def _add_reached(self, tool: str) -> None:
        """Add the calls counted by set to the counts by rewrite, and forget the sets."""
        counts = self._reached.setdefault(tool, {})
        for reached, calls in self._reached_sets.pop(tool).items():
            for index in reached:
                counts[index] = counts.get(index, 0) + calls

    def removals(self, tool: str) -> tuple[RemovedProperty, ...]:
        """The properties the change removed from ``tool``'s schema that calls can send
        (``auditor.schema.removals``); none where the new side is the old one normalized, whose
        rewrites never touch a property name."""
        found = self._removals.get(tool)
        if found is None:
            replays = self._replays
            found = ()
            if isinstance(replays, Replays):
                if replays.new_catalogs is not None and tool in replays:
                    _, normalized, _ = replays.summary(tool)
                    found = removed_properties(normalized.schema, normalized.rewrites)
            elif replays is not None and tool in replays:
                normalized = replays[tool].normalized
                found = removed_properties(normalized.schema, normalized.rewrites)
            self._removals[tool] = found
        return found

    def one_by_one(self, payload: Payload) -> bool:
        """Whether the calls of ``payload`` (tool, arguments text, evidence) are counted one
        by one, never as repeats of an accepted payload: those that send a property the
        change removed, which are listed by caller and line."""
        tool, text, _ = payload
        removals = self.removals(tool)
        return bool(removals) and bool(self.removed_sent.sent(tool, removals, text))

    def _note_use(self, tool: str, result: CallResult) -> None:
        """Keep the call as a sample, or count the keywords and changes it failed."""
        if result.outcome is Outcome.ACCEPTED:
            self.offer(tool, result.call)
            return
        if result.errors:
            failed = self.failed.setdefault(tool, {})
            for pointer in {issue.schema_pointer for issue in result.errors}:
                failed[pointer] = failed.get(pointer, 0) + 1
        if result.outcome is Outcome.NEWLY_REJECTED:
            causes = {cause for issue in result.errors for cause in issue.causes}
            self.failed_changes.setdefault(tool, set()).update(causes)

    def offer(self, tool: str, call: Call) -> None:
        """Keep an accepted call of ``tool`` as a sample if its text is among the first
        ``MAX_SAMPLES`` distinct ones; counting it is ``add``'s business."""
        samples = self._samples_of(tool)
        if samples is not None and len(samples) < MAX_SAMPLES:
            text = call.text or text_of(call.arguments)
            if text is not None and len(text) <= MAX_SAMPLE_BYTES and text not in samples:
                samples[text] = (call.source, call.arguments)

    def _samples_of(self, tool: str) -> dict[str, Sample] | None:
        """The tool's samples, when it is among the ``MAX_SAMPLED_TOOLS`` first names (sorted)
        of the tools with accepted calls: memory stays bounded whatever the catalog, and, as
        for unknown tools, a part keeps every name the whole log keeps, so merges are exact."""
        samples = self.samples.get(tool)
        if samples is not None:
            return samples
        if self._samples_above is not None and tool > self._samples_above:
            return None
        samples = self.samples[tool] = {}
        if len(self.samples) > MAX_SAMPLED_TOOLS:
            last = max(self.samples)
            del self.samples[last]
            self._samples_above = (
                last if self._samples_above is None else min(last, self._samples_above)
            )
        return self.samples.get(tool)

    def _count_unknown(self, name: str, count: int) -> None:
        # A part keeps its first names in sorted order; any name among the first of the whole
        # log is among the first of its part, so merged counts are exact.
        if self._unknown_above is not None and name > self._unknown_above:
            self.unknown_other += count
            return
        self.unknown[name] = self.unknown.get(name, 0) + count
        if len(self.unknown) >= 2 * MAX_UNKNOWN_TOOLS:  # trimmed in batches: amortized
            self.trim_unknown(MAX_UNKNOWN_TOOLS)

    def trim_unknown(self, keep: int = MAX_UNKNOWN_TOOLS) -> None:
        """Keep the first ``keep`` unknown names in sorted order; count the rest as other."""
        if len(self.unknown) <= keep:
            return
        names = sorted(self.unknown)
        for name in names[keep:]:
            self.unknown_other += self.unknown.pop(name)
        self._unknown_above = names[keep - 1]

    def detailed(self, result: CallResult) -> bool:
        """Whether counting ``result`` would show it in detail: listed in the calls, or the
        first call or an example of a group. A result shown only in counts and evidence may
        carry the fast validator's errors (``ToolReplay.evaluate``)."""
        if not self.full:
            return True
        call = result.call
        caller = None if call.caller is None else self._sanitizer.caller(call.caller)
        tool = tool_name(call.tool or "")
        return not self.collector.settled(result, tool, caller, self.filled_before)

    @property
    def full(self) -> bool:
        """Whether ``kept`` holds all the calls a report lists: those of any later calls
        would only be counted as omitted."""
        return self._max_calls is not None and len(self.kept) >= self._max_calls

    def drop_kept(self) -> None:
        """Count the kept calls as omitted and let them go: for the tally of calls that come
        after a full one (``full``), whose calls no merge can list."""
        self.omitted += len(self.kept)
        self.kept = []

    def merge(self, later: Tally) -> None:
        """Add the tally of the calls that come after these in the log."""
        for outcome, count in later.totals.items():
            self.totals[outcome] += count
        for name, counts in later.counts.items():
            mine = self.counts.setdefault(name, dict.fromkeys(Outcome, 0))
            for outcome, count in counts.items():
                mine[outcome] += count
        for name in later.counts:
            self.proven[name] = self.proven.get(name, 0) + later.proven[name]
            self.contradictions[name] = (
                self.contradictions.get(name, 0) + later.contradictions[name]
            )
        for name, reached in later.reached.items():
            tool_reached = self._reached.setdefault(name, {})
            for index, count in reached.items():
                tool_reached[index] = tool_reached.get(index, 0) + count
        for name, count in later.unknown.items():
            self._count_unknown(name, count)
        self.unknown_other += later.unknown_other
        self.trim_unknown(MAX_UNKNOWN_TOOLS)
        self.nameless += later.nameless
        self.over_budget += later.over_budget
        room = len(later.kept) if self._max_calls is None else self._max_calls - len(self.kept)
        self.kept.extend(later.kept[: max(room, 0)])
        self.omitted += later.omitted + len(later.kept) - min(max(room, 0), len(later.kept))
        self.collector.merge(later.collector)
        for name, samples in later.samples.items():
            # Each part keeps its first distinct samples; those of the whole log are among
            # them (a part repeats at most as many earlier ones as there are), so the merged
            # samples are one pass's.
            mine_samples = self._samples_of(name)
            for text, sample in samples.items():
                if mine_samples is not None and len(mine_samples) < MAX_SAMPLES:
                    mine_samples.setdefault(text, sample)
        for name, changes in later.failed_changes.items():
            self.failed_changes.setdefault(name, set()).update(changes)
        for name, failed in later.failed.items():
            mine_failed = self.failed.setdefault(name, {})
            for pointer, count in failed.items():
                mine_failed[pointer] = mine_failed.get(pointer, 0) + count
        self.removed_sent.merge(later.removed_sent)


def count_calls(
    replays: Mapping[str, ToolReplay],
    calls: Iterable[Call],
    settings: ReportSettings,
    repeats: AcceptedRepeats | None = None,
    tally: Tally | None = None,
) -> Tally:
    """Replay a stream of calls into a fresh tally, distinct first: a call repeating a payload
    already replayed as accepted is only counted (``auditor.aggregate.repeats``); one of a
    payload ``repeats`` was preloaded with (known accepted) is not replayed at all.

    ``repeats``: the accepted payloads, when the reader of ``calls`` counts their repeats
    itself (``LogReader(known=repeats)``), before they become ``Call`` records.
    ``tally``: an empty one to count into instead (a ``--jobs`` worker's, whose ``full`` also
    knows when earlier parts hold the whole list of calls)."""
    tally = Tally(replays, settings) if tally is None else tally
    repeats = AcceptedRepeats() if repeats is None else repeats
    repeats.one_by_one = tally.one_by_one
    preloaded = repeats.preloaded if repeats.preloading else None
    with fewer_collections():
        for call in calls:
            payload = repeats.payload(call)
            if payload is not None and repeats.repeat(payload):
                continue
            if preloaded is not None and payload is not None and preloaded(payload):
                tally.offer(payload[0], call)  # a sample where its replay would have been one
                continue
            # Until the listed calls are full every result is shown: no need to ask per call.
            detailed = tally.detailed if tally.full else None
            result, reached = evaluate_call(replays, call, detailed)
            tally.add(result, reached)
            if payload is not None and repeats.remember(payload, result, reached):
                _settle(tally, repeats)
        _settle(tally, repeats)
    return tally


def _settle(tally: Tally, repeats: AcceptedRepeats) -> None:
    for result, reached, weight in repeats.settle():
        tally.add(result, reached, weight)


def _with_tips(group: Group, replays: Replays, collector: GroupCollector) -> Group:
    """The group's hint, naming the rule families the dialect and the catalog's shape call
    for (issues #27, #29: ``Replays.tips``)."""
    tips = replays.tips(group, collector.observed(group.fingerprint))
    if not tips:
        return group
    text = Prose.of(group.hint.text, *(Prose.of(" ", tip) for tip in tips))
    return replace(group, hint=DecisionHint(group.hint.kind, text))


@fewer_collections()
def build_report(
    replays: Replays,
    tally: Tally,
    log_inputs: tuple[LogStats, ...],
    schema_inputs: Sequence[str],
    overrides: Sequence[Override],
    settings: ReportSettings,
) -> Report:
    """The Report of a complete tally."""
    tally.trim_unknown()
    summaries = tuple(_summary(name, replays, tally) for name in sorted(replays))
    sanitizer = Sanitizer(settings.redact, settings.value_limit)
    accepted = settings.baseline.fingerprints if settings.baseline else frozenset()
    groups = tally.collector.groups({t.name: t.call_count for t in summaries}, accepted)
    # The counterexample searches and the patches' checks share one CPU-time ceiling.
    searches = SearchCeiling(replays.call_timeout)
    shared: dict[str, ToolPatches] = {}  # by tool: what its groups' patches share
    groups = tuple(
        _with_patch(g, replays, tally, settings.redact, searches, shared) for g in groups
    )
    groups = tuple(_with_evidence(g, replays, tally.collector) for g in groups)
    groups = tuple(_with_tips(g, replays, tally.collector) for g in groups)
    return Report(
        version=__version__,
        schema_inputs=tuple(schema_inputs),
        log_inputs=log_inputs,
        totals=tally.totals,
        tools=summaries,
        calls=tuple(tally.kept),
        unknown_tools=dict(sorted(tally.unknown.items())),
        unknown_tools_other=tally.unknown_other,
        nameless_calls=tally.nameless,
        calls_over_budget=tally.over_budget,
        overrides=tuple(overrides),
        groups=groups,
        calls_omitted=tally.omitted,
        redacted=settings.redact,
        baseline=_baseline_use(settings.baseline, groups),
        generated_at=settings.generated_at,
        fail_on=settings.fail_on,
        old_runtime=settings.old_runtime,
        runtimes=sides(replays.runtimes),
        new_schema_inputs=() if replays.new_catalogs is None else replays.new_catalogs.inputs,
        against=None if replays.new_catalogs is None else replays.new_catalogs.against,
        profile_runs=replays.profile_runs,
        added_tools=replays.added,
        group_by=settings.group_by,
        fail_min_calls=settings.fail_min_calls,
        fail_min_share=settings.fail_min_share,
        counterexamples=tuple(
            _shown(c, sanitizer) for c in _counterexamples(replays, tally, summaries, searches)
        ),
        removed_properties=tally.removed_sent.findings(),
        gate=decide(groups, settings.fail_on, settings.fail_min_calls, settings.fail_min_share),
        rollup=roll_up(groups),
    )


def _with_evidence(group: Group, replays: Replays, collector: GroupCollector) -> Group:
    """``group`` with its keyword's limit against what its calls sent."""
    if not group.keyword or group.tool not in replays:
        return group
    _, normalized, _ = replays.summary(group.tool)
    has_limit, limit = pointers.resolve(normalized.schema, group.schema_pointer)
    line = evidence_line(
        group.keyword,
        limit,
        has_limit,
        collector.witness(group.fingerprint),
        collector.observed(group.fingerprint),
    )
    return replace(group, evidence=line)


def _with_patch(
    group: Group,
    replays: Replays,
    tally: Tally,
    redact: bool,
    searches: SearchCeiling,
    shared: dict[str, ToolPatches],
) -> Group:
    """``group`` with its suggested loosening, where it gets one (``loosen.eligible``);
    ``shared`` keeps what the patches of each tool share, made at its first group (groups
    of several tools come in any order). A patch the rules change once written into the
    catalog is re-checked against the tool's accepted calls the tally holds."""
    witness = tally.collector.witness(group.fingerprint)
    if not eligible(group) or witness is None or group.tool not in replays:
        return group
    patches = shared.get(group.tool)
    if patches is None:
        tool, normalized, _ = replays.summary(group.tool)
        if replays.new_catalogs is None:
            side: FileSide | None = FileSide(tool, replays.rules)
        else:
            new = replays.new_tool(group.tool)
            side = None if new is None else FileSide(new, replays.new_catalogs.rules)
        held = HeldCalls(replays, group.tool, tally.samples.get(group.tool, {}))
        patches = shared[group.tool] = ToolPatches(normalized.schema, side, held)
    patch = suggest(
        group.keyword,
        group.schema_pointer,
        patches.new_schema,
        witness,
        redact,
        patches.side,
        searches,
        patches,
    )
    return replace(group, patch=patch)


def _summary(name: str, replays: Replays, tally: Tally) -> ToolSummary:
    tool, normalized, schemas = replays.summary(name)
    reached = tally.reached.get(name, {})
    return ToolSummary(
        name=name,
        location=tool.location,
        pointer=tool.pointer,
        shape=tool.shape,
        rewrites=normalized.rewrites,
        findings=_unresolved(normalized),
        counts=tally.counts.get(name) or dict.fromkeys(Outcome, 0),
        old_schema_problem=schemas.old_problem,
        new_schema_problem=schemas.new_problem,
        reached=tuple(reached.get(index, 0) for index in range(len(normalized.rewrites))),
        rewrite_locations=tuple(
            _location(tool, r, replays.new_tool(name)) for r in normalized.rewrites
        ),
        lenient_readings=schemas.readings,
        proven=tally.proven.get(name, 0),
        contradictions=tally.contradictions.get(name, 0),
        constraints=_constraints(name, replays, tally, len(normalized.rewrites)),
        text_edits=normalized.text_edits,
    )


def _constraints(
    name: str, replays: Replays, tally: Tally, first: int
) -> tuple[ConstraintUse, ...]:
    """Every constraint keyword of a called tool's new schema, with the calls that reached
    and failed it; none for a tool no call named (all of its constraints are unreached)."""
    if name not in tally.counts:
        return ()
    replay = replays[name]
    reached = tally.reached.get(name, {})
    failed = tally.failed.get(name, {})
    return tuple(
        ConstraintUse(
            site.pointer, site.keyword, reached.get(first + i, 0), failed.get(site.pointer, 0)
        )
        for i, site in enumerate(replay.constraints)
    )


def _counterexamples(
    replays: Replays, tally: Tally, summaries: Sequence[ToolSummary], searches: SearchCeiling
) -> Iterator[Counterexample]:
    """A counterexample (or why none) for each change no call reached or none failed."""
    budget = SearchBudget(ceiling=searches)
    uncalled = 0
    for summary in summaries:
        failed = tally.failed_changes.get(summary.name, set())
        untested = [
            index
            for index, (rewrite, reached) in enumerate(
                zip(summary.rewrites, summary.reached, strict=True)
            )
            if not reached or rewrite not in failed
        ]
        if not untested:
            continue
        if summary.name not in tally.counts:
            uncalled += 1
            if uncalled > MAX_UNCALLED_SEARCHED:
                # Compiling every tool of a huge catalog is what the lazy replays avoid.
                for index in untested:
                    yield Counterexample(
                        summary.name,
                        summary.rewrites[index],
                        CounterexampleStatus.NOT_FOUND,
                        reason=f"not searched: no call named the tool, and only the first "
                        f"{MAX_UNCALLED_SEARCHED} such tools are searched",
                    )
                continue
        replay = replays.searchable(summary.name)
        samples = list(tally.samples.get(summary.name, {}).values())
        for index in untested:
            yield counterexample(replay, index, samples, budget)


def _shown(found: Counterexample, sanitizer: Sanitizer) -> Counterexample:
    """A counterexample edited from a logged call holds logged data: sanitized like any
    (its patch's values too, and the keys in its paths). One generated from the schema holds
    none: only its long strings are cut, so that reports stay small."""
    if found.derived_from is None:
        if found.arguments is None:
            return found
        return replace(found, arguments=replace(sanitizer, redact=False).value(found.arguments))
    return replace(
        found,
        arguments=sanitizer.value(found.arguments),
        patch=tuple(_shown_operation(operation, sanitizer) for operation in found.patch),
    )


def _shown_operation(operation: JSON, sanitizer: Sanitizer) -> JSON:
    if not isinstance(operation, dict):
        return operation
    shown = dict(operation)
    path = operation.get("path")
    if isinstance(path, str):
        shown["path"] = pointers.from_segments(sanitizer.key(s) for s in pointers.split(path))
    if "value" in operation:
        shown["value"] = sanitizer.value(operation["value"])
    return shown


def _location(tool: ToolSchema, rewrite: Change, new: ToolSchema | None) -> Location | None:
    """Where the rewritten key stands in the catalog file (the key, even for a type value);
    for a change between catalogs, in the new catalog where the change is still there."""
    if new is not None and rewrite.edit is not Edit.REMOVE:
        position = new.positions.get(rewrite.new_pointer)
        if position is not None:
            return Location(new.location.path, *position)
    position = tool.positions.get(rewrite.pointer)
    if position is None and rewrite.edit is Edit.ADD:
        # An added key is not in the file: the object it is added to is.
        holder = pointers.parent(rewrite.pointer)
        if not holder:
            return tool.location
        position = tool.positions.get(holder)
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
