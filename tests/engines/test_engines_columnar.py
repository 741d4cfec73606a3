"""Parquet and Arrow logs in the engine-neutral core: a plan cuts them in runs of row groups,
and the partials of those parts, or of record batches an engine reads itself
(``audit_batch``), merge in any order and grouping into the report of one pass, byte for
byte. No engine runs here: only pyarrow is needed (skipped, with the reason, without it)."""

from __future__ import annotations

import json
import pickle
import struct
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.engines.core import (
    BatchKey,
    Partial,
    PartsMissing,
    audit_batch,
    audit_part,
    combine,
    merge,
)
from auditor.engines.kept import side_file
from auditor.engines.plan import AuditPlan, make_plan
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.parts import ColumnarPart
from auditor.models import Outcome
from auditor.report import Format, render
from auditor.request import AuditRequest, Inputs
from tests.conftest import run_cli
from tests.engine_cases import (
    COLUMNAR_STATS,
    COLUMNAR_TOTALS,
    SEARCH,
    columnar_plan,
    json_of,
    one_pass,
)

pa = pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")
import pyarrow.parquet as pq  # noqa: E402


def _batches(plan: AuditPlan, part: int, size: int) -> list[tuple[BatchKey, Any]]:
    """The rows of a columnar part as record batches of ``size`` rows (the last fewer),
    each keyed by its first row: as an engine reading the file itself would hand them."""
    item = plan.parts[part]
    assert isinstance(item, ColumnarPart)
    if item.file.endswith(".arrow"):
        with pa.ipc.open_file(item.file) as reader:
            table = pa.Table.from_batches([reader.get_batch(g) for g in item.groups])
    else:
        table = pq.ParquetFile(item.file).read_row_groups(list(item.groups))
    table = table.select([item.tool, item.arguments])
    if item.rows == 0:
        return [(BatchKey(part, item.first_row), pa.RecordBatch.from_pylist([], table.schema))]
    return [
        (BatchKey(part, item.first_row + offset), batch)
        for offset in range(0, item.rows, size)
        for batch in table.slice(offset, size).combine_chunks().to_batches()
    ]


def _stats(report: str) -> list[tuple[Any, ...]]:
    keys = ("format", "lines", "blank", "records", "records_without_calls", "calls")
    return [tuple(log[key] for key in keys) for log in json.loads(report)["inputs"]["logs"]]


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> tuple[AuditPlan, str]:
    plan = columnar_plan(tmp_path_factory.mktemp("columnar"))
    return plan, one_pass(plan)


def test_the_plan_cuts_each_columnar_file_in_runs_of_row_groups(
    workload: tuple[AuditPlan, str],
) -> None:
    plan, _ = workload
    parts = [part for part in plan.parts if isinstance(part, ColumnarPart)]
    assert len(parts) == len(plan.parts)
    # Row groups of 30 and 10 rows, three record batches, the empty file's one row group.
    for file, rows, groups in zip(plan.files, (400, 100, 48, 0), (14, 10, 3, 1), strict=True):
        mine = [part for part in parts if part.file == file]
        # Consecutive row groups, each part's first row just after the previous part's last.
        assert [group for part in mine for group in part.groups] == list(range(groups))
        assert [part.first_row for part in mine] == [
            1 + sum(part.rows for part in mine[:i]) for i in range(len(mine))
        ]
        assert sum(part.rows for part in mine) == rows
    assert len([part for part in parts if part.file == plan.files[0]]) >= 3
    spans = next(part for part in parts if part.file == plan.files[1])
    assert (spans.tool, spans.arguments) == ("gen_ai.tool.name", "gen_ai.tool.call.arguments")


def test_row_group_parts_merge_into_the_one_pass_report(workload: tuple[AuditPlan, str]) -> None:
    plan, expected = workload
    report = json_of(merge(plan, [audit_part(plan, part) for part in range(len(plan.parts))]))
    assert report == expected
    assert json.loads(report)["totals"] == COLUMNAR_TOTALS
    assert _stats(report) == COLUMNAR_STATS


