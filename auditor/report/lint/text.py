"""``file:line:col: CODE message``, one line per finding, as compilers and linters print."""

from __future__ import annotations

from collections.abc import Sequence

from auditor.report.escape import terminal
from auditor.schema.lint import LocatedFinding


def render(findings: Sequence[LocatedFinding]) -> str:
    return "".join(
        terminal(
            f"{f.location.path}:{f.location.line or 1}:{f.location.column or 1}: "
            f"{f.finding.code} {f.finding.message}"
        )
        + "\n"
        for f in findings
    )
