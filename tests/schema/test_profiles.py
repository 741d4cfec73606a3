"""Upgrade profiles: their documented sources and functions, coverage of the keys they add,
``normalize --diff`` showing them and the refusal of ``normalize --write`` to add them. Their
rewrites are in tests/cases/normalize/profile_*.yaml, their replay in
tests/cases/replay/profiles.yaml."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.aggregate.pipeline import prepare
from auditor.models import JSON, Call, Edit, Location, Rule, ToolSchema
from auditor.schema.normalize import normalize
from auditor.schema.profile_models import MODELS
from auditor.schema.profiles import PROFILES
from tests.conftest import ROOT, run_cli
from tests.schema import sdk_corpus

CATALOG = """\
lookup:
  type: object
  properties:
    city: {type: string}
    opts:
      type: object
      properties:
        units: {type: string}
"""


def test_every_profile_names_its_function_version_and_steps_in_the_docs() -> None:
    section = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")
    assert set(PROFILES) == {
        Rule.GOOGLE_GENAI,
        Rule.GOOGLE_GENAI_RESPONSE_SCHEMA,
        Rule.GOOGLE_GENAI_MCP,
        Rule.OPENAI_STRICT,
        Rule.OPENAI_AGENTS,
        Rule.ANTHROPIC_STRICT,
        Rule.LANGCHAIN_STRICT,
        Rule.LITELLM_GEMINI,
        Rule.PYDANTIC_AI_GOOGLE,
        Rule.CLOSE_OBJECTS,
    }
    for rule, profile in PROFILES.items():
        assert profile.rule is rule and profile.steps
        assert f"## `{rule.value}`" in section, rule
        if rule is Rule.CLOSE_OBJECTS:  # no SDK behind it
            assert profile.follows is None
            continue
        follows = profile.follows
        assert follows is not None, f"{rule.value} names the SDK function it follows"
        body = " ".join(section.split(f"## `{rule.value}`")[1].split("\n## ")[0].split())
        for named in (f"{follows.module}.{follows.call}", follows.versions, profile.version):
            assert named in body, f"{rule.value}: docs/profiles.md must name {named}"
        for item in profile.not_reproduced:
            # The docs say the same: each item's first words stand in the section.
            assert " ".join(item.split()[:4]) in body, (rule.value, item)


def test_auditor_rule_prints_the_function_followed_and_the_versions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for rule, profile in PROFILES.items():
        code, out, _ = run_cli(["rule", rule.value], capsys)
        assert code == 0
        flat = " ".join(out.split())
        if profile.follows is None:
            assert "Follows no SDK." in flat
        else:
            assert f"{profile.follows.module}.{profile.follows.call}" in flat, rule
            assert f"{profile.follows.package} {profile.follows.versions}" in flat, rule


@pytest.mark.parametrize("rule", [Rule.CLOSE_OBJECTS, Rule.OPENAI_STRICT])
def test_normalize_write_refuses_a_profile_that_adds_keys(
    rule: Rule, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.yaml"
    catalog.write_text(CATALOG, encoding="utf-8")
    code, _, err = run_cli(["normalize", str(catalog), "--write", "--rules", rule.value], capsys)
    assert code == 2
    assert f"--rules {rule.value} adds `" in err
    assert "normalize does not add keys" in err
    assert catalog.read_text(encoding="utf-8") == CATALOG, "the file is left alone"


def test_normalize_diff_shows_the_keys_a_profile_adds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.yaml"
    catalog.write_text(CATALOG, encoding="utf-8")
    code, out, _ = run_cli(
        ["normalize", str(catalog), "--diff", "--rules", "close-objects"], capsys
    )
    # opts and the root both end on the last line: opts's key goes first, at its indentation,
    # then the root's; nothing else in the file moves.
    assert code == 1
    assert out == (
        f"--- {catalog}\n+++ {catalog}\n@@ -6,3 +6,5 @@\n"
        "       type: object\n"
        "       properties:\n"
        "         units: {type: string}\n"
        "+      additionalProperties: false\n"
        "+  additionalProperties: false\n"
    )
    assert catalog.read_text(encoding="utf-8") == CATALOG, "--diff writes nothing"


def test_normalize_diff_shows_openai_strict_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(
        '{"t": {"type": "object", "properties": {"q": {"type": "string"}, '
        '"n": {"type": "integer", "default": null}}, "required": ["q"]}}\n',
        encoding="utf-8",
    )
    code, out, _ = run_cli(
        ["normalize", str(catalog), "--diff", "--rules", "openai-strict"], capsys
    )
    # n was optional: made required, its null default dropped; the object closed.
    assert code == 1
    assert out.splitlines()[-1] == (
        '+{"t": {"type": "object", "properties": {"q": {"type": "string"}, '
        '"n": {"type": "integer"}}, "required": ["q", "n"], '
        '"additionalProperties": false}}'
    )
    check, _, _ = run_cli(
        ["normalize", str(catalog), "--check", "--rules", "openai-strict"], capsys
    )
    assert check == 1, "--check counts the file as one that would change"


def test_normalize_names_a_schema_the_profile_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.yaml"
    text = "lookup:\n  type: object\n  properties:\n    id: {oneOf: [{type: string}]}\n"
    catalog.write_text(text, encoding="utf-8")
    code, out, err = run_cli(
        ["normalize", str(catalog), "--diff", "--rules", "google-genai"], capsys
    )
    # types.Schema has no oneOf field: the SDK raises, and there is no new schema to show.
    assert code == 2
    assert out == ""
    assert (
        "tool lookup: google-genai refuses the schema: Extra inputs are not permitted "
        "(parameters.properties.id.oneOf)"
    ) in err
    assert catalog.read_text(encoding="utf-8") == text


def test_an_added_keyword_is_covered_when_a_call_reaches_it() -> None:
    schema: JSON = yaml.safe_load(CATALOG)["lookup"]
    tool = ToolSchema("lookup", schema, Location("tools.yaml"), "/lookup", "mapping")
    replay = prepare([tool], frozenset({Rule.CLOSE_OBJECTS}))["lookup"]
    rewrites = replay.normalized.rewrites
    assert [(r.new_pointer, r.edit) for r in rewrites] == [
        ("/properties/opts/additionalProperties", Edit.ADD),
        ("/additionalProperties", Edit.ADD),
    ]
    # The root's additionalProperties runs on every object; the inner one only with opts.
    # (Indices from len(rewrites) on are the new schema's constraints: left out here.)
    one = replay.reached_rewrites(Call("x:1", "lookup", {"city": "Oslo"}))
    assert one & {0, 1} == {1}
    both = Call("x:2", "lookup", {"city": "Oslo", "opts": {"units": "metric"}})
    assert replay.reached_rewrites(both) & {0, 1} == {0, 1}


def test_profiles_leave_data_and_their_input_alone() -> None:
    schema: JSON = {
        "type": "object",
        "properties": {"p": {"type": "string", "enum": ["a"], "default": None}},
        "examples": [{"properties": {}, "type": "object"}],
    }
    before = repr(schema)
    result = normalize(schema, frozenset(PROFILES))
    assert repr(schema) == before
    assert isinstance(result.schema, dict)
    assert result.schema["examples"] == [{"properties": {}, "type": "object"}]


OLD_SEARCH: dict[str, JSON] = {"type": "object", "properties": {"q": {"type": "string"}}}


def _audit_new_catalog(
    tmp_path: Path, new: JSON, capsys: pytest.CaptureFixture[str], *rules: str
) -> tuple[int, dict[str, Any]]:
    """``auditor audit --schemas A --new-schemas B [--rules ...]``: A is ``OLD_SEARCH``,
    one call ``{"q": "abc"}``; the exit code and the JSON report."""
    old, changed, log = tmp_path / "old.json", tmp_path / "new.json", tmp_path / "calls.jsonl"
    old.write_text(json.dumps({"search": OLD_SEARCH}), encoding="utf-8")
    changed.write_text(json.dumps({"search": new}), encoding="utf-8")
    log.write_text(json.dumps({"tool": "search", "arguments": {"q": "abc"}}) + "\n", "utf-8")
    args = ["audit", "--schemas", str(old), "--new-schemas", str(changed), "--logs", str(log)]
    args += ["--no-report-files", "--format", "json", "--output", "-"]
    args += ["--rules", ",".join(rules)] if rules else []
    code, out, _ = run_cli(args, capsys)
    report: dict[str, Any] = json.loads(out)
    return code, report


def test_a_profile_transforms_the_new_catalogs_of_a_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # google-genai's tool path reads max_length as maxLength: "abc" is too long for the new
    # catalog as the SDK sends it; as written, max_length is no keyword and constrains nothing.
    new: JSON = {"type": "object", "properties": {"q": {"type": "string", "max_length": 2}}}
    code, report = _audit_new_catalog(tmp_path, new, capsys, "google-genai")
    assert (code, report["totals"]["newly_rejected"]) == (1, 1)
    assert [p["profile"] for p in report["change"]["profiles"]] == ["google-genai"]
    assert report["change"]["kind"] == "catalogs"
    code, report = _audit_new_catalog(tmp_path, new, capsys)
    assert (code, report["totals"]["accepted"]) == (0, 1)
    assert "profiles" not in report["change"]


def test_a_new_catalog_the_profile_refuses_makes_its_calls_unusable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `$schema` is no field of types.Schema: the tool path refuses the new catalog's tool.
    new: JSON = {"$schema": "https://json-schema.org/draft/2020-12/schema", **OLD_SEARCH}
    code, report = _audit_new_catalog(tmp_path, new, capsys, "google-genai")
    assert (code, report["totals"]["schema_error_after"]) == (1, 1)
    code, report = _audit_new_catalog(tmp_path, new, capsys)
    assert (code, report["totals"]["accepted"]) == (0, 1)


@pytest.mark.parametrize("rule", list(MODELS), ids=[rule.value for rule in MODELS])
def test_every_model_is_pure_and_writes_json_on_the_differential_corpus(rule: Rule) -> None:
    # The SDKs mutate their argument; the models work on a copy, and give the same schema,
    # rewrites and refusal every time (the differential itself needs the SDKs installed).
    follows = PROFILES[rule].follows
    assert follows is not None, rule
    for name, schema in sdk_corpus.corpus():
        written = copy.deepcopy(schema)
        first, second = normalize(schema, {rule}), normalize(schema, {rule})
        assert schema == written, name
        assert first == second, name
        json.dumps(first.schema, allow_nan=False)
        if first.refusal is not None:
            assert first.refusal.startswith(f"{follows.package} refuses the schema: "), name
