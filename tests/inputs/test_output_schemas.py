"""MCP tools keep their ``outputSchema`` as a tool schema of its own: its pointer, its place
in the file and the positions of its keys, in every MCP shape that holds tools."""

from __future__ import annotations

import json
from pathlib import Path

from auditor.inputs.catalogs import load_catalogs
from auditor.models import ToolSchema

OUTPUT = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def _tools(tmp_path: Path, document: object, name: str = "tools.json") -> list[ToolSchema]:
    path = tmp_path / name
    path.write_text(json.dumps(document, indent=2))
    catalogs = load_catalogs([str(path)])
    assert not catalogs.problems
    return list(catalogs.tools)


def test_a_tools_list_response_keeps_each_output_schema_with_its_pointer_and_place(
    tmp_path: Path,
) -> None:
    tools = [
        {"name": "count", "inputSchema": {"type": "object"}, "outputSchema": OUTPUT},
        {"name": "ping", "inputSchema": {"type": "object"}},
    ]
    count, ping = _tools(tmp_path, {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}})
    assert ping.output is None
    output = count.output
    assert output is not None
    assert (output.name, output.schema, output.shape) == ("count", OUTPUT, "mcp")
    assert output.pointer == "/result/tools/0/outputSchema"
    assert count.pointer == "/result/tools/0/inputSchema"
    # json.dumps(indent=2): lines 1-10 hold the wrapper, the name and the input schema
    # ("inputSchema": { on 8, its "type" on 9, its } on 10); "outputSchema" is on line 11,
    # indented 8 spaces (column 9).
    assert (output.location.line, output.location.column) == (11, 9)
    # Positions are relative to the output schema: its "type" on 12, "properties" on 13,
    # "n" on 14, and n's "type" on 15.
    assert output.positions["/properties/n/type"][0] == 15


def test_a_lone_mcp_tool_keeps_its_output_schema(tmp_path: Path) -> None:
    (tool,) = _tools(
        tmp_path, {"name": "count", "inputSchema": {}, "outputSchema": OUTPUT}, "count.snap"
    )
    assert tool.output is not None and tool.output.pointer == "/outputSchema"


def test_an_output_schema_that_is_no_object_is_not_kept(tmp_path: Path) -> None:
    tools = [{"name": "a", "inputSchema": {}, "outputSchema": True}]
    (tool,) = _tools(tmp_path, {"tools": tools})
    assert tool.output is None


def test_other_shapes_have_no_output_schema(tmp_path: Path) -> None:
    function = {"name": "a", "parameters": {}, "outputSchema": OUTPUT}
    (tool,) = _tools(tmp_path, [{"type": "function", "function": function}])
    assert tool.output is None


def _otel_export(attributes: list[dict[str, object]]) -> dict[str, object]:
    span = {"traceId": "t", "spanId": "s", "name": "chat", "attributes": attributes}
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


def test_otel_definitions_keep_an_mcp_tool_s_output_schema(tmp_path: Path) -> None:
    mcp_tool = {"name": "count", "inputSchema": {"type": "object"}, "outputSchema": OUTPUT}
    genai = [{"type": "function", "name": "plain", "parameters": {"type": "object"}}]
    attributes: list[dict[str, object]] = [
        {"key": "llm.tools.0.tool.json_schema", "value": {"stringValue": json.dumps(mcp_tool)}},
        {"key": "gen_ai.tool.definitions", "value": {"stringValue": json.dumps(genai)}},
    ]
    tools = {t.name: t for t in _tools(tmp_path, _otel_export(attributes), "export.json")}
    count, plain = tools["count"], tools["plain"]
    assert plain.output is None
    assert count.output is not None and count.output.schema == OUTPUT
    # Both schemas stand in one attribute's JSON text: the same pointer, no key positions.
    assert count.output.pointer == count.pointer and count.output.positions == {}
