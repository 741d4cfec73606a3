"""Issue 23, columnar input that cannot crash or balloon: Parquet and Arrow logs made here
with pyarrow, then patched where a hostile file would differ (string offsets past their
buffer, a dictionary value every row refers to, a row group its footer says is too large).

Each file that made the process die (a signal, or memory exhausted) is audited in a
subprocess under an address-space and a CPU-time limit, so that a crash or a balloon fails
the test instead of ending pytest; the rest run in this process. Skipped, with the reason,
where pyarrow (the parquet extra) is not installed; .ci/run runs it with pyarrow.
"""

from __future__ import annotations

import json
import os
import resource
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import auditor
from auditor.inputs.parquet import (
    Columnar,
    RowCount,
    batches_calls,
    readable_type,
    row_bytes,
    validate,
)
from tests.conftest import run_cli

pa = pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")
import pyarrow.ipc as ipc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

CATALOG = {"search": {"type": "object", "properties": {"q": {"type": "string", "min_length": 2}}}}
# Normalized, min_length becomes minLength: {"q": "x"} is newly rejected, a longer q passes.
ROOT = Path(auditor.__file__).resolve().parents[1]
MEMORY = 1024**3
"""Address space of an audited subprocess: auditor with pyarrow needs some 200 MB here."""
CPU_SECONDS = 60


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def _audit_apart(tmp_path: Path, *args: str, stdin: bytes | None = None) -> tuple[int, Any, str]:
    """Exit code, JSON report and stderr of ``auditor audit`` run in a subprocess, on the
    ``auditor`` this test imported, under ``MEMORY`` and ``CPU_SECONDS``."""
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps(CATALOG))
    out = tmp_path / "audit.json"
    command = [sys.executable, "-m", "auditor", "audit", "--schemas", str(catalog)]
    command += ["--no-report-files", "--format", "json", "--output", str(out), *args]
    done = subprocess.run(
        command,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_limited,
        timeout=600,
        check=False,
    )
    report = json.loads(out.read_text()) if out.exists() else None
    return done.returncode, report, done.stderr.decode(errors="replace")


def _audit_here(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, Any, str]:
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps(CATALOG))
    code, out, err = run_cli(
        ["audit", "--schemas", str(catalog), "--no-report-files", "--format", "json", *args],
        capsys,
    )
    return code, json.loads(out) if out else None, err


def _stats(report: Any) -> list[tuple[Any, ...]]:
    keys = ("format", "lines", "records", "records_without_calls", "calls")
    return [tuple(log[key] for key in keys) for log in report["inputs"]["logs"]]


def _outcomes(report: Any) -> dict[str, int]:
    wanted = ("calls", "newly_rejected", "accepted", "unparseable", "unknown_tool")
    return {key: report["totals"][key] for key in wanted}


def _unparsed(report: Any) -> dict[str, str]:
    return {c["source"]: c["unparsed"]["reason"] for c in report["calls"] if c.get("unparsed")}


# --- Arrow IPC string offsets outside their buffers ------------------------------------------

SCHEMA = pa.schema([("tool", pa.string()), ("arguments", pa.string())])


def _batch_arguments(number: int) -> list[str]:
    """Batch ``number``'s arguments: {"q": "x"} (newly rejected), then three that pass, of
    lengths no other batch has (so each batch's offsets are found once in the file)."""
    return ['{"q": "x"}', *('{"q": "%s"}' % ("a" * (number + k)) for k in (3, 4, 5))]


def _ipc(stream: bool) -> bytes:
    """Three record batches of four rows (rows 1-4, 5-8, 9-12) as an Arrow IPC file or
    stream, written by pyarrow: valid."""
    sink = pa.BufferOutputStream()
    writer = (ipc.new_stream if stream else ipc.new_file)(sink, SCHEMA)
    for number in range(3):
        writer.write_batch(pa.record_batch([["search"] * 4, _batch_arguments(number)], SCHEMA))
    writer.close()
    return bytes(sink.getvalue().to_pybytes())


def _patched(data: bytes, number: int, last: int) -> bytes:
    """``data`` with the last offset of batch ``number``'s arguments set to ``last``: the
    int32 offsets buffer of that column is the running sum of its values' lengths."""
    lengths = [len(value) for value in _batch_arguments(number)]
    offsets = struct.pack("<5i", 0, *(sum(lengths[: k + 1]) for k in range(4)))
    at = data.find(offsets)
    assert at >= 0 and data.find(offsets, at + 1) < 0
    end = at + 16
    return data[:end] + struct.pack("<i", last) + data[end + 4 :]


