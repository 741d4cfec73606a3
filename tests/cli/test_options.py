"""Every option in one place: CLI > config > default for each, config values checked as the
command line checks them, and docs/options.md, the config keys and action.yml kept in step."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.cli import audit as audit_command
from auditor.cli import expand_multi_value_options
from auditor.cli.delivery import ColorChoice, Outputs
from auditor.cli.options import CLI_ONLY, OPTIONS, SETTINGS
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.catalogs import CatalogFormat
from auditor.inputs.columns import Columns
from auditor.inputs.log_formats import LogFormat
from auditor.models import (
    Dialect,
    FailOn,
    FormatSides,
    GroupBy,
    NewRuntime,
    OldRuntime,
    Rule,
    RuntimeValidator,
    Subject,
)
from auditor.report import Format
from auditor.request import DEFAULT_RULES_TEXT, AuditRequest, Engine, PatchKind
from tests.conftest import ROOT, run_cli, what_runs

ACTION_ONLY = {
    "upload-sarif",
    "sarif-category",
    "artifact-name",
    "working-directory",
    "python-version",
    "formats",
    "args",
    "pr-comment",
    "github-token",
}
"""Inputs of action.yml that are about the Action itself, not options of `audit`."""

# key: (config value, command line, AuditOptions field, from the config, from the CLI,
# the default) -- each expectation worked out from the option's documented meaning.
CASES: dict[str, tuple[Any, list[str], str, Any, Any, Any]] = {
    "format": ("json", ["--format", "sarif"], "outputs", ((Format.JSON, "-"),),
               ((Format.SARIF, "-"),), ()),
    "report_dir": ("r1", ["--report-dir", "r2"], "report_dir", Path("r1"), Path("r2"),
                   Path("reports")),
    "no_report_files": (True, ["--no-report-files"], "report_dir", None, None, Path("reports")),
    "fail_on": ("never", ["--fail-on", "schema_error"], "fail_on", FailOn.NEVER,
                FailOn.SCHEMA_ERROR, FailOn.NEWLY_REJECTED),
    "fail_min_calls": (5, ["--fail-min-calls", "2"], "fail_min_calls", 5, 2, 1),
    "fail_min_share": (0.001, ["--fail-min-share", "1"], "fail_min_share", 0.001, 1.0, 0.0),
    "min_calls": (100, ["--min-calls", "5"], "min_calls", 100, 5, 1),
    "allow_empty": (True, ["--allow-empty"], "allow_empty", True, True, False),
    "baseline": ("b1.json", ["--baseline", "b2.json"], "baseline", "b1.json", "b2.json", None),
    "examples": (7, ["--examples", "0"], "examples", 7, 0, 3),
    "group_by": ("caller", ["--group-by", "constraint"], "group_by", GroupBy.CALLER,
                 GroupBy.CONSTRAINT, GroupBy.CONSTRAINT),
    "redact": (True, ["--redact"], "redact", True, True, False),
    "max_calls": (5, ["--max-calls", "0"], "max_calls", 5, None, 10_000),
    "jobs": (2, ["-j", "3"], "jobs", 2, 3, os.cpu_count() or 1),
    "engine": ("ray", ["--engine", "spark"], "engine", Engine.RAY, Engine.SPARK, Engine.LOCAL),
    "allow_override": (True, ["--allow-override"], "allow_override", True, True, False),
    "color": ("never", ["--color", "always"], "color", ColorChoice.NEVER, ColorChoice.ALWAYS,
              ColorChoice.AUTO),
    "catalog_format": ("mcp", ["--catalog-format", "openai"], "catalog_format",
                       CatalogFormat.MCP, CatalogFormat.OPENAI, None),
    "log_format": ("otel", ["--log-format=jsonl"], "log_format", LogFormat.OTEL,
                   LogFormat.JSONL, None),
    "calls_from": ("responses", ["--calls-from", "all"], "calls_from", CallsFrom.RESPONSES,
                   CallsFrom.ALL, CallsFrom.ALL),
    "subject": ("results", ["--subject", "arguments"], "subject", Subject.RESULTS,
                Subject.ARGUMENTS, Subject.BOTH),
    "tool_column": ("fn", ["--tool-column", "tool"], "columns", Columns("fn"), Columns("tool"),
                    Columns()),
    "arguments_column": ("body", ["--arguments-column=args"], "columns", Columns(None, "body"),
                         Columns(None, "args"), Columns()),
    "rules": ("openapi", ["--rules", "type-alias,gemini"], "rules", frozenset({Rule.OPENAPI}),
              frozenset({Rule.TYPE_ALIAS, Rule.GEMINI}),
              frozenset({Rule.KEYWORD_CASE, Rule.TYPE_CASE})),
    "call_timeout": (0.5, ["--call-timeout", "0"], "call_timeout", 0.5, None, 2.0),
    "max_record_bytes": (100, ["--max-record-bytes", "200"], "max_record_bytes", 100, 200,
                         64 * 1024 * 1024),
    "max_catalog_bytes": (100, ["--max-catalog-bytes", "200"], "max_catalog_bytes", 100, 200,
                          256 * 1024 * 1024),
    "scratch": ("s1", ["--scratch", "s2"], "scratch", "s1", "s2", None),
    "old_runtime": ("none", ["--old-runtime", "standard"], "old_runtime", OldRuntime.NONE,
                    OldRuntime.STANDARD, OldRuntime.LENIENT),
    "new_runtime": ("mcp-ts-v1", ["--new-runtime", "mcp-ts-v2"], "new_runtime",
                    NewRuntime.MCP_TS_V1, NewRuntime.MCP_TS_V2, NewRuntime.STANDARD),
    "runtime_validator": ("ajv", ["--runtime-validator", "model"], "runtime_validator",
                          RuntimeValidator.AJV, RuntimeValidator.MODEL, RuntimeValidator.MODEL),
    "assert_formats": ("both", ["--assert-formats", "neither"], "assert_formats",
                       FormatSides.BOTH, FormatSides.NEITHER, FormatSides.RUNTIME),
    "default_dialect": ("draft-07", ["--default-dialect", "2019-09"], "default_dialect",
                        Dialect.DRAFT7, Dialect.DRAFT2019, None),
    "old_default_dialect": ("2019-09", ["--old-default-dialect", "2020-12"],
                            "old_default_dialect", Dialect.DRAFT2019, Dialect.DRAFT2020, None),
    "new_schemas": (["n1.json"], ["--new-schemas", "n2.json", "n3.json"], "new_schemas",
                    ("n1.json",), ("n2.json", "n3.json"), ()),
    "against": ("main", ["--against", "origin/dev"], "against", "main", "origin/dev", None),
    "suggest_patch": ("p1.diff", ["--suggest-patch", "p2.diff"], "suggest_patch", "p1.diff",
                      "p2.diff", None),
    "suggest_patch_kinds": ("review", ["--suggest-patch-kinds", "review,contradiction"],
                            "suggest_patch_kinds", frozenset({PatchKind.REVIEW}),
                            frozenset({PatchKind.REVIEW, PatchKind.CONTRADICTION}),
                            frozenset({PatchKind.LOOSEN_SCHEMA})),
}  # fmt: skip
SEPARATELY = {"schemas", "logs", "output"}
"""Keys tested on their own: the required inputs, and outputs (paired with formats)."""


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return repr(value)


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Any]:
    """The options each audit would run with (the run itself is left out)."""
    runs: list[Any] = []

    def record(request: AuditRequest, outputs: Outputs) -> int:
        runs.append(what_runs(request, outputs))
        return 0

    monkeypatch.setattr(audit_command, "run", record)
    monkeypatch.chdir(tmp_path)
    return runs


def test_every_config_key_has_a_precedence_case() -> None:
    assert set(CASES) | SEPARATELY == set(SETTINGS)
    assert set(SETTINGS) | CLI_ONLY == set(OPTIONS)


@pytest.mark.parametrize("key", list(CASES))
def test_the_command_line_wins_over_the_config_file_over_the_default(
    key: str, seen: list[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_value, cli, field, from_config, from_cli, default = CASES[key]
    base = ["audit", "--schemas", "tools.json", "--logs", "calls.jsonl"]
    assert run_cli(base, capsys)[0] == 0
    (tmp_path / "auditor.toml").write_text(f"{key} = {_toml(config_value)}\n")
    code, _, err = run_cli(base, capsys)
    assert (code, err) == (0, "auditor: using auditor.toml\n")
    assert run_cli([*base, *cli], capsys)[0] == 0
    assert [getattr(options, field) for options in seen] == [default, from_config, from_cli]


def test_schemas_and_logs_come_from_the_config_file_unless_given(
    seen: list[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.auditor]\nschemas = "a.json"\nlogs = ["l1.jsonl", "l2.jsonl"]\n'
    )
    assert run_cli(["audit"], capsys)[0] == 0
    assert run_cli(["audit", "--logs=m.jsonl", "n.jsonl", "--schemas", "b.json"], capsys)[0] == 0
    assert [(o.schemas, o.logs) for o in seen] == [
        (("a.json",), ("l1.jsonl", "l2.jsonl")),
        (("b.json",), ("m.jsonl", "n.jsonl")),
    ]


def test_a_comma_list_setting_takes_a_toml_list_too(
    seen: list[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--rules a,b` is one comma-separated text; users write TOML lists (ruff's
    # `select = ["E"]`): both say the same families.
    base = ["audit", "--schemas", "tools.json", "--logs", "calls.jsonl"]
    for value in ('["keyword-case", "type-alias"]', '"keyword-case,type-alias"'):
        (tmp_path / "auditor.toml").write_text(f"rules = {value}\n")
        assert run_cli(base, capsys)[0] == 0
    assert [o.rules for o in seen] == [frozenset({Rule.KEYWORD_CASE, Rule.TYPE_ALIAS})] * 2
    for value, said in [
        ('["keyword-case", "camel-case"]', "unknown rule family camel-case"),
        ("[]", "is an empty list"),
        ('["keyword-case", 1]', "must be a list of strings"),
    ]:
        (tmp_path / "auditor.toml").write_text(f"rules = {value}\n")
        code, _, err = run_cli(base, capsys)
        assert code == 2 and len(err.splitlines()) == 1, err
        assert said in err
    assert len(seen) == 2


def test_outputs_pair_with_formats_from_either_place(
    seen: list[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "auditor.toml").write_text(
        'schemas = ["t.json"]\nlogs = ["c.jsonl"]\nformat = ["json", "sarif"]\n'
        'output = ["a.json", "a.sarif"]\n'
    )
    assert run_cli(["audit"], capsys)[0] == 0
    assert run_cli(["audit", "--output", "b.json", "--output", "-"], capsys)[0] == 0
    assert [o.outputs for o in seen] == [
        ((Format.JSON, "a.json"), (Format.SARIF, "a.sarif")),
        ((Format.JSON, "b.json"), (Format.SARIF, "-")),
    ]
    # Named by the file, outputs stay in the working directory; named on the command line,
    # they are the user's choice.
    assert [o.outputs_within for o in seen] == [tmp_path, None]


def test_an_equals_sign_works_like_a_space() -> None:
    assert expand_multi_value_options(["audit", "--logs=a.jsonl", "b.jsonl", "-q"], ["--logs"]) == [
        "audit",
        "--logs=a.jsonl",
        "--logs",
        "b.jsonl",
        "-q",
    ]


REFUSED = [
    ("jobs", "0", "must be at least 1, not 0"),
    ("engine", '"dask"', "'dask' is not one of"),
    ("old_runtime", '"sloppy"', "'sloppy' is not one of"),
    ("new_runtime", '"lenient"', "'lenient' is not one of"),
    ("default_dialect", '"draft-04"', "'draft-04' is not one of"),
    ("fail_on", '"sometimes"', "'sometimes' is not one of"),
    ("catalog_format", '"xml"', "'xml' is not one of"),
    ("log_format", '"xml"', "'xml' is not one of"),
    ("calls_from", '"requests"', "'requests' is not one of"),
    ("subject", '"everything"', "'everything' is not one of"),
    ("color", '"sometimes"', "'sometimes' is not one of"),
    ("format", '["pdf"]', "'pdf' is not one of"),
    ("rules", '"camel-case"', "unknown rule family camel-case"),
    ("examples", '"3"', "has the wrong type"),
    ("fail_min_calls", "0", "must be at least 1, not 0"),
    ("fail_min_calls", "2.5", "has the wrong type"),
    ("min_calls", "0", "must be at least 1, not 0"),
    ("allow_empty", '"yes"', "has the wrong type"),
    ("fail_min_share", "1.5", "less than or equal to 1"),
    ("fail_min_share", "-0.1", "must be at least 0, not -0.1"),
    ("fail_min_share", '"0.1%"', "has the wrong type"),
    ("fail_min_share", "nan", "must be a finite number"),
    ("redact", '"yes"', "has the wrong type"),
]


@pytest.mark.parametrize(("key", "value", "said"), REFUSED)
def test_a_config_value_is_refused_as_the_command_line_refuses_it(
    key: str,
    value: str,
    said: str,
    seen: list[Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "auditor.toml").write_text(f"{key} = {value}\n")
    code, _, err = run_cli(["audit", "--schemas", "t.json", "--logs", "c.jsonl"], capsys)
    assert code == 2 and len(err.splitlines()) == 1, err
    assert err.startswith(f"auditor: error: {tmp_path / 'auditor.toml'}: setting '{key}'")
    assert said in err
    assert seen == []


def _docs_rows() -> dict[str, list[str]]:
    """The rows of docs/options.md's tables of ``audit`` (one per --help panel), by flag."""
    page = (ROOT / "docs" / "options.md").read_text(encoding="utf-8")
    audit = page.partition("## auditor audit\n")[2].partition("\n## ")[0]
    header = "| option | config key | Action input | default | what it does |"
    rows: dict[str, list[str]] = {}
    for table in audit.split(header)[1:]:
        lines = table.strip().partition("\n\n")[0].splitlines()[1:]  # below the rule line
        for line in lines:
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip("|"))]
            flag = re.match(r"`(--[a-z-]+)", cells[0])
            assert flag is not None, line
            assert flag.group(1) not in rows, line
            rows[flag.group(1)] = cells[:4]
    return rows


