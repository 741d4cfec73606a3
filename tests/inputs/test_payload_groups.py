"""The payload grouping of JSON Lines buffers (issue 26, item 1): what a line is grouped by,
what is left to the reader, and the compiled function held to its Python twin."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import struct
import subprocess
import sys
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.inputs.payload_groups import (
    ALONE,
    ARGUMENTS_KEY,
    BLANK,
    EXCLUDED,
    MAX_DEPTH,
    PURE_PYTHON_VARIABLE,
    TOOL_KEY,
    GroupFunction,
    Split,
    python_group_payloads,
    python_split_known,
)
from tests.conftest import ROOT
from tests.inputs.compiled_groups import compiled_function, compiled_module

LIMIT = 1 << 20
FUNCTIONS = {"compiled": compiled_function, "python": lambda: python_group_payloads}


def both(buffer: bytes, final: bool = True, limit: int = LIMIT) -> tuple[object, ...]:
    """The output of the compiled function, once checked equal to the Python twin's."""
    made = compiled_function()(buffer, final, limit, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED)
    twin = python_group_payloads(buffer, final, limit, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED)
    assert made == twin
    return made


def ids_of(grouped: tuple[object, ...]) -> list[int]:
    ids = grouped[0]
    assert isinstance(ids, bytes)
    return list(struct.unpack(f"={len(ids) // 4}I", ids))


_LINE_IDS = itertools.count()


def line(tool: object = "t", arguments: object = '{"a": 1}', **more: object) -> bytes:
    # Distinct lines by a counter: a random float's repr may hold 19 digits in a row
    # (0.0012345678901234567), which RAW_REFUSED leaves to the reader, about 1 line in 100.
    return json.dumps(
        {"id": next(_LINE_IDS), "tool": tool, "arguments": arguments, **more}
    ).encode()


@pytest.fixture(params=sorted(FUNCTIONS))
def group(request: pytest.FixtureRequest) -> GroupFunction:
    function: GroupFunction = FUNCTIONS[request.param]()
    return function


def test_lines_with_one_payload_are_one_group_whatever_else_they_hold(group: GroupFunction) -> None:
    buffer = b"\n".join([line(), line(), line("u"), line(arguments="{}"), line()]) + b"\n"
    ids, tools, texts, alone = group(buffer, False, LIMIT, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED)
    # Groups in the order of their first line; the ids differ on every line.
    assert ids_of((ids,)) == [0, 0, 1, 2, 0]
    assert (tools, texts, alone) == (["t", "u", "t"], ['{"a": 1}', '{"a": 1}', "{}"], [])


def test_a_payload_is_its_decoded_strings(group: GroupFunction) -> None:
    # The same tool and text, spelled with escapes or not, with other spacing, in either order.
    lines = [
        b'{"tool": "t\\u00e9", "arguments": "{\\"a\\": \\"\\u00e9\\"}"}',
        '{"arguments":"{\\"a\\": \\"é\\"}","tool":"té"}'.encode(),
        b'  {"tool" : "t\\u00e9" ,\t"arguments" : "{\\"a\\": \\"\\u00e9\\"}" }  \r',
    ]
    ids, tools, texts, _ = group(b"\n".join(lines), True, LIMIT, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED)
    assert ids_of((ids,)) == [0, 0, 0]
    assert (tools, texts) == (["té"], ['{"a": "é"}'])


def test_the_last_of_a_duplicate_member_counts_as_json_reads_it(group: GroupFunction) -> None:
    lines = [
        b'{"tool": "a", "arguments": "1", "tool": "b"}',
        b'{"to\\u006fl": "b", "arguments": "0", "arguments": "1"}',  # an escaped key is its name
    ]
    ids, tools, texts, _ = group(b"\n".join(lines), True, LIMIT, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED)
    assert ids_of((ids,)) == [0, 0]
    assert (tools, texts) == (["b"], ["1"])


