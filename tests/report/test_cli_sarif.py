"""SARIF from `auditor audit`: verified loosenings as fixes, exact by construction."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from auditor.models import Report
from auditor.report.sarif import loosening_fixes
from auditor.report.sarif_log import line_replacement
from auditor.schema import edit
from auditor.schema.diffs import changed_lines, window_change
from auditor.schema.edit import loosening_edits
from tests.conftest import ROOT, run_cli
from tests.reporting import make_report, write_inputs

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
    # Every kind of group: the fixes follow --suggest-patch-kinds as the diff does.
    kinds = ["--suggest-patch-kinds", "loosen-schema,review,contradiction"]
    _, out, _ = run_cli([*args, *kinds, "--format", "sarif", "--output", "-"], capsys)
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
    # Given as an absolute path inside the repository: relative to its root.
    assert change["artifactLocation"] == {
        "uri": "sample_logs/openai_gateway/tools.json",
        "uriBaseId": "%SRCROOT%",
    }
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


@given(
    st.lists(st.sampled_from(["a", "b", ""]), min_size=1, max_size=8),
    st.data(),
)
def test_the_lines_of_a_window_are_the_lines_of_the_whole_texts(
    lines: list[str], data: st.DataObject
) -> None:
    # window_change looks at the replaced lines and the equal ones next to them only; its
    # answer is the one changed_lines gives on both whole texts, even among repeated lines.
    start = data.draw(st.integers(0, len(lines) - 1))
    stop = data.draw(st.integers(start + 1, len(lines)))
    new = data.draw(st.lists(st.sampled_from(["a", "b", "c", ""]), min_size=1, max_size=4))
    before = "\n".join(lines)
    after = "\n".join([*lines[:start], *new, *lines[stop:]])
    assert window_change("p", lines, start, stop, new) == changed_lines("p", before, after)


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


def test_the_fixes_and_the_patch_read_each_catalog_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 100 groups in one catalog made large by a tool no call names: each group's edit is
    # found from the file read, parsed and composed once, not from the whole file again.
    lines = ["padding:", "  type: object", f"  description: {'x' * 40_000}"]
    for t in range(10):
        lines += [f"t{t}:", "  type: object", "  properties:"]
        lines += [f"    p{p}: {{type: string, max_length: 1}}" for p in range(10)]
    arguments = {f"p{p}": "too long" for p in range(10)}
    calls = [(f"t{t}", arguments) for t in range(10) for _ in range(6)]
    catalog, log = write_inputs(tmp_path, "\n".join(lines) + "\n", calls)
    size = catalog.stat().st_size
    read = {"composed": 0, "parsed": 0}
    compose, parse = yaml.compose, edit.parse_document

    def composed(stream: Any, *args: Any, **kwargs: Any) -> Any:
        read["composed"] += len(stream)
        return compose(stream, *args, **kwargs)

    def parsed(path: str, text: str, as_json: bool) -> Any:
        read["parsed"] += len(text)
        return parse(path, text, as_json)

    monkeypatch.setattr(yaml, "compose", composed)
    monkeypatch.setattr(edit, "parse_document", parsed)
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files", "-q"]
    args += ["--old-runtime", "none"]
    code, _, _ = run_cli([*args, "--format", "json", "--output", str(tmp_path / "a.json")], capsys)
    loading = dict(read)  # the audit's own reading of the catalog, without edits
    read.update(composed=0, parsed=0)
    sarif, diff = tmp_path / "a.sarif", tmp_path / "a.diff"
    code, _, _ = run_cli(
        [*args, "--format", "sarif", "--output", str(sarif), "--suggest-patch", str(diff)], capsys
    )
    assert code == 1
    document = json.loads(sarif.read_text())
    assert sum("fixes" in r for r in document["runs"][0]["results"]) == 100
    assert diff.read_text().count("\n+    p") == 100
    assert read["composed"] - loading["composed"] < 1.5 * size  # once, and the edited lines
    assert read["parsed"] - loading["parsed"] < 2.5 * size  # once, and the edits put together


def test_the_report_building_benchmark_runs_at_smoke_size(tmp_path: Path) -> None:
    # benchmarks/report_building.py prints figures; here only that its workloads are what
    # it says (40 groups with a patch each, 20 callers each a group) and it runs to the end.
    script = str(ROOT / "benchmarks" / "report_building.py")
    done = subprocess.run(
        [sys.executable, script, "--groups", "40", "--callers", "20", "--rounds", "1"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = [(line[:36].strip(), line[36:45].strip()) for line in done.stdout.splitlines()[1:]]
    assert rows == [
        ("SARIF with fixes, groups", "40"),
        ("--suggest-patch diff, groups", "40"),
        ("SARIF, callers", "20"),
        ("every other format, callers", "20"),
    ]
    assert all(" s CPU " in line for line in done.stdout.splitlines()[1:])
