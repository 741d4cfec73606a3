"""The lenient reading resolves every ``$ref`` the new side resolves: no false alarm when
nothing changed.

Each tool below is audited against itself (no rule family selected: the new schema is the old
one). Under ``--old-runtime lenient`` the old runtime enforced what it could evaluate; a
reference the new side resolves, it could evaluate too. So every call gets the outcome the
schema itself gives it, before and after: accepted or still rejected, never newly rejected.
Before this, the reading called every ``$ref`` not starting with ``#`` remote and dropped it,
and the calls it then let through came out newly rejected, "caused by no rewrite found".
"""

from __future__ import annotations

from typing import Any

import pytest

from auditor.aggregate.pipeline import evaluate_call, prepare
from auditor.models import JSON, Call, Location, OldRuntime, Outcome, ToolSchema
from auditor.replay.tool import summarize
from auditor.schema.lenient import DANGLING_REF, REMOTE_REF
from auditor.schema.normalize import normalize
from tests.conftest import cpu_seconds, seconds

URN = "urn:uuid:deadbeef-1234-00ff-ff00-4321feebdaed"
TOOLS: dict[str, Any] = {
    # A reference to the document's own $id, spelled in full.
    "own_urn": {
        "$id": URN,
        "type": "object",
        "properties": {"size": {"$ref": f"{URN}#/$defs/size"}},
        "$defs": {"size": {"type": "integer", "minimum": 1}},
    },
    # An http base: "search.json#..." is relative to it, so it names this very document.
    "relative_to_base": {
        "$id": "https://tools.example.com/schemas/search.json",
        "properties": {"q": {"$ref": "search.json#/$defs/query"}},
        "$defs": {"query": {"type": "string", "maxLength": 5}},
    },
    # An $anchor and a $dynamicAnchor, reached through the document's own absolute URI.
    "anchor": {
        "$id": "urn:example:counter",
        "properties": {"n": {"$ref": "urn:example:counter#count"}},
        "$defs": {"c": {"$anchor": "count", "type": "integer"}},
    },
    "dynamic_anchor": {
        "$id": "https://tools.example.com/tree",
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": {
            "children": {"type": "array", "items": {"$ref": "https://tools.example.com/tree#node"}}
        },
    },
    # The bundled meta-schemas: every validator has them, none is fetched.
    "meta_2020": {
        "properties": {"schema": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}
    },
    "meta_draft7": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"schema": {"$ref": "http://json-schema.org/draft-07/schema#"}},
    },
    # A nested resource: "item.json" is relative to the root's base.
    "nested_id": {
        "$id": "https://tools.example.com/root.json",
        "properties": {"a": {"$ref": "item.json"}},
        "$defs": {"item": {"$id": "item.json", "type": "string"}},
    },
    # What the new side cannot resolve either: another document, and a place that is not there.
    "remote": {"properties": {"r": {"$ref": "https://tools.example.com/other.json"}}},
    "dangling": {"properties": {"d": {"$ref": "#/$defs/missing"}}},
    # Not even a URI (an unclosed IPv6 host): looking it up raises, on the new side too.
    "malformed": {"properties": {"u": {"$ref": "http://[::1/s.json"}}},
}
CALLS: list[tuple[str, JSON, Outcome]] = [
    # (tool, arguments, outcome): what the schema says of them, the same before and after.
    ("own_urn", {"size": 0}, Outcome.STILL_REJECTED),  # below the minimum the $ref leads to
    ("own_urn", {"size": 3}, Outcome.ACCEPTED),
    ("relative_to_base", {"q": "toolong"}, Outcome.STILL_REJECTED),  # 7 characters > 5
    ("relative_to_base", {"q": "short"}, Outcome.ACCEPTED),
    ("anchor", {"n": "x"}, Outcome.STILL_REJECTED),  # the anchored schema asks for an integer
    ("anchor", {"n": 2}, Outcome.ACCEPTED),
    ("dynamic_anchor", {"children": [{"children": 5}]}, Outcome.STILL_REJECTED),  # 5: no array
    ("dynamic_anchor", {"children": [{"children": []}]}, Outcome.ACCEPTED),
    ("meta_2020", {"schema": {"type": 5}}, Outcome.STILL_REJECTED),  # 5 is no type name
    ("meta_2020", {"schema": {"type": "string"}}, Outcome.ACCEPTED),
    ("meta_draft7", {"schema": {"minLength": -1}}, Outcome.STILL_REJECTED),  # negative length
    ("meta_draft7", {"schema": {"minLength": 1}}, Outcome.ACCEPTED),
    ("nested_id", {"a": 1}, Outcome.STILL_REJECTED),
    ("nested_id", {"a": "x"}, Outcome.ACCEPTED),
    # Reaching what cannot be resolved makes the new schema unusable for the call, on every
    # model; not reaching it, the rest applies.
    ("remote", {"r": 1}, Outcome.SCHEMA_ERROR_AFTER),
    ("remote", {}, Outcome.ACCEPTED),
    ("dangling", {"d": 1}, Outcome.SCHEMA_ERROR_AFTER),
    ("dangling", {}, Outcome.ACCEPTED),
    ("malformed", {"u": 1}, Outcome.SCHEMA_ERROR_AFTER),
]
READINGS = {
    "remote": [("/properties/r/$ref", REMOTE_REF)],
    "dangling": [("/properties/d/$ref", DANGLING_REF)],
    "malformed": [("/properties/u/$ref", REMOTE_REF)],
}
"""The only places the lenient reading sets aside: references the new side cannot resolve."""


