"""The line-grouping benchmark's C functions (``benchmarks/line_groups.c``) group what they say.

Its figures are only worth something if the compiled grouping finds the groups a plain
reading finds: identical lines for ``group_lines``; for ``group_payloads``, lines whose
top-level ``tool`` and ``arguments`` members are equal byte for byte, every line the strict
scan does not vouch for standing alone (or with the lines identical to it). No timing here.
"""

from __future__ import annotations

import array
from pathlib import Path
from types import ModuleType

import pytest

from tests.benchmark_scripts import load_benchmark

NOT_A_GROUP = 0xFFFFFFFF
"""The group id of a blank line."""

LINES = [
    b'{"id":1,"tool":"a","arguments":"{}"}',  # 1
    b'{"id":2,"tool":"a","arguments":"{}"}',  # 2: line 1's payload, another id
    b"",  # 3: blank
    b'{"id":1,"tool":"a","arguments":"{}"}\r',  # 4: line 1 with a CRLF ending
    b'{"tool":"a","tool":"b","arguments":"{}"}',  # 5: a duplicate key: the parse decides
    b'{"id":"\\u00e9","tool":"a","arguments":"{}"}',  # 6: an escape outside the payload
    b'{"tool": "a", "arguments": "{}"}',  # 7: spacing outside the members' values
    b'{"tool":"a","arguments":"{}"} x',  # 8: text after the record
    b"{broken",  # 9
    b"{broken",  # 10: line 9 again
]


@pytest.fixture(scope="module")
def benchmark() -> ModuleType:
    return load_benchmark("line_grouping")


@pytest.fixture(scope="module")
def compiled(benchmark: ModuleType) -> ModuleType:
    built: ModuleType = benchmark._build_c()
    return built


def _ids(raw: bytes) -> list[int]:
    return list(array.array("I", raw))


def test_identical_lines_are_one_group_with_their_count_and_first_and_last_line(
    compiled: ModuleType,
) -> None:
    buffer = b"\n".join(LINES)
    lines, counts, firsts, lasts, ids, consumed, blank = compiled.group_lines(buffer, 1, True)
    assert lines == [LINES[0], LINES[1], *LINES[4:9]]
    assert counts == [2, 1, 1, 1, 1, 1, 2]
    assert firsts == [1, 2, 5, 6, 7, 8, 9]
    assert lasts == [4, 2, 5, 6, 7, 8, 10]
    assert _ids(ids) == [0, 1, NOT_A_GROUP, 0, 2, 3, 4, 5, 6, 6]
    assert (consumed, blank) == (len(buffer), 1)


def test_lines_are_grouped_by_the_raw_bytes_of_their_tool_and_arguments(
    compiled: ModuleType,
) -> None:
    buffer = b"\n".join(LINES)
    lines, counts, firsts, lasts, ids, _, blank = compiled.group_payloads(buffer, 1, True)
    assert lines == [LINES[0], LINES[4], LINES[7], LINES[8]]
    assert counts == [5, 1, 1, 2]
    assert firsts == [1, 5, 8, 9]
    assert lasts == [7, 5, 8, 10]
    assert _ids(ids) == [0, 0, NOT_A_GROUP, 0, 1, 0, 0, 2, 3, 3]
    assert blank == 1


@pytest.mark.parametrize("function", ["group_lines", "group_payloads"])
def test_an_unterminated_last_line_is_left_for_the_next_buffer(
    compiled: ModuleType, function: str
) -> None:
    group = getattr(compiled, function)
    buffer = LINES[0] + b"\n" + LINES[1]
    lines, counts, firsts, _, ids, consumed, _ = group(buffer, 41, False)
    assert (lines, counts, firsts, len(ids) // 4) == ([LINES[0]], [1], [41], 1)
    assert consumed == len(LINES[0]) + 1


@pytest.mark.parametrize(
    "line",
    [
        b'{"tool":"a","arguments":"{}","id":"\xff"}',  # not UTF-8
        b'{"tool":"a","arguments":"{}","id":"\xed\xa0\x80"}',  # an encoded surrogate
        b'{"tool":"a","arguments":"{}","id":"\\ud800"}',  # half a surrogate pair
        b'{"tool":"a","arguments":"{}","id":123456789012345678901234}',  # past 64 bits
        b'{"tool":"a","arguments":"{}","id":1e999}',  # past a double
        b'{"tool":"a","arguments":"{}","id":[1,]}',  # not JSON
        b'{"tool":"a","arguments":"{}","id":01}',  # not JSON either
        b'{"t\\u006fol":"a","arguments":"{}"}',  # an escaped key
        b'{"tool":"a"}',  # no arguments
    ],
)
def test_a_line_the_scan_does_not_vouch_for_is_not_grouped_with_its_payload(
    compiled: ModuleType, line: bytes
) -> None:
    plain = b'{"tool":"a","arguments":"{}"}'
    lines, counts, *_ = compiled.group_payloads(plain + b"\n" + line, 1, True)
    assert (lines, counts) == ([plain, line], [1, 1])


def test_the_python_and_compiled_groupings_count_the_same_groups(
    benchmark: ModuleType, compiled: ModuleType, tmp_path: Path
) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_bytes(b"\n".join(LINES) + b"\n")
    assert benchmark.python_lines(log) == benchmark.c_lines(log, compiled=compiled) == 7
    # Payloads once parsed: (a, {}) from lines 1, 2, 4, 6, 7 and the duplicate-key line 5
    # (its last "tool" wins: b); line 8 and the broken lines do not parse.
    assert benchmark.c_lines(log, True, "group_payloads", compiled) == 2
    # One buffer: the groups of group_payloads, handed on as they are.
    assert benchmark.c_bounded(log, compiled) == 4
