"""One self-contained HTML page: a verdict badge, a bar chart of outcomes per tool, and every
section the Markdown report has.

No scripts, no external assets, no network: styles are inline and the chart is made of
styled boxes, so the file can be attached to a review or opened from a CI artifact anywhere.
Colours come from the Okabe-Ito palette (told apart with the common colour-vision
deficiencies) and never carry meaning alone: every bar segment, badge and hint box has its
text label beside it, and the two outcomes that break calls are also striped. The page fits
a 420-pixel screen (tables scroll inside their own box) and follows the reader's dark mode.
Every logged string goes through ``escape.html_text``, or is a piece of the shared wording's
``Prose`` (``prose.html``).
"""

from __future__ import annotations

import re
from typing import Final

from auditor.models import (
    CallResult,
    Change,
    Counterexample,
    CounterexampleStatus,
    Example,
    Group,
    HintKind,
    Outcome,
    Prose,
    Report,
    SchemaPatch,
    Span,
    ToolSummary,
)
from auditor.report import prose
from auditor.report.common import (
    CONTRADICTED_INTRO,
    GROUP_HEADER,
    NOTHING_TO_DO,
    OUTCOME_LABELS,
    SHOWN_GROUPS,
    SUMMARY_OUTCOMES,
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
    fail_on_option,
    gate_line,
    group_heading,
    group_rows,
    groups_of,
    log_counts,
    more_groups,
    not_replayed,
    not_replayed_reason,
    offending_text,
    patch_json,
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
from auditor.report.escape import html_text
from auditor.report.removed import HEADING as REMOVED_HEADING
from auditor.report.removed import removed_prose
from auditor.report.subject import RESULTS_INTRO, not_validated_line
from auditor.words import agree, plural

COLORS: Final[dict[Outcome, str]] = {
    Outcome.NEWLY_REJECTED: "#D55E00",  # vermillion
    Outcome.SCHEMA_ERROR_AFTER: "#CC79A7",  # reddish purple
    Outcome.ACCEPTED: "#009E73",  # bluish green
    Outcome.STILL_REJECTED: "#F0E442",  # yellow
    Outcome.NEWLY_ACCEPTED: "#0072B2",  # blue
    Outcome.SCHEMA_ERROR_BEFORE: "#56B4E9",  # sky blue
    Outcome.UNPARSEABLE: "#666666",  # dark grey
}
"""Okabe-Ito, one colour per outcome of the chart, and a grey; no two of them alike (orange
is left out: beside vermillion it is the palette's nearest pair)."""
STRIPED: Final = frozenset({Outcome.NEWLY_REJECTED, Outcome.SCHEMA_ERROR_AFTER})
"""Outcomes that break calls: striped as well as coloured, so they stand out in grey too."""

HINT_COLORS: Final[dict[HintKind, tuple[str, str, str]]] = {
    # border, light background, dark background
    HintKind.LOOSEN_SCHEMA: ("#0072B2", "#e3f0f8", "#0b2536"),
    HintKind.FIX_CALLERS: ("#E69F00", "#fdf3dd", "#33260a"),
    HintKind.REVIEW: ("#CC79A7", "#f8eaf2", "#33202b"),
    HintKind.FIX_SCHEMA: ("#D55E00", "#fbe9df", "#3a1d0a"),
}
HINT_LABELS: Final[dict[HintKind, str]] = {
    HintKind.LOOSEN_SCHEMA: "Loosen the schema",
    HintKind.FIX_CALLERS: "Fix the callers",
    HintKind.REVIEW: "Review by hand",
    HintKind.FIX_SCHEMA: "Fix the schema",
}
MIN_LABELLED: Final = 6.0
"""Percent of a bar a segment needs for its count to be written inside it."""
MAX_LISTED: Final = 50
"""Calls not replayed listed one by one before the rest is only counted."""


def _style() -> str:
    outcomes = "".join(
        f".o-{o.value}{{background:{COLORS[o]}"
        + (
            ";background-image:repeating-linear-gradient(45deg,transparent 0 5px,"
            "rgba(0,0,0,.28) 5px 7px)"
            if o in STRIPED
            else ""
        )
        + "}"
        for o in SUMMARY_OUTCOMES
    )
    hints = "".join(f".hint-{k.value}{{--k:{c[0]};--kb:{c[1]}}}" for k, c in HINT_COLORS.items())
    dark_hints = "".join(f".hint-{k.value}{{--kb:{c[2]}}}" for k, c in HINT_COLORS.items())
    return (
        ":root{color-scheme:light dark;--fg:#1f2328;--bg:#fff;--muted:#59636e;"
        "--line:#d0d7de;--code:#f3f4f6;--alert:#fbe9df}"
        "*{box-sizing:border-box}"
        "body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:1em;"
        "color:var(--fg);background:var(--bg);overflow-wrap:anywhere}"
        "h1{font-size:1.5em;margin:.2em 0}h2{border-bottom:1px solid var(--line);"
        "padding-bottom:.2em;margin-top:1.6em}h3{font-size:1.05em;margin:1.2em 0 .4em}"
        "code,pre{font:13px ui-monospace,monospace}code{background:var(--code);padding:0 .2em;"
        "border-radius:3px}pre{background:var(--code);padding:8px;white-space:pre-wrap;"
        "border-radius:6px}"
        ".scroll{overflow-x:auto;max-width:100%}"
        "table{border-collapse:collapse}td,th{border:1px solid var(--line);padding:2px 8px;"
        "text-align:right;overflow-wrap:normal}td:first-child,th:first-child{text-align:left;"
        "overflow-wrap:anywhere;min-width:8em}"
        # The groups table is text but for its number and calls: left, those two right.
        ".groups td,.groups th{text-align:left}.groups td:first-child,.groups th:first-child"
        "{min-width:0}.groups td:nth-child(-n+2),.groups th:nth-child(-n+2){text-align:right;"
        "white-space:nowrap;overflow-wrap:normal}"
        "details{border:1px solid var(--line);border-radius:6px;margin:.5em 0;padding:.3em .8em}"
        "summary{cursor:pointer;font-weight:600}"
        ".badge{display:inline-block;font-weight:700;color:#000;border-radius:6px;"
        "padding:.3em .8em;margin:.4em 0}.badge.fail{background:#D55E00}"
        ".badge.pass{background:#009E73}"
        ".alert{background:var(--alert);border-left:6px solid #D55E00;padding:.6em 1em;"
        "border-radius:6px}"
        ".hint{border-left:6px solid var(--k);background:var(--kb);padding:.5em .9em;"
        f"border-radius:6px;margin:.4em 0}}{hints}"
        ".group{margin:.8em 0}.group>summary{font-size:1.05em;padding:.2em 0}"
        ".group ul{padding-left:1.2em}"
        ".muted{color:var(--muted)}"
        ".chart{margin:.6em 0}.row{display:flex;flex-wrap:wrap;align-items:center;gap:0 .5em;"
        "margin:.3em 0}.row .name{flex:1 1 12em;min-width:0}.row .bar{flex:4 1 16em;display:flex;"
        "height:1.4em;min-width:0;background:var(--code);border-radius:3px;overflow:hidden}"
        ".bar i{display:block;height:100%;color:#000;font:600 12px/1.4em system-ui,sans-serif;"
        "font-style:normal;text-align:center;overflow:hidden;white-space:nowrap}"
        ".row .n{min-width:3em;text-align:right}"
        ".legend{display:flex;flex-wrap:wrap;gap:.2em 1em;padding:0;list-style:none}"
        ".sw{display:inline-block;width:1em;height:1em;vertical-align:-.15em;margin-right:.3em;"
        "border:1px solid var(--line)}"
        f"{outcomes}"
        # Last, so that it overrides the light colours above.
        "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;"
        f"--line:#3d444d;--code:#161b22;--alert:#3a1d0a}}{dark_hints}}}"
    )


def render(report: Report) -> str:
    """The page: the verdict, what to do and the first groups first; the detail after; the
    old runtime's notes and the gate at the end; then the results' section, where the report
    holds results."""
    body = _body(report)
    if report.results is not None:
        body += _results(report.results)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>{html_text(title(report))}</title><style>{_style()}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


_HEADING = re.compile(r"<(/?)h([1-5])\b")
"""A heading tag auditor wrote (logged data is escaped: it holds no ``<``)."""


def _results(results: Report) -> list[str]:
    """The results' page body as a section, every heading one level down (its title the
    section's heading), with what was not validated after the title."""
    demoted = [_HEADING.sub(lambda m: f"<{m[1]}h{int(m[2]) + 1}", line) for line in _body(results)]
    intro = f"<p>{prose.html(RESULTS_INTRO)}</p>"
    return ['<section id="results">', demoted[0], intro, *demoted[1:], "</section>"]


def _body(report: Report) -> list[str]:
    body = [
        f"<h1>{html_text(title(report))}</h1>",
        _badge(report),
        f"<p>{prose.html(verdict(report))}</p>",
    ]
    if report.not_validated is not None:  # a report of results: what MCP does not validate
        body.append(f"<p>{prose.html(not_validated_line(report))}</p>")
    body += _rollup(report)
    if line := baseline_line(report):
        body.append(f"<p>{prose.html(line)}</p>")
    if line := budget_line(report):
        body.append(f"<p>{prose.html(line)}</p>")
    body += _group_table(report)
    body += ["<h2>Summary</h2>", _chart(report.tools), _table(report)]
    body += _removed_properties(report)
    body += _unusable_after(report)
    newly = groups_of(report, Outcome.NEWLY_REJECTED)
    body += _groups(report, "Newly rejected calls", [g for g in newly if not g.contradicted])
    contradicted = [g for g in newly if g.contradicted]
    body += _groups(report, "Calls the log contradicts", contradicted, CONTRADICTED_INTRO)
    body += _unusable_before(report)
    body += _groups(report, "Newly accepted calls", groups_of(report, Outcome.NEWLY_ACCEPTED))
    body += _still_rejected(report)
    body += _coverage(report)
    body += _constraints(report)
    body += _counterexamples(report)
    body += _not_replayed(report)
    body += _rewrites(report)
    body += _notes(report)
    body.append(_inputs(report))
    return body


def _rollup(report: Report) -> list[str]:
    """What to do (``Report.rollup``), an item an entry."""
    lines = rollup_lines(report.rollup, rollup_labels(report))
    if not lines:
        return [f"<p><strong>What to do:</strong> {html_text(NOTHING_TO_DO)}.</p>"]
    items = "".join(f"<li>{line.html()}</li>" for line in lines)
    return ["<h2>What to do</h2>", f'<ul class="todo">{items}</ul>']


def _group_table(report: Report) -> list[str]:
    """The first groups, a row each, and how many more there are (below)."""
    groups = report.groups[:SHOWN_GROUPS]
    if not groups:
        return []
    head = "".join(f'<th scope="col">{html_text(h)}</th>' for h in ("#", *GROUP_HEADER))
    rows = "".join(
        f"<tr><td>{number}</td>{''.join(f'<td>{cell}</td>' for cell in _group_cells(row))}</tr>"
        for number, row in enumerate(group_rows(report, groups), start=1)
    )
    more = more_groups(report, len(groups), "below")
    return [
        "<h2>Groups</h2>",
        '<div class="scroll" tabindex="0" role="region" aria-label="Groups">'
        f'<table class="groups"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
        "</div>",
        *([f"<p>{html_text(more)}</p>"] if more else []),
    ]


def _group_cells(row: GroupRow) -> list[str]:
    tool = f"<code>{html_text(row.tool)}</code>"
    if row.caller is not None:
        tool += (
            f" from <code>{html_text(row.caller)}</code>" if row.caller else " from no named caller"
        )
    if row.keyword:
        what = f"<code>{html_text(row.keyword)}</code> at <code>{html_text(row.pointer)}</code>"
    else:
        what = html_text(row.what)
    return [f"{row.calls:,}", tool, what, html_text(row.todo), html_text("; ".join(row.marks))]


def _notes(report: Report) -> list[str]:
    """The old runtime and what it changes, the change audited, the log's contradictions
    and the gate with its fingerprints: last, for whoever checks how the verdict was made."""
    first, *notes = runtime_lines(report)
    out = ["<h2>Notes</h2>", f"<p>{prose.html(first)}</p>"]
    if notes:
        out.append("<ul>" + "".join(f"<li>{prose.html(n)}</li>" for n in notes) + "</ul>")
    if line := gate_line(report):
        out.append(f"<p>{prose.html(line)}</p>")
    return out


def _badge(report: Report) -> str:
    """PASS or FAIL in words, with the headline counts: the colour only repeats it."""
    newly = report.totals.get(Outcome.NEWLY_REJECTED, 0)
    after = report.totals.get(Outcome.SCHEMA_ERROR_AFTER, 0)
    failing = report.failing_groups()
    headline = plural(newly, "newly rejected call")
    if after:
        headline += f", {plural(after, 'call')} that will fail on an unusable new schema"
    if failing:
        return (
            f'<p class="badge fail">FAIL: {headline}; {plural(len(failing), "group")} '
            f"{agree(len(failing), 'fails', 'fail')} "
            f"{html_text(fail_on_option(report.fail_on))}</p>"
        )
    return f'<p class="badge pass">PASS: {headline}; no group fails the run</p>'


def _unusable_after(report: Report) -> list[str]:
    groups = groups_of(report, Outcome.SCHEMA_ERROR_AFTER)
    if not groups:
        return []
    numbers = _numbers(report)
    items = "".join(
        f"<li>{numbers[g.fingerprint]}. <strong><code>{html_text(g.tool)}</code></strong> "
        f"({plural(g.count, 'call')}, first <code>{html_text(g.first)}</code>): "
        f"{html_text(g.error)}</li>"
        for g in groups
    )
    return [
        '<div class="alert"><strong>Calls that will fail: unusable new schemas</strong>'
        f"<ul>{items}</ul></div>"
    ]


def _chart(tools: tuple[ToolSummary, ...]) -> str:
    """A stacked bar per tool, scaled to the busiest tool, each segment labelled."""
    widest = max((t.call_count for t in tools), default=0) or 1
    rows = []
    for tool in tools:
        segments = []
        for outcome in SUMMARY_OUTCOMES:
            count = tool.counts.get(outcome, 0)
            if not count:
                continue
            share = 100 * count / widest
            label = f"{html_text(tool.name)}: {count:,} {OUTCOME_LABELS[outcome]}"
            shown = f"{count:,}" if share >= MIN_LABELLED else ""
            segments.append(
                f'<i class="o-{outcome.value}" style="width:{share:.2f}%" title="{label}">'
                f"{shown}</i>"
            )
        rows.append(
            f'<div class="row"><span class="name"><code>{html_text(tool.name)}</code></span>'
            f'<span class="bar">{"".join(segments)}</span>'
            f'<span class="n">{tool.call_count:,}</span></div>'
        )
    legend = "".join(
        f'<li><i class="sw o-{o.value}"></i>{OUTCOME_LABELS[o]}</li>' for o in SUMMARY_OUTCOMES
    )
    return (
        '<div class="chart" role="img" aria-label="Outcomes per tool; the table below has '
        f'the same counts">{"".join(rows)}</div><ul class="legend">{legend}</ul>'
    )


def _table(report: Report) -> str:
    header, rows = summary_rows(report)
    head = "".join(f'<th scope="col">{html_text(h)}</th>' for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td>{html_text(cell if isinstance(cell, str) else f'{cell:,}')}</td>" for cell in row
        )
        + "</tr>"
        for row in rows
    )
    return (
        '<div class="scroll" tabindex="0" role="region" aria-label="Outcomes per tool">'
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _numbers(report: Report) -> dict[str, int]:
    """Each group's number, by fingerprint: its place in the report and the groups table."""
    return {group.fingerprint: n for n, group in enumerate(report.groups, start=1)}


def _groups(
    report: Report, heading: str, groups: list[Group], intro: Prose | None = None
) -> list[str]:
    if not groups:
        return []
    numbers, unit = _numbers(report), words(report).unit
    return [
        f"<h2>{html_text(heading)}</h2>",
        *([f"<p>{prose.html(intro)}</p>"] if intro else []),
        *(_group(numbers[g.fingerprint], g, set_aside(report, g), unit) for g in groups),
    ]


def _group(number: int, group: Group, below: str | None, unit: str) -> str:
    title = prose.html(group_heading(group))
    facts = []
    if group.evidence:
        facts.append(("Evidence", prose.html(group.evidence)))
    if callers := callers_text(group):
        facts.append(("Callers", prose.html(callers)))
    if values := offending_text(group):
        facts.append(("Values sent", prose.html(values)))
    facts += [
        ("Cause", html_text(cause_text(group.causes, unit))),
        ("Error", html_text(group.error)),
        (
            "Share",
            f"{html_text(share_text(group))}; first <code>{html_text(group.first)}</code>, "
            f"last <code>{html_text(group.last)}</code>",
        ),
    ]
    if group.proven:
        facts.append(("Proven", f"the log shows {plural(group.proven, 'call')} of it ran before"))
    facts.append(("Fingerprint", f"<code>{group.fingerprint}</code>"))
    items = "".join(f"<li><strong>{name}:</strong> {text}</li>" for name, text in facts)
    status = ""
    if group.baselined:
        status += " (accepted by the baseline)"
    if below:
        status += f" ({html_text(below)}: reported, does not fail the run)"
    kind = group.hint.kind
    # Open, with its hint in view, unless a baseline or a usage threshold set it aside.
    opened = "" if status else " open"
    return (
        f'<details class="group"{opened}><summary>{number}. {title}{status}</summary>'
        f'<div class="hint hint-{kind.value}"><strong>{HINT_LABELS[kind]} '
        f"({html_text(kind.value)}):</strong> {prose.html(group.hint.text)}</div>"
        f"<ul>{items}</ul>{_patch(group.patch)}{_examples(group.examples)}</details>"
    )


def _patch(patch: SchemaPatch | None) -> str:
    """The suggested loosening: what it does, where, and the JSON Patch on the new schema."""
    if patch is None:
        return ""
    if patch.problem is not None:
        return f"<p><strong>Patch:</strong> none: {html_text(patch.problem)}</p>"
    if patch.location is None:
        where = f" (not written to the catalog: {html_text(patch.file_problem or '')})"
    else:
        where = f" at <code>{html_text(str(patch.location))}</code>"
    return (
        f"<p><strong>Patch:</strong> {html_text(patch.summary)}{where}; as a JSON Patch on "
        f"the new schema:</p><pre>{html_text(patch_json(patch))}</pre>"
    )


def _examples(examples: tuple[Example, ...]) -> str:
    if not examples:
        return ""
    shown = "".join(
        f"<p><code>{html_text(e.source)}</code> (failing at "
        f"<code>{html_text(e.instance_pointer or '/')}</code>"
        + (f"; the log says it {html_text(e.evidence.value)}" if e.evidence else "")
        + f")</p><pre>{html_text(compact(e.arguments))}</pre>"
        for e in examples
    )
    return f"<details><summary>Example arguments</summary>{shown}</details>"


def _unusable_before(report: Report) -> list[str]:
    tools = [t for t in report.tools if t.counts.get(Outcome.SCHEMA_ERROR_BEFORE)]
    if not tools:
        return []
    items = "".join(
        f"<li><code>{html_text(t.name)}</code> "
        f"({plural(t.counts[Outcome.SCHEMA_ERROR_BEFORE], 'call')}): the schema as written "
        f"{html_text(t.old_schema_problem or 'raised for some calls')}</li>"
        for t in tools
    )
    groups = groups_of(report, Outcome.SCHEMA_ERROR_BEFORE)
    said = words(report)
    numbers = _numbers(report)
    return [
        f"<h2>Schemas that were unusable {html_text(said.before)}</h2>",
        "<p>Calls of these tools were never really validated. "
        f"{html_text(said.new_schema.capitalize())} can be used; the groups below are what it "
        "makes of them.</p>",
        f"<ul>{items}</ul>",
        *(_group(numbers[g.fingerprint], g, None, said.unit) for g in groups),
    ]


def _still_rejected(report: Report) -> list[str]:
    tools = [
        f"<code>{html_text(t.name)}</code> ({t.counts[Outcome.STILL_REJECTED]:,})"
        for t in report.tools
        if t.counts.get(Outcome.STILL_REJECTED)
    ]
    if not tools:
        return []
    still = report.totals.get(Outcome.STILL_REJECTED, 0)
    return [
        "<h2>Still rejected</h2>",
        f"<p>{plural(still, 'call')} {agree(still, 'was', 'were')} rejected before and after: "
        f"{', '.join(tools)}.</p>",
    ]


def _coverage(report: Report) -> list[str]:
    out = ["<h2>Coverage</h2>", f"<p>{html_text(coverage_line(report))}</p>"]
    items = "".join(
        f"<li><code>{html_text(t.name)}</code> {_rewrite(r)}</li>"
        for t in report.tools
        for r in unexercised(t)
    )
    if items:
        out.append(
            f"<details><summary>{words(report).units.capitalize()} not reached by any logged "
            f"call</summary><ul>{items}</ul></details>"
        )
    return out


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
            "<details><summary>Constraints not reached by any logged call (blind spots)"
            "</summary>"
            f"<ul>{items}</ul></details>"
        )
    return out


