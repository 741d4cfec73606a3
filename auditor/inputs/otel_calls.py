"""OpenTelemetry exports (OTLP JSON spans and log records) -> the tool calls they hold.

Agent platforms record one tool call in several places at once; each is read, and the call
is counted once. Where a call is found, and which place wins when several describe it:

0. the model's output: ``tool_call`` parts of ``gen_ai.output.messages`` (a chat span, an
   inference event; OTel GenAI), ``llm.output_messages.<i>.message.tool_calls.<j>.tool_call.*``
   (OpenInference), a ``gen_ai.choice`` event body's ``message.tool_calls`` (GenAI < 1.37);
1. a tool's execution: a span or record with ``gen_ai.tool.name`` and
   ``gen_ai.tool.call.arguments`` (an ``execute_tool`` span, an MCP ``tools/call`` client or
   server span), an OpenInference ``TOOL`` span (``tool.name``, arguments in ``input.value``);
2. history: ``gen_ai.input.messages`` parts, ``llm.input_messages.*``,
   ``gen_ai.assistant.message`` event bodies;
3. a named tool whose arguments were not recorded (content capture off).

The model's own output wins: it is what the model emitted, the text the schema judged. A
tool span of the same call lends it its evidence (ran, failed, refused). The same call is
known by its trace and its tool-call id (``gen_ai.tool.call.id``, a part's ``id``); an MCP
span by its trace, its ``jsonrpc.request.id`` and its tool, unless a span above it in the
same export (its client span, the agent's ``execute_tool`` span) has the tool-call id.
``mcp.session.id`` is not part of the key: instrumentations may hash it, each side its own
way. A tool execution that carries no id at all (an OpenInference ``TOOL`` span) takes the
key of a call of the model in the same export with the same trace, tool and arguments.
Across records, the first place read wins (the reader's dedupe). Every place is yielded, the
winner first, all with the same key: the reader counts the others as ``repeated_calls``, so
every span and record stays accounted for.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Final

import orjson

from auditor.inputs import otlp
from auditor.inputs.found import At, Found, caller_name
from auditor.inputs.otlp import Item
from auditor.models import CONTENT_NOT_CAPTURED, JSON, Evidence

TOOL: Final = "gen_ai.tool.name"
ARGUMENTS: Final = "gen_ai.tool.call.arguments"
CALL_ID: Final = "gen_ai.tool.call.id"
OPERATION: Final = "gen_ai.operation.name"
AGENT: Final = "gen_ai.agent.name"
OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
INPUT_MESSAGES: Final = "gen_ai.input.messages"
EXECUTE_TOOL: Final = "execute_tool"
MCP_METHOD: Final = "mcp.method.name"
MCP_REQUEST_ID: Final = "jsonrpc.request.id"
TOOLS_CALL: Final = "tools/call"
OI_KIND: Final = "openinference.span.kind"
OI_TOOL: Final = "tool.name"
OI_INPUT: Final = "input.value"
OI_CALL_ID: Final = "tool_call.id"
CHOICE_EVENT: Final = "gen_ai.choice"
ASSISTANT_EVENT: Final = "gen_ai.assistant.message"

GENAI_SWITCH: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"
"""The switch of the OpenTelemetry GenAI instrumentations that records arguments."""
OPENINFERENCE_SWITCH: Final = "OPENINFERENCE_HIDE_INPUTS=false"
"""The switch of the OpenInference instrumentations that records a tool's input."""

_ERROR: Final = (2, "STATUS_CODE_ERROR")
_INVALID_PARAMS: Final = "-32602"
"""A JSON-RPC refusal of the arguments, as ``error.type`` or ``rpc.response.status_code``."""
_MAX_ANCESTORS: Final = 64
"""Parents climbed, at most, to find the tool-call id above an MCP span (a cycle ends it)."""

_OI_CALL: Final = re.compile(
    r"llm\.(output|input)_messages\.(\d{1,9})\.message\.tool_calls\.(\d{1,9})\."
    r"tool_call\.(function\.name|function\.arguments|id)"
)
"""An OpenInference flattened tool-call attribute: direction, message, call, field."""


