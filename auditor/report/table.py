"""The terminal answer: per-tool counts fitted to the terminal's width, one line per group
(calls, tool, failing keyword at its pointer, hint kind, "patch" where one is verified), what
to do (the roll-up), and the verdict last, in the style of a linter's summary. ``concise`` is
what the terminal shows by default (the first groups only); ``render`` adds each group's
detail, the old-runtime notes, coverage and the gate's fingerprints (a file, ``--verbose``).

Every line is passed through ``escape.terminal``: names and messages from logs and catalogs
cannot move the cursor, colour the terminal, reorder text or start a line of their own. Then
it is wrapped at the width, with a hanging indent, measured in cells (``auditor.report.cells``:
a CJK tool name takes two cells a character).

The width is a parameter, never read here: the command line passes the terminal's for
stdout and ``DEFAULT_WIDTH`` for a file, so the same report renders the same text."""

from __future__ import annotations

from typing import Final

from auditor.gc_thresholds import fewer_collections
from auditor.models import Group, Outcome, Report, Subject
from auditor.report import prose
from auditor.report.cells import cell_len, cut, ljust, rjust, wrap
from auditor.report.common import (
    NOTHING_TO_DO,
    OUTCOME_LABELS,
    baseline_line,
    budget_line,
    caller_suffix,
    callers_text,
    cause_text,
    constraint_line,
    counterexample_line,
    coverage_line,
    gate_line,
    offending_text,
    patch_line,
    proven_line,
    removes_tool,
    rollup_labels,
    rollup_lines,
    runtime_lines,
    words,
)
from auditor.report.escape import terminal
from auditor.report.removed import HEADING as REMOVED_HEADING
from auditor.report.removed import removed_prose
from auditor.report.subject import RESULTS_HEADING, RESULTS_INTRO, not_validated_line
from auditor.words import plural

DEFAULT_WIDTH: Final = 80
"""Columns of a table written to a file (and of the golden ``audit.txt``)."""
MIN_TOOL_WIDTH: Final = 12
"""Cells of a tool name kept, at least, before the table turns to one line per tool."""
SHOWN_GROUPS: Final = 10
"""Groups the concise answer lists, in the report's order (largest first within an
outcome); the others are counted on one line."""

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
    "changes": "chg.",
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


