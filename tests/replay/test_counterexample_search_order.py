"""The counterexample search asks yes-or-no verdicts before the reference's errors, and
remembers a tool's verdicts across its changes: the same answers, fewer full evaluations."""

from __future__ import annotations

from typing import Any

import pytest

from auditor.models import JSON, CounterexampleStatus, Location, OldRuntime, ToolSchema
from auditor.replay import tool as tool_module
from auditor.replay.counterexamples import SearchBudget, bites, counterexample
from auditor.replay.tool import ToolReplay
from auditor.schema.normalize import DEFAULT_RULES, normalize

# `max_length` and `min_items` enforce nothing before the normalizer respells them; `type`
# is a real constraint on both sides.
SCHEMA: dict[str, JSON] = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "max_length": 3},
        "tags": {"type": "array", "min_items": 1},
    },
}


def _replay(schema: dict[str, JSON], old_runtime: OldRuntime = OldRuntime.LENIENT) -> ToolReplay:
    tool = ToolSchema("t", schema, Location("tools.json"), "", "mapping")
    return ToolReplay(tool, normalize(schema, DEFAULT_RULES), old_runtime=old_runtime)


def _counting(replay: ToolReplay, monkeypatch: pytest.MonkeyPatch) -> list[JSON]:
    """The arguments whose errors are asked for (``light_verdicts``: the fast validator's where
    they map exactly, else the reference's)."""
    asked: list[JSON] = []
    full = replay.light_verdicts

    def verdicts(arguments: JSON) -> Any:
        asked.append(arguments)
        return full(arguments)

    monkeypatch.setattr(replay, "light_verdicts", verdicts)
    return asked


def test_a_candidate_the_old_schema_rejects_never_reaches_the_reference_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    replay = _replay(SCHEMA)
    asked = _counting(replay, monkeypatch)
    max_length = next(r for r in replay.normalized.rewrites if r.new == "maxLength")
    # A number for q: the old schema's `type: string` refuses it already.
    assert not bites(replay, max_length, {"q": 5})
    assert asked == []
    # Four characters: accepted before (max_length enforced nothing), refused after, by it.
    assert bites(replay, max_length, {"q": "abcd"})
    assert asked == [{"q": "abcd"}]
    # Accepted on both sides: the fast validator says so, nothing else is asked.
    assert not bites(replay, max_length, {"q": "abc"})
    assert asked == [{"q": "abcd"}]


def test_a_candidate_another_change_rejects_does_not_bite() -> None:
    replay = _replay(SCHEMA)
    max_length = next(r for r in replay.normalized.rewrites if r.new == "maxLength")
    min_items = next(r for r in replay.normalized.rewrites if r.new == "minItems")
    # Accepted before, rejected after, but by minItems: no counterexample to maxLength.
    assert not bites(replay, max_length, {"tags": []})
    assert bites(replay, min_items, {"tags": []})


def test_with_no_old_runtime_everything_passed_before(monkeypatch: pytest.MonkeyPatch) -> None:
    replay = _replay(SCHEMA, OldRuntime.NONE)
    asked = _counting(replay, monkeypatch)
    max_length = next(r for r in replay.normalized.rewrites if r.new == "maxLength")
    assert not bites(replay, max_length, {"q": 5})  # rejected after by `type`, not the change
    assert asked == [{"q": 5}]  # nothing refused it before: the reference had to say why


def test_an_untrusted_new_schema_is_evaluated_whatever_the_old_side_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A reference to another document: the fast validator is not trusted with the new schema,
    # which raises when a call reaches the reference: counted as a schema error, not skipped.
    schema: dict[str, JSON] = {
        "type": "object",
        "properties": {"q": {"type": "string", "max_length": 3}, "r": {"$ref": "other.json"}},
    }
    replay = _replay(schema)
    asked = _counting(replay, monkeypatch)
    max_length = next(r for r in replay.normalized.rewrites if r.new == "maxLength")
    assert not bites(replay, max_length, {"q": 5, "r": 1})
    assert asked == [{"q": 5, "r": 1}]


def test_a_tools_verdicts_are_remembered_across_its_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    replay = _replay(SCHEMA)
    samples: list[tuple[str, JSON]] = [("calls.jsonl:1", {"q": "ab", "tags": ["x"]})]
    budget = SearchBudget()
    found = [counterexample(replay, i, samples, budget) for i in range(2)]
    assert [f.status for f in found] == [CounterexampleStatus.FOUND] * 2
    first_pass = budget.left
    asked = _counting(replay, monkeypatch)
    again = [counterexample(replay, i, samples, budget) for i in range(2)]
    assert again == found  # the same counterexamples, the same candidate counts
    assert asked == []  # every verdict was remembered
    assert budget.left == first_pass - sum(f.candidates for f in found)  # still spent
    # Another tool's replay starts afresh.
    other = _replay(SCHEMA)
    asked_other = _counting(other, monkeypatch)
    assert counterexample(other, 0, samples, budget) == found[0]
    assert asked_other != []


def test_the_search_lists_no_reference_errors_where_the_fast_errors_map_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # SCHEMA keeps to the vocabulary whose errors map exactly (fast_errors.keyable): the
    # candidates are judged by the fast validator's errors, and the counterexample is the same.
    listed: list[JSON] = []
    reference = tool_module._errors

    def errors(validator: Any, instance: JSON) -> Any:
        listed.append(instance)
        return reference(validator, instance)

    monkeypatch.setattr(tool_module, "_errors", errors)
    replay = _replay(SCHEMA)
    assert replay.fast_errors is not None
    max_length = next(r for r in replay.normalized.rewrites if r.new == "maxLength")
    found = counterexample(replay, replay.normalized.rewrites.index(max_length), [], SearchBudget())
    assert found.status is CounterexampleStatus.FOUND
    assert isinstance(found.arguments, dict) and len(str(found.arguments["q"])) > 3
    assert listed == []

    # propertyNames is left to python-jsonschema: the same search lists its errors there.
    unkeyed: dict[str, JSON] = {**SCHEMA, "propertyNames": {"maxLength": 10}}
    replay = _replay(unkeyed)
    assert replay.fast_errors is None
    max_length = next(r for r in replay.normalized.rewrites if r.new == "maxLength")
    found = counterexample(replay, replay.normalized.rewrites.index(max_length), [], SearchBudget())
    assert found.status is CounterexampleStatus.FOUND
    assert listed != []
