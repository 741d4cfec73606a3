"""The terminal summary: per-tool counts fitted to the terminal's width, the groups, one
line each, with their hints, and a last line in the style of a linter's summary.

Every line is passed through ``escape.terminal``: names and messages from logs and catalogs
cannot move the cursor, colour the terminal, reorder text or start a line of their own.

The width is a parameter, never read here: the command line passes the terminal's for
stdout and ``DEFAULT_WIDTH`` for a file, so the same report renders the same text."""

from __future__ import annotations

from typing import Final

from auditor.aggregate.gate import below_threshold, exit_code
from auditor.models import Outcome, Report
from auditor.report.common import (
    OUTCOME_LABELS,
    baseline_line,
    budget_line,
    callers_text,
    cause_text,
    constraint_line,
    counterexample_line,
    coverage_line,
    gate_line,
    group_title,
    groups_of,
    offending_text,
    patch_line,
    plain,
    plural,
    proven_line,
    runtime_lines,
)
from auditor.report.escape import one_line, terminal

DEFAULT_WIDTH: Final = 80
"""Columns of a table written to a file (and of the golden ``audit.txt``)."""
MIN_TOOL_WIDTH: Final = 12
"""Characters of a tool name kept, at least, before the table turns to one line per tool."""

TABLE_OUTCOMES: Final[tuple[Outcome, ...]] = (
    # What the change does first, the headline leading; then what it leaves as it was; then
    # what could not be replayed at all.
    Outcome.NEWLY_REJECTED,
    Outcome.SCHEMA_ERROR_AFTER,
    Outcome.SCHEMA_ERROR_BEFORE,
    Outcome.NEWLY_ACCEPTED,
    Outcome.STILL_REJECTED,
    Outcome.ACCEPTED,
    Outcome.UNPARSEABLE,
    Outcome.UNKNOWN_TOOL,
)
"""Outcome columns of the table; a column no call falls in is left out, but the headline."""

SHORT_LABELS: Final[dict[str, str]] = {
    "calls": "calls",
    OUTCOME_LABELS[Outcome.NEWLY_REJECTED]: "newly\nrej.",
    OUTCOME_LABELS[Outcome.SCHEMA_ERROR_AFTER]: "error\nafter",
    OUTCOME_LABELS[Outcome.SCHEMA_ERROR_BEFORE]: "error\nbefore",
    OUTCOME_LABELS[Outcome.NEWLY_ACCEPTED]: "newly\nacc.",
    OUTCOME_LABELS[Outcome.STILL_REJECTED]: "still\nrej.",
    OUTCOME_LABELS[Outcome.ACCEPTED]: "acc.",
    OUTCOME_LABELS[Outcome.UNPARSEABLE]: "unpar-\nseable",
    OUTCOME_LABELS[Outcome.UNKNOWN_TOOL]: "unkn.\ntool",
    "rewrites": "rewr.",
}
"""Column headers of a narrow terminal (schema errors are the new or old schema's)."""

Row = tuple[str, int, dict[Outcome, int], int | None]
"""A tool (or unknown name), its calls, its counts by outcome and its rewrites (None: no
schema, so none)."""


def _rows(report: Report) -> list[Row]:
    rows: list[Row] = [
        (tool.name, tool.call_count, dict(tool.counts), len(tool.rewrites)) for tool in report.tools
    ]
    # An unknown tool's calls are counted under "unknown tool", and nowhere else.
    unknown = list(report.unknown_tools.items())
    if report.unknown_tools_other:
        unknown.append(("(other unknown tools)", report.unknown_tools_other))
    rows += [(name, n, {Outcome.UNKNOWN_TOOL: n}, None) for name, n in unknown]
    if report.nameless_calls:
        n = report.nameless_calls
        rows.append(("(no tool named)", n, {Outcome.UNPARSEABLE: n}, None))
    rows.append(("total", report.call_count, dict(report.totals), report.rewrite_count))
    return rows


def _cell(count: int, blank: bool) -> str:
    """``1,234``; ``blank`` leaves a zero out (a row that is no tool has no outcome to
    count, and no rewrite)."""
    return "" if blank and not count else f"{count:,}"