DATA_BYTES = sum(len(value) for value in _batch_arguments(1))
"""The size of batch 1's arguments data buffer: where its last offset points."""
PATCHES = {
    # Read past the buffer: on main, the last row held bytes of other memory (no error).
    "8 bytes past the data": DATA_BYTES + 8,
    # Far past it: on main, SIGSEGV.
    "a GiB past the data": 1 << 30,
    # Before the previous offset: on main, SIGABRT (std::length_error).
    "below the previous offset": -5,
}


def _expect_batch_1_unparseable(report: Any, log: str) -> None:
    """Batches 0 and 2 read (a newly rejected and three accepted calls each), batch 1 one
    unparseable record at its first row, row 5, standing for its four rows."""
    assert _stats(report)[0][1:] == (12, 9, 0, 9)
    assert _outcomes(report) == {
        "calls": 9,
        "newly_rejected": 2,
        "accepted": 6,
        "unparseable": 1,
        "unknown_tool": 0,
    }
    [(source, reason)] = _unparsed(report).items()
    assert source == f"{log}#5"
    assert reason.startswith("rows 5-8 are not valid Arrow data: ")
    assert "offset" in reason.lower()


@pytest.mark.parametrize("stream", [False, True], ids=["file", "stream"])
@pytest.mark.parametrize("patch", list(PATCHES))
def test_arrow_offsets_outside_their_buffer_are_one_unparseable_record_not_a_signal(
    tmp_path: Path, stream: bool, patch: str
) -> None:
    log = tmp_path / "calls.arrow"
    log.write_bytes(_patched(_ipc(stream), 1, PATCHES[patch]))
    code, report, err = _audit_apart(tmp_path, "--logs", str(log))
    assert code == 1, err  # {"q": "x"} is newly rejected: the gate fails, with a report
    assert _stats(report)[0][0] == ("arrow-stream" if stream else "arrow")
    _expect_batch_1_unparseable(report, str(log))


def test_an_arrow_stream_with_bad_offsets_on_standard_input(tmp_path: Path) -> None:
    data = _patched(_ipc(stream=True), 1, PATCHES["a GiB past the data"])
    code, report, err = _audit_apart(tmp_path, "--logs", "-", stdin=data)
    assert code == 1, err
    [log] = report["inputs"]["logs"]
    _expect_batch_1_unparseable(report, log["path"])


def test_valid_arrow_logs_give_every_call(tmp_path: Path) -> None:
    """The same files unpatched: all twelve rows are calls (acceptance beside the refusal)."""
    for stream in (False, True):
        log = tmp_path / f"calls-{stream}.arrow"
        log.write_bytes(_ipc(stream))
        code, report, err = _audit_apart(tmp_path, "--logs", str(log))
        assert code == 1, err
        assert _stats(report)[0][1:] == (12, 12, 0, 12)
        assert _outcomes(report)["newly_rejected"] == 3
        assert _outcomes(report)["accepted"] == 9


# --- Dictionary-encoded values every row refers to --------------------------------------------


def _arguments(size: int) -> str:
    """JSON arguments of exactly ``size`` bytes whose q is long enough to pass."""
    return '{"q": "' + "a" * (size - 9) + '"}'


def test_a_parquet_dictionary_bomb_is_read_row_by_row_in_bounded_memory(tmp_path: Path) -> None:
    """One 4 MB value in a dictionary page, 300 rows referring to it, zstd: under 1 KB on
    disk, 1.2 GB once every row holds its copy (on main: one unparseable call, a
    MemoryError, for 300 rows). Each row is a call, read within the memory limit."""
    value = _arguments(4_000_000)
    indices = pa.array([0] * 300, pa.int32())
    table = pa.table(
        {
            "tool": ["search"] * 300,
            "arguments": pa.DictionaryArray.from_arrays(indices, pa.array([value])),
        }
    )
    log = tmp_path / "bomb.parquet"
    pq.write_table(table, log, compression="zstd")
    assert log.stat().st_size < 4096
    code, report, err = _audit_apart(tmp_path, "--logs", str(log))
    assert code == 0, err
    assert _stats(report) == [("parquet", 300, 300, 0, 300)]
    assert _outcomes(report)["accepted"] == 300


