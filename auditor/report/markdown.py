"""Markdown for change reviews: the verdict and summary first, details folded."""

from __future__ import annotations

from tabulate import tabulate

from auditor.models import CallResult, LogStats, Outcome, Report
from auditor.report.common import compact, summary_rows, verdict
from auditor.report.views import Group, group_calls, plural

MAX_LISTED = 50
"""Unparseable calls listed one by one before the rest is only counted."""


def render(report: Report) -> str:
    out: list[str] = ["# auditor: pre-upgrade audit", "", verdict(report), ""]
    header, rows = summary_rows(report)
    out += ["## Summary", "", tabulate(rows, header, tablefmt="github"), ""]
    out += _unusable_after(report)
    out += _newly_rejected(report)
    out += _unusable_before(report)
    out += _other_changes(report)
    out += _unparseable(report)
    out += _rewrites(report)
    out += _inputs(report)
    return "\n".join(out).rstrip("\n") + "\n"


def _unusable_after(report: Report) -> list[str]:
    broken = [t for t in report.tools if t.counts.get(Outcome.SCHEMA_ERROR_AFTER)]
    if not broken:
        return []
    out = ["## Normalized schemas that cannot be used", ""]
    for tool in broken:
        count = tool.counts[Outcome.SCHEMA_ERROR_AFTER]
        problem = tool.new_schema_problem or _first_problem(report, tool.name)
        out.append(f"- `{tool.name}` ({plural(count, 'call')}): the normalized schema {problem}")
    return [*out, ""]


def _first_problem(report: Report, tool: str) -> str:
    for result in report.calls:
        if result.call.tool == tool and result.outcome is Outcome.SCHEMA_ERROR_AFTER:
            return f"raised for some calls, e.g. `{result.call.source}`: {result.schema_problem}"
    return "could not be used"


def _newly_rejected(report: Report) -> list[str]:
    groups = group_calls(report.calls, Outcome.NEWLY_REJECTED)
    if not groups:
        return []
    out = ["## Newly rejected calls", ""]
    for number, group in enumerate(groups, start=1):
        out += _group(number, group)
    return out


def _group(number: int, group: Group) -> list[str]:
    keywords = ", ".join(f"`{k}`" for k in group.keywords)
    first_error = group.examples[0].errors[0]
    out = [
        f"### {number}. `{group.tool}`: {plural(group.count, 'call')} failing {keywords}",
        "",
        f"- **Cause:** {group.cause_text}",
        f"- **Error:** at `{first_error.instance_pointer or '/'}`: {first_error.message} "
        f"(schema `{first_error.schema_pointer}`)",
        f"- **Calls:** first `{group.first}`, last `{group.last}`",
        "",
        "<details><summary>Example arguments</summary>",
        "",
    ]
    for example in group.examples:
        out += [
            f"`{example.call.source}`",
            "",
            "```json",
            compact(example.call.arguments),
            "```",
            "",
        ]
    return [*out, "</details>", ""]


def _unusable_before(report: Report) -> list[str]:
    tools = [t for t in report.tools if t.counts.get(Outcome.SCHEMA_ERROR_BEFORE)]
    if not tools:
        return []
    out = [
        "## Schemas that were unusable before normalization",
        "",
        "Calls of these tools were never really validated. The normalized schema can be used; "
        "these are the calls it would reject.",
        "",
    ]
    for tool in tools:
        count = tool.counts[Outcome.SCHEMA_ERROR_BEFORE]
        problem = tool.old_schema_problem or "raised for some calls"
        out.append(f"- `{tool.name}` ({plural(count, 'call')}): the old schema {problem}")
    out.append("")
    for number, group in enumerate(group_calls(report.calls, Outcome.SCHEMA_ERROR_BEFORE), 1):
        out += _group(number, group)
    return out


def _other_changes(report: Report) -> list[str]:
    lines = []
    for outcome, text in (
        (Outcome.NEWLY_ACCEPTED, "rejected before and accepted after"),
        (Outcome.STILL_REJECTED, "rejected before and after"),
    ):
        for tool in report.tools:
            count = tool.counts.get(outcome, 0)
            if count:
                lines.append(f"- `{tool.name}`: {plural(count, 'call')} {text}")
    if not lines:
        return []
    return ["## Other verdicts", "", *lines, ""]


def _unparseable(report: Report) -> list[str]:
    results = [r for r in report.calls if r.outcome in (Outcome.UNPARSEABLE, Outcome.UNKNOWN_TOOL)]
    if not results:
        return []
    rows = [[f"`{r.call.source}`", r.call.tool or "-", _why(r)] for r in results[:MAX_LISTED]]
    out = [
        "## Calls not replayed",
        "",
        "<details><summary>"
        f"{plural(len(results), 'call')}: unparseable or naming an unknown tool</summary>",
        "",
        tabulate(rows, ["source", "tool", "why"], tablefmt="github"),
        "",
    ]
    if len(results) > MAX_LISTED:
        out += [f"({len(results) - MAX_LISTED} more not listed; see the JSON report)", ""]
    return [*out, "</details>", ""]


def _why(result: CallResult) -> str:
    if result.outcome is Outcome.UNKNOWN_TOOL:
        return "unknown tool"
    reason = result.call.unparsed.reason if result.call.unparsed else "unparseable"
    return reason.replace("|", "\\|")


def _rewrites(report: Report) -> list[str]:
    tools = [t for t in report.tools if t.rewrites or t.findings]
    if not tools:
        return []
    out = ["## Rewrites and findings", ""]
    for tool in tools:
        out += [
            f"<details><summary><code>{tool.name}</code>: {plural(len(tool.rewrites), 'rewrite')}"
            f", {plural(len(tool.findings), 'finding')} ({tool.location})</summary>",
            "",
        ]
        out += [f"- `{r.pointer}`: `{r.old}` → `{r.new}` ({r.rule.value})" for r in tool.rewrites]
        out += [f"- {f.code} `{f.pointer}`: {f.message}" for f in tool.findings]
        out += ["", "</details>", ""]
    return out


def _log_counts(stats: LogStats) -> str:
    parts = [stats.format, f"{stats.lines} lines", f"{stats.blank} blank", f"{stats.calls} calls"]
    # Only where they say something: most logs have neither.
    if stats.records_without_calls:
        parts.append(f"{stats.records_without_calls} records without calls")
    if stats.repeated_calls:
        parts.append(f"{stats.repeated_calls} repeated calls")
    return ", ".join(parts)


def _inputs(report: Report) -> list[str]:
    logs = ", ".join(f"`{s.path}` ({_log_counts(s)})" for s in report.log_inputs)
    schemas = ", ".join(f"`{p}`" for p in report.schema_inputs)
    return [f"Schemas: {schemas}. Logs: {logs}. auditor {report.version}."]
