"""Distinct-first counting: a repeat of an accepted payload is counted, never replayed, and
the tally is the one a call-by-call pass gives."""

from __future__ import annotations

import pytest

from auditor.aggregate import pipeline
from auditor.aggregate.pipeline import ReportSettings, Tally, build_report, count_calls, prepare
from auditor.aggregate.repeats import ONCE_PER_PAYLOAD, AcceptedRepeats
from auditor.models import (
    JSON,
    Call,
    CallResult,
    Evidence,
    Location,
    Outcome,
    ToolSchema,
    Unparsed,
)
from auditor.replay.tool import Detailed
from auditor.report import Format, render
from auditor.schema.normalize import DEFAULT_RULES
from tests.replaying import CallList

# The lenient old runtime reads "Integer" as enforcing nothing; the normalized new schema
# asks for an integer: {"n": "x"} is newly rejected, {"n": 1} accepted by both.
_SCHEMA: JSON = {"type": "object", "properties": {"n": {"type": "Integer"}}}
_TOOL = ToolSchema("count", _SCHEMA, Location("tools.json", 1, 1), "", "mapping")


def _call(line: int, text: str, tool: str | None = "count", **kw: object) -> Call:
    import orjson

    return Call(f"log:{line}", tool, orjson.loads(text), text=text, **kw)  # type: ignore[arg-type]


def _stream() -> list[Call]:
    calls = []
    for line in range(1, 41):
        if line % 5 == 0:
            calls.append(_call(line, '{"n": "x"}'))  # newly rejected, 8 times
        elif line % 7 == 0:
            calls.append(_call(line, '{"n": 1}', evidence=Evidence.RAN))  # 4 times
        elif line % 11 == 0:
            calls.append(_call(line, '{"n": 2}', tool="nobody"))  # unknown tool, 3 times
        else:
            calls.append(_call(line, '{"n": 1}' if line % 2 else '{"n":  1}'))
    calls.append(Call("log:41", "count", None, Unparsed("{", "bad")))
    calls.append(Call("log:42", "count", {"n": 3}))  # arguments logged as an object
    calls.append(Call("log:43", "count", {"n": 3}))
    return calls


def _one_by_one(calls: list[Call], settings: ReportSettings) -> tuple[Tally, pipeline.Replays]:
    replays = prepare([_TOOL], DEFAULT_RULES)
    tally = Tally(replays, settings)
    for call in calls:
        tally.add(*pipeline.evaluate_call(replays, call))
    return tally, replays


def test_repeats_are_counted_not_replayed_and_the_report_is_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = ReportSettings()
    expected_tally, expected_replays = _one_by_one(_stream(), settings)
    expected = render(
        build_report(expected_replays, expected_tally, (), [], [], settings), Format.JSON
    )

    replayed: list[str] = []
    real = pipeline.evaluate_call

    def counting(
        replays: pipeline.Replays, call: Call, detailed: Detailed | None = None
    ) -> tuple[CallResult, frozenset[int]]:
        replayed.append(call.source)
        return real(replays, call, detailed)

    monkeypatch.setattr(pipeline, "evaluate_call", counting)
    replays = prepare([_TOOL], DEFAULT_RULES)
    tally = count_calls(replays, CallList(_stream()), settings)
    assert render(build_report(replays, tally, (), [], [], settings), Format.JSON) == expected

    # Accepted payloads, each replayed twice (the first replay leaves a hash, the second
    # remembers the payload): '{"n": 1}' (lines 1, 3), '{"n":  1}' (another text: 2, 4), '{"n": 1}'
    # with evidence (7, 14), the object {"n": 3} (42, 43). Every newly rejected call (8),
    # unknown-tool call (3) and the unparsed one go through one by one.
    accepted_first = ["log:1", "log:3", "log:2", "log:4", "log:7", "log:14", "log:42", "log:43"]
    rejected = [f"log:{n}" for n in range(5, 41, 5)]
    unknown = ["log:11", "log:22", "log:33"]
    assert sorted(replayed) == sorted([*accepted_first, *rejected, *unknown, "log:41"])
    assert tally.totals[Outcome.NEWLY_REJECTED] == 8
    assert tally.totals[Outcome.UNKNOWN_TOOL] == 3
    assert tally.totals[Outcome.UNPARSEABLE] == 1
    assert tally.totals[Outcome.ACCEPTED] == 43 - 8 - 3 - 1
    assert tally.counts["count"][Outcome.ACCEPTED] == 31
    assert [c.call.source for c in tally.kept] == sorted([*rejected, *unknown, "log:41"], key=_line)
    # Samples are the first distinct accepted texts, in log order.
    assert list(tally.samples["count"]) == ['{"n": 1}', '{"n":  1}', '{"n":3}']


def _line(source: str) -> int:
    return int(source.split(":")[1])


