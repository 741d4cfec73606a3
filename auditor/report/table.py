"""The terminal summary: per-tool counts and the newly rejected groups, one line each."""

from __future__ import annotations

from tabulate import tabulate

from auditor.models import Outcome, Report
from auditor.report.common import summary_rows
from auditor.report.views import group_calls, plural


def render(report: Report) -> str:
    header, rows = summary_rows(report)
    out = [tabulate(rows, header, tablefmt="simple"), ""]
    groups = group_calls(report.calls, Outcome.NEWLY_REJECTED)
    if groups:
        newly = report.totals[Outcome.NEWLY_REJECTED]
        out.append(f"Newly rejected: {plural(newly, 'call')} in {plural(len(groups), 'group')}")
        for group in groups:
            keywords = ", ".join(group.keywords)
            causes = "; ".join(f"{r.pointer} {r.old} → {r.new}" for r in group.causes) or "?"
            out.append(f"  {group.count:>5}  {group.tool}  [{keywords}]  caused by {causes}")
            out.append(f"         e.g. {group.first}")
    else:
        out.append("No call would be newly rejected.")
    broken = [t.name for t in report.tools if t.counts.get(Outcome.SCHEMA_ERROR_AFTER)]
    if broken:
        after = plural(report.totals[Outcome.SCHEMA_ERROR_AFTER], "call")
        out.append(f"Normalized schema unusable for {after} of: {', '.join(broken)}")
    return "\n".join(out) + "\n"