# Reads, merges and renders: slow on a busy machine; a choice per part of 23 and a tree of
# combines are many draws even for the smallest example.
@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.large_base_example,
        HealthCheck.data_too_large,
    ],
)
@given(data=st.data())
def test_batches_and_parts_merge_in_any_order_and_grouping_into_the_one_pass_report(
    workload: tuple[AuditPlan, str], data: st.DataObject
) -> None:
    plan, expected = workload
    partials: list[Partial] = []
    for part in range(len(plan.parts)):
        if data.draw(st.booleans()):  # a worker reads the whole part
            partials.append(audit_part(plan, part))
        else:  # the engine reads it in batches of its own size
            size = data.draw(st.integers(1, 40))
            partials += [audit_batch(plan, key, batch) for key, batch in _batches(plan, part, size)]
    partials = data.draw(st.permutations(partials))
    while len(partials) > 1:  # a random tree of combines, as a tree reduce would
        one = partials.pop(data.draw(st.integers(0, len(partials) - 1)))
        j = data.draw(st.integers(0, len(partials) - 1))
        partials[j] = (
            combine(one, partials[j]) if data.draw(st.booleans()) else combine(partials[j], one)
        )
    assert json_of(merge(plan, partials)) == expected


def test_a_batch_is_counted_row_by_row_from_its_first_row(workload: tuple[AuditPlan, str]) -> None:
    plan, _ = workload
    [(key, batch)] = _batches(plan, 0, 8)[2:3]  # rows 17-24: TEXT_ROWS once
    assert key == BatchKey(0, 17)
    [run] = audit_batch(plan, key, batch).runs
    assert (run.first, run.last, run.start, run.stop) == (0, 0, 16, 24)
    [(file, stats)] = run.stats
    assert file == plan.files[0]
    assert (stats.lines, stats.records, stats.records_without_calls, stats.calls) == (8, 8, 2, 6)
    # Sources number the file's rows: 17 is TEXT_ROWS' first (newly rejected), 20 its fourth.
    sources = [kept.call.source for kept in run.tally.kept]
    assert sources == [f"{plan.files[0]}#{row}" for row in (17, 20, 21, 23, 24)]


def test_a_batch_outside_its_part_a_batch_counted_twice_and_a_missing_one_are_refused(
    workload: tuple[AuditPlan, str],
) -> None:
    plan, _ = workload
    first = plan.parts[0]
    assert isinstance(first, ColumnarPart)
    batches = _batches(plan, 0, first.rows - 1)  # all but the last row, then the last
    (key, batch), (last_key, last) = batches
    with pytest.raises(PartsMissing, match=r"rows 3-\d+ are not all in part 0 of the logs"):
        audit_batch(plan, BatchKey(0, 3), batch)  # its last row would be the next part's
    with pytest.raises(PartsMissing, match=r"rows 1-\d+ are not all in part 1 of the logs"):
        audit_batch(plan, BatchKey(1, 1), batch)  # part 1 starts further on in the file
    rest = [audit_part(plan, part) for part in range(1, len(plan.parts))]
    with pytest.raises(PartsMissing, match=r"cover parts 0-0 to row \d+, 1-\d+ of 0-\d+"):
        merge(plan, [audit_batch(plan, key, batch), *pickle.loads(pickle.dumps(rest))])
    with pytest.raises(PartsMissing, match="part 0 of the logs was counted twice"):
        merge(
            plan,
            [
                audit_batch(plan, key, batch),
                audit_batch(plan, last_key, last),
                audit_batch(plan, last_key, last),
                *pickle.loads(pickle.dumps(rest)),
            ],
        )
    # The same batches, each once, are the whole log.
    whole = [audit_batch(plan, last_key, last), audit_batch(plan, key, batch), *rest]
    assert json.loads(json_of(merge(plan, whole)))["totals"] == COLUMNAR_TOTALS


