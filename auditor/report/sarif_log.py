"""The SARIF 2.1.0 envelope shared by the audit and lint renderers."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any, Final
from urllib.parse import quote

from auditor.json_text import json_text
from auditor.models import Location
from auditor.project import HOME
from auditor.report.json_dump import dumps_indented
from auditor.schema.diffs import LineChange, changed_lines

SCHEMA_URI: Final = "https://json.schemastore.org/sarif-2.1.0.json"


def artifact_uri(path: str) -> str:
    """A relative URI reference for a path as given (forward slashes, percent-encoded; the
    bytes of a name that is not UTF-8 as they are on disk)."""
    return quote(os.fsencode(PurePath(path).as_posix()))


def physical_location(location: Location) -> dict[str, Any]:
    """A SARIF physicalLocation: the file, and the line and column where known."""
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(location.path)}}
    if location.line is not None:
        physical["region"] = {"startLine": location.line}
        if location.column is not None:
            physical["region"]["startColumn"] = location.column
    return physical


def replacement(change: LineChange) -> dict[str, Any]:
    """A SARIF ``replacement``: the lines ``change`` replaces (whole lines, without the last
    one's line break), and the lines that take their place."""
    return {
        "deletedRegion": {
            "startLine": change.first,
            "startColumn": 1,
            "endLine": change.last,
            "endColumn": change.last_length + 1,
        },
        "insertedContent": {"text": change.text},
    }


def line_replacement(before: str, after: str) -> dict[str, Any]:
    """A SARIF ``replacement`` that turns ``before`` into ``after``: the lines that differ
    (``auditor.schema.diffs.changed_lines``: exact by construction, what lies outside the
    region is the same in both texts, and each side holds at least one line)."""
    return replacement(changed_lines("", before, after))


def render_log(
    version: str,
    rules: Sequence[dict[str, Any]],
    results: Sequence[dict[str, Any]],
    **run_extra: Any,
) -> str:
    """One run of ``auditor`` with its rules and results, as SARIF text."""
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "auditor",
                "informationUri": HOME,
                "version": version,
                "semanticVersion": version,
                "rules": list(rules),
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": list(results),
        **run_extra,
    }
    document = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json_text(dumps_indented(document)) + "\n"
