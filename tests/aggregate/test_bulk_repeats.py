"""A grouped buffer's accepted repeats counted in one step (``AcceptedRepeats.repeat_many``
through the reader's ``BulkRepeats``) give the report of counting them one by one.

Reasoned: a line the bulk count takes is one whose payload is already known accepted, which
``repeat_aside`` would have counted the same way, one at a time, into the same weight; nothing
of such a line is shown (not listed, not a sample: its text already is one). The lines of a
payload that sends a removed property are counted one by one (``Tally.one_by_one``): they are
never known, so never in the mask, and each keeps its caller and its ``path:line``. Every other
line (unknown tools, broken lines, arguments that are not JSON text, callers, rejected calls)
goes through Python, at its own line number.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import auditor.inputs.line_buffers
from auditor.aggregate.repeats import AcceptedRepeats
from auditor.inputs.reader import BulkRepeats, LogReader
from auditor.models import CallResult, Outcome, Payload
from tests.conftest import ROOT, run_cli

SNAPS = ROOT / "tests" / "fixtures" / "github-mcp-server"
ACCEPTED = [{"owner": "o", "repo": "r", "sha": f"s{n}"} for n in range(6)]
REMOVED = {"owner": "o", "repo": "r", "sha": "main", "include_diff": False}
REJECTED = {"owner": "o", "repo": "r", "sha": 5}
KINDS = ["accepted", "removed", "rejected", "unknown", "broken", "blank", "caller", "object"]
KINDS += ["not-json"]


def _text(arguments: object) -> str:
    return json.dumps(arguments)


def _log(seed: int, count: int = 3000) -> tuple[bytes, set[int]]:
    """A log where 80% of the calls repeat an accepted payload, with every other kind of line
    among them; and the numbers of the lines that send the removed property."""
    rng = random.Random(seed)
    lines: list[str] = []
    removed: set[int] = set()
    for number in range(1, count + 1):
        kind = rng.choices(
            KINDS,
            [80, 4, 3, 3, 2, 2, 2, 2, 2],
        )[0]
        record: dict[str, object] = {"tool": "get_commit", "arguments": _text(rng.choice(ACCEPTED))}
        if kind == "removed":
            record["arguments"] = _text(REMOVED)
            removed.add(number)
        elif kind == "rejected":
            record["arguments"] = _text(REJECTED)
        elif kind == "unknown":
            record["tool"] = rng.choice(["nope", "gone"])
        elif kind == "caller":
            record["caller"] = rng.choice(["ann", "bob"])
        elif kind == "object":
            record["arguments"] = rng.choice(ACCEPTED)
        elif kind == "not-json":
            record["arguments"] = "{bad"
        line = json.dumps(record)
        if kind == "broken":
            line = line[: rng.randrange(1, len(line))]
        elif kind == "blank":
            line = rng.choice(["", "  ", "\t"])
        lines.append(line)
    return ("\n".join(lines) + "\n").encode(), removed


def _schemas(tmp_path: Path, closed: bool) -> tuple[Path, Path]:
    """The get_commit snaps before and after the removal of ``include_diff``; ``closed``:
    with ``additionalProperties: false`` on both sides (its calls are then newly rejected)."""
    paths = []
    for side in ("before", "after"):
        tool = json.loads((SNAPS / f"get_commit.{side}.snap").read_text())
        if closed:
            tool["inputSchema"]["additionalProperties"] = False
        path = tmp_path / f"{side}.snap"
        path.write_text(json.dumps(tool, indent=2))
        paths.append(path)
    return paths[0], paths[1]


def _report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], closed: bool, jobs: int, name: str
) -> dict[str, str]:
    before, after = _schemas(tmp_path, closed)
    outputs = []
    for fmt in ("json", "markdown"):
        outputs += ["--format", fmt, "--output", str(tmp_path / f"{name}.{fmt}")]
    args = ["audit", "--schemas", str(before), "--new-schemas", str(after)]
    args += ["--catalog-format", "mcp", "--logs", str(tmp_path / "calls.jsonl")]
    args += ["--jobs", str(jobs), "--no-report-files", "-q", *outputs]
    code, _, err = run_cli(args, capsys)
    assert code in (0, 1), err
    return {fmt: (tmp_path / f"{name}.{fmt}").read_text() for fmt in ("json", "markdown")}


@pytest.mark.parametrize("buffer", [None, 2048], ids=["16MiB", "2KiB"])
@pytest.mark.parametrize("closed", [False, True], ids=["open", "closed"])
def test_the_bulk_count_gives_the_report_of_counting_one_by_one(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    closed: bool,
    buffer: int | None,
) -> None:
    if buffer is not None:
        monkeypatch.setattr(auditor.inputs.line_buffers, "BUFFER_BYTES", buffer)
    body, removed = _log(seed=int(closed) * 2 + (buffer is None))
    (tmp_path / "calls.jsonl").write_bytes(body)
    bulk: list[int] = []
    repeat_many = AcceptedRepeats.repeat_many

    def counted(self: AcceptedRepeats, payloads: Sequence[Payload], counts: Mapping[int, int]):  # type: ignore[no-untyped-def]
        bulk.append(sum(counts.values()))
        repeat_many(self, payloads, counts)

    with monkeypatch.context() as patch:
        patch.setattr(AcceptedRepeats, "repeat_many", counted)
        with_bulk = _report(tmp_path, capsys, closed, 1, "bulk")
    # In small buffers, most lines were counted in bulk; in one buffer, none is known before.
    assert sum(bulk) > 1500 if buffer is not None else bulk == [0]
    with monkeypatch.context() as patch:
        # The reader is given ``repeat_aside`` alone, and asks it line by line.
        patch.setattr(LogReader, "__init__", _one_by_one)
        one_by_one = _report(tmp_path, capsys, closed, 1, "lines")
    assert with_bulk == one_by_one
    assert _report(tmp_path, capsys, closed, 2, "jobs") == one_by_one

    # The listed lines are the ones that send the removed property, by their own number.
    report = json.loads(with_bulk["json"])
    [finding] = report["removed_properties"]
    assert finding["calls"] == len(removed)
    listed = [int(example.rsplit(":", 1)[1]) for example in finding["examples"]]
    assert listed and set(listed) <= removed
    if closed:
        assert finding["newly_rejected"] == len(removed)
    # Every listed call (newly and still rejected, unknown tools, broken lines) names the
    # line it was read from.
    lines = body.decode().split("\n")
    newly = set()
    for call in report["calls"]:
        number = int(call["source"].rsplit(":", 1)[1])
        line = lines[number - 1]
        unparsed = call.get("unparsed")
        if unparsed and call["tool"] is None:  # a broken line (the report may cut it: "…")
            assert line.startswith(unparsed["raw"].rsplit("…", 1)[0])
            continue
        record = json.loads(line)
        assert call["tool"] == record["tool"]
        if unparsed:  # arguments that are not JSON text
            assert unparsed["raw"] == record["arguments"]
        if call.get("arguments") is not None:
            assert call["arguments"] == json.loads(record["arguments"])
        if call["outcome"] == "newly_rejected":
            newly.add(number)
    assert newly == (removed if closed else set())
    assert report["unknown_tools"] and report["totals"]["unparseable"] > 0


_INIT = LogReader.__init__


def _one_by_one(self: LogReader, *args: Any, known: Any = None, **more: Any) -> None:
    """``LogReader.__init__`` given only the one-by-one count of a ``BulkRepeats``."""
    if isinstance(known, BulkRepeats):
        known = known.repeat_aside
    _INIT(self, *args, **{**more, "known": known})


def _result(payload: Payload) -> CallResult:
    from auditor.models import Call

    tool, text, evidence = payload
    return CallResult(Call("", tool, text=text, evidence=evidence), Outcome.ACCEPTED)


def test_repeat_many_counts_what_repeat_aside_counts_one_by_one() -> None:
    known: Payload = ("t", "{}", None)
    once: Payload = ("t", "[]", None)
    removed: Payload = ("t", '{"gone": 1}', None)
    stream = [known, once, known, removed, known, removed, known, known]

    def made() -> AcceptedRepeats:
        repeats = AcceptedRepeats()
        repeats.one_by_one = lambda payload: payload == removed
        for payload in (known, known, removed, removed, once):
            repeats.remember(payload, _result(payload), frozenset({1}))
        return repeats

    apart, together = made(), made()
    asked = [apart.repeat_aside(payload) for payload in stream]
    payloads = [known, once, removed]
    mask = together.known_mask(payloads)
    assert mask == bytes([1, 0, 0])  # a payload counted one by one is never known
    together.repeat_many(payloads, {0: sum(asked)})
    assert asked.count(True) == stream.count(known)
    assert together.hits == apart.hits == 5
    assert list(together.settle()) == list(apart.settle())


def test_accepted_repeats_is_what_the_reader_counts_in_bulk_with() -> None:
    assert isinstance(AcceptedRepeats(), BulkRepeats)
    assert not isinstance(AcceptedRepeats().repeat_aside, BulkRepeats)
