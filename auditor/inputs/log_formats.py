"""The log formats: one parsed record -> the tool calls it holds, each with its position,
and the answers it holds to calls of earlier records.

Each format is a few small functions in the table ``FORMATS``: ``detect`` says whether a
record looks like that format (detection tries the table in order), ``extract`` yields a
``Found`` for every tool call in the record, ``answers`` an ``Answer`` for every reply to a
call that says what became of it (the log's evidence). Files (``auditor.inputs.log_files``),
lines and decoding JSON text (``auditor.inputs.records``), dedupe, pairing answers with calls
and accounting (``auditor.inputs.reader``) are other modules' business; nothing here reads a
file.

Evidence, by format: an MCP ``tools/call`` answered by a ``result`` ran (``isError`` or not),
one answered by a JSON-RPC error -32602 was refused, any other error answered it; an OTel
``execute_tool`` span ran unless its status is an error (then it answered); an Anthropic
``tool_result`` ran unless ``is_error`` (then it answered); an OpenAI ``role: "tool"`` message
or Responses ``function_call_output`` answered (a refusal and a run look alike there); a
Gemini ``functionResponse`` ran unless its ``response`` has an ``error`` (then it answered;
pairing by id, or by name within one history: ``auditor.inputs.gemini_calls``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Final

from auditor.inputs import gemini_calls, otel_calls
from auditor.inputs.found import Answer, At, Found, caller_name, object_items
from auditor.inputs.log_format_names import LogFormat
from auditor.models import JSON, Evidence


def _no_answers(record: JSON) -> Iterator[Answer]:
    return iter(())


def _nobody(record: JSON) -> str | None:
    return None


@dataclass(frozen=True)
class _Format:
    detect: Callable[[JSON], bool]
    extract: Callable[[JSON], Iterable[Found]]
    answers: Callable[[JSON], Iterator[Answer]] = _no_answers
    caller: Callable[[JSON], str | None] = _nobody
    """Who made the record's calls, where the record itself says."""
    session: Callable[[JSON], str | None] = _nobody
    """Who makes the calls of the records that follow in the same file, where a record
    opens a session (an MCP ``initialize``)."""
    responses: Callable[[JSON], Iterator[Found]] | None = None
    """The calls the model produced (``--calls-from responses``), where a record may also
    hold a request's history of earlier calls; None: the format has no histories."""


def caller_of(fmt: LogFormat, record: JSON) -> str | None:
    """Who made the calls of ``record``, where it names them."""
    return FORMATS[fmt].caller(record)


def opens_sessions(fmt: LogFormat) -> bool:
    """Whether a record of this format may open a session (``session_caller`` may answer)."""
    return FORMATS[fmt].session is not _nobody


def session_caller(fmt: LogFormat, record: JSON) -> str | None:
    """The caller of the file's later calls, when ``record`` opens a session."""
    return FORMATS[fmt].session(record)


_name = caller_name


CALLER_KEYS: Final = ("caller", "client", "user")
"""Top-level fields naming the caller in generic JSON Lines and gateway records."""
METADATA_CALLER_KEYS: Final = ("caller", "agent", "user_id", "user")
"""``metadata`` entries naming the caller in OpenAI and Anthropic request bodies."""


def _record_caller(record: JSON) -> str | None:
    """A record's ``caller``/``client``/``user`` field, else a body's ``user`` (OpenAI), else
    a body's ``metadata`` entry (``caller``, ``agent``, ``user_id`` as Anthropic has it,
    ``user``)."""
    if not isinstance(record, dict) or _CALLER_FIELDS.isdisjoint(record):
        return None  # most records name no caller nor wrap a body: no walk for them
    for key in CALLER_KEYS:
        if found := _name(record.get(key)):
            return found
    for _, body in _bodies(record):
        if found := _name(body.get("user")):
            return found
        metadata = body.get("metadata")
        if isinstance(metadata, dict):
            for key in METADATA_CALLER_KEYS:
                if found := _name(metadata.get(key)):
                    return found
    return None


def detect(record: JSON) -> LogFormat | None:
    """The first format whose detector recognizes ``record``; None when none does."""
    return next((fmt for fmt, spec in FORMATS.items() if spec.detect(record)), None)


def extract(fmt: LogFormat, record: JSON, responses_only: bool = False) -> list[Found]:
    """Every call in one record, in record order (a request's history before the response);
    with ``responses_only``, only the response's calls where the format has histories."""
    spec = FORMATS[fmt]
    if responses_only and spec.responses is not None:
        return list(spec.responses(record))
    found = spec.extract(record)
    return found if isinstance(found, list) else list(found)