def _replays(runtime: OldRuntime) -> Any:
    tools = [ToolSchema(n, s, Location("tools.json"), "", "mapping") for n, s in TOOLS.items()]
    return prepare(tools, frozenset(), old_runtime=runtime)


@pytest.mark.parametrize("runtime", [OldRuntime.LENIENT, OldRuntime.STANDARD])
@pytest.mark.parametrize(("tool", "arguments", "outcome"), CALLS)
def test_an_unchanged_schema_gives_each_call_its_own_verdict_before_and_after(
    runtime: OldRuntime, tool: str, arguments: JSON, outcome: Outcome
) -> None:
    result = evaluate_call(_replays(runtime), Call("calls.jsonl:1", tool, arguments))[0]
    assert result.outcome is outcome
    if outcome is Outcome.SCHEMA_ERROR_AFTER:
        assert result.schema_problem is not None and "$ref" in result.schema_problem


def test_the_lenient_reading_sets_aside_only_what_the_new_side_cannot_resolve() -> None:
    replays = _replays(OldRuntime.LENIENT)
    for name in TOOLS:
        replay = replays[name]
        assert [(r.pointer, r.reason) for r in replay.readings] == READINGS.get(name, []), name
        # Both verdicts come from one validator: they cannot differ.
        assert replay.old is replay.new, name


def test_looking_references_up_takes_time_in_proportion_to_the_schema() -> None:
    # 5,000 anchors, 5,000 references to them, 5,000 to anchors no schema defines and 5,000
    # to other documents. A lookup that finds nothing in an uncrawled registry crawls the
    # whole schema again: that took more than 10 minutes; crawled once, a fraction of a second.
    n = 5_000
    schema: JSON = {
        "$defs": {f"d{i}": {"$anchor": f"a{i}", "type": "string"} for i in range(n)},
        "properties": {
            **{f"k{i}": {"$ref": f"#a{i}"} for i in range(n)},
            **{f"m{i}": {"$ref": f"#missing{i}"} for i in range(n)},
            **{f"r{i}": {"$ref": f"https://tools.example.com/{i}.json"} for i in range(n)},
        },
    }
    tool = ToolSchema("t", schema, Location("t.json"), "", "mapping")
    unchanged = normalize(schema, frozenset())
    started = cpu_seconds()
    readings = summarize(tool, unchanged, OldRuntime.LENIENT).readings
    assert cpu_seconds() - started < seconds(5)
    reasons = [r.reason for r in readings]
    assert reasons.count(DANGLING_REF) == n and reasons.count(REMOTE_REF) == n
    assert len(readings) == 2 * n  # the 5,000 that resolve are kept
