"""SARIF 2.1.0 for code scanning: one result per group, at the rewritten key in the catalog.

Each outcome that changes with the upgrade is a rule; a group's fingerprint is its partial
fingerprint, so code scanning tracks it across runs, and with ``--baseline`` each result says
whether it is new or accepted (``baselineState``). A group whose verified loosening can be
written into its catalog file carries it as a SARIF ``fix`` when the command line passes the
fixes in (``loosening_fixes``, from the edits ``auditor.schema.edit.catalog_edits`` made once
for the run; the renderer itself reads no file).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from auditor.models import Group, RemovedPropertyCalls, Report
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
    artifact_uri,
    physical_location,
    render_log,
    replacement,
)
from auditor.schema.diffs import LineChange


def render(report: Report, fixes: Mapping[str, dict[str, Any]] | None = None) -> str:
    """The SARIF log, one run; ``fixes`` by group fingerprint (``loosening_fixes``)."""
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
    return render_log(
        report.version,
        [rule.sarif() for rule in RULES.values()]
        # The removals' rule only where it has results: other logs stay as they were.
        + ([REMOVED_PROPERTY_RULE.sarif()] if report.removed_properties else []),
        [_result(report, group, (fixes or {}).get(group.fingerprint)) for group in report.groups]
        + [_removed_result(report, removed) for removed in report.removed_properties],
        **extra,
    )


def _removed_result(report: Report, removed: RemovedPropertyCalls) -> dict[str, Any]:
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
    location = removal_location(report, removed)
    if location is not None:
        result["locations"] = [{"physicalLocation": physical_location(location)}]
    return result


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


def loosening_fixes(report: Report, changes: Mapping[str, LineChange]) -> dict[str, dict[str, Any]]:
    """A SARIF ``fix`` for each group whose suggested loosening applies to its catalog file
    as the file is now (``changes``: ``auditor.schema.edit.loosening_edits``, each loosening
    by itself, by group fingerprint): the lines it changes and what replaces them."""
    found: dict[str, dict[str, Any]] = {}
    for group in report.groups:
        patch, change = group.patch, changes.get(group.fingerprint)
        written = patch is not None and patch.problem is None and patch.file_problem is None
        if change is None or patch is None or not written:
            continue  # (a patch with a problem is written into no file: no change either)
        found[group.fingerprint] = {
            "description": {"text": visible(patch.summary)},
            "artifactChanges": [
                {
                    "artifactLocation": {"uri": artifact_uri(change.path)},
                    "replacements": [replacement(change)],
                }
            ],
        }
    return found


def _result(report: Report, group: Group, fix: dict[str, Any] | None = None) -> dict[str, Any]:
    rule_id, level = RULES[group.outcome].code, RULES[group.outcome].level or "note"
    below = report.gate.below_threshold(group)
    if report.gate.fails(group):
        level = "error"  # whatever its outcome, it fails the run under --fail-on
    elif set_aside(report, group) and level == "error":
        level = "warning"  # it would fail the run, but for a usage threshold or the log
    result: dict[str, Any] = {
        "ruleId": rule_id,
        "ruleIndex": list(RULES).index(group.outcome),
        "level": "note" if group.baselined else level,
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
    location = group_location(report, group)
    if location is not None:
        result["locations"] = [{"physicalLocation": physical_location(location)}]
    if report.baseline is not None:
        result["baselineState"] = "unchanged" if group.baselined else "new"
    if fix is not None:
        result["fixes"] = [fix]
    return result
