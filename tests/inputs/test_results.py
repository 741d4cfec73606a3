"""The results of a log: MCP ``structuredContent`` paired with its ``tools/call`` by id, OTel
``gen_ai.tool.call.result``; error and unstructured results counted apart, every line
accounted for. Every expected value is reasoned from the records written here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.inputs.results import WINDOW, ResultReader


def _log(tmp_path: Path, records: list[Any], name: str = "log.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" if r is not None else "\n" for r in records))
    return str(path)


def _call(rpc_id: Any, tool: str, arguments: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": tool}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": rpc_id, "method": "tools/call", "params": params}


def _reply(rpc_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "result": result}


def test_mcp_results_are_paired_with_their_request_by_id_and_placed_at_their_line(
    tmp_path: Path,
) -> None:
    log = _log(
        tmp_path,
        [
            _call(1, "a", {"q": 1}),
            _call(2, "b"),
            None,  # a blank line: counted, and the lines after keep their numbers
            _reply(2, {"content": [], "structuredContent": {"b": True}}),
            _reply(1, {"content": [], "structuredContent": {"a": [1]}}),
        ],
    )
    reader = ResultReader([log])
    found = [(call.source.rsplit(":", 1)[1], call.tool, call.arguments) for call in reader]
    assert found == [("4", "b", {"b": True}), ("5", "a", {"a": [1]})]
    [stats] = reader.stats()
    assert (stats.format, stats.lines, stats.blank, stats.records) == ("mcp", 5, 1, 4)
    # The two requests hold no result; the two replies hold one each.
    assert (stats.records_without_calls, stats.calls) == (2, 2)
    assert (reader.error_results, reader.unstructured) == (0, 0)


def test_error_results_and_results_without_structured_content_are_counted_not_yielded(
    tmp_path: Path,
) -> None:
    log = _log(
        tmp_path,
        [
            _call(1, "a"),
            _reply(1, {"content": [{"type": "text", "text": "boom"}], "isError": True}),
            _call(2, "a"),
            _reply(2, {"content": [{"type": "text", "text": "ok"}]}),
            _call(3, "a"),
            # isError: false is no error: its structured content is validated.
            _reply(3, {"structuredContent": {"x": 1}, "isError": False}),
            _call(4, "a"),
            # An error result is not validated even when it carries structured content.
            _reply(4, {"structuredContent": {"x": 2}, "isError": True}),
        ],
    )
    reader = ResultReader([log])
    assert [call.arguments for call in reader] == [{"x": 1}]
    assert (reader.error_results, reader.unstructured) == (2, 1)
    [stats] = reader.stats()
    assert stats.calls == 4  # every result read, validated or not


def test_a_reply_answers_only_the_request_with_its_id_of_its_type(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        [
            _call(1, "by_number"),
            _call("1", "by_text"),
            _reply("1", {"structuredContent": {"text": True}}),
            _reply(1, {"structuredContent": {"number": True}}),
            _reply(1, {"structuredContent": {"again": True}}),  # its request was answered
            _reply(9, {"structuredContent": {"none": True}}),  # no request has this id
            {"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "bad"}},
        ],
    )
    assert [(c.tool, c.arguments) for c in ResultReader([log])] == [
        ("by_text", {"text": True}),
        ("by_number", {"number": True}),
    ]


def test_batches_are_read_message_by_message(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        [
            [_call(1, "a"), _call(2, "b")],
            [_reply(1, {"structuredContent": {"n": 1}}), _reply(2, {"isError": True})],
        ],
    )
    reader = ResultReader([log])
    assert [(c.source.rsplit(":", 1)[1], c.tool) for c in reader] == [("2", "a")]
    assert reader.error_results == 1


def test_requests_are_remembered_within_the_window(tmp_path: Path) -> None:
    # The first request is forgotten once WINDOW later ones wait for their replies.
    records: list[Any] = [_call(0, "first")]
    records += [_call(i, "later") for i in range(1, WINDOW + 1)]
    records += [_reply(0, {"structuredContent": {}}), _reply(WINDOW, {"structuredContent": {}})]
    assert [c.tool for c in ResultReader([_log(tmp_path, records)])] == ["later"]


def test_a_log_of_another_format_holds_no_result(tmp_path: Path) -> None:
    log = _log(tmp_path, [{"tool": "a", "arguments": {"x": 1}, "result": {"y": 2}}])
    reader = ResultReader([log])
    assert list(reader) == []
    [stats] = reader.stats()
    assert (stats.format, stats.records, stats.records_without_calls, stats.calls) == (
        "jsonl",
        1,
        1,
        0,
    )


def _span(attributes: dict[str, Any], status: int | None = None) -> dict[str, Any]:
    encoded = [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()]
    span: dict[str, Any] = {
        "traceId": "t1",
        "spanId": "s" + str(len(json.dumps(attributes))),
        "name": "execute_tool",
        "attributes": encoded,
    }
    if status is not None:
        span["status"] = {"code": status}
    return span


def _export(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}


def test_otel_results_are_json_objects_of_tool_spans(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        [
            _export(
                _span({"gen_ai.tool.name": "a", "gen_ai.tool.call.result": '{"ok": true}'}),
                _span({"gen_ai.tool.name": "a", "gen_ai.tool.call.result": "sunny, 21 C"}),
                _span({"gen_ai.tool.name": "a", "gen_ai.tool.call.result": "[1, 2]"}),
                _span({"gen_ai.tool.name": "a", "gen_ai.tool.call.result": '{"e": 1}'}, 2),
                _span({"gen_ai.tool.name": "a"}),  # no result recorded: not a result
            )
        ],
    )
    reader = ResultReader([log])
    assert [(c.tool, c.arguments) for c in reader] == [("a", {"ok": True})]
    # Text and a JSON array are no structured content; an error span is an error result.
    assert (reader.unstructured, reader.error_results) == (2, 1)


def test_a_parquet_log_holds_calls_and_no_result(tmp_path: Path) -> None:
    # The parquet extra is not in the main run: .ci/run runs this test where it is installed.
    pa = pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")
    pq = pytest.importorskip("pyarrow.parquet")

    table = pa.table({"tool_name": ["a"], "arguments": ['{"q": 1}']})
    pq.write_table(table, tmp_path / "calls.parquet")
    reader = ResultReader([str(tmp_path / "calls.parquet")])
    assert list(reader) == []
    [stats] = reader.stats()
    assert (stats.lines, stats.calls) == (0, 0)


def test_a_gzip_log_is_read_as_its_text(tmp_path: Path) -> None:
    import gzip

    records = [_call(1, "a"), _reply(1, {"structuredContent": {"z": 1}})]
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in records).encode()))
    assert [c.arguments for c in ResultReader([str(path)])] == [{"z": 1}]
