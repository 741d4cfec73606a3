"""What the Spark and Ray tests audit: each sample scenario and a generated workload of
many parts, with the report one pass over the same logs gives (``--jobs 1``)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from auditor.aggregate import parallel
from auditor.aggregate.pipeline import ReportSettings
from auditor.engines.plan import AuditPlan, make_plan
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.catalogs import load_catalogs
from auditor.models import Report
from auditor.report import Format, render
from tests.conftest import ROOT, run_cli
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
        settings=LISTED,
        min_part_bytes=4096,
        calls_from=CallsFrom.RESPONSES,
        scratch=str(scratch),
    )


def one_pass(plan: AuditPlan) -> str:
    """The JSON report of ``--jobs 1`` on the plan's inputs (read as its parts are)."""
    calls_from = plan.parts[0].calls_from if plan.parts else CallsFrom.ALL
    return json_of(
        parallel.audit_logs(
            plan.tools,
            plan.files,
            plan.schema_inputs,
            settings=plan.settings,
            jobs=1,
            calls_from=calls_from,
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
