"""`auditor lint --format gitlab`: a GitLab Code Quality report, one issue per finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.report.lint.gitlab import render
from auditor.report.source_root import SourceRoot
from auditor.schema.lint import lint_paths
from tests.conftest import run_cli

CATALOG = "t:\n  type: object\n  properties:\n    q: {type: String, min_length: 3}\n"


def test_findings_are_issues_whose_fingerprint_does_not_follow_the_line(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    catalog = tmp_path / "cat" / "tools.yaml"
    catalog.parent.mkdir()
    catalog.write_text(CATALOG, encoding="utf-8")
    where = SourceRoot(tmp_path, tmp_path)
    before = json.loads(render(lint_paths([str(catalog)]).findings, where))
    assert [(i["check_name"], i["severity"]) for i in before] == [
        ("TY001", "major"),
        ("KW001", "major"),
    ]
    assert {json.dumps(i["location"]) for i in before} == {
        json.dumps({"path": "cat/tools.yaml", "lines": {"begin": 4}})
    }
    assert before[1]["description"] == "KW001 `min_length` is ignored: the keyword is `minLength`"
    # Two lines added above: the same findings, two lines down, the same fingerprints.
    catalog.write_text("# a\n# b\n" + CATALOG, encoding="utf-8")
    after = json.loads(render(lint_paths([str(catalog)]).findings, where))
    assert [i["location"]["lines"]["begin"] for i in after] == [6, 6]
    assert [i["fingerprint"] for i in after] == [i["fingerprint"] for i in before]
    assert len({i["fingerprint"] for i in before}) == 2


def test_lint_writes_gitlab(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog = tmp_path / "tools.yaml"
    catalog.write_text(CATALOG, encoding="utf-8")
    code, out, _ = run_cli(["lint", str(catalog), "--format", "gitlab"], capsys)
    assert code == 1
    assert [i["check_name"] for i in json.loads(out)] == ["TY001", "KW001"]
    catalog.write_text("t:\n  type: object\n", encoding="utf-8")
    code, out, _ = run_cli(["lint", str(catalog), "--format", "gitlab"], capsys)
    assert (code, json.loads(out)) == (0, [])
