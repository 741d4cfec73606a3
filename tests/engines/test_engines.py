"""The engine-neutral core: partials of a plan merge, in any order and grouping, into the
report one pass over the logs gives (``--jobs 1``), byte for byte."""

from __future__ import annotations

import gzip
import io
import json
import pickle
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.aggregate.pipeline import ReportSettings
from auditor.engines import choice, core
from auditor.engines.choice import CLUSTER_ENGINES, Engine
from auditor.engines.core import Partial, PartsMissing, audit_part, combine, merge
from auditor.engines.plan import AuditPlan, make_plan
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.parts import LogPart, WholeFiles
from auditor.report import Format, render
from tests.conftest import ROOT, request_for, run_cli

SAMPLES = ROOT / "sample_logs"
MCP_FILES = SAMPLES / "mcp_files"
LISTED = ReportSettings(examples=1, max_calls=7)
"""Few examples and listed calls: which ones a report keeps depends on merging in order."""


def _logs(folder: Path) -> list[str]:
    """Three logs: the mcp_files sample four times over (cut in byte ranges), the gemini
    sample gzipped (read whole) and the mcp_files sample once (small: read whole)."""
    text = (MCP_FILES / "calls.jsonl").read_bytes()
    big, packed, small = folder / "big.jsonl", folder / "gemini.jsonl.gz", folder / "small.jsonl"
    big.write_bytes(text * 4)
    packed.write_bytes(gzip.compress((SAMPLES / "gemini_travel" / "calls.jsonl").read_bytes()))
    small.write_bytes(text)
    return [str(big), str(packed), str(small)]


def _plan(logs: list[str], report: ReportSettings, workers: int = 2) -> AuditPlan:
    catalogs = load_catalogs([str(MCP_FILES / "tools.json"), str(SAMPLES / "gemini_travel")])
    return make_plan(
        catalogs.tools,
        logs,
        ["tools.json"],
        settings=report,
        workers=workers,
        min_part_bytes=16 << 10,
    )


def _one_pass(plan: AuditPlan) -> str:
    report = choice.audit_logs(
        plan.tools, plan.files, plan.schema_inputs, request_for(jobs=1), settings=plan.settings
    )
    return render(report, Format.JSON)


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> tuple[AuditPlan, bytes, str]:
    """A plan, its partials (pickled: each example merges fresh ones) and the one-pass
    report."""
    plan = _plan(_logs(tmp_path_factory.mktemp("logs")), LISTED)
    partials = [audit_part(plan, part) for part in range(len(plan.parts))]
    return plan, pickle.dumps(partials), _one_pass(plan)


def test_the_plan_cuts_large_plain_logs_and_reads_gzip_and_small_ones_whole(
    workload: tuple[AuditPlan, bytes, str],
) -> None:
    plan, _, _ = workload
    big, packed, small = plan.files
    cut = [part for part in plan.parts if isinstance(part, LogPart)]
    assert {part.file for part in cut} == {big} and len(cut) >= 3
    # The gzip log cannot be cut; the small one is below two parts' size: both read whole.
    whole = plan.parts[len(cut) :]
    assert all(isinstance(item, WholeFiles) for item in whole)
    assert [file for item in whole for file in getattr(item, "files", ())] == [packed, small]


@settings(max_examples=25, deadline=None)  # a merge and a render: slow on a busy machine
@given(data=st.data())
def test_partials_merge_in_any_order_and_grouping_into_the_one_pass_report(
    workload: tuple[AuditPlan, bytes, str], data: st.DataObject
) -> None:
    plan, pickled, expected = workload
    partials: list[Partial] = pickle.loads(pickled)
    partials = data.draw(st.permutations(partials))
    # A random tree of combines: any two partials at a time, as a tree reduce would.
    while len(partials) > 1:
        i = data.draw(st.integers(0, len(partials) - 1))
        one = partials.pop(i)
        j = data.draw(st.integers(0, len(partials) - 1))
        partials[j] = (
            combine(one, partials[j]) if data.draw(st.booleans()) else combine(partials[j], one)
        )
    assert render(merge(plan, partials), Format.JSON) == expected


def test_the_merged_report_counts_what_the_samples_say(
    workload: tuple[AuditPlan, bytes, str],
) -> None:
    plan, pickled, _ = workload
    report = json.loads(render(merge(plan, pickle.loads(pickled)), Format.JSON))
    mcp = yaml.safe_load((MCP_FILES / "expected.yaml").read_text("utf-8"))["lenient_totals"]
    gemini = yaml.safe_load((SAMPLES / "gemini_travel" / "expected.yaml").read_text("utf-8"))
    # Five times the mcp_files log and once the gemini log: calls add up across the parts.
    assert report["totals"]["calls"] == 5 * mcp["calls"] + gemini["lenient_totals"]["calls"]
    # Seven calls listed (max_calls), the rest counted as omitted: every call accounted for.
    assert len(report["calls"]) == 7
    assert (
        report["calls_omitted"]
        == sum(
            count
            for outcome, count in report["totals"].items()
            if outcome not in ("calls", "accepted")
        )
        - 7
    )
    assert [log["lines"] for log in report["inputs"]["logs"]] == [4 * 180, 174, 180]


