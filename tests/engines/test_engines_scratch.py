"""``--scratch``: the parts' listed calls wait in side files instead of travelling back to the
driver, which reads the first ``--max-calls`` back: the report is the same, byte for byte.
Side files are data: one that is not what its part wrote (a planted pickle) runs nothing and
stops the run in one line, exit 3."""

from __future__ import annotations

import os
import pickle
import sys
from ctypes import c_int64
from pathlib import Path

import pytest

from auditor.aggregate.pipeline import ReportSettings, Tally, prepare
from auditor.engines import choice, local
from auditor.engines.core import audit_part, combine, count_item, merge
from auditor.engines.kept import put_aside, side_file, take_back
from auditor.engines.plan import PARTS_PER_JOB, make_plan
from auditor.errors import AuditorError
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.parts import work_items
from auditor.models import Report
from auditor.report import Format, render
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import ROOT, request_for, run_cli, small_parts

SCENARIO = ROOT / "sample_logs" / "mcp_files"
COPIES = 6
NOT_ACCEPTED = 176 - 113
"""Calls of one copy of the sample that a report lists: all but the accepted ones
(``expected.yaml``, lenient totals)."""


@pytest.fixture
def big_log(tmp_path: Path) -> Path:
    log = tmp_path / "calls.jsonl"
    log.write_bytes((SCENARIO / "calls.jsonl").read_bytes() * COPIES)
    return log


def _rendered(report: Report) -> tuple[str, str]:
    return render(report, Format.JSON), render(report, Format.MARKDOWN)


def _one_pass(log: Path, settings: ReportSettings) -> tuple[str, str]:
    tools = load_catalogs([str(SCENARIO / "tools.json")]).tools
    return _rendered(
        choice.audit_logs(tools, [str(log)], ["tools.json"], request_for(), settings=settings)
    )


@pytest.mark.parametrize("max_calls", [7, 100, None])
def test_partials_carry_no_kept_calls_and_merge_into_the_one_pass_report(
    big_log: Path, tmp_path: Path, max_calls: int | None
) -> None:
    settings = ReportSettings(examples=1, max_calls=max_calls)
    tools = load_catalogs([str(SCENARIO / "tools.json")]).tools
    folder = tmp_path / "scratch"
    folder.mkdir()
    plan = make_plan(
        tools,
        [str(big_log)],
        ["tools.json"],
        settings=settings,
        min_part_bytes=4096,
        scratch=str(folder),
    )
    assert len(plan.parts) > 3
    partials = [audit_part(plan, part) for part in reversed(range(len(plan.parts)))]
    assert all(run.tally.kept == [] for partial in partials for run in partial.runs)
    # Each part put aside its own first calls: together, every listed call of the log.
    aside = sum(count for partial in partials for run in partial.runs for _, _, count in run.aside)
    per_part = max_calls or COPIES * NOT_ACCEPTED
    assert COPIES * NOT_ACCEPTED >= aside >= min(per_part, COPIES * NOT_ACCEPTED)
    report = merge(plan, partials)
    assert _rendered(report) == _one_pass(big_log, settings)
    listed = COPIES * NOT_ACCEPTED if max_calls is None else max_calls
    assert (len(report.calls), report.calls_omitted) == (listed, COPIES * NOT_ACCEPTED - listed)


