"""What building the reports costs as the groups grow: SARIF with its loosening fixes, the
``--suggest-patch`` diff, and ``--group-by caller`` with thousands of callers.

    PYTHONPATH=$PWD python3 benchmarks/report_building.py --rounds 3
    PYTHONPATH=$PWD python3 benchmarks/report_building.py --groups 1000 2000 --callers 0

Two workloads, each run as ``auditor audit`` in a child process (so the figures are the
command's own, start-up included):

- ``fixes``: one catalog of 4,000 string properties written ``max_length: 1`` (about 100 KB of
  YAML, or JSON with ``--json``), 8 tools of 500; the calls send the first N/8 properties of
  each tool too long, so N groups are each hinted loosen-schema and each gets a verified
  patch. Written as SARIF (one fix per group) and as ``--suggest-patch``.
- ``callers``: one constraint, M callers (``--group-by caller``), each caller's calls too
  long: M groups, each with the same patch, written as SARIF.

Prints, per size, the CPU seconds of the child (user + system) and its wall time, medians of
``--rounds``, and the ratio to the previous size: linear growth doubles with the groups.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOLS = 8
PROPERTIES = 500
"""Properties of each tool: 4,000 constraints in one catalog."""
CALLS_PER_TOOL = 6
"""Enough calls for a share to count (``hints.MIN_CALLS``); every one fails every group."""


def catalog_text(as_json: bool) -> str:
    """The catalog: ``TOOLS`` tools of ``PROPERTIES`` properties, each ``max_length: 1``
    (a dialect spelling the normalization wakes up), one property to a line."""
    if as_json:
        tools = []
        for t in range(TOOLS):
            lines = ",\n".join(
                f'        "p{p}": {{"type": "string", "max_length": 1}}' for p in range(PROPERTIES)
            )
            tools.append(
                f'  "t{t}": {{\n    "type": "object",\n    "properties": {{\n{lines}\n    }}\n  }}'
            )
        return "{\n" + ",\n".join(tools) + "\n}\n"
    out = []
    for t in range(TOOLS):
        out.append(f"t{t}:\n  type: object\n  properties:\n")
        out += [f"    p{p}: {{type: string, max_length: 1}}\n" for p in range(PROPERTIES)]
    return "".join(out)


def fixes_log(groups: int) -> str:
    """Calls that fail the first ``groups / TOOLS`` properties of every tool."""
    per_tool = groups // TOOLS
    lines = []
    for t in range(TOOLS):
        arguments = {f"p{p}": "too long" for p in range(per_tool)}
        lines += [json.dumps({"tool": f"t{t}", "arguments": arguments})] * CALLS_PER_TOOL
    return "\n".join(lines) + "\n"


def callers_log(callers: int) -> str:
    """Two too-long calls from each of ``callers`` callers, to one constraint."""
    lines = [
        json.dumps({"tool": "t0", "caller": f"agent-{c}", "arguments": {"p0": "x" * (2 + i)}})
        for c in range(callers)
        for i in range(2)
    ]
    return "\n".join(lines) + "\n"


def measure(args: list[str], rounds: int, cwd: Path) -> tuple[float, float]:
    """Median CPU seconds (user + system of the child) and wall seconds of ``auditor ARGS``."""
    cpu, wall = [], []
    for _ in range(rounds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "auditor", *args], cwd=cwd, capture_output=True, text=True
        )
        wall.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):
            raise SystemExit(f"auditor {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
        cpu.append(
            after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
        )
    return statistics.median(cpu), statistics.median(wall)


def _row(label: str, size: int, figures: tuple[float, float], previous: float | None) -> float:
    cpu, wall = figures
    ratio = f"×{cpu / previous:.2f}" if previous else ""
    print(f"{label:<34} {size:>7,}  {cpu:9.2f} s CPU  {wall:9.2f} s wall  {ratio}", flush=True)
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, nargs="*", default=[1000, 2000, 4000])
    parser.add_argument("--callers", type=int, nargs="*", default=[2500, 5000, 10000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="the catalog as JSON, not YAML")
    options = parser.parse_args()
    environment = {**os.environ}
    with tempfile.TemporaryDirectory(prefix="auditor-report-building-") as folder:
        here = Path(folder)
        catalog = here / ("tools.json" if options.json else "tools.yaml")
        catalog.write_text(catalog_text(options.json), encoding="utf-8")
        os.environ.update(environment)
        print(f"catalog: {catalog.name}, {catalog.stat().st_size / 1000:.0f} KB, "
              f"{TOOLS * PROPERTIES:,} constraints; medians of {options.rounds} rounds")
        common = ["audit", "--schemas", catalog.name, "--logs", "calls.jsonl", "-q"]
        common += ["--no-report-files", "--old-runtime", "none"]
        sarif = ["--format", "sarif", "--output", "out.sarif"]
        previous: dict[str, float | None] = {"sarif": None, "patch": None}
        for groups in options.groups:
            (here / "calls.jsonl").write_text(fixes_log(groups), encoding="utf-8")
            cpu = _row("SARIF with fixes, groups", groups, measure([*common, *sarif], options.rounds, here), previous["sarif"])
            previous["sarif"] = cpu
            cpu = _row("--suggest-patch, groups", groups, measure([*common, "--suggest-patch", "out.diff"], options.rounds, here), previous["patch"])
            previous["patch"] = cpu
        last: float | None = None
        for callers in options.callers:
            (here / "calls.jsonl").write_text(callers_log(callers), encoding="utf-8")
            args = [*common, *sarif, "--group-by", "caller"]
            last = _row("SARIF, --group-by caller, callers", callers, measure(args, options.rounds, here), last)


if __name__ == "__main__":
    main()
