"""``file:line:col: CODE message``, one line per finding, as compilers and linters print,
then a summary line, as ruff ends: how many findings, in how many files, how many fixable."""

from __future__ import annotations

from collections.abc import Sequence

from auditor.report.escape import terminal
from auditor.report.rules import fixable
from auditor.schema.lint import LocatedFinding
from auditor.words import plural


def render(findings: Sequence[LocatedFinding]) -> str:
    """The findings, and the summary line when there is one; nothing when there is none."""
    lines = "".join(
        terminal(
            f"{f.location.path}:{f.location.line or 1}:{f.location.column or 1}: "
            f"{f.finding.code} {f.finding.message}"
        )
        + "\n"
        for f in findings
    )
    return lines + summary(findings) if findings else ""


def summary(findings: Sequence[LocatedFinding]) -> str:
    """``28 findings in 3 files; 28 fixable with `auditor normalize --write```."""
    files = len({f.location.path for f in findings})
    line = f"{plural(len(findings), 'finding')} in {plural(files, 'file')}"
    if fixed := sum(fixable(f.finding.code) for f in findings):
        line += f"; {fixed:,} fixable with `auditor normalize --write`"
    return line + "\n"