def _grid(
    rows: list[Row], outcomes: list[Outcome], style: int, tool_width: int | None, unit: str
) -> str:
    """The table; ``style`` 0: headers in one line, 1: in two, 2: abbreviated;
    ``tool_width``: names cut to it; ``unit``: the last column's word (rewrite, change)."""
    labels = ["calls", *(OUTCOME_LABELS[o] for o in outcomes), unit + "s"]
    if style == 1:
        labels = [_two_lines(label) for label in labels]
    elif style == 2:
        labels = [SHORT_LABELS[label] for label in labels]
    cells = [
        [
            # Escaped before it is cut: an escape is wider than the character it shows.
            terminal(name) if tool_width is None else cut(terminal(name), tool_width),
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
        max(cell_len(text) for text in [*head, *(row[i] for row in cells)])
        for i, head in enumerate(heads)
    ]

    def line(values: list[str]) -> str:
        # The tool's name to the left, numbers to the right, two spaces between columns.
        return "  ".join(
            rjust(value, width) if i else ljust(value, width)
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
    return max(cell_len(line) for line in text.splitlines())


def _listed(rows: list[Row], outcomes: list[Outcome], width: int, unit: str) -> str:
    """One line per tool (wrapped), for a terminal too narrow for columns."""
    lines: list[str] = []
    for name, calls, counts, rewrites in rows:
        said = [f"{counts[o]:,} {OUTCOME_LABELS[o]}" for o in outcomes if counts.get(o)]
        line = f"{terminal(name)}: {plural(calls, 'call')}" + (
            f": {', '.join(said)}" if said else ""
        )
        lines += wrap(line + (f"; {plural(rewrites, unit)}" if rewrites else ""), width)
    return "\n".join(lines)


def summary_table(report: Report, width: int = DEFAULT_WIDTH) -> str:
    """The per-tool counts in at most ``width`` cells where it can be done: zero columns
    left out, then headers on two lines, then abbreviated, then tool names cut; else one
    line per tool, wrapped."""
    rows = _rows(report)
    unit = words(report).unit
    outcomes = [o for o in TABLE_OUTCOMES if o is Outcome.NEWLY_REJECTED or report.totals.get(o)]
    for style in range(3):
        text = _grid(rows, outcomes, style, None, unit)
        if _widest(text) <= width:
            return text
    longest = max(cell_len(terminal(name)) for name, *_ in rows)
    tool_width = max(MIN_TOOL_WIDTH, longest - (_widest(text) - width))
    if tool_width < longest:
        text = _grid(rows, outcomes, 2, tool_width, unit)
        if _widest(text) <= width:
            return text
    return _listed(rows, outcomes, width, unit)


Line = tuple[str, int | None]
"""A line before wrapping, and the hanging indent of its continuation lines (None: its own
indent and two more)."""


def summary_line(report: Report, code: int) -> str:
    """The verdict, last, as a linter ends: ``20 calls would be newly rejected and 5 will
    fail on an unusable schema; exit 1``; with results, theirs before the exit code (``2
    calls would be newly rejected; 1 result would be newly rejected; exit 1``)."""
    text = _verdict(report)
    if report.results is not None:
        text += f"; {_verdict(report.results)}"
    return f"{text}; exit {code}"


def _verdict(report: Report) -> str:
    newly = report.totals.get(Outcome.NEWLY_REJECTED, 0)
    after = report.totals.get(Outcome.SCHEMA_ERROR_AFTER, 0)
    unit = "result" if report.subject is Subject.RESULTS else "call"
    if newly:
        text = f"{plural(newly, unit)} would be newly rejected"
        if after:
            text += f" and {after:,} will fail on an unusable schema"
    else:
        text = f"no {unit} would be newly rejected ({plural(report.call_count, unit)} read)"
        if after:
            text += f", but {plural(after, unit)} will fail on an unusable schema"
    return text


def group_line(report: Report, group: Group, count_width: int = 0, indent: int = 0) -> Line:
    """``3 calls  search_code: additionalProperties at /additionalProperties; review,
    patch``: the group's calls, tool, what fails, hint kind and marks, escaped; its
    continuation lines line up with the tool. ``count_width``: cells of the widest count;
    ``indent``: cells before it."""
    count = f"{group.count:,}"
    prefix = (
        " " * indent + f"{rjust(count, count_width)} {'call ' if group.count == 1 else 'calls'}  "
    )
    tool = f"{group.tool}{prose.plain(caller_suffix(group))}"
    if removes_tool(group):
        what = "to a tool the change removed"
    elif group.keyword:
        what = f"{group.keyword} at {group.schema_pointer or '/'}"
    elif group.outcome is Outcome.SCHEMA_ERROR_AFTER:
        what = f"{words(report).new_schema.removeprefix('the ')} unusable, will fail"
    else:
        what = OUTCOME_LABELS[group.outcome]
    marks = group.hint.kind.value
    if group.patch is not None and group.patch.problem is None:
        marks += ", patch"
    if group.baselined:
        marks += " (baseline)"
    if below := report.gate.below_threshold(group):
        marks += f" ({below})"
    if group.proven:
        marks += f" ({group.proven:,} proven)"
    return prefix + terminal(f"{tool}: {what}; {marks}"), cell_len(prefix)


def _group_lines(report: Report, groups: list[Group], detail: bool) -> list[Line]:
    width = max((len(f"{g.count:,}") for g in groups), default=0)
    lines: list[Line] = []
    for group in groups:
        line = group_line(report, group, width, 2 if detail else 0)
        lines.append(line)
        if detail:
            indent = " " * (line[1] or 0)
            lines += [
                (indent + terminal(text), None) for text in _detail(group, words(report).unit)
            ]
    return lines


def _detail(group: Group, unit: str) -> list[str]:
    """The detail of a group, plain text: cause and first call, error, evidence, hint, values
    sent, callers, patch and fingerprint (what a baseline names)."""
    lines = []
    if group.outcome is Outcome.NEWLY_REJECTED:
        cause = cause_text(group.causes, unit)
        lines.append(f"{'caused by ' if group.causes else ''}{cause}; e.g. {group.first}")
    else:
        lines.append(f"e.g. {group.first}")
    if group.outcome is Outcome.SCHEMA_ERROR_AFTER:
        lines.append(f"error: {group.error}")
    if group.evidence:
        lines.append(f"evidence: {prose.plain(group.evidence)}")
    lines.append(f"hint: {prose.plain(group.hint.text)}")
    if values := offending_text(group):
        lines.append(f"values sent: {prose.plain(values)}")
    if callers := callers_text(group):
        lines.append(f"callers: {prose.plain(callers)}")
    if group.patch is not None:
        lines.append(f"patch: {patch_line(group.patch)}")
    lines.append(f"fingerprint: {group.fingerprint}")
    return lines


def _section_title(report: Report, outcome: Outcome, groups: list[Group]) -> str:
    calls = plural(sum(g.count for g in groups), "call")
    where = f"{calls} in {plural(len(groups), 'group')}"
    if outcome is Outcome.SCHEMA_ERROR_AFTER:
        return f"Will fail on an unusable {words(report).new_schema.removeprefix('the ')}: {where}"
    return f"{OUTCOME_LABELS[outcome].capitalize()}: {where}"


def _removed_properties(report: Report) -> list[Line]:
    """The calls that still send a property the change removed: a title, a line a removal."""
    if not report.removed_properties:
        return []
    lines: list[Line] = [(f"{REMOVED_HEADING}:", None)]
    lines += [
        (f"  {terminal(prose.plain(removed_prose(r)))}", 4) for r in report.removed_properties
    ]
    return lines


def _rollup(report: Report) -> list[Line]:
    lines = rollup_lines(report.rollup, rollup_labels(report))
    if not lines:
        return [(f"What to do: {NOTHING_TO_DO}.", None)]
    return [("What to do:", None), *((f"  {terminal(line.plain())}", 4) for line in lines)]


def _wrapped(blocks: list[list[Line]], width: int) -> str:
    """The blocks, each line wrapped at ``width`` cells, a blank line between blocks."""
    texts = [
        "\n".join(piece for text, hang in block for piece in wrap(text, width, hang))
        for block in blocks
    ]
    return "\n\n".join(text for text in texts if text) + "\n"


@fewer_collections()
def concise(
    report: Report,
    width: int = DEFAULT_WIDTH,
    code: int | None = None,
    detail_in: str | None = None,
) -> str:
    """The terminal's default answer in ``width`` cells: the per-tool counts, one line per
    group (the first ``SHOWN_GROUPS``, then how many more and where they are: ``detail_in``,
    the report that lists them, and ``--verbose``), what to do, and the verdict last, naming
    the exit code (``code``, else the gates'); the results' answer before the verdict, where
    the report holds results."""
    blocks = _concise_blocks(report, width, detail_in)
    if report.results is not None:
        blocks += [_results_heading(), *_concise_blocks(report.results, width, detail_in)]
    return _wrapped([*blocks, _summary(report, code)], width)


def _concise_blocks(report: Report, width: int, detail_in: str | None) -> list[list[Line]]:
    groups = list(report.groups)
    listed = _group_lines(report, groups[:SHOWN_GROUPS], detail=False)
    more = len(groups) - SHOWN_GROUPS
    if more > 0:
        where = f"see {detail_in}, or --verbose" if detail_in else "--verbose lists them"
        listed.append((terminal(f"… and {plural(more, 'more group')} ({where})"), 2))
    blocks: list[list[Line]] = [
        [(line, 0) for line in summary_table(report, width).splitlines()],
        _not_validated(report),
        listed,
        _removed_properties(report),
        _rollup(report),
    ]
    return blocks


@fewer_collections()
def render(report: Report, width: int = DEFAULT_WIDTH, code: int | None = None) -> str:
    """The answer with its detail in ``width`` cells (a file, ``--verbose``): the per-tool
    counts; the old runtime and what it changes; every group, by outcome, with its detail;
    coverage, baseline and the gate with its fingerprints; what to do; and the verdict last,
    naming the exit code (``code``, else the gates'); the results' answer before the verdict,
    where the report holds results."""
    blocks = _detail_blocks(report, width)
    if report.results is not None:
        blocks += [_results_heading(), *_detail_blocks(report.results, width)]
    return _wrapped([*blocks, _summary(report, code)], width)


def _detail_blocks(report: Report, width: int) -> list[list[Line]]:
    first, *notes = runtime_lines(report)
    context: list[Line] = [(terminal(prose.plain(first)), None)]
    context += [(f"  {terminal(prose.plain(line))}", None) for line in notes]
    for line in (proven_line(report), budget_line(report)):
        if line:
            context.append((terminal(prose.plain(line)), None))
    groups: list[Line] = []
    # One section per outcome, in the report's order of groups (unusable schemas first).
    for outcome in dict.fromkeys(g.outcome for g in report.groups):
        members = [g for g in report.groups if g.outcome is outcome]
        groups.append((_section_title(report, outcome, members), None))
        groups += _group_lines(report, members, detail=True)
    if not groups:
        groups.append(("No call would be newly rejected.", None))
    coverage = [coverage_line(report), constraint_line(report)]
    coverage += [line for line in (counterexample_line(report),) if line]
    coverage += [prose.plain(line) for line in (baseline_line(report), gate_line(report)) if line]
    blocks: list[list[Line]] = [
        [(line, 0) for line in summary_table(report, width).splitlines()],
        _not_validated(report),
        context,
        groups,
        _removed_properties(report),
        [(terminal(line), None) for line in coverage],
        _rollup(report),
    ]
    return blocks


def _summary(report: Report, code: int | None) -> list[Line]:
    """The verdict's block, naming ``code``, else the exit code of the report's gates."""
    if code is None:
        results = report.results
        code = max(report.gate.exit_code, 0 if results is None else results.gate.exit_code)
    return [(summary_line(report, code), 2)]


def _results_heading() -> list[Line]:
    """The results section's first paragraph: the answer for the results follows it."""
    return [(f"{RESULTS_HEADING}. {prose.plain(RESULTS_INTRO)}", 2)]


def _not_validated(report: Report) -> list[Line]:
    """For a report of results: what was read and not validated (nothing otherwise)."""
    if report.not_validated is None:
        return []
    return [(terminal(prose.plain(not_validated_line(report))), 2)]
