"""Every log format against a hand-written fixture; detection, forcing, dedupe, gzip, stdin.

Each ``tests/fixtures/logs/<name>.expected.yaml`` names its log, the format it is in, how
its lines are accounted for, and every call it holds (source after the path, tool, and the
arguments or the reason they did not parse), all reasoned by hand from the fixture.
"""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.cli import main
from auditor.inputs.log_files import LogFormatError
from auditor.inputs.log_formats import FORMATS, LogFormat, describe
from auditor.inputs.reader import LogReader
from auditor.models import Call, LogStats
from tests.conftest import AUDITOR

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
EXPECTED = sorted(FIXTURES.glob("*.expected.yaml"))
STAT_FIELDS = ("lines", "blank", "records", "calls", "records_without_calls", "repeated_calls")


def _expected(path: Path) -> dict[str, Any]:
    expected: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return expected


def _as_expected(call: Call, log: str) -> dict[str, Any]:
    assert call.source.startswith(f"{log}:")
    entry: dict[str, Any] = {"at": call.source[len(log) + 1 :], "tool": call.tool}
    if call.unparsed is None:
        entry["arguments"] = call.arguments
    else:
        entry["unparsed"] = call.unparsed.reason
    return entry


def _matches(got: dict[str, Any], want: dict[str, Any]) -> bool:
    """Equal, except that ``unparsed`` in ``want`` is a part of the reason."""
    if "unparsed" in want:
        return (
            got.keys() == want.keys()
            and want["unparsed"] in got["unparsed"]
            and all(got[k] == want[k] for k in want if k != "unparsed")
        )
    return got == want


def _stats(stats: LogStats) -> dict[str, int]:
    return {field: getattr(stats, field) for field in STAT_FIELDS}


def _check(calls: list[Call], stats: LogStats, log: str, expected: dict[str, Any]) -> None:
    got = [_as_expected(call, log) for call in calls]
    want = expected["calls"]
    assert len(got) == len(want), f"{got} != {want}"
    for one, other in zip(got, want, strict=True):
        assert _matches(one, other), f"{one} != {other}"
    assert stats.format == expected["format"]
    assert _stats(stats) == expected["stats"]


@pytest.mark.parametrize("case", EXPECTED, ids=[p.name.split(".")[0] for p in EXPECTED])
@pytest.mark.parametrize("forced", [False, True], ids=["detected", "forced"])
def test_fixture_gives_the_expected_calls(case: Path, forced: bool) -> None:
    expected = _expected(case)
    log = str(FIXTURES / expected["log"])
    reader = LogReader([log], LogFormat(expected["format"]) if forced else None)
    calls = list(reader)
    [stats] = reader.stats()
    _check(calls, stats, log, expected)


def test_every_format_has_a_fixture() -> None:
    formats = {_expected(case)["format"] for case in EXPECTED}
    assert formats == {fmt.value for fmt in FORMATS} == {fmt.value for fmt in LogFormat}


