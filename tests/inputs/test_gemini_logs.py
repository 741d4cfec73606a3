"""Gemini ``generateContent`` logs (issue 29, item 1): the calls of responses and request
histories, the function responses as evidence, and a Gemini log audited against a Gemini
catalog. Expectations are reasoned from the bodies and the schemas written here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.inputs import gemini_calls
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.log_files import LogFormatError
from auditor.inputs.log_formats import LogFormat
from auditor.inputs.reader import LogReader
from auditor.models import Evidence
from tests.conftest import run_cli


def _call(name: str, args: Any = None, call_id: str | None = None, snake: bool = False) -> Any:
    call: dict[str, Any] = {"name": name}
    if args is not None:
        call["args"] = args
    if call_id is not None:
        call["id"] = call_id
    return {"function_call" if snake else "functionCall": call}


def _reply(name: str, response: Any, call_id: str | None = None, snake: bool = False) -> Any:
    reply: dict[str, Any] = {"name": name, "response": response}
    if call_id is not None:
        reply["id"] = call_id
    return {"function_response" if snake else "functionResponse": reply}


def _response(*parts: Any) -> dict[str, Any]:
    content = {"role": "model", "parts": list(parts)}
    return {"candidates": [{"content": content, "finishReason": "STOP"}]}


def _request(*turns: tuple[str, list[Any]]) -> dict[str, Any]:
    return {"contents": [{"role": role, "parts": parts} for role, parts in turns]}


def _write(path: Path, *records: Any) -> str:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return str(path)


def test_without_ids_a_response_answers_the_call_before_it_in_its_own_history(
    tmp_path: Path,
) -> None:
    log = _write(
        tmp_path / "gemini.jsonl",
        _response(_call("get_weather", {"city": "Lima"})),
        _request(
            ("user", [{"text": "Weather in Lima and Oslo?"}]),
            ("model", [_call("get_weather", {"city": "Lima"})]),
            ("user", [_reply("get_weather", {"output": "18C"})]),
            ("model", [_call("get_weather", {"city": "Oslo"}), _call("get_time", {})]),
            ("user", [_reply("get_weather", {"error": "no such city"}, snake=True)]),
        ),
    )
    reader = LogReader([log])
    calls = list(reader)
    # No ids: the history's calls count again (nothing tells them apart from line 1's).
    # Each response answers the earliest unanswered call of its name before it in the same
    # history: Lima ran, Oslo failed (an error), get_time has no response. Line 1's call is
    # in another record: nothing answers it there.
    assert [(c.source.rpartition("#")[2], c.arguments, c.evidence) for c in calls] == [
        (f"{log}:1", {"city": "Lima"}, None),
        ("contents[1].parts[0]", {"city": "Lima"}, Evidence.RAN),
        ("contents[3].parts[0]", {"city": "Oslo"}, Evidence.ANSWERED),
        ("contents[3].parts[1]", {}, None),
    ]
    [stats] = reader.stats()
    assert (stats.format, stats.calls, stats.repeated_calls) == ("gemini", 4, 0)


def test_a_response_before_its_call_or_of_another_tool_answers_nothing(tmp_path: Path) -> None:
    log = _write(
        tmp_path / "gemini.jsonl",
        _request(
            ("user", [_reply("search", {"output": "[]"})]),
            ("model", [_call("search", {"q": "x"})]),
            ("user", [_reply("get_time", {"output": "09:00"})]),
        ),
    )
    assert [c.evidence for c in LogReader([log])] == [None]


def test_ids_dedupe_histories_and_an_error_response_only_answered(tmp_path: Path) -> None:
    log = _write(
        tmp_path / "gemini.jsonl",
        _response(_call("get_time", {"tz": "UTC"}, "fc_1"), _call("search", {"q": "x"}, "fc_2")),
        _request(
            ("model", [_call("get_time", {"tz": "UTC"}, "fc_1", snake=True)]),
            ("model", [_call("search", {"q": "x"}, "fc_2")]),
            ("user", [_reply("get_time", {"output": "09:00"}, "fc_1", snake=True)]),
            ("user", [_reply("search", {"error": "rate limited"}, "fc_2")]),
        ),
    )
    reader = LogReader([log])
    calls = list(reader)
    # The history repeats both ids (2 repeated); ``{"error": ...}`` is the API's way to
    # say the function failed: answered, not known to have run.
    assert [(c.tool, c.evidence) for c in calls] == [
        ("get_time", Evidence.RAN),
        ("search", Evidence.ANSWERED),
    ]
    [stats] = reader.stats()
    assert (stats.calls, stats.repeated_calls, stats.records_without_calls) == (2, 2, 0)


def test_a_response_of_another_call_id_answers_nothing(tmp_path: Path) -> None:
    log = _write(
        tmp_path / "gemini.jsonl",
        _response(_call("get_time", {}, "fc_1")),
        _request(("user", [_reply("get_time", {"output": "x"}, "fc_9")])),
    )
    assert [c.evidence for c in LogReader([log])] == [None]


def test_calls_from_responses_reads_only_the_candidates(tmp_path: Path) -> None:
    log = _write(
        tmp_path / "gemini.jsonl",
        {
            "request": _request(("model", [_call("get_weather", {"city": "Lima"})])),
            "response": _response(_call("get_time", {"tz": "UTC"})),
        },
        _request(("model", [_call("search", {"q": "x"})])),
    )
    reader = LogReader([log], calls_from=CallsFrom.RESPONSES)
    assert [(c.source, c.tool) for c in reader] == [(f"{log}:1", "get_time")]
    [stats] = reader.stats()
    assert (stats.calls, stats.records_without_calls) == (1, 1)
    # Read whole, the history's call comes first, then the response's.
    every = [(c.source, c.tool) for c in LogReader([log])]
    assert every == [
        (f"{log}:1#request.contents[0].parts[0]", "get_weather"),
        (f"{log}:1#response.candidates[0].content.parts[0]", "get_time"),
        (f"{log}:2", "search"),
    ]


def test_the_sdks_automatic_function_calling_history_is_history(tmp_path: Path) -> None:
    # google-genai's model_dump() of a response after automatic function calling: the
    # calls the SDK made are in the history, the final candidate is text.
    dump = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "It is 18C."}]}}],
        "automatic_function_calling_history": [
            {"role": "user", "parts": [{"text": "Weather in Lima?"}]},
            {"role": "model", "parts": [_call("get_weather", {"city": "Lima"}, snake=True)]},
            {"role": "user", "parts": [_reply("get_weather", {"result": "18C"}, snake=True)]},
        ],
    }
    log = _write(tmp_path / "sdk.jsonl", dump)
    calls = list(LogReader([log]))
    # The SDK's function response follows the call in the same history: it ran.
    assert [(c.tool, c.arguments, c.evidence) for c in calls] == [
        ("get_weather", {"city": "Lima"}, Evidence.RAN)
    ]


SDK_DUMPS = Path(__file__).resolve().parents[1] / "fixtures" / "gemini" / "sdk_dumps.jsonl"


def test_the_dumps_google_genai_writes() -> None:
    """What google-genai 2.34.0 wrote (``tests/fixtures/gemini/README.md`` says how)."""
    reader = LogReader([str(SDK_DUMPS)])
    log = str(SDK_DUMPS)
    got = [(c.source[len(log) + 1 :], c.tool, c.arguments, c.evidence) for c in reader]
    lima: dict[str, Any] = {"city": "Lima"}
    me: dict[str, Any] = {}
    assert got == [
        # 1-3: one response in three spellings; get_me's args absent or null: no arguments
        ("1#candidates[0].content.parts[1]", "get_weather", lima, None),
        ("1#candidates[0].content.parts[2]", "get_me", me, None),
        ("2#candidates[0].content.parts[1]", "get_weather", lima, None),
        ("2#candidates[0].content.parts[2]", "get_me", me, None),
        ("3#candidates[0].content.parts[1]", "get_weather", lima, None),
        ("3#candidates[0].content.parts[2]", "get_me", me, None),
        # 4: the SDK's own call, answered in its history by a response without an error
        ("4", "get_weather", lima, Evidence.RAN),
        # 5: fc_7, which line 6 repeats (not counted again) and answers with an error
        ("5", "search", {"limit": 5, "query": "llamas"}, Evidence.ANSWERED),
    ]
    [stats] = reader.stats()
    assert (stats.format, stats.records, stats.calls, stats.repeated_calls) == (
        "gemini",
        6,
        8,
        1,
    )
    assert stats.records_without_calls == 0


def test_a_pretty_printed_array_of_streamed_responses_is_one_document(tmp_path: Path) -> None:
    # streamGenerateContent without SSE answers with a JSON array of responses.
    chunks = [_response({"text": "Let me look."}), _response(_call("search", {"q": "x"}))]
    path = tmp_path / "stream.json"
    path.write_text(json.dumps(chunks, indent=2) + "\n")
    reader = LogReader([str(path)])
    [call] = list(reader)
    assert (call.tool, call.arguments) == ("search", {"q": "x"})
    # The call's part starts on the line of its `{` in the file.
    line = next(
        number
        for number, text in enumerate(path.read_text().splitlines(), 1)
        if '"functionCall"' in text
    )
    assert call.source == f"{path}:{line - 1}"
    [stats] = reader.stats()
    assert (stats.records, stats.lines) == (1, len(path.read_text().splitlines()))


def test_a_forced_gemini_format_counts_other_records_as_holding_no_call(tmp_path: Path) -> None:
    log = _write(
        tmp_path / "mixed.jsonl",
        {"tool": "t", "arguments": {}},
        {"choices": [{"message": {"role": "assistant", "content": "hi"}}]},
        _response({"text": "no call"}),
    )
    reader = LogReader([log], LogFormat.GEMINI)
    assert list(reader) == []
    [stats] = reader.stats()
    assert (stats.records, stats.records_without_calls, stats.calls) == (3, 3, 0)


def test_a_call_record_with_a_list_named_candidates_stays_generic_json_lines(
    tmp_path: Path,
) -> None:
    record = {"tool": "rank", "arguments": {"k": 2}, "candidates": ["a", "b"], "contents": []}
    reader = LogReader([_write(tmp_path / "calls.jsonl", record)])
    assert [(c.tool, c.arguments) for c in reader] == [("rank", {"k": 2})]
    assert reader.stats()[0].format == "jsonl"


GEMINI_KEYS = [
    "candidates", "content", "contents", "parts", "functionCall", "function_call",
    "functionResponse", "function_response", "name", "args", "id", "response", "error",
    "request", "body", "automatic_function_calling_history", "promptFeedback", "x",
]  # fmt: skip
gemini_shaped = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4) | st.sampled_from(GEMINI_KEYS),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(GEMINI_KEYS), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record=gemini_shaped)
def test_any_gemini_shaped_record_reads_without_failing(record: Any) -> None:
    """Hostile bodies: every place holding a function call yields a call or a problem, and
    reading never raises (a record of any shape, detected or forced)."""
    gemini_calls.detect(record)
    for found in gemini_calls.extract(record):
        if found.problem is None:  # a call: a named tool and an object of arguments
            assert isinstance(found.tool, str) and found.tool
            assert isinstance(found.arguments, dict)
        else:  # a place that was meant as a call: kept with its reason, never dropped
            assert found.arguments is None
    responses = list(gemini_calls.responses(record))
    assert len(responses) <= len(list(gemini_calls.extract(record)))
    for answer in gemini_calls.answers(record):
        assert answer.key.startswith("id:") and len(answer.key) > 3


@pytest.mark.parametrize(
    ("record", "hint"),
    [
        (
            {"tool_name": "search", "arguments": {}},
            "its first record is a mapping with keys tool_name, arguments; `tool_name` is not "
            "a key any format reads; a call names its tool in `tool` or `name` (jsonl)",
        ),
        (
            {"candidate": [], "modelVersion": "gemini-2.5-flash"},
            "its first record is a mapping with keys candidate, modelVersion; `candidate` is "
            "not a key any format reads; `candidates` is (gemini)",
        ),
        (
            {"tool": 5, "arguments": {}},
            "its first record is a mapping with keys tool, arguments; its `tool` is a number, "
            "not a string (jsonl)",
        ),
        (
            {"functionCall": {"name": "search", "args": {"q": "x"}}},
            "its first record is a mapping with keys functionCall; `functionCall` is a part of "
            "a Gemini turn; a record is the body around it (`candidates[].content.parts[]` or "
            "`contents[].parts[]`) (gemini)",
        ),
        ({"event": "start"}, "its first record is a mapping with keys event;"),
        ([1, 2], "its first record is a list of 2 items;"),
    ],
)
def test_an_unrecognised_log_names_the_shape_it_saw(tmp_path: Path, record: Any, hint: str) -> None:
    log = _write(tmp_path / "events.jsonl", record)
    with pytest.raises(LogFormatError) as error:
        list(LogReader([log]))
    message = str(error.value.problem)
    assert f"(tried: otel, mcp, openai-responses, anthropic, openai, gemini, jsonl): {hint}" in (
        message
    )
    assert message.endswith("; use --log-format to force one")


def test_a_log_of_broken_records_only_has_no_shape_to_name(tmp_path: Path) -> None:
    log = tmp_path / "broken.jsonl"
    log.write_text('{"trunc\n')
    with pytest.raises(LogFormatError) as error:
        list(LogReader([str(log)]))
    assert "(tried: otel, mcp, openai-responses, anthropic, openai, gemini, jsonl); use" in str(
        error.value.problem
    )


# --- the scenario: a Gemini catalog, a change to it, and a Gemini log ----------------------

OLD_CATALOG = {
    # A generateContent request body's tools: JSON Schema under `parametersJsonSchema`.
    "tools": [
        {
            "functionDeclarations": [
                {
                    "name": "find_flights",
                    "parametersJsonSchema": {
                        "type": "object",
                        "properties": {
                            "origin": {"type": "string", "minLength": 3},
                            "passengers": {"type": "integer", "minimum": 1},
                        },
                        "required": ["origin"],
                    },
                },
                {
                    "name": "get_fare",
                    "parametersJsonSchema": {
                        "type": "object",
                        "properties": {"fare_id": {"type": "string"}},
                        "required": ["fare_id"],
                    },
                },
            ]
        }
    ]
}
HOSTILE = "\x1b[31mF-1\u202e</script><script>alert(1)</script>\x1b]8;;https://evil\x07"


def _new_catalog() -> dict[str, Any]:
    new: dict[str, Any] = json.loads(json.dumps(OLD_CATALOG))
    properties = new["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]["properties"]
    properties["origin"]["maxLength"] = 3  # an IATA code: at most 3 characters
    properties["passengers"]["maximum"] = 9
    return new


def _as_the_sdk_dumps_it(catalog: dict[str, Any]) -> dict[str, Any]:
    """The same declarations as google-genai's ``Tool(...).model_dump(exclude_none=True)``
    writes them: ``function_declarations``, ``parameters_json_schema``."""
    declarations = catalog["tools"][0]["functionDeclarations"]
    return {
        "function_declarations": [
            {"name": d["name"], "parameters_json_schema": d["parametersJsonSchema"]}
            for d in declarations
        ]
    }


@pytest.mark.parametrize("spelling", ["request body", "sdk dump"])
def test_a_gemini_log_against_a_gemini_catalog_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spelling: str
) -> None:
    old_catalog, new_catalog = OLD_CATALOG, _new_catalog()
    if spelling == "sdk dump":
        old_catalog, new_catalog = map(_as_the_sdk_dumps_it, (old_catalog, new_catalog))
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(old_catalog))
    new.write_text(json.dumps(new_catalog))
    log = _write(
        tmp_path / "responses.jsonl",
        # 1: "OSL" is 3 characters, 2 passengers: both sides accept
        _response(_call("find_flights", {"origin": "OSL", "passengers": 2})),
        # 2: 15 characters and 12 passengers: the new maxLength 3 and maximum 9 refuse it
        _response(_call("find_flights", {"origin": "Oslo Gardermoen", "passengers": 12})),
        # 3: "NY" is under minLength 3 before and after: still rejected
        _response(_call("find_flights", {"origin": "NY"})),
        # 4: a fare id that is a hostile string (a string: accepted), and a hostile origin
        #    (far over 3 characters, over minLength 3: accepted before, newly rejected)
        _response(
            _call("get_fare", {"fare_id": HOSTILE}),
            _call("find_flights", {"origin": HOSTILE, "passengers": 1}),
        ),
        # 5: a request's history with its response: accepted on both sides, and it ran
        _request(
            ("model", [_call("get_fare", {"fare_id": "F-9"}, "c9")]),
            ("user", [_reply("get_fare", {"output": {"price": 10}}, "c9")]),
        ),
        # 6: text only: a record without calls
        _response({"text": "Your flight is booked."}),
        # 7: a tool neither catalog has
        _response(_call("book_flight", {"fare_id": "F-9"})),
    )
    report = tmp_path / "report.json"
    markdown = tmp_path / "report.md"
    args = ["audit", "--schemas", str(old), "--new-schemas", str(new), "--logs", log]
    args += ["--log-format", "gemini"]
    code, _, err = run_cli(
        [*args, "--format", "json", "--output", str(report), "--format", "markdown",
         "--output", str(markdown)],
        capsys,
    )  # fmt: skip
    assert code == 1, err  # newly rejected calls fail the default gate
    data = json.loads(report.read_text())
    totals = data["totals"]
    assert {k: totals[k] for k in ("calls", "accepted", "newly_rejected", "still_rejected")} == {
        "calls": 7,
        "accepted": 3,
        "newly_rejected": 2,
        "still_rejected": 1,
    }
    assert totals["unknown_tool"] == 1 and totals["unparseable"] == 0
    [stats] = data["inputs"]["logs"]
    assert (stats["format"], stats["records"], stats["records_without_calls"]) == ("gemini", 7, 1)
    pointers = {
        "request body": "/tools/0/functionDeclarations/{}/parametersJsonSchema",
        "sdk dump": "/function_declarations/{}/parameters_json_schema",
    }[spelling]
    assert {(t["name"], t["shape"], t["pointer"]) for t in data["tools"]} == {
        ("find_flights", "gemini", pointers.format(0)),
        ("get_fare", "gemini", pointers.format(1)),
    }
    # JSON keeps the logged string exactly (its escapes are JSON's); Markdown shows its
    # controls and bidi override escaped, never raw.
    assert HOSTILE in _strings(data)
    text = markdown.read_text()
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\u001b[31mF-1\\u202e" in text  # the value, shown as JSON text in a code span


def _strings(value: Any) -> set[str]:
    """Every string in a JSON value, keys and values alike."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {*value.keys(), *(s for item in value.values() for s in _strings(item))}
    if isinstance(value, list):
        return {s for item in value for s in _strings(item)}
    return set()


def test_the_shape_of_a_hostile_record_is_said_in_one_escaped_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(OLD_CATALOG))
    log = _write(tmp_path / "events.jsonl", {"\x1b[2J\nevil\u202e": 1, "x" * 60: 2})
    code, out, err = run_cli(["audit", "--schemas", str(catalog), "--logs", log], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "\x1b" not in err and "\u202e" not in err
    # Keys are named escaped, and cut to 40 characters.
    keys = "\\x1b[2J\\nevil\\u202e, " + "x" * 39 + "…"
    assert f"its first record is a mapping with keys {keys};" in err
