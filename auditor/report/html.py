"""One self-contained HTML page: verdict, a bar chart of outcomes per tool, groups folded.

No scripts, no external assets, no network: styles are inline and the chart is inline SVG,
so the file can be attached to a review or opened from a CI artifact anywhere.
"""

from __future__ import annotations

from typing import Final

from auditor.aggregate.gate import below_threshold
from auditor.models import (
    Counterexample,
    CounterexampleStatus,
    Group,
    Outcome,
    Report,
    ToolSummary,
)
from auditor.report.common import (
    OUTCOME_LABELS,
    SUMMARY_OUTCOMES,
    baseline_line,
    blind_spots,
    caller_suffix,
    callers_text,
    cause_text,
    compact,
    constraint_line,
    counterexample_line,
    coverage_line,
    gate_line,
    groups_of,
    offending_text,
    plural,
    removes_tool,
    runtime_lines,
    share_text,
    summary_rows,
    verdict,
)
from auditor.report.escape import html_from_markdown, html_text

COLORS: Final[dict[Outcome, str]] = {
    Outcome.NEWLY_REJECTED: "#d1242f",
    Outcome.SCHEMA_ERROR_AFTER: "#8250df",
    Outcome.ACCEPTED: "#1a7f37",
    Outcome.STILL_REJECTED: "#9a6700",
    Outcome.NEWLY_ACCEPTED: "#0969da",
    Outcome.SCHEMA_ERROR_BEFORE: "#bf8700",
    Outcome.UNPARSEABLE: "#6e7781",
}
BAR_WIDTH: Final = 520
ROW_HEIGHT: Final = 22
LABEL_WIDTH: Final = 190

