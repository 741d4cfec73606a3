"""`--jobs`: logs read in worker processes give byte-identical reports."""

from __future__ import annotations

import ctypes
import gc
import gzip
import itertools
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.aggregate.pipeline import ReportSettings, Tally, prepare
from auditor.aggregate.progress import Progress
from auditor.api import audit
from auditor.engines import choice, local
from auditor.gc_thresholds import AUDIT_GC
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_formats import LogFormat
from auditor.inputs.parts import WholeFiles, spill, split, work_items
from auditor.models import Call, Outcome
from auditor.report import Format, render
from auditor.request import AuditRequest, Inputs, Keep, Limits
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import ROOT, local_plan, request_for, small_parts

SCENARIO = ROOT / "sample_logs" / "mcp_files"


@pytest.fixture
def big_log(tmp_path: Path) -> Path:
    """The sample log repeated: every outcome, blank and broken lines, many parts."""
    text = (SCENARIO / "calls.jsonl").read_text(encoding="utf-8")
    log = tmp_path / "calls.jsonl"
    log.write_text(text * 30, encoding="utf-8")
    return log


def _report(log: Path, jobs: int, settings: ReportSettings) -> dict[str, str]:
    catalogs = load_catalogs([str(SCENARIO / "tools.json")])
    report = choice.audit_logs(
        catalogs.tools, [str(log)], ["tools.json"], request_for(jobs=jobs), settings=settings
    )
    return {fmt.value: render(report, fmt) for fmt in (Format.JSON, Format.MARKDOWN)}


@pytest.mark.parametrize("settings", [ReportSettings(), ReportSettings(examples=1, max_calls=7)])
def test_jobs_do_not_change_the_report(
    big_log: Path, monkeypatch: pytest.MonkeyPatch, settings: ReportSettings
) -> None:
    small_parts(monkeypatch, 1024)
    one = _report(big_log, 1, settings)
    two = _report(big_log, 2, settings)
    assert one == two
    totals = json.loads(one["json"])["totals"]
    # The sample's hand-reasoned totals (a JSON Lines log carries no evidence), 30 times.
    expected = yaml.safe_load((SCENARIO / "expected.yaml").read_text("utf-8"))["lenient_totals"]
    assert totals == {"calls": 30 * expected["calls"]} | {
        outcome: 30 * expected.get(outcome, 0) for outcome in totals if outcome != "calls"
    }


