"""Measure the audit against the floor (parsing alone) and two python-jsonschema baselines.

    python3 benchmarks/run.py --calls 1000000 --jobs 2

Generates the workload (benchmarks/generate.py) unless it exists, then prints, for this
machine: the audit end to end (calls/s, peak RSS), the time to merely parse the log with
orjson (every line and its arguments text: the floor any audit pays), a loop over the log
with one cached python-jsonschema validator per schema, and the naive loop calling
``jsonschema.validate`` per call (on a sample, extrapolated). Ratios are what to judge by:
absolute figures move with the machine and its load.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import orjson
from jsonschema import validators

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate

NAIVE_SAMPLE = 2_000


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
    """Replay the first calls with and without the fast engine: (calls compared, differing)."""
    from auditor.aggregate.pipeline import prepare, replay_call
    from auditor.inputs.catalogs import load_catalogs
    from auditor.inputs.reader import LogReader
    from auditor.schema.normalize import DEFAULT_RULES

    tools = load_catalogs([str(catalog)]).tools
    fast, reference = prepare(tools, DEFAULT_RULES), prepare(tools, DEFAULT_RULES, fast=False)
    compared = differing = 0
    for call in itertools.islice(LogReader([str(log)]), sample):
        one, other = replay_call(fast, call), replay_call(reference, call)
        compared += 1
        differing += (one.outcome, one.errors, one.schema_problem) != (
            other.outcome,
            other.errors,
            other.schema_problem,
        )
    return compared, differing


def audit(log: Path, catalog: Path, jobs: int, out: Path) -> tuple[float, int]:
    """Seconds for ``auditor audit`` end to end (JSON and Markdown written), and peak RSS KiB."""
    command = [
        sys.executable, "-m", "auditor", "audit", "--schemas", str(catalog), "--logs", str(log),
        "--jobs", str(jobs), "--quiet", "--report-dir", str(out),
    ]  # fmt: skip
    started = time.perf_counter()
    completed = subprocess.run(command, check=False)
    elapsed = time.perf_counter() - started
    if completed.returncode not in (0, 1):
        raise SystemExit(f"audit failed with exit status {completed.returncode}")
    return elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/auditor-benchmark"))
    parser.add_argument("--cached-sample", type=int, default=None, help="Calls for the cached loop")
    parser.add_argument(
        "--reference-sample", type=int, default=50_000, help="Calls replayed by both engines"
    )
    options = parser.parse_args()
    work = options.dir / f"{options.calls}-{options.seed}"
    log, catalog = work / "calls.jsonl", work / "tools.json"
    if not log.exists():
        generate(options.calls, options.seed, work)

    audit_s, rss_kib = audit(log, catalog, options.jobs, work / "reports")
    floor_s, lines = parse_floor(log)
    cached_s, cached_n = cached_loop(log, catalog, options.cached_sample)
    naive_s, naive_n = naive_loop(log, catalog, NAIVE_SAMPLE)
    cached_full = cached_s * lines / cached_n
    naive_full = naive_s * lines / naive_n

    print(f"workload: {lines:,} calls, 200 tools, seed {options.seed} ({log})")
    print(f"machine: {os.cpu_count()} cores; audit with --jobs {options.jobs}")
    print(f"audit end to end:      {audit_s:8.2f} s  {lines / audit_s:12,.0f} calls/s")
    print(f"peak RSS (largest process): {rss_kib / 1024:,.0f} MiB")
    print(f"orjson parse (floor):  {floor_s:8.2f} s  {lines / floor_s:12,.0f} lines/s")
    print(
        f"cached validators:     {cached_full:8.2f} s  {lines / cached_full:12,.0f} calls/s"
        f"  (measured on {cached_n:,} calls)"
    )
    print(
        f"naive validate():      {naive_full:8.2f} s  {lines / naive_full:12,.0f} calls/s"
        f"  (measured on {naive_n:,} calls, extrapolated)"
    )
    compared, differing = reference_check(log, catalog, options.reference_sample)
    print(f"fast engine vs reference: {differing} of {compared:,} calls differ (must be 0)")
    print(f"audit / floor:         {audit_s / floor_s:8.2f}x  (target: at most 3x)")
    print(f"cached loop / audit:   {cached_full / audit_s:8.2f}x  (target: at least 25x)")
    print(f"naive loop / audit:    {naive_full / audit_s:8.2f}x")


if __name__ == "__main__":
    main()
