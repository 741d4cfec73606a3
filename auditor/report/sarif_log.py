"""The SARIF 2.1.0 envelope shared by the audit and lint renderers."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any, Final
from urllib.parse import quote

from auditor.models import Location
from auditor.project import HOME
from auditor.report.escape import json_text
from auditor.report.json_dump import dumps_indented

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


def line_replacement(before: str, after: str) -> dict[str, Any]:
    """A SARIF ``replacement`` that turns ``before`` into ``after``: the lines that differ
    (whole lines, without the last one's line break), and the lines that take their place.

    Exact by construction: what lies outside the region is the same in both texts. A block
    that would be empty on one side (lines only added, or only removed) takes a neighbouring
    line on both, so the region and its replacement each hold at least one line."""
    a, b = before.split("\n"), after.split("\n")
    same = min(len(a), len(b))
    start = 0
    while start < same and a[start] == b[start]:
        start += 1
    tail = 0
    while tail < same - start and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    if start == len(a) - tail or start == len(b) - tail:
        if start > 0:
            start -= 1
        else:
            tail -= 1
    last = len(a) - tail  # the region's last line, 1-based
    return {
        "deletedRegion": {
            "startLine": start + 1,
            "startColumn": 1,
            "endLine": last,
            "endColumn": len(a[last - 1]) + 1,
        },
        "insertedContent": {"text": "\n".join(b[start : len(b) - tail])},
    }


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