BOUND = 2_000_000
"""--max-record-bytes of the acceptance cases: a row of the tool (6 bytes) and arguments."""
AT_BOUND = _arguments(BOUND - len("search"))
OVER_BOUND = _arguments(BOUND - len("search") + 1)


def _bound_table() -> Any:
    """150 rows of a value at the bound, 150 one byte over it (alternating), both columns
    dictionary-encoded: 300 rows, 600 MB once every row holds its copy."""
    indices = pa.array([0, 1] * 150, pa.int32())
    return pa.table(
        {
            "tool": pa.DictionaryArray.from_arrays(pa.array([0] * 300, pa.int32()), ["search"]),
            "arguments": pa.DictionaryArray.from_arrays(indices, pa.array([AT_BOUND, OVER_BOUND])),
        }
    )


@pytest.mark.parametrize("kind", ["parquet", "arrow"])
def test_a_row_at_the_bound_is_a_call_and_one_byte_over_is_unparseable(
    tmp_path: Path, kind: str
) -> None:
    """A valid file of dictionary-encoded columns gives exactly the calls it holds: the
    rows at --max-record-bytes are calls, the rows one byte over are unparseable, measured
    before any value is built (on main: the tool did not count, an Arrow dictionary tool
    column was refused, and 600 MB of copies exhausted the memory limit)."""
    log = tmp_path / f"bound.{kind}"
    if kind == "parquet":
        pq.write_table(_bound_table(), log, compression="zstd")
    else:
        with ipc.new_file(log, _bound_table().schema) as writer:
            writer.write_table(_bound_table())
    code, report, err = _audit_apart(tmp_path, "--logs", str(log), "--max-record-bytes", str(BOUND))
    assert code == 0, err
    assert _stats(report) == [(kind, 300, 300, 0, 300)]
    assert _outcomes(report) == {
        "calls": 300,
        "newly_rejected": 0,
        "accepted": 150,
        "unparseable": 150,
        "unknown_tool": 0,
    }
    reason = f"row of {BOUND + 1:,} bytes is longer than --max-record-bytes: not parsed"
    assert _unparsed(report) == {f"{log}#{row}": reason for row in range(2, 301, 2)}
    first = next(call for call in report["calls"] if call["source"] == f"{log}#2")
    # Its tool, and the head of its text (the report cuts it further), are kept.
    assert first["tool"] == "search"
    assert first["unparsed"]["raw"].startswith('{"q": "aaaa')


def test_rows_without_a_tool_are_not_built_and_binary_over_the_bound_keeps_its_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rows 1-2 have no tool: no call, whatever their arguments hold (not built); row 3's
    binary arguments are over the bound (6 + 209 bytes): unparseable, its text's head kept;
    row 4 is a call."""
    big = _arguments(209).encode()
    table = pa.table(
        {
            "tool": [None, None, "search", "search"],
            "arguments": pa.array([big, big, big, b'{"q": "x"}'], pa.binary()),
        }
    )
    log = tmp_path / "binary.parquet"
    pq.write_table(table, log)
    code, report, _ = _audit_here(tmp_path, capsys, "--logs", str(log), "--max-record-bytes", "100")
    assert code == 1
    assert _stats(report) == [("parquet", 4, 4, 2, 2)]
    assert _unparsed(report) == {
        f"{log}#3": "row of 215 bytes is longer than --max-record-bytes: not parsed"
    }
    [row_3] = [call for call in report["calls"] if call["source"] == f"{log}#3"]
    assert row_3["unparsed"]["raw"].startswith('{"q": "aaaa')
    assert _outcomes(report)["newly_rejected"] == 1


def test_dictionary_rows_over_the_bound_keep_their_tool_and_head_and_others_are_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bound case in this process, small: dictionary-encoded tool and arguments, rows at
    the bound (100 bytes) and one byte over, and a null in each column."""
    at, over = _arguments(100 - len("search")), _arguments(101 - len("search"))
    table = pa.table(
        {
            "tool": pa.DictionaryArray.from_arrays(
                pa.array([0, 0, None, 0], pa.int32()), ["search"]
            ),
            "arguments": pa.DictionaryArray.from_arrays(
                pa.array([0, 1, 1, None], pa.int32()), pa.array([at, over])
            ),
        }
    )
    log = tmp_path / "small.arrow"
    with ipc.new_file(log, table.schema) as writer:
        writer.write_table(table)
    code, report, _ = _audit_here(tmp_path, capsys, "--logs", str(log), "--max-record-bytes", "100")
    assert code == 0
    # Row 3 has no tool (no call, over the bound or not); row 4's arguments are null.
    assert _stats(report) == [("arrow", 4, 4, 1, 3)]
    assert _unparsed(report) == {
        f"{log}#2": "row of 101 bytes is longer than --max-record-bytes: not parsed",
        f"{log}#4": "has no 'arguments' (null)",
    }
    [row_2] = [call for call in report["calls"] if call["source"] == f"{log}#2"]
    assert row_2["tool"] == "search"
    assert row_2["unparsed"]["raw"].startswith('{"q": "aaaa')
    assert _outcomes(report)["accepted"] == 1


