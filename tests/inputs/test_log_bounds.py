"""Bounds of the log reader (issue 11, part 8): the format-detection window, blank lines read
in bulk, and the decompressed size of a gzip log."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from auditor.inputs.lines import Blank, bounded_lines
from auditor.inputs.log_files import LogFormatError
from auditor.inputs.log_formats import LogFormat
from auditor.inputs.parts import split
from auditor.inputs.reader import LogReader
from auditor.inputs.records import DETECTION_WINDOW
from tests.conftest import cpu_seconds, seconds

OK = b'{"tool": "a", "arguments": {"q": 1}}\n'
BROKEN = b'{"tool": "a", "arguments": {"q": \n'


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_blank_runs_keep_every_line_number_and_count(tmp_path: Path, compressed: bool) -> None:
    body = OK + b"\n" * 50_000 + b"   \n\t\r\n" + OK + b"\n \n" + BROKEN + b"  "
    log = tmp_path / "calls.jsonl"
    if compressed:
        with gzip.open(log, "wb") as stream:
            stream.write(body)
    else:
        log.write_bytes(body)
    reader = LogReader([str(log)])
    calls = list(reader)
    # 1: a call; 2..50,001 blank; 50,002 and 50,003 blank (spaces, a tab, CR); 50,004 a call;
    # 50,005 and 50,006 blank; 50,007 broken; 50,008 two spaces without a newline: blank.
    assert [(c.source.rsplit(":", 1)[1], c.unparsed is None) for c in calls] == [
        ("1", True),
        ("50004", True),
        ("50007", False),
    ]
    [stats] = reader.stats()
    assert (stats.lines, stats.blank, stats.records, stats.calls) == (50_008, 50_005, 3, 3)


def test_blank_lines_come_in_one_run(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_bytes(OK + b"\n" * 3 * 1024 * 1024 + OK)
    with log.open("rb") as stream:
        lines = list(bounded_lines(stream, 1024))
    # the first blank line is read as a line; the others follow in one run, buffer by buffer
    assert lines == [OK, b"\n", Blank(3 * 1024 * 1024 - 1, 3 * 1024 * 1024 - 1), OK]


def test_blank_lines_inside_a_document_keep_its_lines(tmp_path: Path) -> None:
    log = tmp_path / "call.json"
    log.write_bytes(b"{\n" + b"\n" * 2999 + b'  "tool": "a",\n  "arguments": {"q": 1}\n}\n')
    reader = LogReader([str(log)])
    [call] = reader
    assert (call.source, call.arguments) == (f"{log}:1", {"q": 1})
    [stats] = reader.stats()
    assert (stats.lines, stats.blank, stats.records) == (3003, 2999, 1)


def test_broken_records_before_the_first_call_are_counted_not_fatal(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_bytes(BROKEN * (DETECTION_WINDOW - 1) + OK)
    calls = list(LogReader([str(log)]))
    assert len(calls) == DETECTION_WINDOW
    assert calls[0].unparsed is not None and calls[0].source == f"{log}:1"
    assert calls[0].unparsed.raw == BROKEN.decode().rstrip("\n")
    assert calls[-1].unparsed is None and calls[-1].source == f"{log}:{DETECTION_WINDOW}"


def test_the_detection_window_is_bounded(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_bytes(BROKEN * DETECTION_WINDOW + OK)
    with pytest.raises(LogFormatError, match="in its first 10,000 records"):
        list(LogReader([str(log)]))


def test_a_gzip_log_is_read_up_to_the_decompressed_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("auditor.inputs.log_files.MAX_DECOMPRESSED_BYTES", 1000)
    log = tmp_path / "calls.jsonl.gz"
    with gzip.open(log, "wb") as stream:
        stream.write(OK * 40)  # 37 bytes a line: 27 lines fit in 1,000 bytes, the 28th does not
    reader = LogReader([str(log)])
    calls = list(reader)
    assert len(calls) == 28
    assert all(c.unparsed is None for c in calls[:27])
    last = calls[27]
    assert last.source == f"{log}:28" and last.unparsed is not None
    assert last.unparsed.reason == (
        "the rest of the file cannot be read: decompressed past 1,000 bytes, the bound on one "
        "gzip log (decompress it outside and pipe it in to read it all)"
    )


def test_blank_runs_in_parts_read_by_workers_are_skipped_in_bulk(tmp_path: Path) -> None:
    # --jobs cuts a plain log into parts, each read through a range of the file: a run of blank
    # lines there is skipped in bulk too (30 MiB of newlines: about 20 s line by line), and it
    # stops at the part's end, so line numbers and counts are those of one pass.
    log = tmp_path / "calls.jsonl"
    blank = b"\n" * (15 * 1024 * 1024)
    log.write_bytes(OK + blank + b" \n" + OK + blank + BROKEN)
    parts = split(str(log), 3, LogFormat.JSONL)
    assert parts is not None and len(parts) == 3
    reader = LogReader([str(log)])
    started = cpu_seconds()
    calls = [call for part in parts for call in reader.read_part(part)]
    assert cpu_seconds() - started < seconds(5)
    second, third = 2 + 15 * 1024 * 1024 + 1, 2 * (2 + 15 * 1024 * 1024)
    assert [(c.source.rsplit(":", 1)[1], c.unparsed is None) for c in calls] == [
        ("1", True),
        (str(second), True),
        (str(third), False),
    ]
    lines = log.read_bytes().count(b"\n")
    assert (sum(s.lines for s in reader.stats()), lines) == (third, third)
