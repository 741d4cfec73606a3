"""Upgrade profiles: their documented sources, coverage of the keys they add, and the refusal
of ``normalize --write`` to add keys. Their rewrites are in tests/cases/normalize/profile_*.yaml,
their replay in tests/cases/replay/profiles.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from auditor.aggregate.pipeline import prepare
from auditor.models import JSON, Call, Edit, Location, Rule, ToolSchema
from auditor.schema.normalize import normalize
from auditor.schema.profiles import PROFILES
from tests.conftest import ROOT, run_cli

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


def test_every_profile_names_its_source_version_and_steps_in_the_docs() -> None:
    section = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")
    assert set(PROFILES) == {Rule.GOOGLE_GENAI, Rule.OPENAI_STRICT, Rule.CLOSE_OBJECTS}
    for rule, profile in PROFILES.items():
        assert profile.rule is rule and profile.steps
        assert f"`{rule.value}`" in section, rule
        if rule is not Rule.CLOSE_OBJECTS:  # no SDK behind it
            commit = profile.version.split()[1]
            assert commit in section, f"{rule.value}: docs/profiles.md must name {commit}"


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