@pytest.mark.parametrize(
    "text",
    [
        b'{"tool": "t", "arguments": {"a": 1}}',  # arguments logged as an object: the long way
        b'{"tool": "", "arguments": "{}"}',  # an empty name names no tool
        b'{"tool": 3, "arguments": "{}"}',
        b'{"name": "t", "arguments": "{}"}',  # named by another key: the reader's own lookup
        b'{"tool": "t", "args": "{}"}',
        b'{"tool": "t"}',
        b'["tool", "arguments"]',
        b'{"tool": "t", "arguments": "{}", "caller": "agent"}',  # names a caller
        b'{"tool": "t", "arguments": "{}", "metadata": {}}',
        b'{"tool": "t", "arguments": "{}"',  # broken JSON
        b'{"tool": "t", "arguments": "{}"} x',
        b'{"tool": "t", "arguments": "{}",}',
        b'{"tool": "t", "arguments": "\\ud83d\\ude00"}',  # a surrogate escape, even paired
        b'{"tool": "t", "arguments": "{}", "n": 1234567890123456789}',  # 19 digits
        b'{"tool": "t", "arguments": "{}", "n": 1e400}',  # an exponent of 3 digits
        b'{"tool": "t", "arguments": "\\x"}',  # not an escape
        b'{"tool": "t", "arguments": "\xff"}',  # not UTF-8
        b'{"tool": "t", "arguments": "\xed\xa0\x80"}',  # a surrogate in UTF-8
        b'{"tool": "t", "arguments": "\xc0\xaf"}',  # an overlong encoding
        b'{"tool": "t", "arguments": "tab\there"}',  # a control character in a string
        b'\xef\xbb\xbf{"tool": "t", "arguments": "{}"}',  # a byte-order mark past line 1
        b'{"tool": "t", "arguments": "{}", "n": 01}',
        b'{"tool": "t", "arguments": "{}", "n": NaN}',
        b'{"tool": "t", "arguments": "{}"}\x0c',  # whitespace JSON does not know
    ],
)
def test_a_line_not_vouched_for_is_left_alone_with_its_newline(
    group: GroupFunction, text: bytes
) -> None:
    buffer = line() + b"\n" + text + b"\n"
    ids, tools, _, alone = group(buffer, False, LIMIT, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED)
    assert ids_of((ids,)) == [0, ALONE]
    assert (tools, alone) == (["t"], [text + b"\n"])


def test_every_caller_field_leaves_a_line_alone() -> None:
    for name in EXCLUDED:
        assert ids_of(both(line(**{name: "x"}))) == [ALONE]


def test_nesting_is_bounded(group: GroupFunction) -> None:
    def nested(depth: int) -> bytes:  # containers, the record included
        inner = "[" * (depth - 1) + "]" * (depth - 1)
        return f'{{"tool": "t", "arguments": "x", "n": {inner}}}'.encode()

    buffer = nested(MAX_DEPTH) + b"\n" + nested(MAX_DEPTH + 1)
    ids, _, _, alone = group(buffer, True, LIMIT, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED)
    assert ids_of((ids,)) == [0, ALONE]
    assert alone == [nested(MAX_DEPTH + 1)]


def test_blank_lines_and_the_limit(group: GroupFunction) -> None:
    def sized(n: int) -> bytes:
        return b'{"tool": "t", "arguments": "' + b"x" * n + b'"}'

    limit = len(sized(100))
    # The limit counts a line's bytes without its newline, a CR included.
    buffer = b"\n \t\r\x0b\x0c\n" + sized(101) + b"\n" + sized(99) + b"\r\n" + sized(100) + b"\r\n"
    buffer += sized(100)  # the last line, unterminated, at the limit
    ids, tools, texts, alone = group(buffer, True, limit, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED)
    assert ids_of((ids,)) == [BLANK, BLANK, ALONE, 0, ALONE, 1]
    assert alone == [sized(101) + b"\n", sized(100) + b"\r\n"]
    assert (tools, texts) == (["t", "t"], ["x" * 99, "x" * 100])


def test_a_buffer_that_is_not_final_ends_with_a_newline(group: GroupFunction) -> None:
    with pytest.raises(ValueError, match="must end with a newline"):
        group(line(), False, LIMIT, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED)
    assert group(b"", False, LIMIT, TOOL_KEY, ARGUMENTS_KEY, EXCLUDED) == (b"", [], [], [])


