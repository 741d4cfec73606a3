"""`auditor schema --lint`: the published schema of `lint --format json`, and real output
validating against it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.report.lint.schema import lint_schema, lint_schema_text
from tests.conftest import ROOT, run_cli

# TY001 (a capitalized type), KW001 (snake_case keywords), KW003 (a misspelt keyword), OA001
# (openapi's nullable): findings of four codes, with and without a known fix.
CATALOG = """\
t:
  type: object
  properties:
    a: {type: String, min_items: 1}
    b: {type: array, minimun: 1, nullable: true}
"""


def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(lint_schema())


def test_the_committed_schema_file_is_the_schema_the_tool_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    committed = (ROOT / "auditor" / "report" / "lint.schema.json").read_text("utf-8")
    assert committed == lint_schema_text(), "run: python3 -m auditor schema --lint > ..."
    code, out, _ = run_cli(["schema", "--lint"], capsys)
    assert (code, out) == (0, committed)
    jsonschema.Draft202012Validator.check_schema(lint_schema())


def test_real_lint_output_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(CATALOG, encoding="utf-8")
    code, out, _ = run_cli(["lint", str(path), "--format", "json"], capsys)
    assert code == 1
    findings = json.loads(out)
    assert {f["code"] for f in findings} >= {"TY001", "KW001", "KW003", "OA001"}
    assert any(f["fix"] is None for f in findings) and any(f["fix"] for f in findings)
    _validator().validate(findings)
    _validator().validate([])  # no findings: an empty array


def _broken(finding: dict[str, Any]) -> list[Any]:
    """Documents that are not lint output, each broken in one way."""
    missing = {k: v for k, v in finding.items() if k != "code"}
    return [
        {"findings": [finding]},  # an object, not the array
        [missing],
        [{**finding, "code": "XX999"}],  # no such code
        [{**finding, "severity": "fatal"}],
        [{**finding, "line": 0}],  # lines count from 1
        [{**finding, "column": "3"}],
        [{**finding, "extra": True}],  # a field the contract does not have
    ]


def test_a_broken_document_fails_the_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(CATALOG, encoding="utf-8")
    _, out, _ = run_cli(["lint", str(path), "--format", "json"], capsys)
    finding = json.loads(out)[0]
    _validator().validate([finding])
    for document in _broken(finding):
        assert not _validator().is_valid(document), document
