"""benchmarks/audit_stages.py at smoke size: every stage is printed, the ones every audit runs
took time, and the stages add up to the whole run (no timing is asserted: figures are for
reading)."""

from __future__ import annotations

import sys

import pytest

from tests.benchmark_scripts import load_benchmark
from tests.conftest import ROOT


def test_every_stage_is_printed_and_the_stages_add_up(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_benchmark("audit_stages")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    workload = str(ROOT / "sample_logs" / "mcp_files")
    monkeypatch.setattr(sys, "argv", ["audit_stages.py", workload, "--rounds", "1"])
    module.main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("CPU seconds, median of 1 (load ")
    figures = {line.split()[0]: float(line.split()[1]) for line in lines[1:]}
    assert list(figures) == list(module.ORDER)
    # The sample's tools are compiled, its calls evaluated, its report delivered.
    assert all(figures[name] > 0 for name in ("imports", "compile", "evaluate", "deliver"))
    parts = sum(value for name, value in figures.items() if name != "total")
    assert parts == pytest.approx(figures["total"], abs=0.001 * len(figures))