def test_the_parallel_path_is_taken_for_a_large_jsonl_log(
    big_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_parts(monkeypatch, 1024)
    catalogs = load_catalogs([str(SCENARIO / "tools.json")])
    replays = prepare(catalogs.tools, DEFAULT_RULES)
    counted = local.tally_in_parallel(
        replays, local_plan(catalogs.tools, [str(big_log)]), 2, Progress(0)
    )
    assert counted is not None
    _, stats = counted
    assert stats[0].lines == len(big_log.read_bytes().splitlines())


def test_parts_cover_the_file_exactly_at_line_starts(big_log: Path) -> None:
    parts = split(str(big_log), 7, None)
    assert parts is not None and len(parts) == 7
    data = big_log.read_bytes()
    assert parts[0].start == 0 and parts[-1].end == len(data)
    for before, after in itertools.pairwise(parts):
        assert before.end == after.start and data[after.start - 1 : after.start] == b"\n"
        assert after.first_line == data[: after.start].count(b"\n") + 1


@pytest.mark.parametrize("name", ["calls.jsonl.gz", "doc.json"])
def test_logs_that_must_be_read_in_one_pass_are_not_split(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(b'{"tool": "t", "arguments": {}}\n' * 100))
    else:
        path.write_text('{\n  "resourceSpans": []\n}\n')
    assert split(str(path), 4, None) is None


def test_a_log_with_call_ids_is_not_split(tmp_path: Path) -> None:
    """OpenAI histories repeat calls by id across records: one pass keeps the dedupe right."""
    record = {
        "choices": [
            {
                "message": {
                    "tool_calls": [{"id": "c1", "function": {"name": "t", "arguments": "{}"}}]
                }
            }
        ]
    }
    path = tmp_path / "chat.jsonl"
    path.write_text((json.dumps(record) + "\n") * 50)
    assert split(str(path), 4, None) is None


def _layout(folder: Path) -> list[str]:
    """A directory as gateways write them: gzip logs and many small plain ones."""
    text = (SCENARIO / "calls.jsonl").read_bytes()
    files = []
    for i in range(12):
        log = folder / (f"calls-{i:02}.jsonl" + (".gz" if i % 3 == 0 else ""))
        log.write_bytes(gzip.compress(text) if i % 3 == 0 else text)
        files.append(str(log))
    return files


def test_gzip_and_small_logs_are_read_in_parallel_with_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_parts(monkeypatch, 1024)
    files = _layout(tmp_path)
    catalogs = load_catalogs([str(SCENARIO / "tools.json")])
    replays = prepare(catalogs.tools, DEFAULT_RULES)
    counted = local.tally_in_parallel(replays, local_plan(catalogs.tools, files), 2, Progress(0))
    assert counted is not None  # gzip files no longer make the audit one process
    settings = ReportSettings(examples=1, max_calls=7)
    reports = [
        choice.audit_logs(
            catalogs.tools, files, ["tools.json"], request_for(jobs=jobs), settings=settings
        )
        for jobs in (1, 2)
    ]
    one, two = (render(report, Format.JSON) for report in reports)
    assert one == two
    expected = yaml.safe_load((SCENARIO / "expected.yaml").read_text("utf-8"))["lenient_totals"]
    assert reports[1].totals[Outcome.NEWLY_REJECTED] == 12 * expected["newly_rejected"]
    assert [stats.lines for stats in reports[1].log_inputs] == [180] * 12


def test_small_logs_are_batched_in_order_and_gzip_read_whole(tmp_path: Path) -> None:
    files = _layout(tmp_path)
    items = work_items(files, None, 2, 16 << 10, 1)
    assert all(isinstance(item, WholeFiles) for item in items)
    # Eight plain logs of 27 kB (under two parts of 16 kB: not cut) and four gzip ones of
    # 4 kB, for 2 workers of one part each (118 kB): several logs to an item, in order.
    assert 2 <= len(items) < 12
    assert [file for item in items for file in getattr(item, "files", ())] == files


def test_a_part_after_a_full_list_of_calls_ships_none(big_log: Path) -> None:
    catalogs = load_catalogs([str(SCENARIO / "tools.json")])
    replays = prepare(catalogs.tools, DEFAULT_RULES)
    parts = work_items([str(big_log)], None, 2, 1024, 4)
    settings = ReportSettings(max_calls=5)
    full_from = ctypes.c_int64(sys.maxsize)
    local._prepared[:] = [local._Shared(replays, settings, 1 << 20, full_from)]
    try:
        kept, _, aside = local._work_at(1, parts[1])
        assert aside is None  # no scratch folder: the kept calls travel
        assert len(kept.kept) == 5 and kept.omitted > 0  # nothing full yet: it keeps its own
        full_from.value = 0  # the first part filled the list
        dropped, _, _ = local._work_at(1, parts[1])
        assert dropped.kept == [] and dropped.omitted == kept.omitted + 5
        first, _, _ = local._work_at(0, parts[0])
        assert len(first.kept) == 5  # the part that filled it keeps its calls
    finally:
        local._prepared.clear()


def test_a_part_after_parts_that_fill_the_list_between_them_ships_none(big_log: Path) -> None:
    """No part before it fills the list alone, but their workers' running counts add up to
    ``max_calls``: its calls can never be listed, so it counts as full from the start."""
    catalogs = load_catalogs([str(SCENARIO / "tools.json")])
    replays = prepare(catalogs.tools, DEFAULT_RULES)
    parts = work_items([str(big_log)], None, 2, 1024, 4)
    settings = ReportSettings(max_calls=5)
    listed = (ctypes.c_int64 * local.LISTED_PLACES)()
    shared = local._Shared(replays, settings, 1 << 20, ctypes.c_int64(sys.maxsize), None, listed)
    local._prepared[:] = [shared]
    try:
        first, _, _ = local._work_at(0, parts[0])
        # Part 0 publishes how many calls it lists: its kept calls, at most max_calls.
        assert listed[0] == len(first.kept) == 5
        listed[0] = 0
        alone, _, _ = local._work_at(2, parts[2])
        assert len(alone.kept) == 5  # nothing before it lists anything: it keeps its own
        listed[0], listed[1] = 3, 2  # neither fills the list of 5, together they do
        after, _, _ = local._work_at(2, parts[2])
        assert after.kept == [] and after.omitted == alone.omitted + 5
        assert after.totals == alone.totals and after.reached == alone.reached
        listed[1] = 1  # 4 of 5: part 2 may still list calls
        short, _, _ = local._work_at(2, parts[2])
        assert len(short.kept) == 5
    finally:
        local._prepared.clear()


def test_a_worker_needs_no_examples_of_groups_its_earlier_parts_filled(big_log: Path) -> None:
    """Examples are a group's first calls in log order: once a worker's part filled a group,
    its later parts count that group's calls as settled (``Tally.filled_before``)."""
    catalogs = load_catalogs([str(SCENARIO / "tools.json")])
    replays = prepare(catalogs.tools, DEFAULT_RULES)
    parts = work_items([str(big_log)], None, 2, 1024, 4)
    settings = ReportSettings(examples=1, max_calls=5)
    shared = local._Shared(replays, settings, 1 << 20, ctypes.c_int64(sys.maxsize))
    local._prepared[:] = [shared]
    try:
        first, _ = local._work(2, parts[2])
        filled = set(first.collector.filled())
        assert filled and shared.filled == dict.fromkeys(filled, 2)
        assert first.filled_before == set()  # nothing before part 2 in this worker
        later, _ = local._work(3, parts[3])
        assert later.filled_before == filled
        earlier, _ = local._work(1, parts[1])  # out of order (tests only): learns nothing
        assert earlier.filled_before == set()
        assert set(shared.filled.values()) <= {1, 2, 3} and shared.filled.keys() >= filled
        assert all(shared.filled[key] <= 2 for key in filled)
        # What the worker sends back is a plain tally, without the worker's sets.
        sent, _, _ = local._work_at(3, parts[3])
        assert type(sent) is Tally and sent.filled_before == ()
    finally:
        local._prepared.clear()


@pytest.mark.parametrize("layout", ["gzip", "small files"])
@pytest.mark.parametrize("max_calls", [10_000, 150, 7])
def test_a_gzip_log_and_a_folder_of_small_logs_give_every_jobs_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, max_calls: int
) -> None:
    """Through the API, as the command line audits them: one gzip log decompressed in parts,
    a folder of small plain logs batched several to a part; with a list no part fills, one
    that the parts fill only between them (a copy of the sample lists 63 calls, a part holds
    one or two copies) and one that the first part fills alone."""
    small_parts(monkeypatch, 2048)
    text = (SCENARIO / "calls.jsonl").read_bytes()
    if layout == "gzip":
        logs = tmp_path / "calls.jsonl.gz"
        logs.write_bytes(gzip.compress(text * 12))
    else:
        logs = tmp_path / "logs"
        logs.mkdir()
        for number in range(12):
            (logs / f"calls-{number:02}.jsonl").write_bytes(text)
    schemas = str(SCENARIO / "tools.json")

    def report(jobs: int) -> str:
        request = AuditRequest(
            Inputs(schemas=(schemas,), logs=(str(logs),)),
            keep=Keep(examples=1, max_calls=max_calls),
            limits=Limits(jobs=jobs),
        )
        return render(audit(request).report, Format.JSON)

    one = report(1)
    assert report(2) == one and report(3) == one
    shown = json.loads(one)
    expected = yaml.safe_load((SCENARIO / "expected.yaml").read_text("utf-8"))["lenient_totals"]
    assert shown["totals"]["newly_rejected"] == 12 * expected["newly_rejected"]
    listed = 12 * (expected["calls"] - expected["accepted"])  # every call not accepted
    assert len(shown["calls"]) == min(max_calls, listed)