def test_a_dictionary_is_validated_once_and_an_index_outside_it_is_refused() -> None:
    """Batches sharing a dictionary validate it once (it is held); one whose dictionary
    is another is validated again; an index past the dictionary is invalid, as is a
    dictionary of text that is not UTF-8."""
    words = pa.array(["search", "fetch"])
    schema = pa.schema(
        [("tool", pa.dictionary(pa.int32(), pa.string())), ("arguments", pa.string())]
    )

    def batch(indices: list[int], dictionary: Any) -> Any:
        tools = pa.DictionaryArray.from_arrays(
            pa.array(indices, pa.int32()), dictionary, safe=False
        )
        return pa.record_batch([tools, pa.array(["{}"] * len(indices))], schema=schema)

    held: dict[int, Any] = {}
    validate(batch([0, 1], words), held)
    assert held[0] is not None and held[0].equals(words)
    first = held[0]
    validate(batch([1, 1], words), held)
    assert held[0] is first  # the same buffers: not validated again
    with pytest.raises(pa.ArrowInvalid, match="dictionary index 5 or 0 out of bounds"):
        validate(batch([0, 5], words), held)
    not_utf8 = pa.Array.from_buffers(
        pa.string(), 1, [None, pa.py_buffer(struct.pack("<2i", 0, 1)), pa.py_buffer(b"\xff")]
    )
    with pytest.raises(pa.ArrowInvalid, match="UTF8"):
        validate(batch([0], not_utf8), held)
    # A Parquet row group's dictionary grows from batch to batch: only what it gained is
    # validated, and what it gained must be valid.
    growing: dict[int, Any] = {}
    validate(batch([0], words), growing, growing=True)
    validate(batch([2], pa.concat_arrays([words, pa.array(["more"])])), growing, growing=True)
    assert len(growing[0]) == 3
    with pytest.raises(pa.ArrowInvalid, match="UTF8"):
        validate(batch([3], pa.concat_arrays([growing[0], not_utf8])), growing, growing=True)
    # batches_calls: the invalid batch is one record of its rows, the valid ones are read.
    counted = RowCount()
    calls = list(
        batches_calls(
            "t.arrow",
            Columnar.ARROW,
            [batch([0], words), batch([0, 5], words), batch([1], words)],
            "arguments",
            1000,
            counted,
        )
    )
    assert [call.source for call in calls] == ["t.arrow#1", "t.arrow#2", "t.arrow#4"]
    assert calls[1].unparsed is not None and calls[1].unparsed.reason.startswith(
        "rows 2-3 are not valid Arrow data: "
    )
    assert (counted.rows, counted.records, counted.calls) == (4, 3, 3)


def test_a_dictionary_page_that_does_not_decode_is_one_record_and_the_next_group_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three row groups of two dictionary-encoded rows; the length of a value in the second
    group's dictionary page is patched past the page: reading that page, to size the
    group's batches, fails; its rows are one unparseable record."""
    log = tmp_path / "dictionary.parquet"
    with pq.ParquetWriter(log, SCHEMA, compression="none") as writer:
        for group in range(3):
            values = ['{"q": "x"}', '{"q": "%s"}' % ("c" * (group + 3))]
            writer.write_table(pa.table({"tool": ["search"] * 2, "arguments": values}, SCHEMA))
    data = log.read_bytes()
    value = b'{"q": "cccc"}'
    at = data.find(struct.pack("<i", len(value)) + value)
    assert at >= 0
    log.write_bytes(data[:at] + struct.pack("<i", 1 << 30) + data[at + 4 :])
    code, report, _ = _audit_here(tmp_path, capsys, "--logs", str(log))
    assert code == 1
    assert _stats(report) == [("parquet", 6, 5, 0, 5)]
    [(source, reason)] = _unparsed(report).items()
    assert source == f"{log}#3"
    assert reason.startswith("row group 1 cannot be read")
    assert _outcomes(report)["newly_rejected"] == 2


