"""Measure the audit on workloads that cannot flatter it, and against python-jsonschema.

    python3 benchmarks/run.py                   # every workload, 20,000 calls, 3 rounds
    python3 benchmarks/run.py --full            # 1,000,000 calls each
    python3 benchmarks/run.py --workload keyword-names --calls 300000 --rounds 3
    python3 benchmarks/run.py --workload standard --calls 1000000 --jobs 2 --baselines

Generates each workload (benchmarks/generate.py: ``WORKLOADS``) unless it exists, runs
``auditor audit`` on it ``--rounds`` times and prints the medians (and range) of the wall time
and of the CPU seconds the audit and its worker processes used, CPU microseconds per call
and peak RSS; then replays a sample of calls with and without the fast validator (how many
differ: must be 0). CPU seconds are what to compare on a shared machine: wall time moves with
the load of others, CPU time much less.

``--baselines`` adds, for single-file workloads, what the audit is measured against
(``benchmarks/loops.py``), each in CPU seconds beside the audit's CPU seconds (its worker
processes included): the orjson parse of every line and its arguments text (the floor any
audit pays), the loop a user would write with jsonschema-rs (old and new verdicts, validators
compiled once per tool), a loop with one cached python-jsonschema validator per schema that
lists the errors (``iter_errors``: a report needs them; ``is_valid`` stops at the first), and
the naive loop calling ``jsonschema.validate`` per call (on a sample, extrapolated). The old
side is read as the lenient runtime reads it, the new side is its normalization. The audit's
figure is the median CPU seconds of its rounds. Ratios are what to judge by: absolute figures
move with the machine and its load.

``--auditor-tree`` measures the ``auditor`` of another source tree (``git worktree`` or
``git archive`` of a commit) on the same workloads: before and after a change.
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import loops
from generate import WORKLOADS, generate

NAIVE_SAMPLE = 2_000
SMALL_CALLS = 20_000
FULL_CALLS = 1_000_000


def reference_check(log: Path, catalog: Path, sample: int) -> tuple[int, int]:
    """Replay the first calls with and without the fast validator: (calls compared, differing).
    The auditor on ``sys.path`` (this tree's, or PYTHONPATH's) replays them."""
    from auditor.aggregate.pipeline import evaluate_call, prepare
    from auditor.inputs.catalogs import load_catalogs
    from auditor.inputs.log_files import check_logs
    from auditor.inputs.reader import LogReader
    from auditor.schema.normalize import DEFAULT_RULES

    tools = load_catalogs([str(catalog)]).tools
    fast, reference = prepare(tools, DEFAULT_RULES), prepare(tools, DEFAULT_RULES, fast=False)
    compared = differing = 0
    files, _ = check_logs([str(log)])
    for call in itertools.islice(LogReader(files), sample):
        one, other = evaluate_call(fast, call)[0], evaluate_call(reference, call)[0]
        compared += 1
        differing += (one.outcome, one.errors, one.schema_problem) != (
            other.outcome,
            other.errors,
            other.schema_problem,
        )
    return compared, differing


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class Round:
    wall: float
    cpu: float
    """User and system seconds of the audit process and of every worker it waited for."""


def audit(log: Path, catalog: Path, jobs: int, out: Path, tree: Path | None = None) -> Round:
    """One ``auditor audit`` end to end (JSON and Markdown written), by ``tree``'s auditor."""
    command = [
        sys.executable, "-m", "auditor", "audit", "--schemas", str(catalog), "--logs", str(log),
        "--jobs", str(jobs), "--quiet", "--report-dir", str(out),
    ]  # fmt: skip
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    cpu = _children_cpu()
    started = time.perf_counter()
    completed = subprocess.run(command, check=False, cwd=tree, env=env, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if completed.returncode not in (0, 1):  # 1: newly rejected calls, as the workload has
        sys.stderr.buffer.write(completed.stderr)
        raise SystemExit(f"audit failed with exit status {completed.returncode}")
    return Round(elapsed, _children_cpu() - cpu)


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):7.2f} s ({min(values):.2f}-{max(values):.2f})"


