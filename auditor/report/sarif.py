"""SARIF 2.1.0 for code scanning: one result per group, at the rewritten key in the catalog.

Each outcome that changes with the upgrade is a rule; a group's fingerprint is its partial
fingerprint, so code scanning tracks it across runs, and with ``--baseline`` each result says
whether it is new or accepted (``baselineState``). A group whose verified loosening can be
written into its catalog file carries it as a SARIF ``fix`` when the command line passes the
fixes in (``loosening_fixes``, from the edits ``auditor.schema.edit.catalog_edits`` made once
for the run; the renderer itself reads no file).

Paths are relative to the source root (``source_root.SourceRoot``: the repository around
the working directory), results go most severe first, at most ``MAX_RESULTS`` of them (the last
one then says what was cut), and the run's ``automationDetails.id`` follows from what was
audited (``sarif_log.automation_id``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from auditor.gc_thresholds import fewer_collections
from auditor.models import Group, Location, RemovedPropertyCalls, Report, Subject
from auditor.report import prose
from auditor.report.common import (
    group_location,
    group_title,
    profile_lines,
    rollup_lines,
    set_aside,
    verdict,
)
from auditor.report.escape import visible
from auditor.report.removed import removal_location, removed_prose
from auditor.report.rules import AUDIT_RULES as RULES
from auditor.report.rules import REMOVED_PROPERTY_RULE
from auditor.report.sarif_log import (
    MAX_RESULTS,
    artifact_location,
    automation_id,
    capped,
    cut_result,
    cut_rule,
    input_name,
    render_log,
    replacement,
    result_location,
)
from auditor.report.source_root import SourceRoot
from auditor.schema.diffs import LineChange


@fewer_collections()
def render(
    report: Report,
    fixes: Mapping[str, dict[str, Any]] | None = None,
    root: SourceRoot | None = None,
) -> str:
    """The SARIF log, one run; ``fixes`` by group fingerprint (``loosening_fixes``); paths
    relative to ``root`` (default: the source root of the working directory)."""
    where = root or SourceRoot.find()
    extra: dict[str, Any] = {
        "properties": {
            # The run's summary: the verdict, then what to do (Report.rollup), entry by entry.
            "verdict": visible(prose.plain(verdict(report))),
            "whatToDo": _what_to_do(report),
            "oldRuntime": report.old_runtime.value,
            "provenRegressions": report.proven_count,
            "contradictions": report.contradiction_count,
        }
    }
    if lines := profile_lines(report):  # which code made each profile's schemas
        extra["properties"]["profiles"] = [visible(prose.plain(line)) for line in lines]
    if report.generated_at:
        extra["invocations"] = [{"executionSuccessful": True, "endTimeUtc": report.generated_at}]
    rules = [rule.sarif() for rule in RULES.values()]
    if report.removed_properties:  # its rule only where it has results: other logs unchanged
        rules.append(REMOVED_PROPERTY_RULE.sarif())
    fixes = fixes or {}
    found = [_result(report, g, where, fixes.get(g.fingerprint)) for g in report.groups]
    if (subject := report.results) is not None:  # the results' groups, marked as such
        found += [_result(subject, g, where, fixes.get(g.fingerprint)) for g in subject.groups]
    found += [_removed_result(report, r, where) for r in report.removed_properties]
    results = capped(found, lambda cut: cut_result(cut, len(rules), "groups", "the JSON report"))
    if len(found) > MAX_RESULTS:
        rules.append(cut_rule())  # the rule of the summary result, last
    return render_log(report.version, rules, results, _automation_id(report, where), **extra)


def _automation_id(report: Report, where: SourceRoot) -> str:
    """What was audited, each input where it stands from the source root: the catalogs on
    both sides, the git revision, the profiles and the grouping. Not the logs: their names
    change from run to run (dated files), and a new category each run would close and reopen
    every alert."""
    inputs = [
        f"change={report.change_kind.value}",
        *(f"schemas={input_name(path, where)}" for path in report.schema_inputs),
        *(f"new-schemas={input_name(path, where)}" for path in report.new_schema_inputs),
        f"against={report.against or ''}",
        *(f"profile={run.profile}" for run in report.profile_runs),
        f"group-by={report.group_by.value}",
    ]
    return automation_id("audit", inputs)


def _removed_result(
    report: Report, removed: RemovedPropertyCalls, where: SourceRoot
) -> dict[str, Any]:
    """A note for each removed property logged calls still send, at the removal (the key in
    the old catalog)."""
    result: dict[str, Any] = {
        "ruleId": REMOVED_PROPERTY_RULE.code,
        "ruleIndex": len(RULES),
        "level": "note",
        "message": {"text": visible(prose.plain(removed_prose(removed)))},
        "partialFingerprints": {
            "auditorRemovedProperty/v1": hashlib.blake2b(
                json.dumps([removed.tool, removed.change.pointer]).encode(), digest_size=8
            ).hexdigest()
        },
        "properties": {
            "tool": removed.tool,
            "property": removed.name,
            "pointer": removed.pointer,
            "objectsOpen": removed.ignored,
            "count": removed.calls,
            "newlyRejected": removed.newly_rejected,
            "callers": [name for name, _ in removed.callers],
            "firstCalls": list(removed.examples),
        },
    }
    _place(result, removal_location(report, removed), where, removed.tool, removed.change.pointer)
    return result


def _place(
    result: dict[str, Any], location: Location | None, where: SourceRoot, tool: str, pointer: str
) -> None:
    """``result``'s locations: a local catalog's key is the physical location; a tool with no
    catalog position (a remote catalog, a tool no catalog defines) stands at a logical one,
    the tool and the key."""
    logical = {"name": tool, "fullyQualifiedName": f"{tool}#{pointer}", "kind": "object"}
    locations, where_properties = result_location(location, where, logical, beside=False)
    result["locations"] = locations
    result["properties"].update(where_properties)


def _what_to_do(report: Report) -> list[dict[str, Any]]:
    """The roll-up's entries that hold a group: kind, groups, calls, and what it says."""
    entries = [entry for entry in report.rollup.entries if entry.groups]
    return [
        {
            "kind": entry.kind.value,
            "groups": entry.groups,
            "calls": entry.calls,
            "text": visible(line.plain()),
        }
        for entry, line in zip(entries, rollup_lines(report.rollup), strict=True)
    ]


