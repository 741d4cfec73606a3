"""Markdown for change reviews, the answer first: the verdict, what to do (the roll-up), the
first groups in a table; then the per-tool summary (columns of zeros left out), each group's
detail, coverage and counterexamples; last the notes (the old runtime, the change, the gate
with its fingerprints), for whoever checks how the verdict was made.

It must fit a pull-request comment whatever the log size (GitHub refuses more than 65,536
characters), so sections are added in order of importance while a budget lasts, and a line
near the top says what was cut. The JSON report always has everything.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final

import tabulate as tabulate_module

from auditor.models import (
    Counterexample,
    CounterexampleStatus,
    Group,
    Outcome,
    Report,
    SchemaPatch,
)
from auditor.report import prose
from auditor.report.common import (
    CONTRADICTED_INTRO,
    GROUP_HEADER,
    NOTHING_TO_DO,
    SHOWN_GROUPS,
    TEXT_EDIT,
    GroupRow,
    baseline_line,
    blind_spots,
    budget_line,
    callers_text,
    cause_text,
    compact,
    constraint_line,
    content_capture_hint,
    counterexample_line,
    coverage_line,
    gate_line,
    group_heading,
    group_rows,
    groups_of,
    log_counts,
    more_groups,
    not_replayed,
    not_replayed_reason,
    offending_text,
    reached_text,
    rollup_labels,
    rollup_lines,
    runtime_lines,
    set_aside,
    share_text,
    summary_rows,
    title,
    unexercised,
    unit_of,
    verdict,
    words,
)
from auditor.report.escape import (
    html_text,
    md_cell,
    md_code,
    md_html,
    md_quoted,
    md_text,
)
from auditor.report.removed import HEADING as REMOVED_HEADING
from auditor.report.removed import removed_prose
from auditor.report.subject import RESULTS_INTRO, not_validated_line
from auditor.words import agree, plural

MAX_CHARS: Final = 60_000
"""Below GitHub's 65,536-character comment limit, leaving room for the cut notice and a
wrapper a CI step may add."""
MAX_LISTED: Final = 50
"""Unparseable calls listed one by one before the rest is only counted."""
MAX_INPUTS: Final = 3
"""Log files and catalogs named in the inputs line before the rest is only counted: a run
over 1,200 log files must still fit (the JSON report lists them all)."""
MAX_PATH: Final = 300
"""Characters of one input path in the inputs line."""
NOTICE_ROOM: Final = 400
"""Kept for the cut notice, which names a handful of kinds of content."""


class _Budget:
    """Characters left; remembers what did not fit, by kind."""

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.cut: Counter[str] = Counter()

    def take(self, lines: list[str], what: str) -> list[str]:
        size = sum(len(line) + 1 for line in lines)
        if size > self.left:
            self.cut[what] += 1
            return []
        self.left -= size
        return lines


RESULTS_SHARE: Final = 3
"""A results section takes at most a third of the characters, the arguments the rest."""
_HEADING = re.compile(r"^(#{1,5}) ", re.MULTILINE)


def render(report: Report, limit: int = MAX_CHARS) -> str:
    """The Markdown report, at most ``limit`` characters: the verdict, what to do and the
    first groups first; the detail after; the old runtime's notes and the gate at the end.
    A report with results ends with their section (``_results``), as a report of its own."""
    if report.results is None:
        return _render(report, limit)
    section = _results(report.results, limit // RESULTS_SHARE)
    return _render(report, limit - len(section) - 1) + "\n" + section


def _results(results: Report, limit: int) -> str:
    """The results' report with every heading one level down, its title the section's
    heading, then what was not validated."""
    intro = [prose.markdown(RESULTS_INTRO), ""]
    text = _render(results, limit - sum(len(line) + 1 for line in intro))
    title_line, _, rest = _HEADING.sub(r"#\1 ", text).partition("\n\n")
    return "\n".join([title_line, "", *intro, ""]) + rest


def _render(report: Report, limit: int) -> str:
    inputs = _inputs(report)
    budget = _Budget(limit - NOTICE_ROOM - len(inputs) - 1)  # the notice and inputs always fit
    head = [f"# {title(report)}", "", prose.markdown(verdict(report)), ""]
    if report.not_validated is not None:  # a report of results: what MCP does not validate
        head += [prose.markdown(not_validated_line(report)), ""]
    head += rollup_block(report)
    for line in (baseline_line(report), budget_line(report)):
        if line:
            head += [prose.markdown(line), ""]
    body = [*budget.take(head, "header")]  # a copy: the notice goes in after the head
    body += budget.take(group_table(report, "details below"), "group table")
    body += budget.take(["## Summary", "", summary_table(report), ""], "summary table")
    body += _removed_properties(report, budget)
    body += _unusable_after(report, budget)
    newly = groups_of(report, Outcome.NEWLY_REJECTED)
    body += _groups(
        report, "## Newly rejected calls", [g for g in newly if not g.contradicted], budget, []
    )
    body += _groups(
        report,
        "## Calls the log contradicts",
        [g for g in newly if g.contradicted],
        budget,
        [prose.markdown(CONTRADICTED_INTRO), ""],
    )
    body += _unusable_before(report, budget)
    body += _groups(
        report, "## Newly accepted calls", groups_of(report, Outcome.NEWLY_ACCEPTED), budget, []
    )
    body += _other_changes(report, budget)
    body += _coverage(report, budget)
    body += _constraints(report, budget)
    body += _counterexamples(report, budget)
    body += _unparseable(report, budget)
    body += _rewrites(report, budget)
    body += _notes(report, budget)
    body += [inputs]
    if budget.cut:
        cut = ", ".join(plural(n, what) for what, n in sorted(budget.cut.items()))
        notice = (
            f"> **Cut to fit a pull-request comment:** {cut} not shown; the JSON report has all."
        )
        at = len(head) if body[: len(head)] == head else 0
        body[at:at] = [notice, ""]
    return "\n".join(body).rstrip("\n") + "\n"


def rollup_block(report: Report, heading: str = "## What to do") -> list[str]:
    """What to do (``Report.rollup``), one bullet an entry, under ``heading``; one line when
    there is nothing to do."""
    lines = rollup_lines(report.rollup, rollup_labels(report))
    if not lines:
        return [f"**What to do:** {NOTHING_TO_DO}.", ""]
    return [heading, "", *(f"- {line.markdown()}" for line in lines), ""]


def group_table(
    report: Report, where: str, shown: int = SHOWN_GROUPS, heading: str | None = "## Groups"
) -> list[str]:
    """The first ``shown`` groups, one table row each, under ``heading``, and a line saying
    how many more there are and ``where``; nothing when the report has no group."""
    groups = report.groups[:shown]
    if not groups:
        return []
    rows = [
        [number, *_group_cells(row)]
        for number, row in enumerate(group_rows(report, groups), start=1)
    ]
    table = _pipe_table(
        rows, ["#", *GROUP_HEADER], colalign=("right", "right", "left", "left", "left", "left")
    )
    more = more_groups(report, len(groups), where)
    return [*([heading, ""] if heading else []), table, "", *([more, ""] if more else [])]


def _group_cells(row: GroupRow) -> list[str]:
    tool = md_code(row.tool, cell=True)
    if row.caller is not None:
        tool += f" from {md_code(row.caller, cell=True)}" if row.caller else " from no named caller"
    if row.keyword:
        what = f"{md_code(row.keyword, cell=True)} at {md_code(row.pointer, cell=True)}"
    else:
        what = md_cell(row.what)
    return [f"{row.calls:,}", tool, what, md_cell(row.todo), md_cell("; ".join(row.marks))]


def summary_table(report: Report) -> str:
    """The per-tool summary as a Markdown table, counts to the right, ``1,234``."""
    header, rows = summary_rows(report)
    cells = [
        [md_cell(cell) if isinstance(cell, str) else f"{cell:,}" for cell in row] for row in rows
    ]
    return _pipe_table(cells, header, colalign=("left", *(["right"] * (len(header) - 1))))


def _pipe_table(
    rows: Sequence[Sequence[Any]], headers: Sequence[str], colalign: Sequence[str] | None = None
) -> str:
    """A pipe table padded by code points, whether or not ``wcwidth`` is installed: tabulate
    measures display width when it can import it, so the same report would differ byte for
    byte between environments wherever a cell holds CJK or emoji."""
    with _code_point_widths():
        return tabulate_module.tabulate(
            rows, headers, tablefmt="pipe", colalign=colalign, disable_numparse=True
        )


@contextmanager
def _code_point_widths() -> Iterator[None]:
    saved = tabulate_module.WIDE_CHARS_MODE
    tabulate_module.WIDE_CHARS_MODE = False
    try:
        yield
    finally:
        tabulate_module.WIDE_CHARS_MODE = saved


def _notes(report: Report, budget: _Budget) -> list[str]:
    """The old runtime and what it changes, the change audited, the log's contradictions
    and the gate, with its fingerprints: last, for whoever checks how the verdict was made."""
    first, *notes = runtime_lines(report)
    lines = ["## Notes", "", prose.markdown(first), ""]
    lines += [*(f"- {prose.markdown(line)}" for line in notes), *([""] if notes else [])]
    if line := gate_line(report):
        lines += [prose.markdown(line), ""]
    return budget.take(lines, "section")


def _numbers(report: Report) -> dict[str, int]:
    """Each group's number, by fingerprint: its place in the report (and in the groups
    table), so that a table row and a group's section carry the same number."""
    return {group.fingerprint: n for n, group in enumerate(report.groups, start=1)}


