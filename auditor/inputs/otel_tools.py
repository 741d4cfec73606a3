"""An OpenTelemetry export as a catalog: the tool definitions the model was actually given.

Where they are:

- ``gen_ai.tool.definitions`` on a chat span, or on (or in the body of) an inference event:
  a list of ``{"type": "function", "name", "description", "parameters"}`` (OTel GenAI
  conventions, ``gen-ai-tool-definitions.json``), structured or as JSON text;
- OpenInference ``llm.tools.<i>.tool.json_schema``: the provider's own definition as JSON
  text (Chat Completions ``{"type": "function", "function": {...}}``, Responses, Anthropic
  ``input_schema``, MCP ``inputSchema``), or only the parameter schema, with the name in
  ``llm.tools.<i>.tool.name``.

The same definition repeats on every chat span: it is read once. A tool given two different
definitions (two agent versions in one export) keeps both, and the catalog loader says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import orjson

from auditor.inputs import otlp
from auditor.inputs.otel_calls import canonical
from auditor.inputs.otlp import At, Item
from auditor.models import JSON

DEFINITIONS: Final = "gen_ai.tool.definitions"
_OI_TOOL: Final = re.compile(r"llm\.tools\.(\d{1,9})\.tool\.(json_schema|name)")
_SCHEMA_KEYS: Final = ("parameters", "input_schema", "inputSchema")
"""Where a provider's definition holds the parameter schema."""


@dataclass(frozen=True)
class Definition:
    """One tool as the model was given it, and where it stands in the export."""

    name: JSON
    schema: JSON
    at: At
    output: JSON = None
    """The definition's ``outputSchema`` (an MCP tool's, as OpenInference records it), where
    it has one as an object."""


def definitions(document: JSON) -> list[Definition] | None:
    """The distinct tool definitions of an export; None when ``document`` is not an OTLP
    export or holds none."""
    if not otlp.is_export(document):
        return None
    found: list[Definition] = []
    seen: set[tuple[str, str]] = set()
    for item in otlp.items(document):
        for definition in _of(item):
            identity = (str(definition.name), canonical(definition.schema))
            if identity not in seen:
                seen.add(identity)
                found.append(definition)
    return found or None


def _of(item: Item) -> Iterator[Definition]:
    if DEFINITIONS in item.attributes:
        at = (*item.at, "attributes", item.positions[DEFINITIONS], "value")
        yield from _genai(item.attributes[DEFINITIONS], at)
    if isinstance(item.body, dict) and DEFINITIONS in item.body:
        yield from _genai(item.body[DEFINITIONS], (*item.at, "body"))
    yield from _openinference(item)


def _decoded(value: JSON) -> JSON:
    """JSON text as its value (text that is not JSON: None); anything else as it is."""
    if not isinstance(value, str):
        return value
    try:
        decoded: JSON = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    return decoded


def _genai(value: JSON, at: At) -> Iterator[Definition]:
    tools = _decoded(value)
    for tool in tools if isinstance(tools, list) else ():
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            yield Definition(tool["name"], _parameters(tool), at, _output(tool))


def _output(declaration: dict[str, JSON]) -> JSON:
    """A declaration's output schema (MCP ``outputSchema``), where it is an object."""
    output = declaration.get("outputSchema")
    return output if isinstance(output, dict) else None


def _parameters(declaration: dict[str, JSON]) -> JSON:
    """A declaration's parameter schema; none declared accepts any arguments (``{}``)."""
    for key in _SCHEMA_KEYS:
        if declaration.get(key) is not None:
            return declaration[key]
    return {}


def _openinference(item: Item) -> Iterator[Definition]:
    tools: dict[int, dict[str, JSON]] = {}
    places: dict[int, int] = {}
    for key, value in item.attributes.items():
        matched = _OI_TOOL.fullmatch(key)
        if matched is not None:
            index = int(matched.group(1))
            tools.setdefault(index, {})[matched.group(2)] = value
            if matched.group(2) == "json_schema":
                places[index] = item.positions[key]
    for index in sorted(places):
        native = _decoded(tools[index]["json_schema"])
        if not isinstance(native, dict):
            continue
        function = native.get("function")
        declaration = function if isinstance(function, dict) else native
        name = tools[index].get("name") or declaration.get("name")
        output = None
        if "name" in declaration or any(key in declaration for key in _SCHEMA_KEYS):
            schema, output = _parameters(declaration), _output(declaration)
        else:  # only the parameter schema was recorded
            schema = native
        if isinstance(name, str) and name:
            at = (*item.at, "attributes", places[index], "value")
            yield Definition(name, schema, at, output)
