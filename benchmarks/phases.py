"""CPU seconds of an audit's phases, in one process per round: counting the calls
(``count_calls``), building the report (``build_report``, the counterexample search included),
rendering it (JSON, Markdown, the table), and the whole; with the garbage collector's share of
each (``gc.callbacks``) and the full (generation 2) collections it made.

    python benchmarks/phases.py --workload /tmp/rw10k --rounds 5 --tree /work/main --tree $PWD

Each round audits ``--workload`` (a folder with ``tools.json`` and ``calls.jsonl``) with
``--jobs 1`` in a fresh interpreter per tree, the trees taking turns round by round so that a
change in the machine's load falls on all of them alike; medians of the rounds are printed,
with the load (``uptime``) before and after. Only functions every tree has are timed (the
inline engine's ``count_calls``, the engines' ``build_report``, ``auditor.report.render``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROUND = r"""
import gc, json, sys, time
from pathlib import Path
gc_cpu = [0.0, 0.0, 0.0]; gc_runs = [0, 0, 0]; started = [0.0]
def timing(phase, info):
    if phase == "start":
        started[0] = time.process_time()
    else:
        generation = info["generation"]
        gc_cpu[generation] += time.process_time() - started[0]
        gc_runs[generation] += 1
gc.callbacks.append(timing)
import auditor.engines.core as core, auditor.engines.inline as inline
from auditor.engines.choice import audit_logs
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_files import check_logs
from auditor.report import Format, render
from auditor.request import AuditRequest, Limits
phases = {}
def measured(name, work):
    before_cpu, before_gc, before_full = time.process_time(), sum(gc_cpu), gc_runs[2]
    done = work()
    phases[name] = [time.process_time() - before_cpu, sum(gc_cpu) - before_gc,
                    gc_runs[2] - before_full]
    return done
def timed(name, function):
    return lambda *args, **kwargs: measured(name, lambda: function(*args, **kwargs))
inline.count_calls = timed("count_calls", inline.count_calls)
core.build_report = timed("build_report", core.build_report)
folder = Path(sys.argv[1])
def audit():
    catalogs = load_catalogs([str(folder / "tools.json")])
    files, _ = check_logs([str(folder / "calls.jsonl")])
    report = audit_logs(catalogs.tools, files, [str(folder / "tools.json")],
                        AuditRequest(limits=Limits(jobs=1)))
    for fmt in (Format.JSON, Format.MARKDOWN, Format.TABLE):
        measured(f"render {fmt.value}", lambda: render(report, fmt))
measured("whole (after imports)", audit)
print(json.dumps(phases))
"""


def one_round(tree: Path, workload: Path) -> dict[str, list[float]]:
    """The phases of one audit of ``workload`` by ``tree``'s code, in a fresh interpreter."""
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    shown = subprocess.run(
        [sys.executable, "-c", ROUND, str(workload)],
        cwd=tree,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    measured: dict[str, list[float]] = json.loads(shown.stdout.splitlines()[-1])
    return measured


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", type=Path, action="append", required=True)
    arguments = parser.parse_args()
    print(f"load before: {load()}")
    rounds: dict[Path, list[dict[str, list[float]]]] = {tree: [] for tree in arguments.tree}
    for _ in range(arguments.rounds):
        for tree in arguments.tree:
            rounds[tree].append(one_round(tree, arguments.workload))
    print(f"load after:  {load()}")
    print(f"CPU seconds, median of {arguments.rounds} (of which the collector; full collections)")
    for number, tree in enumerate(arguments.tree, start=1):
        print(f"  [{number}] {tree}")
    names = list(rounds[arguments.tree[0]][0])
    header = "".join(f"{f'[{n}]':>26}" for n in range(1, len(arguments.tree) + 1))
    print(f"  {'phase':24}{header}")
    for name in names:
        cells = []
        for tree in arguments.tree:
            cpu, gc_cpu, full = (
                statistics.median(r[name][i] for r in rounds[tree]) for i in range(3)
            )
            cells.append(f"{cpu:8.3f} ({gc_cpu:6.3f}; {full:3.0f})")
        print(f"  {name:24}" + "".join(f"{cell:>26}" for cell in cells))


if __name__ == "__main__":
    main()
