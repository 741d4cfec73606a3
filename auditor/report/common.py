"""Wording shared by the renderers, so that every format says the same thing the same way."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from auditor.json_text import compact_json
from auditor.models import (
    JSON,
    CallResult,
    Change,
    ChangeKind,
    CounterexampleStatus,
    FailOn,
    Group,
    LenientReading,
    Location,
    LogStats,
    OldRuntime,
    Outcome,
    ProfileRun,
    Prose,
    Report,
    RollUp,
    RollUpEntry,
    RollUpKind,
    RuntimeSide,
    SchemaPatch,
    Span,
    Subject,
    ToolSummary,
    UnparsedKind,
)
from auditor.report import escape, prose
from auditor.schema.lenient import DANGLING_REF, REMOTE_REF
from auditor.words import agree, plural
from auditor.words import share_text as threshold_text

MAX_ARGUMENTS: Final = 300
"""Characters of one example's arguments in human-readable formats."""

OUTCOME_LABELS: Final[dict[Outcome, str]] = {
    Outcome.ACCEPTED: "accepted",
    Outcome.NEWLY_REJECTED: "newly rejected",
    Outcome.STILL_REJECTED: "still rejected",
    Outcome.NEWLY_ACCEPTED: "newly accepted",
    Outcome.SCHEMA_ERROR_BEFORE: "schema error before",
    Outcome.SCHEMA_ERROR_AFTER: "schema error after",
    Outcome.UNKNOWN_TOOL: "unknown tool",
    Outcome.UNPARSEABLE: "unparseable",
}

# Columns of the per-tool summary, in the order a reviewer reads them: the headline first.
SUMMARY_OUTCOMES: Final[tuple[Outcome, ...]] = (
    Outcome.NEWLY_REJECTED,
    Outcome.SCHEMA_ERROR_AFTER,
    Outcome.ACCEPTED,
    Outcome.STILL_REJECTED,
    Outcome.NEWLY_ACCEPTED,
    Outcome.SCHEMA_ERROR_BEFORE,
    Outcome.UNPARSEABLE,
)


RUNTIME_LINES: Final[dict[OldRuntime, str]] = {
    OldRuntime.LENIENT: (
        "Old runtime: lenient (what the old schema could not evaluate enforced nothing: unknown "
        "keywords, invalid type names, invalid keyword values, unresolvable references; "
        "the rest applied)."
    ),
    OldRuntime.STANDARD: (
        "Old runtime: standard (a conforming JSON Schema validator; an old schema failing its "
        "meta-schema was unusable)."
    ),
    OldRuntime.NONE: (
        "Old runtime: none (nothing validated the arguments before: every call passed)."
    ),
    OldRuntime.MCP_TS_V1: (
        "Old runtime: mcp-ts-v1 (the MCP TypeScript SDK 1.x: one draft-07 Ajv with "
        "ajv-formats; a schema it could not use was unusable)."
    ),
    OldRuntime.MCP_TS_V2: (
        "Old runtime: mcp-ts-v2 (the MCP TypeScript SDK 2.x: Ajv by $schema with "
        "ajv-formats; a schema it could not use was unusable)."
    ),
    OldRuntime.MCP_PYTHON_1: (
        "Old runtime: mcp-python-1 (the MCP Python SDK 1.x: python-jsonschema by $schema, "
        "formats not asserted; a schema failing its meta-schema was unusable)."
    ),
}
"""One line per model of the old runtime, said by every format."""


def runtime_line(report: Report) -> str:
    """Which old-runtime model the verdicts rest on, in one line; then, when either side's
    runtime is not today's default, what each side's runtime was."""
    line = RUNTIME_LINES[report.old_runtime]
    if report.runtimes is None:
        return line
    old, new = report.runtimes
    return f"{line} Runtimes: old {_side_text(old)}; new {_side_text(new)}."


def _side_text(side: RuntimeSide) -> str:
    formats = f"format asserted by {side.formats}" if side.formats else "format not asserted"
    return (
        f"{side.name} ({side.default_dialect} by default, {formats}, verdicts by {side.verdicts})"
    )


def runtime_note(tool: ToolSummary) -> Prose | None:
    """Why the lenient reading changes this tool's outcomes, in one sentence; None when it
    does not (a valid old schema, or no call of the tool)."""
    if not tool.lenient_readings or not tool.call_count:
        return None
    first = tool.lenient_readings[0]
    more = len(tool.lenient_readings) - 1
    also = f" (and {plural(more, 'more place')})" if more else ""
    return Prose.of(reading_text(first), f"; read as enforcing nothing there{also}")


def reading_text(reading: LenientReading) -> Prose:
    """``the old schema is not valid JSON Schema at `/type` (`"String"`)``."""
    shown = Span.code(compact(reading.value, 60))
    if reading.reason in (DANGLING_REF, REMOTE_REF):
        pointer = Span.code(reading.pointer)
        return Prose.of("the old schema's $ref at ", pointer, " (", shown, f") {reading.reason}")
    pointer = Span.code(reading.pointer or "/")
    return Prose.of("the old schema is not valid JSON Schema at ", pointer, " (", shown, ")")


def runtime_lines(report: Report) -> list[Prose]:
    """The old-runtime line, then one line per tool whose outcomes it changes, and the
    contradictions between the log's evidence and the model (names as code)."""
    notes = [
        Prose.of(Span.code(tool.name), ": ", note, ".")
        for tool in report.tools
        if (note := runtime_note(tool))
    ]
    return [
        Prose.of(runtime_line(report)),
        *change_lines(report),
        *profile_lines(report),
        *notes,
        *contradiction_lines(report),
    ]


