"""`auditor lint` and `auditor normalize` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import validators

from tests.conftest import ROOT, run_cli

CLASSIC = """\
# a catalog written for a framework that never checked it
read_files:
  type: object
  properties:
    path: {type: String}          # capitalized type
    limit: {type: array, min_items: 1}
    mode:
      any_of: [{type: string, enum: [fast]}, {type: "null"}]
  additional_properties: false
"""
SARIF_SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-2.1.0.json").read_text())


@pytest.fixture
def classic(tmp_path: Path) -> Path:
    path = tmp_path / "tools.yaml"
    path.write_text(CLASSIC)
    return path


def test_lint_classic_example_gives_exactly_four_findings(
    classic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(["lint", str(classic)], capsys)
    assert code == 1
    assert out.splitlines() == [
        f"{classic}:5:12: TY001 type `String` is not a JSON type: it is `string`",
        f"{classic}:6:26: KW001 `min_items` is ignored: the keyword is `minItems`",
        f"{classic}:8:7: KW001 `any_of` is ignored: the keyword is `anyOf`",
        f"{classic}:9:3: KW001 `additional_properties` is ignored: the keyword is "
        "`additionalProperties`",
        # TY001 and KW001 are what normalize's default families rewrite
        "4 findings in 1 file; 4 fixable with `auditor normalize --write`",
    ]


def test_lint_summary_counts_files_and_only_what_normalize_fixes(
    tmp_path: Path, classic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.yaml"
    # KW003 (a misspelt keyword) and OA001 (openapi, not a default family): nothing
    # `normalize --write` would fix; the one KW001 is.
    other.write_text("t:\n  type: array\n  minimun: 1\n  nullable: true\n  max_items: 2\n")
    code, out, _ = run_cli(["lint", str(classic), str(other)], capsys)
    assert code == 1
    assert (
        out.splitlines()[-1] == "7 findings in 2 files; 5 fixable with `auditor normalize --write`"
    )
    code, out, _ = run_cli(["lint", str(other), "--select", "KW003"], capsys)
    assert out.splitlines()[-1] == "1 finding in 1 file"
    _, out, _ = run_cli(["lint", str(other), "--format", "json"], capsys)
    assert len(json.loads(out)) == 3, "machine formats carry no summary line"


def test_lint_clean_catalog_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"t": {"type": "object", "properties": {"min_items": {}}}}))
    # A clean run says so in one line (a silent run looks like one that read nothing).
    assert run_cli(["lint", str(path)], capsys) == (0, "No findings in 1 catalog file.\n", "")


def test_lint_select_and_ignore(classic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(["lint", str(classic), "--select", "TY"], capsys)
    assert [line.split()[1] for line in out.splitlines()[:-1]] == ["TY001"]
    code, out, _ = run_cli(["lint", str(classic), "--ignore", "KW001,TY001"], capsys)
    assert (code, out) == (0, "No findings in 1 catalog file.\n")
    code, _, err = run_cli(["lint", str(classic), "--select", "ZZ9"], capsys)
    assert code == 2 and "unknown finding code ZZ9" in err


def test_lint_json_format(classic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(["lint", str(classic), "--format", "json"], capsys)
    first = json.loads(out)[0]
    assert first == {
        "code": "TY001",
        "name": "type-case",
        "severity": "error",
        "tool": "read_files",
        "pointer": "/properties/path/type",
        "file": str(classic),
        "line": 5,
        "column": 12,
        "message": "type `String` is not a JSON type: it is `string`",
        "fix": "string",
    }


def test_lint_sarif_is_valid_sarif_2_1_0(classic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(["lint", str(classic), "--format", "sarif"], capsys)
    log = json.loads(out)
    validator = validators.validator_for(SARIF_SCHEMA)(SARIF_SCHEMA)
    assert list(validator.iter_errors(log)) == []
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["TY001", "KW001", "KW001", "KW001"]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 5,
        "startColumn": 12,
    }


def test_sarif_validation_would_catch_a_broken_log() -> None:
    validator = validators.validator_for(SARIF_SCHEMA)(SARIF_SCHEMA)
    assert list(validator.iter_errors({"version": "2.1.0", "runs": [{"results": []}]}))


def test_lint_github_annotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a,b.yaml"
    path.write_text("t:\n  min_items: 1\n")
    _, out, _ = run_cli(["lint", str(path), "--format", "github"], capsys)
    escaped = str(path).replace(",", "%2C")
    assert out == (
        f"::error file={escaped},line=2,col=3,title=KW001 snake-case-keyword::"
        "`min_items` is ignored: the keyword is `minItems`\n"
    )


def test_lint_unusable_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{")
    code, _, err = run_cli(["lint", str(path)], capsys)
    assert code == 2 and f"{path}:1:2: invalid JSON" in err and "Traceback" not in err


def test_normalize_diff_check_write(classic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["normalize", str(classic), "--diff"], capsys)
    assert code == 1
    assert "-    path: {type: String}          # capitalized type" in out
    assert "+    path: {type: string}          # capitalized type" in out
    code, out, _ = run_cli(["normalize", str(classic), "--check"], capsys)
    assert (code, out) == (1, f"would normalize {classic} (4 rewrites)\n")
    assert classic.read_text() == CLASSIC, "--check and --diff must not write"
    code, out, err = run_cli(["normalize", str(classic), "--write"], capsys)
    assert (code, out, err) == (0, "", f"auditor: normalized {classic} (4 rewrites)\n")
    assert classic.read_text() == (
        CLASSIC.replace("String", "string")
        .replace("min_items", "minItems")
        .replace("any_of", "anyOf")
        .replace("additional_properties", "additionalProperties")
    )
    assert run_cli(["normalize", str(classic), "--check"], capsys) == (0, "", "")
    assert run_cli(["lint", str(classic)], capsys)[0] == 0


def test_normalize_leaves_an_unparseable_file_untouched(
    tmp_path: Path, classic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("t: [unclosed\n")
    code, _, err = run_cli(["normalize", str(broken), str(classic), "--write"], capsys)
    assert code == 2
    assert broken.read_text() == "t: [unclosed\n"
    assert f"{broken}:" in err and "invalid YAML" in err
    assert f"auditor: normalized {classic}" in err


@pytest.mark.parametrize("mode", ["--check", "--diff", "--write"])
def test_normalize_names_the_line_and_column_of_broken_yaml(
    tmp_path: Path, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.yaml"
    # The flow sequence opened on line 2 is never closed: the parser fails at the end of
    # the text, line 3 column 1.
    broken.write_text("t:\n  enum: [a, b\n")
    code, out, err = run_cli(["normalize", str(broken), mode], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"auditor: error: {broken}:3:1: invalid YAML: "), err


def test_normalize_diff_shows_only_changed_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 300 lines, a third of them `type: string`: difflib's autojunk heuristic would treat
    # that line as junk and show unchanged copies of it removed and added again.
    lines = ["t:\n", "  type: object\n", "  properties:\n"]
    for i in range(99):
        keyword = "min_length" if i % 10 == 0 else "minLength"
        lines += [f"    p{i}:\n", "      type: string\n", f"      {keyword}: 1\n"]
    catalog = tmp_path / "tools.yaml"
    catalog.write_text("".join(lines))
    code, out, _ = run_cli(["normalize", str(catalog), "--diff"], capsys)
    assert code == 1
    removed = [line for line in out.splitlines() if line.startswith("-") and line[:3] != "---"]
    added = [line for line in out.splitlines() if line.startswith("+") and line[:3] != "+++"]
    assert removed == ["-      min_length: 1"] * 10
    assert added == ["+      minLength: 1"] * 10


def test_normalize_help_documents_its_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["normalize", "--help"], capsys)
    text = " ".join(out.replace("│", " ").split())
    assert code == 0
    assert "Exits 0 when nothing would change (--check, --diff) or every file was written" in text
    assert "1 when a file would change (--check, --diff); 2 when a file cannot be read" in text


def test_normalize_needs_exactly_one_mode(
    classic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["normalize", str(classic)], capsys)[0] == 2
    assert run_cli(["normalize", str(classic), "--diff", "--write"], capsys)[0] == 2
    code, _, err = run_cli(["normalize", str(classic), "--check", "--rules", "nope"], capsys)
    assert code == 2 and "unknown rule family nope" in err


def test_normalize_keeps_the_file_mode(classic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    classic.chmod(0o640)
    run_cli(["normalize", str(classic), "--write"], capsys)
    assert classic.stat().st_mode & 0o777 == 0o640


def test_audit_rules_choose_the_normalization(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.yaml"
    catalog.write_text("t:\n  type: object\n  min_properties: 1\n  nullable: true\n")
    log = tmp_path / "calls.jsonl"
    log.write_text('{"tool": "t", "arguments": {}}\n{"tool": "t", "arguments": null}\n')
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--format", "json"]
    _, out, _ = run_cli([*args, "--no-report-files"], capsys)
    assert json.loads(out)["totals"]["newly_rejected"] == 1
    _, out, _ = run_cli([*args, "--no-report-files", "--rules", "type-case"], capsys)
    assert json.loads(out)["totals"]["newly_rejected"] == 0
    _, out, _ = run_cli([*args, "--no-report-files", "--rules", "keyword-case,openapi"], capsys)
    totals = json.loads(out)["totals"]
    assert (totals["newly_rejected"], totals["newly_accepted"]) == (1, 1)


@pytest.mark.parametrize("token", ["²", "٣", "01"])
def test_audit_of_a_ref_through_a_non_ascii_index_is_an_unusable_schema_not_a_crash(
    tmp_path: Path, token: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # `b` refers to prefixItems/<token>, which RFC 6901 reads as no index at all (and which a
    # reader taking int() of it would place past the one item): the $ref points to nothing.
    # Lenient (the default old runtime) enforced nothing there; the new side cannot evaluate
    # the call: schema_error_after, which fails the gate (exit 1), never exit 3.
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "array", "prefixItems": [{"type": "string"}]},
            "b": {"$ref": f"#/properties/a/prefixItems/{token}"},
        },
    }
    (tmp_path / "tools.json").write_text(json.dumps({"pick": schema}), encoding="utf-8")
    (tmp_path / "calls.jsonl").write_text('{"tool": "pick", "arguments": {"b": "y"}}\n')
    report = tmp_path / "r.json"
    code, _, err = run_cli(
        [
            "audit",
            "--schemas",
            str(tmp_path / "tools.json"),
            "--logs",
            str(tmp_path / "calls.jsonl"),
            "--format",
            "json",
            "--output",
            str(report),
        ],
        capsys,
    )
    assert code == 1, err
    totals = json.loads(report.read_text())["totals"]
    assert (totals["calls"], totals["schema_error_after"]) == (1, 1)