def test_a_bound_settles_the_weights_and_counts_stay_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two payloads at most: the third settles the first two, then they are replayed again.
    monkeypatch.setattr(pipeline, "AcceptedRepeats", lambda: AcceptedRepeats(payloads=2))
    calls = [_call(i, f'{{"n": {i % 3}}}') for i in range(1, 31)]
    tally = count_calls(prepare([_TOOL], DEFAULT_RULES), CallList(calls), ReportSettings())
    assert tally.totals[Outcome.ACCEPTED] == 30
    assert tally.counts["count"][Outcome.ACCEPTED] == 30


def test_weight_counts_an_accepted_result_as_many_calls_and_refuses_others() -> None:
    settings = ReportSettings()
    call = Call("log:1", "count", {"n": 1}, text='{"n": 1}')
    accepted = CallResult(call, Outcome.ACCEPTED, contradicts=True)
    tally = Tally(prepare([_TOOL], DEFAULT_RULES), settings)
    tally.add(accepted, frozenset({0, 2}))
    tally.add(accepted, frozenset({0, 2}), weight=4)
    assert tally.totals[Outcome.ACCEPTED] == 5
    assert tally.counts["count"][Outcome.ACCEPTED] == 5
    assert tally.contradictions["count"] == 5
    assert tally.reached["count"] == {0: 5, 2: 5}
    assert list(tally.samples["count"]) == ['{"n": 1}']  # kept once
    rejected = CallResult(call, Outcome.NEWLY_REJECTED)
    with pytest.raises(ValueError, match="newly_rejected call is counted one at a time"):
        tally.add(rejected, frozenset(), weight=2)
    assert tally.totals[Outcome.NEWLY_REJECTED] == 0
    tally.add(rejected, frozenset())
    assert tally.totals[Outcome.NEWLY_REJECTED] == 1


def test_payload_keeps_apart_what_can_change_an_outcome() -> None:
    text = '{"n": 1}'
    plain = AcceptedRepeats.payload(Call("a:1", "count", {"n": 1}, text=text))
    ran = AcceptedRepeats.payload(Call("a:2", "count", {"n": 1}, text=text, evidence=Evidence.RAN))
    other_tool = AcceptedRepeats.payload(Call("a:3", "other", {"n": 1}, text=text))
    assert plain == ("count", text, None)
    assert len({plain, ran, other_tool}) == 3
    # Replayed every time: no tool, arguments that did not parse, a text too long to keep.
    assert AcceptedRepeats.payload(Call("a:4", None, {"n": 1}, text=text)) is None
    assert AcceptedRepeats.payload(Call("a:5", "count", None, Unparsed("{", "bad"))) is None
    long = '{"s": "' + "x" * (256 << 10) + '"}'
    assert AcceptedRepeats.payload(Call("a:6", "count", {"s": ""}, text=long)) is None
    # Arguments logged as an object are keyed by their compact text.
    assert AcceptedRepeats.payload(Call("a:7", "count", {"n": 1})) == ("count", '{"n":1}', None)


def test_only_accepted_payloads_are_remembered() -> None:
    repeats = AcceptedRepeats(payloads=10, chars=12)
    call = Call("a:1", "count", {"n": 1}, text='{"n": 1}')
    payload = ("count", '{"n": 1}', None)
    assert not repeats.remember(payload, CallResult(call, Outcome.NEWLY_REJECTED), frozenset())
    assert not repeats.repeat(payload)
    assert not repeats.remember(payload, CallResult(call, Outcome.ACCEPTED), frozenset({1}))
    assert not repeats.repeat(payload)  # replayed once: only its hash is kept
    assert not repeats.remember(payload, CallResult(call, Outcome.ACCEPTED), frozenset({1}))
    assert repeats.repeat(payload) and repeats.repeat(payload)
    # 8 + 8 characters of text pass the bound of 12: settle now.
    other = ("count", '{"n": 2}', None)
    assert not repeats.remember(other, CallResult(call, Outcome.ACCEPTED), frozenset())
    assert repeats.remember(other, CallResult(call, Outcome.ACCEPTED), frozenset())
    settled = list(repeats.settle())
    assert [(r.call.text, r.outcome, reached, n) for r, reached, n in settled] == [
        ('{"n": 1}', Outcome.ACCEPTED, frozenset({1}), 2)
    ]
    assert not repeats.repeat(payload)  # forgotten once settled


def test_hashes_of_payloads_seen_once_are_bounded() -> None:
    repeats = AcceptedRepeats(payloads=1)  # room for ONCE_PER_PAYLOAD hashes
    call = Call("a:1", "count", {"n": 1}, text='{"n": 1}')
    accepted = CallResult(call, Outcome.ACCEPTED)
    first = ("count", "0", None)
    repeats.remember(first, accepted, frozenset())
    for n in range(1, ONCE_PER_PAYLOAD + 1):  # the last one clears the hashes, first's too
        repeats.remember(("count", str(n), None), accepted, frozenset())
    assert not repeats.remember(first, accepted, frozenset())  # seen "once" again
    assert not repeats.repeat(first)
    assert repeats.remember(first, accepted, frozenset())  # remembered: the bound of 1
    assert repeats.repeat(first)