@dataclass(frozen=True)
class Words:
    """How a report names the change it audits (``Report.change_kind``): the normalization
    of ``--schemas``, or a change between catalogs (``--new-schemas``, ``--against``)."""

    title: str
    """What the report is: ``normalization audit``, ``schema change audit``."""
    after: str
    before: str
    new_schema: str
    unit: str
    """One difference between the old and the new schema: a rewrite, a change."""

    @property
    def units(self) -> str:
        return self.unit + "s"


NORMALIZATION: Final = Words(
    "normalization audit",
    "after normalization",
    "before normalization",
    "the normalized schema",
    "rewrite",
)
CATALOG_CHANGE: Final = Words(
    "schema change audit", "after the change", "before the change", "the new schema", "change"
)


def words(report: Report) -> Words:
    """The words of ``report``'s kind of change."""
    return NORMALIZATION if report.change_kind is ChangeKind.NORMALIZE else CATALOG_CHANGE


def unit_of(report: Report) -> str:
    """What one of the report's calls is: a ``call`` (its arguments), or a ``result``."""
    return "result" if report.subject is Subject.RESULTS else "call"


def title(report: Report) -> str:
    """``auditor: normalization audit``, ``auditor: schema change audit``: every format's
    title (``… of results`` for a report of results)."""
    of = " of results" if report.subject is Subject.RESULTS else ""
    return f"auditor: {words(report).title}{of}"


def removes_tool(group: Group) -> bool:
    """Whether the group's calls name a tool the change removed."""
    return any(cause.removes_tool for cause in group.causes)


def profile_lines(report: Report) -> list[Prose]:
    """For each upgrade profile the audit applies, one line: which code made its new schemas
    (``Report.profile_runs``; names as code)."""
    return [profile_line(run) for run in report.profile_runs]


def profile_line(run: ProfileRun) -> Prose:
    """``Profile google-genai: google-genai 2.34.0 made the new schemas with its own ...``."""
    head = Prose.of("Profile ", Span.code(run.profile), ": ")
    if not run.function:
        return Prose.of(head, "the built-in model made the new schemas (it follows no SDK).")
    checked = f"{run.package} {run.versions}" if run.versions else run.package
    function = Span.code(run.function)
    if run.sdk:
        where = "within" if run.in_range else "outside"
        return Prose.of(
            head,
            f"{run.package} {run.installed} made the new schemas with its own ",
            function,
            f" ({where} the versions the model was checked against: {checked}).",
        )
    return Prose.of(
        head,
        f"the built-in model made the new schemas ({run.package} is not installed here; "
        "the model follows ",
        function,
        f", checked against {checked}).",
    )


def change_lines(report: Report) -> list[Prose]:
    """What the change is when it is not the normalization of ``--schemas``: the catalogs
    compared, and the tools only one side defines (names as code)."""
    if not report.new_schema_inputs:
        return []

    def names(items: Sequence[str]) -> list[str | Prose]:
        return _listing([Prose.of(Span.code(item)) for item in items])

    old = names(report.schema_inputs)
    if report.against is not None:
        against = Span.code(report.against)
        line = Prose.of("The change: ", *old, " at ", against, " → the work tree.")
    else:
        new = names(report.new_schema_inputs)
        line = Prose.of("The change: ", *old, " → ", *new, ", compared tool by tool.")
    lines = [line]
    if report.added_tools:
        lines.append(Prose.of("Tools added: ", *names(report.added_tools), "."))
    if report.removed_tools:
        lines.append(Prose.of("Tools removed: ", *names(report.removed_tools), "."))
    return lines


def proven_line(report: Report) -> Prose | None:
    """The proven regressions, counted apart; None when the log proves none."""
    proven = report.proven_count
    if not proven:
        return None
    return Prose.of(
        Span.strong(f"{plural(proven, 'proven regression')}:"),
        " newly rejected calls that the log shows ran before (an MCP result, an OTel span "
        "without error, a tool result).",
    )


def contradiction_lines(report: Report) -> list[Prose]:
    """The calls whose strong evidence contradicts the old-runtime model, per tool, in one
    line (none when there are none)."""
    tools = [t for t in report.tools if t.contradictions]
    if not tools:
        return []
    per_tool = _listing([Prose.of(f"{t.contradictions:,} of ", Span.code(t.name)) for t in tools])
    return [
        Prose.of(
            f"Evidence in the log contradicts the {report.old_runtime.value} model for "
            f"{plural(report.contradiction_count, 'call')} (",
            *per_tool,
            "): a call it rejects ran, or one it accepts was refused; the log decides those "
            "calls, and the model may be wrong for the rest (see --old-runtime).",
        )
    ]


def gate_line(report: Report) -> Prose | None:
    """Which groups fail the run under ``--fail-on``, and which a usage threshold
    (``--fail-min-calls``, ``--fail-min-share``) keeps from failing; None when neither."""
    failing = report.failing_groups()
    below = report.below_threshold_groups()
    if not failing and not below:
        return None
    said = (
        Prose.of(f"{plural(len(failing), 'group')}: ", _listed(report, failing))
        if failing
        else Prose.of("no group")
    )
    text = Prose.of(f"{fail_on_option(report.fail_on)} fails on ", said)
    if below:
        verb = "does" if len(below) == 1 else "do"
        text = Prose.of(
            text,
            f"; {plural(len(below), 'group')} below a usage threshold {verb} not fail: ",
            _listed(report, below),
        )
    return Prose.of(text, ".")


def fail_on_option(fail_on: FailOn) -> str:
    """``--fail-on newly-rejected``: the level as the option is spelled (``FailOn`` values
    are the JSON report's, ``newly_rejected``)."""
    return f"--fail-on {fail_on.value.replace('_', '-')}"