def _removed_properties(report: Report) -> list[str]:
    """The calls that still send a property the change removed, an item per removal."""
    if not report.removed_properties:
        return []
    items = "".join(f"<li>{prose.html(removed_prose(r))}</li>" for r in report.removed_properties)
    return [f"<h2>{html_text(REMOVED_HEADING)}</h2>", f"<ul>{items}</ul>"]


def _counterexamples(report: Report) -> list[str]:
    line = counterexample_line(report)
    if line is None:
        return []
    items = "".join(f"<li>{_counterexample(c)}</li>" for c in report.counterexamples)
    return [
        "<h2>Counterexamples: what the logs never tried</h2>",
        f"<p>{html_text(line)}</p>",
        f"<details><summary>Each {words(report).unit}, with its counterexample or why there is "
        f"none</summary><ul>{items}</ul></details>",
    ]


def _counterexample(found: Counterexample) -> str:
    change = f"<code>{html_text(found.tool)}</code> {_rewrite(found.change)}"
    if found.status is CounterexampleStatus.HARMLESS:
        return f"{change}: <strong>harmless</strong>: {html_text(found.reason)}"
    if found.status is CounterexampleStatus.NOT_FOUND:
        return f"{change}: <strong>no counterexample found</strong>: {html_text(found.reason)}"
    if found.status is CounterexampleStatus.UNUSABLE:
        blocked = "<strong>blocked by a schema error</strong>"
        return f"{change}: {blocked}: {html_text(found.reason)}"
    if found.derived_from is None:
        origin = "generated from the schema"
    else:
        origin = (
            f"<code>{html_text(found.derived_from)}</code> edited by the JSON Patch "
            f"<code>{html_text(compact(list(found.patch)))}</code>"
        )
    return (
        f"{change}: <strong>bites</strong>: the old runtime accepts and the new schema rejects "
        f"({origin}):<pre>{html_text(compact(found.arguments))}</pre>"
    )


