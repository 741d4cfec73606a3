"""Distinct-first across the whole log (``auditor.engines.distinct``), without an engine: a
preload of payloads known accepted gives every part the tally it gives without one, samples
and counterexamples included, while their calls are not replayed.

``distinct_workload`` is also what the Spark and Ray tests audit with stage 1 on."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

import pytest

from auditor.aggregate import pipeline
from auditor.aggregate.pipeline import ReportSettings, Tally
from auditor.aggregate.repeats import AcceptedRepeats, Known, Payload
from auditor.engines import distinct
from auditor.engines.core import audit_part, combine, merge
from auditor.engines.plan import AuditPlan, make_plan
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.parts import LogPart
from auditor.models import Call, CallResult, Outcome
from auditor.replay.tool import Detailed
from auditor.request import AuditRequest, Inputs, Limits
from tests.engine_cases import SAMPLES, json_of, one_pass

LISTED = ReportSettings(examples=1, max_calls=7)

# "count": the lenient old runtime reads "Integer" as enforcing nothing, the normalized new
# schema asks for an integer: {"n": 1} is accepted by both, {"n": "x"} newly rejected.
# "label": {"k": "String"} likewise, but no call sends a non-string "k": that change is never
# failed, so the report searches a counterexample, edited from the tool's first samples.
CATALOG = {
    "tools": [
        {
            "name": "count",
            "inputSchema": {"type": "object", "properties": {"n": {"type": "Integer"}}},
        },
        {
            "name": "label",
            "inputSchema": {
                "type": "object",
                "properties": {"s": {"type": "string"}, "k": {"type": "String"}},
            },
        },
    ]
}
FIRST = '{"s": "a", "k": "b"}'
"""The log's first call: a label payload repeated all along, so preloaded."""


def _record(number: int) -> dict[str, object]:
    """Line ``number`` (from 1) of the workload: payloads repeated across the whole log."""
    if number == 1 or number % 3 == 0:
        return {"id": number, "tool": "label", "arguments": FIRST}
    if number % 7 == 0:
        return {"id": number, "tool": "count", "arguments": '{"n": "x"}'}  # newly rejected
    if number % 11 == 0:
        return {"id": number, "tool": "count", "arguments": {"n": 2}}  # logged as an object
    if number % 13 == 0:
        return {"id": number, "tool": "nobody", "arguments": "{}"}  # an unknown tool
    if number % 5 == 0:
        # Distinct labels: the first ones in log order are samples too.
        return {"id": number, "tool": "label", "arguments": f'{{"s": "{number}"}}'}
    return {"id": number, "tool": "count", "arguments": '{"n": 1}'}


def distinct_workload(folder: Path, lines: int = 600) -> AuditPlan:
    """A JSON Lines log of ``lines`` calls whose payloads repeat across its many parts (and a
    malformed line), and the same log gzipped (read whole: not counted by stage 1), planned
    with ``distinct_first``."""
    catalog = folder / "tools.json"
    catalog.write_text(json.dumps(CATALOG))
    text = "".join(json.dumps(_record(number)) + "\n" for number in range(1, lines + 1))
    text = text.replace('"id": 40,', '"id": 40 "broken",')  # a line that does not parse
    log, packed = folder / "calls.jsonl", folder / "again.jsonl.gz"
    log.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    tools = load_catalogs([str(catalog)]).tools
    return make_plan(
        tools,
        [str(log), str(packed)],
        ["tools.json"],
        settings=LISTED,
        min_part_bytes=2048,
        distinct_first=True,
    )


CANDIDATES = [
    ("label", FIRST),  # accepted, as logged: a hit
    ("count", '{"n": 1}'),  # accepted, as logged: a hit
    ("count", '{ "n": 2 }'),  # accepted, but auditor keys the object {"n": 2} '{"n":2}': a miss
    ("count", '{"n": "x"}'),  # newly rejected: never preloaded
    ("nobody", "{}"),  # an unknown tool: never preloaded
    ("count", "{"),  # does not decode: never preloaded
]


def _preload(plan: AuditPlan) -> dict[Payload, Known]:
    return distinct.replay_candidates(plan, CANDIDATES)


def _tally(plan: AuditPlan, preload: dict[Payload, Known] | None) -> Tally:
    partials = [audit_part(plan, part, preload=preload) for part in range(len(plan.parts))]
    [run] = functools.reduce(combine, partials).runs
    return run.tally


def test_only_accepted_candidates_are_preloaded(tmp_path: Path) -> None:
    preload = _preload(distinct_workload(tmp_path))
    assert set(preload) == {
        ("label", FIRST, None),
        ("count", '{"n": 1}', None),
        ("count", '{ "n": 2 }', None),
    }
    # Nothing is contradicted without logged evidence; each reached its tool's rewrite (0).
    contradicts, reached = preload[("count", '{"n": 1}', None)]
    assert not contradicts and 0 in reached