def _unusable_after(report: Report, budget: _Budget) -> list[str]:
    groups = groups_of(report, Outcome.SCHEMA_ERROR_AFTER)
    if not groups:
        return []
    numbers = _numbers(report)
    out = budget.take(["## ⚠️ Calls that will fail: unusable new schemas", ""], "section")
    for group in groups:
        out += budget.take(
            [
                f"- **{numbers[group.fingerprint]}.** **{md_code(group.tool)}** "
                f"({plural(group.count, 'call')}, first {md_code(group.first)}): "
                f"{md_text(group.error)}"
            ],
            "unusable schema",
        )
    return [*out, ""]


def _groups(
    report: Report, title: str, groups: list[Group], budget: _Budget, intro: list[str]
) -> list[str]:
    if not groups:
        return []
    numbers = _numbers(report)
    out = budget.take([title, "", *intro], "section")
    for group in groups:
        number = numbers[group.fingerprint]
        out += budget.take(
            _group(number, group, set_aside(report, group), words(report).unit), "group"
        )
    return out


def _patch(patch: SchemaPatch | None) -> list[str]:
    """The suggested loosening: what it does, where, and the JSON Patch on the new schema."""
    if patch is None:
        return []
    if patch.problem is not None:
        return [f"- **Patch:** none: {md_text(patch.problem)}"]
    if patch.location is None:
        where = f" (not written to the catalog: {md_text(patch.file_problem or '')})"
    else:
        where = f" at {md_code(str(patch.location))}"
    operations = compact([operation.as_json() for operation in patch.operations])
    return [
        f"- **Patch:** {md_text(patch.summary)}{where}; as a JSON Patch on the new schema: "
        f"{md_code(operations)}"
    ]