def _not_replayed(report: Report) -> list[str]:
    results = not_replayed(report)
    if not results:
        return []
    rows = "".join(
        f"<tr><td><code>{html_text(r.call.source)}</code></td>"
        f"<td>{html_text(r.call.tool or '-')}</td><td>{html_text(not_replayed_reason(r))}</td></tr>"
        for r in results[:MAX_LISTED]
    )
    more = (
        f"<p>({len(results) - MAX_LISTED:,} more not listed; see the JSON report)</p>"
        if len(results) > MAX_LISTED
        else ""
    )
    return [
        "<h2>Calls not replayed</h2>",
        f"<details><summary>{plural(len(results), 'call')}: unparseable or naming an unknown "
        'tool</summary><div class="scroll" tabindex="0" role="region" aria-label="Calls not '
        'replayed"><table><thead><tr><th scope="col">source</th><th scope="col">tool</th>'
        f'<th scope="col">why</th></tr></thead><tbody>{rows}</tbody></table></div>{more}'
        "</details>",
        *_capture_hint(results),
    ]


def _capture_hint(results: list[CallResult]) -> list[str]:
    """Outside the fold, like the Markdown's: the fix is for a whole export."""
    hint = content_capture_hint(results)
    return [] if hint is None else [f'<p class="hint hint-review">{html_text(hint)}</p>']


