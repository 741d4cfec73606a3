"""The audit beside the loop a user would write with jsonschema-rs, on issue 26's workload.

    PYTHONPATH=$PWD python3 benchmarks/realistic.py                  # 300,000 calls, 3 rounds
    PYTHONPATH=$PWD python3 benchmarks/realistic.py --calls 1000000 --layout gzip

Writes the workload of ``benchmarks/realistic_workload.py`` (120 tools, each with a property
``id``, a ``pattern``, ``anyOf``s, a ``$ref``, ``uniqueItems``; a third in a dialect; about 60%
distinct argument texts, 13% of calls rejected on one side or both) into a temporary folder,
as one large JSON Lines file, a gzip copy or a folder of small files (``--layout``), then
measures in the same run, ``--rounds`` times, and prints the medians of CPU and wall seconds:

- ``auditor audit --jobs 1`` through ``auditor.api.audit`` (in a fresh process each round, so
  nothing compiled in one round serves the next, timed around the call), and through the
  command line in the first ``--cli-rounds`` rounds (once by default; CPU of the process from
  ``getrusage(RUSAGE_CHILDREN)``: start-up, imports and the reports written included);
- ``--jobs 2`` through the API (every round, or the first ``--jobs2-rounds``): CPU of the audit
  and of its worker processes, and wall;
- the loops of ``benchmarks/loops.py``: jsonschema-rs verdicts (old and new, validators compiled
  once per tool), python-jsonschema listing errors (``iter_errors``; on the first
  ``--cached-calls`` calls), the orjson parse floor;

then µs per call, the audit ÷ jsonschema-rs loop and audit ÷ floor ratios (CPU seconds), and the
audit's peak RSS. The workload is checked to be what it claims: the share of distinct argument
texts (from the generator) and of rejected calls (from the audit's report) must lie in
``DISTINCT_BAND`` and ``REJECTED_BAND``, or the run fails — a benchmark that drifted to
repeats or to acceptances would flatter the audit.
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import loops
from realistic_workload import LAYOUTS, TOOLS, generate

DISTINCT_BAND = (0.55, 0.65)
REJECTED_BAND = (0.10, 0.16)
REJECTED = ("newly_rejected", "still_rejected", "newly_accepted")
"""The outcomes of a call rejected on one side or both."""

_API_AUDIT = """
import json, resource, sys, time
from auditor.api import audit
from auditor.request import AuditRequest, Inputs, Limits

catalog, log, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
request = AuditRequest(Inputs(schemas=(catalog,), logs=(log,)), limits=Limits(jobs=jobs))
def children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
cpu, workers, wall = time.process_time(), children(), time.perf_counter()
report = audit(request).report
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
json.dump({
    "cpu": cpu + children() - workers,
    "wall": wall,
    "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "calls": report.call_count,
    "totals": {outcome.value: count for outcome, count in report.totals.items()},
}, sys.stdout)
"""
"""Run in a fresh interpreter: one audit through the API, timed around the call (the CPU of
its worker processes included), its peak RSS and the report's totals as JSON."""


@dataclass(frozen=True)
class Measure:
    cpu: float
    wall: float
    rss_mib: float = 0.0
    totals: dict[str, int] | None = None


def _env(tree: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return env


def api_audit(catalog: Path, log: Path, jobs: int, tree: Path | None) -> Measure:
    """``auditor.api.audit`` in a fresh process."""
    command = [sys.executable, "-c", _API_AUDIT, str(catalog), str(log), str(jobs)]
    done = subprocess.run(command, capture_output=True, check=False, env=_env(tree), cwd=tree)
    if done.returncode != 0:
        sys.stderr.buffer.write(done.stderr)
        raise SystemExit(f"the audit through the API failed ({done.returncode})")
    out: dict[str, Any] = json.loads(done.stdout)
    return Measure(out["cpu"], out["wall"], out["rss_mib"], out["totals"])


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli_audit(catalog: Path, log: Path, jobs: int, out: Path, tree: Path | None) -> Measure:
    """``auditor audit`` on the command line, JSON and Markdown reports written."""
    command = [
        sys.executable, "-m", "auditor", "audit", "--schemas", str(catalog), "--logs", str(log),
        "--jobs", str(jobs), "--quiet", "--report-dir", str(out),
    ]  # fmt: skip
    cpu, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False, env=_env(tree), cwd=tree)
    wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
    if done.returncode not in (0, 1):  # 1: newly rejected calls, as the workload has
        sys.stderr.buffer.write(done.stderr)
        raise SystemExit(f"auditor audit failed with exit status {done.returncode}")
    return Measure(cpu, wall)