def _group(number: int, group: Group, below: str | None, unit: str) -> list[str]:
    title = f"### {number}. {prose.markdown(group_heading(group))}"
    callers = callers_text(group)
    fingerprint = (
        f"fingerprint `{group.fingerprint}`"
        + (" (accepted by the baseline)" if group.baselined else "")
        + (f" ({below}: reported, does not fail the run)" if below else "")
    )
    out = [
        title,
        "",
        f"- **Hint ({group.hint.kind.value}):** {prose.markdown(group.hint.text)}",
        *([f"- **Evidence:** {prose.markdown(group.evidence)}"] if group.evidence else []),
        *([f"- **Callers:** {prose.markdown(callers)}"] if callers else []),
        *(
            [f"- **Values sent:** {prose.markdown(values)}"]
            if (values := offending_text(group))
            else []
        ),
        f"- **Cause:** {md_text(cause_text(group.causes, unit))}"
        + (f"; **error:** {md_text(group.error)}" if group.error else ""),
        f"- **Share:** {share_text(group)}; first {md_code(group.first)}, last "
        f"{md_code(group.last)}; {fingerprint}",
        *(
            [f"- **Proven:** the log shows {plural(group.proven, 'call')} of it ran before"]
            if group.proven
            else []
        ),
        *_patch(group.patch),
        "",
    ]
    if group.examples:
        out += [f"<details><summary>Example arguments ({len(group.examples):,})</summary>", ""]
        for example in group.examples:
            ran = f"; the log says it {example.evidence.value}" if example.evidence else ""
            out.append(
                f"- {md_code(example.source)} (failing at "
                f"{md_code(example.instance_pointer or '/')}{ran}): "
                f"{md_code(compact(example.arguments))}"
            )
        out += ["", "</details>", ""]
    return out