def gate_summary(report: Report, detail_in: str | None = None) -> str | None:
    """The gate in one short line, plain text (to be escaped), without fingerprints: ``13
    groups fail --fail-on newly-rejected; see reports/audit.md`` (``detail_in``: where the
    groups are listed), and how many a usage threshold keeps from failing (``1 more is below
    --fail-min-calls 5``); None when no group fails or is kept from failing."""
    failing = len(report.gate.failing)
    below = len(report.gate.below)
    if not failing and not below:
        return None
    option = fail_on_option(report.fail_on)
    if failing:
        text = f"{plural(failing, 'group')} {'fails' if failing == 1 else 'fail'} {option}"
    else:
        text = f"no group fails {option}"
    if below:
        who = f"{below:,} more" if failing else plural(below, "group")
        text += f", {who} {'is' if below == 1 else 'are'} below {_thresholds(report)}"
    return text + (f"; see {detail_in}" if detail_in else "")


def _thresholds(report: Report) -> str:
    """What the groups a usage threshold keeps from failing are below: their one reason
    (``--fail-min-calls 5 and --fail-min-share 0.25``) when they share it, else the
    thresholds in effect, each group below one or both (``--fail-min-calls 5 or
    --fail-min-share 0.25``)."""
    reasons = set(report.gate.below.values())
    if len(reasons) == 1:
        return reasons.pop().removeprefix("below ")
    given = []
    if report.fail_min_calls > 1:
        given.append(f"--fail-min-calls {report.fail_min_calls}")
    if report.fail_min_share > 0:
        given.append(f"--fail-min-share {threshold_text(report.fail_min_share)}")
    return " or ".join(given) or "a usage threshold"


def _listed(report: Report, groups: list[Group]) -> Prose:
    """The first ``GATE_LISTED`` groups by title and fingerprint (and the threshold a group
    is below), and how many more."""
    shown: list[str | Span | Prose] = []
    for index, g in enumerate(groups[:GATE_LISTED]):
        below = report.gate.below_threshold(g)
        shown += ["; " if index else "", Span.data(group_title(g)), " [", Span.code(g.fingerprint)]
        shown.append(f"] ({below})" if below else "]")
    more = len(groups) - GATE_LISTED
    return Prose.of(*shown, f"; and {plural(more, 'more group')}" if more > 0 else "")


GATE_LISTED: Final = 10
"""Failing groups named one by one where the gate is explained."""


def compact(value: JSON, limit: int = MAX_ARGUMENTS) -> str:
    """One-line JSON, cut at ``limit`` characters."""
    return compact_json(value, limit)


def groups_of(report: Report, outcome: Outcome) -> list[Group]:
    return [g for g in report.groups if g.outcome is outcome]


def cause_text(causes: tuple[Change, ...], unit: str = "rewrite") -> str:
    """``/properties/limit/min_items: min_items → minItems`` (or why there is none: no
    ``unit``, the report's word for a change, found on the error's path)."""
    if not causes:
        return f"no {unit} found on the error's path"
    return "; ".join(r.describe() for r in causes)


def group_title(group: Group) -> str:
    """What a group is about, in one line without markup."""
    calls = plural(group.count, "call")
    source = prose.plain(caller_suffix(group))
    if removes_tool(group):
        return f"{group.tool}: {calls}{source} to a tool the change removed"
    if group.keyword:
        verb = "fails" if group.count == 1 else "fail"
        where = group.schema_pointer or "/"
        said = f"{group.tool}: {calls}{source} {verb} {group.keyword} at {where}"
        return said + (f" ({CONTRADICTED})" if group.contradicted else "")
    return f"{group.tool}: {calls}{source} {OUTCOME_LABELS[group.outcome]}"


CONTRADICTED: Final = "contradicted by the log"
"""What a group the log contradicts (``Group.contradicted``) is called where it is named."""
CONTRADICTED_INTRO: Final = Prose.of(
    "The log shows these calls ran, yet the schema rejects them at a keyword where no change "
    "of this upgrade made the error possible: the old runtime did not enforce that keyword, "
    "against the old-runtime model (which rejects them before the upgrade too). The upgrade "
    "fails them only if it starts enforcing it: they are contradictions, not regressions, and "
    "only ",
    Span.code("--fail-on any-change"),
    " fails on them.",
)
"""What the report says above the groups the log contradicts."""


def set_aside(report: Report, group: Group) -> str | None:
    """Why a group the gate could count does not fail the run: the usage thresholds it is
    below, or that the log contradicts it; None when it fails, or would not anyway."""
    if below := report.gate.below_threshold(group):
        return below
    if group.contradicted and group.fingerprint not in report.gate.failing:
        return CONTRADICTED
    return None


def group_heading(group: Group) -> Prose:
    """What a group is about, in one line with its names as code (the Markdown and HTML
    reports' title; ``group_title`` is the same as plain text)."""
    calls = Prose.of(plural(group.count, "call"), caller_suffix(group))
    tool = Span.code(group.tool)
    if removes_tool(group):
        return Prose.of(tool, ": ", calls, " to a tool the change removed")
    if group.keyword:
        return Prose.of(
            tool,
            ": ",
            calls,
            " failing ",
            Span.code(group.keyword),
            " at ",
            Span.code(group.schema_pointer or "/"),
            f" ({CONTRADICTED})" if group.contradicted else "",
        )
    return Prose.of(tool, ": ", calls)


def callers_text(group: Group) -> Prose | None:
    r"""``\`agent-a\` (3 calls), \`agent-b\` (1 call) and 2 more`` (the names as code);
    None when the log names no caller for the group's calls."""
    if not group.callers:
        return None
    named = [Prose.of(Span.code(name), f" ({plural(n, 'call')})") for name, n in group.callers]
    more = f" and {plural(group.more_callers, 'more caller')}" if group.more_callers else ""
    return Prose.of(*_listing(named), more)