def check_band(what: str, share: float, band: tuple[float, float]) -> str:
    """The line that says ``share`` is in ``band``; raises SystemExit when it is not."""
    low, high = band
    line = f"{what}: {share:.1%} (band {low:.0%}-{high:.0%})"
    if not low <= share <= high:
        raise SystemExit(f"{line}: out of band, the workload is not what it claims")
    return line + " ok"


def check_catalog(catalog: Path) -> int:
    """Every tool has what the workload claims (a property ``id``, a ``pattern``, an ``anyOf``
    of two ``const``s and one with null, a ``$ref`` into ``$defs``, ``uniqueItems``); returns
    how many tools are written in the dialect."""
    tools = json.loads(catalog.read_text(encoding="utf-8"))["tools"]
    assert len(tools) == TOOLS, len(tools)
    dialect = 0
    for tool in tools:
        schema = tool["inputSchema"]
        text = json.dumps(schema)
        snake = "any_of" in schema["properties"]["mode"]
        dialect += snake
        any_of = "any_of" if snake else "anyOf"
        assert "pattern" in schema["properties"]["id"], tool["name"]
        assert [b["const"] for b in schema["properties"]["mode"][any_of]] == ["fast", "full"]
        assert {"type": "NULL" if '"NULL"' in text else "Null" if snake else "null"} in (
            schema["properties"]["note"][any_of]
        ), tool["name"]
        assert schema["properties"]["tags"]["items"] == {"$ref": "#/$defs/tag"}, tool["name"]
        assert ("unique_items" if snake else "uniqueItems") in schema["properties"]["tags"]
        if snake:
            assert "additional_properties" in schema and "min_items" in text, tool["name"]
            assert '"String"' in text or '"STRING"' in text, tool["name"]
    return dialect


def _median(values: list[float]) -> float:
    return statistics.median(values)