def _unusable_before(report: Report, budget: _Budget) -> list[str]:
    tools = [t for t in report.tools if t.counts.get(Outcome.SCHEMA_ERROR_BEFORE)]
    if not tools:
        return []
    said = words(report)
    lines = [
        f"- {md_code(t.name)} ({plural(t.counts[Outcome.SCHEMA_ERROR_BEFORE], 'call')}): the "
        f"schema as written {md_text(t.old_schema_problem or 'raised for some calls')}"
        for t in tools
    ]
    heading = f"## Schemas that were unusable {said.before}"
    return _groups(
        report,
        heading,
        groups_of(report, Outcome.SCHEMA_ERROR_BEFORE),
        budget,
        [
            f"Calls of these tools were never really validated. "
            f"{said.new_schema.capitalize()} can be used; the groups below are what it makes "
            "of them.",
            "",
            *lines,
            "",
        ],
    ) or budget.take([heading, "", *lines, ""], "section")


def _other_changes(report: Report, budget: _Budget) -> list[str]:
    tools = [
        f"{md_code(tool.name)} ({tool.counts[Outcome.STILL_REJECTED]:,})"
        for tool in report.tools
        if tool.counts.get(Outcome.STILL_REJECTED)
    ]
    if not tools:
        return []
    still = report.totals.get(Outcome.STILL_REJECTED, 0)
    line = (
        f"{plural(still, 'call')} {agree(still, 'was', 'were')} rejected before and after: "
        f"{', '.join(tools)}."
    )
    return budget.take(["## Still rejected", "", line, ""], "section")


def _coverage(report: Report, budget: _Budget) -> list[str]:
    out = budget.take(["## Coverage", "", coverage_line(report), ""], "section")
    never = [(t, r) for t in report.tools for r in unexercised(t)]
    if not never:
        return out
    items = [f"- {md_code(t.name)} {r.describe(md_text, md_code)}" for t, r in never]
    return out + budget.take(
        [
            f"<details><summary>{words(report).units.capitalize()} not reached by any logged "
            "call</summary>",
            "",
            *items,
            "",
            "</details>",
            "",
        ],
        "coverage list",
    )


def _constraints(report: Report, budget: _Budget) -> list[str]:
    out = budget.take([constraint_line(report), ""], "section")
    items = [
        f"- {md_code(t.name)}: {', '.join(md_code(p) for p in spots)}"
        for t in report.tools
        if (spots := blind_spots(t))
    ]
    if not items:
        return out
    return out + budget.take(
        [
            "<details><summary>Constraints not reached by any logged call (blind spots)</summary>",
            "",
            *items,
            "",
            "</details>",
            "",
        ],
        "blind spot list",
    )


def _removed_properties(report: Report, budget: _Budget) -> list[str]:
    """The calls that still send a property the change removed, a bullet per removal."""
    if not report.removed_properties:
        return []
    opening = [f"## {REMOVED_HEADING}", ""]
    if not budget.take([*opening, ""], "section"):
        return []
    items: list[str] = []
    for removed in report.removed_properties:
        items += budget.take([f"- {prose.markdown(removed_prose(removed))}"], "removed property")
    return [*opening, *items, ""]


def _counterexamples(report: Report, budget: _Budget) -> list[str]:
    line = counterexample_line(report)
    if line is None:
        return []
    opening = [
        "## Counterexamples: what the logs never tried",
        "",
        line,
        "",
        f"<details><summary>Each {words(report).unit}, with its counterexample or why there is "
        "none</summary>",
        "",
    ]
    closing = ["", "</details>", ""]
    if not budget.take([*opening, *closing], "section"):  # paid first: always closed
        return []
    items: list[str] = []
    for found in report.counterexamples:
        items += budget.take([_counterexample(found)], "counterexample")
    return [*opening, *items, *closing]


