"""One large tool's report takes CPU time in proportion to it: its groups' loosening patches
and its changes' counterexample searches (``benchmarks/large_tools.py`` measures them as the
tool grows; here one size at which each took the square of it).

Each audit runs in a process of its own, killed past a CPU-time limit: a regression fails the
test instead of stalling it.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
from pathlib import Path
from typing import Any

from tests.benchmark_scripts import load_benchmark
from tests.conftest import AUDITOR, ROOT, seconds

KILLED_PAST = 30
"""CPU seconds after which the audit's process is killed (stretched like every bound)."""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _audit(folder: Path, catalog: str, log: str) -> tuple[dict[str, Any], float]:
    """The JSON report of ``auditor audit`` over ``catalog`` and ``log``, and the CPU seconds
    its process took (killed past ``KILLED_PAST``, or 4 GB of address space)."""
    (folder / "tools.json").write_text(catalog, encoding="utf-8")
    (folder / "calls.jsonl").write_text(log, encoding="utf-8")
    limit = int(seconds(KILLED_PAST))

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit))
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    args = ["audit", "--schemas", "tools.json", "--logs", "calls.jsonl", "--no-report-files"]
    started = _children_cpu()
    done = subprocess.run(
        [*AUDITOR, *args, "--jobs", "1", "--format", "json", "--output", "report.json"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=limits,
        capture_output=True,
        text=True,
        timeout=900,
    )
    spent = _children_cpu() - started
    assert done.returncode in (0, 1), (done.returncode, spent, done.stderr[-2000:])
    report: dict[str, Any] = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    return report, spent


def test_the_patches_of_a_large_tool_take_time_in_proportion_to_it(tmp_path: Path) -> None:
    # 6,000 properties (2.1 MB), 180 groups each with a patch written into the catalog: each
    # patch normalized, copied, compared and checked against its meta-schema the whole tool,
    # 37 CPU s; each is checked on the property it loosens now, 3.7 s for the whole audit.
    large = load_benchmark("large_tools")
    workload = large.WORKLOADS["groups"]
    report, spent = _audit(tmp_path, workload.catalog(6000), workload.log(6000))
    assert spent < seconds(10)
    groups = report["groups"]
    assert len(groups) == 180
    first = next(g for g in groups if g["schema_pointer"] == "/properties/p0/maxLength")
    assert first["patch"]["summary"] == "raise maxLength 1 → 2"
    assert first["patch"]["file_operations"] == [
        {"op": "replace", "path": "/properties/p0/max_length", "value": 2}
    ]
    assert all(g["patch"]["file"] == "tools.json" for g in groups)
    assert all(g["patch"]["file_problem"] is None for g in groups)
    # The rewrites no call failed are searched: one edit of a logged call shows each.
    assert len(report["counterexamples"]) == 6000 - 180
    assert {c["status"] for c in report["counterexamples"]} == {"found"}


def test_the_proofs_of_a_large_tool_take_time_in_proportion_to_it(tmp_path: Path) -> None:
    # 4,000 integer properties, each with three keywords of strings and arrays written in
    # the dialect: 12,000 changes no call tested, each proved harmless by the sibling type.
    # Each proof looped over every change to see that none changed the type: 49 CPU s; it
    # asks the tool's index now, 2.5 s for the whole audit.
    large = load_benchmark("large_tools")
    keywords = ("max_length", "min_length", "max_items")
    catalog = large.catalog(4000, kinds=("integer",), keywords=keywords)
    report, spent = _audit(tmp_path, catalog, large.quiet_log(4000))
    assert spent < seconds(10)
    found = report["counterexamples"]
    assert len(found) == 12_000
    assert {c["status"] for c in found} == {"harmless"}
    by_change = {c["change"]: c["reason"] for c in found}
    assert by_change["/properties/p7/max_items"] == (
        "the sibling 'type: \"integer\"' admits no value 'maxItems' applies to"
    )
