"""`--help` at 80 columns: panels, examples, readable metavars; and a quick start: neither
`--version` nor `--help` loads the validation stack."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

HEAVY = (
    *("jsonschema", "jsonschema_rs", "referencing", "regex", "yaml", "tabulate", "orjson"),
    "pydantic",  # typer's coercion of a value (auditor.cli.coercion answers the usual ones)
    *("auditor.api", "auditor.aggregate", "auditor.engines", "auditor.replay"),
    *("auditor.schema.normalize", "auditor.report.rules"),
)
"""Modules a question about the command line must not pay for."""

COMMANDS: tuple[list[str], ...] = (
    *([], ["audit"], ["lint"], ["normalize"], ["schema"], ["rule"]),
    ["completion"],
)


def _help(command: list[str], columns: int = 80) -> str:
    environment = {**os.environ, "COLUMNS": str(columns), "PYTHONPATH": str(ROOT)}
    environment.pop("NO_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-m", "auditor", *command, "--help"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


def _flat(text: str) -> str:
    """The help's words without the panels' borders and the line breaks of wrapping."""
    return " ".join(text.translate(str.maketrans("│╭╮╰╯─", "      ")).split())


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "auditor")
def test_help_fits_80_columns_and_ends_with_examples(command: list[str]) -> None:
    text = _help(command)
    too_long = [line for line in text.splitlines() if len(line) > 80]
    assert too_long == []
    flat = _flat(text)
    assert "Examples:" in flat
    assert f"auditor {command[0] if command else 'audit'} " in flat.split("Examples:")[1]
    assert flat.index("Examples:") < flat.index("Exit codes:")
    assert "<list[str]>" not in flat and "<bool>" not in flat


def test_audit_help_groups_the_options_in_panels() -> None:
    text = _help(["audit"])
    titles = [line.split("─")[1].strip() for line in text.splitlines() if line.startswith("╭─")]
    assert titles == ["Options", "Inputs", "The change audited", "Outputs", "Gating", "Limits"]
    panels = {}
    for block in text.split("╭─")[1:]:
        title, _, body = block.partition("\n")
        panels[title.strip(" ─╮")] = body
    assert "--schemas" in panels["Inputs"] and "--logs" in panels["Inputs"]
    assert "--fail-on" in panels["Gating"] and "--baseline" in panels["Gating"]
    assert "--format" in panels["Outputs"] and "--suggest-patch" in panels["Outputs"]
    assert "--jobs" in panels["Limits"] and "--max-catalog-bytes" in panels["Limits"]
    assert "--rules" in panels["The change audited"]
    # Choices are said in words; the metavar column stays narrow.
    flat = _flat(text)
    assert "--fail-on WHEN What exits 1: newly-rejected (anything that breaks after" in flat
    assert "--old-runtime RUNTIME" in flat and "--catalog-format FORMAT" in flat
    assert "<newly-rejected|" not in flat
    assert "[default: keyword-case,type-case]" in flat and "[default: 3]" in flat


def test_help_wraps_to_a_narrower_terminal() -> None:
    assert max(len(line) for line in _help(["audit"], columns=60).splitlines()) <= 60


_PROBE = """
import sys
from pathlib import Path
from auditor.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("LOADED " + " ".join(m for m in {heavy} if m in sys.modules), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args",
    [["--version"], ["--help"], *([name, "--help"] for name in ("audit", "lint", "normalize"))],
    ids=str,
)
def test_version_and_help_do_not_import_the_validation_stack(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=json.dumps(HEAVY)), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80", "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    assert done.stderr.splitlines()[-1] == "LOADED ", done.stderr
    assert done.stdout.strip()


def test_the_probe_would_see_a_heavy_import() -> None:
    """The same probe after a real audit command sees the stack: the check above can fail."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=json.dumps(HEAVY)), "lint", "-"],
        capture_output=True,
        text=True,
        input="t: {type: object}\n",
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    assert "yaml" in done.stderr.splitlines()[-1].split()


@pytest.mark.parametrize("reports", [["--no-report-files"], ["--report-dir", "out//reports"]])
def test_a_default_audit_does_not_import_pydantic(tmp_path: Path, reports: list[str]) -> None:
    """typer's pydantic coercion is built only for a value it must judge: the options of an
    audit as CI runs it, a folder for the reports typed as text too, are answered without it
    (``auditor.cli.coercion``)."""
    sample = ROOT / "sample_logs" / "mcp_files"
    args = ["audit", "--schemas", str(sample / "tools.json"), "--logs", str(sample / "calls.jsonl")]
    args += ["--jobs", "1", "--format", "json", "--output", "-", *reports]
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=json.dumps(["pydantic", "jsonschema"])), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert done.stderr.splitlines()[-1] == "LOADED jsonschema", done.stderr
    assert json.loads(done.stdout)["totals"]
    written = sorted(p.name for p in (tmp_path / "out" / "reports").glob("*"))
    assert written == (
        [] if reports == ["--no-report-files"] else ["audit.json", "audit.md"]
    )  # README


ENGINES_NOT_CHOSEN = (
    *("auditor.engines.local", "auditor.engines.on_spark", "auditor.engines.on_ray"),
    *("multiprocessing", "concurrent.futures.process"),
    *("importlib.metadata", "packaging"),  # an SDK's version: asked for a profile only
    "auditor.inputs.git_catalogs",  # --against only
)
"""What a one-process audit without a profile does not run: the other engines and their
process pools, the look-up of installed SDKs."""


def _audit_loads(tmp_path: Path, jobs: str) -> list[str]:
    sample = ROOT / "sample_logs" / "mcp_files"
    args = ["audit", "--schemas", str(sample / "tools.json"), "--logs", str(sample / "calls.jsonl")]
    args += ["--jobs", jobs, "--format", "json", "--output", "-", "--no-report-files"]
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=json.dumps(ENGINES_NOT_CHOSEN)), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert json.loads(done.stdout)["totals"], done.stderr
    return done.stderr.splitlines()[-1].split()[1:]


def test_a_one_process_audit_imports_no_other_engine(tmp_path: Path) -> None:
    assert _audit_loads(tmp_path, "1") == []


def test_the_local_engine_is_imported_when_an_audit_runs_in_processes(tmp_path: Path) -> None:
    """The probe sees the local engine once ``--jobs 2`` chooses it: the check above can fail."""
    loaded = _audit_loads(tmp_path, "2")
    assert "auditor.engines.local" in loaded and "concurrent.futures.process" in loaded
    assert "auditor.engines.on_spark" not in loaded and "auditor.engines.on_ray" not in loaded