def test_batches_put_their_listed_calls_aside_and_merge_into_the_one_pass_report(
    tmp_path: Path,
) -> None:
    plan = columnar_plan(tmp_path, scratch=True)
    assert plan.scratch is not None
    partials = [
        audit_batch(plan, key, batch)
        for part in range(len(plan.parts))
        for key, batch in _batches(plan, part, 25)
    ]
    assert all(run.tally.kept == [] for partial in partials for run in partial.runs)
    # The first part's second batch (rows 26-50) wrote its listed calls to a file of its own.
    assert Path(side_file(plan.scratch, 0, 25)).exists()
    assert json_of(merge(plan, partials[::-1])) == one_pass(plan)


def test_engines_read_named_columns_and_refuse_missing_ones_before_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "custom.parquet"
    pq.write_table(pa.table({"fn": ["search", "search"], "payload": ['{"q": "x"}', "{}"]}), path)
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(SEARCH))
    args = ["audit", "--schemas", str(catalog), "--logs", str(path), "--no-report-files", "-q"]
    for engine in ("spark", "ray"):
        code, out, err = run_cli([*args, "--engine", engine, "--tool-column", "fn"], capsys)
        assert (code, out) == (2, "")
        # Found on the driver, from the file's footer, before any engine starts.
        assert err == (
            f"auditor: error: {path}: no arguments column (arguments, "
            "gen_ai.tool.call.arguments, args, input; name it with "
            "--arguments-column); its columns: fn, payload\n"
        )
    plan = make_plan(
        [],
        [str(path)],
        ["tools.json"],
        AuditRequest(Inputs(tool_column="fn", arguments_column="payload")),
        min_part_bytes=1,
    )
    [part] = plan.parts
    assert isinstance(part, ColumnarPart) and (part.tool, part.arguments) == ("fn", "payload")


def test_a_batch_of_a_text_log_part_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text('{"tool": "search", "arguments": {"q": "x"}}\n')
    plan = make_plan([], [str(log)], ["tools.json"])
    batch = pa.record_batch([["search"], ["{}"]], names=["tool", "arguments"])
    with pytest.raises(PartsMissing, match="part 0 of the logs is not a columnar log's"):
        audit_batch(plan, BatchKey(0, 1), batch)


def test_the_report_of_row_group_parts_renders_as_the_one_pass_one(
    workload: tuple[AuditPlan, str],
) -> None:
    plan, _ = workload
    fresh = pickle.loads(pickle.dumps(plan))  # as an engine ships it
    partials = [audit_part(fresh, part) for part in range(len(plan.parts))][::-1]
    report = merge(fresh, partials)
    markdown = render(report, Format.MARKDOWN)
    assert f"{plan.files[0]}#1" in markdown  # the first newly rejected call, by its row


def test_an_arrow_file_that_breaks_mid_way_is_read_in_one_pass(tmp_path: Path) -> None:
    """Its footer reads, its second record batch does not: one pass says where it breaks."""
    schema = pa.schema([("tool", pa.string()), ("arguments", pa.string())])
    whole = tmp_path / "whole.arrow"
    with pa.ipc.new_file(whole, schema) as writer:
        writer.write_batch(pa.record_batch([["search"] * 2, ['{"q": "x"}', "{}"]], schema=schema))
        writer.write_batch(pa.record_batch([["search"] * 2, ["{}", "{}"]], schema=schema))
    data = bytearray(whole.read_bytes())
    # Each message starts with 0xFFFFFFFF: the schema's, then the two batches'.
    second = [i for i in range(len(data) - 4) if data[i : i + 4] == b"\xff" * 4][2]
    data[second + 8 : second + 40] = bytes(32)  # the second batch's metadata
    broken = tmp_path / "broken.arrow"
    broken.write_bytes(bytes(data))
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(SEARCH))
    tools = load_catalogs([str(catalog)]).tools
    plan = make_plan(tools, [str(broken)], ["tools.json"], min_part_bytes=1)
    assert [type(part).__name__ for part in plan.parts] == ["WholeFiles"]
    report = json_of(merge(plan, [audit_part(plan, 0)]))
    assert report == one_pass(plan)
    # The first batch's two rows ({"q": "x"} newly rejected, {} accepted), then the break.
    assert _stats(report) == [("arrow", 3, 0, 3, 0, 3)]
    totals = json.loads(report)["totals"]
    assert (totals["newly_rejected"], totals["accepted"], totals["unparseable"]) == (1, 1, 1)