def _counterexample(found: Counterexample) -> str:
    change = f"{md_code(found.tool)} {found.change.describe(md_code, md_code)}"
    if found.status is CounterexampleStatus.HARMLESS:
        return f"- {change}: **harmless**: {md_text(found.reason)}"
    if found.status is CounterexampleStatus.NOT_FOUND:
        return f"- {change}: **no counterexample found**: {md_text(found.reason)}"
    if found.status is CounterexampleStatus.UNUSABLE:
        return f"- {change}: **blocked by a schema error**: {md_text(found.reason)}"
    if found.derived_from is None:
        origin = "generated from the schema"
    else:
        edit = compact(list(found.patch))
        origin = f"{md_code(found.derived_from)} edited by the JSON Patch {md_code(edit)}"
    return (
        f"- {change}: **bites**: the old runtime accepts and the new schema rejects "
        f"{md_code(compact(found.arguments))} ({origin})"
    )


def _unparseable(report: Report, budget: _Budget) -> list[str]:
    results = not_replayed(report)
    if not results:
        return []
    rows = [
        [
            md_code(r.call.source, cell=True),
            md_cell(r.call.tool or "-"),
            md_cell(not_replayed_reason(r)),
        ]
        for r in results[:MAX_LISTED]
    ]
    out = [
        "## Calls not replayed",
        "",
        "<details><summary>"
        f"{plural(len(results), 'call')}: unparseable or naming an unknown tool</summary>",
        "",
        _pipe_table(rows, ["source", "tool", "why"]),
        "",
    ]
    if len(results) > MAX_LISTED:
        out += [f"({len(results) - MAX_LISTED:,} more not listed; see the JSON report)", ""]
    out += ["</details>", ""]
    hint = content_capture_hint(results)
    if hint is not None:  # outside the fold: the fix for a whole export
        out += [f"> 💡 {md_text(hint)}", ""]
    return budget.take(out, "section")


def _rewrites(report: Report, budget: _Budget) -> list[str]:
    tools = [t for t in report.tools if t.rewrites or t.findings or t.text_edits]
    if not tools:
        return []
    unit = words(report).unit
    out = budget.take([f"## {unit.capitalize()}s and findings", ""], "section")
    for tool in tools:
        counted = [plural(len(tool.rewrites), unit)]
        if tool.text_edits:
            counted.append(plural(tool.text_edits, TEXT_EDIT))
        counted.append(plural(len(tool.findings), "finding"))
        lines = [
            f"<details><summary><code>{html_text(tool.name)}</code>: {', '.join(counted)} "
            f"({md_html(str(tool.location))})</summary>",
            "",
        ]
        lines += [
            f"- {r.describe(md_code, md_code)} ({r.rule.value}; {reached_text(n)})"
            for r, n in zip(tool.rewrites, tool.reached, strict=True)
        ]
        lines += [f"- {f.code} {md_code(f.pointer)}: {md_quoted(f.message)}" for f in tool.findings]
        out += budget.take([*lines, "", "</details>", ""], "rewrite list")
    return out


def _inputs(report: Report) -> str:
    logs = _listed(
        [f"{_path(s.path)} ({log_counts(s, unit_of(report))})" for s in report.log_inputs],
        "more log file",
    )
    schemas = _listed([_path(p) for p in report.schema_inputs], "more catalog")
    stamp = f" Generated {report.generated_at}." if report.generated_at else ""
    omitted = (
        f" {plural(report.calls_omitted, 'call')} left out of the call list by --max-calls."
        if report.calls_omitted
        else ""
    )
    redacted = " Logged values redacted to their shape." if report.redacted else ""
    skipped = ""
    if report.skipped_inputs:
        listed = _listed([_path(s.path) for s in report.skipped_inputs], "more file")
        skipped = f" Skipped (no tool catalog): {listed}."
    return (
        f"Schemas: {schemas}.{skipped} Logs: {logs}. auditor {report.version}."
        f"{redacted}{omitted}{stamp}"
    )


def _listed(items: list[str], more: str) -> str:
    """The first ``MAX_INPUTS`` items, then how many more (``and 1,197 more log files``)."""
    if len(items) <= MAX_INPUTS:
        return ", ".join(items)
    return ", ".join(items[:MAX_INPUTS]) + f" and {plural(len(items) - MAX_INPUTS, more)}"


def _path(path: str) -> str:
    return md_code(path if len(path) <= MAX_PATH else path[: MAX_PATH - 1] + "…")
