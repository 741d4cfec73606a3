"""Catalog shapes real repositories keep, and the one rule for folders (issue 29, items 1
and 2). Expectations are worked out from the shapes: github-mcp-server's
``__toolsnaps__/*.snap`` hold one MCP ``Tool`` object each; BFCL's ``functions.jsonl`` one
OpenAI-style function per line; a file emptied to ``[]`` defines no tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.inputs.catalogs import CatalogFormat, load_catalogs, read_catalog
from tests.conftest import run_cli

GET_ME = {
    "annotations": {"readOnlyHint": True, "title": "Get my user profile"},
    "description": "Get details of the authenticated GitHub user.",
    "inputSchema": {"type": "object", "properties": {}},
    "name": "get_me",
}
GET_COMMIT = {
    "annotations": {"readOnlyHint": True, "title": "Get commit details"},
    "description": "Get details for a commit from a GitHub repository",
    "inputSchema": {
        "type": "object",
        "properties": {
            "owner": {"type": "string", "description": "Repository owner"},
            "repo": {"type": "string", "description": "Repository name"},
            "sha": {"type": "string", "description": "Commit SHA, branch name, or tag name"},
            "include_diff": {"type": "boolean", "default": True},
        },
        "required": ["owner", "repo", "sha"],
    },
    "name": "get_commit",
}


def _snaps(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for tool in (GET_ME, GET_COMMIT):
        (folder / f"{tool['name']}.snap").write_text(json.dumps(tool, indent=2) + "\n")
    return folder


def test_a_lone_mcp_tool_object_is_a_catalog_of_one_tool(tmp_path: Path) -> None:
    path = tmp_path / "get_commit.snap"
    path.write_text(json.dumps(GET_COMMIT, indent=2))
    tools, problem = read_catalog(str(path))
    assert problem is None
    assert [(t.name, t.shape, t.pointer) for t in tools] == [("get_commit", "mcp", "/inputSchema")]


def test_a_folder_of_snap_files_is_read_under_catalog_format_mcp(tmp_path: Path) -> None:
    folder = _snaps(tmp_path / "__toolsnaps__")
    read = load_catalogs([str(folder)], fmt=CatalogFormat.MCP)
    assert read.problems == ()
    assert [t.name for t in read.tools] == ["get_commit", "get_me"]
    # Detected, the folder holds no .json/.yaml: the error says what it holds, and how.
    (problem,) = load_catalogs([str(folder)]).problems
    assert str(problem) == (
        f"{folder}: no catalog files (.json, .yaml, .yml): it holds 2 files (2 .snap) "
        "(MCP tool snapshots are read with --catalog-format mcp)"
    )


def test_a_glob_names_the_snap_files(tmp_path: Path) -> None:
    folder = _snaps(tmp_path / "__toolsnaps__")
    read = load_catalogs([str(folder / "*.snap")])
    assert [t.name for t in read.tools] == ["get_commit", "get_me"] and not read.problems


def test_bfcl_functions_jsonl_is_a_catalog_not_a_call_log(tmp_path: Path) -> None:
    path = tmp_path / "functions.jsonl"
    lines = [
        {"name": "calc_area", "description": "Area.", "parameters": {"type": "dict",
         "properties": {"base": {"type": "float"}}, "required": ["base"]}},
        {"name": "get_weather", "description": "Weather.", "parameters": {"type": "dict",
         "properties": {"city": {"type": "string"}}}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    tools, problem = read_catalog(str(path))
    assert problem is None
    assert [(t.name, t.pointer, t.location.line) for t in tools] == [
        ("calc_area", "/0/parameters", 1),
        ("get_weather", "/1/parameters", 2),
    ]


def test_legacy_openai_functions_are_read(tmp_path: Path) -> None:
    path = tmp_path / "request.json"
    body = {
        "model": "gpt-3.5-turbo",
        "functions": [{"name": "f", "parameters": {"type": "object"}}],
    }
    path.write_text(json.dumps(body))
    tools, problem = read_catalog(str(path))
    assert problem is None
    assert [(t.name, t.shape, t.pointer) for t in tools] == [
        ("f", "openai", "/functions/0/parameters")
    ]


@pytest.mark.parametrize("text", ["[]", '{"tools": []}'])
def test_an_emptied_file_is_a_catalog_of_no_tools(tmp_path: Path, text: str) -> None:
    path = tmp_path / "tools.json"
    path.write_text(text)
    assert read_catalog(str(path)) == ([], None)


def test_a_file_emptied_by_the_change_removes_its_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps([GET_COMMIT]))
    new.write_text("[]\n")
    log = tmp_path / "calls.jsonl"
    log.write_text('{"tool": "get_commit", "arguments": {"owner": "o", "repo": "r", "sha": "x"}}\n')
    report = tmp_path / "r.json"
    args = ["audit", "--schemas", str(old), "--new-schemas", str(new), "--logs", str(log)]
    code, _, err = run_cli([*args, "--format", "json", "--output", str(report)], capsys)
    # The one call's tool is gone after the change: newly rejected, the gate fails (exit 1).
    assert code == 1, err
    data = json.loads(report.read_text())
    assert data["change"]["removed_tools"] == ["get_commit"]
    assert data["totals"]["newly_rejected"] == 1


WORKFLOW = "name: CI\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
ML_CONFIG = '{"model_type": "bert", "max_length": 512, "hidden_size": 768}\n'


def _repository(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    (folder / ".github" / "workflows").mkdir(parents=True)
    (folder / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (folder / "config.json").write_text(ML_CONFIG)
    tools = {"search": {"type": "object", "properties": {"q": {"type": "String"}}}}
    (folder / "tools.json").write_text(json.dumps(tools))
    return folder


def test_every_command_skips_what_is_no_catalog_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _repository(tmp_path)
    skipped = [
        f"auditor: skipped: {folder / '.github' / 'workflows' / 'ci.yml'} (not a tool catalog)",
        f"auditor: skipped: {folder / 'config.json'} (not a tool catalog)",
    ]
    code, out, err = run_cli(["lint", str(folder)], capsys)
    # Only tools.json is linted: one TY001 (String), none of config.json's keys.
    assert (code, err.splitlines()) == (1, skipped)
    assert out.splitlines()[-1] == "1 finding in 1 file; 1 fixable with `auditor normalize --write`"
    code, out, err = run_cli(["normalize", "--check", str(folder)], capsys)
    assert (code, err.splitlines()) == (1, skipped)
    log = tmp_path / "calls.jsonl"
    log.write_text('{"tool": "search", "arguments": {"q": "x"}}\n')
    report = tmp_path / "r.json"
    code, _, err = run_cli(
        ["audit", "--schemas", str(folder), "--logs", str(log), "--no-report-files",
         "--format", "json", "--output", str(report)],
        capsys,
    )  # fmt: skip
    assert code == 0 and err.splitlines()[:2] == skipped, err
    assert json.loads(report.read_text())["inputs"]["skipped"] == [
        {"path": str(folder / ".github" / "workflows" / "ci.yml"), "reason": "not a tool catalog"},
        {"path": str(folder / "config.json"), "reason": "not a tool catalog"},
    ]


def test_a_folder_of_nothing_usable_is_an_error_naming_what_it_held(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _repository(tmp_path)
    (folder / "tools.json").unlink()
    code, _, err = run_cli(["lint", str(folder)], capsys)
    assert code == 2
    assert err.splitlines()[-1] == (
        f"auditor: error: {folder}: no tool catalog among its 2 files: "
        f"{folder / '.github' / 'workflows' / 'ci.yml'} (not a tool catalog), "
        f"{folder / 'config.json'} (not a tool catalog)"
    )


def test_lint_counts_what_the_given_rules_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # BFCL's `dict` and `float`: TY002, which only type-alias rewrites; `String` is TY001.
    path = tmp_path / "tools.json"
    schema = {"type": "dict", "properties": {"a": {"type": "float"}, "b": {"type": "String"}}}
    path.write_text(json.dumps({"t": schema}))
    _, out, _ = run_cli(["lint", str(path)], capsys)
    assert (
        out.splitlines()[-1] == "3 findings in 1 file; 1 fixable with `auditor normalize --write`"
    )
    _, out, _ = run_cli(["lint", str(path), "--rules", "type-alias,keyword-case,type-case"], capsys)
    assert out.splitlines()[-1] == (
        "3 findings in 1 file; 3 fixable with "
        "`auditor normalize --write --rules keyword-case,type-case,type-alias`"
    )


def test_lint_of_a_log_does_not_suggest_an_option_it_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text('{"tool": "s", "arguments": {}}\n{"tool": "s", "arguments": {}}\n')
    code, _, err = run_cli(["lint", str(log)], capsys)
    assert code == 2 and "--logs?" not in err and "auditor audit" in err


def test_lint_reads_the_config_files_schemas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("tools.json").write_text(json.dumps({"t": {"type": "object", "min_items": 1}}))
    Path("auditor.toml").write_text('schemas = ["tools.json"]\nlogs = ["calls.jsonl"]\n')
    code, out, err = run_cli(["lint"], capsys)
    assert (code, err) == (1, "auditor: using auditor.toml\n")
    assert out.startswith("tools.json:1:26: KW001")
    Path("auditor.toml").unlink()
    Path("pyproject.toml").write_text("tool = 1\n")
    code, _, err = run_cli(["lint", "tools.json"], capsys)
    assert code == 2 and err.strip().endswith("[tool] must be a table")


def test_a_log_folder_of_calls_txt_says_what_it_held_not_allow_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"s": {"type": "object"}}))
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "calls.txt").write_text('{"tool": "s", "arguments": {}}\n')
    code, _, err = run_cli(["audit", "--schemas", str(tools), "--logs", str(logs)], capsys)
    assert code == 2 and "--allow-empty" not in err
    assert f"{logs}: no log files (" in err and "it holds 1 file (1 .txt)" in err
    assert f"(--logs {logs / 'calls.txt'})" in err