def test_a_gzip_log_is_spilled_in_parts_of_whole_lines(tmp_path: Path) -> None:
    text = (SCENARIO / "calls.jsonl").read_bytes() * 3
    log = tmp_path / "calls.jsonl.gz"
    log.write_bytes(gzip.compress(text))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    parts = list(spill(str(log), LogFormat.JSONL, str(scratch), 10_000))
    assert len(parts) == len(text) // 10_000 + 1  # each a little over 10 kB: a line more
    spilled = b"".join(Path(part.data or "").read_bytes() for part in parts)
    assert spilled == text
    for part in parts:
        data = Path(part.data or "").read_bytes()
        assert part.file == str(log) and (part.start, part.end) == (0, len(data))
        assert (data.endswith(b"\n") and len(data) >= 10_000) or part is parts[-1]
    starts = [
        sum(len(Path(p.data or "").read_bytes()) for p in parts[:i]) for i in range(len(parts))
    ]
    assert [p.first_line for p in parts] == [text[:start].count(b"\n") + 1 for start in starts]


def test_one_large_gzip_log_is_replayed_by_several_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_parts(monkeypatch, 4096)
    log = tmp_path / "calls.jsonl.gz"
    log.write_bytes(gzip.compress((SCENARIO / "calls.jsonl").read_bytes() * 10))
    catalogs = load_catalogs([str(SCENARIO / "tools.json")])
    replays = prepare(catalogs.tools, DEFAULT_RULES)
    assert (
        local.tally_in_parallel(replays, local_plan(catalogs.tools, [str(log)]), 2, Progress(0))
        is not None
    )
    settings = ReportSettings(examples=1, max_calls=7)
    one, two = (
        render(
            choice.audit_logs(
                catalogs.tools, [str(log)], ["t"], request_for(jobs=jobs), settings=settings
            ),
            Format.JSON,
        )
        for jobs in (1, 2)
    )
    assert one == two
    assert json.loads(two)["inputs"]["logs"][0]["lines"] == 1800


