"""Cause rules the case files cannot pin down alone: reference cycles and unreferenced
``$defs`` inside a failing ``contains``, names that only look like ``then``/``if``, and base
URIs of nested resources (tests/cases/replay/corners.yaml has the end-to-end cases)."""

from __future__ import annotations

from auditor.aggregate.pipeline import evaluate_call, prepare
from auditor.models import JSON, Call, Location, OldRuntime, Outcome, ToolSchema
from auditor.replay.causes import CauseFinder
from auditor.schema.normalize import DEFAULT_RULES, normalize


def _causes(schema: JSON, arguments: JSON, runtime: OldRuntime = OldRuntime.LENIENT) -> list[str]:
    tool = ToolSchema("t", schema, Location("t.json"), "", "mapping")
    replays = prepare([tool], DEFAULT_RULES, old_runtime=runtime)
    result = evaluate_call(replays, Call("x:1", "t", arguments))[0]
    assert result.outcome is Outcome.NEWLY_REJECTED
    return sorted({r.pointer for e in result.errors for r in e.causes})


def test_a_reference_cycle_inside_contains_ends() -> None:
    schema: JSON = {
        "type": "array",
        "contains": {"$ref": "#/$defs/a"},
        "$defs": {
            "a": {"type": "string", "min_length": 2, "properties": {"p": {"$ref": "#/$defs/b"}}},
            "b": {"properties": {"q": {"$ref": "#/$defs/a"}}},
        },
    }
    assert _causes(schema, ["x"]) == ["/$defs/a/min_length"]


def test_unreferenced_defs_inside_contains_are_no_cause() -> None:
    schema: JSON = {
        "type": "array",
        "contains": {
            "type": "string",
            "max_length": 1,
            "$defs": {"unused": {"min_length": 5}},
        },
    }
    assert _causes(schema, ["ab"]) == ["/contains/max_length"]


def test_a_property_named_then_is_no_branch() -> None:
    # Nothing was validated before: `then` 5 is newly rejected, by a keyword no rewrite
    # touched; the rewrite beside it is in a property named `if`, which decides nothing.
    names: JSON = {
        "type": "object",
        "properties": {"if": {"max_length": 3}, "then": {"type": "string"}},
    }
    assert _causes(names, {"then": 5}, OldRuntime.NONE) == []
    # The same shape as keywords: the rewrite in `if` sends "abcd" to the else branch.
    keywords: JSON = {"if": {"max_length": 3}, "else": {"type": "integer"}}
    assert _causes(keywords, "abcd") == ["/if/max_length"]


def test_ids_resolve_against_their_parent_resource() -> None:
    schema: JSON = {
        "$id": "http://example.com/root.json",
        "$defs": {
            "A": {
                "$id": "folder/",
                "$defs": {"B": {"$id": "b.json", "$defs": {"C": {"$anchor": "c"}}}},
            },
            "C": {"$anchor": "c"},
        },
    }
    finder = _finder(schema)
    b = "/$defs/A/$defs/B"
    assert _at(finder, "http://example.com/folder/b.json", "") == b
    assert _at(finder, "folder/b.json", "http://example.com/root.json") == b
    assert _at(finder, "b.json", "http://example.com/folder/") == b
    # Anchors are per resource: `c` in b.json is not the root's `c`.
    assert _at(finder, "#c", "http://example.com/folder/b.json") == b + "/$defs/C"
    assert _at(finder, "#c", "http://example.com/root.json") == "/$defs/C"
    # Another document is never fetched: unresolvable here.
    assert _at(finder, "http://example.org/b.json", "") is None
    assert _at(finder, "b.json", "http://example.com/root.json") is None


def _finder(schema: JSON) -> CauseFinder:
    normalized = normalize(schema)
    return CauseFinder(normalized.schema, normalized.rewrites, normalized.draft)


def _at(finder: CauseFinder, ref: str, base: str) -> str | None:
    resolved = finder._resolve(ref, base)
    return None if resolved is None else resolved[1]
