"""GitHub Actions workflow commands: annotations on the catalog for the first groups.

GitHub shows only a handful of annotations per step, so the first ``MAX_ANNOTATIONS`` groups
(failures first) are annotated, and one summary annotation says the verdict, counts the rest
and says what to do (the roll-up, an entry a line). Each annotation says what
to do: the hint, the evidence line, the loosening patch or the values to fix, the error, each
on a line of its own, cut to GitHub's limits (``MAX_MESSAGE``, ``MAX_TITLE``) with the
fingerprint kept at the end. Values are made one visible line each and escaped the way the
runner decodes them (actions/toolkit ``escapeData`` and ``escapeProperty``); only the lines'
own breaks are ``%0A``, so no logged name can start a line or issue a workflow command.
"""

from __future__ import annotations

from typing import Final

from auditor.models import Group, Outcome, Report, Subject
from auditor.report import prose
from auditor.report.common import (
    NOTHING_TO_DO,
    decision_lines,
    fail_on_option,
    group_location,
    group_title,
    profile_lines,
    rollup_labels,
    rollup_lines,
    set_aside,
)
from auditor.report.escape import (
    escape_data,
    escape_property,
    github_property,
    visible,
)
from auditor.words import agree, plural

MAX_ANNOTATIONS: Final = 10
MAX_MESSAGE: Final = 4_000
"""Characters of an annotation's message as shown: the runner cuts messages at 4,096
(actions/runner 2.305.0); below it, the fingerprint at the end survives."""
MAX_TITLE: Final = 255
"""Characters of an annotation's title: the checks API's limit."""

_LEVELS: Final = {
    Outcome.NEWLY_REJECTED: "error",
    Outcome.SCHEMA_ERROR_AFTER: "error",
    Outcome.SCHEMA_ERROR_BEFORE: "warning",
    Outcome.NEWLY_ACCEPTED: "notice",
}


__all__ = ["escape_data", "escape_property", "render"]


def render(report: Report) -> str:
    """Annotations, failures first, then one summary line."""
    failing = report.failing_groups()
    ordered = failing + [g for g in report.groups if not report.gate.fails(g)]
    lines = [_annotation(report, g, report.gate.fails(g)) for g in ordered[:MAX_ANNOTATIONS]]
    lines.append(_summary(report, failing, len(ordered) - len(lines)))
    if (results := report.results) is not None:  # annotated apart, with a summary of its own
        failing = results.failing_groups()
        ordered = failing + [g for g in results.groups if not results.gate.fails(g)]
        shown = [_annotation(results, g, results.gate.fails(g)) for g in ordered[:MAX_ANNOTATIONS]]
        lines += [*shown, _summary(results, failing, len(ordered) - len(shown))]
    return "\n".join(lines) + "\n"


def _annotation(report: Report, group: Group, fails: bool) -> str:
    # A group that fails the run is an error whatever its outcome: the gate and the
    # annotations must tell the same story.
    level = "notice" if group.baselined else "error" if fails else _LEVELS[group.outcome]
    below = set_aside(report, group)
    if below and level == "error":
        level = "warning"  # it would fail the run, but for a usage threshold or the log
    properties = []
    location = group_location(report, group)
    if location is not None:
        properties.append(f"file={github_property(location.path)}")
        if location.line is not None:
            properties.append(f"line={location.line}")
        if location.column is not None:
            properties.append(f"col={location.column}")
    of = " (results)" if report.subject is Subject.RESULTS else ""
    title = _cut(visible(f"auditor{of}: " + group_title(group)), MAX_TITLE)
    properties.append(f"title={escape_property(title)}")
    proven = (
        f" {plural(group.proven, 'call')} of it ran before (the log says)." if group.proven else ""
    )
    gate = [f"Reported, does not fail the run: {below}."] if below else []
    lines = [
        f"{prose.plain(group.hint.text)}{proven}",
        *decision_lines(group),
        f"error: {group.error}",
        *gate,
    ]
    return f"::{level} {','.join(properties)}::{_message(lines, group.fingerprint)}"


def _message(lines: list[str], fingerprint: str) -> str:
    """The lines, each made visible, joined by the runner's encoded line break and cut to
    ``MAX_MESSAGE`` shown characters before the fingerprint."""
    tail = f"\n(fingerprint {fingerprint})"
    body = _cut("\n".join(visible(line) for line in lines), MAX_MESSAGE - len(tail))
    return escape_data(body + tail)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _summary(report: Report, failing: list[Group], hidden: int) -> str:
    """The verdict on its first line, then what to do (``Report.rollup``), a line an entry."""
    newly = report.totals.get(Outcome.NEWLY_REJECTED, 0)
    after = report.totals.get(Outcome.SCHEMA_ERROR_AFTER, 0)
    unusable = f"; {plural(after, 'call')} will fail on an unusable new schema" if after else ""
    option = fail_on_option(report.fail_on)
    if failing:
        count = len(failing)
        gate = (
            f"{plural(count, 'group')} {agree(count, 'fails', 'fail')} {option} and "
            f"{agree(count, 'is', 'are')} not accepted by a baseline"
        )
    else:
        gate = f"no group fails {option}"
    logged = "logged result" if report.subject is Subject.RESULTS else "logged call"
    text = (
        f"{newly:,} of {plural(report.call_count, logged)} would be newly rejected "
        f"({report.proven_count:,} proven by the log; old runtime: {report.old_runtime.value})"
        f"{unusable}; {gate}"
    )
    if below := report.below_threshold_groups():
        text += (
            f"; {plural(len(below), 'group')} below --fail-min-calls or --fail-min-share "
            f"{agree(len(below), 'does', 'do')} not fail"
        )
    if hidden:
        text += f"; {plural(hidden, 'more group')} not annotated (see the report)"
    todo = [f"- {line.plain()}" for line in rollup_lines(report.rollup, rollup_labels(report))]
    level = "error" if failing else "notice"
    lines = [text + ".", *(["What to do:", *todo] if todo else [f"What to do: {NOTHING_TO_DO}."])]
    lines += [prose.plain(line) for line in profile_lines(report)]
    body = _cut("\n".join(visible(line) for line in lines), MAX_MESSAGE)
    of = " results" if report.subject is Subject.RESULTS else ""
    return f"::{level} title=auditor{of} summary::{escape_data(body)}"