def test_jobs_with_a_scratch_folder_give_the_same_report_and_leave_nothing(
    big_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_parts(monkeypatch, 2048)
    assert len(work_items([str(big_log)], None, 2, 2048, PARTS_PER_JOB)) > 2
    settings = ReportSettings(examples=1, max_calls=7)
    tools = load_catalogs([str(SCENARIO / "tools.json")]).tools
    folder = tmp_path / "scratch"
    folder.mkdir()
    spilled = choice.audit_logs(
        tools,
        [str(big_log)],
        ["tools.json"],
        request_for(jobs=2, scratch=str(folder)),
        settings=settings,
    )
    assert _rendered(spilled) == _one_pass(big_log, settings)
    assert os.listdir(folder) == []  # the run's own folder is gone


def test_a_worker_puts_its_kept_calls_aside_and_ships_their_number(
    big_log: Path, tmp_path: Path
) -> None:
    replays = prepare(load_catalogs([str(SCENARIO / "tools.json")]).tools, DEFAULT_RULES)
    parts = work_items([str(big_log)], None, 2, 4096, 4)
    settings = ReportSettings(max_calls=5)
    full_from = c_int64(sys.maxsize)
    try:
        local._prepared[:] = [local._Shared(replays, settings, 1 << 20, full_from)]
        shipped, _, _ = local._work_at(1, parts[1])
        local._prepared[:] = [local._Shared(replays, settings, 1 << 20, full_from, str(tmp_path))]
        aside, _, count = local._work_at(1, parts[1])
    finally:
        local._prepared.clear()
    assert (aside.kept, count, aside.omitted) == ([], 5, shipped.omitted)
    assert len(shipped.kept) == 5
    back = Tally(replays, settings)
    take_back(str(tmp_path), [(1, 0, 5)], back, 5)
    assert back.kept == shipped.kept


def test_the_driver_stops_reading_once_the_list_is_full(tmp_path: Path) -> None:
    settings = ReportSettings(examples=1, max_calls=7)
    log = tmp_path / "one.jsonl"
    log.write_bytes((SCENARIO / "calls.jsonl").read_bytes())
    tools = load_catalogs([str(SCENARIO / "tools.json")]).tools
    plan = make_plan(tools, [str(log)], ["tools.json"], settings=settings, scratch=str(tmp_path))
    [run] = audit_part(plan, 0).runs
    assert run.aside == [(0, 0, 7)] and os.path.exists(side_file(str(tmp_path), 0))
    # Parts 1 and 2 put aside 7 and 3 calls more; the first part fills the list, so their
    # files are never opened (there are none here) and their calls count as omitted.
    back = Tally(prepare(tools, DEFAULT_RULES), settings)
    take_back(str(tmp_path), [(2, 0, 3), (0, 0, 7), (1, 0, 7)], back, 7)
    assert (len(back.kept), back.omitted) == (7, 10)
    one_pass = choice.audit_logs(
        tools, [str(log)], ["tools.json"], request_for(), settings=settings
    )
    assert [r.call.source for r in back.kept] == [r.call.source for r in one_pass.calls]


def test_put_aside_writes_nothing_for_a_part_without_listed_calls(tmp_path: Path) -> None:
    replays = prepare(load_catalogs([str(SCENARIO / "tools.json")]).tools, DEFAULT_RULES)
    assert put_aside(str(tmp_path), 3, Tally(replays, ReportSettings())) == 0
    assert os.listdir(tmp_path) == []


def test_combined_partials_keep_every_part_put_aside(big_log: Path, tmp_path: Path) -> None:
    tools = load_catalogs([str(SCENARIO / "tools.json")]).tools
    plan = make_plan(
        tools, [str(big_log)], ["tools.json"], min_part_bytes=4096, scratch=str(tmp_path)
    )
    partials = [audit_part(plan, part) for part in range(len(plan.parts))]
    total = partials[0]
    for partial in partials[1:]:
        total = combine(partial, total)
    [run] = total.runs
    assert [part for part, _, _ in run.aside] == list(range(len(plan.parts)))


def test_a_scratch_that_is_no_folder_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["audit", "--schemas", str(SCENARIO / "tools.json"), "--logs"]
    args += [str(SCENARIO / "calls.jsonl"), "--no-report-files", "--scratch"]
    code, _, err = run_cli([*args, str(tmp_path / "missing")], capsys)
    assert code == 2
    assert err.startswith("auditor: error: --scratch ") and err.endswith(": not a folder\n")
    assert err.count("\n") == 1
    code, _, err = run_cli([*args, str(tmp_path), "--jobs", "2", "-q"], capsys)
    assert code == 1  # the sample has newly rejected calls


class _RunsWhenUnpickled:
    """What a planted pickle can do: here, create a file when it is loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return Path.touch, (self.marker,)


def _one_part_aside(tmp_path: Path) -> tuple[Tally, str]:
    """A tally with nothing kept and the folder of one part that put 7 calls aside."""
    settings = ReportSettings(examples=1, max_calls=7)
    log = tmp_path / "one.jsonl"
    log.write_bytes((SCENARIO / "calls.jsonl").read_bytes())
    tools = load_catalogs([str(SCENARIO / "tools.json")]).tools
    folder = tmp_path / "scratch"
    folder.mkdir()
    plan = make_plan(tools, [str(log)], ["tools.json"], settings=settings, scratch=str(folder))
    [run] = audit_part(plan, 0).runs
    assert run.aside == [(0, 0, 7)]
    return Tally(prepare(tools, DEFAULT_RULES), settings), str(folder)


def test_a_planted_pickle_is_refused_as_data_and_runs_nothing(tmp_path: Path) -> None:
    back, folder = _one_part_aside(tmp_path)
    marker = tmp_path / "ran"
    Path(side_file(folder, 0)).write_bytes(pickle.dumps(_RunsWhenUnpickled(marker)))
    with pytest.raises(Exception) as refused:  # which one: asserted below
        take_back(folder, [(0, 0, 7)], back, 7)
    assert not marker.exists()  # pickle.load created it
    assert isinstance(refused.value, AuditorError) and refused.value.exit_code == 3
    line = refused.value.line()
    assert line.startswith(f"internal error: the --scratch side file {side_file(folder, 0)} ")
    assert "(line 1: not JSON (" in line and line.endswith("; no report was written")
    assert back.kept == []


def test_a_side_file_that_is_not_what_its_part_wrote_is_named_in_one_line(
    tmp_path: Path,
) -> None:
    back, folder = _one_part_aside(tmp_path)
    path = Path(side_file(folder, 0))
    written = path.read_bytes()
    assert written.count(b"\n") == 7
    lines = written.splitlines(keepends=True)
    take_back(folder, [(0, 0, 7)], back, 7)  # as written: read back
    assert len(back.kept) == 7
    back.kept = []
    cases: list[tuple[str, object]] = [
        ("it ends after 5 calls, and its part wrote at least 7", b"".join(lines[:5])),
        ("line 7 is cut short, and its part wrote at least 7", written[:-1]),
        ("line 3: not a CallResult record", b"".join([*lines[:2], b'{"call": 1}\n'])),
        ("No such file or directory", None),
        ("a symbolic link", "link"),
        ("not a regular file", "fifo"),  # opened without waiting for a writer
    ]
    for said, planted in cases:
        path.unlink(missing_ok=True)
        if isinstance(planted, bytes):
            path.write_bytes(planted)
        elif planted == "link":
            (tmp_path / "elsewhere").write_bytes(written)
            path.symlink_to(tmp_path / "elsewhere")
        elif planted == "fifo":
            os.mkfifo(path)
        with pytest.raises(AuditorError) as refused:
            take_back(folder, [(0, 0, 7)], back, 7)
        assert f"side file {path} does not hold the calls its part wrote ({said})" in str(
            refused.value
        ), said
        assert "\n" not in refused.value.line()


def test_a_link_or_folder_planted_at_a_side_file_name_is_never_written_through(
    tmp_path: Path,
) -> None:
    target = tmp_path / "precious"
    target.write_text("keep me")
    folder = tmp_path / "scratch"
    folder.mkdir()
    Path(side_file(str(folder), 0)).symlink_to(target)
    settings = ReportSettings(max_calls=3)
    replays = prepare(load_catalogs([str(SCENARIO / "tools.json")]).tools, DEFAULT_RULES)
    log = tmp_path / "one.jsonl"
    log.write_bytes((SCENARIO / "calls.jsonl").read_bytes())
    [part] = work_items([str(log)], None, 1, 1 << 30, 1)
    tally = count_item(replays, settings, part, 1 << 20)[0]
    kept = list(tally.kept)
    assert put_aside(str(folder), 0, tally) == 3
    assert target.read_text() == "keep me"
    assert not Path(side_file(str(folder), 0)).is_symlink()
    assert os.listdir(folder) == [os.path.basename(side_file(str(folder), 0))]
    back = Tally(replays, settings)
    take_back(str(folder), [(0, 0, 3)], back, 3)
    assert back.kept == kept
    # A folder planted there: the worker fails (the run stops, exit 3, as for any worker
    # that fails), leaving no temporary file behind.
    os.unlink(side_file(str(folder), 0))
    os.mkdir(side_file(str(folder), 0))
    tally.kept = kept
    with pytest.raises(IsADirectoryError):
        put_aside(str(folder), 0, tally)
    assert os.listdir(folder) == [os.path.basename(side_file(str(folder), 0))]


def test_a_run_whose_side_file_was_replaced_exits_3_naming_it(
    big_log: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Someone who can write the scratch folder swaps a part's side file for a pickle after
    # the worker wrote it (here the worker itself does, forked with this stand-in).
    marker = tmp_path / "ran"
    payload = pickle.dumps(_RunsWhenUnpickled(marker))
    written = local.put_aside

    def swapped(folder: str, part: int, tally: Tally, row: int = 0) -> int:
        count = written(folder, part, tally, row)
        if count:
            Path(side_file(folder, part, row)).write_bytes(payload)
        return count

    monkeypatch.setattr(local, "put_aside", swapped)
    small_parts(monkeypatch, 2048)
    folder = tmp_path / "scratch"
    folder.mkdir()
    args = ["audit", "--schemas", str(SCENARIO / "tools.json"), "--logs", str(big_log)]
    args += ["--no-report-files", "-q", "--jobs", "2", "--scratch", str(folder)]
    code, out, err = run_cli(args, capsys)
    assert not marker.exists()
    assert (code, out) == (3, "")
    assert err.startswith(f"auditor: internal error: the --scratch side file {folder}/")
    assert "/kept-00000000.jsonl does not hold the calls its part wrote (line 1: not JSON" in err
    assert err.endswith("; no report was written\n") and err.count("\n") == 1
    assert os.listdir(folder) == []  # the run's folder is removed all the same