def test_a_preload_gives_the_report_without_one_and_its_calls_are_not_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = distinct_workload(tmp_path)
    assert len(plan.parts) >= 8
    preload = _preload(plan)
    expected = one_pass(plan)
    without = _tally(plan, None)
    assert json_of(merge(plan, [audit_part(plan, p) for p in range(len(plan.parts))])) == expected

    replayed: list[tuple[str | None, str | None]] = []
    real = pipeline.evaluate_call

    def counting(
        replays: pipeline.Replays, call: Call, detailed: Detailed | None = None
    ) -> tuple[CallResult, frozenset[int]]:
        replayed.append((call.tool, call.text))
        return real(replays, call, detailed)

    monkeypatch.setattr(pipeline, "evaluate_call", counting)
    partials = [audit_part(plan, part, preload=preload) for part in range(len(plan.parts))]
    assert json_of(merge(plan, partials)) == expected
    replayed_once = list(replayed)
    with_preload = _tally(plan, preload)
    assert with_preload.samples == without.samples
    assert with_preload.totals == without.totals

    # The preloaded payloads' calls of the JSON Lines log are never replayed; the object
    # {"n": 2} (its candidate's text differs: a miss), the rejected and unknown-tool calls
    # are, in every part that holds them.
    replayed = replayed_once
    assert ("label", FIRST) not in replayed and ("count", '{"n": 1}') not in replayed
    objects = [text for tool, text in replayed if tool == "count" and text is None]
    assert len(objects) >= 2 * 3  # twice per part (then remembered) in several parts
    assert replayed.count(("count", '{"n": "x"}')) == 2 * sum(
        1 for number in range(1, 601) if number % 7 == 0 and number % 3
    )  # both logs


def test_a_preloaded_first_call_is_still_the_first_sample_and_the_counterexample_source(
    tmp_path: Path,
) -> None:
    plan = distinct_workload(tmp_path)
    log = plan.files[0]
    preload = _preload(plan)
    tally = _tally(plan, preload)
    # Line 1 was never replayed (its payload is preloaded) yet it is the first sample, with
    # its own source, followed by the distinct labels of lines 5, 10, 20, ... in log order.
    labels = tally.samples["label"]
    assert list(labels)[:3] == [FIRST, '{"s": "5"}', '{"s": "10"}']
    assert labels[FIRST] == (f"{log}:1", {"s": "a", "k": "b"})
    partials = [audit_part(plan, part, preload=preload) for part in range(len(plan.parts))]
    report = json.loads(json_of(merge(plan, partials)))
    [example] = [c for c in report["counterexamples"] if c["tool"] == "label"]
    assert example["status"] == "found" and example["derived_from"].startswith(f"{log}:")


def test_without_offering_samples_a_preload_would_change_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check above can fail: a preloaded call that is only counted loses its sample.
    plan = distinct_workload(tmp_path)
    monkeypatch.setattr(Tally, "offer", lambda self, tool, call: None)
    labels = _tally(plan, _preload(plan)).samples.get("label", {})
    assert FIRST not in labels


def test_preloaded_counts_a_known_payload_and_refuses_others() -> None:
    known: dict[Payload, Known] = {("count", '{"n": 1}', None): (True, frozenset({0}))}
    repeats = AcceptedRepeats(preload=known)
    assert not repeats.preloaded(("count", '{"n":1}', None))  # another text
    assert not repeats.repeat(("count", '{"n": 1}', None))
    assert repeats.preloaded(("count", '{"n": 1}', None))
    assert repeats.repeat(("count", '{"n": 1}', None))  # then a repeat like any
    [(result, reached, calls)] = list(repeats.settle())
    assert (result.outcome, result.contradicts, reached, calls) == (
        Outcome.ACCEPTED,
        True,
        frozenset({0}),
        2,
    )


def test_eligible_files_are_the_json_lines_logs_cut_in_parts(tmp_path: Path) -> None:
    plan = distinct_workload(tmp_path)
    assert distinct.eligible_files(plan) == [plan.files[0]]  # not the gzip log, read whole
    assert any(isinstance(item, LogPart) for item in plan.parts)
    gateway = SAMPLES / "openai_gateway"
    tools = load_catalogs([str(gateway / "tools.json")]).tools
    logs = [str(gateway / "calls.jsonl")]
    other = make_plan(
        tools,
        logs,
        ["tools.json"],
        AuditRequest(Inputs(calls_from=CallsFrom.RESPONSES)),
        min_part_bytes=4096,
    )
    assert len(other.parts) >= 2 and distinct.eligible_files(other) == []  # OpenAI records


def test_take_keeps_the_first_pairs_within_both_bounds() -> None:
    pairs = [("a", "x" * 4), ("b", "y" * 4), ("c", "z" * 4)]
    assert distinct.take(pairs) == pairs
    assert distinct.take(pairs, most=2) == pairs[:2]
    assert distinct.take(pairs, chars=8) == pairs[:2]  # the third would hold 12 characters
    assert distinct.take(pairs, chars=3) == []


