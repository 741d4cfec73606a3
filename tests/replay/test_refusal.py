"""A new schema the upgraded code refuses (``Normalized.refusal``): no call is evaluated
against it, every call is ``schema_error_after`` with the refusal's reason, whatever the old
runtime; the same schema without a refusal is evaluated as written."""

from __future__ import annotations

import dataclasses

import pytest

from auditor.models import JSON, Call, Location, OldRuntime, Outcome, ToolSchema
from auditor.replay.tool import ToolReplay, new_schema_problem, summarize
from auditor.schema.normalize import normalize

TOOL = ToolSchema(
    "search",
    {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    Location("tools.json"),
    "",
    "mapping",
)
REASON = "google-genai refuses the schema: Extra inputs are not permitted ($schema)"


@pytest.mark.parametrize("runtime", list(OldRuntime))
def test_a_refused_schema_makes_every_call_a_schema_error_after(runtime: OldRuntime) -> None:
    normalized = dataclasses.replace(normalize(TOOL.schema), refusal=REASON)
    replay = ToolReplay(TOOL, normalized, old_runtime=runtime)
    # {"q": "x"} satisfies the schema and {} misses the required q: neither gets a verdict.
    tried: tuple[JSON, ...] = ({"q": "x"}, {})
    for arguments in tried:
        result = replay.replay(Call("calls.jsonl:1", "search", arguments))
        assert result.outcome is Outcome.SCHEMA_ERROR_AFTER
        assert result.schema_problem == REASON
    assert summarize(TOOL, normalized, runtime).new_problem == REASON


@pytest.mark.parametrize("runtime", list(OldRuntime))
def test_the_same_schema_without_a_refusal_is_evaluated(runtime: OldRuntime) -> None:
    normalized = normalize(TOOL.schema)
    assert new_schema_problem(normalized) is None
    replay = ToolReplay(TOOL, normalized, old_runtime=runtime)
    accepted = replay.replay(Call("calls.jsonl:1", "search", {"q": "x"}))
    rejected = replay.replay(Call("calls.jsonl:2", "search", {}))
    assert accepted.outcome is Outcome.ACCEPTED
    # The lenient and standard runtimes enforced `required` before; `none` enforced nothing.
    expected = Outcome.NEWLY_REJECTED if runtime is OldRuntime.NONE else Outcome.STILL_REJECTED
    assert rejected.outcome is expected
    assert summarize(TOOL, normalized, runtime).new_problem is None