# --- Parquet row groups beyond the bounds, or that do not decode ------------------------------


def test_a_row_group_its_footer_says_is_too_large_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Row group 0: 16 plain-encoded rows of 8 MB (128 MB uncompressed, 4 KB compressed);
    row group 1: two ordinary rows. With --max-record-bytes 1 MiB the first may take 16 MiB
    and 64 MiB besides (GROUP_ALLOWANCE): it is one unparseable record of its 16 rows, not
    read; the second is read (on main: all of it read, 16 unparseable calls)."""
    big = _arguments(8_000_000)
    log = tmp_path / "groups.parquet"
    with pq.ParquetWriter(log, SCHEMA, compression="zstd", use_dictionary=False) as writer:
        writer.write_table(pa.table({"tool": ["search"] * 16, "arguments": [big] * 16}, SCHEMA))
        writer.write_table(pa.table({"tool": ["search"] * 2, "arguments": ['{"q": "x"}', "{}"]}))
    code, report, _ = _audit_here(
        tmp_path, capsys, "--logs", str(log), "--max-record-bytes", "1048576"
    )
    assert code == 1
    assert _stats(report) == [("parquet", 18, 3, 0, 3)]
    assert _outcomes(report) == {
        "calls": 3,
        "newly_rejected": 1,
        "accepted": 1,
        "unparseable": 1,
        "unknown_tool": 0,
    }
    [(source, reason)] = _unparsed(report).items()
    assert source == f"{log}#1"
    # 16 values of 8 MB (and their 4-byte lengths) in its page, 16 short tool names: 128 MB
    # and some hundred bytes.
    assert reason.startswith("row group 0 is not read: its 16 rows would take 128,000,")
    assert reason.endswith(
        " bytes once read (by its footer and dictionary pages), more than --max-record-bytes "
        "for each row allows"
    )
    # The same file with the default bound (64 MiB a row): every row is a call.
    code, report, _ = _audit_here(tmp_path, capsys, "--logs", str(log))
    assert _stats(report) == [("parquet", 18, 18, 0, 18)]
    assert _outcomes(report)["accepted"] == 17


def test_a_parquet_batch_that_is_not_valid_is_one_record_of_its_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyarrow builds a Parquet file's batches itself; should one not be valid (here: told
    so), its rows are one unparseable record and the next batches are read."""
    from auditor.inputs import parquet

    checked = parquet.validate

    def second_is_invalid(batch: Any, held: dict[int, Any], growing: bool = False) -> None:
        checked(batch, held, growing)
        if growing and batch.column(1).to_pylist()[0] == '{"q": "x"}':
            raise pa.ArrowInvalid("told so")

    monkeypatch.setattr(parquet, "validate", second_is_invalid)
    monkeypatch.setattr(parquet, "BATCH_ROWS", 2)
    log = tmp_path / "told.parquet"
    values = ['{"q": "xyz"}', "{}", '{"q": "x"}', "{}", '{"q": "abc"}']
    pq.write_table(pa.table({"tool": ["search"] * 5, "arguments": values}), log)
    code, report, _ = _audit_here(tmp_path, capsys, "--logs", str(log))
    assert code == 0
    assert _stats(report) == [("parquet", 5, 4, 0, 4)]
    assert _unparsed(report) == {f"{log}#3": "row group 0: not valid Arrow data: told so"}
    assert _outcomes(report)["accepted"] == 3