def test_workers_and_the_merge_count_under_the_audits_collector_thresholds(
    big_log: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The workers are forked inside local.run: each one writes the thresholds it counts its
    # part under, and the merge in this process records its own.
    small_parts(monkeypatch, 1024)
    seen = tmp_path / "thresholds"
    seen.mkdir()
    work, merge = local._work, Tally.merge

    def recording_work(place: int, part: Any) -> Any:
        (seen / f"worker-{place}").write_text(json.dumps(gc.get_threshold()))
        return work(place, part)

    def recording_merge(self: Tally, later: Tally) -> None:
        (seen / "merge").write_text(json.dumps(gc.get_threshold()))
        merge(self, later)

    monkeypatch.setattr(local, "_work", recording_work)
    monkeypatch.setattr(Tally, "merge", recording_merge)
    before = gc.get_threshold()
    _report(big_log, 2, ReportSettings())
    assert gc.get_threshold() == before  # put back once the run is over
    files = sorted(seen.iterdir())
    assert len([f for f in files if f.name.startswith("worker-")]) > 1
    assert {tuple(json.loads(f.read_text())) for f in files} == {AUDIT_GC}
    assert before != AUDIT_GC


def test_a_part_tally_is_pickled_with_its_rewrites_counted_by_index() -> None:
    catalogs = load_catalogs([str(SCENARIO / "tools.json")])
    replays = prepare(catalogs.tools, DEFAULT_RULES)
    tally = Tally(replays, ReportSettings())
    tool = sorted(replays)[0]
    result = replays[tool].replay(Call(source="calls.jsonl:1", tool=tool, arguments={}))
    # Two sets that share the rewrite 0: counted by set until folded.
    tally.add(result, frozenset({0, 1}))
    tally.add(result, frozenset({0}))
    state = tally.__getstate__()
    assert state["_reached_sets"] == {}
    assert state["_reached"] == {tool: {0: 2, 1: 1}}
    back = pickle.loads(pickle.dumps(tally))
    assert back.reached == {tool: {0: 2, 1: 1}}
    assert back.counts == tally.counts
