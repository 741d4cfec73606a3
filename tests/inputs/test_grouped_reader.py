"""The JSON Lines reader grouped by payload (issue 26, item 1) gives the calls and the line
accounting of the reader line by line, with the compiled grouping and with its Python twin,
on logs with every kind of line, across buffers, parts, gzip and a failing read."""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

import auditor.inputs.line_buffers
from auditor.inputs import payload_groups
from auditor.inputs import reader as reader_module
from auditor.inputs.log_formats import LogFormat
from auditor.inputs.parts import LogPart
from auditor.inputs.reader import LogReader
from auditor.models import Call, LogStats, Payload
from tests.inputs.compiled_groups import compiled_function

MODES = ("lines", "compiled", "python")
GROUPED: Counter[str] = Counter()
"""Buffers grouped, by mode, in the last ``same_in_every_mode``."""
LIMIT = 600


def hostile_log(seed: int, count: int = 600) -> bytes:
    """Lines of every kind: repeated payloads, objects, callers, broken, blank, long."""
    rng = random.Random(seed)
    payloads = [(f"tool_{n % 3}", json.dumps({"q": n % 7, "s": "é" * (n % 2)})) for n in range(12)]
    lines: list[bytes] = []
    for number in range(count):
        tool, text = rng.choice(payloads)
        kind = rng.choices(
            ["call", "object", "caller", "broken", "blank", "long", "nameless", "bad-args", "crlf"],
            [60, 6, 6, 4, 6, 3, 3, 3, 6],
        )[0]
        record: dict[str, object] = {"id": number, "tool": tool, "arguments": text}
        if kind == "object":
            record["arguments"] = json.loads(text)
        elif kind == "caller":
            record["caller"] = rng.choice(["a", "b", ""])
        elif kind == "nameless":
            del record["tool"]
        elif kind == "bad-args":
            record["arguments"] = text[:-1]
        elif kind == "long":
            record["pad"] = "x" * rng.choice([LIMIT, 3 * LIMIT, 5000])
        line = json.dumps(record, ensure_ascii=rng.random() < 0.5).encode()
        if kind == "broken":
            line = line[: rng.randrange(len(line))]
        elif kind == "blank":
            line = rng.choice([b"", b"  ", b"\t\r", b"\x0b"]) * rng.randint(1, 3)
        elif kind == "crlf":
            line += b"\r"
        lines.append(line)
    return b"\n".join(lines) + rng.choice([b"", b"\n"])


class Asked:
    """A ``known``: a payload counts from its third call on, as distinct-first counts it;
    the payloads asked about, in order."""

    def __init__(self) -> None:
        self.asked: list[Payload] = []
        self._calls: Counter[Payload] = Counter()

    def __call__(self, payload: Payload) -> bool:
        self.asked.append(payload)
        self._calls[payload] += 1
        return self._calls[payload] > 2


def read(
    mode: str,
    monkeypatch: pytest.MonkeyPatch,
    run: Callable[[LogReader], list[Call]],
    files: list[str],
    fmt: LogFormat | None = None,
) -> tuple[list[Call], tuple[LogStats, ...], list[Payload]]:
    with monkeypatch.context() as patch:
        if mode == "lines":
            patch.setattr(LogReader, "_grouped_format", lambda *_: False)
        else:
            function = compiled_function() if mode == "compiled" else None
            patch.setattr(payload_groups, "compiled_group_payloads", function)
            patch.setattr(payload_groups, "twin_forced", mode == "python")
            grouped = payload_groups.group_payloads

            def counted(buffer: bytes, final: bool, limit: int) -> payload_groups.Grouped:
                GROUPED[mode] += 1
                return grouped(buffer, final, limit)

            patch.setattr(reader_module, "group_payloads", counted)
        known = Asked()
        reader = LogReader(files, fmt, LIMIT, known=known)
        calls = run(reader)
        return calls, reader.stats(), known.asked


def same_in_every_mode(
    monkeypatch: pytest.MonkeyPatch,
    run: Callable[[LogReader], list[Call]],
    files: list[str],
    fmt: LogFormat | None = None,
) -> tuple[list[Call], tuple[LogStats, ...], list[Payload]]:
    GROUPED.clear()
    results = [read(mode, monkeypatch, run, files, fmt) for mode in MODES]
    assert results[1] == results[0]
    assert results[2] == results[0]
    assert GROUPED["compiled"] == GROUPED["python"]  # the grouped modes read the same buffers
    return results[0]


