"""Reading call logs: every line accounted for, every bad line kept with its reason."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from auditor.inputs.log_files import check_logs
from auditor.inputs.log_formats import LogFormat
from auditor.inputs.reader import LogReader
from auditor.models import Call


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
