"""GitLab Code Quality: one issue per group, for the merge request's Code Quality widget.

A JSON array of ``{description, check_name, fingerprint, severity, location: {path, lines:
{begin}}}`` (GitLab's Code Quality report format, a subset of Code Climate's). Each group
stands at the rewritten key in its catalog, by a path from the repository root
(``source_root``), at its first call when no catalog position is known (a tool no catalog
defines). The severity follows the group's SARIF level (``sarif.group_level``). The
fingerprint is a SHA-256 of the format, the tool and the group's fingerprint (itself
stable across runs and logs), so GitLab tells new issues from fixed ones between pipelines;
no logged text goes into it unhashed. Descriptions are one visible line, cut to
``MAX_DESCRIPTION`` characters.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Final

from auditor.json_text import json_text
from auditor.models import Group, Location, Report, Subject
from auditor.report import prose
from auditor.report.common import group_location, group_title
from auditor.report.escape import visible
from auditor.report.json_dump import dumps_indented
from auditor.report.rules import AUDIT_RULES
from auditor.report.sarif import group_level
from auditor.report.source_root import SourceRoot, repository_path

MAX_DESCRIPTION: Final = 500
"""Characters of a description before it is cut: the widget shows one line per issue."""
SEVERITIES: Final = {"error": "major", "warning": "minor", "note": "info"}
"""GitLab's severity for each SARIF level (its scale: info, minor, major, critical, blocker)."""


def render(report: Report, root: SourceRoot | None = None) -> str:
    """The Code Quality report; paths from ``root`` (default: the working directory's)."""
    where = root or SourceRoot.find()
    issues = [_issue(report, group, where) for group in report.groups]
    if (results := report.results) is not None:  # the results' groups, said to be results
        issues += [_issue(results, group, where) for group in results.groups]
    return issues_text(issues)


def issue(
    description: str,
    check_name: str,
    key: Sequence[str],
    severity: str,
    location: Location,
    where: SourceRoot,
) -> dict[str, Any]:
    """One Code Quality issue; ``key``: what identifies it across runs, hashed into its
    fingerprint (never its line, which moves as the file is edited)."""
    digest = hashlib.sha256("\0".join(key).encode("utf-8", "surrogateescape")).hexdigest()
    return {
        "description": _cut(visible(description), MAX_DESCRIPTION),
        "check_name": check_name,
        "fingerprint": digest,
        "severity": severity,
        "location": {
            "path": repository_path(location.path, where),
            "lines": {"begin": location.line or 1},
        },
    }


def issues_text(issues: list[dict[str, Any]]) -> str:
    """The report's text: strict JSON, indented, ending with a line break."""
    return json_text(dumps_indented(issues)) + "\n"


def _issue(report: Report, group: Group, where: SourceRoot) -> dict[str, Any]:
    rule = AUDIT_RULES[group.outcome]
    text = f"{group_title(group)}. {prose.plain(group.hint.text)}"
    if report.subject is Subject.RESULTS:  # a result the output schema rejects, not arguments
        text = f"Results: {text}"
    location = group_location(report, group) or _first_call(group)
    key = ("auditor", "audit", group.tool, group.fingerprint)
    severity = SEVERITIES[group_level(report, group)]
    return issue(text, rule.code, key, severity, location, where)


def _first_call(group: Group) -> Location:
    """Where the group's first call stands in its log (``path:line``)."""
    path, _, line = group.first.rpartition(":")
    return Location(path, int(line)) if path and line.isdigit() else Location(group.first)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