# --- the compiled function and its twin, on hostile lines -------------------------------------

_TEXT = st.text(
    st.characters(max_codepoint=0xFFFF, exclude_categories=["Cs"])
    | st.characters(codec="utf-8", exclude_categories=["Cs"])
    | st.sampled_from('"\\/\b\f\n\r\t\x00é😀'),
    max_size=12,
)
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.integers(-(10**20), 10**20),
    st.floats(-1e6, 1e6),
    st.floats(allow_nan=False, allow_infinity=False),
    _TEXT,
)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
_KEYS = st.sampled_from(
    ["tool", "arguments", "id", "name", "args", "caller", "user", "to\\u006fl", "x"]
)


@st.composite
def _record_line(draw: st.DrawFn) -> bytes:
    """A JSON Lines record, often a call, spelled every way JSON allows and some it does not."""
    members: list[tuple[str, object]] = []
    if draw(st.booleans()):
        members.append(("tool", draw(st.sampled_from(["t", "u", "", "t\u00e9", 1]))))
    if draw(st.booleans()):
        members.append(
            ("arguments", draw(st.sampled_from(['{"a": 1}', "{}", "é", {"a": 1}]) | _TEXT))
        )
    for _ in range(draw(st.integers(0, 2))):
        members.append((draw(_KEYS), draw(_VALUE)))
    draw(st.randoms()).shuffle(members)
    ascii_only = draw(st.booleans())
    space = draw(st.sampled_from(["", " ", "\t", "  ", "\r"]))
    parts = []
    for key, value in members:
        name = key if "\\" in key else json.dumps(key, ensure_ascii=ascii_only)[1:-1]
        parts.append(f'"{name}"{space}:{space}{json.dumps(value, ensure_ascii=ascii_only)}')
    text = space + "{" + ("," + space).join(parts) + "}" + space
    raw = text.encode("utf-8", "surrogatepass")
    damage = draw(st.sampled_from(["none"] * 12 + ["cut", "byte", "surrogate", "huge", "deep"]))
    if damage == "cut" and raw:
        raw = raw[: draw(st.integers(0, len(raw) - 1))]
    elif damage == "byte":
        at = draw(st.integers(0, len(raw)))
        raw = (
            raw[:at]
            + draw(st.sampled_from([b"\xff", b"\xc0", b"\x00", b"\\", b'"', b"\x0b"]))
            + raw[at:]
        )
    elif damage == "surrogate":
        raw = raw.replace(b"}", b', "s": "\\udc00"}', 1)
    elif damage == "huge":
        raw = raw.replace(b"}", b', "pad": "' + b"p" * 3000 + b'"}', 1)
    elif damage == "deep":
        depth = draw(st.integers(60, 70))
        raw = raw.replace(b"}", b', "d": ' + b"[" * depth + b"]" * depth + b"}", 1)
    return raw.replace(b"\n", b"")


@st.composite
def _call_line(draw: st.DrawFn) -> bytes:
    """A plain call of a few payloads, spelled several ways: what groups."""
    record = {
        "id": draw(st.integers(0, 10**6)),
        "tool": draw(st.sampled_from(["t", "u", "t\u00e9"])),
        "arguments": draw(st.sampled_from(['{"a": 1}', '{"a": "\u00e9"}', "{}", "[1, 2]"])),
    }
    if draw(st.booleans()):
        record["ts"] = draw(_VALUE)
    items = list(record.items())
    draw(st.randoms()).shuffle(items)
    separators = draw(st.sampled_from([(", ", ": "), (",", ":"), (" ,\t", " : ")]))
    text = json.dumps(dict(items), ensure_ascii=draw(st.booleans()), separators=separators)
    return text.encode()


_LINES = st.lists(
    _call_line()
    | _call_line()
    | _record_line()
    | st.sampled_from([b"", b" ", b"\t\r", b"\x0b", b"{}"]),
    max_size=12,
)


