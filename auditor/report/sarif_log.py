"""The SARIF 2.1.0 envelope shared by the audit and lint renderers: where results point, the
cap on results, and the run's automation id.

Where a result points (``artifact_location``): a local file inside the source root is a
relative reference against ``%SRCROOT%`` (the repository root, ``SourceRoot``), which is how
GitHub code scanning maps a result to a file; a local file outside it is an absolute
``file:`` URI (a relative reference with a base id would name another file). A catalog read
from a URI (``s3://``, ``gs://``, ``https://``) is no file of the repository and code scanning
takes only ``file:`` URIs: such a result points at a logical location (the tool and the
pointer) and keeps the URI, as given, in its properties.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, Final
from urllib.parse import quote

from auditor.json_text import json_text
from auditor.models import Location
from auditor.project import HOME
from auditor.report.json_dump import dumps_indented
from auditor.report.source_root import SourceRoot, remote_uri
from auditor.schema.diffs import LineChange, changed_lines

SCHEMA_URI: Final = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT: Final = "%SRCROOT%"
"""The base id of every relative URI: the source root, as GitHub code scanning reads it."""
MAX_RESULTS: Final = 25_000
"""GitHub code scanning refuses a run with more results (a hard limit; it shows 5,000)."""
LEVELS: Final = ("error", "warning", "note")
"""Result levels, most severe first: the order results are written and kept in."""


def artifact_location(path: str, where: SourceRoot) -> dict[str, str] | None:
    """The SARIF ``artifactLocation`` of a local ``path`` (as given, relative to
    ``where.cwd``), or None for a path that names a remote object (``s3://…``)."""
    found = _artifact_location(path, where)
    return None if found is None else dict(found)  # the caller's own, to add to


@lru_cache(maxsize=1024)  # a report names a few catalogs, once per group
def _artifact_location(path: str, where: SourceRoot) -> dict[str, str] | None:
    full = where.absolute(path)
    if full is None:
        return None
    relative = where.relative(full)
    if relative is None:
        # Outside the root: the absolute file URI (percent-encoded, bytes of a non-UTF-8 name
        # as they are on disk), with no base id.
        return {"uri": full.as_uri()}
    return {"uri": quote(os.fsencode(relative.as_posix())), "uriBaseId": SRCROOT}


def input_name(path: str, where: SourceRoot) -> str:
    """An input as an automation id reads it: its URI from the source root (the same from
    any working directory in the repository), or its remote URI as given."""
    artifact = artifact_location(path, where)
    if artifact is None:
        return remote_uri(path) or path
    return artifact["uri"]


def physical_location(location: Location, where: SourceRoot) -> dict[str, Any] | None:
    """A SARIF physicalLocation: the file, and the line and column where known; None for a
    remote catalog (``remote_uri``), which no physical location can name for code scanning."""
    artifact = artifact_location(location.path, where)
    if artifact is None:
        return None
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if location.line is not None:
        physical["region"] = {"startLine": location.line}
        if location.column is not None:
            physical["region"]["startColumn"] = location.column
    return physical


def result_location(
    location: Location | None, where: SourceRoot, logical: dict[str, str], beside: bool
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """A result's ``locations`` and the properties that go with them: the physical location
    of a local file (with ``logical`` beside it when ``beside``); else the logical location
    alone, and for a remote catalog its URI as the ``catalogUri`` property."""
    physical = None if location is None else physical_location(location, where)
    if physical is not None:
        found: dict[str, Any] = {"physicalLocation": physical}
        if beside:
            found["logicalLocations"] = [logical]
        return [found], {}
    uri = None if location is None else remote_uri(location.path)
    return [{"logicalLocations": [logical]}], {} if uri is None else {"catalogUri": uri}


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


def capped(
    results: Iterable[dict[str, Any]],
    summary: Callable[[dict[str, int]], dict[str, Any]],
    limit: int = MAX_RESULTS,
) -> list[dict[str, Any]]:
    """``results`` most severe first (errors, warnings, notes; each level in the order
    given) and, past ``limit``, the first ``limit - 1`` of them and ``summary`` of the rest
    (how many were cut, by level), so the run holds ``limit`` results at most."""
    ordered = sorted(results, key=lambda result: LEVELS.index(result["level"]))
    if len(ordered) <= limit:
        return ordered
    kept, cut = ordered[: limit - 1], ordered[limit - 1 :]
    counts = {level: sum(r["level"] == level for r in cut) for level in LEVELS}
    return [*kept, summary({level: n for level, n in counts.items() if n})]


CUT_RULE_ID: Final = "AUD000"
"""The rule of the summary result that says what a capped run left out."""
REPORTS_PAGE: Final = f"{HOME}/blob/main/docs/reports.md#sarif"


def cut_rule() -> dict[str, Any]:
    """The ``reportingDescriptor`` of the summary result (after every other rule)."""
    summary = f"Results left out: code scanning takes at most {MAX_RESULTS:,} per run."
    doc = (
        f"The run holds the {MAX_RESULTS - 1:,} most severe results (errors, then warnings, "
        "then notes, each in the report's order) and this one, which counts the rest by level."
    )
    return {
        "id": CUT_RULE_ID,
        "name": "results-cut",
        "shortDescription": {"text": summary},
        "fullDescription": {"text": doc},
        "help": {"text": f"{summary} {doc}", "markdown": f"**{CUT_RULE_ID}**: {summary}\n\n{doc}"},
        "helpUri": REPORTS_PAGE,
        "defaultConfiguration": {"level": "note"},
    }


def cut_result(cut: dict[str, int], rule_index: int, what: str, where_all: str) -> dict[str, Any]:
    """The summary result of a capped run: how many ``what`` were left out, by level (at the
    most severe level among them); ``where_all``: the output that holds them all."""
    total = sum(cut.values())
    levels = ", ".join(f"{n:,} {level}" for level, n in cut.items())
    return {
        "ruleId": CUT_RULE_ID,
        "ruleIndex": rule_index,
        "level": next(level for level in LEVELS if level in cut),
        "message": {
            "text": f"{total:,} more {what} left out ({levels}): code scanning takes at most "
            f"{MAX_RESULTS:,} results per run; {where_all} has every one."
        },
        "partialFingerprints": {"auditorSummary/v1": "results-cut"},
        "locations": [{"logicalLocations": [{"name": "auditor", "kind": "module"}]}],
        "properties": {"cut": dict(cut), "cutTotal": total},
    }


def automation_id(kind: str, inputs: Sequence[str]) -> str:
    """``runs[].automationDetails.id``: ``auditor-KIND/DIGEST/``, a category of its own for
    each set of inputs (so the runs of a matrix over several catalog sets do not replace each
    other's alerts) and no run id (code scanning compares a category's runs with each other).
    ``DIGEST``: the first 12 hex digits of the SHA-256 of the inputs, one a line."""
    digest = hashlib.sha256("\n".join(inputs).encode("utf-8", "surrogateescape")).hexdigest()
    return f"auditor-{kind}/{digest[:12]}/"


def render_log(
    version: str,
    rules: Sequence[dict[str, Any]],
    results: Sequence[dict[str, Any]],
    automation: str,
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
        "automationDetails": {"id": automation},
        "columnKind": "unicodeCodePoints",
        "results": list(results),
        **run_extra,
    }
    document = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json_text(dumps_indented(document)) + "\n"
