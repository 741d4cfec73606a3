"""GitHub Actions workflow commands: each finding becomes an annotation on its line."""

from __future__ import annotations

from collections.abc import Sequence

from auditor.models import Severity
from auditor.report.escape import github_data, github_property
from auditor.schema.lint import LocatedFinding


def render(findings: Sequence[LocatedFinding]) -> str:
    lines = []
    for f in findings:
        level = "error" if f.finding.severity is Severity.ERROR else "warning"
        properties = ",".join(
            [
                f"file={github_property(f.location.path)}",
                f"line={f.location.line or 1}",
                f"col={f.location.column or 1}",
                f"title={github_property(f'{f.finding.code} {f.finding.name}')}",
            ]
        )
        lines.append(f"::{level} {properties}::{github_data(f.finding.message)}\n")
    return "".join(lines)
