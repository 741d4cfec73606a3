"""Hints that know the dialect (issue #29, item 4): a ``null`` sent to a ``type`` beside
``nullable: true`` names the rule family that reads ``nullable``, and type names that
``--rules type-alias`` rewrites name that family; neither is named once it is in use."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from auditor.aggregate.hints import nullable_tip, observation_key, rules_option, type_alias_tip
from auditor.models import DEFAULT_RULES, JSON, Observation, Rule, Span
from tests.conftest import run_cli


def _hints(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    catalog: Any,
    calls: list[dict[str, Any]],
    *extra: str,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The JSON report's totals and each group's hint text by tool and keyword."""
    (tmp_path / "tools.json").write_text(json.dumps(catalog), encoding="utf-8")
    lines = "".join(json.dumps(record) + "\n" for record in calls)
    (tmp_path / "calls.jsonl").write_text(lines, encoding="utf-8")
    args = ["audit", "--schemas", "tools.json", "--logs", "calls.jsonl", "--no-report-files"]
    _, out, _ = run_cli([*args, "--format", "json", *extra], capsys)
    report = json.loads(out)
    hints = {f"{g['tool']} {g['keyword']}": g["hint"]["text"] for g in report["groups"]}
    return report["totals"], hints


FLIGHTS = {
    "type": "OBJECT",
    "properties": {
        "origin": {"type": "STRING"},
        "return_date": {"type": "STRING", "nullable": True},
    },
}
"""A Gemini-style schema: the old runtime ignored `STRING` (not a JSON type), type-case makes
it `string`, and `nullable: true` means nothing to JSON Schema."""
OPENAI_FLIGHTS = [{"type": "function", "function": {"name": "search", "parameters": FLIGHTS}}]
GEMINI_FLIGHTS = {"tools": [{"function_declarations": [{"name": "search", "parameters": FLIGHTS}]}]}
ONE_WAY = {"tool": "search", "arguments": {"origin": "SFO", "return_date": None}}
ROUND_TRIP = {"tool": "search", "arguments": {"origin": "SFO", "return_date": "2025-04-17"}}
OPENAPI_TIP = (
    "But `nullable: true` stands beside `type` at `/properties/return_date`: OpenAPI's way to "
    "allow `null`, which JSON Schema ignores; where the runtime reads it, as OpenAPI 3.0 does, "
    "audit with `--rules keyword-case,type-case,openapi`."
)


def test_a_null_sent_beside_nullable_names_openapi_and_openapi_accepts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    calls = [ROUND_TRIP] * 9 + [ONE_WAY]
    totals, hints = _hints(tmp_path, capsys, OPENAI_FLIGHTS, calls)
    # `type: string` rejects the one-way search's null: newly rejected, 1 of 10 calls.
    assert totals["newly_rejected"] == 1
    assert hints["search type"].endswith(OPENAPI_TIP)
    # With the family that reads `nullable`, `type` becomes ["string", "null"]: no group.
    totals, hints = _hints(
        tmp_path, capsys, OPENAI_FLIGHTS, calls, "--rules", "keyword-case,type-case,openapi"
    )
    assert totals["newly_rejected"] == 0 and hints == {}


def test_a_value_other_than_null_gets_no_nullable_tip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # A number sent to the string is rejected whatever reads `nullable`.
    number = {"tool": "search", "arguments": {"origin": "SFO", "return_date": 20250417}}
    _, hints = _hints(tmp_path, capsys, OPENAI_FLIGHTS, [ROUND_TRIP] * 9 + [number])
    assert "nullable" not in hints["search type"]


def test_a_gemini_declaration_names_google_genai_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _, hints = _hints(tmp_path, capsys, GEMINI_FLIGHTS, [ROUND_TRIP] * 9 + [ONE_WAY])
    hint = hints["search type"]
    assert hint.endswith(
        "as google-genai's types.Schema does, audit with "
        "`--rules keyword-case,type-case,google-genai`."
    )
    # The catalog's shape implies the same profile: its own tip is not added a second time.
    assert "transforms before the API sees it" not in hint
    assert hint.count("`--rules") == 1


BFCL = [
    {
        "name": "calculate_area",
        "description": "The area of a triangle.",
        "parameters": {
            "type": "dict",
            "properties": {"base": {"type": "float"}, "unit": {"type": "string"}},
            "required": ["base"],
        },
    }
]
"""BFCL's functions: Python type names (`dict`, `float`) where JSON Schema has `object` and
`number`."""


def test_bfcl_type_aliases_name_type_alias_which_makes_the_schema_usable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    calls = [{"tool": "calculate_area", "arguments": {"base": 2.5, "unit": "cm"}}] * 3
    totals, hints = _hints(tmp_path, capsys, BFCL, calls)
    # `dict` fails the meta-schema once the schema is read as JSON Schema: every call meets
    # an unusable schema; the hint names the family that rewrites the names.
    assert totals["schema_error_after"] == 3
    [hint] = hints.values()
    assert (
        "The schema names types as a programming language does (`dict` → `object`, `float` → "
        "`number`), which are no JSON types: audit with "
        "`--rules keyword-case,type-case,type-alias`, which rewrites them"
    ) in hint
    totals, hints = _hints(
        tmp_path, capsys, BFCL, calls, "--rules", "keyword-case,type-case,type-alias"
    )
    assert totals["accepted"] == 3 and hints == {}


def test_the_tips_are_none_where_their_family_runs_or_nothing_calls_for_them() -> None:
    schema: JSON = {"type": "object", "properties": {"a": {"type": "string", "nullable": True}}}
    sent = Counter({observation_key(Observation("null")): 1})
    found = nullable_tip("type", "/properties/a/type", schema, sent, DEFAULT_RULES)
    assert found is not None and found[0] is Rule.OPENAPI
    assert Span.code("--rules keyword-case,type-case,openapi") in found[1].spans
    for rules in ({Rule.OPENAPI}, {Rule.GOOGLE_GENAI}, {Rule.GOOGLE_GENAI_RESPONSE_SCHEMA}):
        assert nullable_tip("type", "/properties/a/type", schema, sent, rules) is None
    assert nullable_tip("enum", "/properties/a/enum", schema, sent, DEFAULT_RULES) is None
    no_nullable: JSON = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert nullable_tip("type", "/properties/a/type", no_nullable, sent, DEFAULT_RULES) is None
    assert type_alias_tip({"type": "dict"}, DEFAULT_RULES) is not None
    assert type_alias_tip({"type": "dict"}, DEFAULT_RULES | {Rule.TYPE_ALIAS}) is None
    # `any` is removed by type-alias; `text` is a likely name lint suggests, not one it rewrites.
    assert type_alias_tip({"type": "any"}, DEFAULT_RULES) is not None
    assert type_alias_tip({"type": "text"}, DEFAULT_RULES) is None
    assert rules_option({Rule.OPENAI_STRICT}, Rule.TYPE_ALIAS) == "--rules type-alias,openai-strict"
