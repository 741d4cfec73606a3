"""Distinct-first across the whole log, for the cluster engines: the payloads repeated most
are replayed once, before the parts are audited, and no part replays them again.

Per part, distinct-first (``auditor.aggregate.repeats``) replays each payload once or twice
in every part that holds it: the smaller the parts, the more of a log's repeats it replays.
So an engine first counts the (tool, arguments text) pairs of a sample of the input's lines
(``SAMPLE_FRACTION``), on the logs it can read that way (``countable_parts``: byte ranges of
generic JSON Lines, one call per line under ``tool``/``arguments``): Spark with its own reader
and group-by (``on_spark``), Ray by a map/reduce of tasks on the pairs' digests
(``count_pairs``, ``most_called``). The most frequent pairs called at least twice are the
candidates (``take``, bounded). The workers replay each once (``replay_candidates``) and keep
the accepted ones (``Known``); every part is audited with them preloaded
(``audit_part(preload=...)``): their calls are only counted.

Exact by construction: a preloaded verdict is what replaying that very (tool, text) with no
logged evidence gives, and a call is counted with it only when auditor's own reading of the
call gives that payload. Where the engine reads a text otherwise than auditor (an object's
spacing or number form, a duplicate key), the call misses and is replayed, as without the
preload; the report is the same either way, byte for byte.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from typing import Final

import orjson

from auditor.aggregate.pipeline import evaluate_call
from auditor.aggregate.repeats import AcceptedRepeats, Known, Payload
from auditor.engines.core import replays_for
from auditor.engines.plan import AuditPlan
from auditor.inputs.arguments import call_from
from auditor.inputs.lines import Blank, bounded_lines
from auditor.inputs.log_format_names import LogFormat
from auditor.inputs.parts import LogPart, open_part
from auditor.models import Outcome
from auditor.replay.tool import text_of

MAX_CANDIDATES: Final = 20_000
"""Payloads preloaded at most: the most frequent. Below ``MAX_PAYLOADS``, so that a part still
has room to remember its own repeats."""
MAX_CANDIDATE_TEXT: Final = 1024
"""Longer arguments texts are not candidates: what the driver collects and every worker
receives stays within ``MAX_CANDIDATES`` times this."""
MAX_CANDIDATE_CHARS: Final = 8 << 20
"""Characters of arguments text the candidates hold together."""
MIN_CALLS: Final = 2
"""A payload called once gains nothing from being replayed apart (in the sample)."""
SAMPLE_FRACTION: Final = 0.1
"""The share of the lines the engine reads the payloads of: decoding every line costs as much
as auditor's own reading (7 µs a line in Spark), while the payloads repeated enough to be worth
preloading are the frequent ones, which a sample finds. Which lines are sampled changes only
which payloads are preloaded, never a report."""
SAMPLE_SEED: Final = 7
"""The same sample, and so the same candidates, every run."""
TOOL_FIELD: Final = "tool"
ARGUMENTS_FIELD: Final = "arguments"
"""The fields an engine reads from each JSON Lines record: the first of the tool and argument
keys a generic JSON Lines record may use (``auditor.inputs.log_formats``). A record that
names its tool or arguments otherwise is only not a candidate."""

Counted = dict[tuple[str, str], int]
"""Calls by (tool, arguments text)."""


def countable_parts(plan: AuditPlan) -> list[int]:
    """The parts an engine counts payloads in (``count_pairs``): byte ranges of logs read as
    generic JSON Lines. Other logs (other formats; gzip and small files, read whole, whose
    format the worker detects) are only audited: their calls are replayed per part."""
    return [
        number
        for number, item in enumerate(plan.parts)
        if isinstance(item, LogPart) and item.fmt is LogFormat.JSONL and item.data is None
    ]


def eligible_files(plan: AuditPlan) -> list[str]:
    """The logs of ``countable_parts``, in plan order, for an engine that reads files whole."""
    return list(dict.fromkeys(_part(plan, number).file for number in countable_parts(plan)))


def _part(plan: AuditPlan, number: int) -> LogPart:
    item = plan.parts[number]
    assert isinstance(item, LogPart)  # countable_parts are
    return item


def pair_of(line: bytes) -> tuple[str, str] | None:
    """The (tool, arguments text) of a JSON Lines record, as an engine reads it: the text of
    arguments logged as a string, the compact JSON of others; None for a line that is not one."""
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(record, dict):
        return None
    tool = record.get(TOOL_FIELD)
    text = record.get(ARGUMENTS_FIELD)
    if not isinstance(text, str):
        text = None if text is None else text_of(text)
    if not isinstance(tool, str) or text is None or len(text) > MAX_CANDIDATE_TEXT:
        return None
    return tool, text


def count_pairs(plan: AuditPlan, part: int, buckets: int, fraction: float) -> list[Counted]:
    """The pairs (``pair_of``) of every ``1 / fraction``-th line of a countable part, with
    their calls, in ``buckets`` dicts by a digest of the pair (the same in every process: a
    shuffle's partitions)."""
    item = _part(plan, part)
    every = max(1, round(1 / fraction))
    counted: list[Counted] = [{} for _ in range(buckets)]
    number = 0
    with open_part(item) as stream:
        # As the reader reads them: a line longer than a record may be is never held whole.
        for line in bounded_lines(stream, plan.max_record_bytes):
            if isinstance(line, Blank):
                number += line.count
                continue
            number += 1
            if number % every or not isinstance(line, bytes):
                continue
            pair = pair_of(line)
            if pair is not None:
                into = counted[zlib.crc32(f"{pair[0]}\0{pair[1]}".encode()) % buckets]
                into[pair] = into.get(pair, 0) + 1
    return counted


def most_called(*counted: Counted) -> Counted:
    """The calls of ``counted`` summed, of the pairs called ``MIN_CALLS`` times or more: the
    ``MAX_CANDIDATES`` most called, most called first (ties in the pairs' order)."""
    total: Counted = {}
    for some in counted:
        for pair, calls in some.items():
            total[pair] = total.get(pair, 0) + calls
    kept = [item for item in total.items() if item[1] >= MIN_CALLS]
    kept.sort(key=lambda item: (-item[1], item[0]))
    return dict(kept[:MAX_CANDIDATES])


def take(
    counted: Iterable[tuple[str, str]],
    most: int = MAX_CANDIDATES,
    chars: int = MAX_CANDIDATE_CHARS,
) -> list[tuple[str, str]]:
    """The first (tool, arguments text) pairs of ``counted`` (the most frequent first) within
    ``most`` pairs and ``chars`` characters of text."""
    taken: list[tuple[str, str]] = []
    held = 0
    for tool, text in counted:
        if len(taken) >= most or held + len(text) > chars:
            break
        taken.append((tool, text))
        held += len(text)
    return taken


def replay_candidates(
    plan: AuditPlan, candidates: Iterable[tuple[str, str]]
) -> dict[Payload, Known]:
    """Each candidate replayed once, as a call with no logged evidence: the accepted ones, by
    payload. Run on the workers (each compiles the plan's tools once, ``replays_for``)."""
    replays = replays_for(plan)
    known: dict[Payload, Known] = {}
    for tool, text in candidates:
        if tool not in replays:
            continue  # an unknown tool's calls are never accepted
        call = call_from("", tool, text)  # decoded and bounded as auditor's reader does
        payload = AcceptedRepeats.payload(call)
        if payload is None:
            continue
        result, reached = evaluate_call(replays, call)
        # Over budget: what the evaluation could not finish depends on the machine's speed.
        if result.outcome is Outcome.ACCEPTED and not result.over_budget:
            known[payload] = (result.contradicts, reached)
    return known