def _cut(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _grid(rows: list[Row], outcomes: list[Outcome], style: int, tool_width: int | None) -> str:
    """The table; ``style`` 0: headers in one line, 1: in two, 2: abbreviated;
    ``tool_width``: names cut to it."""
    labels = ["calls", *(OUTCOME_LABELS[o] for o in outcomes), "rewrites"]
    if style == 1:
        labels = [_two_lines(label) for label in labels]
    elif style == 2:
        labels = [SHORT_LABELS[label] for label in labels]
    cells = [
        [
            terminal(name if tool_width is None else _cut(name, tool_width)),
            f"{calls:,}",
            *(_cell(counts.get(o, 0), rewrites is None) for o in outcomes),
            _cell(rewrites or 0, rewrites is None),
        ]
        for name, calls, counts, rewrites in rows
    ]
    heads = [label.split("\n") for label in ["tool", *labels]]
    depth = max(len(head) for head in heads)
    heads = [[""] * (depth - len(head)) + head for head in heads]  # labels end on one line
    widths = [
        max(len(text) for text in [*head, *(row[i] for row in cells)])
        for i, head in enumerate(heads)
    ]

    def line(values: list[str]) -> str:
        # The tool's name to the left, numbers to the right, two spaces between columns.
        return "  ".join(
            value.rjust(width) if i else value.ljust(width)
            for i, (value, width) in enumerate(zip(values, widths, strict=True))
        ).rstrip()

    header = [line([head[k] for head in heads]) for k in range(depth)]
    return "\n".join([*header, line(["-" * w for w in widths]), *(line(row) for row in cells)])


def _two_lines(label: str) -> str:
    """``schema error\\nafter``: split at the space that leaves the narrower column."""
    spaces = [i for i, char in enumerate(label) if char == " "]
    if not spaces:
        return label
    at = min(spaces, key=lambda i: max(i, len(label) - i - 1))
    return label[:at] + "\n" + label[at + 1 :]


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def _listed(rows: list[Row], outcomes: list[Outcome]) -> str:
    """One line per tool, for a terminal too narrow for columns."""
    lines = []
    for name, calls, counts, rewrites in rows:
        said = [f"{counts[o]:,} {OUTCOME_LABELS[o]}" for o in outcomes if counts.get(o)]
        line = f"{terminal(name)}: {plural(calls, 'call')}" + (
            f": {', '.join(said)}" if said else ""
        )
        lines.append(line + (f"; {plural(rewrites, 'rewrite')}" if rewrites else ""))
    return "\n".join(lines)


def summary_table(report: Report, width: int = DEFAULT_WIDTH) -> str:
    """The per-tool counts in at most ``width`` columns where it can be done: zero columns
    left out, then headers on two lines, then abbreviated, then tool names cut; else one
    line per tool."""
    rows = _rows(report)
    outcomes = [o for o in TABLE_OUTCOMES if o is Outcome.NEWLY_REJECTED or report.totals.get(o)]
    for style in range(3):
        text = _grid(rows, outcomes, style, None)
        if _widest(text) <= width:
            return text
    longest = max(len(name) for name, *_ in rows)
    tool_width = max(MIN_TOOL_WIDTH, longest - (_widest(text) - width))
    if tool_width < longest:
        text = _grid(rows, outcomes, 2, tool_width)
        if _widest(text) <= width:
            return text
    return _listed(rows, outcomes)


def summary_line(report: Report, code: int) -> str:
    """The last line, as a linter ends: ``17 calls in 6 tools would be newly rejected;
    10 groups; exit 1``."""
    newly = report.totals.get(Outcome.NEWLY_REJECTED, 0)
    if newly:
        tools = {group.tool for group in groups_of(report, Outcome.NEWLY_REJECTED)}
        groups = len(groups_of(report, Outcome.NEWLY_REJECTED))
        parts = [
            f"{plural(newly, 'call')} in {plural(len(tools), 'tool')} would be newly rejected",
            plural(groups, "group"),
        ]
    else:
        parts = [f"no call would be newly rejected ({plural(report.call_count, 'call')} read)"]
    if after := report.totals.get(Outcome.SCHEMA_ERROR_AFTER, 0):
        parts.append(f"{plural(after, 'call')} meet an unusable new schema")
    return "; ".join([*parts, f"exit {code}"])


def render(report: Report, width: int = DEFAULT_WIDTH, code: int | None = None) -> str:
    """Summary table in ``width`` columns, unusable schemas first, then newly rejected groups
    and coverage, and a summary line naming the exit code (``code``, else the gate's)."""
    out = [summary_table(report, width), ""]
    first, *notes = runtime_lines(report)
    lines = [plain(first), *(f"  {plain(line)}" for line in notes), ""]
    if proven := proven_line(report):
        lines.append(plain(proven))
    for group in groups_of(report, Outcome.SCHEMA_ERROR_AFTER):
        side = "new" if report.new_schema_inputs else "normalized"
        lines.append(f"UNUSABLE {side} schema: {group_title(group)}: {group.error}")
    if line := budget_line(report):
        lines.append(plain(line))
    groups = groups_of(report, Outcome.NEWLY_REJECTED)
    if groups:
        newly = report.totals[Outcome.NEWLY_REJECTED]
        lines.append(f"Newly rejected: {plural(newly, 'call')} in {plural(len(groups), 'group')}")
        for group in groups:
            accepted = "  (baseline)" if group.baselined else ""
            if below := below_threshold(report, group):
                accepted += f"  ({below})"
            accepted += f"  ({group.proven} proven)" if group.proven else ""
            lines.append(f"  {group.count:>5,}  {group_title(group)}{accepted}")
            lines.append(f"         caused by {cause_text(group.causes)}; e.g. {group.first}")
            if group.evidence:
                lines.append(f"         evidence: {plain(group.evidence)}")
            lines.append(f"         hint: {plain(group.hint.text)}")
            if values := offending_text(group):
                lines.append(f"         values sent: {plain(values)}")
            if callers := callers_text(group):
                lines.append(f"         callers: {plain(callers)}")
            if group.patch is not None:
                lines.append(f"         patch: {one_line(patch_line(group.patch))}")
    else:
        lines.append("No call would be newly rejected.")
    lines.append(coverage_line(report))
    lines.append(constraint_line(report))
    if line := counterexample_line(report):
        lines.append(line)
    if line := baseline_line(report):
        lines.append(plain(line))
    if line := gate_line(report):
        lines.append(plain(line))
    lines.append(summary_line(report, exit_code(report) if code is None else code))
    return "\n".join([*out, *map(terminal, lines)]) + "\n"
