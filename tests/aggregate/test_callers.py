"""Who calls: each group lists the callers the log names, in every format that names them,
and ``--group-by caller`` splits groups by caller.

Every log below is written by hand; the expected callers of the one group (``search``
fails the woken ``minLength: 2`` with ``q: "a"``) are counted from it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.report import Format
from tests.conftest import run_cli

CATALOG = {"search": {"type": "object", "properties": {"q": {"type": "string", "min_length": 2}}}}
SHORT = {"q": "a"}  # fails minLength 2 once it is evaluated
LONG = {"q": "abc"}


def _jsonl(*records: Any) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def _openai(arguments: dict[str, Any], **body: Any) -> dict[str, Any]:
    call = {"id": f"call_{len(json.dumps(body))}_{json.dumps(body)}", "type": "function",
            "function": {"name": "search", "arguments": json.dumps(arguments)}}  # fmt: skip
    return {"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}], **body}


def _responses(arguments: dict[str, Any], call_id: str, **body: Any) -> dict[str, Any]:
    item = {"type": "function_call", "name": "search", "call_id": call_id,
            "arguments": json.dumps(arguments)}  # fmt: skip
    return {"object": "response", "output": [item], **body}


def _anthropic(arguments: dict[str, Any], block_id: str, **body: Any) -> dict[str, Any]:
    block = {"type": "tool_use", "id": block_id, "name": "search", "input": arguments}
    return {"type": "message", "role": "assistant", "content": [block], **body}


def _mcp_call(number: int, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": "search", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}


def _initialize(number: int, client: str) -> dict[str, Any]:
    params = {"protocolVersion": "2025-06-18", "clientInfo": {"name": client, "version": "1"}}
    return {"jsonrpc": "2.0", "id": number, "method": "initialize", "params": params}


def _otel(spans: list[tuple[dict[str, Any], str | None]], service: str) -> dict[str, Any]:
    def span(arguments: dict[str, Any], agent: str | None) -> dict[str, Any]:
        attributes = [
            {"key": "gen_ai.tool.name", "value": {"stringValue": "search"}},
            {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps(arguments)}},
        ]
        if agent is not None:
            attributes.append({"key": "gen_ai.agent.name", "value": {"stringValue": agent}})
        return {"name": "execute_tool search", "attributes": attributes}

    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]}
    scope = {"spans": [span(arguments, agent) for arguments, agent in spans]}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [scope]}]}


CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    # A top-level caller, else client, else user; a record naming none is not counted.
    "jsonl": (
        _jsonl(
            {"tool": "search", "arguments": SHORT, "caller": "agent-a"},
            {"tool": "search", "arguments": SHORT, "caller": "agent-a", "client": "no"},
            {"tool": "search", "arguments": SHORT, "user": "u1"},
            {"tool": "search", "arguments": SHORT, "client": "cli-x", "user": "no"},
            {"tool": "search", "arguments": SHORT},
            {"tool": "search", "arguments": LONG, "caller": "agent-b"},
        ),
        [("agent-a", 2), ("cli-x", 1), ("u1", 1)],
    ),
    # The body's user, else its metadata's caller.
    "openai": (
        _jsonl(
            _openai(SHORT, user="alice"),
            _openai(SHORT, metadata={"caller": "billing-bot"}),
            _openai(SHORT, user="alice", metadata={"caller": "ignored: user comes first"}),
        ),
        [("alice", 2), ("billing-bot", 1)],
    ),
    "openai-responses": (
        _jsonl(_responses(SHORT, "c1", user="bob"), _responses(SHORT, "c2")),
        [("bob", 1)],
    ),
    # Anthropic names the end user in metadata.user_id.
    "anthropic": (
        _jsonl(
            _anthropic(SHORT, "t1", metadata={"user_id": "carol"}),
            _anthropic(SHORT, "t2", metadata={"user_id": "carol"}),
        ),
        [("carol", 2)],
    ),
    # The client an initialize names makes the calls that follow it in the file.
    "mcp": (
        _jsonl(
            _mcp_call(1, SHORT),  # before any initialize: no caller
            _initialize(2, "cursor"),
            _mcp_call(3, SHORT),
            _mcp_call(4, SHORT),
            _initialize(5, "claude-code"),
            _mcp_call(6, SHORT),
        ),
        [("cursor", 2), ("claude-code", 1)],
    ),
    # The agent's name on the span, else the resource's service.name.
    "otel": (
        _jsonl(_otel([(SHORT, "planner"), (SHORT, None), (SHORT, "planner")], "svc")),
        [("planner", 2), ("svc", 1)],
    ),
}


def _audit(
    tmp_path: Path, log: str, capsys: pytest.CaptureFixture[str], *more: str
) -> dict[str, Any]:
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(CATALOG))
    path = tmp_path / "calls.jsonl"
    path.write_text(log)
    args = ["audit", "--schemas", str(catalog), "--logs", str(path), "--no-report-files"]
    code, out, err = run_cli([*args, "--fail-on", "never", "--format", "json", *more], capsys)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


@pytest.mark.parametrize("name", list(CASES))
def test_each_format_names_the_callers_of_a_group(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, expected = CASES[name]
    report = _audit(tmp_path, log, capsys)
    assert report["group_by"] == "constraint"
    (group,) = report["groups"]
    assert group["keyword"] == "minLength" and group["caller"] is None
    assert [(c["caller"], c["calls"]) for c in group["callers"]] == expected
    assert group["more_callers"] == 0


def test_group_by_caller_splits_a_group_per_caller(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, _ = CASES["jsonl"]
    joined = _audit(tmp_path, log, capsys)["groups"]
    report = _audit(tmp_path, log, capsys, "--group-by", "caller")
    assert report["group_by"] == "caller"
    split = [(g["caller"], g["count"], g["keyword"]) for g in report["groups"]]
    # Largest first; "" stands for the record that names no caller.
    assert split == [
        ("agent-a", 2, "minLength"),
        ("", 1, "minLength"),
        ("cli-x", 1, "minLength"),
        ("u1", 1, "minLength"),
    ]
    assert len({g["fingerprint"] for g in report["groups"]}) == 4
    assert joined[0]["fingerprint"] not in {g["fingerprint"] for g in report["groups"]}


def test_the_markdown_and_table_say_who_to_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, _ = CASES["mcp"]
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(CATALOG))
    path = tmp_path / "calls.jsonl"
    path.write_text(log)
    args = ["audit", "--schemas", str(catalog), "--logs", str(path), "--no-report-files"]
    _, markdown, _ = run_cli([*args, "--format", "markdown"], capsys)
    assert "- **Callers:** `cursor` (2 calls), `claude-code` (1 call)\n" in markdown
    _, table, _ = run_cli([*args, "--format", "table", "--verbose"], capsys)
    assert "           callers: cursor (2 calls), claude-code (1 call)\n" in table
    _, split, _ = run_cli([*args, "--format", "markdown", "--group-by", "caller"], capsys)
    assert "`search`: 2 calls from `cursor` failing `minLength`" in split


def test_redaction_replaces_callers_with_stable_stand_ins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, _ = CASES["openai"]
    report = _audit(tmp_path, log, capsys, "--redact")
    names = [c["caller"] for c in report["groups"][0]["callers"]]
    assert len(names) == 2 and all(n.startswith("caller-") and len(n) == 15 for n in names)
    again = _audit(tmp_path, log, capsys, "--redact")
    assert [c["caller"] for c in again["groups"][0]["callers"]] == names
    catalog = tmp_path / "tools.json"
    args = ["audit", "--schemas", str(catalog), "--logs", str(tmp_path / "calls.jsonl")]
    for fmt in Format:
        _, out, _ = run_cli([*args, "--no-report-files", "--redact", "--format", fmt.value], capsys)
        assert "alice" not in out and "billing-bot" not in out, fmt


def test_a_hostile_caller_name_stays_on_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "evil\n# heading `x` |cell| <b>" + "y" * 300
    log = _jsonl({"tool": "search", "arguments": SHORT, "caller": hostile})
    report = _audit(tmp_path, log, capsys)
    (caller,) = report["groups"][0]["callers"]
    assert len(caller["caller"]) <= 200 and caller["caller"].startswith("evil\n# heading")
    catalog = tmp_path / "tools.json"
    args = ["audit", "--schemas", str(catalog), "--logs", str(tmp_path / "calls.jsonl")]
    _, table, _ = run_cli([*args, "--no-report-files", "--format", "table", "-v"], capsys)
    (line,) = [line for line in table.splitlines() if line.lstrip().startswith("callers:")]
    assert "evil" in line and "# heading" in line  # one line, the break shown, not taken
    _, markdown, _ = run_cli([*args, "--no-report-files", "--format", "markdown"], capsys)
    (line,) = [line for line in markdown.splitlines() if line.startswith("- **Callers:**")]
    # In a code span: the line break as the two characters \n, the markup inert.
    assert line.startswith("- **Callers:** ``evil\\n# heading `x` |cell| <b>yyy")
    assert not any(line.startswith("# heading") for line in markdown.splitlines())
