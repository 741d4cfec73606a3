"""What ``--jobs 2`` gains over ``--jobs 1``, and what it costs in CPU, on issue 26's workload.

    PYTHONPATH=$PWD python3 benchmarks/parallel.py                    # 300,000 calls, 3 rounds
    PYTHONPATH=$PWD python3 benchmarks/parallel.py --calls 100000 --layout gzip
    python3 benchmarks/parallel.py --tree /path/to/main --tree .      # before and after

Writes the workload of ``benchmarks/realistic_workload.py`` (120 tools with ``anyOf``, ``$ref``,
``pattern``, ``uniqueItems``, a property ``id``; about 60% distinct argument texts, 13% of
calls rejected) as one large JSON Lines file, a gzip copy and a folder of 400 small files,
then audits each ``--rounds`` times with ``--jobs 1`` and ``--jobs 2`` through
``auditor.api.audit``, each audit in a fresh process (nothing compiled in one serves the
next), the two taking turns so that a change of load falls on both alike. For each it prints
the medians of the wall time and of the CPU seconds of the audit process and of its worker
processes (``getrusage``: user and system), the speed-up in wall time, the extra CPU of
``--jobs 2`` against ``--jobs 1`` and the load average seen over the rounds.

The machine is shared: wall time says what a free core gives, and only when the load is
under the number of cores; the CPU figures are the fair ones. Every audit's JSON report is
hashed: a line says when one ``--jobs`` or round gives another report (it must not).

``--control`` adds, each round, two ``--jobs 1`` audits started together: how much more CPU
each takes than one alone is what two busy processes cost this machine, with nothing of
``--jobs`` in it (the part of the extra CPU of ``--jobs 2`` the code cannot remove).
``--count`` adds one audit per ``--jobs`` under cProfile and prints the Python function calls
of the audit process and of its workers: a measure of work that the load does not move (CPU
seconds do: two busy processes on shared cores each run slower than one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from realistic_workload import LAYOUTS, generate

JOBS = (1, 2)

_AUDIT = """
import hashlib, json, os, resource, sys, time
from auditor.api import audit
from auditor.report import Format, render
from auditor.request import AuditRequest, Inputs, Limits

catalog, log, jobs, counted = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
request = AuditRequest(Inputs(schemas=(catalog,), logs=(log,)), limits=Limits(jobs=jobs))
if counted:  # every process's Python function calls, by cProfile: work the load does not move
    import cProfile, pstats
    from auditor.engines import local
    work_at = local._work_at
    def profiled(place, part):
        profile = cProfile.Profile()
        try:
            return profile.runcall(work_at, place, part)
        finally:
            profile.dump_stats(os.path.join(counted, f"part-{place}"))
    local._work_at = profiled
    whole = cProfile.Profile()
    whole.enable()
