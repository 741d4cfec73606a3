"""The report schema comes from the code: its enums are the code's, and every report the
tool can write validates against it, whatever the rule families and the old runtime."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.models import RULE_FAMILIES, OldRuntime, Outcome, Rule
from auditor.report.json_report import SCHEMA_VERSION
from auditor.report.schema import COUNTS, ENUMS, report_schema, schema_text
from auditor.schema.profile_models import MODELS
from auditor.schema.profiles import PROFILES
from tests.conftest import ROOT, run_cli
from tests.reporting import write_inputs

# Something for every rule family to rewrite: OBJECT (type-case), str (type-alias),
# min_length/max_length (keyword-case), nullable (openapi), defs/ref (gemini); the upgrade
# profiles: a `$defs` google-genai's tool path refuses, properties not all required
# (openai-strict), properties without additionalProperties (close-objects).
CATALOG = """\
t:
  type: OBJECT
  properties:
    a: {type: str, min_length: 2}
    b: {type: integer, nullable: true}
    c: {ref: "#/$defs/d"}
  defs:
    d: {type: string, max_length: 1}
"""
CALLS: list[Any] = [("t", {"a": "x"}), ("t", {"b": None}), ("t", {"c": "xy"})]


DIALECTS = [rule for rule in RULE_FAMILIES if rule not in PROFILES]
"""The spelling families; the upgrade profiles change what a schema accepts on top of them."""


def _enums(schema: Any, pointer: str = "") -> dict[str, list[Any]]:
    """Every ``enum`` in ``schema``, by the pointer of the schema holding it."""
    found: dict[str, list[Any]] = {}
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "enum":
                found[pointer] = value
            else:
                found.update(_enums(value, f"{pointer}/{key}"))
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            found.update(_enums(value, f"{pointer}/{index}"))
    return found


def test_the_committed_schema_file_is_the_schema_the_tool_prints() -> None:
    committed = (ROOT / "auditor" / "report" / "report.schema.json").read_text("utf-8")
    assert committed == schema_text(), "run: python3 -m auditor schema > auditor/report/..."


def test_every_enum_of_the_schema_is_one_of_the_codes_enums() -> None:
    committed = json.loads((ROOT / "auditor" / "report" / "report.schema.json").read_text())
    found = _enums(committed)
    # No enum is written by hand: each stands where ENUMS says and lists the code's values.
    assert set(found) == set(ENUMS)
    for pointer, enum in ENUMS.items():
        assert found[pointer] == [member.value for member in enum], pointer
    assert found["/$defs/rewrite/properties/rule"] == [
        "keyword-case", "type-case", "type-alias", "openapi", "gemini",
        "google-genai", "google-genai-response-schema", "openai-strict", "openai-agents",
        "anthropic-strict", "langchain-strict", "close-objects", "edit", "runtime",
    ]  # fmt: skip


def test_the_counts_have_one_required_count_per_outcome() -> None:
    counts = report_schema()
    for name in COUNTS.split("/")[1:]:
        counts = counts[name]
    expected = ["calls", *(outcome.value for outcome in Outcome)]
    assert counts["required"] == expected
    assert list(counts["properties"]) == expected
    assert counts["additionalProperties"] is False


def _audit_json(
    tmp_path: Path, rules: list[Rule], runtime: OldRuntime, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    catalog, log = write_inputs(tmp_path, CATALOG, CALLS)
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files"]
    args += ["--rules", ",".join(rule.value for rule in rules), "--old-runtime", runtime.value]
    code, out, err = run_cli(
        [*args, "--fail-on", "never", "--format", "json", "--output", "-"], capsys
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    jsonschema.Draft202012Validator(report_schema()).validate(report)
    return report


@pytest.mark.parametrize("runtime", list(OldRuntime), ids=[r.value for r in OldRuntime])
@pytest.mark.parametrize("rule", RULE_FAMILIES, ids=[r.value for r in RULE_FAMILIES])
def test_reports_of_every_rule_family_and_old_runtime_validate(
    tmp_path: Path, rule: Rule, runtime: OldRuntime, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _audit_json(tmp_path, [rule], runtime, capsys)
    # The catalog has something for each family, and only the chosen family rewrites; but
    # anthropic's transform_schema refuses `type: OBJECT` (none of its seven type names),
    # and a refused schema makes every call unusable.
    rules = {r["rule"] for tool in report["tools"] for r in tool["rewrites"]}
    if rule is Rule.ANTHROPIC_STRICT:
        assert rules == set()
        assert report["totals"]["schema_error_after"] == len(CALLS)
    else:
        assert rules == {rule.value}
    assert report["old_runtime"] == runtime.value
    assert report["totals"]["calls"] == len(CALLS)


@pytest.mark.parametrize(
    ("runtime", "outcomes"),
    [
        # lenient: OBJECT, str, nullable, ref and the snake_case keywords enforced nothing, but
        # integer did: a is too short now, b's null is newly allowed, c reaches maxLength 1.
        (
            OldRuntime.LENIENT,
            {Outcome.NEWLY_REJECTED: 2, Outcome.NEWLY_ACCEPTED: 1},
        ),
        # none: every call passed before, so b's null is simply accepted.
        (OldRuntime.NONE, {Outcome.NEWLY_REJECTED: 2, Outcome.ACCEPTED: 1}),
        # standard: OBJECT and str fail the meta-schema, the normalized schema does not.
        (OldRuntime.STANDARD, {Outcome.SCHEMA_ERROR_BEFORE: 3}),
    ],
    ids=["lenient", "none", "standard"],
)
def test_a_report_with_every_spelling_family_validates(
    tmp_path: Path,
    runtime: OldRuntime,
    outcomes: dict[Outcome, int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = _audit_json(tmp_path, DIALECTS, runtime, capsys)
    rules = {r["rule"] for tool in report["tools"] for r in tool["rewrites"]}
    assert rules == {rule.value for rule in DIALECTS}
    expected = {outcome.value: outcomes.get(outcome, 0) for outcome in Outcome}
    assert report["totals"] == {"calls": len(CALLS), **expected}


@pytest.mark.parametrize("runtime", list(OldRuntime), ids=[r.value for r in OldRuntime])
def test_a_report_with_every_family_and_every_profile_validates(
    tmp_path: Path, runtime: OldRuntime, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _audit_json(tmp_path, list(RULE_FAMILIES), runtime, capsys)
    # openai-strict closes the object before close-objects; google-genai's tool path, the
    # first model, refuses the `$defs` gemini wrote (types.Schema spells it `defs`), and a
    # refused schema is rewritten by no later model: the rest all rewrite something.
    rules = {r["rule"] for tool in report["tools"] for r in tool["rewrites"]}
    models = set(MODELS)
    assert rules == {r.value for r in RULE_FAMILIES} - models - {Rule.CLOSE_OBJECTS}
    assert report["totals"]["calls"] == len(CALLS)


def test_the_report_says_its_schema_version_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, log = write_inputs(tmp_path, CATALOG, CALLS)
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files", "-q"]
    _, out, _ = run_cli([*args, "--format", "json", "--output", "-"], capsys)
    report = json.loads(out)
    assert next(iter(report)) == "schema_version"
    assert report["schema_version"] == SCHEMA_VERSION == 1
    validator = jsonschema.Draft202012Validator(report_schema())
    validator.validate(report)
    # A report of another contract, or one that does not say, is not this schema's.
    for other in ({**report, "schema_version": 2}, {**report, "schema_version": "1"}):
        assert not validator.is_valid(other)
    del report["schema_version"]
    assert not validator.is_valid(report)
