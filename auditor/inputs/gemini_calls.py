"""Gemini ``generateContent`` bodies -> the function calls they hold, and the function
responses that answer them.

A response (``GenerateContentResponse``) holds the model's calls in
``candidates[].content.parts[].functionCall`` (``{name, args, id?}``); a request holds the
conversation so far in ``contents[].parts[]``: the model turns' ``functionCall`` parts (the
history) and the ``functionResponse`` parts (``{name, response, id?}``) that give each call's
result back to the model. The python SDK's dumps (``model_dump()``) and Vertex AI's spell the
fields in snake case (``function_call``, ``function_response``); both are read. The SDK's
``automatic_function_calling_history`` holds the calls it made itself before the response:
history too. A streamed response without SSE is a JSON array of responses: each is read.

Evidence: a ``functionResponse`` answers the call of its ``id`` (Gemini sends one on Vertex
AI and in the Live API), in the same record or a later one. Where neither has an id, the API
pairs them by name and order within one conversation: a response answers the earliest
unanswered call of its name before it in the same history (a request's ``contents``), never
a call of another record, which a log that lost a record (sampled, rotated) would make the
wrong one. A ``response`` holding an ``error`` key is the API's documented way to report a
failure (``{"error": ...}``): answered, not known to have run; any other response ran.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Final

from auditor.inputs.found import Answer, At, Found, object_items
from auditor.models import JSON, Evidence

_FUNCTION_CALL: Final = ("functionCall", "function_call")
_FUNCTION_RESPONSE: Final = ("functionResponse", "function_response")
_TURNS: Final = (
    "contents",
    "automaticFunctionCallingHistory",
    "automatic_function_calling_history",
)
"""The histories of turns: a request's, and the calls the python SDK made itself."""
_ID: Final = "id:"
_FEEDBACK: Final = ("promptFeedback", "prompt_feedback")
_WRAPPERS: Final[tuple[tuple[str, ...], ...]] = (
    ("request",),
    ("response",),
    ("body",),
    ("request", "body"),
    ("response", "body"),
)
"""Where gateways and batch files put the bodies: request/response pairs, Gemini and Vertex
batch lines (``{"key", "request", "response"}``). Requests first: a history's calls are found
before the response's."""


def detect(record: JSON) -> bool:
    """A body with ``candidates`` (items with ``content``), ``contents`` (turns with
    ``parts``) or prompt feedback (a response whose prompt was blocked), itself, wrapped, or
    as an item of a streamed array."""
    return any(_is_body(body) for _, body in _bodies(record))


def _is_body(body: dict[str, JSON]) -> bool:
    return (
        _holds_candidates(body.get("candidates"))
        or _holds_parts(body.get("contents"))
        or any(isinstance(body.get(key), dict) for key in _FEEDBACK)
    )


_CANDIDATE_KEYS: Final = frozenset({"content", "finishReason", "finish_reason"})


def _holds_candidates(candidates: JSON) -> bool:
    """Whether ``candidates`` is Gemini's: a list of items with ``content`` or a finish
    reason (a call log of another kind may have a list of that name)."""
    return isinstance(candidates, list) and any(
        isinstance(item, dict) and not _CANDIDATE_KEYS.isdisjoint(item) for item in candidates
    )


def _holds_parts(contents: JSON) -> bool:
    """Whether ``contents`` is Gemini's: a list of items with ``parts`` (a list)."""
    return isinstance(contents, list) and any(
        isinstance(item, dict) and isinstance(item.get("parts"), list) for item in contents
    )


def extract(record: JSON) -> Iterator[Found]:
    """Every call, histories (``contents``, the SDK's automatic calls) before responses."""
    for base, body in _bodies(record):
        for key in _TURNS:
            yield from _history_calls(base, body, key)
        yield from _candidate_calls(base, body)


def responses(record: JSON) -> Iterator[Found]:
    """The calls the model produced: the candidates' parts alone."""
    for base, body in _bodies(record):
        yield from _candidate_calls(base, body)


def answers(record: JSON) -> Iterator[Answer]:
    """A ``functionResponse`` naming a call's id, for the call of that id in any record
    (one without an id is paired inside its own history: ``_history_calls``)."""
    for _, body in _bodies(record):
        for key in _TURNS:
            for reply in _replies(body, key):
                identity = reply.get("id")
                if isinstance(identity, str) and identity:
                    yield Answer(_ID + identity, _evidence(reply))