def test_an_unknown_format_names_the_file_and_the_formats_tried(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    log.write_text('{"event": "session_start"}\n{"event": "session_end"}\n')
    with pytest.raises(LogFormatError) as error:
        list(LogReader([str(log)]))
    message = str(error.value.problem)
    assert message.startswith(f"{log}: not a call log in a known format")
    assert all(fmt.value in message for fmt in LogFormat)
    assert "\n" not in message


def test_detection_looks_past_unparseable_first_records(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text('{"trunc\n{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
                   '"params": {"name": "t", "arguments": {"a": 1}}}\n')  # fmt: skip
    reader = LogReader([str(log)])
    calls = list(reader)
    assert [(c.source, c.tool, c.arguments) for c in calls] == [
        (f"{log}:1", None, None),
        (f"{log}:2", "t", {"a": 1}),
    ]
    assert reader.stats()[0].format == "mcp"


def test_an_empty_log_is_no_error(tmp_path: Path) -> None:
    log = tmp_path / "empty.jsonl"
    log.write_text("\n\n")
    reader = LogReader([str(log)])
    assert list(reader) == []
    assert (reader.stats()[0].lines, reader.stats()[0].blank) == (2, 2)


def test_a_forced_format_reads_other_records_as_holding_no_call() -> None:
    reader = LogReader([str(FIXTURES / "mcp.jsonl")], LogFormat.OPENAI)
    assert list(reader) == []
    assert reader.stats()[0].records_without_calls == 9


def test_repeats_are_recognized_across_files(tmp_path: Path) -> None:
    """A conversation's history can continue in the next (rotated) log file."""
    first = tmp_path / "a.jsonl"
    second = tmp_path / "b.jsonl"
    call = {"id": "call_X", "type": "function", "function": {"name": "t", "arguments": "{}"}}
    first.write_text(json.dumps({"choices": [{"message": {"tool_calls": [call]}}]}) + "\n")
    second.write_text(json.dumps({"messages": [{"role": "assistant", "tool_calls": [call]}]}))
    reader = LogReader([str(first), str(second)])
    assert [c.source for c in reader] == [f"{first}:1"]
    assert [(s.calls, s.repeated_calls) for s in reader.stats()] == [(1, 0), (0, 1)]


def test_calls_without_an_id_are_never_merged(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    record = {"choices": [{"message": {"function_call": {"name": "t", "arguments": "{}"}}}]}
    log.write_text((json.dumps(record) + "\n") * 2)
    assert [c.source for c in LogReader([str(log)])] == [f"{log}:1", f"{log}:2"]


def test_the_reader_stays_lazy_over_a_big_history(tmp_path: Path) -> None:
    """The first call is handed out before the rest of the file is read."""
    log = tmp_path / "calls.jsonl"
    turn = {"choices": [{"message": {"tool_calls": [{"id": "c1", "function": {
        "name": "t", "arguments": "{}"}}]}}]}  # fmt: skip
    log.write_text(json.dumps(turn) + "\n" + "{broken\n" * 1000)
    calls = iter(LogReader([str(log)]))
    assert next(calls).source == f"{log}:1"


@pytest.mark.parametrize("name", ["calls.jsonl.gz", "calls.log"])
def test_gzip_is_recognized_by_its_bytes(tmp_path: Path, name: str) -> None:
    log = tmp_path / name
    with gzip.open(log, "wb") as stream:
        stream.write((FIXTURES / "anthropic.jsonl").read_bytes())
    reader = LogReader([str(log)])
    expected = _expected(FIXTURES / "anthropic.expected.yaml")
    calls = list(reader)
    _check(calls, reader.stats()[0], str(log), expected)


def _span(attributes: dict[str, Any]) -> str:
    """One OTLP JSON record holding one span with these attributes (key -> AnyValue)."""
    pairs = [{"key": key, "value": value} for key, value in attributes.items()]
    span = {"name": "execute_tool t", "attributes": pairs}
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


def test_malformed_otel_values_are_read_as_what_they_hold(tmp_path: Path) -> None:
    """An ``AnyValue`` of the wrong shape is a value the schema judges, never a crash."""
    log = tmp_path / "spans.jsonl"
    tool = {"stringValue": "t"}
    arguments = "gen_ai.tool.call.arguments"
    records = [
        _span({"gen_ai.tool.name": tool, arguments: {"arrayValue": {"values": 5}}}),
        _span({"gen_ai.tool.name": tool, arguments: {"kvlistValue": {"values": [
            {"key": 7, "value": {"intValue": "12"}},
            {"key": "f", "value": {"intValue": 1.5}},
        ]}}}),
    ]  # fmt: skip
    log.write_text("\n".join(records) + "\n")
    reader = LogReader([str(log)])
    calls = list(reader)
    # values not a list: an empty array; a non-string key is named by its text; an
    # intValue that is no integer text stays what it was
    assert [call.arguments for call in calls] == [[], {"7": 12, "f": 1.5}]
    assert reader.stats()[0].calls == 2


def test_describe_positions() -> None:
    assert describe(("choices", 0, "message", "tool_calls", 1)) == (
        "choices[0].message.tool_calls[1]"
    )
    assert describe((2,)) == "[2]"
    assert describe(()) == ""


CATALOG = '{"get_weather": {"type": "object", "properties": {"city": {"min_length": 2}}}}'


def _audit(args: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*AUDITOR, "audit", *args, "--format", "json", "--no-report-files"],
        input=stdin, capture_output=True, check=False,
    )  # fmt: skip


def test_logs_from_stdin_are_named_stdin(tmp_path: Path) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(CATALOG)
    data = gzip.compress((FIXTURES / "openai.jsonl").read_bytes())  # gzip on stdin too
    completed = _audit(["--schemas", str(catalog), "--logs", "-"], data)
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    [entry] = report["inputs"]["logs"]
    assert (entry["path"], entry["format"], entry["calls"]) == ("<stdin>", "openai", 8)
    sources = [call["source"] for call in report["calls"]]
    assert "<stdin>:4" in sources and "<stdin>:6#messages[1].tool_calls[1]" in sources


def test_catalog_from_stdin(tmp_path: Path) -> None:
    completed = _audit(
        ["--schemas", "-", "--logs", str(FIXTURES / "openai.jsonl")], CATALOG.encode()
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["tools"][0]["source"] == "<stdin>:1:2"
    assert report["totals"]["accepted"] == 2  # get_weather: Paris, Oslo


def test_stdin_cannot_feed_both(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["audit", "--schemas", "-", "--logs", "-"])
    assert exit_info.value.code == 2
    assert "not both" in capsys.readouterr().err


def test_mixed_formats_in_one_audit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog = tmp_path / "tools.yaml"
    catalog.write_text(
        "get_weather: {type: object, properties: {city: {type: string, min_length: 5}}}\n"
        "get_time: {type: object, properties: {tz: {type: string}}}\n"
        "search: {type: object, properties: {query: {type: string}}, required: [query]}\n"
    )
    logs = [str(FIXTURES / name) for name in ("openai.jsonl", "anthropic.jsonl", "otel.json")]
    with pytest.raises(SystemExit) as exit_info:
        main(["audit", "--schemas", str(catalog), "--logs", *logs, "--format", "json",
              "--no-report-files"])  # fmt: skip
    assert exit_info.value.code == 1
    report = json.loads(capsys.readouterr().out)
    assert [(e["format"], e["calls"]) for e in report["inputs"]["logs"]] == [
        ("openai", 8),
        ("anthropic", 5),
        ("otel", 2),
    ]
    # min_length 5 wakes up: Oslo (openai line 5) and Lima (anthropic line 1), Kyiv (otel)
    newly = sorted(c["source"] for c in report["calls"] if c["outcome"] == "newly_rejected")
    assert newly == sorted([f"{logs[0]}:5", f"{logs[1]}:1", f"{logs[2]}:23#"
                            "resourceSpans[0].scopeSpans[0].spans[1]"])  # fmt: skip
    assert report["totals"]["calls"] == 15
    assert report["totals"]["unparseable"] == 2 + 2 + 1


def test_unknown_log_format_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(CATALOG)
    log = tmp_path / "events.jsonl"
    log.write_text('{"event": "start"}\n')
    with pytest.raises(SystemExit) as exit_info:
        main(["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files"])
    out, err = capsys.readouterr()
    assert exit_info.value.code == 2
    assert out == ""
    assert err.count("\n") == 1 and str(log) in err and "tried: otel, mcp" in err


def test_log_format_option_forces_the_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(CATALOG)
    log = tmp_path / "events.jsonl"
    log.write_text('{"event": "start"}\n')
    with pytest.raises(SystemExit) as exit_info:
        main(["audit", "--schemas", str(catalog), "--logs", str(log), "--log-format", "jsonl",
              "--format", "json", "--no-report-files"])  # fmt: skip
    assert exit_info.value.code == 0
    assert json.loads(capsys.readouterr().out)["totals"]["unparseable"] == 1


def test_the_format_options_offer_every_format_and_auto() -> None:
    from auditor.inputs.catalogs import CatalogFormat
    from auditor.request import CatalogFormatChoice, LogFormatChoice

    assert {c.to_format() for c in LogFormatChoice} == {None, *LogFormat}
    assert {c.to_format() for c in CatalogFormatChoice} == {None, *CatalogFormat}
