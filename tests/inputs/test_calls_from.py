"""``--calls-from responses``: only the calls the model produced count, so request/response
history logs are cut in parts like JSON Lines, and the report does not depend on the cut."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.aggregate.pipeline import ReportSettings
from auditor.engines import choice
from auditor.engines.core import audit_part, merge
from auditor.engines.plan import PARTS_PER_JOB, make_plan
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_formats import LogFormat, extract
from auditor.inputs.parts import LogPart, WholeFiles, work_items
from auditor.models import JSON, Report
from auditor.report import Format, render
from tests.conftest import request_for, run_cli, small_parts

CONVERSATIONS = 120
"""Each: two request/response records in the first file, a third in the second."""

CATALOG = {
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "parameters": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}},
                    "required": ["id"],
                    # snake_case: ignored before, ``additionalProperties`` once normalized
                    "additional_properties": False,
                },
            },
        }
    ]
}


def _call(call_id: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "lookup", "arguments": json.dumps(arguments)},
    }


def _pair(history: list[dict[str, Any]], calls: list[dict[str, Any]]) -> str:
    reply: dict[str, Any] = {"role": "assistant", "content": None if calls else "done"}
    if calls:
        reply["tool_calls"] = calls
    record = {
        "request": {"model": "gpt-4o", "messages": history},
        "response": {"object": "chat.completion", "choices": [{"message": reply}]},
    }
    return json.dumps(record) + "\n"


def _history_logs(folder: Path) -> list[str]:
    """Conversation k: the model calls ``lookup`` with ``{"id"}`` (accepted on both sides),
    then with an extra key (passes the old schema, whose ``additional_properties`` is no
    keyword; the normalized one refuses it); the second file's record of each repeats both
    calls in its history and gets a text answer."""
    first: list[str] = []
    second: list[str] = []
    for k in range(CONVERSATIONS):
        good, extra = (
            _call(f"call_{k}_a", {"id": f"o{k}"}),
            _call(f"call_{k}_b", {"id": "x", "n": k}),
        )
        user: dict[str, Any] = {"role": "user", "content": f"conversation {k}"}
        turn1: list[dict[str, Any]] = [user, {"role": "assistant", "tool_calls": [good]}]
        answer1: dict[str, Any] = {"role": "tool", "tool_call_id": f"call_{k}_a", "content": "ok"}
        turn2 = [*turn1, answer1, {"role": "assistant", "tool_calls": [extra]}]
        answer2: dict[str, Any] = {"role": "tool", "tool_call_id": f"call_{k}_b", "content": "ok"}
        first += [_pair([user], [good]), _pair([*turn1, answer1], [extra])]
        second.append(_pair([*turn2, answer2], []))
    paths = [folder / "monday.jsonl", folder / "tuesday.jsonl"]
    for path, lines in zip(paths, (first, second), strict=True):
        path.write_text("".join(lines), encoding="utf-8")
    catalog = folder / "tools.json"
    catalog.write_text(json.dumps(CATALOG), encoding="utf-8")
    return [str(path) for path in paths]


def _audit(folder: Path, logs: list[str], jobs: int, calls_from: CallsFrom) -> Report:
    tools = load_catalogs([str(folder / "tools.json")]).tools
    return choice.audit_logs(
        tools,
        logs,
        ["tools.json"],
        request_for(jobs=jobs, calls_from=calls_from),
        settings=ReportSettings(examples=1, max_calls=7),
    )


def _rendered(report: Report) -> tuple[str, str]:
    return render(report, Format.JSON), render(report, Format.MARKDOWN)


def test_responses_count_each_call_once_and_split_without_changing_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = _history_logs(tmp_path)
    small_parts(monkeypatch, 1024)
    # The history log is cut in parts only when its responses alone are read.
    cut = work_items(logs, None, 2, 1024, PARTS_PER_JOB, calls_from=CallsFrom.RESPONSES)
    parts = [item for item in cut if isinstance(item, LogPart)]
    assert len(parts) == len(cut) > 2
    assert {part.file for part in parts} == set(logs)
    whole = work_items(logs, None, 2, 1024, PARTS_PER_JOB)
    assert [type(item) for item in whole] == [WholeFiles]

    one = _audit(tmp_path, logs, 1, CallsFrom.RESPONSES)
    two = _audit(tmp_path, logs, 2, CallsFrom.RESPONSES)
    assert _rendered(one) == _rendered(two)
    document = json.loads(render(one, Format.JSON))
    assert document["totals"]["calls"] == 2 * CONVERSATIONS
    assert document["totals"]["accepted"] == CONVERSATIONS
    assert document["totals"]["newly_rejected"] == CONVERSATIONS
    monday, tuesday = document["inputs"]["logs"]
    assert (monday["calls"], monday["repeated_calls"], monday["records_without_calls"]) == (
        2 * CONVERSATIONS,
        0,
        0,
    )
    # The third record of each conversation holds history only: no call of its own.
    assert (tuesday["calls"], tuesday["repeated_calls"], tuesday["records_without_calls"]) == (
        0,
        0,
        CONVERSATIONS,
    )


def test_all_calls_read_in_one_pass_count_the_same_calls_as_repeats(tmp_path: Path) -> None:
    logs = _history_logs(tmp_path)
    document = json.loads(render(_audit(tmp_path, logs, 2, CallsFrom.ALL), Format.JSON))
    assert document["totals"]["calls"] == 2 * CONVERSATIONS
    assert document["totals"]["newly_rejected"] == CONVERSATIONS
    monday, tuesday = document["inputs"]["logs"]
    # The second record repeats the first call; the third file's record repeats both.
    assert (monday["calls"], monday["repeated_calls"]) == (2 * CONVERSATIONS, CONVERSATIONS)
    assert (tuesday["calls"], tuesday["repeated_calls"]) == (0, 2 * CONVERSATIONS)


def test_the_engine_core_cuts_and_merges_a_history_log_of_responses(tmp_path: Path) -> None:
    logs = _history_logs(tmp_path)
    tools = load_catalogs([str(tmp_path / "tools.json")]).tools
    settings = ReportSettings(examples=1, max_calls=7)
    plan = make_plan(
        tools,
        logs,
        ["tools.json"],
        request_for(calls_from=CallsFrom.RESPONSES),
        settings=settings,
        min_part_bytes=2048,
    )
    assert len(plan.parts) > 2
    partials = [audit_part(plan, part) for part in reversed(range(len(plan.parts)))]
    one_pass = _audit(tmp_path, logs, 1, CallsFrom.RESPONSES)
    assert _rendered(merge(plan, partials)) == _rendered(one_pass)


def test_the_command_line_option_reaches_the_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = _history_logs(tmp_path)
    base = ["audit", "--schemas", str(tmp_path / "tools.json"), "--logs", *logs]
    base += ["--no-report-files", "--format", "json", "--jobs", "1"]
    code, out, _ = run_cli([*base, "--calls-from", "responses"], capsys)
    assert code == 1  # newly rejected calls
    assert json.loads(out)["inputs"]["logs"][1]["repeated_calls"] == 0
    code, out, _ = run_cli(base, capsys)
    assert code == 1
    assert json.loads(out)["inputs"]["logs"][1]["repeated_calls"] == 2 * CONVERSATIONS


ANTHROPIC_PAIR: JSON = {
    "request": {
        "model": "claude-sonnet-4",
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "old", "input": {}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]},
        ],
    },
    "response": {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "next"},
            {"type": "tool_use", "id": "toolu_2", "name": "new", "input": {"q": 1}},
        ],
    },
}
RESPONSES_PAIR: JSON = {
    "request": {
        "input": [
            {"role": "user", "content": "go"},
            {"type": "function_call", "call_id": "c1", "name": "old", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        ]
    },
    "response": {
        "object": "response",
        "output": [{"type": "function_call", "call_id": "c2", "name": "new", "arguments": "{}"}],
    },
}


@pytest.mark.parametrize(
    ("fmt", "record", "response_at"),
    [
        (LogFormat.ANTHROPIC, ANTHROPIC_PAIR, ("response", "content", 1)),
        (LogFormat.OPENAI_RESPONSES, RESPONSES_PAIR, ("response", "output", 0)),
    ],
)
def test_only_the_response_side_of_a_pair_is_read(
    fmt: LogFormat, record: JSON, response_at: tuple[str | int, ...]
) -> None:
    everything = extract(fmt, record)
    assert [found.tool for found in everything] == ["old", "new"]
    responses = extract(fmt, record, responses_only=True)
    assert [(found.tool, found.at) for found in responses] == [("new", response_at)]


def test_formats_without_histories_read_the_same_calls_in_either_mode() -> None:
    record: JSON = {"tool": "search", "arguments": {"q": "x"}}
    assert extract(LogFormat.JSONL, record, responses_only=True) == extract(LogFormat.JSONL, record)