def offending_text(group: Group) -> Prose | None:
    r"""``\`""\` (3 calls, first a.jsonl:2, last a.jsonl:9); …`` (values and sources as
    code); None when the group lists no values."""
    if not group.offending:
        return None
    values: list[str | Span | Prose] = []
    for index, o in enumerate(group.offending):
        values += [
            "; " if index else "",
            Span.code(compact(o.value, 60)),
            f" ({plural(o.calls, 'call')}, first ",
            Span.code(o.first),
            *([", last ", Span.code(o.last), ")"] if o.last != o.first else [")"]),
        ]
    return Prose.of(*values)


def caller_suffix(group: Group) -> Prose:
    """`` from `agent-a` `` for a group of ``--group-by caller`` (the name as code)."""
    if group.caller is None:
        return Prose()
    if not group.caller:
        return Prose.of(" from no named caller")
    return Prose.of(" from ", Span.code(group.caller))


def share_text(group: Group) -> str:
    return f"{group.count:,} of {plural(group.tool_calls, 'call')} of the tool ({group.share:.0%})"


def coverage_line(report: Report) -> str:
    """``29 of 30 rewrites were reached by a logged call; 1 was not reached by any, …``: what
    the log tested of the change (the same counts as ``counterexample_line``'s)."""
    unit = words(report).unit
    total = report.rewrite_count
    never = report.unexercised_count
    text = text_edit_text(report)
    if not total:
        said = (
            "The catalogs do not differ" if unit == "change" else "The normalizer rewrote nothing"
        )
        if text:
            said = f"The catalogs differ only by {text}"
        return said + "."
    also = f" ({text}, not counted among them)" if text else ""
    reached = total - never
    if not never:
        every = "The" if total == 1 else "Every one of the"
        return f"{every} {plural(total, unit)}{also} was reached by a logged call."
    return (
        f"{reached:,} of {plural(total, unit)}{also} {agree(reached, 'was', 'were')} reached by "
        f"a logged call; {never:,} {agree(never, 'was', 'were')} not reached by any, so the log "
        f"says nothing about what {agree(never, 'it', 'they')} will reject."
    )


TEXT_EDIT: Final = "text-only edit"
"""A change of annotations only (``description``, ``title``, ``examples``, ``$comment``):
counted apart from the changes, since no validator enforces them."""


def text_edit_text(report: Report) -> str | None:
    """``1 text-only edit (description, title, examples, $comment)``; None without one."""
    edits = report.text_edit_count
    if not edits:
        return None
    return f"{plural(edits, TEXT_EDIT)} (description, title, examples, $comment)"


def constraint_line(report: Report) -> str:
    """``Constraint coverage: 121 of 132 constraint keywords … were reached by a logged call,
    …; 11 were not reached by any (blind spots)``."""
    uses = [c for t in report.tools for c in t.constraints]
    if not uses:
        return "No called tool has a constraint keyword in its new schema."
    blind = sum(1 for c in uses if not c.reached)
    failed = sum(1 for c in uses if c.failed)
    reached = len(uses) - blind
    keywords = plural(len(uses), "constraint keyword")
    rejecting = f"{failed:,} of them rejecting at least one"
    if not blind:
        every = "the" if len(uses) == 1 else "every one of the"
        return (
            f"Constraint coverage: {every} {keywords} of the called tools' new schemas was "
            f"reached by a logged call, {rejecting}."
        )
    return (
        f"Constraint coverage: {reached:,} of {keywords} of the called tools' new schemas "
        f"{agree(reached, 'was', 'were')} reached by a logged call, {rejecting}; {blind:,} "
        f"{agree(blind, 'was', 'were')} not reached by any (blind spots)."
    )


def blind_spots(tool: ToolSummary) -> list[str]:
    """Pointers of the tool's constraint keywords no logged call reached."""
    return [c.pointer for c in tool.constraints if not c.reached]


def counterexample_line(report: Report) -> str | None:
    """How the changes no logged call's rejection came from fared: shown to bite, harmless,
    blocked or unknown; the unreached among them are ``coverage_line``'s."""
    found = report.counterexamples
    if not found:
        return None
    unit = words(report).unit
    counts = {status: 0 for status in CounterexampleStatus}
    for c in found:
        counts[c.status] += 1
    reached_by = {
        (tool.name, rewrite): calls
        for tool in report.tools
        for rewrite, calls in zip(tool.rewrites, tool.reached, strict=True)
    }
    unreached = sum(1 for c in found if not reached_by.get((c.tool, c.change), 0))
    reached = len(found) - unreached
    split = []
    if unreached:
        split.append(f"{unreached:,} not reached by any")
    if reached:
        split.append(f"{reached:,} reached without being the cause of a rejection")
    statuses = [
        f"{counts[CounterexampleStatus.FOUND]:,} shown to bite by a counterexample",
        f"{counts[CounterexampleStatus.HARMLESS]:,} harmless",
    ]
    if blocked := counts[CounterexampleStatus.UNUSABLE]:
        statuses.append(
            f"{blocked:,} blocked by a schema error of the new schema (the calls "
            f"{agree(blocked, 'it', 'they')} would reject are schema errors after)"
        )
    statuses.append(
        f"{counts[CounterexampleStatus.NOT_FOUND]:,} without a counterexample within the search "
        "bound"
    )
    return (
        f"{len(found):,} of {plural(report.rewrite_count, unit)} caused no logged call's "
        f"rejection ({', '.join(split)}): {', '.join(statuses)}. Counterexamples are not "
        "logged calls and are counted nowhere else."
    )