_STYLE: Final = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:980px;color:#1f2328;
padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:2px 8px;text-align:right}
td:first-child,th:first-child{text-align:left}code,pre{font:12px ui-monospace,monospace}
pre{background:#f6f8fa;padding:8px;white-space:pre-wrap;word-break:break-all}
details{border:1px solid #d0d7de;border-radius:6px;margin:.5em 0;padding:.3em .8em}
summary{cursor:pointer;font-weight:600}.alert{background:#ffebe9;border:1px solid #d1242f;
padding:.6em 1em;border-radius:6px}.hint{background:#ddf4ff;padding:.4em .8em;border-radius:6px}
.legend span{display:inline-block;margin-right:1em}.sw{width:10px;height:10px;display:inline-block;
margin-right:4px}
"""


def render(report: Report) -> str:
    """The page."""
    body = [
        "<h1>auditor: pre-upgrade audit</h1>",
        f"<p>{html_from_markdown(verdict(report))}</p>",
    ]
    first, *notes = runtime_lines(report)
    body.append(f"<p>{html_from_markdown(first)}</p>")
    if notes:
        body.append("<ul>" + "".join(f"<li>{html_from_markdown(n)}</li>" for n in notes) + "</ul>")
    if line := gate_line(report):
        body.append(f"<p>{html_from_markdown(line)}</p>")
    if line := baseline_line(report):
        body.append(f"<p>{html_from_markdown(line)}</p>")
    body += _unusable(report)
    body += ["<h2>Outcomes per tool</h2>", _chart(report.tools), _table(report)]
    for title, outcome in (
        ("Newly rejected calls", Outcome.NEWLY_REJECTED),
        ("Schemas that were unusable before normalization", Outcome.SCHEMA_ERROR_BEFORE),
        ("Newly accepted calls", Outcome.NEWLY_ACCEPTED),
    ):
        groups = groups_of(report, outcome)
        if groups:
            body.append(f"<h2>{html_text(title)}</h2>")
            body += [_group(g, below_threshold(report, g)) for g in groups]
    body += ["<h2>Coverage</h2>", f"<p>{html_from_markdown(coverage_line(report))}</p>"]
    body += _constraints(report)
    body += _counterexamples(report)
    schemas = ", ".join(html_text(p) for p in report.schema_inputs)
    logs = ", ".join(html_text(s.path) for s in report.log_inputs)
    stamp = f" Generated {html_text(report.generated_at)}." if report.generated_at else ""
    body.append(
        f"<p><small>Schemas: {schemas}. Logs: {logs}. auditor {report.version}.{stamp}</small></p>"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width">'
        f"<title>auditor report</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _constraints(report: Report) -> list[str]:
    out = [f"<p>{html_text(constraint_line(report))}</p>"]
    items = "".join(
        f"<li><code>{html_text(t.name)}</code>: "
        + ", ".join(f"<code>{html_text(p)}</code>" for p in spots)
        + "</li>"
        for t in report.tools
        if (spots := blind_spots(t))
    )
    if items:
        out.append(
            "<details><summary>Constraints no logged call reached (blind spots)</summary>"
            f"<ul>{items}</ul></details>"
        )
    return out


def _counterexamples(report: Report) -> list[str]:
    line = counterexample_line(report)
    if line is None:
        return []
    return [
        "<h2>Counterexamples: what the logs never tried</h2>",
        f"<p>{html_text(line)}</p>",
        *(_counterexample(c) for c in report.counterexamples),
    ]


def _counterexample(found: Counterexample) -> str:
    change = f"<code>{html_text(found.tool)}</code> {html_text(found.change.describe())}"
    if found.status is CounterexampleStatus.HARMLESS:
        return f"<p>{change}: <strong>harmless</strong>: {html_text(found.reason)}</p>"
    if found.status is CounterexampleStatus.NOT_FOUND:
        return (
            f"<p>{change}: <strong>no counterexample found</strong>: {html_text(found.reason)}</p>"
        )
    if found.status is CounterexampleStatus.UNUSABLE:
        blocked = "<strong>blocked by a schema error</strong>"
        return f"<p>{change}: {blocked}: {html_text(found.reason)}</p>"
    if found.derived_from is None:
        origin = "generated from the schema"
    else:
        origin = (
            f"<code>{html_text(found.derived_from)}</code> edited by the JSON Patch "
            f"<code>{html_text(compact(list(found.patch)))}</code>"
        )
    return (
        f"<details><summary>{change}: bites</summary><p>The old runtime accepts and the new "
        f"schema rejects ({origin}):</p><pre>{html_text(compact(found.arguments))}</pre>"
        "</details>"
    )


def _unusable(report: Report) -> list[str]:
    groups = groups_of(report, Outcome.SCHEMA_ERROR_AFTER)
    if not groups:
        return []
    items = "".join(
        f"<li><strong><code>{html_text(g.tool)}</code></strong> ({plural(g.count, 'call')}): "
        f"{html_text(g.error)}</li>"
        for g in groups
    )
    return [
        f'<div class="alert"><strong>Normalized schemas that cannot be used</strong>'
        f"<ul>{items}</ul></div>"
    ]


def _chart(tools: tuple[ToolSummary, ...]) -> str:
    """A stacked horizontal bar per tool, scaled to the busiest tool."""
    widest = max((t.call_count for t in tools), default=0) or 1
    height = ROW_HEIGHT * len(tools) + 8
    width = LABEL_WIDTH + BAR_WIDTH + 60
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="Outcomes per tool">'
    ]
    for row, tool in enumerate(tools):
        y = row * ROW_HEIGHT + 4
        parts.append(f'<text x="0" y="{y + 14}" font-size="12">{html_text(tool.name[:28])}</text>')
        x = float(LABEL_WIDTH)
        for outcome in SUMMARY_OUTCOMES:
            count = tool.counts.get(outcome, 0)
            if not count:
                continue
            span = BAR_WIDTH * count / widest
            parts.append(
                f'<rect x="{x:.1f}" y="{y}" width="{span:.1f}" height="{ROW_HEIGHT - 6}" '
                f'fill="{COLORS[outcome]}"><title>{html_text(tool.name)}: {count} '
                f"{OUTCOME_LABELS[outcome]}</title></rect>"
            )
            x += span
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 14}" font-size="12">{tool.call_count}</text>')
    parts.append("</svg>")
    legend = "".join(
        f'<span><i class="sw" style="background:{COLORS[o]}"></i>{OUTCOME_LABELS[o]}</span>'
        for o in SUMMARY_OUTCOMES
    )
    return "".join(parts) + f'<p class="legend">{legend}</p>'


def _table(report: Report) -> str:
    header, rows = summary_rows(report)
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html_text(str(cell))}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _group(group: Group, below: str | None) -> str:
    title = (
        f"{html_text(group.tool)}: {plural(group.count, 'call')}"
        f"{html_from_markdown(caller_suffix(group))}"
    )
    evidence = (
        f"<strong>Evidence:</strong> {html_from_markdown(group.evidence)}<br>"
        if group.evidence
        else ""
    )
    callers = callers_text(group)
    who = f"<strong>Callers:</strong> {html_from_markdown(callers)}<br>" if callers else ""
    if values := offending_text(group):
        who += f"<strong>Values sent:</strong> {html_from_markdown(values)}<br>"
    if removes_tool(group):
        title += " to a tool the change removed"
    elif group.keyword:
        title += (
            f" failing <code>{html_text(group.keyword)}</code> at "
            f"<code>{html_text(group.schema_pointer or '/')}</code>"
        )
    examples = "".join(
        f"<p><code>{html_text(e.source)}</code></p><pre>{html_text(compact(e.arguments))}</pre>"
        for e in group.examples
    )
    baselined = " (accepted by the baseline)" if group.baselined else ""
    if below:
        baselined += f" ({html_text(below)}: reported, does not fail the run)"
    return (
        f"<details><summary>{title}{baselined}</summary>"
        f'<p class="hint"><strong>{html_text(group.hint.kind.value)}:</strong> '
        f"{html_from_markdown(group.hint.text)}</p>"
        f"<p>{evidence}{who}<strong>Cause:</strong> {html_text(cause_text(group.causes))}<br>"
        f"<strong>Error:</strong> {html_text(group.error)}<br>"
        f"<strong>Share:</strong> {html_text(share_text(group))}; first "
        f"<code>{html_text(group.first)}</code>, last <code>{html_text(group.last)}</code><br>"
        f"<strong>Fingerprint:</strong> <code>{group.fingerprint}</code></p>"
        f"{examples}</details>"
    )
