"""Describing a rejection leaves no python-jsonschema error in a reference cycle.

An ``anyOf`` error holds its branches' errors (``context``), and each of them links back to
it (``parent``): once the issues are built, ``tool.detach`` clears those links, every level
down, so the errors go by reference counting rather than wait for the collector. The issues
are built before that, and stay what the schema says.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import orjson
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from auditor.aggregate.pipeline import prepare
from auditor.models import JSON, Call, Location, Outcome, ToolSchema, ValidationIssue
from auditor.replay.tool import ToolReplay, detach
from auditor.schema.normalize import DEFAULT_RULES

# ``any_of`` enforces nothing in the lenient old runtime; normalized, it is ``anyOf``. "tag"
# nests an ``anyOf`` in a branch: its error's context holds an error with a context of its own.
_TAG: JSON = [
    {"type": "null"},
    {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 2}]},
]
_SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "id": {"any_of": [{"type": "integer"}, {"type": "string", "maxLength": 3}]},
        "tag": {"any_of": _TAG},
    },
}
_REJECTED: tuple[JSON, ...] = ({"id": "abcdef"}, {"id": 5, "tag": "abc"})
_ACCEPTED: tuple[JSON, ...] = ({"id": "ab", "tag": None}, {"id": 1, "tag": 7}, {})


def _replay() -> ToolReplay:
    tool = ToolSchema("t", _SCHEMA, Location("t.json"), "", "mcp")
    return prepare([tool], DEFAULT_RULES)["t"]


def _call(arguments: JSON) -> Call:
    text = orjson.dumps(arguments).decode()
    return Call("log:1", "t", arguments, text=text)


@contextmanager
def _cyclic_garbage() -> Iterator[list[object]]:
    """What the body leaves that only the collector can free (the collector off meanwhile)."""
    found: list[object] = []
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield found
    finally:
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            found.extend(gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            if enabled:
                gc.enable()


def _errors_in(garbage: list[object]) -> list[object]:
    return [o for o in garbage if isinstance(o, ValidationError)]


def _described(issue: ValidationIssue) -> tuple[str, str, str, list[tuple[str, str, str]]]:
    causes = [(c.pointer, c.old, c.new) for c in issue.causes]
    return issue.keyword, issue.instance_pointer, issue.schema_pointer, causes


def test_replaying_rejections_leaves_no_validation_error_in_cyclic_garbage() -> None:
    replay = _replay()
    judgements: list[Callable[[JSON], object]] = [replay.verdicts, replay.light_verdicts]
    for judge in judgements:  # compiled and warmed outside the census
        judge(_REJECTED[1])
    with _cyclic_garbage() as garbage:
        for _ in range(10):
            for arguments in _REJECTED + _ACCEPTED:
                for judge in judgements:
                    judge(arguments)
    assert _errors_in(garbage) == []


def test_the_rejected_calls_issues_are_what_the_schema_says() -> None:
    replay = _replay()
    with _cyclic_garbage() as garbage:
        results = [replay.replay(_call(arguments)) for arguments in _REJECTED + _ACCEPTED]
    assert _errors_in(garbage) == []
    assert [r.outcome for r in results] == [Outcome.NEWLY_REJECTED] * 2 + [Outcome.ACCEPTED] * 3
    assert [r.errors for r in results[2:]] == [(), (), ()]
    (on_id,), (on_tag,) = results[0].errors, results[1].errors
    assert _described(on_id) == (
        "anyOf",
        "/id",
        "/properties/id/anyOf",
        [("/properties/id/any_of", "any_of", "anyOf")],
    )
    assert on_id.message == '"abcdef" is not valid under any of the given schemas'
    assert _described(on_tag) == (
        "anyOf",
        "/tag",
        "/properties/tag/anyOf",
        [("/properties/tag/any_of", "any_of", "anyOf")],
    )
    assert on_tag.message == '"abc" is not valid under any of the given schemas'


def test_light_verdicts_locate_the_same_errors_without_messages() -> None:
    replay = _replay()
    for arguments in _REJECTED:
        _, full = replay.verdicts(arguments)
        _, light = replay.light_verdicts(arguments)
        assert not full.accepts and not light.accepts
        assert [_described(i) for i in light.errors] == [_described(i) for i in full.errors]
        assert [i.message for i in light.errors] == [""]


def test_detach_clears_the_parent_links_at_every_level() -> None:
    (error,) = Draft202012Validator({"anyOf": _TAG}).iter_errors("abc")
    inner = [sub for sub in error.context if sub.context]
    assert len(error.context) == 2 and len(inner) == 1 and len(inner[0].context) == 2
    detach([error])
    everything = [error, *error.context, *inner[0].context]
    assert [e.parent for e in everything] == [None] * 5
    assert len(error.context) == 2 and len(inner[0].context) == 2  # the tree itself is kept
    # paths relative to the error whose context holds them, as they were
    paths = [list(e.relative_schema_path) for e in inner[0].context]
    assert paths == [[0, "type"], [1, "maxLength"]]