@dataclass(frozen=True)
class _Place:
    """One place that describes a call, ranked (lower wins), with the call's key."""

    found: Found
    rank: int
    key: str | None
    trace: str = ""


def detect(record: JSON) -> bool:
    """Whether ``record`` is an OTLP JSON export (spans or log records)."""
    return otlp.is_export(record)


def extract(record: JSON) -> Iterator[Found]:
    """Every call in an export: per call, the winning place first, then the others with the
    same ``call_id`` (the reader counts them as repeats); calls in document order."""
    items = list(otlp.items(record))
    spans = {item.span_id: item for item in items if item.span_id}
    places = _matched([place for item in items for place in _places(item, spans)])
    groups: dict[str | int, list[_Place]] = {}
    for index, place in enumerate(places):
        groups.setdefault(place.key if place.key is not None else index, []).append(place)
    for group in groups.values():
        if len(group) == 1:
            yield group[0].found
            continue
        ranked = sorted(group, key=lambda place: place.rank)  # stable: document order
        winner = ranked[0].found
        evidence = next((place.found.evidence for place in ranked if place.found.evidence), None)
        yield winner if winner.evidence or not evidence else replace(winner, evidence=evidence)
        yield from (place.found for place in ranked[1:])


def _places(item: Item, spans: dict[str, Item]) -> Iterator[_Place]:
    caller = caller_name(item.attributes.get(AGENT)) or caller_name(item.service)
    for place in _all_places(item, spans):
        # Built anew rather than with dataclasses.replace: this runs for every call read.
        f = place.found
        found = Found(f.at, f.tool, f.arguments, place.key, f.problem, None, f.evidence, caller)
        yield _Place(found, place.rank, place.key, item.trace_id)


def _matched(places: list[_Place]) -> list[_Place]:
    """Tool executions that carry no tool-call id (an OpenInference ``TOOL`` span, an
    ``execute_tool`` span without ``gen_ai.tool.call.id``) take the key of a call the model
    made in the same trace, to the same tool, with the same arguments, once each."""
    if not any(_unkeyed_run(place) for place in places):
        return places  # the common case: no arguments to compare
    known: dict[tuple[str, str, str], list[str]] = {}
    for place in places:
        if place.key is not None and place.rank != 1 and place.found.problem is None:
            known.setdefault(_same(place), []).append(place.key)
    out: list[_Place] = []
    taken: set[str] = set()
    for place in places:
        if _unkeyed_run(place):
            keys = [key for key in known.get(_same(place), []) if key not in taken]
            if keys:
                taken.add(keys[0])
                place = replace(place, key=keys[0], found=replace(place.found, call_id=keys[0]))
        out.append(place)
    return out


def _unkeyed_run(place: _Place) -> bool:
    return place.key is None and place.rank == 1 and place.found.problem is None


def _same(place: _Place) -> tuple[str, str, str]:
    """What a call without an id is recognized by: trace, tool and arguments."""
    arguments = place.found.arguments
    if isinstance(arguments, str):
        with contextlib.suppress(orjson.JSONDecodeError):  # else compared as the text
            arguments = orjson.loads(arguments)
    return place.trace, str(place.found.tool), canonical(arguments)