def has_histories(fmt: LogFormat) -> bool:
    """Whether records of this format repeat earlier calls in a request's history (and can
    be read for the response side alone, ``extract(responses_only=True)``)."""
    return FORMATS[fmt].responses is not None


def answers(fmt: LogFormat, record: JSON) -> list[Answer]:
    """Every reply in one record to a call, in record order."""
    return list(FORMATS[fmt].answers(record))


def answered(fmt: LogFormat) -> bool:
    """Whether calls of this format may be answered by a later record."""
    return FORMATS[fmt].answers is not _no_answers


def describe(at: At) -> str:
    """``("choices", 0, "message")`` -> ``choices[0].message``."""
    text = ""
    for part in at:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def item_at(record: JSON, at: At) -> JSON:
    """The value at ``at`` in ``record`` (``at`` came from this record's extraction)."""
    for part in at:
        if isinstance(record, dict) and isinstance(part, str):
            record = record[part]
            continue
        if not (isinstance(record, list) and isinstance(part, int)):
            raise LookupError(f"{describe(at)} is not in this record")
        record = record[part]
    return record


# --- shared walking -------------------------------------------------------------------------

_WRAPPERS: Final[tuple[At, ...]] = (
    ("request",),
    ("body",),
    ("request", "body"),
    ("response",),
    ("response", "body"),
)
"""Where gateways put the bodies: request/response pairs, and OpenAI batch input and output
lines (``body``, ``response.body``). Requests come first, so a history's calls are found
before the response's."""
_WRAPPER_KEYS: Final = frozenset(at[0] for at in _WRAPPERS)
_CALLER_FIELDS: Final = frozenset({*CALLER_KEYS, "user", "metadata", *_WRAPPER_KEYS})
"""Top-level keys ``_record_caller`` reads a caller from (its own, or a wrapped body's)."""


def _bodies(record: JSON) -> Iterator[tuple[At, dict[str, JSON]]]:
    """The record itself and every request or response body wrapped in it."""
    if not isinstance(record, dict):
        return
    yield (), record
    if _WRAPPER_KEYS.isdisjoint(record):  # most records wrap nothing: no walk per wrapper
        return
    for at in _WRAPPERS:
        value = _get(record, at)
        if isinstance(value, dict):
            yield at, value


def _get(value: JSON, at: At) -> JSON:
    for key in at:
        if not isinstance(value, dict) or not isinstance(key, str):
            return None
        value = value.get(key)
    return value


def _found(
    at: At, tool: JSON, holder: dict[str, JSON], keys: Sequence[str], call_id: JSON = None
) -> Found:
    """A call named ``tool`` with the arguments under the first of ``keys`` in ``holder``."""
    if not isinstance(tool, str) or not tool:
        return Found(at, None, problem="names no tool")
    identity = call_id if isinstance(call_id, str) else None
    for key in keys:
        if key in holder:
            return Found(at, tool, holder[key], identity, answer_key=identity)
    return Found(at, tool, problem=f"has no '{keys[0]}'")


def _any_body(record: JSON, test: Callable[[dict[str, JSON]], bool]) -> bool:
    return any(test(body) for _, body in _bodies(record))


# --- generic JSON Lines ---------------------------------------------------------------------

TOOL_KEYS: Final = ("tool", "name")
ARGUMENT_KEYS: Final = ("arguments", "args", "input")


def _jsonl_tool(record: JSON) -> JSON:
    # A plain loop: this runs once per line of the most common log format.
    if isinstance(record, dict):
        for key in TOOL_KEYS:
            tool = record.get(key)
            if isinstance(tool, str):
                return tool
    return None


def _detect_jsonl(record: JSON) -> bool:
    return _jsonl_tool(record) is not None


def _extract_jsonl(record: JSON) -> list[Found]:
    # Every record of this format is a call, even one that names no tool: the line was
    # meant as a call and must show up in the counts (SPEC: such a line is unparseable).
    # A list, not a generator: this runs once per line of the most common log format.
    if not isinstance(record, dict):
        return [Found((), None, problem="not a JSON object")]
    tool = _jsonl_tool(record)
    if tool is None:
        return [Found((), None, problem="names no tool (no string 'tool' or 'name')")]
    return [_found((), tool, record, ARGUMENT_KEYS)]