def _candidate_calls(base: At, body: dict[str, JSON]) -> Iterator[Found]:
    for i, candidate in object_items(body, "candidates"):
        content = candidate.get("content")
        if isinstance(content, dict):
            yield from _part_calls((*base, "candidates", i, "content"), content)


def _history_calls(base: At, body: dict[str, JSON], key: str) -> Iterator[Found]:
    """The calls of a history, each call without an id given the evidence of the next
    response of its name without an id in the same history, in order (the API's own
    pairing: one conversation, so no lost record can pair it with another call)."""
    found: list[Found] = []
    waiting: dict[str, list[int]] = {}  # tool -> indexes in ``found`` not answered yet
    for i, content in object_items(body, key):
        for j, part in object_items(content, "parts"):
            reply = _first(part, _FUNCTION_RESPONSE)
            if isinstance(reply, dict):
                name = reply.get("name")
                queue = waiting.get(name) if isinstance(name, str) else None
                if queue and not reply.get("id"):
                    index = queue.pop(0)
                    found[index] = replace(found[index], evidence=_evidence(reply))
                continue
            call = _part_call((*base, key, i, "parts", j), part)
            if call is None:
                continue
            if call.tool is not None and call.problem is None and call.call_id is None:
                waiting.setdefault(call.tool, []).append(len(found))
            found.append(call)
    return iter(found)


def _part_calls(at: At, content: dict[str, JSON]) -> Iterator[Found]:
    for j, part in object_items(content, "parts"):
        call = _part_call((*at, "parts", j), part)
        if call is not None:
            yield call


def _part_call(where: At, part: dict[str, JSON]) -> Found | None:
    """The call of one part; None for any other part (text, data, a function response)."""
    call = _first(part, _FUNCTION_CALL)
    if call is None:
        return None
    if not isinstance(call, dict):
        return Found(where, None, problem="has a function call that is not an object")
    name = call.get("name")
    if not isinstance(name, str) or not name:
        return Found(where, None, problem="names no tool")
    # ``args`` is optional: a function without parameters is called without it (and the
    # SDK's dumps write it as null).
    arguments = call.get("args")
    if arguments is not None and not isinstance(arguments, dict):
        # A Struct in the API: text or a list here is no call Gemini could have made.
        return Found(where, name, problem=f"its `args` is {_kind(arguments)}, not an object")
    identity = call.get("id")
    if not isinstance(identity, str) or not identity:
        return Found(where, name, arguments or {})
    return Found(where, name, arguments or {}, identity, answer_key=_ID + identity)


def _replies(body: dict[str, JSON], key: str) -> Iterator[dict[str, JSON]]:
    for _, content in object_items(body, key):
        for _, part in object_items(content, "parts"):
            reply = _first(part, _FUNCTION_RESPONSE)
            if isinstance(reply, dict):
                yield reply


def _evidence(reply: dict[str, JSON]) -> Evidence:
    """``{"error": ...}`` is how the API reports a failure: answered; any other response
    gave the function's result: it ran."""
    result = reply.get("response")
    return Evidence.ANSWERED if isinstance(result, dict) and "error" in result else Evidence.RAN


def _kind(value: JSON) -> str:
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a boolean" if isinstance(value, bool) else "a number"


def _first(part: dict[str, JSON], keys: tuple[str, ...]) -> JSON:
    for key in keys:
        if key in part:
            return part[key]
    return None


def _bodies(record: JSON) -> Iterator[tuple[At, dict[str, JSON]]]:
    """The record itself and the bodies wrapped in it; each item of a streamed array."""
    if isinstance(record, list):
        for i, item in enumerate(record):
            if isinstance(item, dict):
                yield from _wrapped((i,), item)
    elif isinstance(record, dict):
        yield from _wrapped((), record)


def _wrapped(at: At, record: dict[str, JSON]) -> Iterator[tuple[At, dict[str, JSON]]]:
    yield at, record
    for path in _WRAPPERS:
        value: JSON = record
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, dict):
            yield (*at, *path), value