def reached_text(calls: int) -> str:
    """``reached by 3 calls``, ``not reached by any call``: what the log did to a rewrite."""
    return f"reached by {plural(calls, 'call')}" if calls else "not reached by any call"


def unexercised(tool: ToolSummary) -> list[Change]:
    return [r for r, n in zip(tool.rewrites, tool.reached, strict=True) if n == 0]


def budget_line(report: Report) -> Prose | None:
    """How many calls ran out of the CPU-time budget of a call; None when none did."""
    if not report.calls_over_budget:
        return None
    return Prose.of(
        f"{plural(report.calls_over_budget, 'call')} ran out of the CPU time one call may take (",
        Span.code("--call-timeout"),
        "): where the new schema could not finish, the call is ",
        Span.code("schema_error_after"),
        "; where the old schema, read leniently, could not, what did not finish enforced nothing.",
    )


def baseline_line(report: Report) -> Prose | None:
    """What the baseline accepted and which of its entries are stale; None without one."""
    use = report.baseline
    if use is None:
        return None
    text = Prose.of(
        "Baseline ",
        Span.code(use.path),
        f" accepted {plural(use.accepted_groups, 'group')} ({plural(use.accepted_calls, 'call')})",
    )
    if stale := len(use.stale):
        occur = agree(stale, "no longer occurs", "no longer occur")
        entries = _listing([Prose.of(Span.data(entry)) for entry in use.stale])
        return Prose.of(
            text, f"; {plural(stale, 'stale entry', 'stale entries')} {occur}: ", *entries
        )
    return Prose.of(text, ".")


TABLE_OUTCOMES: Final[tuple[Outcome, ...]] = (*SUMMARY_OUTCOMES, Outcome.UNKNOWN_TOOL)
"""Outcome columns of the per-tool summary table (unknown tools' calls last)."""

Cell = str | int
"""A cell of the per-tool summary: text, or a count (each format writes it ``1,234``)."""


def summary_columns(report: Report) -> list[Outcome]:
    """The table's outcome columns: those some call falls in, and the headline always (as the
    terminal's table: a column of zeros says nothing)."""
    return [o for o in TABLE_OUTCOMES if o is Outcome.NEWLY_REJECTED or report.totals.get(o)]


def summary_rows(report: Report) -> tuple[list[str], list[list[Cell]]]:
    """Header and rows of the per-tool summary: a row per tool, unknown tool names (counted
    under unknown tool and nowhere else) and calls naming no tool (unparseable), and the
    total; the outcome columns of ``summary_columns``, then the rewrites (or changes). A row
    that is no tool leaves its zeros and its rewrites empty."""
    outcomes = summary_columns(report)
    header = ["tool", "calls", *(OUTCOME_LABELS[o] for o in outcomes), words(report).units]

    def row(name: str, counts: dict[Outcome, int], rewrites: int | None) -> list[Cell]:
        calls = sum(counts.values())
        cells: list[Cell] = [counts.get(o, 0) for o in outcomes]
        if rewrites is None:
            cells = [cell or "" for cell in cells]
        return [name, calls, *cells, "" if rewrites is None else rewrites]

    rows = [row(tool.name, dict(tool.counts), len(tool.rewrites)) for tool in report.tools]
    unknown = list(report.unknown_tools.items())
    if report.unknown_tools_other:
        unknown.append(("(other unknown tools)", report.unknown_tools_other))
    rows += [row(name, {Outcome.UNKNOWN_TOOL: n}, None) for name, n in unknown]
    if report.nameless_calls:
        rows.append(row("(no tool named)", {Outcome.UNPARSEABLE: report.nameless_calls}, None))
    rows.append(row("total", dict(report.totals), report.rewrite_count))
    return header, rows


def verdict(report: Report) -> Prose:
    """One paragraph: is it safe, and if not, how unsafe: the answer strong, names as
    code."""
    total = report.call_count
    newly = report.totals.get(Outcome.NEWLY_REJECTED, 0)
    after = report.totals.get(Outcome.SCHEMA_ERROR_AFTER, 0)
    before = report.totals.get(Outcome.SCHEMA_ERROR_BEFORE, 0)
    broken = [t.name for t in report.tools if t.counts.get(Outcome.SCHEMA_ERROR_AFTER)]
    unit = "result" if report.subject is Subject.RESULTS else "call"
    parts: list[str | Prose] = []
    if proven := proven_line(report):
        parts.append(proven)  # certain regressions come first
    if after:
        parts.append(
            Prose.of(
                Span.strong(
                    f"{plural(after, unit)} will fail {words(report).after}: "
                    f"{words(report).new_schema} is unusable"
                ),
                " (",
                tool_names(broken),
                ").",
            )
        )
    if newly:
        groups = groups_of(report, Outcome.NEWLY_REJECTED)
        tools = sorted({g.tool for g in groups})
        parts.append(
            Prose.of(
                Span.strong(
                    f"{newly:,} of {plural(total, 'logged ' + unit)} would be newly rejected"
                ),
                f" {words(report).after}, in {plural(len(tools), 'tool')} (",
                tool_names(tools),
                f"), {plural(len(groups), 'group')} by cause and failing keyword.",
            )
        )
        if line := contradicted_line(groups):
            parts.append(line)
    else:
        # Beside calls that will fail, "no call newly rejected" must not read as an all-clear.
        usable = " by a schema that can be used" if after else ""
        parts.append(
            Prose.of(
                Span.strong(f"No logged {unit} would be newly rejected"),
                f"{usable} ({plural(total, unit)} replayed).",
            )
        )
    if before:
        parts.append(
            f"{plural(before, 'call')} {agree(before, 'was', 'were')} replayed against a schema "
            f"that was unusable {words(report).before}; see below what "
            f"{words(report).new_schema} makes of {agree(before, 'it', 'them')}."
        )
    unparseable = report.totals.get(Outcome.UNPARSEABLE, 0)
    unknown = report.totals.get(Outcome.UNKNOWN_TOOL, 0)
    skipped = []
    if unparseable:
        skipped.append(
            f"{plural(unparseable, 'call')} {agree(unparseable, 'was', 'were')} unparseable"
        )
    if unknown:
        skipped.append(
            f"{plural(unknown, 'call')} named {agree(unknown, 'an unknown tool', 'unknown tools')}"
        )
    if skipped:
        parts.append(" and ".join(skipped) + ".")
    parts.append(coverage_line(report))
    return Prose.of(*_listing(parts, " "))