def jsonl_call(record: JSON) -> tuple[str, str] | None:
    """The tool and arguments text of a generic JSON Lines record whose arguments are JSON
    text: what ``_extract_jsonl`` finds there, without making a ``Found`` (the reader's
    short way for the most common record). None for any other record (arguments logged as
    an object, a record naming no tool or holding no arguments), which goes the long way."""
    if not isinstance(record, dict):
        return None
    tool = _jsonl_tool(record)
    if not isinstance(tool, str) or not tool:  # an empty name is a problem ``_found`` names
        return None
    for key in ARGUMENT_KEYS:
        if key in record:
            arguments = record[key]
            return (tool, arguments) if isinstance(arguments, str) else None
    return None


# --- OpenAI Chat Completions ----------------------------------------------------------------


def _detect_openai(record: JSON) -> bool:
    return _any_body(
        record,
        lambda body: (
            isinstance(body.get("choices"), list)
            or isinstance(body.get("messages"), list)
            or str(body.get("object", "")).startswith("chat.completion")
        ),
    )


def _extract_openai(record: JSON) -> Iterator[Found]:
    for base, body in _bodies(record):
        for i, message in object_items(body, "messages"):
            yield from _chat_message((*base, "messages", i), message)
        yield from _chat_choices(base, body)


def _responses_openai(record: JSON) -> Iterator[Found]:
    for base, body in _bodies(record):
        yield from _chat_choices(base, body)


def _chat_choices(base: At, body: dict[str, JSON]) -> Iterator[Found]:
    """The calls of a Chat Completions response: what the model produced."""
    for i, choice in object_items(body, "choices"):
        reply = choice.get("message")
        if isinstance(reply, dict):
            yield from _chat_message((*base, "choices", i, "message"), reply)


def _chat_message(at: At, message: dict[str, JSON]) -> Iterator[Found]:
    for j, call in object_items(message, "tool_calls"):
        function = call.get("function")
        # Other tool types (custom tools) carry no JSON arguments to replay.
        if call.get("type", "function") == "function" and isinstance(function, dict):
            where = (*at, "tool_calls", j)
            yield _found(where, function.get("name"), function, ("arguments",), call.get("id"))
    legacy = message.get("function_call")
    if isinstance(legacy, dict):
        yield _found((*at, "function_call"), legacy.get("name"), legacy, ("arguments",))


def _answers_openai(record: JSON) -> Iterator[Answer]:
    for _, body in _bodies(record):
        for _, message in object_items(body, "messages"):
            call_id = message.get("tool_call_id")
            if message.get("role") == "tool" and isinstance(call_id, str):
                yield Answer(call_id, Evidence.ANSWERED)


# --- OpenAI Responses -----------------------------------------------------------------------


def _detect_openai_responses(record: JSON) -> bool:
    return _any_body(
        record,
        lambda body: (
            body.get("object") == "response"
            or isinstance(body.get("output"), list)
            or any(
                item.get("type") == "function_call" or "role" in item
                for _, item in object_items(body, "input")
            )
        ),
    )


def _extract_openai_responses(record: JSON) -> Iterator[Found]:
    # ``input`` holds the history a request replays, ``output`` the new items.
    return _function_calls(record, ("input", "output"))


def _responses_openai_responses(record: JSON) -> Iterator[Found]:
    return _function_calls(record, ("output",))


def _function_calls(record: JSON, keys: tuple[str, ...]) -> Iterator[Found]:
    for base, body in _bodies(record):
        for key in keys:
            for i, item in object_items(body, key):
                if item.get("type") == "function_call":
                    yield _found(
                        (*base, key, i), item.get("name"), item, ("arguments",), item.get("call_id")
                    )


def _answers_openai_responses(record: JSON) -> Iterator[Answer]:
    for _, body in _bodies(record):
        for _, item in object_items(body, "input"):
            call_id = item.get("call_id")
            if item.get("type") == "function_call_output" and isinstance(call_id, str):
                yield Answer(call_id, Evidence.ANSWERED)


# --- Anthropic Messages ---------------------------------------------------------------------

_ANTHROPIC_BLOCKS: Final = frozenset({"tool_use", "tool_result"})


def _detect_anthropic(record: JSON) -> bool:
    return _any_body(record, _anthropic_body)


def _anthropic_body(body: dict[str, JSON]) -> bool:
    if body.get("type") == "message" and isinstance(body.get("content"), list):
        return True
    if not isinstance(body.get("messages"), list):
        return False
    # A request: OpenAI bodies share ``messages``; these traits are Anthropic's alone.
    return (
        "system" in body
        or "anthropic_version" in body
        or str(body.get("model", "")).startswith("claude")
        or any(
            block.get("type") in _ANTHROPIC_BLOCKS
            for _, message in object_items(body, "messages")
            for _, block in object_items(message, "content")
        )
    )