def test_a_row_group_that_does_not_decode_is_one_record_and_the_next_one_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three row groups of two rows; the length of a value in the second one's page is
    patched past the page: its two rows are one unparseable record, the third group is
    read (on main: the rest of the file was one unparseable call)."""
    log = tmp_path / "corrupt.parquet"
    with pq.ParquetWriter(log, SCHEMA, compression="none", use_dictionary=False) as writer:
        for group in range(3):
            values = ['{"q": "x"}', '{"q": "%s"}' % ("b" * (group + 3))]
            writer.write_table(pa.table({"tool": ["search"] * 2, "arguments": values}, SCHEMA))
    data = log.read_bytes()
    value = b'{"q": "bbbb"}'  # row group 1's second value, after its PLAIN length prefix
    at = data.find(struct.pack("<i", len(value)) + value)
    assert at >= 0
    log.write_bytes(data[:at] + struct.pack("<i", 1 << 30) + data[at + 4 :])
    code, report, _ = _audit_here(tmp_path, capsys, "--logs", str(log))
    assert code == 1
    assert _stats(report) == [("parquet", 6, 5, 0, 5)]
    assert _outcomes(report) == {
        "calls": 5,
        "newly_rejected": 2,
        "accepted": 2,
        "unparseable": 1,
        "unknown_tool": 0,
    }
    [(source, reason)] = _unparsed(report).items()
    assert source == f"{log}#3"
    assert reason.startswith("row group 1 cannot be read from here: ")


def test_a_value_python_cannot_hold_is_one_unparseable_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A timestamp in the year 10000 (Arrow holds it, Python's datetime cannot): that row is
    unparseable, the rows beside it are read (on main: the rest of the file was)."""
    kind = pa.struct([("q", pa.string()), ("at", pa.timestamp("s"))])
    year_10000 = 253_402_300_800  # seconds from 1970 to 10000-01-01
    arguments = pa.array(
        [
            {"q": "xyz", "at": None},
            {"q": "xyz", "at": year_10000},
            {"q": "x", "at": None},
        ],
        type=kind,
    )
    log = tmp_path / "dates.parquet"
    pq.write_table(pa.table({"tool": ["search"] * 3, "arguments": arguments}), log)
    code, report, _ = _audit_here(tmp_path, capsys, "--logs", str(log))
    assert code == 1
    assert _outcomes(report) == {
        "calls": 3,
        "newly_rejected": 1,
        "accepted": 1,
        "unparseable": 1,
        "unknown_tool": 0,
    }
    [(source, reason)] = _unparsed(report).items()
    assert source == f"{log}#2"
    assert reason.startswith("a value Python cannot hold: ")


def test_a_footer_string_past_the_thrift_limit_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """17 MiB of key-value metadata in the footer: past THRIFT_STRING_LIMIT (16 MiB), the file
    cannot be opened, one line and exit 2; with 1 MiB it is read."""
    table = pa.table({"tool": ["search"], "arguments": ['{"q": "xyz"}']})
    log = tmp_path / "footer.parquet"
    pq.write_table(table.replace_schema_metadata({"big": "x" * (17 << 20)}), log)
    code, report, err = _audit_here(tmp_path, capsys, "--logs", str(log))
    assert (code, report) == (2, None)
    assert err.startswith(f"auditor: error: {log}: cannot be read as parquet: ")
    assert err.count("\n") == 1
    pq.write_table(table.replace_schema_metadata({"big": "x" * (1 << 20)}), log)
    code, report, _ = _audit_here(tmp_path, capsys, "--logs", str(log))
    assert (code, _outcomes(report)["accepted"]) == (0, 1)


def test_arguments_of_a_type_whose_rows_share_data_are_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """String views can all point at one buffer (a dictionary that cannot be measured row
    by row): an arguments column of them is refused with one line; as strings it is read."""
    log = tmp_path / "views.arrow"
    views = pa.table(
        {"tool": ["search"], "arguments": pa.array(['{"q": "xyz"}'], pa.string_view())}
    )
    with ipc.new_file(log, views.schema) as writer:
        writer.write_table(views)
    code, _, err = _audit_here(tmp_path, capsys, "--logs", str(log))
    assert (code, err) == (
        2,
        f"auditor: error: {log}: the arguments column 'arguments' holds string_view, which is "
        "not read (views, run-end encoded arrays and unions are not)\n",
    )
    strings = views.cast(pa.schema([("tool", pa.string()), ("arguments", pa.string())]))
    with ipc.new_file(log, strings.schema) as writer:
        writer.write_table(strings)
    code, report, _ = _audit_here(tmp_path, capsys, "--logs", str(log))
    assert (code, _outcomes(report)["accepted"]) == (0, 1)


# --- The measure of a row ---------------------------------------------------------------------


class _Tagged(pa.ExtensionType):  # type: ignore[name-defined]  # pa: a module found at run time
    def __init__(self) -> None:
        super().__init__(pa.string(), "auditor.test.tagged")

    def __arrow_ext_serialize__(self) -> bytes:
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: Any, serialized: bytes) -> _Tagged:
        return cls()


