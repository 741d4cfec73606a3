"""Reading call logs: every line accounted for, every bad line kept with its reason."""

from __future__ import annotations

import gzip
import io
from dataclasses import asdict, fields
from pathlib import Path

import pytest

from auditor.inputs.lines import Blank, bounded_lines
from auditor.inputs.log_files import LogFormatError, check_logs
from auditor.inputs.log_formats import LogFormat
from auditor.inputs.parts import split
from auditor.inputs.reader import LogReader
from auditor.inputs.records import Framed, Record, loads, records
from auditor.models import LOG_COUNTS, Call, LogStats


def _one_call(tmp_path: Path, line: bytes) -> Call:
    """The one call a generic JSON Lines log of one line gives (source ``log:1``)."""
    log = tmp_path / "log"
    log.write_bytes(line + b"\n")
    [call] = LogReader([str(log)], LogFormat.JSONL)
    assert call.source == f"{log}:1"
    return call


@pytest.mark.parametrize(
    ("line", "tool", "arguments"),
    [
        ('{"tool": "t", "arguments": {"a": 1}}', "t", {"a": 1}),
        ('{"tool": "t", "arguments": "{\\"a\\": 1}"}', "t", {"a": 1}),
        ('{"name": "t", "args": [1, 2]}', "t", [1, 2]),
        ('{"tool": "t", "input": 42, "id": "x"}', "t", 42),
        ('{"tool": "t", "arguments": "null"}', "t", None),
        ('{"tool": "t", "arguments": "\\"text\\""}', "t", "text"),
    ],
)
def test_parsed_calls(tmp_path: Path, line: str, tool: str, arguments: object) -> None:
    call = _one_call(tmp_path, line.encode())
    assert call.unparsed is None
    assert (call.tool, call.arguments) == (tool, arguments)


@pytest.mark.parametrize(
    ("line", "tool", "reason"),
    [
        ('{"tool": "t", "arguments": {"a": 1}', None, "not JSON"),
        ("[1, 2]", None, "not a JSON object"),
        ('{"arguments": {}}', None, "names no tool"),
        ('{"tool": 3, "arguments": {}}', None, "names no tool"),
        ('{"tool": "t"}', "t", "has no 'arguments'"),
        ('{"tool": "t", "arguments": "{\\"a\\": "}', "t", "arguments are not valid JSON"),
        ('{"tool": "t", "arguments": "NaN"}', "t", "NaN is not JSON"),
        ('{"tool": "t", "arguments": {"x": Infinity}}', None, "Infinity is not JSON"),
    ],
)
def test_unparsed_calls_keep_the_reason(
    tmp_path: Path, line: str, tool: str | None, reason: str
) -> None:
    call = _one_call(tmp_path, line.encode())
    assert call.unparsed is not None
    assert call.tool == tool
    assert reason in call.unparsed.reason
    assert call.unparsed.raw


def test_invalid_utf8_is_unparsed(tmp_path: Path) -> None:
    call = _one_call(tmp_path, b'{"tool": "t", "arguments": "\xff"}')
    assert call.unparsed is not None and "not UTF-8" in call.unparsed.reason


