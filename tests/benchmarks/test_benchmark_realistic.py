"""benchmarks/realistic.py at smoke size: it prints its figures and checks its workload's bands.

No timing here (the script prints figures); only what must hold at any size.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmark_scripts import BENCHMARKS, load_benchmark
from tests.conftest import ROOT


def _share(output: str, what: str) -> float:
    found = re.search(rf"^{re.escape(what)}: ([0-9.]+)% \(band [0-9]+%-[0-9]+%\) ok$", output, re.M)
    assert found, f"no band line for {what!r} in:\n{output}"
    return float(found.group(1)) / 100


def test_the_benchmark_prints_its_figures_and_its_workload_is_in_band(tmp_path: Path) -> None:
    command = [
        sys.executable, str(BENCHMARKS / "realistic.py"), "--calls", "2000", "--rounds", "1",
        "--dir", str(tmp_path),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "120 tools (40 in a dialect)" in out
    number = r"\s+[0-9]+\.[0-9]{2}"
    for label in (
        "audit --jobs 1 (auditor.api.audit)",
        "audit --jobs 1 (command line)",
        "audit --jobs 2 (all processes)",
        "jsonschema-rs loop (old+new verdicts)",
        "python-jsonschema loop (iter_errors)",
        "orjson parse floor",
    ):  # CPU seconds, wall seconds, µs per call
        assert re.search(rf"^  {re.escape(label)}{number}{number}{number}$", out, re.M), label
    assert re.search(r"^audit ÷ jsonschema-rs loop:\s+[0-9.]+x \(cpu\)$", out, re.M)
    assert re.search(r"^audit ÷ orjson parse floor:\s+[0-9.]+x \(cpu\)$", out, re.M)
    assert re.search(r"^peak RSS of the audit \(--jobs 1\): [0-9,]+ MiB$", out, re.M)
    # 39.5% of calls repeat an earlier text of their tool, 13.5% of fresh texts break one
    # constraint: about 60% distinct and 13% rejected, within the bands the script asserts.
    assert 0.55 <= _share(out, "distinct argument texts") <= 0.65
    assert 0.10 <= _share(out, "calls rejected (audit's report)") <= 0.16
    # The loops do the audit's work: the same calls rejected on one side or both.
    found = re.search(r"audit ([0-9,]+), jsonschema-rs loop ([0-9,]+) of 2,000 calls", out)
    assert found and found.group(1) == found.group(2), out
    assert list(tmp_path.iterdir()) == []  # the temporary folder is removed


def test_a_share_out_of_its_band_stops_the_benchmark() -> None:
    check_band = load_benchmark("realistic").check_band
    assert check_band("distinct", 0.60, (0.55, 0.65)).endswith(" ok")
    with pytest.raises(SystemExit, match="out of band"):
        check_band("distinct", 0.91, (0.55, 0.65))
    with pytest.raises(SystemExit, match="out of band"):
        check_band("rejected", 0.02, (0.10, 0.16))


def test_every_layout_holds_the_same_lines_and_the_seed_decides_them(tmp_path: Path) -> None:
    generate = load_benchmark("realistic_workload").generate
    log_lines = load_benchmark("loops").log_lines
    one = generate(600, 4, tmp_path / "a", ("file", "gzip", "split"))
    again = generate(600, 4, tmp_path / "b", ("file",))
    lines = list(log_lines(one.logs["file"]))
    assert len(lines) == 600
    assert list(log_lines(one.logs["gzip"])) == lines
    assert list(log_lines(one.logs["split"])) == lines
    assert len(list(one.logs["split"].iterdir())) > 100  # many small files
    assert list(log_lines(again.logs["file"])) == lines
    assert one.catalog.read_bytes() == again.catalog.read_bytes()
    assert load_benchmark("realistic").check_catalog(one.catalog) == 40


def test_the_dialect_enforces_nothing_before_and_everything_after(tmp_path: Path) -> None:
    """The loops' two sides of a dialect tool: ``any_of``, ``unique_items`` and
    ``additional_properties`` are unknown words to the old runtime, keywords once normalized;
    the ``pattern`` is enforced on both."""
    workload = load_benchmark("realistic_workload").generate(10, 1, tmp_path)
    old, new = load_benchmark("loops").tool_schemas(workload.catalog)["tool_002"]  # every third
    import jsonschema_rs

    before, after = jsonschema_rs.validator_for(old), jsonschema_rs.validator_for(new)
    for dormant in (
        {"id": "ab_1", "mode": "slow"},
        {"id": "ab_1", "tags": ["x", "x"]},
        {"id": "ab_1", "other": 1},
        {"id": "ab_1", "note": 3},
    ):
        assert before.is_valid(dormant) and not after.is_valid(dormant), dormant
    assert not before.is_valid({"id": "AB-1"}) and not after.is_valid({"id": "AB-1"})
    assert before.is_valid({"id": "ab_1", "note": None}) and after.is_valid({"id": "ab_1"})
