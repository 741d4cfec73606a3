"""GitHub Actions workflow commands: annotations on the catalog for the first groups.

GitHub shows only a handful of annotations per step, so the first ``MAX_ANNOTATIONS`` groups
(failures first) are annotated and one summary line counts the rest. Values are made one
visible line and escaped the way the runner decodes them (actions/toolkit ``escapeData`` and
``escapeProperty``): no logged name can start a line, so none can issue a workflow command.
"""

from __future__ import annotations

from typing import Final

from auditor.aggregate.gate import below_threshold, below_threshold_groups, failing_groups
from auditor.models import Group, Outcome, Report
from auditor.report.common import group_location, group_title, plain, plural
from auditor.report.escape import escape_data, escape_property, github_data, github_property

MAX_ANNOTATIONS: Final = 10

_LEVELS: Final = {
    Outcome.NEWLY_REJECTED: "error",
    Outcome.SCHEMA_ERROR_AFTER: "error",
    Outcome.SCHEMA_ERROR_BEFORE: "warning",
    Outcome.NEWLY_ACCEPTED: "notice",
}


__all__ = ["escape_data", "escape_property", "render"]


def render(report: Report) -> str:
    """Annotations, failures first, then one summary line."""
    failing = failing_groups(report)
    ordered = failing + [g for g in report.groups if g not in failing]
    lines = [_annotation(report, g, g in failing) for g in ordered[:MAX_ANNOTATIONS]]
    lines.append(_summary(report, failing, len(ordered) - len(lines)))
    return "\n".join(lines) + "\n"


def _annotation(report: Report, group: Group, fails: bool) -> str:
    # A group that fails the run is an error whatever its outcome: the gate and the
    # annotations must tell the same story.
    level = "notice" if group.baselined else "error" if fails else _LEVELS[group.outcome]
    below = below_threshold(report, group)
    if below and level == "error":
        level = "warning"  # it would fail the run, but for a usage threshold
    properties = []
    location = group_location(report, group)
    if location is not None:
        properties.append(f"file={github_property(location.path)}")
        if location.line is not None:
            properties.append(f"line={location.line}")
        if location.column is not None:
            properties.append(f"col={location.column}")
    properties.append(f"title={github_property('auditor: ' + group_title(group))}")
    proven = (
        f" {plural(group.proven, 'call')} of it ran before (the log says)." if group.proven else ""
    )
    gate = f" Reported, does not fail the run: {below}." if below else ""
    message = (
        f"{plain(group.hint.text)}{proven} Error: {group.error}{gate} "
        f"(fingerprint {group.fingerprint})"
    )
    return f"::{level} {','.join(properties)}::{github_data(message)}"


def _summary(report: Report, failing: list[Group], hidden: int) -> str:
    newly = report.totals.get(Outcome.NEWLY_REJECTED, 0)
    text = (
        f"{newly} of {report.call_count} logged calls would be newly rejected "
        f"({report.proven_count} proven by the log; old runtime: {report.old_runtime.value}); "
        f"{plural(len(failing), 'group')} fail --fail-on {report.fail_on.value} and are not "
        "accepted by a baseline"
    )
    if below := below_threshold_groups(report):
        text += (
            f"; {plural(len(below), 'group')} below --fail-min-calls or --fail-min-share "
            f"{'does' if len(below) == 1 else 'do'} not fail"
        )
    if hidden:
        text += f"; {plural(hidden, 'more group')} not annotated (see the report)"
    level = "error" if failing else "notice"
    return f"::{level} title=auditor summary::{github_data(text + '.')}"