def canonical(value: JSON) -> str:
    """``value`` as JSON text with sorted keys, to compare values; one too deep or too large
    for the encoders gets a text of its own (it equals nothing else)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:  # an integer past 64 bits, or nesting past 255 levels
        pass
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (RecursionError, ValueError):
        return f"\0unmatched {id(value)}"


def _all_places(item: Item, spans: dict[str, Item]) -> Iterator[_Place]:
    attributes = item.attributes
    for key, rank in ((OUTPUT_MESSAGES, 0), (INPUT_MESSAGES, 2)):
        if key in attributes:
            at = (*item.at, "attributes", item.positions[key], "value")
            yield from _message_parts(item, at, attributes[key], rank)
        body = item.body
        if isinstance(body, dict) and key in body:
            yield from _message_parts(item, (*item.at, "body"), body[key], rank)
    yield from _openinference_calls(item)
    if TOOL in attributes:
        yield _tool_span(item, spans)
    elif attributes.get(OI_KIND) == "TOOL" and OI_TOOL in attributes:
        yield _openinference_tool(item)
    if item.name in (CHOICE_EVENT, ASSISTANT_EVENT) and isinstance(item.body, dict):
        yield from _event_body(item, item.body)


# --- OTel GenAI messages --------------------------------------------------------------------


def _message_parts(item: Item, at: At, value: JSON, rank: int) -> Iterator[_Place]:
    """The ``tool_call`` parts of a messages value (structured, or JSON text on a span);
    positions inside it are ``<value>[message].parts[part]``."""
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError as error:
            problem = f"its messages are not JSON ({error})"
            yield _Place(Found(at, None, problem=problem), rank, None)
            return
    if not isinstance(value, list):
        return
    for m, message in enumerate(value):
        parts = message.get("parts") if isinstance(message, dict) else None
        if not isinstance(parts, list):
            continue
        for p, part in enumerate(parts):
            if isinstance(part, dict) and part.get("type") == "tool_call":
                yield _place(item, (*at, m, "parts", p), at, part, "arguments", rank)


def _place(
    item: Item, where: At, walkable: At, holder: dict[str, JSON], key: str, rank: int
) -> _Place:
    """A call named ``holder["name"]`` with arguments ``holder[key]``, known by
    ``holder["id"]``; a problem is placed at ``walkable`` (a place the record has)."""
    tool, identity = holder.get("name"), holder.get("id")
    call_key = _key(item, identity) if isinstance(identity, str) and identity else None
    if not isinstance(tool, str) or not tool:
        return _Place(Found(walkable, None, problem="names no tool"), rank, call_key)
    if holder.get(key) is None:
        return _Place(Found(walkable, tool, problem=f"has no '{key}'"), rank, call_key)
    return _Place(Found(where, tool, holder[key]), rank, call_key)


def _key(item: Item, call_id: str) -> str:
    return f"{item.trace_id}\0{call_id}"


# --- tool spans: execute_tool, MCP ----------------------------------------------------------


def _tool_span(item: Item, spans: dict[str, Item]) -> _Place:
    attributes = item.attributes
    tool = attributes[TOOL]
    if not isinstance(tool, str) or not tool:
        return _Place(Found(item.at, None, problem="names no tool"), 1, None)
    key = _tool_key(item, tool, spans)
    evidence = _evidence(item)
    if attributes.get(ARGUMENTS) is None:
        problem = _not_captured(item, GENAI_SWITCH)
        return _Place(Found(item.at, tool, problem=problem, evidence=evidence), 3, key)
    return _Place(Found(item.at, tool, attributes[ARGUMENTS], evidence=evidence), 1, key)


def _tool_key(item: Item, tool: str, spans: dict[str, Item]) -> str | None:
    """The call's own id; else, for an MCP ``tools/call`` span, the id of a span above it
    for the same tool, or its trace, JSON-RPC request id and tool."""
    identity = item.attributes.get(CALL_ID)
    if isinstance(identity, str) and identity:
        return _key(item, identity)
    if item.attributes.get(MCP_METHOD) != TOOLS_CALL:
        return None
    above = spans.get(item.parent_id)
    for _ in range(_MAX_ANCESTORS):
        if above is None:
            break
        identity = above.attributes.get(CALL_ID)
        if above.attributes.get(TOOL) == tool and isinstance(identity, str) and identity:
            return _key(above, identity)
        above = spans.get(above.parent_id)
    request = item.attributes.get(MCP_REQUEST_ID)
    if isinstance(request, bool) or not isinstance(request, (str, int)):
        return None
    return f"{item.trace_id}\0mcp\0{request}\0{tool}"


def _evidence(item: Item) -> Evidence | None:
    """An ``execute_tool`` or MCP ``tools/call`` span records the execution: it ran unless
    it failed; a JSON-RPC -32602 error is the server refusing the arguments."""
    attributes = item.attributes
    if not (
        attributes.get(OPERATION) == EXECUTE_TOOL
        or item.name.startswith(EXECUTE_TOOL)
        or attributes.get(MCP_METHOD) == TOOLS_CALL
    ):
        return None
    codes = {str(attributes.get(name)) for name in ("error.type", "rpc.response.status_code")}
    if _INVALID_PARAMS in codes:
        return Evidence.REFUSED
    return Evidence.ANSWERED if item.status_code in _ERROR else Evidence.RAN


def _not_captured(item: Item, switch: str) -> str:
    what = "span" if item.at[0] == otlp.SPANS[0] else "record"
    return (
        f"{CONTENT_NOT_CAPTURED}: the {what} names the tool but records no arguments; "
        f"set {switch} where the agent runs"
    )


# --- OpenInference --------------------------------------------------------------------------


def _openinference_calls(item: Item) -> Iterator[_Place]:
    """``llm.{output,input}_messages.<i>.message.tool_calls.<j>.tool_call.*``, placed at
    the attribute holding the function's name (else the first of the call's)."""
    calls: dict[tuple[str, int, int], dict[str, JSON]] = {}
    places: dict[tuple[str, int, int], int] = {}
    for key, value in item.attributes.items():
        matched = _OI_CALL.fullmatch(key) if key.startswith("llm.") else None
        if matched is None:
            continue
        direction, message, call, name = matched.groups()
        which = (direction, int(message), int(call))
        field = {"function.name": "name", "function.arguments": "arguments"}.get(name, "id")
        calls.setdefault(which, {})[field] = value
        if which not in places or field == "name":
            places[which] = item.positions[key]
    for which in sorted(calls):
        at = (*item.at, "attributes", places[which])
        rank = 0 if which[0] == "output" else 2
        yield _place(item, at, at, calls[which], "arguments", rank)


def _openinference_tool(item: Item) -> _Place:
    """A ``TOOL`` span: ``tool.name``, its arguments as JSON text in ``input.value``."""
    attributes = item.attributes
    holder = {"name": attributes[OI_TOOL], "id": attributes.get(OI_CALL_ID)}
    if attributes.get(OI_INPUT) is None:
        tool = holder["name"] if isinstance(holder["name"], str) and holder["name"] else None
        if tool is not None:
            identity = holder["id"]
            key = _key(item, identity) if isinstance(identity, str) and identity else None
            problem = _not_captured(item, OPENINFERENCE_SWITCH)
            return _Place(Found(item.at, tool, problem=problem), 3, key)
    place = _place(item, item.at, item.at, {**holder, "arguments": attributes.get(OI_INPUT)},
                   "arguments", 1)  # fmt: skip
    found = place.found
    if found.problem is None:
        status = Evidence.ANSWERED if item.status_code in _ERROR else Evidence.RAN
        found = replace(found, evidence=status)
    return replace(place, found=found)


# --- GenAI events before 1.37: gen_ai.choice, gen_ai.assistant.message ----------------------


def _event_body(item: Item, body: dict[str, JSON]) -> Iterator[_Place]:
    """``{"message": {"tool_calls": [...]}}`` (a choice) or ``{"tool_calls": [...]}`` (an
    assistant message of the history), each call ``{"id", "function": {"name",
    "arguments"}}``."""
    message = body.get("message") if item.name == CHOICE_EVENT else body
    rank = 0 if item.name == CHOICE_EVENT else 2
    base: At = (*item.at, "body", "message") if item.name == CHOICE_EVENT else (*item.at, "body")
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if not isinstance(calls, list):
        return
    for j, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(call, dict) and isinstance(function, dict):
            holder = {**function, "id": call.get("id")}
            yield _place(item, (*base, "tool_calls", j), item.at, holder, "arguments", rank)
