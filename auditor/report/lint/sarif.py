"""SARIF 2.1.0 of lint findings, for code-scanning dashboards; rules come from the registry."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from auditor import __version__
from auditor.models import Severity
from auditor.report.rules import LINT_RULES
from auditor.report.sarif_log import physical_location, render_log
from auditor.schema.lint import LocatedFinding


def render(findings: Sequence[LocatedFinding]) -> str:
    codes = list(LINT_RULES)
    rules = [rule.sarif() for rule in LINT_RULES.values()]
    return render_log(
        __version__, rules, [_result(f, codes.index(f.finding.code)) for f in findings]
    )


def _level(severity: Severity) -> str:
    return "error" if severity is Severity.ERROR else "warning"


def _result(f: LocatedFinding, rule_index: int) -> dict[str, Any]:
    properties: dict[str, Any] = {"tool": f.tool, "pointer": f.finding.pointer}
    if f.finding.fix:
        properties["fix"] = f.finding.fix
    return {
        "ruleId": f.finding.code,
        "ruleIndex": rule_index,
        "level": _level(f.finding.severity),
        "message": {"text": f.finding.message},
        "locations": [
            {
                "physicalLocation": physical_location(f.location),
                "logicalLocations": [
                    {
                        "name": f.finding.pointer or "/",
                        "fullyQualifiedName": f"{f.tool}#{f.finding.pointer}",
                    }
                ],
            }
        ],
        "properties": properties,
    }