def _action() -> dict[str, Any]:
    document = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


def _code(cell: str) -> str | None:
    return None if cell == "—" else cell.strip("`")


def test_the_docs_list_every_option_its_config_key_and_action_input() -> None:
    rows = _docs_rows()
    assert sorted(rows) == sorted(o.flag for o in OPTIONS.values())
    assert {flag: _code(row[1]) for flag, row in rows.items()} == {
        o.flag: name if name in SETTINGS else None for name, o in OPTIONS.items()
    }
    inputs = set(_action()["inputs"]) - ACTION_ONLY
    listed = {_code(row[2]) for row in rows.values()} - {None}
    assert listed == inputs


def test_every_action_input_is_an_option_passed_only_when_given(tmp_path: Path) -> None:
    action = _action()
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "audit")
    for name in set(action["inputs"]) - ACTION_ONLY:
        key = name.replace("-", "_")
        assert key in SETTINGS, name
        # Empty, the input is not given: the repository's config file or the default applies.
        assert action["inputs"][name]["default"] == ""
        assert step["env"][f"AUDITOR_{key.upper()}"] == f"${{{{ inputs.{name} }}}}"
    # Run the step's script with a stand-in auditor that prints its arguments.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "auditor").write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    (bin_dir / "auditor").chmod(0o755)
    env = {key: "" for key in step["env"]}
    env |= {"PATH": f"{bin_dir}:/usr/bin:/bin", "GITHUB_OUTPUT": str(tmp_path / "out")}
    fixed = ["--report-dir", "auditor-reports", "--format", "sarif", "--output"]
    fixed += ["auditor-reports/audit.sarif", "--format", "comment", "--output"]
    fixed += ["auditor-reports/comment.md", "--format", "github", "--output", "-"]
    done = subprocess.run(
        ["bash", "-c", step["run"]], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout.splitlines() == ["audit", *fixed]
    env |= {"AUDITOR_LOGS": "a.jsonl b.jsonl", "AUDITOR_JOBS": "2", "AUDITOR_REDACT": "true"}
    done = subprocess.run(
        ["bash", "-c", step["run"]], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout.splitlines() == [
        "audit", *fixed, "--logs", "a.jsonl", "b.jsonl", "--redact", "--jobs", "2"
    ]  # fmt: skip


@pytest.mark.parametrize("command", ["audit", "lint", "normalize"])
def test_help_shows_real_defaults_and_readable_metavars(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_cli([command, "--help"], capsys)
    assert code == 0
    # Options only: typer prints an argument's type beside its metavar, and its own --help
    # as <bool>.
    options = [line for line in out.splitlines() if "│ --" in line and "--help" not in line]
    assert len(options) >= 4
    for unreadable in ("<list[", "frozenset(", "<str>", "<int", "<float", "<bool>"):
        assert not any(unreadable in line for line in options), unreadable
    flat = " ".join(out.replace("│", " ").split())
    if command in ("audit", "normalize"):
        assert re.search(r"\[default: \(?keyword-case,type-case\)?\]", flat)
    assert "[default: (256 MiB)]" in flat
    if command == "audit":
        defaults = ["3", "10000", "reports", "(newly-rejected)", "lenient", "auto"]
        defaults += ["(one per core)", "2.0", "(64 MiB)"]
        for shown in defaults:
            assert f"[default: {shown}]" in flat, shown


def _shown(default: Any) -> str:
    """A default as docs/options.md writes it (worked out by hand for each kind)."""
    if isinstance(default, bool):
        return "on" if default else "off"
    if default is None:
        return "none"
    if isinstance(default, Enum):  # the docs spell values with "-"
        return str(default.value).replace("_", "-")
    if isinstance(default, float) and default.is_integer():
        return str(int(default))
    if isinstance(default, int) and default >= 1024 * 1024 and default % (1024 * 1024) == 0:
        return f"{default // (1024 * 1024)} MiB"
    return str(default)


def test_the_docs_give_each_option_its_real_default() -> None:
    parameters = inspect.signature(audit_command.audit).parameters
    # Defaults the code leaves to the run, in the words the docs and --help use.
    worded = {"jobs": "one per core", "output": "-", "rules": DEFAULT_RULES_TEXT}
    rows = _docs_rows()
    assert len(rows) == len(OPTIONS)
    for name, option in OPTIONS.items():
        cell = rows[option.flag][3].replace("`", "")
        expected = worded.get(name) or _shown(parameters[name].default)
        assert re.split(r" \(|: | when", cell)[0] == expected, (name, cell)


def test_help_is_shown_whatever_the_config_file_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "auditor.toml").write_text('jobs = "unterminated\n')
    code, out, _ = run_cli(["audit", "--help"], capsys)
    assert code == 0 and "--schemas" in out and "<bool>" not in out
    # Anything but help reads the file, and says what is wrong with it.
    code, _, err = run_cli(["audit", "--schemas", "a.json", "--logs", "b.jsonl"], capsys)
    assert code == 2 and "auditor.toml: invalid TOML" in err


SPELLINGS = [
    (["--fail-on", "newly-rejected"], "fail_on", FailOn.NEWLY_REJECTED),
    (["--fail-on", "newly_rejected"], "fail_on", FailOn.NEWLY_REJECTED),
    (["--fail-on", "schema-error"], "fail_on", FailOn.SCHEMA_ERROR),
    (["--fail-on", "any_change"], "fail_on", FailOn.ANY_CHANGE),
    (["--log-format", "openai_responses"], "log_format", LogFormat.OPENAI_RESPONSES),
    (["--catalog-format", "openai_responses"], "catalog_format", CatalogFormat.OPENAI_RESPONSES),
    (
        ["--rules", "keyword_case,type-alias"],
        "rules",
        frozenset({Rule.KEYWORD_CASE, Rule.TYPE_ALIAS}),
    ),
    (["--old-runtime", "none"], "old_runtime", OldRuntime.NONE),
    (["--new-runtime", "mcp_ts_v2"], "new_runtime", NewRuntime.MCP_TS_V2),
]


@pytest.mark.parametrize(("cli", "field", "value"), SPELLINGS)
def test_dash_and_underscore_are_one_character_in_values(
    cli: list[str],
    field: str,
    value: Any,
    seen: list[Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_cli(["audit", "--schemas", "t.json", "--logs", "c.jsonl", *cli], capsys)[0] == 0
    assert getattr(seen[0], field) == value


def test_the_config_file_takes_either_spelling_and_refuses_other_values(
    seen: list[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "auditor.toml").write_text('fail_on = "schema-error"\n')
    assert run_cli(["audit", "--schemas", "t.json", "--logs", "c.jsonl"], capsys)[0] == 0
    assert seen[0].fail_on is FailOn.SCHEMA_ERROR
    code, _, err = run_cli(["audit", "--schemas", "t", "--logs", "c", "--fail-on", "newly"], capsys)
    assert code == 2 and len(err.splitlines()) == 2  # the config file used, the error
    # The values are listed in the documented spelling.
    assert "'newly' is not one of 'newly-rejected', 'schema-error', 'any-change', 'never'" in err