def measure(name: str, options: argparse.Namespace) -> None:
    """Every round of one workload, then its medians on one line."""
    work = options.dir / f"{name}-{options.calls}-{options.seed}"
    catalog = work / "tools.json"
    layout = WORKLOADS[name].layout
    log = work / {"file": "calls.jsonl", "gzip": "calls.jsonl.gz", "split": "logs"}[layout]
    if not log.exists():
        generate(options.calls, options.seed, work, WORKLOADS[name])
    rounds = [
        audit(log, catalog, options.jobs, work / "reports", options.auditor_tree)
        for _ in range(options.rounds)
    ]
    walls, cpus = [r.wall for r in rounds], [r.cpu for r in rounds]
    per_call = statistics.median(cpus) / options.calls * 1e6
    print(
        f"{name:14} {options.calls:>10,} calls  wall {_spread(walls)}  cpu {_spread(cpus)}"
        f"  {per_call:6.1f} µs/call cpu  {options.calls / statistics.median(walls):9,.0f} calls/s"
        f"  peak RSS so far {_peak_rss_mib():,.0f} MiB",
        flush=True,
    )
    if options.reference_sample:
        compared, differing = reference_check(log, catalog, options.reference_sample)
        print(f"{'':14} fast validator vs reference: {differing} of {compared:,} calls differ")
    if layout == "file" and options.baselines:
        baselines(log, catalog, options, statistics.median(cpus))


def baselines(log: Path, catalog: Path, options: argparse.Namespace, audit_s: float) -> None:
    """The audit's CPU seconds (``audit_s``) beside those of the loops of
    ``benchmarks/loops.py``."""
    schemas = loops.tool_schemas(catalog)
    floor = loops.parse_floor(log)
    lines = floor.lines
    rs = loops.jsonschema_rs_loop(log, schemas)
    cached = loops.python_jsonschema_loop(log, schemas, options.cached_sample)
    naive = loops.naive_loop(log, schemas, NAIVE_SAMPLE)
    cached_full = cached.cpu * lines / cached.lines
    naive_full = naive.cpu * lines / naive.lines
    print(f"CPU seconds, {lines:,} lines; audit with --jobs {options.jobs} (all its processes)")
    print(f"audit end to end:       {audit_s:8.2f} s  {audit_s / lines * 1e6:8.2f} µs/call")
    print(f"orjson parse (floor):   {floor.cpu:8.2f} s  {floor.per_line_us():8.2f} µs/line")
    print(f"jsonschema-rs loop:     {rs.cpu:8.2f} s  {rs.per_line_us():8.2f} µs/call")
    print(
        f"cached iter_errors:     {cached_full:8.2f} s  {cached.per_line_us():8.2f} µs/call"
        f"  (measured on {cached.lines:,} calls)"
    )
    print(
        f"naive validate():       {naive_full:8.2f} s  {naive.per_line_us():8.2f} µs/call"
        f"  (measured on {naive.lines:,} calls, extrapolated)"
    )
    print(f"audit / floor:          {audit_s / floor.cpu:8.2f}x")
    print(f"audit / jsonschema-rs:  {audit_s / rs.cpu:8.2f}x")
    print(f"cached loop / audit:    {cached_full / audit_s:8.2f}x")
    print(f"naive loop / audit:     {naive_full / audit_s:8.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", choices=sorted(WORKLOADS), action="append")
    parser.add_argument("--calls", type=int, default=None, help=f"default {SMALL_CALLS:,}")
    parser.add_argument("--full", action="store_true", help=f"{FULL_CALLS:,} calls")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/auditor-benchmark"))
    parser.add_argument("--auditor-tree", type=Path, default=None)
    parser.add_argument("--baselines", action="store_true")
    parser.add_argument("--cached-sample", type=int, default=None, help="Calls for the cached loop")
    parser.add_argument(
        "--reference-sample", type=int, default=5_000, help="Calls replayed by both engines"
    )
    options = parser.parse_args()
    options.calls = options.calls or (FULL_CALLS if options.full else SMALL_CALLS)
    tree = options.auditor_tree.resolve() if options.auditor_tree else Path.cwd()
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; --jobs {options.jobs}")
    print(f"auditor: {tree}; {options.rounds} rounds each, seed {options.seed}")
    for name in options.workload or list(WORKLOADS):
        measure(name, options)


if __name__ == "__main__":
    main()
