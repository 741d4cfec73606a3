"""A JSON list of findings, one object each, for scripts."""

from __future__ import annotations

import json
from collections.abc import Sequence

from auditor.json_text import json_text
from auditor.schema.lint import LocatedFinding


def render(findings: Sequence[LocatedFinding]) -> str:
    return (
        json_text(
            json.dumps(
                [
                    {
                        "code": f.finding.code,
                        "name": f.finding.name,
                        "severity": f.finding.severity.value,
                        "tool": f.tool,
                        "pointer": f.finding.pointer,
                        "file": f.location.path,
                        "line": f.location.line,
                        "column": f.location.column,
                        "message": f.finding.message,
                        "fix": f.finding.fix,
                    }
                    for f in findings
                ],
                indent=2,
                ensure_ascii=False,
                allow_nan=False,
            )
        )
        + "\n"
    )
