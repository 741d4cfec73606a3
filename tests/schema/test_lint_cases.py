"""Lint findings against hand-reasoned case files, one per rule, in tests/cases/lint/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from auditor.schema.findings import RULES
from auditor.schema.lint import lint_file
from tests.conftest import CASES, load_cases


@pytest.mark.parametrize("case", load_cases("lint"))
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / case["file"]
    path.write_bytes(case["text"].encode("utf-8"))
    located, problem = lint_file(str(path))
    assert problem is None, problem
    got = [
        {
            "code": f.finding.code,
            "tool": f.tool,
            "pointer": f.finding.pointer,
            "line": f.location.line,
            "column": f.location.column,
            "fix": f.finding.fix,
        }
        for f in sorted(located, key=lambda f: f.sort_key)
    ]
    assert got == case["findings"]


def test_every_rule_has_a_case_file_with_positive_and_negative_cases() -> None:
    for code in RULES:
        path = CASES / "lint" / f"{code}.yaml"
        assert path.exists(), f"no case file for {code}"
        cases = [p.values[0] for p in load_cases("lint") if p.id and p.id.startswith(f"{code}:")]
        hits = [any(f["code"] == code for f in c["findings"]) for c in cases]
        assert any(hits) and not all(hits), f"{code} needs cases with and without it"


def test_every_rule_is_documented() -> None:
    for rule in RULES.values():
        assert rule.summary and rule.doc and "Fix" in rule.doc, rule.code