@settings(max_examples=400)
@given(
    lines=_LINES,
    ending=st.sampled_from([b"\n", b"\r\n"]),
    terminated=st.booleans(),
    limit=st.sampled_from([64, 2048, LIMIT]),
)
def test_the_compiled_grouping_is_its_python_twin(
    lines: list[bytes], ending: bytes, terminated: bool, limit: int
) -> None:
    buffer = ending.join(lines) + (ending if terminated and lines else b"")
    grouped = both(buffer, final=not terminated, limit=limit)
    # Every line is accounted for: one id each, an alone line for every ALONE.
    ids = ids_of(grouped)
    assert len(ids) == buffer.count(b"\n") + (not buffer.endswith(b"\n") and bool(buffer))
    assert ids.count(ALONE) == len(grouped[3])  # type: ignore[arg-type]


def _compiled_in_a_process(environment: dict[str, str]) -> str:
    command = [
        sys.executable,
        "-c",
        "from auditor.inputs import payload_groups as p; print(p.COMPILED)",
    ]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_the_python_twin_is_chosen_at_import_when_asked() -> None:
    compiled_module()  # where the tests run, the compiled module imports or is built here
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop(PURE_PYTHON_VARIABLE, None)
    built = importlib.util.find_spec("auditor.inputs._payload_groups") is not None
    assert _compiled_in_a_process(environment) == str(built)
    assert _compiled_in_a_process({**environment, PURE_PYTHON_VARIABLE: "1"}) == "False"


def split_both(ids: list[int], mask: bytes) -> Split:
    """``split_known``'s output, once checked equal to its Python twin's."""
    raw = array("I", ids).tobytes()
    made: Split = compiled_module().split_known(raw, mask)
    assert made == python_split_known(raw, mask)
    return made


def test_split_known_counts_the_known_groups_and_leaves_the_rest() -> None:
    ids = [0, 1, 0, BLANK, ALONE, 2, 5, 1, 2, 0, BLANK]
    known, rest, blank = split_both(ids, bytes([1, 0, 7]))
    # Known groups in the order of their first line; a group past the mask is not known.
    assert known == {0: 3, 2: 2} and list(known) == [0, 2]
    assert list(memoryview(rest).cast("I")) == [1, 4, 6, 7]
    assert blank == 2
    assert split_both([], b"") == ({}, b"", 0)
    assert split_both([ALONE, 0], b"\x01") == ({0: 1}, array("I", [0]).tobytes(), 0)
    for function in (compiled_module().split_known, python_split_known):
        with pytest.raises(ValueError, match="whole uint32"):
            function(b"\x00" * 6, b"")


@settings(max_examples=400)
@given(
    ids=st.lists(st.sampled_from([BLANK, ALONE]) | st.integers(0, 9), max_size=60),
    mask=st.binary(max_size=10),
)
def test_the_compiled_split_is_its_python_twin(ids: list[int], mask: bytes) -> None:
    known, rest, blank = split_both(ids, mask)
    # Every line is counted once: by its known group, as one of the rest, or as blank.
    assert sum(known.values()) + len(rest) // 4 + blank == len(ids)


def test_the_split_falls_back_to_its_twin_where_the_module_is_missing_or_stale() -> None:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop(PURE_PYTHON_VARIABLE, None)
    script = (
        "import sys, types\n"
        "if sys.argv[1] == 'missing':\n"
        "    sys.modules['auditor.inputs._payload_groups'] = None  # import fails\n"
        "if sys.argv[1] == 'stale':  # built from an older C file: no split_known\n"
        "    old = types.ModuleType('auditor.inputs._payload_groups')\n"
        "    old.group_payloads = lambda *args: None\n"
        "    sys.modules['auditor.inputs._payload_groups'] = old\n"
        "from auditor.inputs import payload_groups as p\n"
        "ids = bytes(p.array('I', [0, p.BLANK, 1, 0]))\n"
        "print(p.COMPILED, p.compiled_split_known is None, p.split_known(ids, b'\\x01'))\n"
    )
    for how, variables in (("missing", {}), ("stale", {}), ("asked", {PURE_PYTHON_VARIABLE: "1"})):
        command = [sys.executable, "-c", script, how]
        done = subprocess.run(
            command, env={**environment, **variables}, capture_output=True, text=True, check=True
        )
        rest = array("I", [2]).tobytes()
        assert done.stdout.strip() == f"False True ({{0: 2}}, {rest!r}, 1)"