VERDICT_TOOLS: Final = 5
"""Tools the verdict names one by one; the others are counted."""


def tool_names(names: Sequence[str]) -> Prose:
    """The first ``VERDICT_TOOLS`` names as code, each cut to ``ROLLUP_NAME`` characters,
    and how many more (``and 3 more``)."""
    named = _listing([Prose.of(_code(name)) for name in names[:VERDICT_TOOLS]])
    more = len(names) - VERDICT_TOOLS
    return Prose.of(*named, f" and {more:,} more" if more > 0 else "")


def contradicted_line(groups: Sequence[Group]) -> Prose | None:
    """How many of the newly rejected ``groups`` the log contradicts, and what that means;
    None when none."""
    count = sum(1 for g in groups if g.contradicted)
    if not count:
        return None
    one = count == 1
    return Prose.of(
        f"Of these, {plural(count, 'group')} {'is' if one else 'are'} {CONTRADICTED}, not "
        f"caused by the change: the log shows {'its' if one else 'their'} calls ran, yet the "
        "schema rejects them where no change made the error possible; only ",
        Span.code("--fail-on any-change"),
        f" fails on {'it' if one else 'them'}.",
    )


def group_location(report: Report, group: Group) -> Location | None:
    """Where to point at for a group: its first cause's key in the catalog, else the tool."""
    tool = next((t for t in report.tools if t.name == group.tool), None)
    if tool is None:
        return None
    for cause in group.causes:
        for rewrite, location in zip(tool.rewrites, tool.rewrite_locations, strict=True):
            if rewrite == cause and location is not None:
                return location
    return tool.location


def patch_line(patch: SchemaPatch) -> str:
    """``raise maxLength 10 → 28 at tools.json:12:9`` (plain text, to be escaped), or why no
    patch is suggested."""
    if patch.problem is not None:
        return f"none: {patch.problem}"
    if patch.location is None:
        return f"{patch.summary} (not written to the catalog: {patch.file_problem})"
    return f"{patch.summary} at {patch.location}"


def breaks_after(group: Group) -> bool:
    """Whether the group's calls break after the upgrade: rejected now although they passed
    before, or they meet a new schema that cannot be used, and will fail. Not the calls the
    log contradicts (``Group.contradicted``): no change explains their rejection."""
    return (
        group.outcome in (Outcome.NEWLY_REJECTED, Outcome.SCHEMA_ERROR_AFTER)
        and not group.contradicted
    )


def decision_lines(group: Group, callers: bool = True) -> list[str]:
    """What to act on, plain text (escape for the format): the evidence line, then the
    loosening patch (with its JSON Patch), the values to fix and (with ``callers``) the
    callers, each where the group has one. The same lines feed JUnit failures and GitHub
    annotations."""
    lines = [f"evidence: {prose.plain(group.evidence)}"] if group.evidence else []
    if group.patch is not None:
        line = f"patch: {patch_line(group.patch)}"
        if group.patch.problem is None:
            line += f"; JSON Patch on the new schema: {patch_json(group.patch)}"
        lines.append(line)
    if values := offending_text(group):
        lines.append(f"values to fix: {prose.plain(values)}")
    if callers and (named := callers_text(group)):
        lines.append(f"callers: {prose.plain(named)}")
    return lines


def not_replayed(report: Report) -> list[CallResult]:
    """The listed calls that were not replayed: unparseable, or naming an unknown tool."""
    return [r for r in report.calls if r.outcome in (Outcome.UNPARSEABLE, Outcome.UNKNOWN_TOOL)]


def not_replayed_reason(result: CallResult) -> str:
    """Why a call was not replayed, plain text (the reader's reason holds no logged data)."""
    if result.outcome is Outcome.UNKNOWN_TOOL:
        return "unknown tool"
    unparsed = result.call.unparsed
    return unparsed.reason if unparsed is not None else "unparseable"


def log_counts(stats: LogStats, unit: str = "call") -> str:
    """``jsonl, 1,200 lines, 0 blank, 1,180 calls``: how a log file's lines were counted
    (``unit``: what ``stats.calls`` counts, ``result`` in a report of results)."""
    parts = [
        stats.format,
        plural(stats.lines, "line"),
        f"{stats.blank:,} blank",
        plural(stats.calls, unit),
    ]
    # Only where they say something: most logs have neither.
    if stats.records_without_calls:
        parts.append(f"{plural(stats.records_without_calls, 'record')} without {unit}s")
    if stats.repeated_calls:
        parts.append(plural(stats.repeated_calls, "repeated call"))
    return ", ".join(parts)


def patch_json(patch: SchemaPatch) -> str:
    """The patch's operations on the new schema as one line of JSON Patch (RFC 6902)."""
    operations: list[JSON] = [operation.as_json() for operation in patch.operations]
    return compact(operations)


