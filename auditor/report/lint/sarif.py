"""SARIF 2.1.0, for code-scanning dashboards; rules come from the finding registry."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from auditor import __version__
from auditor.findings import RULES
from auditor.lint import LocatedFinding
from auditor.models import Severity

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def artifact_uri(path: str) -> str:
    """A relative URI reference for a path as given (forward slashes, percent-encoded)."""
    return quote(PurePath(path).as_posix())


def render(findings: Sequence[LocatedFinding]) -> str:
    codes = sorted(RULES)
    rules = [
        {
            "id": code,
            "name": RULES[code].name,
            "shortDescription": {"text": RULES[code].summary},
            "fullDescription": {"text": RULES[code].doc},
            "defaultConfiguration": {"level": _level(RULES[code].severity)},
        }
        for code in codes
    ]
    results = [_result(f, codes.index(f.finding.code)) for f in findings]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "auditor",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _level(severity: Severity) -> str:
    return "error" if severity is Severity.ERROR else "warning"


def _result(f: LocatedFinding, rule_index: int) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": f.location.line or 1}
    if f.location.column:
        region["startColumn"] = f.location.column
    result: dict[str, Any] = {
        "ruleId": f.finding.code,
        "ruleIndex": rule_index,
        "level": _level(f.finding.severity),
        "message": {"text": f.finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(f.location.path)},
                    "region": region,
                },
                "logicalLocations": [
                    {
                        "name": f.finding.pointer or "/",
                        "fullyQualifiedName": f"{f.tool}#{f.finding.pointer}",
                    }
                ],
            }
        ],
        "properties": {"tool": f.tool, "pointer": f.finding.pointer},
    }
    if f.finding.fix:
        result["properties"]["fix"] = f.finding.fix
    return result
