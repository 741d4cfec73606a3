"""`auditor rule`, the registry behind it, and the SARIF rule metadata it feeds."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from auditor import __version__
from auditor.models import Rule
from auditor.project import DISTRIBUTION, HOME, rules_anchor
from auditor.report import RENDERERS, Format, render
from auditor.report.lint import LINT_RENDERERS, LintFormat
from auditor.report.lint import sarif as lint_sarif
from auditor.report.rules import (
    ALL_RULES,
    AUDIT_RULES,
    LINT_RULES,
    REWRITE_RULES,
    find_rule,
    fixable,
)
from auditor.schema.findings import RULES as FINDING_RULES
from tests.conftest import ROOT, run_cli
from tests.samples import run, scenarios

RULES_PAGE = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
SARIF_SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-2.1.0.json").read_text())


def test_every_code_is_in_the_registry_once() -> None:
    assert set(LINT_RULES) == set(FINDING_RULES)
    assert set(REWRITE_RULES) == set(Rule)
    assert {o.value for o in AUDIT_RULES} == {
        "newly_rejected",
        "schema_error_after",
        "schema_error_before",
        "newly_accepted",
    }
    codes = [rule.code for rule in ALL_RULES]
    assert len(codes) == len(set(codes))


def test_every_rule_has_its_anchor_in_the_rules_page() -> None:
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', RULES_PAGE))
    assert {rule.anchor for rule in ALL_RULES} <= anchors
    assert RULES_PAGE.startswith("# Rules\n")
    assert rules_anchor("kw001") == f"{HOME}/blob/main/docs/rules.md#kw001"
    assert DISTRIBUTION == "tool-schema-auditor"


@pytest.mark.parametrize(
    ("asked", "code"),
    [
        ("KW001", "KW001"),
        ("kw001", "KW001"),
        ("snake-case-keyword", "KW001"),
        ("newly_rejected", "AUD001"),
        ("aud004", "AUD004"),
        ("Keyword-Case", "keyword-case"),
    ],
)
def test_find_rule_by_code_or_name(asked: str, code: str) -> None:
    found = find_rule(asked)
    assert found is not None and found.code == code


def test_rule_explains_a_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["rule", "ty001"], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("TY001 (type-case): lint finding, error\n\n")
    assert FINDING_RULES["TY001"].summary in out
    assert " ".join(out.split()).count("`type: String` is not a JSON type") == 1
    # The address, too long to share a line with "More:", stays whole on a line of its own.
    assert out.endswith(f"More:\n{HOME}/blob/main/docs/rules.md#ty001\n")
    assert max(len(line) for line in out.splitlines()) <= 80


def test_rule_explains_an_outcome_and_a_family(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(["rule", "newly-rejected"], capsys)
    assert out.startswith("AUD001 (newly-rejected): audit outcome, error\n")
    _, out, _ = run_cli(["rule", "openai-strict"], capsys)
    assert out.startswith("openai-strict: rewrite family\n")
    assert out.endswith("#rule-openai-strict\n")


def test_rule_all_lists_every_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["rule", "--all"], capsys)
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines() if not line.startswith(" ")]
    assert listed == [rule.code for rule in ALL_RULES]


@pytest.mark.parametrize("args", [["rule", "ZZ999"], ["rule"], ["rule", "KW001", "--all"]])
def test_rule_refuses_in_one_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(args, capsys)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and err.startswith("auditor: error: ")
    if "ZZ999" in args:
        assert err == "auditor: error: unknown rule ZZ999; `auditor rule --all` lists them\n"


def test_only_what_the_default_families_rewrite_is_fixable() -> None:
    assert [code for code in LINT_RULES if fixable(code)] == ["KW001", "TY001"]
    assert fixable("OA001", frozenset({Rule.OPENAPI}))
    assert not fixable("KW003", frozenset(Rule))


def _check_rules(rules: list[dict[str, object]]) -> None:
    for rule in rules:
        assert set(rule) >= {"id", "name", "shortDescription", "fullDescription", "help"}
        found = find_rule(str(rule["id"]))
        assert found is not None
        assert rule["helpUri"] == f"{HOME}/blob/main/docs/rules.md#{found.anchor}"
        assert rule["help"] == {
            "text": f"{found.summary} {found.doc}",
            "markdown": f"**{found.title()}**: {found.summary}\n\n{found.doc}\n\n"
            f"[Documentation]({found.help_uri})",
        }


def test_audit_sarif_rules_and_driver_carry_the_documentation() -> None:
    report = run(scenarios()[0])
    assert report.groups
    document = json.loads(render(report, Format.SARIF))
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(document)
    driver = document["runs"][0]["tool"]["driver"]
    assert (driver["informationUri"], driver["version"], driver["semanticVersion"]) == (
        HOME,
        __version__,
        __version__,
    )
    assert [r["id"] for r in driver["rules"]] == ["AUD001", "AUD002", "AUD003", "AUD004"]
    assert driver["rules"][0]["defaultConfiguration"] == {"level": "error"}
    assert driver["rules"][3]["defaultConfiguration"] == {"level": "note"}
    _check_rules(driver["rules"])
    results = document["runs"][0]["results"]
    for result, group in zip(results, report.groups, strict=True):
        assert result["ruleId"] == AUDIT_RULES[group.outcome].code
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_lint_sarif_rules_carry_the_documentation() -> None:
    document = json.loads(lint_sarif.render([]))
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(document)
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == HOME
    assert [r["id"] for r in driver["rules"]] == sorted(FINDING_RULES)
    _check_rules(driver["rules"])


def test_every_renderer_resolves_to_a_function() -> None:
    assert set(RENDERERS) == set(Format) and len(RENDERERS) == len(Format)
    assert all(callable(RENDERERS[fmt]) for fmt in Format)
    assert set(LINT_RENDERERS) == set(LintFormat)
    assert all(callable(LINT_RENDERERS[fmt]) for fmt in LintFormat)
