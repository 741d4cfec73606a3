"""SARIF 2.1.0 for code scanning: one result per group, at the rewritten key in the catalog.

Each outcome that changes with the upgrade is a rule; a group's fingerprint is its partial
fingerprint, so code scanning tracks it across runs, and with ``--baseline`` each result says
whether it is new or accepted (``baselineState``).
"""

from __future__ import annotations

import json
from typing import Any, Final

from auditor.models import Group, Outcome, Report
from auditor.report.common import group_location, group_title, plain

SCHEMA_URI: Final = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI: Final = "https://github.com/auditor/auditor"

# id, name, level, short description: the metadata feeds rules[] and every result.
RULES: Final[dict[Outcome, tuple[str, str, str, str]]] = {
    Outcome.NEWLY_REJECTED: (
        "AUD001",
        "newly-rejected",
        "error",
        "Logged calls the normalized schema would newly reject",
    ),
    Outcome.SCHEMA_ERROR_AFTER: (
        "AUD002",
        "schema-error-after",
        "error",
        "The normalized schema cannot be used",
    ),
    Outcome.SCHEMA_ERROR_BEFORE: (
        "AUD003",
        "schema-error-before",
        "warning",
        "The schema as written could not be used; what the normalized one makes of the calls",
    ),
    Outcome.NEWLY_ACCEPTED: (
        "AUD004",
        "newly-accepted",
        "note",
        "Logged calls rejected before and accepted after normalization",
    ),
}


def render(report: Report) -> str:
    """The SARIF log, one run."""
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "auditor",
                "version": report.version,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(*meta) for meta in RULES.values()],
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": [_result(report, group) for group in report.groups],
    }
    if report.generated_at:
        run["invocations"] = [{"executionSuccessful": True, "endTimeUtc": report.generated_at}]
    document = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _rule(rule_id: str, name: str, level: str, text: str) -> dict[str, Any]:
    return {
        "id": rule_id,
        "name": name,
        "shortDescription": {"text": text},
        "defaultConfiguration": {"level": level},
    }


def _result(report: Report, group: Group) -> dict[str, Any]:
    rule_id, _, level, _ = RULES[group.outcome]
    result: dict[str, Any] = {
        "ruleId": rule_id,
        "ruleIndex": list(RULES).index(group.outcome),
        "level": "note" if group.baselined else level,
        "message": {"text": f"{group_title(group)}. {plain(group.hint.text)} Error: {group.error}"},
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
        },
    }
    location = group_location(report, group)
    if location is not None:
        physical: dict[str, Any] = {"artifactLocation": {"uri": location.path}}
        if location.line is not None:
            physical["region"] = {"startLine": location.line}
            if location.column is not None:
                physical["region"]["startColumn"] = location.column
        result["locations"] = [{"physicalLocation": physical}]
    if report.baseline is not None:
        result["baselineState"] = "unchanged" if group.baselined else "new"
    return result
