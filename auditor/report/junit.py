"""JUnit XML for CI test tabs: a test suite per tool, a test case per group.

The common JUnit schema (Apache Ant's, ``tests/schemas/junit.xsd``) allows one ``failure`` per
test case, so each group is its own case: skipped when a baseline accepted it, it is below a
usage threshold (``--fail-min-calls``, ``--fail-min-share``) or the log contradicts it
(``Group.contradicted``) and it does not fail the run; otherwise failing when its calls break
after the upgrade (newly rejected, or they meet an unusable new schema and will fail) or it
fails the run under ``--fail-on``; passing otherwise. A tool without groups has one passing
case. The failure's message is the evidence line and the patch or the values to fix: what a
CI test tab shows first.

``timestamp`` is the run's time with ``--timestamp`` and left out without it, so output stays
byte-identical: JUnit readers (Jenkins, GitLab, JUnit 5's own legacy reporter) treat it as
optional, and a made-up time (1970) would be read as a real one.
"""

from __future__ import annotations

from typing import Final
from xml.etree import ElementTree as ET

from auditor.models import Group, Report, Subject, ToolSummary
from auditor.report import prose
from auditor.report.common import (
    OUTCOME_LABELS,
    breaks_after,
    cause_text,
    compact,
    decision_lines,
    group_title,
    profile_lines,
    runtime_note,
    set_aside,
    words,
)
from auditor.report.escape import xml_text

MAX_MESSAGE: Final = 1_000
"""Characters of a failure's ``message`` attribute: test tabs show it on one line; the
failure's text has every line in full."""


def render(report: Report) -> str:
    """The JUnit XML document."""
    gated = {g.fingerprint for g in report.failing_groups()}
    failing = {g.fingerprint for g in report.groups if g.fingerprint in gated or breaks_after(g)}
    root = ET.Element("testsuites")
    by_tool: dict[str, list[Group]] = {}
    for group in report.groups:
        by_tool.setdefault(group.tool, []).append(group)
    for number, tool in enumerate(report.tools):
        root.append(_suite(report, number, tool, by_tool.get(tool.name, []), failing))
    if report.results is not None:  # the results' suites, after the arguments', named so
        _results_suites(root, report.results, len(report.tools))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _results_suites(root: ET.Element, results: Report, first: int) -> None:
    gated = {g.fingerprint for g in results.failing_groups()}
    failing = {g.fingerprint for g in results.groups if g.fingerprint in gated or breaks_after(g)}
    by_tool: dict[str, list[Group]] = {}
    for group in results.groups:
        by_tool.setdefault(group.tool, []).append(group)
    for number, tool in enumerate(results.tools, start=first):
        root.append(_suite(results, number, tool, by_tool.get(tool.name, []), failing))


def _suite(
    report: Report, number: int, tool: ToolSummary, groups: list[Group], failing: set[str]
) -> ET.Element:
    skipped = {g.fingerprint for g in groups if g.baselined or set_aside(report, g)}
    unit = words(report).unit
    of = " (results)" if report.subject is Subject.RESULTS else ""
    attributes = {
        "name": xml_text(tool.name + of),
        "package": xml_text(str(tool.location.path)) or "auditor",
        "id": str(number),
    }
    if report.generated_at:
        # The schema's pattern has no fraction and no zone: 2025-01-31T12:00:00 (UTC).
        attributes["timestamp"] = report.generated_at[:19]
    attributes |= {
        "hostname": "auditor",
        "tests": str(max(len(groups), 1)),
        "failures": str(
            sum(1 for g in groups if g.fingerprint in failing and g.fingerprint not in skipped)
        ),
        "errors": "0",
        "skipped": str(len(skipped)),
        "time": "0",
    }
    suite = ET.Element("testsuite", attributes)
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(
        properties, "property", {"name": "old_runtime", "value": report.old_runtime.value}
    )
    for line in profile_lines(report):
        ET.SubElement(
            properties, "property", {"name": "profile", "value": xml_text(prose.plain(line))}
        )
    for outcome, count in tool.counts.items():
        ET.SubElement(properties, "property", {"name": outcome.value, "value": str(count)})
    ET.SubElement(properties, "property", {"name": "proven_regressions", "value": str(tool.proven)})
    ET.SubElement(
        properties, "property", {"name": "contradictions", "value": str(tool.contradictions)}
    )
    if note := runtime_note(tool):
        ET.SubElement(
            properties,
            "property",
            {"name": "old_runtime_note", "value": xml_text(prose.plain(note))},
        )
    if not groups:
        ET.SubElement(
            suite,
            "testcase",
            {"name": "no changed calls", "classname": xml_text(tool.name), "time": "0"},
        )
    for group in groups:
        case = _case(group, group.fingerprint in failing, set_aside(report, group), unit)
        suite.append(case)
    ET.SubElement(suite, "system-out").text = ""
    ET.SubElement(suite, "system-err").text = ""
    return suite


def _case(group: Group, fails: bool, below: str | None, unit: str) -> ET.Element:
    case = ET.Element(
        "testcase",
        {
            "name": xml_text(f"{group_title(group)} [{group.fingerprint}]"),
            "classname": xml_text(group.tool),
            "time": "0",
        },
    )
    if group.baselined:
        ET.SubElement(case, "skipped", {"message": "accepted by the baseline"})
    elif below:
        ET.SubElement(case, "skipped", {"message": f"{below}: reported, does not fail the run"})
    elif fails:
        decision = decision_lines(group)
        # A test tab shows the message on one line: the decision, or the hint without one.
        message = "; ".join(decision_lines(group, callers=False)) or prose.plain(group.hint.text)
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 1] + "…"
        failure = ET.SubElement(
            case, "failure", {"message": xml_text(message), "type": group.outcome.value}
        )
        failure.text = _details(group, decision, unit)
    return case


def _details(group: Group, decision: list[str], unit: str) -> str:
    lines = [
        *decision,
        f"hint ({group.hint.kind.value}): {prose.plain(group.hint.text)}",
        f"outcome: {OUTCOME_LABELS[group.outcome]}",
        f"error: {group.error}",
        f"cause: {cause_text(group.causes, unit)}",
        f"calls: {group.count:,} of {group.tool_calls:,}; first {group.first}, last {group.last}",
    ]
    if group.proven:
        lines.append(f"proven: {group.proven:,} of these calls ran before (the log says so)")
    lines += [f"example {e.source}: {compact(e.arguments)}" for e in group.examples]
    return "\n".join(map(xml_text, lines))
