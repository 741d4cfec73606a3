"""OpenTelemetry exports: every place a call is recorded is read, and each call counts once.

The fixtures in ``tests/fixtures/otel/`` are written by hand after the documents that define
their shapes:

- ``genai_spans.json``: OTel GenAI semantic conventions (``gen_ai.output.messages`` /
  ``gen_ai.input.messages`` JSON schema: parts of type ``tool_call`` with ``id``, ``name``,
  ``arguments``; ``execute_tool`` spans with ``gen_ai.tool.call.id`` and the opt-in
  ``gen_ai.tool.call.arguments``; ``gen_ai.tool.definitions``), in the OTLP/JSON encoding
  (``resourceSpans``, ``AnyValue`` with ``stringValue``/``arrayValue``/``kvlistValue``).
- ``genai_logs.jsonl``: OTLP ``resourceLogs``, one export per line as the collector's file
  exporter writes them: the ``gen_ai.client.inference.operation.details`` event (the messages
  as attributes, or in a kvlist body), ``gen_ai.choice`` and ``gen_ai.assistant.message``
  events (GenAI conventions up to 1.36: ``event.name`` attribute, body ``message.tool_calls``).
- ``openinference.jsonl``: OpenInference tool calling
  (``llm.output_messages.<i>.message.tool_calls.<j>.tool_call.{id,function.name,
  function.arguments}``, ``llm.tools.<i>.tool.json_schema``, ``TOOL`` spans with
  ``tool.name`` and ``input.value``).
- ``mcp_spans.json``: OTel MCP semantic conventions (``mcp.method.name`` = ``tools/call``,
  CLIENT and SERVER spans of one request, ``jsonrpc.request.id``, ``mcp.session.id``, the
  server span parented to the client span through ``params._meta``).

Every expected value below is reasoned from the fixture, never read off a run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.inputs.otel_calls import canonical
from auditor.inputs.parts import split
from auditor.inputs.reader import LogReader
from auditor.models import Evidence, UnparsedKind
from tests.conftest import run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "otel"
SPAN = "resourceSpans[0].scopeSpans[0].spans"
GENAI = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"


def _read(name: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    path = FIXTURES / name
    reader = LogReader([str(path)])
    calls = []
    for call in reader:
        entry: dict[str, Any] = {"at": call.source[len(str(path)) + 1 :], "tool": call.tool}
        if call.unparsed is None:
            entry["arguments"] = call.arguments
        else:
            entry["kind"] = call.unparsed.kind
        entry["evidence"] = call.evidence
        entry["caller"] = call.caller
        calls.append(entry)
    [stats] = reader.stats()
    assert stats.format == "otel"
    counts = ("lines", "records", "records_without_calls", "repeated_calls", "calls")
    return calls, {name: getattr(stats, name) for name in counts}


def test_genai_spans_count_each_call_once_and_the_model_output_wins() -> None:
    calls, stats = _read("genai_spans.json")
    assert calls == [
        # span 0's output messages (JSON text): call_1 and call_2, the model's own words.
        # call_1's execute_tool span (span 1) ran: its evidence goes to the winner.
        {"at": f"1#{SPAN}[0].attributes[2].value[0].parts[1]", "tool": "get_weather",
         "arguments": {"city": "Oslo"}, "evidence": Evidence.RAN, "caller": "travel-agent"},
        # call_2's execute_tool span (span 2) failed (status 2) and recorded no arguments:
        # it is a repeat, and lends its evidence.
        {"at": f"1#{SPAN}[0].attributes[2].value[0].parts[2]", "tool": "search",
         "arguments": {"query": "fjords"}, "evidence": Evidence.ANSWERED,
         "caller": "travel-agent"},
        # span 3: structured output messages (arrayValue of kvlists); its input history
        # repeats call_1 and call_2.
        {"at": f"1#{SPAN}[3].attributes[1].value[0].parts[0]", "tool": "get_weather",
         "arguments": {"city": "Lima"}, "evidence": None, "caller": "travel-agent"},
        # another trace reuses the id call_1: another call; gen_ai.agent.name names it.
        {"at": f"74#{SPAN}[4]", "tool": "get_weather", "arguments": {"city": "Rome"},
         "evidence": Evidence.RAN, "caller": "planner"},
        # a named tool without arguments: content capture was off (not replayed, so no
        # evidence is kept)
        {"at": f"87#{SPAN}[5]", "tool": "search", "kind": UnparsedKind.CONTENT_NOT_CAPTURED,
         "evidence": None, "caller": "travel-agent"},
    ]  # fmt: skip
    # repeats: span 1 (call_1), span 2 (call_2), span 3's history (call_1, call_2)
    assert stats == {"lines": 102, "records": 1, "records_without_calls": 0,
                     "repeated_calls": 4, "calls": 5}  # fmt: skip


def test_content_capture_off_names_the_switch() -> None:
    reader = LogReader([str(FIXTURES / "genai_spans.json")])
    [off] = [call for call in reader if call.unparsed is not None]
    assert off.unparsed is not None
    assert off.unparsed.reason.startswith("content capture is off")
    assert GENAI in off.unparsed.reason


def test_otlp_logs_events_and_bodies() -> None:
    calls, stats = _read("genai_logs.jsonl")
    assert calls == [
        # line 1: the inference-details event's attributes
        {"at": "1", "tool": "get_weather", "arguments": {"city": "Bern"}, "evidence": None,
         "caller": "concierge"},
        # line 2: a gen_ai.choice event named by its attribute, the body's message.tool_calls
        {"at": "2", "tool": "search", "arguments": {"query": "alps"}, "evidence": None,
         "caller": "concierge"},
        # line 3 (gen_ai.assistant.message: history of call_2) repeats line 2
        # line 4: the inference-details event with the messages in a kvlist body
        {"at": "4", "tool": "get_time", "arguments": {"tz": "CET"}, "evidence": None,
         "caller": "concierge"},
        # line 5: a plain log line; line 6: a tool record without arguments
        {"at": "6", "tool": "search", "kind": UnparsedKind.CONTENT_NOT_CAPTURED,
         "evidence": None, "caller": "concierge"},
    ]  # fmt: skip
    assert stats == {"lines": 6, "records": 6, "records_without_calls": 1,
                     "repeated_calls": 1, "calls": 4}  # fmt: skip


def test_openinference_spans() -> None:
    calls, stats = _read("openinference.jsonl")
    assert calls == [
        # line 1: the LLM span's two calls, placed at their function.name attributes; the
        # TOOL span of the same line has no tool_call.id but the same trace, tool and
        # arguments as call_10 (spacing aside): a repeat, whose evidence (ran) it lends.
        {"at": f"1#{SPAN}[0].attributes[6]", "tool": "get_weather",
         "arguments": {"city": "Paris"}, "evidence": None, "caller": "rag-app"},
        {"at": f"1#{SPAN}[0].attributes[9]", "tool": "search", "arguments": {"query": 5},
         "evidence": Evidence.RAN, "caller": "rag-app"},
        # line 2: the TOOL span of call_9 repeats line 1's call (the reader's dedupe)
        # line 3: a TOOL span whose input was hidden
        {"at": "3", "tool": "search", "kind": UnparsedKind.CONTENT_NOT_CAPTURED,
         "evidence": None, "caller": "rag-app"},
        # line 4: a CHAIN span holds no call
    ]  # fmt: skip
    assert stats == {"lines": 4, "records": 4, "records_without_calls": 1,
                     "repeated_calls": 2, "calls": 3}  # fmt: skip
    reader = LogReader([str(FIXTURES / "openinference.jsonl")])
    hidden = [call.unparsed for call in reader if call.unparsed is not None]
    assert hidden and "OPENINFERENCE_HIDE_INPUTS=false" in hidden[0].reason


def test_mcp_client_and_server_spans_of_one_call_count_once() -> None:
    calls, stats = _read("mcp_spans.json")
    assert calls == [
        # trace A: the model's call_5, its execute_tool span (no arguments), the MCP client
        # span under it and the server span under the client: one call. The client and
        # server hash mcp.session.id differently (6f1e, d41d8): parents link them.
        {"at": f"1#{SPAN}[0].attributes[1].value[0].parts[0]", "tool": "get_weather",
         "arguments": {"city": "Oslo"}, "evidence": Evidence.RAN, "caller": "agent"},
        # trace B: client (request id 2 as intValue) and server (id "2") of one refused call
        {"at": f"120#{SPAN}[3]", "tool": "search", "arguments": {"query": "x"},
         "evidence": Evidence.REFUSED, "caller": "agent"},
        # trace C reuses request id 2 in another session: another call
        {"at": "281#resourceSpans[1].scopeSpans[0].spans[2]", "tool": "search",
         "arguments": {"query": "y"}, "evidence": Evidence.RAN, "caller": "weather-mcp"},
    ]  # fmt: skip
    # repeats: execute_tool, client and server spans of call_5; the server span of trace B
    assert stats == {"lines": 324, "records": 1, "records_without_calls": 0,
                     "repeated_calls": 4, "calls": 3}  # fmt: skip


CATALOG = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}},
    "search": {"type": "object", "properties": {"query": {"type": "string"}}},
}


def test_reports_say_content_capture_is_off_and_how_to_turn_it_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(CATALOG))
    log = FIXTURES / "genai_spans.json"
    base = ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files"]
    code, out, _ = run_cli([*base, "--format", "json", "--output", "-"], capsys)
    assert code == 0
    report = json.loads(out)
    kinds = [call["unparsed"]["kind"] for call in report["calls"] if "unparsed" in call]
    assert kinds == ["content_not_captured"]  # span 5 of genai_spans.json
    assert report["totals"]["unparseable"] == 1 and report["totals"]["calls"] == 5
    assert report["inputs"]["logs"][0]["repeated_calls"] == 4
    code, out, _ = run_cli([*base, "--format", "markdown", "--output", "-"], capsys)
    assert code == 0
    assert "content capture is off" in out
    assert "> 💡 1 call could not be replayed" in out
    assert f"instrumentations: {GENAI}; OpenInference: OPENINFERENCE_HIDE_INPUTS=false" in out
    code, out, _ = run_cli([*base, "--format", "html", "--output", "-"], capsys)
    assert code == 0
    assert '<p class="hint hint-review">1 call could not be replayed' in out and GENAI in out
    # a log without such calls has no hint
    other = tmp_path / "plain.jsonl"
    other.write_text('{"tool": "search", "arguments": "{bad"}\n')
    plain = ["audit", "--schemas", str(catalog), "--logs", str(other), "--no-report-files"]
    code, out, _ = run_cli([*plain, "--format", "markdown", "--output", "-"], capsys)
    assert code == 0 and "Calls not replayed" in out and "content capture" not in out
    code, out, _ = run_cli([*plain, "--format", "html", "--output", "-"], capsys)
    assert code == 0 and "Calls not replayed" in out and "content capture" not in out


def test_hostile_names_in_spans_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool name from a span is logged data: escaped like any other in every report."""
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(CATALOG))
    name = "<img src=x onerror=alert(1)>|`"
    span = {"traceId": "f" * 32, "name": "execute_tool", "attributes": [
        {"key": "gen_ai.tool.name", "value": {"stringValue": name}},
    ]}  # fmt: skip
    log = tmp_path / "spans.jsonl"
    log.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + "\n")
    base = ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files"]
    code, out, _ = run_cli([*base, "--format", "markdown", "--output", "-"], capsys)
    assert code == 0 and "<img" not in out and "&lt;img" in out
    code, out, _ = run_cli([*base, "--format", "json", "--output", "-"], capsys)
    assert code == 0
    [call] = json.loads(out)["calls"]
    assert call["tool"] == name and call["outcome"] == "unknown_tool"


