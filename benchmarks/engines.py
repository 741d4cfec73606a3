"""Run one generated workload through each engine locally: wall time, driver memory, and
whether the reports are the same.

    python3 benchmarks/engines.py                          # 200,000 calls, local/spark/ray
    python3 benchmarks/engines.py --calls 1000000 --workers 2 --engine spark

Each engine runs in a fresh process (the driver), which audits through the Python API
(``auditor.aggregate.parallel.audit_logs`` with ``engine=``) and reports its own wall time
and peak RSS. For Spark the driver is the Python process: the JVM it starts and the Python
workers are not counted, nor Ray's raylet and workers; the driver's memory is what must not
grow with the log (it receives tallies, never calls). Start-up is included: a local Spark
or Ray takes seconds to start. The extras must be installed: ``pip install '.[spark,ray]'``.

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
import resource
import subprocess
import sys
import time
from pathlib import Path

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


def drive(engine: str, catalog: Path, log: Path, workers: int) -> dict[str, object]:
    """One audit as a driver process would run it (in this process)."""
    from auditor.aggregate.parallel import audit_logs
    from auditor.engines.choice import Engine
    from auditor.inputs.catalogs import load_catalogs
    from auditor.inputs.log_files import log_files
    from auditor.report import Format, render

    started = time.perf_counter()
    tools = load_catalogs([str(catalog)]).tools
    files, _ = log_files(str(log))
    report = audit_logs(tools, files, [catalog.name], jobs=workers, engine=Engine(engine))
    text = render(report, Format.JSON)
    return {
        "engine": engine,
        "wall": time.perf_counter() - started,
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="standard")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--engine", choices=ENGINES, action="append")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/auditor-engines-benchmark"))
    parser.add_argument("--seed", type=int, default=7)
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
        print(json.dumps(drive(options.drive, catalog, log, options.workers)))
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
        "| engine | wall | driver peak RSS | calls | report (sha256) | without offending values |"
    )
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for engine in options.engine or ENGINES:
        command = [sys.executable, __file__, "--drive", engine, "--dir", str(options.dir)]
        command += ["--calls", str(options.calls), "--workload", options.workload]
        command += ["--workers", str(options.workers), "--row-group", str(options.row_group)]
        command += ["--parquet"] if options.parquet else []
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        row = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"| {engine} | {row['wall']:.1f} s | {row['driver_rss_mib']:.0f} MiB "
            f"| {row['calls']:,} | `{row['report']}` | `{row['counts']}` |",
            flush=True,
        )


if __name__ == "__main__":
    main()
