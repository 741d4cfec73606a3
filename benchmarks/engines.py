"""Run one generated workload through each engine locally: wall time, driver memory, and
whether the reports are the same.

    python3 benchmarks/engines.py                          # 200,000 calls, local/spark/ray
    python3 benchmarks/engines.py --calls 1000000 --workers 2 --engine spark

    python3 benchmarks/engines.py --calls 1000000 --engine spark --engine ray --parts 64 \
        --distinct-first off --distinct-first on --rounds 3    # issue 16, part 9

Each engine runs in a fresh process (the driver), which audits through the Python API
(``audit_logs`` locally; for Spark and Ray a plan of about ``--parts`` parts, or the one
``--engine`` makes, on a local session of ``--workers`` cores) and reports its wall time, the
CPU seconds of every process of the run (the driver, Spark's JVM and Python workers, Ray's
raylet and workers: the machine is shared, so CPU is what compares) and the driver's peak
RSS (the driver's memory is what must not grow with the log: it receives tallies, never
calls). Start-up is included: a local Spark or Ray takes seconds to start.
``--distinct-first`` on/off: ``AuditPlan.distinct_first``, with the CPU and wall of its
stage 1. The extras must be installed: ``pip install '.[spark,ray]'``.

``--parquet`` audits the same calls as a Parquet log (``calls.parquet``: a tool-name column
and the arguments' JSON text, in row groups of ``--row-group`` rows, written once from the
generated log with pyarrow): the engines cut it in runs of row groups, Spark reads it
itself where pandas is installed (``mapInArrow``); ``--jobs`` reads it in one pass. It
needs ``pip install '.[spark,ray,parquet]'`` (and pandas for Spark's own scans).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import WORKLOADS, generate

ENGINES = ("local", "spark", "ray")


def to_parquet(log: Path, parquet: Path, row_group: int) -> None:
    """The calls of ``log`` as a Parquet log of one call per row (tool, arguments text)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from auditor.inputs.reader import LogReader

    schema = pa.schema([("tool_name", pa.string()), ("arguments", pa.string())])
    tools: list[str | None] = []
    arguments: list[str] = []
    with pq.ParquetWriter(parquet, schema) as writer:
        for call in LogReader([str(log)]):
            tools.append(call.tool)
            raw = call.unparsed.raw if call.unparsed is not None else None
            arguments.append(raw or call.text or json.dumps(call.arguments))
            if len(tools) == row_group:
                writer.write_table(pa.table([tools, arguments], schema=schema), row_group)
                tools, arguments = [], []
        if tools:
            writer.write_table(pa.table([tools, arguments], schema=schema), row_group)


def drive(
    engine: str, catalog: Path, log: Path, workers: int, parts: int, distinct_first: bool
) -> dict[str, object]:
    """One audit as a driver process would run it (in this process)."""
    from auditor.engines.choice import audit_logs
    from auditor.inputs.catalogs import load_catalogs
    from auditor.inputs.log_files import log_files
    from auditor.report import Format, render
    from auditor.request import AuditRequest, Engine, Limits

    started = time.perf_counter()
    tools = load_catalogs([str(catalog)]).tools
    files, _ = log_files(str(log))
    stage = {"cpu": 0.0, "wall": 0.0}
    if engine == "local":
        request = AuditRequest(limits=Limits(jobs=workers, engine=Engine(engine)))
        report = audit_logs(tools, files, [catalog.name], request)
        cpu = tree_cpu()
    else:
        report, cpu = on_engine(
            engine, tools, files, catalog.name, workers, parts, distinct_first, stage
        )
    text = render(report, Format.JSON)
    return {
        "engine": engine,
        "wall": time.perf_counter() - started,
        "cpu": cpu,
        "stage1_cpu": stage["cpu"],
        "stage1_wall": stage["wall"],
        "parts": 0 if engine == "local" else parts,  # --jobs cuts its own
        "driver_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "calls": report.call_count,
        "report": hashlib.sha256(text.encode()).hexdigest()[:16],
        "counts": _counts_digest(text),
    }


def _counts_digest(text: str) -> str:
    """A digest of the report without its groups' offending values: which values a group
    lists depends on where the log was cut when a part sees more distinct ones than a group
    keeps (``auditor.aggregate.groups``), the totals, groups and coverage do not."""
    report = json.loads(text)
    for group in report["groups"]:
        group.pop("offending_values", None)
    report.pop("generated_at", None)
    return hashlib.sha256(json.dumps(report, sort_keys=True).encode()).hexdigest()[:16]


