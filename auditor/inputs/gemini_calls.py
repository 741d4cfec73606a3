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

Evidence: a ``functionResponse`` answers the call with its ``id`` (Gemini sends one on
Vertex AI and in the Live API) or, when neither has one, the earliest unanswered call of its
``name`` (the API pairs them by name and order). Its ``response`` holding an ``error`` key is
the API's documented way to report a failure (``{"error": ...}``): answered, not known to
have run; any other response to the call of its id ran. A response paired by name alone is
only answered: a log that lost a record (sampled, rotated) would pair it with another call
of the same tool, and strong evidence replaces the model's verdict for the call it lands on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from auditor.inputs.found import Answer, At, Found
from auditor.models import JSON, Evidence

_FUNCTION_CALL: Final = ("functionCall", "function_call")
_FUNCTION_RESPONSE: Final = ("functionResponse", "function_response")
_HISTORIES: Final = ("automaticFunctionCallingHistory", "automatic_function_calling_history")
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
        yield from _contents_calls(base, body, "contents")
        for key in _HISTORIES:
            yield from _contents_calls(base, body, key)
        yield from _candidate_calls(base, body)


def responses(record: JSON) -> Iterator[Found]:
    """The calls the model produced: the candidates' parts alone."""
    for base, body in _bodies(record):
        yield from _candidate_calls(base, body)


def answers(record: JSON) -> Iterator[Answer]:
    """A ``functionResponse`` part of a request's ``contents`` for each call it answers."""
    for _, body in _bodies(record):
        for _, content in _each(body, "contents"):
            for _, part in _each(content, "parts"):
                reply = _first(part, _FUNCTION_RESPONSE)
                if not isinstance(reply, dict):
                    continue
                key = _key(reply)
                if key is None:
                    continue
                result = reply.get("response")
                failed = isinstance(result, dict) and "error" in result
                by_id = key.startswith("id:")
                yield Answer(key, Evidence.RAN if by_id and not failed else Evidence.ANSWERED)


def _candidate_calls(base: At, body: dict[str, JSON]) -> Iterator[Found]:
    for i, candidate in _each(body, "candidates"):
        content = candidate.get("content")
        if isinstance(content, dict):
            yield from _part_calls((*base, "candidates", i, "content"), content)


def _contents_calls(base: At, body: dict[str, JSON], key: str) -> Iterator[Found]:
    for i, content in _each(body, key):
        yield from _part_calls((*base, key, i), content)


def _part_calls(at: At, content: dict[str, JSON]) -> Iterator[Found]:
    for j, part in _each(content, "parts"):
        call = _first(part, _FUNCTION_CALL)
        if call is None:
            continue  # text, inline data, a function response: no call
        where = (*at, "parts", j)
        if not isinstance(call, dict):
            yield Found(where, None, problem="has a function call that is not an object")
            continue
        name = call.get("name")
        if not isinstance(name, str) or not name:
            yield Found(where, None, problem="names no tool")
            continue
        # ``args`` is optional: a function without parameters is called without it (and
        # the SDK's dumps write it as null).
        arguments = call.get("args")
        if arguments is not None and not isinstance(arguments, dict):
            # A Struct in the API: text or a list here is no call Gemini could have made.
            yield Found(where, name, problem=f"its `args` is {_kind(arguments)}, not an object")
            continue
        identity = call.get("id")
        call_id = identity if isinstance(identity, str) and identity else None
        yield Found(where, name, arguments or {}, call_id, answer_key=_key(call))


def _key(item: dict[str, JSON]) -> str | None:
    """What pairs a call with its response: its id, else its name."""
    identity = item.get("id")
    if isinstance(identity, str) and identity:
        return f"id:{identity}"
    name = item.get("name")
    return f"name:{name}" if isinstance(name, str) and name else None


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


def _each(holder: JSON, key: str) -> Iterator[tuple[int, dict[str, JSON]]]:
    items = holder.get(key) if isinstance(holder, dict) else None
    if isinstance(items, list):
        for i, item in enumerate(items):
            if isinstance(item, dict):
                yield i, item