def _rewrites(report: Report) -> list[str]:
    tools = [t for t in report.tools if t.rewrites or t.findings or t.text_edits]
    if not tools:
        return []
    unit = words(report).unit
    out = [f"<h2>{unit.capitalize()}s and findings</h2>"]
    for tool in tools:
        counted = [plural(len(tool.rewrites), unit)]
        if tool.text_edits:
            counted.append(plural(tool.text_edits, TEXT_EDIT))
        counted.append(plural(len(tool.findings), "finding"))
        items = [
            f"<li>{_rewrite(r)} ({html_text(r.rule.value)}; {reached_text(n)})</li>"
            for r, n in zip(tool.rewrites, tool.reached, strict=True)
        ]
        items += [
            f"<li>{html_text(f.code)} <code>{html_text(f.pointer)}</code>: "
            f"{prose.html(prose.quoted(f.message))}</li>"
            for f in tool.findings
        ]
        out.append(
            f"<details><summary><code>{html_text(tool.name)}</code>: {', '.join(counted)} "
            f"({html_text(str(tool.location))})</summary><ul>{''.join(items)}</ul></details>"
        )
    return out


MAX_SKIPPED_SHOWN: Final = 10
"""Skipped catalog-folder files named in the footer; the rest are counted."""


def _inputs(report: Report) -> str:
    schemas = ", ".join(f"<code>{html_text(p)}</code>" for p in report.schema_inputs)
    logs = "".join(
        f"<li><code>{html_text(s.path)}</code> ({html_text(log_counts(s, unit_of(report)))})</li>"
        for s in report.log_inputs
    )
    notes = []
    if report.skipped_inputs:
        shown = report.skipped_inputs[:MAX_SKIPPED_SHOWN]
        skipped = ", ".join(f"<code>{html_text(s.path)}</code>" for s in shown)
        more = len(report.skipped_inputs) - len(shown)
        skipped += f" and {plural(more, 'more file')}" if more else ""
        notes.append(f"Skipped (no tool catalog): {skipped}.")
    if report.redacted:
        notes.append("Logged values redacted to their shape.")
    if report.calls_omitted:
        notes.append(
            f"{plural(report.calls_omitted, 'call')} left out of the call list by --max-calls."
        )
    if report.generated_at:
        notes.append(f"Generated {html_text(report.generated_at)}.")
    return (
        f'<footer class="muted"><p>Schemas: {schemas}. auditor {html_text(report.version)}. '
        f"{' '.join(notes)}</p><details><summary>"
        f"Logs: {plural(len(report.log_inputs), 'file')}</summary><ul>{logs}</ul></details>"
        "</footer>"
    )


def _rewrite(rewrite: Change) -> str:
    """``<code>/properties/a/min_items</code>: <code>min_items</code> → …``, escaped."""
    return rewrite.describe(_code, _code)


def _code(text: str) -> str:
    """``text`` in ``<code>``, as ``Prose`` writes a code piece."""
    return prose.html(Prose.of(Span.code(text)))
