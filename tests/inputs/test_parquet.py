"""Parquet and Arrow logs: columns found by name or given, JSON text and struct arguments,
every row accounted for, sources ``file#row``; files written here by pyarrow (the tests that
need it are skipped, with the reason, where the parquet extra is not installed)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from auditor.inputs import parquet
from auditor.inputs.log_files import LogFormatError, LogProblem
from auditor.inputs.parquet import Columnar, RowCount, batches_calls
from auditor.models import Location
from tests.conftest import run_cli

CATALOG = {"search": {"type": "object", "properties": {"q": {"type": "string", "min_length": 2}}}}
# Normalized, min_length becomes minLength: {"q": "x"} is newly rejected; {"q": "xyz"} and
# {} pass; any other tool is unknown.


@pytest.fixture
def pa() -> Any:
    return pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(CATALOG))
    return path


Audit = Callable[..., tuple[int, Any, str]]


@pytest.fixture
def audit(catalog: Path, capsys: pytest.CaptureFixture[str]) -> Audit:
    def run(*args: str) -> tuple[int, Any, str]:
        code, out, err = run_cli(
            ["audit", "--schemas", str(catalog), "--no-report-files", "--format", "json", *args],
            capsys,
        )
        return code, json.loads(out) if out else None, err

    return run


def _outcomes(report: Any) -> dict[str, str]:
    return {call["source"]: call["outcome"] for call in report["calls"]}


def _reasons(report: Any) -> dict[str, str]:
    return {c["source"]: c["unparsed"]["reason"] for c in report["calls"] if c.get("unparsed")}


def _stats(report: Any) -> list[tuple[Any, ...]]:
    keys = ("format", "lines", "blank", "records", "records_without_calls", "calls")
    return [tuple(log[key] for key in keys) for log in report["inputs"]["logs"]]


def test_a_parquet_log_of_json_text_accounts_for_every_row(
    pa: Any, tmp_path: Path, audit: Audit, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow.parquet as pq

    monkeypatch.setattr(parquet, "BATCH_ROWS", 3)  # batches that cut across row groups
    table = pa.table(
        {
            "tool_name": ["search", None, "search", "search", "search", "", "fetch"],
            "arguments": ['{"q": "x"}', None, '{"q": "xyz"}', '{"q": 1', None, "{}", "{}"],
        }
    )
    pq.write_table(table, tmp_path / "calls.parquet", row_group_size=2)
    code, report, _ = audit("--logs", str(tmp_path / "calls.parquet"))
    assert code == 1
    log = str(tmp_path / "calls.parquet")
    # Rows 2 (null tool) and 6 (empty tool) hold no call; row 4's text is not JSON and row 5
    # has null arguments: both unparseable; row 7's tool is not in the catalog.
    assert _stats(report) == [("parquet", 7, 0, 7, 2, 5)]
    assert report["totals"] == {
        "calls": 5,
        "unknown_tool": 1,
        "unparseable": 2,
        "schema_error_after": 0,
        "schema_error_before": 0,
        "accepted": 1,
        "newly_rejected": 1,
        "still_rejected": 0,
        "newly_accepted": 0,
    }
    assert _outcomes(report) == {
        f"{log}#1": "newly_rejected",
        f"{log}#4": "unparseable",
        f"{log}#5": "unparseable",
        f"{log}#7": "unknown_tool",
    }
    assert _reasons(report) == {
        f"{log}#4": "arguments are not valid JSON: Expecting ',' delimiter at column 8",
        f"{log}#5": "has no 'arguments' (null)",
    }


def test_an_arrow_file_of_struct_arguments_and_otel_column_names(
    pa: Any, tmp_path: Path, audit: Audit
) -> None:
    import pyarrow.ipc as ipc

    arguments = pa.array([{"q": "x"}, None, {"q": "abc"}], type=pa.struct([("q", pa.string())]))
    table = pa.table(
        {
            "name": ["execute_tool search", "chat", "execute_tool search"],  # the span's name
            "gen_ai.tool.name": ["search", None, "search"],
            "gen_ai.tool.call.arguments": arguments,
        }
    )
    path = tmp_path / "spans.arrow"
    with ipc.new_file(path, table.schema) as writer:
        writer.write_table(table)
    code, report, _ = audit("--logs", str(path))
    assert code == 1
    assert _stats(report) == [("arrow", 3, 0, 3, 1, 2)]
    assert report["totals"]["newly_rejected"] == 1
    assert report["totals"]["accepted"] == 1
    assert _outcomes(report) == {f"{path}#1": "newly_rejected"}


def test_map_arguments_and_values_json_has_no_type_for(
    pa: Any, tmp_path: Path, audit: Audit
) -> None:
    import pyarrow.parquet as pq

    maps = pa.table(
        {
            "tool": ["search", "search"],
            "args": pa.array([[("q", "x")], []], type=pa.map_(pa.string(), pa.string())),
        }
    )
    (tmp_path / "logs").mkdir()
    pq.write_table(maps, tmp_path / "logs" / "maps.parquet")
    stamped = pa.table(
        {
            "tool": ["search"],
            "args": pa.array(
                [{"q": "xyz", "at": datetime(2026, 1, 1)}],
                type=pa.struct([("q", pa.string()), ("at", pa.timestamp("s"))]),
            ),
        }
    )
    pq.write_table(stamped, tmp_path / "logs" / "stamped.parquet")
    code, report, _ = audit("--logs", str(tmp_path / "logs"))
    assert code == 1
    # maps.parquet: {"q": "x"} is newly rejected, the empty map is {} and passes;
    # stamped.parquet: a timestamp has no JSON type, so the call is unparseable.
    assert _stats(report) == [("parquet", 2, 0, 2, 0, 2), ("parquet", 1, 0, 1, 0, 1)]
    assert report["totals"]["newly_rejected"] == 1
    assert report["totals"]["accepted"] == 1
    assert report["totals"]["unparseable"] == 1
    assert _reasons(report) == {
        f"{tmp_path / 'logs' / 'stamped.parquet'}#1": "a datetime value, which JSON has no type for"
    }


def test_columns_given_by_option_and_a_missing_column_exits_2(
    pa: Any, tmp_path: Path, audit: Audit
) -> None:
    import pyarrow.parquet as pq

    table = pa.table({"fn": ["search", "search"], "payload": ['{"q": "x"}', '{"q": "xy"}']})
    path = tmp_path / "custom.parquet"
    pq.write_table(table, path)
    code, report, err = audit("--logs", str(path))
    assert (code, report) == (2, None)
    assert err == (
        f"auditor: error: {path}: no tool column (tool_name, gen_ai.tool.name, tool, name; "
        "name it with --tool-column); its columns: fn, payload\n"
    )
    code, report, _ = audit(
        "--logs", str(path), "--tool-column", "fn", "--arguments-column", "payload"
    )
    assert code == 1
    assert _outcomes(report) == {f"{path}#1": "newly_rejected"}
    assert report["totals"]["accepted"] == 1
    code, _, err = audit("--logs", str(path), "--tool-column", "fn", "--arguments-column", "body")
    assert code == 2
    assert err == (
        f"auditor: error: {path}: no column 'body' (--arguments-column); its columns: fn, payload\n"
    )


def test_a_tool_column_that_is_not_text_exits_2(pa: Any, tmp_path: Path, audit: Audit) -> None:
    import pyarrow.parquet as pq

    path = tmp_path / "numbers.parquet"
    pq.write_table(pa.table({"tool": [1, 2], "arguments": ["{}", "{}"]}), path)
    code, _, err = audit("--logs", str(path))
    assert (code, err) == (
        2,
        f"auditor: error: {path}: the tool column 'tool' holds int64, not strings\n",
    )


def test_arguments_longer_than_a_record_may_be_are_unparseable(
    pa: Any, tmp_path: Path, audit: Audit
) -> None:
    import pyarrow.parquet as pq

    path = tmp_path / "long.parquet"
    pq.write_table(pa.table({"tool": ["search", "search"], "arguments": ["{}", "[" * 40]}), path)
    code, report, _ = audit("--logs", str(path), "--max-record-bytes", "20")
    assert code == 0
    assert report["totals"]["accepted"] == 1
    assert report["totals"]["unparseable"] == 1
    # Row 2 is its tool (6 bytes) and its arguments (40): 46 bytes, over the bound of 20.
    assert _reasons(report) == {
        f"{path}#2": "row of 46 bytes is longer than --max-record-bytes: not parsed"
    }


def test_an_arrow_stream_cut_short_ends_with_one_unreadable_row(
    pa: Any, tmp_path: Path, audit: Audit
) -> None:
    import pyarrow.ipc as ipc

    schema = pa.schema([("tool", pa.string()), ("arguments", pa.string())])
    whole = tmp_path / "whole.arrows"
    with ipc.new_stream(whole, schema) as writer:
        writer.write_batch(pa.record_batch([["search"] * 2, ['{"q": "x"}', "{}"]], schema=schema))
        writer.write_batch(pa.record_batch([["search"] * 2, ["{}", "{}"]], schema=schema))
    data = whole.read_bytes()
    cut = tmp_path / "cut.log"  # a log name; the content says it is an Arrow stream
    cut.write_bytes(data[: len(data) - 40])  # into the second batch
    code, report, _ = audit("--logs", str(cut))
    assert code == 1
    # The first batch's two rows, then the break, counted as one more unparseable row.
    assert _stats(report) == [("arrow-stream", 3, 0, 3, 0, 3)]
    assert report["totals"]["newly_rejected"] == 1
    assert report["totals"]["accepted"] == 1
    assert report["totals"]["unparseable"] == 1
    [reason] = _reasons(report).values()
    assert reason.startswith("the rest of the arrow-stream log cannot be read: ")


def test_a_broken_parquet_file_exits_2(pa: Any, tmp_path: Path, audit: Audit) -> None:
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1" + b"\0" * 64)
    code, _, err = audit("--logs", str(path))
    assert code == 2
    assert err.startswith(f"auditor: error: {path}: cannot be read as parquet: ")
    assert err.count("\n") == 1


def test_a_parquet_object_named_by_uri(pa: Any, tmp_path: Path, audit: Audit) -> None:
    fsspec = pytest.importorskip("fsspec", reason="fsspec (the cloud extra) is not installed")
    import pyarrow.parquet as pq

    local = tmp_path / "calls.parquet"
    pq.write_table(pa.table({"tool": ["search"], "arguments": ['{"q": "x"}']}), local)
    memory = fsspec.filesystem("memory")
    memory.pipe("/parquet-test/logs/calls.parquet", local.read_bytes())
    try:
        code, report, _ = audit("--logs", "memory://parquet-test/logs")
    finally:
        memory.rm("/parquet-test", recursive=True)
    assert code == 1
    assert _outcomes(report) == {"memory://parquet-test/logs/calls.parquet#1": "newly_rejected"}


def test_without_pyarrow_a_parquet_log_names_the_extra(
    tmp_path: Path, audit: Audit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now fails
    path = tmp_path / "calls.parquet"
    path.write_bytes(b"PAR1" + b"\0" * 64)
    code, _, err = audit("--logs", str(path))
    assert (code, err) == (
        2,
        f"auditor: error: {path}: a parquet log needs pyarrow, the parquet extra: "
        "pip install 'tool-schema-auditor[parquet]'\n",
    )


def test_binary_text_list_and_number_arguments(pa: Any, tmp_path: Path, audit: Audit) -> None:
    import pyarrow.parquet as pq

    (tmp_path / "logs").mkdir()
    binary = pa.table(
        {"tool": ["search", "search"], "arguments": pa.array([b'{"q": "x"}', b"\xff{"])}
    )
    pq.write_table(binary, tmp_path / "logs" / "a-binary.parquet")
    values = pa.array(
        [{"q": "xyz", "n": 1.5, "tags": ["a"]}, {"q": "xyz", "n": float("nan"), "tags": []}],
        type=pa.struct([("q", pa.string()), ("n", pa.float64()), ("tags", pa.list_(pa.string()))]),
    )
    pq.write_table(
        pa.table({"tool": ["search"] * 2, "args": values}), tmp_path / "logs" / "b.parquet"
    )
    lists = pa.array([[1, 2], [3, None]], type=pa.list_(pa.int64()))
    pq.write_table(
        pa.table({"tool": ["search"] * 2, "args": lists}), tmp_path / "logs" / "c.parquet"
    )
    keyed = pa.array([[(1, "x")]], type=pa.map_(pa.int64(), pa.string()))
    pq.write_table(pa.table({"tool": ["search"], "args": keyed}), tmp_path / "logs" / "d.parquet")
    code, report, _ = audit("--logs", str(tmp_path / "logs"))
    assert code == 1
    logs = tmp_path / "logs"
    # a-binary: UTF-8 JSON text is read as text ({"q": "x"}: newly rejected); the other is not
    # UTF-8. b: a finite number and a list pass; NaN has no JSON spelling. c: an array is no
    # object, before or after: still rejected (null is a JSON value). d: a map keyed by
    # integers is no JSON object.
    assert _outcomes(report) == {
        f"{logs / 'a-binary.parquet'}#1": "newly_rejected",
        f"{logs / 'a-binary.parquet'}#2": "unparseable",
        f"{logs / 'b.parquet'}#2": "unparseable",
        f"{logs / 'c.parquet'}#1": "still_rejected",
        f"{logs / 'c.parquet'}#2": "still_rejected",
        f"{logs / 'd.parquet'}#1": "unparseable",
    }
    assert _reasons(report) == {
        f"{logs / 'a-binary.parquet'}#2": "arguments are not UTF-8 text (invalid start byte)",
        f"{logs / 'b.parquet'}#2": "nan is not a JSON number",
        f"{logs / 'd.parquet'}#1": "a key of type int, not a string",
    }
    assert report["totals"]["accepted"] == 1


def test_a_worker_that_cannot_open_the_log_fails_the_run_and_a_broken_batch_does_not() -> None:
    """A part's worker opens its file itself: a worker without pyarrow must fail the run
    (a misconfigured executor), not report every part of the file as broken; a batch that
    does not read is one more ``unparseable`` call (the file breaks mid-way)."""

    def unopenable() -> Iterator[Any]:
        raise LogFormatError(LogProblem(Location("calls.parquet"), "needs pyarrow"))
        yield  # type: ignore[unreachable]  # a generator, as group_batches is

    def broken() -> Iterator[Any]:
        raise OSError("corrupt page")
        yield  # type: ignore[unreachable]

    counted = RowCount()
    with pytest.raises(LogFormatError, match="needs pyarrow"):
        list(
            batches_calls("calls.parquet", Columnar.PARQUET, unopenable(), "arguments", 99, counted)
        )
    [call] = batches_calls("calls.parquet", Columnar.PARQUET, broken(), "arguments", 99, counted)
    assert call.source == "calls.parquet#1" and call.unparsed is not None
    assert "cannot be read: corrupt page" in call.unparsed.reason
