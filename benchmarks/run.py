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

``--baselines`` adds, for single-file workloads: the time to merely parse the log with orjson
(every line and its arguments text: the floor any audit pays), a loop over the log with one
cached python-jsonschema validator per schema, and the naive loop calling
``jsonschema.validate`` per call (on a sample, extrapolated). Ratios are what to judge by:
absolute figures move with the machine and its load. ``--auditor-tree`` measures the
``auditor`` of another source tree (``git worktree`` or ``git archive`` of a commit) on the
same workloads: before and after a change.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import orjson
from jsonschema import validators

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import WORKLOADS, generate

NAIVE_SAMPLE = 2_000
SMALL_CALLS = 20_000
FULL_CALLS = 1_000_000


def _lines(log: Path) -> list[bytes]:
    return log.read_bytes().splitlines()


def parse_floor(log: Path) -> tuple[float, int]:
    """Seconds to parse every line and its arguments text with orjson, and the line count."""
    started = time.perf_counter()
    count = 0
    with open(log, "rb") as stream:
        for line in stream:
            count += 1
            try:
                record = orjson.loads(line)
                if isinstance(record.get("arguments"), str):
                    orjson.loads(record["arguments"])
            except orjson.JSONDecodeError:
                pass
    return time.perf_counter() - started, count


def _schemas(catalog: Path) -> dict[str, tuple[Any, Any]]:
    """Old and normalized schema of every tool (normalized with auditor's normalizer)."""
    from auditor.schema.normalize import normalize

    tools = json.loads(catalog.read_text())["tools"]
    return {t["name"]: (t["inputSchema"], normalize(t["inputSchema"]).schema) for t in tools}


def cached_loop(log: Path, catalog: Path, limit: int | None = None) -> tuple[float, int]:
    """A loop a user would write: one validator per schema, built once; old and new."""
    compiled = {}
    for name, (old, new) in _schemas(catalog).items():
        compiled[name] = tuple(
            validators.validator_for(s, default=validators.Draft202012Validator)(s)
            for s in (old, new)
        )
    started = time.perf_counter()
    count = 0
    with open(log, "rb") as stream:
        for line in itertools.islice(stream, limit):
            count += 1
            try:
                record = orjson.loads(line)
                arguments = orjson.loads(record["arguments"])
                for validator in compiled[record["tool"]]:
                    with contextlib.suppress(Exception):
                        validator.is_valid(arguments)
            except (orjson.JSONDecodeError, KeyError, TypeError):
                pass
    return time.perf_counter() - started, count


def naive_loop(log: Path, catalog: Path, sample: int) -> tuple[float, int]:
    """``jsonschema.validate`` per call and schema, as tutorials show it."""
    schemas = _schemas(catalog)
    started = time.perf_counter()
    count = 0
    with open(log, "rb") as stream:
        for line in itertools.islice(stream, sample):
            count += 1
            try:
                record = json.loads(line)
                arguments = json.loads(record["arguments"])
                for schema in schemas[record["tool"]]:
                    with contextlib.suppress(Exception):
                        jsonschema.validate(arguments, schema)
            except (ValueError, KeyError, TypeError):
                pass
    return time.perf_counter() - started, count


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
        baselines(log, catalog, options)


def baselines(log: Path, catalog: Path, options: argparse.Namespace) -> None:
    audit_s = audit(log, catalog, options.jobs, log.parent / "reports", options.auditor_tree).wall
    floor_s, lines = parse_floor(log)
    cached_s, cached_n = cached_loop(log, catalog, options.cached_sample)
    naive_s, naive_n = naive_loop(log, catalog, NAIVE_SAMPLE)
    cached_full = cached_s * lines / cached_n
    naive_full = naive_s * lines / naive_n
    print(f"audit end to end:      {audit_s:8.2f} s  {lines / audit_s:12,.0f} calls/s")
    print(f"orjson parse (floor):  {floor_s:8.2f} s  {lines / floor_s:12,.0f} lines/s")
    print(
        f"cached validators:     {cached_full:8.2f} s  {lines / cached_full:12,.0f} calls/s"
        f"  (measured on {cached_n:,} calls)"
    )
    print(
        f"naive validate():      {naive_full:8.2f} s  {lines / naive_full:12,.0f} calls/s"
        f"  (measured on {naive_n:,} calls, extrapolated)"
    )
    print(f"audit / floor:         {audit_s / floor_s:8.2f}x  (target: at most 3x)")
    print(f"cached loop / audit:   {cached_full / audit_s:8.2f}x  (target: at least 25x)")
    print(f"naive loop / audit:    {naive_full / audit_s:8.2f}x")


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