def content_capture_hint(results: Sequence[CallResult]) -> str | None:
    """What to do about calls whose telemetry recorded no arguments, when there are any: the
    instrumentation switches that make the next export replayable (plain text, no data)."""
    count = sum(
        1
        for r in results
        if r.call.unparsed is not None and r.call.unparsed.kind is UnparsedKind.CONTENT_NOT_CAPTURED
    )
    if not count:
        return None
    return (
        f"{plural(count, 'call')} could not be replayed because the telemetry names the tool "
        "but records no arguments: content capture is off. Turn it on where the agent runs "
        "(OpenTelemetry GenAI instrumentations: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
        "=true; OpenInference: OPENINFERENCE_HIDE_INPUTS=false) and audit a new export."
    )


ROLLUP_LABELS: Final[dict[RollUpKind, str]] = {
    RollUpKind.FIX_CALLERS: "Fix the callers",
    RollUpKind.LOOSEN_SCHEMA: "Loosen the schema",
    RollUpKind.REVIEW: "Review by hand",
    RollUpKind.TOOLS_REMOVED: "Tools removed",
    RollUpKind.FIX_SCHEMA: "Fix the schema",
    RollUpKind.CONTRADICTED: "Contradicted by the log",
}
"""The name of each entry of the roll-up (what to do), in every format."""

ROLLUP_ERRORS: Final = 3
"""Unusable schemas named one by one in the roll-up's fix-the-schema line."""
ROLLUP_TOOLS: Final = 5
"""Removed tools named one by one in the roll-up's tools-removed line."""
ROLLUP_NAME: Final = 80
"""Characters of a name (a tool, a caller) in the roll-up: a catalog may hold long ones."""
ROLLUP_ERROR: Final = 200
"""Characters of an unusable schema's error in the roll-up."""


@dataclass(frozen=True)
class RollUpLine:
    """One entry of what to do, for each format to write: its name (``ROLLUP_LABELS``, shown
    bold where the format has bold) and what it says (names as code)."""

    label: str
    text: Prose

    def markdown(self) -> str:
        """``**Fix the callers:** 1 group (2 calls); callers: `cursor` (2 calls).``"""
        return f"**{self.label}:** {prose.markdown(self.text)}"

    def html(self) -> str:
        return f"<strong>{escape.html_text(self.label)}:</strong> {prose.html(self.text)}"

    def plain(self) -> str:
        return f"{self.label}: {prose.plain(self.text)}"


RESULT_ROLLUP_LABELS: Final[dict[RollUpKind, str]] = {
    **ROLLUP_LABELS,
    RollUpKind.FIX_CALLERS: "Fix the server",
    RollUpKind.LOOSEN_SCHEMA: "Loosen the output schema",
    RollUpKind.FIX_SCHEMA: "Fix the output schema",
}
"""The roll-up's names in a report of results (``Subject.RESULTS``): a result the output
schema rejects is the server's to fix, or the output schema's to loosen."""


def rollup_labels(report: Report) -> Mapping[RollUpKind, str]:
    """The roll-up's names for ``report``'s subject."""
    return RESULT_ROLLUP_LABELS if report.subject is Subject.RESULTS else ROLLUP_LABELS


def rollup_lines(
    rollup: RollUp, labels: Mapping[RollUpKind, str] = ROLLUP_LABELS
) -> list[RollUpLine]:
    """What to do (``Report.rollup``): one line per entry that holds a group, in the roll-up's
    order (``Fix the callers: 11 groups (14 calls); callers: `cursor` (6 calls)…``); none
    when the report has no group."""
    return [
        RollUpLine(labels[entry.kind], _ROLLUP_TEXT[entry.kind](entry))
        for entry in rollup.entries
        if entry.groups
    ]


def _rollup_groups(entry: RollUpEntry) -> str:
    """``5 groups (9 calls): 2 newly rejected, 3 newly accepted`` (the outcomes only when
    they are not all newly rejected)."""
    text = _counted(entry)
    if [outcome for outcome, _ in entry.outcomes] != [Outcome.NEWLY_REJECTED]:
        text += ": " + ", ".join(f"{n:,} {OUTCOME_LABELS[o]}" for o, n in entry.outcomes)
    return text


def _code(name: str) -> Span:
    """A name in the roll-up or the verdict, as code, cut to ``ROLLUP_NAME`` characters."""
    return Span.code(_cut(name, ROLLUP_NAME))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _listing(pieces: Sequence[str | Prose], separator: str = ", ") -> list[str | Prose]:
    """``pieces`` joined by ``separator``, for ``Prose.of``."""
    joined: list[str | Prose] = []
    for index, piece in enumerate(pieces):
        joined += [separator if index else "", piece]
    return joined


def _rollup_callers(entry: RollUpEntry, said: str) -> Prose:
    if not entry.callers:
        return Prose.of("the log names no caller")
    named = [Prose.of(_code(name), f" ({plural(n, 'call')})") for name, n in entry.callers]
    return Prose.of(f"{said}: ", *_listing(named), " and others" if entry.more_callers else "")


def _rollup_patches(entry: RollUpEntry) -> Prose:
    """``1 with a verified patch: `--suggest-patch PATH```: the command that writes it (a
    review group's names ``--suggest-patch-kinds review`` too, which takes the room of the
    words "writes it": the answer fits its screen)."""
    if entry.patches:
        text = Prose.of(
            f"{entry.patches:,} with a verified patch: ", Span.code(entry.patch_command or "")
        )
    else:
        text = Prose.of("none with a verified patch")
    if entry.unwritable_patches:
        text = Prose.of(
            text,
            f" ({entry.unwritable_patches:,} more verified but not writable into the catalog "
            "file: see the group)",
        )
    return text


def _fix_callers(entry: RollUpEntry) -> Prose:
    return Prose.of(_rollup_groups(entry), "; ", _rollup_callers(entry, "callers"), ".")