def cpu(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime
load = os.getloadavg()[0]
parent, workers = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
wall = time.perf_counter()
report = audit(request).report
wall = time.perf_counter() - wall
parent, workers = cpu(resource.RUSAGE_SELF) - parent, cpu(resource.RUSAGE_CHILDREN) - workers
calls = [0, 0]
if counted:
    whole.disable()
    calls[0] = pstats.Stats(whole).total_calls
    parts = [os.path.join(counted, name) for name in os.listdir(counted)]
    calls[1] = pstats.Stats(*parts).total_calls if parts else 0
digest = hashlib.sha256(render(report, Format.JSON).encode()).hexdigest()[:16]
json.dump({
    "wall": wall, "parent": parent, "workers": workers, "digest": digest,
    "load": max(load, os.getloadavg()[0]), "calls": calls,
}, sys.stdout)
"""
"""Run in a fresh interpreter: one audit through the API, timed around the call; the CPU of
the audit process and of its workers apart, the load average (the higher of before and
after) and the digest of its JSON report (rendered after the timing)."""


@dataclass(frozen=True)
class Audit:
    wall: float
    parent: float
    workers: float
    load: float
    digest: str
    calls: tuple[int, int] = (0, 0)
    """Python function calls of the audit process and of its workers (``--count``)."""

    @property
    def cpu(self) -> float:
        return self.parent + self.workers


def audit(catalog: Path, log: Path, jobs: int, tree: Path, count: bool = False) -> Audit:
    """``auditor.api.audit`` of ``tree``'s code in a fresh process; ``count``: under cProfile,
    counting the function calls of every process (slower: not the timed rounds)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    with tempfile.TemporaryDirectory(prefix="auditor-parallel-profiles-") as profiles:
        command = [
            *[sys.executable, "-c", _AUDIT, str(catalog), str(log), str(jobs)],
            profiles if count else "",
        ]
        done = subprocess.run(command, capture_output=True, check=False, env=env, cwd=tree)
    if done.returncode != 0:
        sys.stderr.buffer.write(done.stderr)
        raise SystemExit(f"the audit failed ({done.returncode})")
    out: dict[str, Any] = json.loads(done.stdout)
    calls = (out["calls"][0], out["calls"][1])
    return Audit(out["wall"], out["parent"], out["workers"], out["load"], out["digest"], calls)


def side_by_side(catalog: Path, log: Path, tree: Path) -> float:
    """The mean CPU seconds of two ``--jobs 1`` audits started together: what two busy
    processes cost the machine (each runs slower when the cores, their caches and the memory
    bus are shared, and on a shared machine with the others' runs), with nothing of
    ``--jobs`` in it."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    command = [sys.executable, "-c", _AUDIT, str(catalog), str(log), "1", ""]
    running = [
        subprocess.Popen(command, stdout=subprocess.PIPE, env=env, cwd=tree) for _ in range(2)
    ]
    cpu = []
    for process in running:
        out, _ = process.communicate()
        if process.returncode != 0:
            raise SystemExit(f"the audit failed ({process.returncode})")
        got: dict[str, Any] = json.loads(out)
        cpu.append(got["parent"] + got["workers"])
    return statistics.mean(cpu)


def _median(values: Sequence[float]) -> float:
    return statistics.median(values)


def summary(
    layout: str, tree: int, runs: dict[int, list[Audit]], counts: dict[int, Audit]
) -> list[str]:
    """The lines of one layout and tree: each ``--jobs``'s medians, then the ratios, then
    the function calls counted (``--count``)."""
    counted = {jobs: one.digest for jobs, one in counts.items()}
    lines = []
    for jobs, audits in runs.items():
        loads = [a.load for a in audits]
        lines.append(
            f"  [{tree}] {layout:5} --jobs {jobs}: wall {_median([a.wall for a in audits]):6.2f} s"
            f"  cpu {_median([a.cpu for a in audits]):6.2f} s (audit process"
            f" {_median([a.parent for a in audits]):5.2f}, workers"
            f" {_median([a.workers for a in audits]):5.2f})  load {min(loads):.1f}-{max(loads):.1f}"
        )
    one, two = runs[1], runs[2]
    speed_up = _median([a.wall for a in one]) / _median([a.wall for a in two])
    extra = _median([a.cpu for a in two]) / _median([a.cpu for a in one]) - 1
    digests = {a.digest for audits in runs.values() for a in audits} | set(counted.values())
    same = "the same report" if len(digests) == 1 else f"{len(digests)} DIFFERENT reports"
    lines.append(
        f"  [{tree}] {layout:5} --jobs 2: {speed_up:.2f}x in wall time, {extra:+.1%} CPU; {same}"
        f" (sha256 {min(digests)})"
    )
    if counts:
        alone = sum(counts[1].calls)
        two = counts[2].calls
        lines.append(
            f"  [{tree}] {layout:5} Python function calls: --jobs 1 {alone / 1e6:.1f} M,"
            f" --jobs 2 {sum(two) / 1e6:.1f} M (audit process {two[0] / 1e6:.1f} M, workers"
            f" {two[1] / 1e6:.1f} M): {sum(two) / alone - 1:+.1%} work"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--layout", choices=sorted(LAYOUTS), action="append")
    parser.add_argument("--dir", type=Path, default=None, help="Where the temporary folder goes")
    parser.add_argument(
        "--control",
        action="store_true",
        help="also two --jobs 1 audits side by side, each round: the machine's cost of two",
    )
    parser.add_argument(
        "--count",
        action="store_true",
        help="also one audit per --jobs under cProfile: the function calls of every process",
    )
    parser.add_argument(
        "--tree",
        type=Path,
        action="append",
        help="a checkout whose code is measured (repeat to compare; default: PYTHONPATH or .)",
    )
    options = parser.parse_args(argv)
    trees = [t.resolve() for t in options.tree or [Path(os.environ.get("PYTHONPATH") or ".")]]
    layouts = options.layout or ["file", "gzip", "split"]
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    for number, tree in enumerate(trees, 1):
        print(f"  [{number}] {tree}")
    with tempfile.TemporaryDirectory(prefix="auditor-parallel-", dir=options.dir) as folder:
        workload = generate(options.calls, options.seed, Path(folder), tuple(layouts))
        print(
            f"workload: {options.calls:,} calls, {workload.distinct_share:.1%} distinct argument"
            f" texts; medians of {options.rounds} rounds, --jobs 1 and 2 taking turns",
            flush=True,
        )
        for layout in layouts:
            log = workload.logs[layout]
            runs: list[dict[int, list[Audit]]] = [{jobs: [] for jobs in JOBS} for _ in trees]
            controls: list[list[float]] = [[] for _ in trees]
            for number in range(options.rounds):
                for tree, seen, pairs in zip(trees, runs, controls, strict=True):
                    for jobs in JOBS:
                        seen[jobs].append(audit(workload.catalog, log, jobs, tree))
                    if options.control:
                        pairs.append(side_by_side(workload.catalog, log, tree))
                this = "; ".join(
                    f"[{t}] "
                    + ", ".join(f"--jobs {j} {r[j][-1].cpu:.2f}/{r[j][-1].wall:.2f}" for j in JOBS)
                    for t, r in enumerate(runs, 1)
                )
                print(f"{layout} round {number + 1} (cpu/wall s): {this}", flush=True)
            for number, (tree, seen, pairs) in enumerate(
                zip(trees, runs, controls, strict=True), 1
            ):
                counts = (
                    {jobs: audit(workload.catalog, log, jobs, tree, count=True) for jobs in JOBS}
                    if options.count
                    else {}
                )
                print("\n".join(summary(layout, number, seen, counts)), flush=True)
                if pairs:
                    alone = _median([a.cpu for a in seen[1]])
                    print(
                        f"  [{number}] {layout:5} two --jobs 1 audits side by side:"
                        f" {_median(pairs):.2f} s CPU each, {_median(pairs) / alone - 1:+.1%}"
                        " against one alone (the machine's cost of two busy processes)",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
