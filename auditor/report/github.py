"""GitHub Actions workflow commands: annotations on the catalog for the first groups.

GitHub shows only a handful of annotations per step, so the first ``MAX_ANNOTATIONS`` groups
(failures first) are annotated and one summary line counts the rest. Values are escaped the
way the runner decodes them (actions/toolkit ``escapeData`` and ``escapeProperty``).
"""

from __future__ import annotations

from typing import Final

from auditor.gate import failing_groups
from auditor.models import Group, Outcome, Report
from auditor.report.common import group_location, group_title, plain, plural

MAX_ANNOTATIONS: Final = 10

_LEVELS: Final = {
    Outcome.NEWLY_REJECTED: "error",
    Outcome.SCHEMA_ERROR_AFTER: "error",
    Outcome.SCHEMA_ERROR_BEFORE: "warning",
    Outcome.NEWLY_ACCEPTED: "notice",
}


def escape_data(text: str) -> str:
    """The message part: ``%`` first, so the escapes it introduces are not escaped again."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value: as data, and ``:`` and ``,`` which end a property."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


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
    properties = []
    location = group_location(report, group)
    if location is not None:
        properties.append(f"file={escape_property(location.path)}")
        if location.line is not None:
            properties.append(f"line={location.line}")
        if location.column is not None:
            properties.append(f"col={location.column}")
    properties.append(f"title={escape_property('auditor: ' + group_title(group))}")
    proven = (
        f" {plural(group.proven, 'call')} of it ran before (the log says)." if group.proven else ""
    )
    message = (
        f"{plain(group.hint.text)}{proven} Error: {group.error} (fingerprint {group.fingerprint})"
    )
    return f"::{level} {','.join(properties)}::{escape_data(message)}"


def _summary(report: Report, failing: list[Group], hidden: int) -> str:
    newly = report.totals.get(Outcome.NEWLY_REJECTED, 0)
    text = (
        f"{newly} of {report.call_count} logged calls would be newly rejected "
        f"({report.proven_count} proven by the log; old runtime: {report.old_runtime.value}); "
        f"{plural(len(failing), 'group')} fail --fail-on {report.fail_on.value} and are not "
        "accepted by a baseline"
    )
    if hidden:
        text += f"; {plural(hidden, 'more group')} not annotated (see the report)"
    level = "error" if failing else "notice"
    return f"::{level} title=auditor summary::{escape_data(text + '.')}"
