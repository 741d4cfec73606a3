"""What the coverage tracker and the verdict memo remember (memory, issue 26): one set per
distinct answer, and what a cache let go is worked out again the same."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from auditor.aggregate import pipeline
from auditor.aggregate.pipeline import prepare
from auditor.models import JSON, Call, Location, Outcome, ToolSchema
from auditor.replay.coverage import CoverageTracker
from auditor.replay.tool import ToolReplay
from auditor.schema.normalize import DEFAULT_RULES

SCHEMA: JSON = {
    "type": "object",
    "properties": {
        # A zone whose values do not repeat: free text below `anyOf: [T, null]`.
        "note": {"anyOf": [{"type": "string", "maxLength": 40}, {"type": "null"}]},
        # A zone of two values with two answers: "b" reaches the second branch, "a" does not.
        "mode": {"anyOf": [{"const": "a"}, {"const": "b", "maxLength": 3}]},
    },
}


def _tracker() -> CoverageTracker:
    tool = ToolSchema("t", SCHEMA, Location("x"), "", "mapping")
    tracker = prepare([tool], DEFAULT_RULES)["t"].coverage
    assert tracker is not None and tracker.tracks
    return tracker


def test_equal_answers_are_one_set_and_each_is_the_full_evaluations() -> None:
    tracker = _tracker()
    notes: list[JSON] = [{"note": f"free text {number}"} for number in range(50)]
    answers = [tracker.reached(instance) for instance in notes]
    # Every note is evaluated as a whole would: the shared set is the right answer.
    for instance, answer in zip(notes, answers, strict=True):
        assert answer == tracker.reached(instance, by_shape=False), instance
    assert len(set(answers)) == 1
    # Answered again from what was remembered: the same object for every note, not 50 copies.
    again = [tracker.reached(instance) for instance in notes]
    assert again == answers
    assert len({id(answer) for answer in again}) == 1


def test_different_answers_stay_apart() -> None:
    tracker = _tracker()
    a: JSON = {"mode": "a"}
    b: JSON = {"mode": "b"}
    for _ in range(3):  # first evaluated, then remembered
        reached_a, reached_b = tracker.reached(a), tracker.reached(b)
        assert reached_a == tracker.reached(a, by_shape=False)
        assert reached_b == tracker.reached(b, by_shape=False)
        # "b" runs the second branch's `const` and `maxLength` too: a strictly larger set.
        assert reached_a < reached_b
    # A null note and a text note reach different branches' keywords: not merged either.
    null, text = tracker.reached({"note": None}), tracker.reached({"note": "x"})
    assert null != text
    assert null == tracker.reached({"note": None}, by_shape=False)


def test_a_verdict_the_memo_let_go_is_replayed_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    # The verdict memo holds 2 entries: replaying 6 distinct calls twice evicts each before
    # its repeat, which is replayed again and must give what the first replay gave (and what
    # a memo that kept everything gives).
    texts = ['{"mode": "a"}', '{"mode": "c"}', '{"note": 3}', '{"note": null}', "{}", '{"x": 1}']
    calls = [
        Call(f"log:{n}", "t", text=text, arguments=orjson.loads(text))
        for n, text in enumerate(texts)
    ]

    replayed = [0]
    verdicts = ToolReplay._verdicts

    def counted(self: ToolReplay, *args: Any, **kwargs: Any) -> Any:
        replayed[0] += 1
        return verdicts(self, *args, **kwargs)

    monkeypatch.setattr(ToolReplay, "_verdicts", counted)

    def results(entries: int) -> list[tuple[Any, ...]]:
        monkeypatch.setattr(pipeline, "MEMO_ENTRIES", entries)
        tool = ToolSchema("t", SCHEMA, Location("x"), "", "mapping")
        replay = pipeline.prepare([tool], DEFAULT_RULES)["t"]
        found = []
        for call in [*calls, *calls]:
            result, reached = replay.evaluate(call)
            found.append((result.outcome, result.errors, reached))
        return found

    small = results(2)
    assert replayed[0] == 2 * len(calls)  # every repeat was let go and replayed
    large = results(1000)
    assert replayed[0] == 3 * len(calls)  # here every repeat was remembered
    assert small == large
    assert small[: len(calls)] == small[len(calls) :]
    # Both outcomes are met: "c" and 3 fail an `anyOf` (on both sides: no dialect here).
    outcomes = {outcome for outcome, _, _ in small}
    assert Outcome.ACCEPTED in outcomes and len(outcomes) == 2
