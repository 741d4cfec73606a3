"""benchmarks/parallel.py at smoke size: it prints each layout's figures and says the reports
of --jobs 1 and 2 are the same.

No timing here (the script prints figures); only what must hold at any size.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_the_benchmark_prints_both_jobs_and_one_report_per_layout(tmp_path: Path) -> None:
    command = [
        sys.executable, str(ROOT / "benchmarks" / "parallel.py"), "--calls", "1500",
        "--rounds", "1", "--layout", "file", "--layout", "split", "--count",
        "--dir", str(tmp_path),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    figure = r"[0-9]+\.[0-9]{2} s"
    for layout in ("file", "split"):
        for jobs in (1, 2):
            assert re.search(
                rf"^  \[1\] {layout}\s+--jobs {jobs}: wall\s+{figure}\s+cpu\s+{figure} \(audit "
                rf"process\s+[0-9.]+, workers\s+[0-9.]+\)\s+load [0-9.]+-[0-9.]+$",
                out,
                re.M,
            ), (layout, jobs, out)
        # The timed rounds and the counted audits: four audits, one report.
        assert re.search(
            rf"^  \[1\] {layout}\s+--jobs 2: [0-9.]+x in wall time, [-+][0-9.]+% CPU; the same "
            r"report \(sha256 [0-9a-f]{16}\)$",
            out,
            re.M,
        ), out
        assert re.search(
            rf"^  \[1\] {layout}\s+Python function calls: --jobs 1 [0-9.]+ M, --jobs 2 [0-9.]+ M",
            out,
            re.M,
        ), out
    assert "DIFFERENT" not in out