def _spans_line(*spans: dict[str, Any]) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]})


def _attrs(**values: Any) -> list[dict[str, Any]]:
    return [{"key": key.replace("__", "."), "value": value} for key, value in values.items()]


def _text(value: Any) -> dict[str, Any]:
    return {"stringValue": value if isinstance(value, str) else json.dumps(value)}


def _calls_of(tmp_path: Path, *lines: str) -> tuple[list[tuple[str | None, Any]], Any]:
    log = tmp_path / "spans.jsonl"
    log.write_text("".join(line + "\n" for line in lines))
    reader = LogReader([str(log)])
    calls = [
        (call.tool, call.arguments if call.unparsed is None else call.unparsed.reason)
        for call in reader
    ]
    return calls, reader.stats()[0]


def test_broken_places_are_unparseable_with_their_reason(tmp_path: Path) -> None:
    out = "gen_ai__output__messages"
    lines = [
        # 1: messages that are not JSON text
        _spans_line({"attributes": _attrs(**{out: _text("[{oops")})}),
        # 2: a part without a name, a part without arguments, a part of another type
        _spans_line({"attributes": _attrs(**{out: _text([{"role": "assistant", "parts": [
            {"type": "tool_call", "arguments": {}},
            {"type": "tool_call", "name": "search"},
            {"type": "text", "content": "hi"},
        ]}])})}),
        # 3: messages that are no list, a message without parts: nothing
        _spans_line({"attributes": _attrs(**{out: _text({"parts": []})})},
                    {"attributes": _attrs(gen_ai__input__messages=_text([{"role": "user"}]))}),
        # 4: a tool span whose name is no string; an OpenInference TOOL span likewise
        _spans_line({"attributes": _attrs(gen_ai__tool__name={"intValue": "7"})}),
        _spans_line({"attributes": _attrs(openinference__span__kind=_text("TOOL"),
                                          tool__name={"boolValue": True})}),
        # 6: a choice event body without tool_calls, and one whose calls are not objects
        json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [
            {"eventName": "gen_ai.choice", "body": {"kvlistValue": {"values": []}}},
            {"eventName": "gen_ai.assistant.message", "body": {"kvlistValue": {"values": [
                {"key": "tool_calls", "value": {"arrayValue": {"values": [
                    {"stringValue": "x"}]}}}]}}},
        ]}]}]}),
        # 7: spans that are not a list
        json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": {"a": 1}}]}]}),
    ]  # fmt: skip
    calls, stats = _calls_of(tmp_path, *lines)
    assert [tool for tool, _ in calls] == [None, None, "search", None, None]
    reasons = [str(reason) for _, reason in calls]
    assert reasons[0].startswith("its messages are not JSON")
    assert reasons[1:] == ["names no tool", "has no 'arguments'", "names no tool", "names no tool"]
    assert (stats.records, stats.calls, stats.records_without_calls) == (7, 5, 3)


