"""What the Spark and Ray tests audit: each sample scenario and a generated workload of
many parts, with the report one pass over the same logs gives (``--jobs 1``)."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor.aggregate.pipeline import ReportSettings
from auditor.engines import choice
from auditor.engines.plan import AuditPlan, make_plan
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.parts import ColumnarPart
from auditor.models import Report
from auditor.report import Format, render
from tests.conftest import ROOT, request_for, run_cli
from tests.samples import scenarios

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
SCENARIOS = [scenario.name for scenario in scenarios()]
LISTED = ReportSettings(examples=1, max_calls=7)
"""Which examples and calls a report keeps depends on merging in log order."""


def sample_plan(name: str) -> AuditPlan:
    """A sample scenario's audit, cut in parts of 4 kB where its log allows it."""
    folder = SAMPLES / name
    catalog = next(folder.glob("tools.*"))
    log = next(folder.glob("calls.*"))
    tools = load_catalogs([str(catalog)]).tools
    return make_plan(tools, [str(log)], [catalog.name], settings=LISTED, min_part_bytes=4096)


def generated_plan(folder: Path) -> AuditPlan:
    """Two catalogs' calls over a large log cut in byte ranges, gzip logs and small logs."""
    mcp = (SAMPLES / "mcp_files" / "calls.jsonl").read_bytes()
    gemini = (SAMPLES / "gemini_travel" / "calls.jsonl").read_bytes()
    files = [folder / "big.jsonl", folder / "a.jsonl.gz", folder / "b.jsonl", folder / "c.gz"]
    files[0].write_bytes(mcp * 20 + gemini * 5)
    files[1].write_bytes(gzip.compress(gemini * 3))
    files[2].write_bytes(mcp)
    files[3].write_bytes(gzip.compress(mcp * 2))
    catalogs = [str(SAMPLES / "mcp_files" / "tools.json"), str(SAMPLES / "gemini_travel")]
    tools = load_catalogs(catalogs).tools
    return make_plan(
        tools, [str(f) for f in files], catalogs, settings=LISTED, min_part_bytes=64 << 10
    )


def history_plan(folder: Path) -> AuditPlan:
    """The openai_gateway sample's request/response log in two files (once, then twice
    over), its responses alone (``--calls-from responses``) cut in parts of 4 kB, and the
    listed calls of each part put aside in a scratch folder."""
    sample = SAMPLES / "openai_gateway"
    text = (sample / "calls.jsonl").read_bytes()
    files = [folder / "monday.jsonl", folder / "tuesday.jsonl"]
    files[0].write_bytes(text)
    files[1].write_bytes(text * 2)
    scratch = folder / "scratch"
    scratch.mkdir()
    tools = load_catalogs([str(sample / "tools.json")]).tools
    return make_plan(
        tools,
        [str(f) for f in files],
        ["tools.json"],
        request_for(calls_from=CallsFrom.RESPONSES),
        settings=LISTED,
        min_part_bytes=4096,
        scratch=str(scratch),
    )


def one_pass(plan: AuditPlan) -> str:
    """The JSON report of ``--jobs 1`` on the plan's inputs (read as its parts are)."""
    calls_from = next(
        (part.calls_from for part in plan.parts if not isinstance(part, ColumnarPart)),
        CallsFrom.ALL,
    )
    return json_of(
        choice.audit_logs(
            plan.tools,
            plan.files,
            plan.schema_inputs,
            request_for(jobs=1, calls_from=calls_from),
            settings=plan.settings,
        )
    )


def json_of(report: Report) -> str:
    return render(report, Format.JSON)


Run = tuple[int, str, str]
"""Exit code, stdout and stderr of one command line."""


def cli_on_and_off(engine: str, capsys: pytest.CaptureFixture[str]) -> tuple[Run, Run]:
    """The mcp_files sample audited from the command line on ``engine``, then with
    ``--jobs 1``: (exit code, stdout, stderr) of each."""
    folder = ROOT / "sample_logs" / "mcp_files"
    args = ["audit", "--schemas", str(folder / "tools.json"), "--logs", str(folder / "calls.jsonl")]
    args += ["--no-report-files", "-q", "--format", "json"]
    return run_cli([*args, "--engine", engine], capsys), run_cli([*args, "--jobs", "1"], capsys)


def repeats_plan(folder: Path) -> AuditPlan:
    """The openai_gateway sample's request/response log cut at record boundaries into
    three files (histories repeat calls of earlier files), then its first file again (all
    repeats), and the mcp_files sample (no ids) between them: every call counted once
    across files, by a shuffle of the call ids."""
    sample = SAMPLES / "openai_gateway"
    lines = (sample / "calls.jsonl").read_bytes().splitlines(keepends=True)
    cuts = [lines[:30], lines[30:70], lines[70:]]
    files = [folder / f"history-{i}.jsonl" for i in range(3)]
    for path, chunk in zip(files, cuts, strict=True):
        path.write_bytes(b"".join(chunk))
    plain = folder / "plain.jsonl"
    plain.write_bytes((SAMPLES / "mcp_files" / "calls.jsonl").read_bytes())
    logs = [files[0], files[1], plain, files[2], files[0]]
    catalogs = [str(sample / "tools.json"), str(SAMPLES / "mcp_files" / "tools.json")]
    tools = load_catalogs(catalogs).tools
    return make_plan(tools, [str(f) for f in logs], catalogs, settings=LISTED, repeats_apart=True)


