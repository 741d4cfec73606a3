"""A group's hint names the upgrade profile its catalog's shape implies (issue #27, item 6):
Gemini declarations' ``parameters`` go through google-genai's tool path, and a Responses API
function tool without ``strict`` is strict by the API's default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.models import Location, Rule, ToolSchema
from auditor.schema.profiles import fitting_profile
from tests.conftest import run_cli
from tests.reporting import write_inputs

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"q": {"type": "string", "min_length": 3}},
}
CALLS: list[Any] = [("search", {"q": "ab"})]  # min_length wakes up: newly rejected


def _hints(tmp_path: Path, catalog: Any, rules: str, capsys: pytest.CaptureFixture[str]) -> str:
    catalog_path, log_path = write_inputs(tmp_path, json.dumps(catalog), CALLS)
    report = tmp_path / "audit.json"
    code, _, _ = run_cli(
        ["audit", "--schemas", str(catalog_path), "--logs", str(log_path), "--rules", rules,
         "--format", "json", "--output", str(report)],
        capsys,
    )  # fmt: skip
    assert code == 1, "the woken min_length fails the run"
    groups = json.loads(report.read_text(encoding="utf-8"))["groups"]
    return " ".join(json.dumps(group["hint"]) for group in groups)


def test_a_gemini_catalog_names_google_genai(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = {"function_declarations": [{"name": "search", "parameters": SCHEMA}]}
    hints = _hints(tmp_path, catalog, "keyword-case,type-case", capsys)
    assert "--rules keyword-case,type-case,google-genai" in hints
    assert "Tool.model_validate" in hints


def test_a_responses_tool_without_strict_names_openai_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = [{"type": "function", "name": "search", "parameters": SCHEMA}]
    hints = _hints(tmp_path, catalog, "keyword-case,type-case", capsys)
    assert "--rules keyword-case,type-case,openai-strict" in hints


def test_no_tip_where_the_profile_is_applied_or_strict_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini = {"function_declarations": [{"name": "search", "parameters": SCHEMA}]}
    assert "audit with" not in _hints(
        tmp_path, gemini, "keyword-case,type-case,google-genai", capsys
    )
    responses = [{"type": "function", "name": "search", "parameters": SCHEMA, "strict": False}]
    assert "audit with" not in _hints(tmp_path, responses, "keyword-case,type-case", capsys)


@pytest.mark.parametrize(
    ("shape", "pointer", "strict", "expected"),
    [
        ("gemini", "/function_declarations/0/parameters", None, Rule.GOOGLE_GENAI),
        # parameters_json_schema is sent as JSON Schema, never through types.Schema
        ("gemini", "/function_declarations/0/parameters_json_schema", None, None),
        ("openai-responses", "/0/parameters", None, Rule.OPENAI_STRICT),
        ("openai-responses", "/0/parameters", True, None),
        ("openai", "/0/function/parameters", None, None),
    ],
)
def test_which_profile_a_shape_implies(
    shape: str, pointer: str, strict: bool | None, expected: Rule | None
) -> None:
    tool = ToolSchema("t", {}, Location("tools.json"), pointer, shape, strict=strict)
    found = fitting_profile(tool)
    assert (found[0] if found else None) is expected