def _hostile_logs(folder: Path) -> list[Path]:
    """An Arrow IPC file of three record batches of two rows whose second batch's last
    string offset points 8 bytes past its data, and a Parquet file of three row groups of
    two rows whose second one's page holds a value length past the page."""
    schema = pa.schema([("tool", pa.string()), ("arguments", pa.string())])
    rows = [['{"q": "x"}', '{"q": "%s"}' % ("b" * (group + 3))] for group in range(3)]
    arrow = folder / "offsets.arrow"
    with pa.ipc.new_file(arrow, schema) as writer:
        for values in rows:
            writer.write_batch(pa.record_batch([["search"] * 2, values], schema=schema))
    data = arrow.read_bytes()
    lengths = [len(value) for value in rows[1]]
    offsets = struct.pack("<3i", 0, lengths[0], sum(lengths))
    at = data.find(offsets) + 8
    arrow.write_bytes(data[:at] + struct.pack("<i", sum(lengths) + 8) + data[at + 4 :])
    parquet = folder / "pages.parquet"
    with pq.ParquetWriter(parquet, schema, compression="none", use_dictionary=False) as writer:
        for values in rows:
            writer.write_table(pa.table({"tool": ["search"] * 2, "arguments": values}, schema))
    data = parquet.read_bytes()
    at = data.find(struct.pack("<i", len(rows[1][1])) + rows[1][1].encode())
    parquet.write_bytes(data[:at] + struct.pack("<i", 1 << 30) + data[at + 4 :])
    return [arrow, parquet]


def test_parts_validate_batches_and_read_past_a_row_group_that_does_not_decode(
    tmp_path: Path,
) -> None:
    """Cut in parts (a record batch, a row group each), the hostile files give what one
    pass gives: the bad batch and the bad row group are one unparseable record each, of
    their two rows; the rows before and after them are calls. The same for a batch an
    engine read itself (``audit_batch``, as Spark hands them): validated before use."""
    logs = _hostile_logs(tmp_path)
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(SEARCH))
    tools = load_catalogs([str(catalog)]).tools
    plan = make_plan(tools, [str(log) for log in logs], ["tools.json"], min_part_bytes=1, workers=8)
    assert [type(part).__name__ for part in plan.parts] == ["ColumnarPart"] * 6
    report = json_of(merge(plan, [audit_part(plan, part) for part in range(len(plan.parts))]))
    assert report == one_pass(plan)
    # Each file: rows 1-2 and 5-6 ({"q": "x"} newly rejected, the other accepted), rows
    # 3-4 one unparseable record.
    assert _stats(report) == [("arrow", 6, 0, 5, 0, 5), ("parquet", 6, 0, 5, 0, 5)]
    found = json.loads(report)
    totals = found["totals"]
    assert (totals["newly_rejected"], totals["accepted"], totals["unparseable"]) == (4, 4, 2)
    reasons = {c["source"]: c["unparsed"]["reason"] for c in found["calls"] if c.get("unparsed")}
    assert reasons.keys() == {f"{logs[0]}#3", f"{logs[1]}#3"}
    assert reasons[f"{logs[0]}#3"].startswith("rows 3-4 are not valid Arrow data: ")
    assert reasons[f"{logs[1]}#3"].startswith("row group 1 cannot be read from here: ")
    with pa.ipc.open_file(logs[0]) as reader:
        bad = reader.get_batch(1)
    partial = audit_batch(plan, BatchKey(1, 3), bad)
    [(_, stats)] = partial.runs[0].stats
    assert (stats.lines, stats.records, stats.calls) == (2, 1, 1)
    assert partial.runs[0].tally.totals[Outcome.UNPARSEABLE] == 1