def _loosen_schema(entry: RollUpEntry) -> Prose:
    return Prose.of(_rollup_groups(entry), "; ", _rollup_patches(entry), ".")


def _review(entry: RollUpEntry) -> Prose:
    if entry.patches or entry.unwritable_patches:
        return Prose.of(_rollup_groups(entry), "; ", _rollup_patches(entry), ".")
    return Prose.of(_rollup_groups(entry), ".")


def _tools_removed(entry: RollUpEntry) -> Prose:
    tools = _listing([Prose.of(_code(tool)) for tool in entry.tools[:ROLLUP_TOOLS]])
    more = len(entry.tools) - ROLLUP_TOOLS
    callers = _rollup_callers(entry, "callers still using them")
    name = agree(entry.groups, "names", "name")
    return Prose.of(
        f"{_counted(entry)} {name} a tool the change removed: ",
        *tools,
        f" and {more:,} more" if more > 0 else "",
        "; ",
        callers,
        ".",
    )


def _fix_schema(entry: RollUpEntry) -> Prose:
    named = _listing(
        [
            Prose.of(_code(tool), " (", Span.data(_cut(error, ROLLUP_ERROR)), ")")
            for tool, error in entry.errors[:ROLLUP_ERRORS]
        ]
    )
    more = len(entry.errors) - ROLLUP_ERRORS
    return Prose.of(
        f"{_counted(entry)} will fail on an unusable schema: ",
        *named,
        f" and {more:,} more" if more > 0 else "",
        ".",
    )


def _counted(entry: RollUpEntry) -> str:
    """``3 groups (14 calls)``: where every entry's line starts, so that they add up."""
    return f"{plural(entry.groups, 'group')} ({plural(entry.calls, 'call')})"


def _contradicted(entry: RollUpEntry) -> Prose:
    calls = agree(entry.calls, "this call", "these calls")
    them = agree(entry.groups, "it as a regression", "them as regressions")
    return Prose.of(
        f"{_rollup_groups(entry)}; the log shows {calls} ran where no change made the error "
        "possible: check the old-runtime model (",
        Span.code("--old-runtime"),
        f") before counting {them}.",
    )


_ROLLUP_TEXT: Final[dict[RollUpKind, Callable[[RollUpEntry], Prose]]] = {
    RollUpKind.FIX_CALLERS: _fix_callers,
    RollUpKind.LOOSEN_SCHEMA: _loosen_schema,
    RollUpKind.REVIEW: _review,
    RollUpKind.TOOLS_REMOVED: _tools_removed,
    RollUpKind.FIX_SCHEMA: _fix_schema,
    RollUpKind.CONTRADICTED: _contradicted,
}
"""What each entry of the roll-up says after its name (a test checks every kind has one)."""


NOTHING_TO_DO: Final = "nothing (no call changes its outcome)"
"""What the roll-up says when the report has no group, in every format."""


def rollup_kinds(rollup: RollUp) -> dict[str, RollUpKind]:
    """Each group's entry in the roll-up, by fingerprint (read from ``Report.rollup``)."""
    return {fingerprint: e.kind for e in rollup.entries for fingerprint in e.fingerprints}


@dataclass(frozen=True)
class GroupRow:
    """One group in a line of the groups table (Markdown, HTML, the pull-request comment),
    as plain text for each format to escape: the group's calls, tool (and caller), what fails
    (a keyword at a pointer, or the words for a group without one), what to do (its roll-up
    entry) and its marks."""

    calls: int
    tool: str
    caller: str | None
    keyword: str
    pointer: str
    what: str
    """The words for a group without a keyword (``to a tool the change removed``)."""
    todo: str
    marks: tuple[str, ...]


ROW_TEXT: Final = 120
"""Characters of a name, keyword or pointer in a row of the groups table."""
GROUP_HEADER: Final = ("calls", "tool", "what fails", "what to do", "notes")
"""Columns of the groups table, after the group's number."""


def group_rows(report: Report, groups: Sequence[Group]) -> list[GroupRow]:
    """The table rows of ``groups``, in their order."""
    kinds = rollup_kinds(report.rollup)
    rows = []
    for group in groups:
        if removes_tool(group):
            what = "to a tool the change removed"
        elif group.outcome is Outcome.SCHEMA_ERROR_AFTER:
            what = f"{words(report).new_schema} is unusable: will fail"
        else:
            what = OUTCOME_LABELS[group.outcome]
        marks = []
        if group.patch is not None and group.patch.problem is None:
            marks.append("verified patch")
        if group.proven:
            marks.append(f"{group.proven:,} proven")
        if group.baselined:
            marks.append("accepted by the baseline")
        if below := report.gate.below_threshold(group):
            marks.append(below)
        kind = kinds.get(group.fingerprint)
        rows.append(
            GroupRow(
                calls=group.count,
                tool=_cut(group.tool, ROW_TEXT),
                caller=None if group.caller is None else _cut(group.caller, ROW_TEXT),
                keyword="" if removes_tool(group) else _cut(group.keyword, ROW_TEXT),
                pointer=_cut(group.schema_pointer or "/", ROW_TEXT),
                what=what,
                todo=ROLLUP_LABELS[kind] if kind is not None else "",
                marks=tuple(marks),
            )
        )
    return rows


SHOWN_GROUPS: Final = 10
"""Groups the groups table lists (the report's first, failures first as the report orders
them); how many more there are is said below it."""


def more_groups(report: Report, shown: int, where: str) -> str | None:
    """``… and 3 more groups (below)``: the groups a table leaves out, and where they are;
    None when it lists them all."""
    more = len(report.groups) - shown
    return f"… and {plural(more, 'more group')} ({where})" if more > 0 else None