@pytest.mark.parametrize("buffer", [None, 700, 4096], ids=["16MiB", "700B", "4KiB"])
@pytest.mark.parametrize("seed", range(4))
def test_a_hostile_log_reads_the_same_grouped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, buffer: int | None
) -> None:
    if buffer is not None:
        monkeypatch.setattr(auditor.inputs.line_buffers, "BUFFER_BYTES", buffer)
    log = tmp_path / "calls.jsonl"
    log.write_bytes(hostile_log(seed))
    calls, [stats], asked = same_in_every_mode(monkeypatch, list, [str(log)])
    # The log is what it says: every kind of line is there, and repeats are counted.
    assert GROUPED["compiled"] >= (1 if buffer is None else 10)
    assert stats.lines == 600 and stats.blank > 0 and stats.calls == stats.records
    assert any(call.unparsed is not None for call in calls)
    assert any(call.text is None and call.unparsed is None for call in calls)  # objects
    # Repeats were asked about, and counted without a call.
    assert len(set(asked)) < len(asked) and len(calls) < stats.calls


def test_grouped_lines_are_counted_not_made_once_known(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "calls.jsonl"
    lines = [json.dumps({"id": n, "tool": "t", "arguments": "{}"}) for n in range(10)]
    log.write_text("\n".join(lines) + "\n")
    calls, [stats], asked = same_in_every_mode(monkeypatch, list, [str(log)])
    # Asked about on every line; known from the third: two calls, each on its own line.
    assert asked == [("t", "{}", None)] * 10
    assert [call.source for call in calls] == [f"{log}:1", f"{log}:2"]
    assert (stats.lines, stats.records, stats.calls) == (10, 10, 10)


@pytest.mark.parametrize("forced", [None, LogFormat.JSONL], ids=["detected", "forced"])
def test_the_first_lines_and_a_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forced: LogFormat | None
) -> None:
    log = tmp_path / "calls.jsonl"
    # A byte-order mark and blank lines before the first record, then broken ones.
    log.write_bytes(b"\xef\xbb\xbf\n\n{broken\n" + hostile_log(1, 100))
    same_in_every_mode(monkeypatch, list, [str(log)], forced)
    document = tmp_path / "call.json"
    document.write_text('{\n  "tool": "t",\n  "arguments": "{}"\n}\n\n')
    [call], [stats], _ = same_in_every_mode(monkeypatch, list, [str(document)], forced)
    assert (call.source, call.arguments, stats.lines, stats.records) == (f"{document}:1", {}, 5, 1)


def test_gzip_and_a_truncated_gzip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auditor.inputs.line_buffers, "BUFFER_BYTES", 2000)
    body = hostile_log(2, 3000)
    whole = tmp_path / "calls.jsonl.gz"
    whole.write_bytes(gzip.compress(body))
    same_in_every_mode(monkeypatch, list, [str(whole)])
    assert GROUPED["compiled"] > 20
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole.read_bytes()[: len(whole.read_bytes()) // 2])
    calls, [stats], _ = same_in_every_mode(monkeypatch, list, [str(cut)])
    assert GROUPED["compiled"] > 10  # before the read failed
    # The read fails mid-way: the last line is the failure, every line before it read.
    assert calls[-1].unparsed is not None and "cannot be read" in calls[-1].unparsed.reason
    assert 0 < stats.lines < 3000


def test_parts_read_the_same_grouped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auditor.inputs.line_buffers, "BUFFER_BYTES", 1500)
    log = tmp_path / "calls.jsonl"
    body = hostile_log(3, 900)
    log.write_bytes(body)
    starts = [0] + [at + 1 for at, byte in enumerate(body) if byte == ord("\n")]
    cuts = [0, 1, 250, 251, 700, len(starts) - 1]
    parts = [
        LogPart(
            str(log), starts[a], starts[b] if b < len(starts) else len(body), a + 1, LogFormat.JSONL
        )
        for a, b in zip(cuts, [*cuts[1:], len(starts)], strict=True)
        if a < b
    ]

    def by_parts(reader: LogReader) -> list[Call]:
        return [call for part in parts for call in reader.read_part(part)]

    _, [stats], _ = same_in_every_mode(monkeypatch, by_parts, [str(log)])
    assert stats.lines == 900 and GROUPED["compiled"] > len(parts)