def test_a_missing_or_twice_counted_part_is_refused(
    workload: tuple[AuditPlan, bytes, str],
) -> None:
    plan, pickled, _ = workload
    partials: list[Partial] = pickle.loads(pickled)
    with pytest.raises(PartsMissing, match=r"cover parts 0-0, 2-\d+ of 0-\d+"):
        merge(plan, [partials[0], *partials[2:]])
    fresh: list[Partial] = pickle.loads(pickled)  # merging consumes partials
    again: list[Partial] = pickle.loads(pickled)
    with pytest.raises(PartsMissing, match="part 1 of the logs was counted twice"):
        merge(plan, [*fresh, again[1]])


def test_later_runs_ship_no_calls_once_the_first_run_is_full(
    workload: tuple[AuditPlan, bytes, str],
) -> None:
    _, pickled, _ = workload
    partials: list[Partial] = pickle.loads(pickled)
    last = partials[-1].runs[0].tally
    assert last.kept  # the small log's run keeps calls of its own, read apart
    folded = combine(combine(partials[0], partials[1]), partials[-1])
    first, later = folded.runs
    assert first.tally.full and len(first.tally.kept) == 7
    assert later.tally.kept == [] and later.tally.omitted > 0


def test_a_worker_compiles_the_catalog_once_per_plan(tmp_path: Path) -> None:
    plan = _plan(_logs(tmp_path), ReportSettings())
    shipped = pickle.loads(pickle.dumps(plan))  # as an engine ships it: data only
    core._compiled.clear()
    audit_part(shipped, 0)
    compiled = core.replays_for(shipped)
    audit_part(shipped, 1)
    assert list(core._compiled) == [plan.catalog_key]
    assert core.replays_for(shipped) is compiled
    other = _plan(_logs(tmp_path), ReportSettings(max_calls=None))
    assert other.catalog_key == plan.catalog_key  # report settings do not change verdicts
    changed = make_plan(plan.tools[:1], plan.files, plan.schema_inputs)
    assert changed.catalog_key != plan.catalog_key
    assert core.replays_for(changed) is not compiled and list(core._compiled) == [
        changed.catalog_key
    ]


@pytest.mark.parametrize("sample", ["openai_gateway", "mcp_capture"])
def test_logs_whose_calls_repeat_or_are_answered_across_records_are_one_part(
    tmp_path: Path, sample: str
) -> None:
    """History formats repeat a call in later records (and files); MCP answers a call in a
    later record: one pass over all the logs keeps dedupe and pairing right."""
    log = SAMPLES / sample / "calls.jsonl"
    copy = tmp_path / "copy.jsonl"
    shutil.copy(log, copy)
    big = tmp_path / "big.jsonl"
    big.write_bytes((MCP_FILES / "calls.jsonl").read_bytes() * 4)
    files = [str(big), str(log), str(copy)]
    catalog = next((SAMPLES / sample).glob("tools.*"))
    plan = make_plan(load_catalogs([str(catalog)]).tools, files, ["tools"], min_part_bytes=1024)
    assert plan.parts == (
        WholeFiles(tuple(files), None, sum(Path(f).stat().st_size for f in files)),
    )
    report = merge(plan, [audit_part(plan, 0)])
    # The copy repeats every call id of the log: counted once, its calls all repeats.
    first, second = report.log_inputs[1:]
    assert second.repeated_calls >= first.calls > 0 or sample == "mcp_capture"
    assert render(report, Format.JSON) == _one_pass(plan)


def test_every_engine_but_the_local_one_has_a_runner() -> None:
    assert set(CLUSTER_ENGINES) == set(Engine) - {Engine.LOCAL}


@pytest.mark.parametrize(("engine", "module"), [("spark", "pyspark"), ("ray", "ray")])
def test_an_engine_without_its_extra_is_a_one_line_error(
    engine: str,
    module: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: import fails
    args = ["audit", "--schemas", str(MCP_FILES / "tools.json")]
    args += ["--logs", str(MCP_FILES / "calls.jsonl"), "--no-report-files", "-q"]
    code, out, err = run_cli([*args, "--engine", engine], capsys)
    assert (code, out) == (2, "")
    extra = f"pip install 'tool-schema-auditor[{engine}]'"
    assert err == f"auditor: error: --engine {engine} needs {module}: {extra}\n"
    # The local engine needs no extra: the same audit runs (the sample has newly rejected calls).
    assert run_cli([*args, "--engine", "local"], capsys)[0] == 1


def test_an_engine_cannot_read_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    args = ["audit", "--schemas", str(MCP_FILES / "tools.json"), "--logs", "-"]
    code, _, err = run_cli([*args, "--engine", "ray", "--no-report-files", "-q"], capsys)
    assert (code, err) == (
        2,
        "auditor: error: --engine ray cannot read standard input: name the log files\n",
    )