COUNTED = {
    # {"n": 1} on the lines none of 3, 5, 7, 11, 13 divides; FIRST on line 1 and every third;
    # {"n": "x"} every seventh, not third; the object {"n": 2} (keyed compact) every
    # eleventh, not third nor seventh; the unknown tool every thirteenth, not 3rd, 7th, 11th.
    ("count", '{"n": 1}'): 230,
    ("label", FIRST): 201,
    ("count", '{"n": "x"}'): 57,
    ("count", '{"n":2}'): 31,
    ("nobody", "{}"): 24,
}


def test_the_pairs_counted_in_buckets_are_the_log_s_most_called_first(tmp_path: Path) -> None:
    plan = distinct_workload(tmp_path)
    parts = distinct.countable_parts(plan)
    assert len(parts) >= 8 and all(isinstance(plan.parts[p], LogPart) for p in parts)
    counted = [distinct.count_pairs(plan, part, 3, 1.0) for part in parts]  # every line
    # A pair falls in the same bucket whatever part counts it: a shuffle's partition.
    for bucket in range(3):
        others = {pair for each in counted for b in (0, 1, 2) if b != bucket for pair in each[b]}
        assert not others & {pair for each in counted for pair in each[bucket]}
    tops = [distinct.most_called(*[each[bucket] for each in counted]) for bucket in range(3)]
    merged = distinct.most_called(*tops)
    assert merged == COUNTED and list(merged) == list(COUNTED)  # the distinct labels: once
    assert distinct.take(merged) == list(COUNTED)


def test_a_line_longer_than_a_record_is_skipped_not_held(tmp_path: Path) -> None:
    """Stage 1 reads lines as the reader does, bounded: an over-long line (here a call of a
    repeated payload padded past the limit) is not counted, the lines around it are."""
    call = json.dumps({"tool": "count", "arguments": '{"n": 1}'})
    long = json.dumps({"tool": "count", "arguments": '{"n": 1}', "pad": "x" * 4096})
    log = tmp_path / "calls.jsonl"
    log.write_text(f"{call}\n{long}\n\n\n{call}\n")
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(CATALOG))
    tools = load_catalogs([str(catalog)]).tools
    plan = make_plan(
        tools,
        [str(log)],
        ["tools.json"],
        AuditRequest(limits=Limits(max_record_bytes=1024)),
        min_part_bytes=1,
        workers=1,
    )
    parts = distinct.countable_parts(plan)
    assert parts, "the log is read in byte ranges"
    counted = distinct.most_called(*[distinct.count_pairs(plan, p, 1, 1.0)[0] for p in parts])
    assert counted == {("count", '{"n": 1}'): 2}


def test_a_sample_counts_every_tenth_line_of_each_part(tmp_path: Path) -> None:
    plan = distinct_workload(tmp_path)
    parts = distinct.countable_parts(plan)
    fraction = distinct.SAMPLE_FRACTION
    sampled = [sum(distinct.count_pairs(plan, part, 1, fraction)[0].values()) for part in parts]
    lines = [plan.parts[part] for part in parts]
    assert 0 < sum(sampled) <= 600 // 10
    for part, calls in zip(lines, sampled, strict=True):
        assert isinstance(part, LogPart)
        with open(part.file, "rb") as log:
            log.seek(part.start)
            held = log.read(part.end - part.start).count(b"\n")
        assert calls <= held // 10


def test_most_called_keeps_pairs_called_twice_and_at_most_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    once, twice, thrice = ("a", "1"), ("b", "2"), ("c", "3")
    assert distinct.most_called({once: 1, twice: 1}, {twice: 1, thrice: 3}) == {thrice: 3, twice: 2}
    monkeypatch.setattr(distinct, "MAX_CANDIDATES", 1)
    assert distinct.most_called({twice: 2, thrice: 3}) == {thrice: 3}


@pytest.mark.parametrize(
    ("line", "pair"),
    [
        (b'{"tool": "t", "arguments": "{\\"a\\": 1}"}', ("t", '{"a": 1}')),
        (b'{"tool": "t", "arguments": {"a": 1}}', ("t", '{"a":1}')),  # compact, as auditor keys it
        (b'{"tool": "t", "arguments": "' + b"x" * 1025 + b'"}', None),  # too long to preload
        (b'{"tool": 5, "arguments": "{}"}', None),  # no tool name
        (b'{"tool": "t"}', None),  # no arguments
        (b'{"tool": "t", "arguments": null}', None),  # no arguments either
        (b"[1]", None),
        (b"{", None),
    ],
)
def test_a_pair_is_read_as_auditor_keys_a_call(line: bytes, pair: tuple[str, str] | None) -> None:
    assert distinct.pair_of(line) == pair
