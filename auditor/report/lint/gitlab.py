"""GitLab Code Quality of lint findings: one issue per finding, at its key in the catalog.

The shape, paths, fingerprints and descriptions are the audit's (``auditor.report.gitlab``);
a finding's fingerprint hashes its code, tool, pointer and file, not its line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from auditor.models import Severity
from auditor.report.gitlab import issue, issues_text
from auditor.report.source_root import SourceRoot, repository_path
from auditor.schema.lint import LocatedFinding

SEVERITIES: Final = {Severity.ERROR: "major", Severity.WARNING: "minor"}


def render(findings: Sequence[LocatedFinding], root: SourceRoot | None = None) -> str:
    """The Code Quality report; paths from ``root`` (default: the working directory's)."""
    where = root or SourceRoot.find()
    return issues_text(
        [
            issue(
                f"{f.finding.code} {f.finding.message}",
                f.finding.code,
                (
                    "auditor",
                    "lint",
                    f.finding.code,
                    f.tool,
                    f.finding.pointer,
                    repository_path(f.location.path, where),
                ),
                SEVERITIES[f.finding.severity],
                f.location,
                where,
            )
            for f in findings
        ]
    )
