"""An OpenTelemetry export given to ``--schemas``: the tool definitions the model was given.

Shapes from the OTel GenAI conventions (``gen-ai-tool-definitions.json``: ``type``, ``name``,
``parameters``; on spans as JSON text or structured, on events structured) and OpenInference
(``llm.tools.<i>.tool.json_schema``, the provider's own definition or only the parameter
schema, with ``llm.tools.<i>.tool.name``). Expected tools are read off the fixtures by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.inputs.catalogs import CatalogFormat, load_catalogs, read_catalog
from tests.conftest import run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "otel"
WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
SEARCH = {"type": "object", "properties": {"query": {"type": "string"}}}


def _span(span_id: str, definitions: Any) -> dict[str, Any]:
    value = {"stringValue": json.dumps(definitions)}
    return {"traceId": "ab" * 16, "spanId": span_id, "name": "chat",
            "attributes": [{"key": "gen_ai.tool.definitions", "value": value}]}  # fmt: skip


def _export(*spans: dict[str, Any]) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}, indent=1)


def test_genai_span_definitions_are_a_catalog() -> None:
    tools, problem = read_catalog(str(FIXTURES / "genai_spans.json"))
    assert problem is None
    # span 0's gen_ai.tool.definitions (JSON text), line 22 of the file
    assert [(t.name, t.schema, t.shape, t.location.line) for t in tools] == [
        ("get_weather", WEATHER, "otel", 22),
        ("search", SEARCH, "otel", 22),
    ]


def test_structured_definitions_on_an_event(tmp_path: Path) -> None:
    """The first record of genai_logs.jsonl: a structured (kvlist) definition on an event."""
    first = (FIXTURES / "genai_logs.jsonl").read_text().splitlines()[0]
    catalog = tmp_path / "event.json"
    catalog.write_text(first)
    tools, problem = read_catalog(str(catalog))
    assert problem is None
    assert [(t.name, t.schema) for t in tools] == [
        ("get_weather", {"type": "object", "properties": {"city": {"type": "string"}}})
    ]


def test_openinference_tools_are_a_catalog(tmp_path: Path) -> None:
    first = (FIXTURES / "openinference.jsonl").read_text().splitlines()[0]
    catalog = tmp_path / "llm.json"
    catalog.write_text(first)
    tools, problem = read_catalog(str(catalog))
    assert problem is None
    # llm.tools.0: a Chat Completions definition; llm.tools.1: tool.name and the bare schema
    assert [(t.name, t.schema) for t in tools] == [("get_weather", WEATHER), ("search", SEARCH)]


def test_repeated_definitions_are_read_once_and_different_ones_are_reported(
    tmp_path: Path,
) -> None:
    same = tmp_path / "same.json"
    definition = [{"type": "function", "name": "search", "parameters": SEARCH}]
    same.write_text(_export(_span("01", definition), _span("02", definition)))
    catalogs = load_catalogs([str(same)])
    assert [t.name for t in catalogs.tools] == ["search"] and not catalogs.problems
    changed = [{"type": "function", "name": "search", "parameters": {"type": "object"}}]
    differ = tmp_path / "differ.json"
    differ.write_text(_export(_span("01", definition), _span("02", changed)))
    catalogs = load_catalogs([str(differ)])
    [problem] = catalogs.problems
    assert "tool 'search' is already defined at" in str(problem)
    assert "--allow-override" in str(problem)
    overridden = load_catalogs([str(differ)], allow_override=True)
    assert [t.schema for t in overridden.tools] == [{"type": "object"}]
    assert len(overridden.overrides) == 1


def test_an_export_without_definitions_is_no_catalog(tmp_path: Path) -> None:
    tools, problem = read_catalog(str(FIXTURES / "mcp_spans.json"))
    assert tools == [] and problem is not None and "not a catalog" in str(problem)
    forced, problem = read_catalog(str(FIXTURES / "genai_spans.json"), CatalogFormat.OTEL)
    assert problem is None and len(forced) == 2


def test_audit_the_catalog_the_model_was_given_against_a_new_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = str(FIXTURES / "genai_spans.json")
    new = tmp_path / "new.json"
    strict = {**WEATHER, "required": ["city", "units"]}
    new.write_text(json.dumps({"get_weather": strict, "search": SEARCH}))
    code, out, _ = run_cli(
        ["audit", "--schemas", trace, "--new-schemas", str(new), "--logs", trace,
         "--format", "json", "--output", "-", "--no-report-files"], capsys,
    )  # fmt: skip
    assert code == 1
    totals = json.loads(out)["totals"]
    # get_weather: Oslo, Lima, Rome lack units; search (fjords) passes; one not captured
    assert (totals["newly_rejected"], totals["accepted"], totals["unparseable"]) == (3, 1, 1)


def test_definitions_in_an_event_body_and_broken_ones(tmp_path: Path) -> None:
    definitions = [{"type": "function", "name": "lookup"}]  # no parameters: any arguments
    body = {"kvlistValue": {"values": [
        {"key": "gen_ai.tool.definitions", "value": {"stringValue": json.dumps(definitions)}},
    ]}}  # fmt: skip
    broken = [
        {"key": "gen_ai.tool.definitions", "value": {"stringValue": "[{not json"}},
        {"key": "llm.tools.0.tool.json_schema", "value": {"stringValue": "[1]"}},
        {"key": "llm.tools.1.tool.json_schema", "value": {"stringValue": '{"type": "function"}'}},
    ]  # every one of them skipped: not JSON, not an object, no name anywhere
    export = {"resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"eventName": "gen_ai.client.inference.operation.details", "body": body},
        {"attributes": broken},
    ]}]}]}  # fmt: skip
    catalog = tmp_path / "events.json"
    catalog.write_text(json.dumps(export))
    tools, problem = read_catalog(str(catalog))
    assert problem is None
    assert [(t.name, t.schema, t.pointer) for t in tools] == [
        ("lookup", {}, "/resourceLogs/0/scopeLogs/0/logRecords/0/body")
    ]