def _extract_anthropic(record: JSON) -> Iterator[Found]:
    for base, body in _bodies(record):
        for i, message in object_items(body, "messages"):
            yield from _tool_use_blocks((*base, "messages", i), message)
        # A response is itself one assistant message.
        yield from _tool_use_blocks(base, body)


def _responses_anthropic(record: JSON) -> Iterator[Found]:
    for base, body in _bodies(record):
        yield from _tool_use_blocks(base, body)


def _tool_use_blocks(at: At, message: dict[str, JSON]) -> Iterator[Found]:
    for j, block in object_items(message, "content"):
        if block.get("type") == "tool_use":
            yield _found((*at, "content", j), block.get("name"), block, ("input",), block.get("id"))


def _answers_anthropic(record: JSON) -> Iterator[Answer]:
    for _, body in _bodies(record):
        for _, message in object_items(body, "messages"):
            for _, block in object_items(message, "content"):
                call_id = block.get("tool_use_id")
                if block.get("type") == "tool_result" and isinstance(call_id, str):
                    failed = block.get("is_error") is True
                    yield Answer(call_id, Evidence.ANSWERED if failed else Evidence.RAN)


# --- MCP JSON-RPC ---------------------------------------------------------------------------


def _messages(record: JSON) -> Iterator[tuple[At, dict[str, JSON]]]:
    """One JSON-RPC message, or each message of a batch."""
    if isinstance(record, dict):
        yield (), record
    elif isinstance(record, list):
        for i, message in enumerate(record):
            if isinstance(message, dict):
                yield (i,), message


def _detect_mcp(record: JSON) -> bool:
    return any("jsonrpc" in message for _, message in _messages(record))


def _extract_mcp(record: JSON) -> Iterator[Found]:
    for at, message in _messages(record):
        if message.get("method") != "tools/call":
            continue  # responses, notifications and other requests hold no call
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        # MCP makes ``arguments`` optional: a call without it passes no arguments.
        found = _found(at, params.get("name"), {"arguments": {}, **params}, ("arguments",))
        # Not a call id for dedupe: JSON-RPC ids restart with every session.
        yield replace(found, answer_key=_rpc_id(message))


def _mcp_client(record: JSON) -> str | None:
    """The client's name from an ``initialize`` request (``params.clientInfo.name``)."""
    for _, message in _messages(record):
        if message.get("method") == "initialize":
            params = message.get("params")
            info = params.get("clientInfo") if isinstance(params, dict) else None
            if isinstance(info, dict):
                return _name(info.get("name"))
    return None


INVALID_PARAMS: Final = -32602
"""The JSON-RPC error code of a server that refused a call's arguments."""


def _rpc_id(message: dict[str, JSON]) -> str | None:
    identity = message.get("id")
    if isinstance(identity, bool) or not isinstance(identity, (str, int)):
        return None
    return f"{type(identity).__name__}:{identity}"  # 1 and "1" are different ids


def _answers_mcp(record: JSON) -> Iterator[Answer]:
    for _, message in _messages(record):
        key = _rpc_id(message)
        if key is None or "method" in message:
            continue
        if "result" in message:
            yield Answer(key, Evidence.RAN)
        elif isinstance(error := message.get("error"), dict):
            code = error.get("code")
            refused = code == INVALID_PARAMS and not isinstance(code, bool)
            yield Answer(key, Evidence.REFUSED if refused else Evidence.ANSWERED)


FORMATS: Final[dict[LogFormat, _Format]] = {
    LogFormat.OTEL: _Format(otel_calls.detect, otel_calls.extract),
    LogFormat.MCP: _Format(_detect_mcp, _extract_mcp, _answers_mcp, session=_mcp_client),
    LogFormat.OPENAI_RESPONSES: _Format(
        _detect_openai_responses,
        _extract_openai_responses,
        _answers_openai_responses,
        caller=_record_caller,
        responses=_responses_openai_responses,
    ),
    LogFormat.ANTHROPIC: _Format(
        _detect_anthropic,
        _extract_anthropic,
        _answers_anthropic,
        caller=_record_caller,
        responses=_responses_anthropic,
    ),
    LogFormat.OPENAI: _Format(
        _detect_openai,
        _extract_openai,
        _answers_openai,
        caller=_record_caller,
        responses=_responses_openai,
    ),
    LogFormat.GEMINI: _Format(
        gemini_calls.detect,
        gemini_calls.extract,
        gemini_calls.answers,
        caller=_record_caller,
        responses=gemini_calls.responses,
    ),
    # Last: the catch-all for records that name a tool themselves.
    LogFormat.JSONL: _Format(_detect_jsonl, _extract_jsonl, caller=_record_caller),
}