def loosening_fixes(
    report: Report, changes: Mapping[str, LineChange], root: SourceRoot | None = None
) -> dict[str, dict[str, Any]]:
    """A SARIF ``fix`` for each group whose suggested loosening applies to its catalog file
    as the file is now (``changes``: ``auditor.schema.edit.loosening_edits``, each loosening
    by itself, by group fingerprint): the lines it changes and what replaces them. Paths
    relative to ``root``, as ``render`` writes them."""
    where = root or SourceRoot.find()
    found: dict[str, dict[str, Any]] = {}
    results = () if report.results is None else report.results.groups
    for group in (*report.groups, *results):
        patch, change = group.patch, changes.get(group.fingerprint)
        written = patch is not None and patch.problem is None and patch.file_problem is None
        if change is None or patch is None or not written:
            continue  # (a patch with a problem is written into no file: no change either)
        artifact = artifact_location(change.path, where)
        if artifact is None:
            continue  # a remote catalog: no file of the repository to change
        found[group.fingerprint] = {
            "description": {"text": visible(patch.summary)},
            "artifactChanges": [
                {"artifactLocation": artifact, "replacements": [replacement(change)]}
            ],
        }
    return found


def group_level(report: Report, group: Group) -> str:
    """A group's level (error, warning, note): its outcome's, an error when it fails the run
    under --fail-on, at most a warning when only a usage threshold or the log keeps it from
    failing, and a note when a baseline accepted it."""
    level = RULES[group.outcome].level or "note"
    if group.baselined:
        return "note"
    if report.gate.fails(group):
        return "error"  # whatever its outcome, it fails the run under --fail-on
    if set_aside(report, group) and level == "error":
        return "warning"  # it would fail the run, but for a usage threshold or the log
    return level


def _result(
    report: Report, group: Group, where: SourceRoot, fix: dict[str, Any] | None = None
) -> dict[str, Any]:
    below = report.gate.below_threshold(group)
    result: dict[str, Any] = {
        "ruleId": RULES[group.outcome].code,
        "ruleIndex": list(RULES).index(group.outcome),
        "level": group_level(report, group),
        # Shown to people as is: one visible line. The properties keep the data as it was.
        "message": {
            "text": visible(
                f"{group_title(group)}. {prose.plain(group.hint.text)}"
                + (f" Error: {group.error}" if group.error else "")
            )
        },
        "partialFingerprints": {"auditorGroup/v1": group.fingerprint},
        "properties": {
            "tool": group.tool,
            "keyword": group.keyword,
            "schemaPointer": group.schema_pointer,
            "count": group.count,
            "toolCalls": group.tool_calls,
            "hint": group.hint.kind.value,
            "causes": [r.describe() for r in group.causes],
            "firstCall": group.first,
            "provenCalls": group.proven,
            "contradicted": group.contradicted,
        },
    }
    if below:
        result["properties"]["belowThreshold"] = below
    if report.subject is Subject.RESULTS:  # a result the output schema rejects, not arguments
        result["properties"]["subject"] = report.subject.value
        result["message"]["text"] = "Results: " + result["message"]["text"]
    _place(result, group_location(report, group), where, group.tool, group.schema_pointer)
    if report.baseline is not None:
        result["baselineState"] = "unchanged" if group.baselined else "new"
    if fix is not None:
        result["fixes"] = [fix]
    return result