SEARCH = {"search": {"type": "object", "properties": {"q": {"type": "string", "min_length": 2}}}}
"""Normalized, ``min_length`` becomes ``minLength``: {"q": "x"} is newly rejected, {"q": "xyz"}
passes, {"q": 5} is rejected before and after; any other tool is unknown."""
TEXT_ROWS = [
    ("search", '{"q": "x"}'),  # newly rejected
    (None, None),  # no call
    ("search", '{"q": "xyz"}'),  # accepted
    ("search", '{"q": 1'),  # unparseable: not JSON
    ("search", None),  # unparseable: no arguments
    ("", "{}"),  # no call: an empty tool
    ("fetch", "{}"),  # unknown tool
    ("search", '{"q": 5}'),  # still rejected
]
STRUCT_ROWS: list[tuple[str | None, dict[str, str] | None]] = [
    ("search", {"q": "x"}),  # newly rejected
    (None, {"q": "x"}),  # no call
    ("search", None),  # unparseable: no arguments
    ("search", {"q": "abc"}),  # accepted
]
COLUMNAR_STATS = [
    ("parquet", 400, 0, 400, 100, 300),  # TEXT_ROWS 50 times
    ("parquet", 100, 0, 100, 25, 75),  # STRUCT_ROWS 25 times
    ("arrow", 48, 0, 48, 12, 36),  # TEXT_ROWS 6 times
    ("parquet", 0, 0, 0, 0, 0),
]
"""(format, lines, blank, records, records without calls, calls) of each columnar log."""
COLUMNAR_TOTALS = {
    "calls": 411,
    "unknown_tool": 56,
    "unparseable": 137,
    "schema_error_after": 0,
    "schema_error_before": 0,
    "accepted": 81,
    "newly_rejected": 81,
    "still_rejected": 56,
    "newly_accepted": 0,
}
"""Of the columnar logs: per TEXT_ROWS, one newly rejected, one accepted, two unparseable,
one unknown and one still rejected (56 times); per STRUCT_ROWS, one newly rejected, one
accepted, one unparseable (25 times)."""


def columnar_plan(folder: Path, scratch: bool = False, workers: int = 8) -> AuditPlan:
    """Parquet logs of JSON text (row groups of 30 rows) and of struct arguments under the
    OTel column names (row groups of 10), an Arrow IPC file of three record batches and an
    empty Parquet log, cut in runs of row groups; ``scratch``: the listed calls put aside."""
    import pyarrow as pa
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    def text(rows: list[tuple[str | None, str | None]]) -> pa.Table:
        tools = [tool for tool, _ in rows]
        arguments = [value for _, value in rows]
        return pa.table(
            {
                "tool_name": pa.array(tools, pa.string()),
                "arguments": pa.array(arguments, pa.string()),
            }
        )

    paths = [folder / name for name in ("text.parquet", "spans.parquet", "calls.arrow")]
    pq.write_table(text(TEXT_ROWS * 50), paths[0], row_group_size=30)
    struct = pa.struct([("q", pa.string())])
    tools, arguments = zip(*(STRUCT_ROWS * 25), strict=True)
    spans = pa.table(
        {
            "gen_ai.tool.name": list(tools),
            "gen_ai.tool.call.arguments": pa.array(list(arguments), type=struct),
        }
    )
    pq.write_table(spans, paths[1], row_group_size=10)
    table = text(TEXT_ROWS * 6)
    with ipc.new_file(paths[2], table.schema) as writer:
        for batch in table.to_batches(max_chunksize=16):
            writer.write_batch(batch)
    empty = folder / "empty.parquet"
    pq.write_table(text([]), empty)
    catalog = folder / "tools.json"
    catalog.write_text(json.dumps(SEARCH))
    aside = folder / "scratch"
    aside.mkdir(exist_ok=True)
    return make_plan(
        load_catalogs([str(catalog)]).tools,
        [str(path) for path in [*paths, empty]],
        ["tools.json"],
        settings=LISTED,
        workers=workers,
        min_part_bytes=1,
        scratch=str(aside) if scratch else None,
    )


def named_columns_on_and_off(
    engine: str, folder: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Run, Run]:
    """A Parquet log whose columns only ``--tool-column fn --arguments-column payload`` name
    (one newly rejected call, one accepted), audited from the command line on ``engine``,
    then with ``--jobs 1``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    log = folder / "custom.parquet"
    table = pa.table({"fn": ["search", "search"], "payload": ['{"q": "x"}', '{"q": "xyz"}']})
    pq.write_table(table, log, row_group_size=1)
    catalog = folder / "tools.json"
    catalog.write_text(json.dumps(SEARCH))
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files", "-q"]
    args += ["--format", "json", "--tool-column", "fn", "--arguments-column", "payload"]
    return run_cli([*args, "--engine", engine], capsys), run_cli([*args, "--jobs", "1"], capsys)


@contextlib.contextmanager
def local_spark() -> Iterator[Any]:
    """One local Spark session of two cores (a test module's: starting one takes seconds).
    Its workers run this Python, which has pyarrow too (pyspark reads PYSPARK_PYTHON here)."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("auditor-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


@contextlib.contextmanager
def local_ray() -> Iterator[None]:
    """One local Ray of two CPUs (a test module's: starting one takes seconds)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()