def _measured(array: Any, nulls: bool = False) -> list[Any]:
    found = row_bytes(array, nulls)
    return [found] * len(array) if isinstance(found, int) else found.to_pylist()


def test_row_bytes_counts_what_each_row_would_hold() -> None:
    # Text: its bytes (UTF-8: "é" is 2); a null is 1, or None when asked for nulls.
    assert _measured(pa.array(["ab", None, "", "é"])) == [2, 1, 0, 2]
    assert _measured(pa.array(["ab", None]), nulls=True) == [2, None]
    assert _measured(pa.array([b"abc"], pa.large_binary())) == [3]
    # A dictionary value counts in every row that refers to it.
    words = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0, None]), pa.array(["abc", "de"]))
    assert _measured(words) == [3, 2, 3, 1]
    numbers = pa.DictionaryArray.from_arrays(pa.array([0, 0]), pa.array([5], pa.int64()))
    assert _measured(numbers) == [8, 8]
    # Fixed-width values: their width; a struct: its fields and one byte each, and one.
    assert _measured(pa.array([1], pa.int64())) == [8]
    assert _measured(pa.array([True])) == [1]
    assert _measured(pa.array([None], pa.null())) == [1]
    struct = pa.array([{"q": "ab", "n": 1}])
    assert _measured(struct) == [3 + 2 + 8]
    # Lists and maps: their items and one byte each, and one; a null list is one.
    assert _measured(pa.array([["a", "bc"], [], None])) == [(1 + 1) + (2 + 1) + 1, 1, 1]
    assert _measured(pa.array([[1, 2, 3]], pa.list_(pa.int32()))) == [3 * (4 + 1) + 1]
    assert _measured(pa.array([["abc"]], pa.large_list(pa.string()))) == [3 + 1 + 1]
    pairs = pa.array([[("k", "vv")]], pa.map_(pa.string(), pa.string()))
    assert _measured(pairs) == [(3 + 1 + 2) + 1 + 1]
    assert _measured(pa.array([[1, 2], [3, 4]], pa.list_(pa.int8(), 2))) == [5, 5]
    assert _measured(pa.array([["a", "bb"]], pa.list_(pa.string(), 2))) == [(1 + 1) + (2 + 1) + 1]
    # A slice counts its own rows only; an extension type, its storage.
    assert _measured(pa.array([["aaaa"], ["b"], ["cc"]]).slice(1, 2)) == [3, 4]
    assert _measured(pa.array([{"q": "aaaa"}, {"q": "b"}]).slice(1, 1)) == [2 + 1]
    tagged = pa.ExtensionArray.from_storage(_Tagged(), pa.array(["abc"]))
    assert _measured(tagged) == [3]
    # Dictionaries inside a struct, as Parquet text is read.
    inner = pa.StructArray.from_arrays([words], names=["w"])
    assert _measured(inner) == [2 + 3, 2 + 2, 2 + 3, 2 + 1]


def test_the_longest_dictionary_value_is_found_where_it_is_nested() -> None:
    from auditor.inputs.parquet import _longest

    words = pa.DictionaryArray.from_arrays(pa.array([0, 1]), pa.array(["abc", "de"]))
    numbers = pa.DictionaryArray.from_arrays(pa.array([0]), pa.array([5]))
    inner = pa.StructArray.from_arrays([words], names=["w"])
    assert _longest(words) == 3
    assert _longest(pa.ListArray.from_arrays(pa.array([0, 2]), inner)) == 3
    assert _longest(pa.FixedSizeListArray.from_arrays(words, 2)) == 3
    assert _longest(numbers) == 0
    assert _longest(pa.array(["no dictionary here"])) == 0


def test_readable_types_exclude_those_whose_rows_share_data() -> None:
    assert readable_type(pa.list_(pa.dictionary(pa.int32(), pa.string())))
    assert readable_type(pa.map_(pa.string(), pa.struct([("n", pa.decimal128(5, 2))])))
    assert readable_type(pa.list_(pa.binary(4), 3))
    assert readable_type(_Tagged())
    assert not readable_type(pa.string_view())
    assert not readable_type(pa.struct([("q", pa.binary_view())]))
    assert not readable_type(pa.run_end_encoded(pa.int32(), pa.string()))
    assert not readable_type(pa.dense_union([pa.field("a", pa.string())]))
    assert not readable_type(pa.list_view(pa.string()))
