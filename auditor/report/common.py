"""Small text helpers shared by the human-readable renderers."""

from __future__ import annotations

import json

from auditor.models import JSON, Outcome, Report, ToolSummary
from auditor.report.views import plural

MAX_ARGUMENTS = 300

OUTCOME_LABELS: dict[Outcome, str] = {
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
SUMMARY_OUTCOMES: tuple[Outcome, ...] = (
    Outcome.NEWLY_REJECTED,
    Outcome.SCHEMA_ERROR_AFTER,
    Outcome.ACCEPTED,
    Outcome.STILL_REJECTED,
    Outcome.NEWLY_ACCEPTED,
    Outcome.SCHEMA_ERROR_BEFORE,
    Outcome.UNPARSEABLE,
)


def compact(value: JSON, limit: int = MAX_ARGUMENTS) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summary_rows(report: Report) -> tuple[list[str], list[list[object]]]:
    """Header and rows of the per-tool summary, with unknown tools and a total row."""
    header = ["tool", "calls", *(OUTCOME_LABELS[o] for o in SUMMARY_OUTCOMES), "rewrites"]
    rows: list[list[object]] = [_tool_row(tool) for tool in report.tools]
    for name, count in report.unknown_tools.items():
        rows.append([f"{name} (unknown tool)", count, *([0] * len(SUMMARY_OUTCOMES)), "-"])
    if report.nameless_calls:
        nameless = [0] * len(SUMMARY_OUTCOMES)
        nameless[SUMMARY_OUTCOMES.index(Outcome.UNPARSEABLE)] = report.nameless_calls
        rows.append(["(no tool named)", report.nameless_calls, *nameless, "-"])
    rows.append(
        [
            "total",
            report.call_count,
            *(report.totals.get(o, 0) for o in SUMMARY_OUTCOMES),
            sum(len(t.rewrites) for t in report.tools),
        ]
    )
    return header, rows


def _tool_row(tool: ToolSummary) -> list[object]:
    return [
        tool.name,
        sum(tool.counts.values()),
        *(tool.counts.get(o, 0) for o in SUMMARY_OUTCOMES),
        len(tool.rewrites),
    ]


def verdict(report: Report) -> str:
    """One paragraph: is it safe, and if not, how unsafe."""
    total = report.call_count
    newly = report.totals.get(Outcome.NEWLY_REJECTED, 0)
    after = report.totals.get(Outcome.SCHEMA_ERROR_AFTER, 0)
    before = report.totals.get(Outcome.SCHEMA_ERROR_BEFORE, 0)
    broken = [t.name for t in report.tools if t.new_schema_problem]
    parts = []
    if newly:
        tools = sorted(
            {r.call.tool or "" for r in report.calls if r.outcome is Outcome.NEWLY_REJECTED}
        )
        names = ", ".join(f"`{t}`" for t in tools)
        parts.append(
            f"**{newly} of {total} logged calls would be newly rejected** after normalization, "
            f"in {plural(len(tools), 'tool')} ({names})."
        )
    else:
        parts.append(f"**No logged call would be newly rejected** ({total} calls replayed).")
    if after:
        parts.append(
            f"**{after} calls cannot be checked because the normalized schema is unusable**"
            + (f" ({', '.join(f'`{t}`' for t in broken)}: meta-schema)" if broken else "")
            + "."
        )
    if before:
        parts.append(
            f"{before} calls were replayed against schemas that were unusable before "
            "normalization; see below what the normalized schemas make of them."
        )
    unparseable = report.totals.get(Outcome.UNPARSEABLE, 0)
    unknown = report.totals.get(Outcome.UNKNOWN_TOOL, 0)
    if unparseable or unknown:
        parts.append(f"{unparseable} calls were unparseable and {unknown} named unknown tools.")
    return " ".join(parts)
