"""The terminal summary: per-tool counts and the groups, one line each, with their hints.

Every line is passed through ``escape.terminal``: names and messages from logs and catalogs
cannot move the cursor, colour the terminal, reorder text or start a line of their own."""

from __future__ import annotations

from tabulate import tabulate

from auditor.aggregate.gate import below_threshold
from auditor.models import Outcome, Report
from auditor.report.common import (
    baseline_line,
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
    summary_rows,
)
from auditor.report.escape import one_line, terminal


def render(report: Report) -> str:
    """Summary table, unusable schemas first, then newly rejected groups and coverage."""
    header, rows = summary_rows(report)
    cells = [[terminal(cell) if isinstance(cell, str) else cell for cell in row] for row in rows]
    # The tool column is text even when a name looks like a number ("1e5" stays "1e5").
    out = [tabulate(cells, header, tablefmt="simple", disable_numparse=[0]), ""]
    first, *notes = runtime_lines(report)
    lines = [plain(first), *(f"  {plain(line)}" for line in notes), ""]
    if proven := proven_line(report):
        lines.append(plain(proven))
    for group in groups_of(report, Outcome.SCHEMA_ERROR_AFTER):
        side = "new" if report.new_schema_inputs else "normalized"
        lines.append(f"UNUSABLE {side} schema: {group_title(group)}: {group.error}")
    groups = groups_of(report, Outcome.NEWLY_REJECTED)
    if groups:
        newly = report.totals[Outcome.NEWLY_REJECTED]
        lines.append(f"Newly rejected: {plural(newly, 'call')} in {plural(len(groups), 'group')}")
        for group in groups:
            accepted = "  (baseline)" if group.baselined else ""
            if below := below_threshold(report, group):
                accepted += f"  ({below})"
            accepted += f"  ({group.proven} proven)" if group.proven else ""
            lines.append(f"  {group.count:>5}  {group_title(group)}{accepted}")
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
    return "\n".join([*out, *map(terminal, lines)]) + "\n"