def on_engine(
    engine: str,
    tools: Any,
    files: list[str],
    catalog: str,
    workers: int,
    parts: int,
    distinct_first: bool,
    stage: dict[str, float],
) -> tuple[Any, float]:
    """The report of a plan of about ``parts`` parts (0: the plan ``--engine`` makes) on a
    local Spark or Ray of ``workers`` cores, and the CPU seconds of every process of the run,
    taken before the engine is stopped; ``stage``: the CPU and wall of distinct-first's
    counting and replay (stage 1)."""
    from auditor.engines import on_ray, on_spark
    from auditor.engines.plan import MIN_PART_BYTES, PARTS_PER_JOB, make_plan

    plan = make_plan(
        tools,
        files,
        [catalog],
        workers=max(1, parts // PARTS_PER_JOB) if parts else workers,
        min_part_bytes=1 if parts else MIN_PART_BYTES,
        repeats_apart=True,
        distinct_first=distinct_first,
    )
    module: Any = on_spark if engine == "spark" else on_ray
    preload = module._preload

    def timed(*args: Any) -> Any:
        cpu, wall = tree_cpu(), time.perf_counter()
        try:
            return preload(*args)
        finally:
            stage["cpu"] += tree_cpu() - cpu
            stage["wall"] += time.perf_counter() - wall

    module._preload = timed
    if engine == "spark":
        from pyspark.sql import SparkSession

        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # as --engine spark does
        builder = SparkSession.builder.master(f"local[{workers}]").appName("auditor")
        spark = builder.config("spark.ui.enabled", "false").getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        report = on_spark.audit_on_spark(plan, spark)
        cpu = tree_cpu()
        spark.stop()
        return report, cpu
    import ray

    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    report = on_ray.audit_on_ray(plan)
    cpu = tree_cpu()
    ray.shutdown()
    return report, cpu


def tree_cpu() -> float:
    """CPU seconds (user + system) of this process and every live descendant (the JVM, Spark's
    Python workers, Ray's raylet and workers), with the children each of them has reaped."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    spent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        parents[int(entry)] = int(fields[1])
        spent[int(entry)] = sum(int(value) for value in fields[11:15])
    mine = {os.getpid()}
    grew = True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in mine} - mine
        grew = bool(found)
        mine |= found
    return sum(spent.get(pid, 0) for pid in mine) / ticks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="standard")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--engine", choices=ENGINES, action="append")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/auditor-engines-benchmark"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--parts",
        type=int,
        default=0,
        help="cut the log in about this many parts (0: as --engine does)",
    )
    parser.add_argument(
        "--distinct-first",
        choices=("on", "off"),
        action="append",
        help="count the repeated payloads with the engine first (AuditPlan.distinct_first); "
        "give both to compare",
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--parquet", action="store_true", help="audit the calls as Parquet")
    parser.add_argument("--row-group", type=int, default=65_536, help="rows per row group")
    parser.add_argument("--drive", choices=ENGINES, help=argparse.SUPPRESS)
    options = parser.parse_args()
    out = options.dir / f"{options.workload}-{options.calls}"
    catalog = out / "tools.json"
    parquet = out / f"parquet-{options.row_group}" / "calls.parquet"
    if options.drive:
        log = (
            parquet
            if options.parquet
            else next(p for p in out.iterdir() if p.name.startswith(("calls", "logs")))
        )
        on = options.distinct_first == ["on"]
        print(json.dumps(drive(options.drive, catalog, log, options.workers, options.parts, on)))
        return
    if not catalog.exists():
        out.mkdir(parents=True, exist_ok=True)
        generate(options.calls, options.seed, out, WORKLOADS[options.workload])
    if options.parquet and not parquet.exists():
        parquet.parent.mkdir(exist_ok=True)
        log = next(p for p in out.iterdir() if p.name.startswith(("calls", "logs")))
        to_parquet(log, parquet, options.row_group)
    shape = f", as Parquet (row groups of {options.row_group:,} rows)" if options.parquet else ""
    print(f"{options.workload}, {options.calls:,} calls{shape}, {options.workers} workers each")
    print(
        "| engine | parts | distinct-first | CPU (all processes) | stage 1 CPU / wall | wall "
        "| driver peak RSS | calls | report (sha256) | without offending values | load |"
    )
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |")
    for _ in range(options.rounds):  # rounds alternate the variants: the same load for each
        for engine in options.engine or ENGINES:
            for first in options.distinct_first or ["off"]:
                if engine == "local" and first == "on":
                    continue  # one machine: distinct-first per process already
                command = [sys.executable, __file__, "--drive", engine, "--dir", str(options.dir)]
                command += ["--calls", str(options.calls), "--workload", options.workload]
                command += ["--workers", str(options.workers), "--parts", str(options.parts)]
                command += ["--distinct-first", first, "--row-group", str(options.row_group)]
                command += ["--parquet"] if options.parquet else []
                done = subprocess.run(command, check=True, capture_output=True, text=True)
                row = json.loads(done.stdout.strip().splitlines()[-1])
                print(
                    f"| {engine} | {row['parts'] or 'default'} | {first} | {row['cpu']:.1f} s "
                    f"| {row['stage1_cpu']:.1f} s / {row['stage1_wall']:.1f} s "
                    f"| {row['wall']:.1f} s | {row['driver_rss_mib']:.0f} MiB "
                    f"| {row['calls']:,} | `{row['report']}` | `{row['counts']}` "
                    f"| {os.getloadavg()[0]:.1f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
