"""The terminal summary: per-tool counts and the groups, one line each, with their hints."""

from __future__ import annotations

from tabulate import tabulate

from auditor.models import Outcome, Report
from auditor.report.common import (
    baseline_line,
    cause_text,
    coverage_line,
    gate_line,
    group_title,
    groups_of,
    plain,
    plural,
    proven_line,
    runtime_lines,
    summary_rows,
)


def render(report: Report) -> str:
    """Summary table, unusable schemas first, then newly rejected groups and coverage."""
    header, rows = summary_rows(report)
    first, *notes = runtime_lines(report)
    out = [tabulate(rows, header, tablefmt="simple"), "", first]
    out += [f"  {plain(line)}" for line in notes]
    out.append("")
    if proven := proven_line(report):
        out.append(plain(proven))
    for group in groups_of(report, Outcome.SCHEMA_ERROR_AFTER):
        out.append(f"UNUSABLE normalized schema: {group_title(group)}: {group.error}")
    groups = groups_of(report, Outcome.NEWLY_REJECTED)
    if groups:
        newly = report.totals[Outcome.NEWLY_REJECTED]
        out.append(f"Newly rejected: {plural(newly, 'call')} in {plural(len(groups), 'group')}")
        for group in groups:
            accepted = "  (baseline)" if group.baselined else ""
            accepted += f"  ({group.proven} proven)" if group.proven else ""
            out.append(f"  {group.count:>5}  {group_title(group)}{accepted}")
            out.append(f"         caused by {cause_text(group.causes)}; e.g. {group.first}")
            out.append(f"         hint: {group.hint.text.replace('`', '')}")
    else:
        out.append("No call would be newly rejected.")
    out.append(coverage_line(report))
    if line := baseline_line(report):
        out.append(line.replace("`", ""))
    if line := gate_line(report):
        out.append(plain(line))
    return "\n".join(out) + "\n"
