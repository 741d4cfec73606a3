"""The command line end to end: exit codes, outputs, report files, unusable input."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from auditor.cli import expand_multi_value_options
from tests.conftest import AUDITOR, run_cli

CATALOG = """\
search:
  type: object
  properties:
    tags: {type: array, min_items: 1}
  additional_properties: false
"""


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    catalog = tmp_path / "tools.yaml"
    catalog.write_text(CATALOG)
    log = tmp_path / "calls.jsonl"
    log.write_text(
        '{"tool": "search", "arguments": {"tags": ["a"]}}\n'
        '{"tool": "search", "arguments": {"tags": []}}\n'
    )
    return catalog, log


def test_newly_rejected_exits_1_and_writes_both_reports(
    tmp_path: Path, inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, log = inputs
    reports = tmp_path / "out"
    code, out, err = run_cli(
        ["audit", "--schemas", str(catalog), "--logs", str(log), "--report-dir", str(reports)],
        capsys,
    )
    assert code == 1, err
    assert "search" in out and "minItems" in out
    assert err.splitlines()[0] == f"auditor: wrote {reports / 'audit.md'}, {reports / 'audit.json'}"
    assert "wrote" not in out
    report = json.loads((reports / "audit.json").read_text())
    assert report["totals"]["newly_rejected"] == 1
    assert report["totals"]["accepted"] == 1
    assert (reports / "audit.md").read_text().startswith("# auditor")


def test_a_rendering_piped_to_stdout_writes_no_default_report_file(
    tmp_path: Path,
    inputs: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalog, log = inputs
    monkeypatch.chdir(tmp_path)
    base = ["audit", "--schemas", str(catalog), "--logs", str(log)]
    # `--format json --output - | jq`: only the JSON on stdout, no file, nothing said.
    code, out, err = run_cli([*base, "--format", "json", "--output", "-"], capsys)
    assert code == 1
    assert json.loads(out)["totals"]["calls"] == 2
    assert not (tmp_path / "reports").exists()
    assert "wrote" not in err
    # Another format to a file alongside: that file is written and named, still no reports.
    code, out, err = run_cli(
        [*base, "--format", "json", "--output", "-", "--format", "sarif", "--output", "a.sarif"],
        capsys,
    )
    assert code == 1 and json.loads(out)["totals"]["calls"] == 2
    assert err.splitlines()[0] == "auditor: wrote a.sarif"
    assert not (tmp_path / "reports").exists()
    # --report-dir asks for the report files: written even then, and named.
    code, out, err = run_cli([*base, "--format", "json", "--report-dir", "r"], capsys)
    assert code == 1 and json.loads(out)["totals"]["calls"] == 2
    assert err.splitlines()[0] == "auditor: wrote r/audit.md, r/audit.json"
    # Nothing to stdout but the table: the default reports and every --output, on stderr.
    code, out, err = run_cli([*base, "--format", "junit", "--output", "a.xml"], capsys)
    assert code == 1 and out.startswith("tool")
    assert err.splitlines()[0] == "auditor: wrote reports/audit.md, reports/audit.json, a.xml"
    assert (tmp_path / "reports" / "audit.json").is_file()
    # --quiet: nothing but errors.
    code, out, err = run_cli([*base, "--format", "junit", "--output", "b.xml", "-q"], capsys)
    assert code == 1 and out == "" and "wrote" not in err
    assert (tmp_path / "b.xml").is_file()


def test_nothing_newly_rejected_exits_0(
    tmp_path: Path, inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, _ = inputs
    log = tmp_path / "ok.jsonl"
    log.write_text('{"tool": "search", "arguments": {"tags": ["x"]}}\n')
    code, out, _ = run_cli(
        ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files"], capsys
    )
    assert code == 0
    assert out.splitlines()[-1] == "no call would be newly rejected (1 call read); exit 0"
    assert not (tmp_path / "reports").exists()


def test_format_json_to_stdout_is_the_only_stdout(
    tmp_path: Path, inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, log = inputs
    code, out, _ = run_cli(
        [
            "audit",
            "--schemas",
            str(catalog),
            "--logs",
            str(log),
            "--format",
            "json",
            "--output",
            "-",
            "--no-report-files",
        ],
        capsys,
    )
    assert code == 1
    assert json.loads(out)["totals"]["calls"] == 2


def test_several_paths_after_one_option(
    tmp_path: Path, inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, log = inputs
    second = tmp_path / "more.jsonl"
    second.write_text('{"tool": "search", "arguments": {"tags": ["b"]}}\n')
    code, out, _ = run_cli(
        [
            "audit",
            "--schemas",
            str(catalog),
            "--logs",
            str(log),
            str(second),
            "--format",
            "json",
            "--no-report-files",
        ],
        capsys,
    )
    assert code == 1
    assert [entry["path"] for entry in json.loads(out)["inputs"]["logs"]] == [str(log), str(second)]


def test_expand_multi_value_options() -> None:
    assert expand_multi_value_options(
        ["audit", "--logs", "a", "b", "--schemas", "s", "--format", "json", "x"],
        ["--logs", "--schemas"],
    ) == ["audit", "--logs", "a", "--logs", "b", "--schemas", "s", "--format", "json", "x"]


@pytest.mark.parametrize(
    ("catalog_text", "log_name", "message"),
    [
        ("search: [unclosed\n", "calls.jsonl", "invalid YAML"),
        (CATALOG, "missing.jsonl", "missing.jsonl: no such file"),
    ],
)
def test_unusable_input_exits_2_with_one_line(
    tmp_path: Path,
    inputs: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    catalog_text: str,
    log_name: str,
    message: str,
) -> None:
    catalog, _ = inputs
    catalog.write_text(catalog_text)
    code, out, err = run_cli(
        ["audit", "--schemas", str(catalog), "--logs", str(tmp_path / log_name)], capsys
    )
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_python_dash_m_runs_the_cli(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    catalog, log = inputs
    completed = subprocess.run(
        [
            *AUDITOR,
            "audit",
            "--schemas",
            str(catalog),
            "--logs",
            str(log),
            "--no-report-files",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert completed.returncode == 1, completed.stderr
    assert "newly rejected" in completed.stdout


@pytest.mark.parametrize(
    ("runtime", "outcome"),
    # standard: the capitalised types make the old schema unusable; lenient: they enforce
    # nothing, nor does additional_properties, so the old schema accepted what the new rejects.
    [("standard", "schema_error_before"), ("lenient", "newly_rejected")],
)
def test_reports_are_byte_identical_across_hash_seeds(
    inputs: tuple[Path, Path], runtime: str, outcome: str
) -> None:
    """Set iteration order changes with PYTHONHASHSEED; the report must not."""
    catalog, log = inputs
    catalog.write_text(
        "t:\n  type: object\n  properties:\n    a: {type: STRING}\n    b: {type: INTEGER}\n"
        "    c: {type: BOOLEAN}\n  additional_properties: false\n"
    )
    log.write_text('{"tool": "t", "arguments": {"x": 1, "y": 2, "z": 3, "a": 4}}\n')
    outputs = set()
    for seed in ("1", "2", "3"):
        completed = subprocess.run(
            [
                *AUDITOR,
                "audit",
                "--schemas",
                str(catalog),
                "--logs",
                str(log),
                "--format",
                "json",
                "--no-report-files",
                "--old-runtime",
                runtime,
            ],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        outputs.add(completed.stdout)
    assert len(outputs) == 1
    assert f'"{outcome}": 1' in outputs.pop()


EMPTY = (
    "auditor: error: no call read from the logs ({}): an empty log audits nothing; "
    "give --allow-empty if no traffic is expected\n"
)


@pytest.mark.parametrize("shape", ["empty file", "blank lines", "folder without logs"])
def test_logs_holding_no_call_exit_2_unless_allowed(
    shape: str,
    tmp_path: Path,
    inputs: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalog, _ = inputs
    monkeypatch.chdir(tmp_path)
    if shape == "folder without logs":
        (tmp_path / "logs").mkdir()
        (tmp_path / "logs" / "notes.txt").write_text("not a log\n")
        log = "logs"
    else:
        log = "empty.jsonl"
        (tmp_path / log).write_text("" if shape == "empty file" else "\n\n")
    base = ["audit", "--schemas", str(catalog), "--logs", log]
    code, out, err = run_cli(base, capsys)
    expected = EMPTY.format(log)
    if shape == "folder without logs":  # what it held, and how to read it: not --allow-empty
        expected = (
            "auditor: error: logs: no log files (.jsonl, .ndjson, .json, .log, .gz, .parquet, "
            ".arrow, .feather): it holds 1 file (1 .txt); a folder's logs are read by those "
            "endings: name a log to read it whatever it is called (--logs logs/notes.txt)\n"
        )
    assert (code, out, err) == (2, "", expected)
    assert not (tmp_path / "reports").exists()  # refused before anything is written
    # Allowed: audited, exit 0 (nothing is newly rejected), and said on stderr.
    code, out, err = run_cli([*base, "--allow-empty", "--no-report-files"], capsys)
    assert code == 0
    assert out.splitlines()[-1] == "no call would be newly rejected (0 calls read); exit 0"
    said = "auditor: warning: no call read from the logs: nothing was audited (--allow-empty)"
    assert said in err.splitlines()
    # --quiet: nothing but errors.
    code, out, err = run_cli([*base, "--allow-empty", "--no-report-files", "-q"], capsys)
    assert (code, out, err) == (0, "", "")


def test_min_calls_refuses_too_little_traffic(
    inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, log = inputs  # two calls, one newly rejected
    base = ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files"]
    code, out, err = run_cli([*base, "--min-calls", "3"], capsys)
    assert (code, out) == (2, "")
    assert err == f"auditor: error: 2 calls read from the logs ({log}), fewer than --min-calls 3\n"
    # Enough calls: the gate decides (exit 1, one newly rejected).
    assert run_cli([*base, "--min-calls", "2"], capsys)[0] == 1
    # --allow-empty accepts no call at all, not too few.
    assert run_cli([*base, "--min-calls", "3", "--allow-empty"], capsys)[0] == 2
    code, _, err = run_cli([*base, "--min-calls", "0"], capsys)
    assert code == 2 and err.startswith("auditor: error: ") and len(err.splitlines()) == 1


def test_a_folder_without_logs_beside_logs_with_calls_is_a_warning(
    tmp_path: Path, inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, log = inputs
    folder = tmp_path / "none"
    folder.mkdir()
    code, _, err = run_cli(
        ["audit", "--schemas", str(catalog), "--logs", str(folder), str(log), "--no-report-files"],
        capsys,
    )
    assert code == 1
    no_logs = (
        f"auditor: warning: {folder}: no log files "
        "(.jsonl, .ndjson, .json, .log, .gz, .parquet, .arrow, .feather)"
    )
    assert err.splitlines()[0] == no_logs


def test_many_empty_logs_are_named_three_and_counted(
    tmp_path: Path, inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, _ = inputs
    logs = [tmp_path / f"{n}.jsonl" for n in range(5)]
    for log in logs:
        log.write_text("")
    code, _, err = run_cli(
        ["audit", "--schemas", str(catalog), "--logs", *map(str, logs), "--no-report-files"],
        capsys,
    )
    assert code == 2
    assert f"({logs[0]}, {logs[1]}, {logs[2]} and 2 more)" in err
