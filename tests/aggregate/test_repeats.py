"""Distinct-first counting: a repeat of an accepted payload is counted, never replayed, and
the tally is the one a call-by-call pass gives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from auditor.aggregate import pipeline
from auditor.aggregate.pipeline import (
    CallList,
    ReportSettings,
    Tally,
    build_report,
    count_calls,
    prepare,
)
from auditor.aggregate.repeats import ONCE_PER_PAYLOAD, AcceptedRepeats
from auditor.inputs import reader as reader_module
from auditor.inputs.log_format_names import LogFormat
from auditor.inputs.log_formats import extract, jsonl_call
from auditor.inputs.reader import LogReader
from auditor.models import (
    JSON,
    Call,
    CallResult,
    Evidence,
    GroupBy,
    Location,
    Outcome,
    Payload,
    ToolSchema,
    Unparsed,
)
from auditor.replay.tool import Detailed
from auditor.report import Format, render
from auditor.schema.normalize import DEFAULT_RULES

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
    return int(source.rsplit(":", 1)[1])


def test_a_bound_settles_the_weights_and_counts_stay_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two payloads at most: the third settles the first two, then they are replayed again.
    monkeypatch.setattr(
        pipeline, "AcceptedRepeats", lambda **given: AcceptedRepeats(payloads=2, **given)
    )
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


def test_an_accepted_payload_over_budget_is_never_counted_as_a_plain_repeat() -> None:
    """Its repeats would be counted within the budget (``settle`` knows no budget): each
    call goes through instead, and counts as over budget as a call-by-call pass counts it."""
    repeats = AcceptedRepeats()
    call = Call("a:1", "count", {"n": 1}, text='{"n": 1}')
    payload = ("count", '{"n": 1}', None)
    slow = CallResult(call, Outcome.ACCEPTED, over_budget=True)
    for _ in range(3):
        assert not repeats.remember(payload, slow, frozenset())
        assert not repeats.repeat(payload)
    # The same payload within the budget is remembered from its second replay, as any.
    for _ in range(2):
        assert not repeats.repeat(payload)
        repeats.remember(payload, CallResult(call, Outcome.ACCEPTED), frozenset())
    assert repeats.repeat(payload)


def test_only_the_repeats_a_reader_counts_aside_are_hits() -> None:
    """The progress line adds ``hits`` to the calls passed on: a repeat found by counting a
    call the reader passed on must not be counted twice."""
    repeats = AcceptedRepeats()
    call = Call("a:1", "count", {"n": 1}, text='{"n": 1}')
    payload = ("count", '{"n": 1}', None)
    for _ in range(2):
        repeats.remember(payload, CallResult(call, Outcome.ACCEPTED), frozenset())
    assert repeats.repeat(payload) and repeats.hits == 0
    assert repeats.repeat_aside(payload) and repeats.hits == 1
    assert not repeats.repeat_aside(("count", "{}", None)) and repeats.hits == 1


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


# --- the reader's short way: a known accepted payload never becomes a Call ------------------

_LOG_LINES = [
    '{"id": "c1", "tool": "count", "arguments": "{\\"n\\": 1}", "caller": "ann"}',
    '{"id": "c2", "tool": "count", "arguments": "{\\"n\\": \\"x\\"}"}',  # newly rejected
    '{"id": "c3", "tool": "count", "arguments": "{\\"n\\": 1}", "caller": "bob"}',
    "",
    '{"id": "c4", "tool": "count", "arguments": "{\\"n\\": 1}"}',
    '{"id": "c5", "tool": "count", "arguments": {"n": 1}}',  # an object: the long way
    '{"id": "c6", "tool": "count", "arguments": "{\\"n\\": 1}"}',
    '{"id": "c7", "tool": "", "name": "count", "arguments": "{\\"n\\": 1}"}',  # names no tool
    '{"id": "c8", "tool": "count", "arguments": "{\\"n\\": \\"x\\"}", "caller": "bob"}',
    '{"id": "c9", "tool": "count", "arguments": "{bad"}',  # not JSON: unparseable
    "[1, 2",  # a broken line
    '{"id": "c10", "name": "count", "args": "{\\"n\\": 1}"}',  # another field, the same payload
    '{"id": "c11", "tool": "count"}',  # no arguments
]


def _log(tmp_path: Path) -> str:
    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join(_LOG_LINES) + "\n")
    return str(path)


def test_the_reader_counts_known_payloads_and_reads_the_rest_the_long_way(
    tmp_path: Path,
) -> None:
    log = _log(tmp_path)
    asked: list[Payload] = []

    def known(payload: Payload) -> bool:
        asked.append(payload)
        return payload == ("count", '{"n": 1}', None)

    short = LogReader([log], known=known)
    calls = list(short)
    long = LogReader([log])
    every = list(long)
    # Asked for each call with a tool and arguments text; the others (an object, an empty
    # tool name, no arguments, a broken line) go the long way without asking.
    assert asked == [
        ("count", '{"n": 1}', None),
        ("count", '{"n": "x"}', None),
        ("count", '{"n": 1}', None),
        ("count", '{"n": 1}', None),
        ("count", '{"n": 1}', None),
        ("count", '{"n": "x"}', None),
        ("count", "{bad", None),
        ("count", '{"n": 1}', None),
    ]
    known_lines = {1, 3, 5, 7, 12}
    assert [_line(c.source) for c in every] == [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    assert calls == [c for c in every if _line(c.source) not in known_lines]
    # The same accounting either way: a counted call is a call read.
    assert short.stats() == long.stats()
    assert short.stats()[0].calls == 12 and short.stats()[0].blank == 1


def test_a_call_read_the_short_way_is_the_call_the_long_way_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # jsonl_call finds what the format's extraction finds, caller and unparsed text included.
    log = _log(tmp_path)
    by_short = list(LogReader([log], known=lambda payload: False))
    monkeypatch.setattr(reader_module, "jsonl_call", lambda record: None)
    by_long = list(LogReader([log]))
    assert by_short == by_long
    assert [c.caller for c in by_short[:3]] == ["ann", None, "bob"]
    assert by_short[8].unparsed is not None  # "{bad"


@pytest.mark.parametrize(
    "record",
    [
        {"tool": "t", "arguments": "{}"},
        {"name": "t", "input": "[1]"},
        {"tool": 3, "name": "t", "args": "x"},  # the first string names the tool
        {"tool": "t", "arguments": None, "args": "{}"},  # the first field present decides
        {"tool": "t", "arguments": {"a": 1}},
        {"tool": "", "arguments": "{}"},
        {"tool": "t"},
        ["tool", "t"],
        {"arguments": "{}"},
    ],
)
def test_jsonl_call_agrees_with_the_format_s_extraction(record: JSON) -> None:
    found = extract(LogFormat.JSONL, record)
    assert len(found) == 1
    one = found[0]
    expected = (
        (one.tool, one.arguments)
        if one.problem is None and one.tool is not None and isinstance(one.arguments, str)
        else None
    )
    assert jsonl_call(record) == expected


def test_a_log_counted_by_its_reader_gives_the_report_of_one_call_at_a_time(
    tmp_path: Path,
) -> None:
    # Many repeats, some with callers, grouped by caller: the short way changes no report.
    path = tmp_path / "many.jsonl"
    rows = []
    for i in range(200):
        text = ['{"n": 1}', '{"n": "x"}', '{"n": 2}', '{"n":1}'][i % 4 if i % 9 else 1]
        caller = ["ann", "bob", None][i % 3]
        row: dict[str, JSON] = {"id": f"c{i}", "tool": "count", "arguments": text}
        if caller:
            row["caller"] = caller
        rows.append(orjson.dumps(row).decode())
    path.write_text("\n".join(rows) + "\n\n")
    settings = ReportSettings(group_by=GroupBy.CALLER, examples=3)

    expected_reader = LogReader([str(path)])
    expected_tally, expected_replays = _one_by_one(list(expected_reader), settings)
    expected = build_report(
        expected_replays, expected_tally, expected_reader.stats(), [], [], settings
    )

    replays = prepare([_TOOL], DEFAULT_RULES)
    repeats = AcceptedRepeats()
    reader = LogReader([str(path)], known=repeats.repeat_aside)
    yielded = []

    def calls() -> Iterator[Call]:
        for call in reader:
            yielded.append(call)
            yield call

    tally = count_calls(replays, calls(), settings, repeats)
    report = build_report(replays, tally, reader.stats(), [], [], settings)
    for fmt in (Format.JSON, Format.MARKDOWN):
        assert render(report, fmt) == render(expected, fmt)
    assert tally.totals[Outcome.ACCEPTED] == 200 - tally.totals[Outcome.NEWLY_REJECTED]
    # Each accepted text is read as a Call twice (a hash, then remembered); the newly rejected
    # every time; every other accepted call was only counted by the reader.
    rejected = tally.totals[Outcome.NEWLY_REJECTED]
    assert len(yielded) == rejected + 3 * 2