def test_mcp_spans_without_a_request_id_or_in_a_parent_cycle(tmp_path: Path) -> None:
    def mcp(span_id: str, parent: str, **extra: Any) -> dict[str, Any]:
        attributes = _attrs(
            mcp__method__name=_text("tools/call"),
            gen_ai__tool__name=_text("search"),
            gen_ai__tool__call__arguments=_text({"query": span_id}),
            **extra,
        )
        return {"traceId": "ab" * 16, "spanId": span_id, "parentSpanId": parent,
                "name": "tools/call search", "attributes": attributes}  # fmt: skip

    # a and b are each other's parent (a broken export); neither has a request id: both
    # count. c and d share request id 3 (a bool id is no id: e counts alone).
    line = _spans_line(
        mcp("a", "b"), mcp("b", "a"),
        mcp("c", "", jsonrpc__request__id={"intValue": "3"}),
        mcp("d", "c", jsonrpc__request__id=_text("3")),
        mcp("e", "", jsonrpc__request__id={"boolValue": True}),
    )  # fmt: skip
    calls, stats = _calls_of(tmp_path, line)
    assert [arguments for _, arguments in calls] == [
        {"query": "a"}, {"query": "b"}, {"query": "c"}, {"query": "e"}
    ]  # fmt: skip
    assert stats.repeated_calls == 1


