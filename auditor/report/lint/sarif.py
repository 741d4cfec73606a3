"""SARIF 2.1.0 of lint findings, for code-scanning dashboards; rules come from the registry.

Locations, order, the cap on results and the automation id follow ``auditor.report.sarif_log``
as the audit's SARIF does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from auditor import __version__
from auditor.models import Severity
from auditor.report.rules import LINT_RULES
from auditor.report.sarif_log import (
    MAX_RESULTS,
    automation_id,
    capped,
    cut_result,
    cut_rule,
    input_name,
    render_log,
    result_location,
)
from auditor.report.source_root import SourceRoot
from auditor.schema.lint import LocatedFinding


def render(
    findings: Sequence[LocatedFinding],
    inputs: Sequence[str] = (),
    root: SourceRoot | None = None,
) -> str:
    """The SARIF log of ``findings``; ``inputs``: the paths linted, as given (they make the
    automation id); paths relative to ``root`` (default: the working directory's)."""
    where = root or SourceRoot.find()
    codes = list(LINT_RULES)
    rules = [rule.sarif() for rule in LINT_RULES.values()]
    results = capped(
        (_result(f, codes.index(f.finding.code), where) for f in findings),
        lambda cut: cut_result(cut, len(rules), "findings", "`auditor lint --format json`"),
    )
    if len(findings) > MAX_RESULTS:
        rules.append(cut_rule())
    named = sorted(input_name(path, where) for path in inputs)
    return render_log(__version__, rules, results, automation_id("lint", named))


def _level(severity: Severity) -> str:
    return "error" if severity is Severity.ERROR else "warning"


def _result(f: LocatedFinding, rule_index: int, where: SourceRoot) -> dict[str, Any]:
    properties: dict[str, Any] = {"tool": f.tool, "pointer": f.finding.pointer}
    if f.finding.fix:
        properties["fix"] = f.finding.fix
    logical = {
        "name": f.finding.pointer or "/",
        "fullyQualifiedName": f"{f.tool}#{f.finding.pointer}",
    }
    locations, where_properties = result_location(f.location, where, logical, beside=True)
    properties.update(where_properties)
    return {
        "ruleId": f.finding.code,
        "ruleIndex": rule_index,
        "level": _level(f.finding.severity),
        "message": {"text": f.finding.message},
        "locations": locations,
        "properties": properties,
    }
