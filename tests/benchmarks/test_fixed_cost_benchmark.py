"""benchmarks/fixed_cost.py at smoke size: it runs every measure and prints one figure for
each (no timing is asserted: figures are for reading)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.benchmark_scripts import load_benchmark
from tests.conftest import ROOT


def test_the_benchmark_prints_a_figure_for_every_measure_and_tree(
    capsys: pytest.CaptureFixture[str],
) -> None:
    workload = ROOT / "sample_logs" / "mcp_files"
    trees = ["--tree", str(ROOT), "--tree", str(ROOT)]
    load_benchmark("fixed_cost").main(["--workload", str(workload), "--rounds", "1", *trees])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("CPU seconds, median of 1 (load ")
    assert lines[1:4] == [f"  [1] {ROOT}", f"  [2] {ROOT}", f"  {'':<36}     [1]     [2]"]
    names = ["auditor --version", "auditor audit --help", "import auditor.cli"]
    names += ["audit mcp_files (176 calls)", "audit mcp_files"]
    figures = [re.fullmatch(r"  (.+?) +(\d+\.\d{3}) +(\d+\.\d{3})", line) for line in lines[4:]]
    assert [m.group(1) for m in figures if m] == names
    assert all(m and float(m.group(2)) > 0 and float(m.group(3)) > 0 for m in figures)


def test_the_audit_measured_is_one_process_writing_no_report(tmp_path: Path) -> None:
    argv = load_benchmark("fixed_cost").audit_argv(tmp_path)
    assert argv[argv.index("--jobs") + 1] == "1"
    assert "--no-report-files" in argv
    assert argv[argv.index("--schemas") + 1] == str(tmp_path / "tools.json")


def test_a_run_that_crashes_stops_the_benchmark_and_a_finished_audit_is_measured(
    tmp_path: Path,
) -> None:
    # A crash is quick: measured, it would read as a gain. Exit 1 is an audit that found
    # newly rejected calls, a finished run.
    child_seconds = load_benchmark("fixed_cost").child_seconds
    crash = [
        sys.executable,
        "-c",
        "import sys; print('NameError: boom', file=sys.stderr); sys.exit(3)",
    ]
    with pytest.raises(SystemExit, match=r"exited 3: NameError: boom"):
        child_seconds(crash, ROOT, tmp_path)
    found = [sys.executable, "-c", "import sys; sys.exit(1)"]
    assert child_seconds(found, ROOT, tmp_path) >= 0.0