def measure(options: argparse.Namespace, folder: Path) -> None:
    started = time.perf_counter()
    workload = generate(options.calls, options.seed, folder, (options.layout,))
    log = workload.logs[options.layout]
    dialect = check_catalog(workload.catalog)
    schemas = loops.tool_schemas(workload.catalog)
    size = sum(p.stat().st_size for p in ([log] if log.is_file() else log.iterdir()))
    files = 1 if log.is_file() else len(list(log.iterdir()))
    print(
        f"workload: {options.calls:,} calls, {TOOLS} tools ({dialect} in a dialect), "
        f"{options.layout} log {log.name} ({files} file{'s' * (files > 1)}, "
        f"{size / 2**20:,.0f} MiB), seed {options.seed}; written in "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )
    cached_calls = min(options.calls, options.cached_calls)
    rows: dict[str, list[Any]] = {}
    for number in range(options.rounds):

        def record(name: str, run: Callable[[], Any]) -> None:
            rows.setdefault(name, []).append(run())

        record("api1", lambda: api_audit(workload.catalog, log, 1, options.auditor_tree))
        if number < options.cli_rounds:
            record(
                "cli1",
                lambda: cli_audit(
                    workload.catalog, log, 1, folder / "reports", options.auditor_tree
                ),
            )
        if number < options.jobs2_rounds:
            record("api2", lambda: api_audit(workload.catalog, log, 2, options.auditor_tree))
        record("rs", lambda: loops.jsonschema_rs_loop(log, schemas))
        record("py", lambda: loops.python_jsonschema_loop(log, schemas, cached_calls))
        record("floor", lambda: loops.parse_floor(log))
        this = ", ".join(
            f"{name} {runs[-1].cpu:.2f}/{runs[-1].wall:.2f}"
            for name, runs in rows.items()
            if len(runs) > number
        )
        print(
            f"round {number + 1} of {options.rounds} (cpu/wall s): {this}; "
            f"load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    report(options, rows, workload.distinct_share, cached_calls)


def report(
    options: argparse.Namespace, rows: dict[str, list[Any]], distinct: float, cached: int
) -> None:
    calls = options.calls

    def cpu(name: str) -> float:
        return _median([r.cpu for r in rows[name]])

    def wall(name: str) -> float:
        return _median([r.wall for r in rows[name]])

    lines = [
        ("audit --jobs 1 (auditor.api.audit)", "api1", calls),
        ("audit --jobs 1 (command line)", "cli1", calls),
        ("audit --jobs 2 (all processes)", "api2", calls),
        ("jsonschema-rs loop (old+new verdicts)", "rs", calls),
        ("python-jsonschema loop (iter_errors)", "py", cached),
        ("orjson parse floor", "floor", calls),
    ]
    print(f"medians of {options.rounds} rounds{'':14}   cpu s    wall s   µs/call (cpu)")
    for label, name, measured in lines:
        if name not in rows:
            continue
        note = f"  (on the first {measured:,} calls)" if measured != calls else ""
        if len(rows[name]) != options.rounds:
            note += f"  ({len(rows[name])} run{'s' * (len(rows[name]) > 1)})"
        print(
            f"  {label:40} {cpu(name):8.2f}  {wall(name):8.2f}  {cpu(name) / measured * 1e6:8.2f}"
            f"{note}"
        )
    audit_us = cpu("api1") / calls * 1e6
    print(f"audit ÷ jsonschema-rs loop: {audit_us / (cpu('rs') / calls * 1e6):6.1f}x (cpu)")
    print(f"audit ÷ orjson parse floor: {audit_us / (cpu('floor') / calls * 1e6):6.1f}x (cpu)")
    print(
        f"audit ÷ python-jsonschema loop: {audit_us / (cpu('py') / cached * 1e6):6.2f}x (cpu, "
        f"per call)"
    )
    if "api2" in rows:  # against --jobs 1 in the same rounds: the load moves between rounds
        paired = rows["api1"][: len(rows["api2"])]
        one_wall, one_cpu = _median([r.wall for r in paired]), _median([r.cpu for r in paired])
        print(
            f"--jobs 2: {one_wall / wall('api2'):.2f}x faster in wall time than --jobs 1 in the "
            f"same round{'s' * (len(paired) > 1)}, {cpu('api2') / one_cpu - 1:+.0%} CPU"
        )
    print(f"peak RSS of the audit (--jobs 1): {max(r.rss_mib for r in rows['api1']):,.0f} MiB")
    totals = rows["api1"][0].totals
    rejected = sum(totals[outcome] for outcome in REJECTED)
    print(
        f"rejected on one side or both: audit {rejected:,}, jsonschema-rs loop "
        f"{rows['rs'][0].rejected:,} of {calls:,} calls"
    )
    print(check_band("distinct argument texts", distinct, DISTINCT_BAND))
    print(check_band("calls rejected (audit's report)", rejected / calls, REJECTED_BAND))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default="file")
    parser.add_argument(
        "--cached-calls",
        type=int,
        default=300_000,
        help="Calls the python-jsonschema loop goes through (it costs ~80 µs a call)",
    )
    parser.add_argument(
        "--cli-rounds", type=int, default=1, help="Rounds that also run the command line"
    )
    parser.add_argument(
        "--jobs2-rounds", type=int, default=None, help="Rounds that also run --jobs 2 (all)"
    )
    parser.add_argument("--dir", type=Path, default=None, help="Where the temporary folder goes")
    parser.add_argument("--auditor-tree", type=Path, default=None, help="Audit with this tree")
    options = parser.parse_args()
    if options.jobs2_rounds is None:
        options.jobs2_rounds = options.rounds
    if options.auditor_tree is not None:
        options.auditor_tree = options.auditor_tree.resolve()
    tree = options.auditor_tree or os.environ.get("PYTHONPATH") or Path.cwd()
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; auditor: {tree}")
    with tempfile.TemporaryDirectory(prefix="auditor-realistic-", dir=options.dir) as folder:
        measure(options, Path(folder))


if __name__ == "__main__":
    main()
