"""SARIF from `auditor audit`: verified loosenings as fixes, exact by construction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.models import Report
from auditor.report.sarif import loosening_fixes
from auditor.report.sarif_log import line_replacement
from auditor.schema.edit import loosening_edits
from tests.conftest import ROOT, run_cli
from tests.reporting import make_report

SARIF_SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-2.1.0.json").read_text())
GATEWAY = ROOT / "sample_logs" / "openai_gateway"


def verified_fixes(report: Report, max_bytes: int) -> dict[str, dict[str, Any]]:
    """The SARIF fixes of a report, from its loosenings written into the catalogs as they are."""
    return loosening_fixes(report, loosening_edits(report.groups, max_bytes).alone)


def _apply(text: str, replacement: dict[str, Any]) -> str:
    """``text`` with a SARIF replacement applied, by its line and column (code points)."""
    lines = text.split("\n")
    region = replacement["deletedRegion"]

    def offset(line: int, column: int) -> int:
        return sum(len(before) + 1 for before in lines[: line - 1]) + column - 1

    start = offset(region["startLine"], region["startColumn"])
    end = offset(region["endLine"], region["endColumn"])
    inserted: str = replacement["insertedContent"]["text"]
    return text[:start] + inserted + text[end:]


def test_loosenings_are_sarif_fixes(capsys: pytest.CaptureFixture[str]) -> None:
    catalog = GATEWAY / "tools.json"
    args = ["audit", "--schemas", str(catalog), "--logs", str(GATEWAY / "calls.jsonl")]
    _, out, _ = run_cli([*args, "--format", "sarif", "--output", "-"], capsys)
    document = json.loads(out)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(document)
    fixed = {
        r["fixes"][0]["description"]["text"]: r["fixes"][0]
        for r in document["runs"][0]["results"]
        if "fixes" in r
    }
    # search_kb's `min_length: 3` (line 48) is enforced once normalized; the logged
    # empty queries pass with 0: the fix rewrites that one line and nothing else.
    fix = fixed["lower minLength 3 → 0"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == str(catalog)  # the path as given
    (replacement,) = change["replacements"]
    line = '            "query": {"type": "string", "min_length": 3},'
    assert replacement == {
        "deletedRegion": {"startLine": 48, "startColumn": 1, "endLine": 48, "endColumn": 58},
        "insertedContent": {"text": line.replace("3", "0")},
    }
    text = catalog.read_text(encoding="utf-8")
    assert text.split("\n")[47] == line and len(line) == 57
    assert _apply(text, replacement) == text.replace(line, line.replace("3", "0"))
    # Only groups with a loosening get one; the others have no `fixes`.
    groups = json.loads(run_cli([*args, "--format", "json", "--output", "-"], capsys)[1])["groups"]
    assert len(fixed) == sum(g["patch"] is not None for g in groups) > 0


@pytest.mark.parametrize(
    ("before", "after", "region", "inserted"),
    [
        ("a\nb\nc\n", "a\nB\nc\n", (2, 1, 2, 2), "B"),
        # a line added: the line before it is replaced by itself and the new one
        ("a\nc\n", "a\nb\nc\n", (1, 1, 1, 2), "a\nb"),
        # a line removed: the line before it and the removed one become the first alone
        ("a\nb\nc\n", "a\nc\n", (1, 1, 2, 2), "a"),
        # at the very start there is no line before: the one after is taken
        ("b\n", "a\nb\n", (1, 1, 1, 2), "a\nb"),
        ("x", "y", (1, 1, 1, 2), "y"),
    ],
)
def test_line_replacement_is_exact(
    before: str, after: str, region: tuple[int, int, int, int], inserted: str
) -> None:
    replacement = line_replacement(before, after)
    where = replacement["deletedRegion"]
    assert (where["startLine"], where["startColumn"], where["endLine"], where["endColumn"]) == (
        region
    )
    assert replacement["insertedContent"]["text"] == inserted
    assert _apply(before, replacement) == after


def test_a_loosening_that_no_longer_applies_is_no_fix(tmp_path: Path) -> None:
    catalog = "search:\n  type: object\n  properties:\n    query: {type: string, min_length: 3}\n"
    # Half the queries are shorter than 3: the group is hinted loosen-schema, minLength 0.
    queries = ["", "a", "ab", "", "x", "abcd", "hello", "ok"]
    report = make_report(tmp_path, catalog, [("search", {"query": q}) for q in queries])
    (group,) = report.groups
    fixes = verified_fixes(report, 1_000_000)
    (replacement,) = fixes[group.fingerprint]["artifactChanges"][0]["replacements"]
    assert replacement["insertedContent"] == {"text": "    query: {type: string, min_length: 0}"}
    # The file changed since: the tool is gone, the loosening applies nowhere, no fix.
    (tmp_path / "tools.yaml").write_text("other:\n  type: object\n")
    assert verified_fixes(report, 1_000_000) == {}
    # Nor when the file is larger than a catalog may be.
    (tmp_path / "tools.yaml").write_text(catalog)
    assert verified_fixes(report, 10) == {}