def test_an_execute_tool_span_named_so_records_evidence(tmp_path: Path) -> None:
    span = {"name": "execute_tool search", "status": {"code": 2},
            "attributes": _attrs(gen_ai__tool__name=_text("search"),
                                 gen_ai__tool__call__arguments=_text({}))}  # fmt: skip
    other = {"name": "search", "attributes": span["attributes"]}  # no execute_tool: no evidence
    log = tmp_path / "spans.jsonl"
    log.write_text(_spans_line(span, other) + "\n")
    assert [call.evidence for call in LogReader([str(log)])] == [Evidence.ANSWERED, None]


def test_otel_logs_are_read_in_one_pass(tmp_path: Path) -> None:
    """Line 2 of openinference.jsonl repeats a call of line 1: parts read apart would count
    it twice, so --jobs reads an OTel log whole (and the counts do not depend on it)."""
    log = tmp_path / "spans.jsonl"
    log.write_bytes((FIXTURES / "openinference.jsonl").read_bytes())
    assert split(str(log), 4, None) is None
    jsonl = tmp_path / "calls.jsonl"
    jsonl.write_text('{"tool": "a", "arguments": {}}\n' * 400)
    parts = split(str(jsonl), 4, None)
    assert parts is not None and len(parts) == 4


def test_hostile_indexes_and_arguments_do_not_break_the_matching(tmp_path: Path) -> None:
    deep: Any = {}
    for _ in range(300):  # past orjson's 255 levels: compared through the json module
        deep = {"a": deep}
    oi = "llm__output_messages__0__message__tool_calls__{}__tool_call__{}"
    llm = {"traceId": "ab" * 16, "attributes": _attrs(**{
        oi.format(0, "id"): _text("c0"), oi.format(0, "function__name"): _text("t"),
        oi.format(0, "function__arguments"): _text(deep),
        # an index of 5,000 digits is no OpenInference attribute: ignored, not a crash
        oi.format("9" * 5000, "function__name"): _text("t"),
    })}  # fmt: skip
    tool = {"traceId": "ab" * 16, "attributes": _attrs(
        openinference__span__kind=_text("TOOL"), tool__name=_text("t"), input__value=_text(deep)
    )}  # fmt: skip
    calls, stats = _calls_of(tmp_path, _spans_line(llm, tool))
    # the TOOL span with the same arguments joins c0, which the reader's nesting bound refuses
    assert len(calls) == 1 and "nest more than" in str(calls[0][1])
    assert stats.repeated_calls == 1


def test_canonical_text_of_values_the_encoders_refuse() -> None:
    deeper: Any = []
    for _ in range(5_000):  # past the json module's recursion too: equal to nothing else
        deeper = [deeper]
    assert canonical(deeper) != canonical(deeper[0]) and canonical(deeper).startswith("\0")
    assert canonical({"b": 1, "a": 10**30}) == '{"a": 1000000000000000000000000000000, "b": 1}'