def test_every_line_is_accounted_for(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_bytes(
        b'\xef\xbb\xbf{"tool": "a", "arguments": {}}\r\n'
        b"\n"
        b"   \n"
        b"not json\n"
        b'{"tool": "b", "arguments": "{}"}'
    )
    reader = LogReader([str(log)])
    calls = list(reader)
    assert [(c.source, c.tool, c.unparsed is None) for c in calls] == [
        (f"{log}:1", "a", True),
        (f"{log}:4", None, False),
        (f"{log}:5", "b", True),
    ]
    [stats] = reader.stats()
    assert (stats.lines, stats.blank, stats.calls) == (5, 2, 3)


def test_reader_is_lazy(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text('{"tool": "a", "arguments": {}}\n' * 3)
    iterator = iter(LogReader([str(log)]))
    assert next(iterator).source == f"{log}:1"


def test_gzip_logs_are_read(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl.gz"
    with gzip.open(log, "wb") as stream:
        stream.write(b'{"tool": "a", "arguments": {"q": 1}}\n')
    assert [c.arguments for c in LogReader([str(log)])] == [{"q": 1}]


def test_directories_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "b.jsonl").write_text("")
    (tmp_path / "a.jsonl").write_text("")
    (tmp_path / "readme.txt").write_text("")
    files, problems = check_logs([str(tmp_path), str(tmp_path / "missing.jsonl")])
    assert files == [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]
    assert [str(p) for p in problems] == [f"{tmp_path / 'missing.jsonl'}: no such file"]


def test_a_lone_bracket_after_the_first_record_is_a_broken_record(tmp_path: Path) -> None:
    """Only a file that starts with a lone bracket is one JSON document; later such a line is
    a truncated record, and the lines after it are still read as calls."""
    log = tmp_path / "calls.jsonl"
    log.write_text(
        '{"tool": "a", "arguments": {}}\n{\n{"tool": "b", "arguments": {}}\n', encoding="utf-8"
    )
    reader = LogReader([str(log)])
    calls = list(reader)
    assert [(c.source.rsplit(":", 1)[1], c.tool, c.unparsed is None) for c in calls] == [
        ("1", "a", True),
        ("2", None, False),
        ("3", "b", True),
    ]
    assert reader.stats()[0].calls == 3


def _framed(data: bytes, limit: int = 1000) -> list[Framed]:
    return list(records(bounded_lines(io.BufferedReader(io.BytesIO(data)), limit), limit))


def _accounting(framed: list[Framed]) -> tuple[int, int, int]:
    """(lines, blank lines, bytes) as the reader adds them up from what framing yields."""
    lines = sum(i.count if isinstance(i, Blank) else i.lines for i in framed)
    blank = sum(i.count if isinstance(i, Blank) else i.blank for i in framed)
    return lines, blank, sum(i.size for i in framed)


def test_framing_accounts_for_every_line_in_what_it_yields() -> None:
    # A byte-order mark, a record, two blank lines, a broken record, a line too long to
    # parse, and a last record without its newline: 6 lines, 2 of them blank.
    data = b'\xef\xbb\xbf{"a": 1}\n\n  \n{bad\n' + b"x" * 50 + b'\n{"b": 2}'
    framed = _framed(data, limit=20)
    # Every byte but the newline of the over-long line, which ``Overlong`` does not measure.
    assert _accounting(framed) == (6, 2, len(data) - 1)
    found = [i for i in framed if isinstance(i, Record)]
    assert [(r.line, r.value, r.problem is None) for r in found] == [
        (1, {"a": 1}, True),
        (4, None, False),
        (5, None, False),
        (6, {"b": 2}, True),
    ]
    assert [r.size for r in found] == [3 + 9, 5, 50, 8]
    assert not any(r.document for r in found)


def test_a_document_is_one_record_holding_its_lines_and_bytes() -> None:
    data = b'\n{\n  "a": [\n\n    1\n  ]\n}\n'
    framed = _framed(data)
    assert _accounting(framed) == (7, 2, len(data))
    [document] = [i for i in framed if isinstance(i, Record)]
    assert (document.line, document.document, document.value) == (2, True, {"a": [1]})
    assert (document.lines, document.blank, document.size) == (6, 1, len(data) - 1)


def test_a_document_too_long_to_parse_still_counts_all_its_lines() -> None:
    data = b'{\n  "a": "' + b"y" * 100 + b'"\n}\n'
    [document] = _framed(data, limit=50)
    assert isinstance(document, Record) and document.document
    assert document.problem is not None and "longer than --max-record-bytes" in document.problem
    # The over-long line's newline aside (``Overlong`` does not measure it).
    assert (document.lines, document.blank, document.size) == (3, 0, len(data) - 1)


def test_stats_of_parts_merge_into_the_stats_of_one_pass() -> None:
    first = LogStats("a.jsonl", "jsonl", 10, 2, 8, 1, 3, 9)
    second = LogStats("a.jsonl", "jsonl", 5, 0, 5, 2, 0, 4)
    merged = first.merge(second)
    assert merged == LogStats("a.jsonl", "jsonl", 15, 2, 13, 3, 3, 13)
    assert second.merge(first) == merged
    assert merged.merge(LogStats("a.jsonl")) == merged  # an empty part changes nothing


def test_every_count_of_the_stats_is_merged_and_reported() -> None:
    names = [f.name for f in fields(LogStats)]
    assert tuple(n for n in names if n not in ("path", "format")) == LOG_COUNTS
    ones = LogStats("p", "f", **dict.fromkeys(LOG_COUNTS, 1))
    assert asdict(ones.merge(ones)) == {"path": "p", "format": "f", **dict.fromkeys(LOG_COUNTS, 2)}


def test_a_file_read_in_parts_has_the_stats_of_one_pass(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    line = b'{"tool": "t", "arguments": {"q": 1}}\n'
    log.write_bytes((line + b"\n" + b"{bad\n") * 40)
    whole = LogReader([str(log)])
    calls = list(whole)
    parts = split(str(log), 4, None)
    assert parts is not None and len(parts) == 4
    apart = LogReader([str(log)])
    assert [c.source for p in parts for c in apart.read_part(p)] == [c.source for c in calls]
    assert apart.stats() == whole.stats()
    assert whole.stats()[0] == LogStats(str(log), "jsonl", 120, 40, 80, 0, 0, 80)


def test_a_directory_without_logs_is_a_problem_in_the_order_given(tmp_path: Path) -> None:
    empty, full = tmp_path / "empty", tmp_path / "full"
    empty.mkdir()
    full.mkdir()
    (empty / "notes.txt").write_text("")
    (full / "a.log").write_text("")
    files, problems = check_logs([str(tmp_path / "gone.jsonl"), str(empty), str(full)])
    assert files == [str(full / "a.log")]
    assert [str(p) for p in problems] == [
        f"{tmp_path / 'gone.jsonl'}: no such file",
        f"{empty}: no log files (.jsonl, .ndjson, .json, .log, .gz, .parquet, .arrow, .feather)",
    ]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # json's message expects a position after "at": one "at", never two.
        ('{"q": "open', "Unterminated string starting at column 7"),
        ('{"q" 1}', "Expecting ':' delimiter at column 6"),
    ],
)
def test_a_json_error_names_its_column_once(text: str, reason: str) -> None:
    assert loads(text) == (None, reason)
    assert loads('{"q": "open"}') == ({"q": "open"}, None)


@pytest.mark.parametrize("first", [b"PAR1", b"ARROW1", b"ARROW1\x00\x00", b"\xff\xff\xff\xff"])
def test_a_text_log_starting_like_a_columnar_file_stays_text(tmp_path: Path, first: bytes) -> None:
    # Given as JSON Lines, a log is text: its first line is broken, the next one a call.
    path = tmp_path / "calls.jsonl"
    path.write_bytes(first + b'\n{"tool": "search", "arguments": {"q": "x"}}\n')
    calls = list(LogReader([str(path)], LogFormat.JSONL))
    assert [(c.tool, c.unparsed is not None) for c in calls] == [(None, True), ("search", False)]


def test_a_gzip_log_cut_before_its_header_ends_is_accounted_for(tmp_path: Path) -> None:
    # Two bytes of gzip magic and nothing else: looking at the first bytes (Parquet? Arrow?)
    # already fails. Without a format that is a file in no known format (the documented
    # refusal); with one, its one line is an unparseable call saying why.
    log = tmp_path / "calls.jsonl.gz"
    log.write_bytes(b"\x1f\x8b")
    with pytest.raises(LogFormatError, match="not a call log in a known format"):
        list(LogReader([str(log)]))
    reader = LogReader([str(log)], fmt=LogFormat.JSONL)
    [call] = list(reader)
    assert call.unparsed is not None
    assert call.unparsed.reason.startswith("the rest of the file cannot be read: ")
    assert reader.stats()[0].calls == 1 and reader.stats()[0].lines == 1
