"""The reports' indented JSON through orjson is the standard library's text, byte for byte."""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.report import json_dump
from auditor.report.json_dump import dumps_indented

REPORTS = Path(__file__).resolve().parents[2] / "reports"


def _reference(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)


# Strings of every kind of character a log can hold: controls, quotes, backslashes, DEL,
# line and paragraph separators, the BOM, astral characters, and text that looks like the
# numbers and keys of the indented text itself.
_hostile_text = st.one_of(
    st.text(st.characters(exclude_categories=["Cs"]), max_size=12),
    st.sampled_from(
        [
            '": 1e-05',
            '"a": 0.00001,',
            "\n  0.00001\n",
            "1e-5",
            "e-7",
            "0.0000",
            '\\"',
            "\u2028\u2029\ufeff\x7f\x00\x1f",
            "\U0001f600",
        ]
    ),
)
_floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(min_value=-1e-4, max_value=1e-4, allow_nan=False),
    st.sampled_from([1e-5, -1e-7, 9.999999999999999e-05, 1e-4, 1e16, 5e-324, -0.0, 0.0]),
)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64) + 1, 2**64 - 1) | _floats | _hostile_text,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(_hostile_text, inner, max_size=4)
        | st.tuples(inner, inner)
    ),
    max_leaves=25,
)


@settings(max_examples=600, deadline=None)
@given(data=_json)
def test_hostile_strings_and_floats_are_written_as_json_dumps_writes_them(data: Any) -> None:
    assert dumps_indented(data) == _reference(data)


@pytest.mark.parametrize(
    "value",
    [1e-05, -1e-05, 1.5212603486793025e-05, 1e-07, -7.1850441006303285e-09, 5e-324],
    ids=repr,
)
def test_a_float_orjson_spells_otherwise_is_respelled_as_python_writes_it(value: float) -> None:
    data = {"a": value, "list": [value, "0.00001", {"e-5": value}], "b": "1e-5"}
    text = dumps_indented(data)
    assert text == _reference(data)
    assert repr(value) in text
    assert '"0.00001"' in text and '"b": "1e-5"' in text  # strings stay as they are


def test_the_fast_path_writes_the_plain_data_and_only_it() -> None:
    assert json_dump._plain({"a": [1, "x", None, True, 0.5, (2, 3)]}, 0) is json_dump._ALIKE
    assert json_dump._plain([1, 0.00001], 0) is json_dump._SMALL
    assert json_dump._plain({1: "a"}, 0) is None
    assert json_dump._plain([float("inf")], 0) is None


class _Color(enum.Enum):
    RED = "red"


class _Text(str):
    pass


@pytest.mark.parametrize(
    "data",
    [
        {1: "int key", 2.5: "float key", False: "bool key", None: "none key"},
        {"big": 2**70, "negative": -(2**64)},
        {"subclass": _Text("x"), "bool": True},
        ["\ud800 a lone surrogate"],
        {"deep": json.loads("[" * 300 + "]" * 300)},
    ],
    ids=["non-str keys", "big ints", "str subclass", "surrogate", "past orjson's depth"],
)
def test_what_orjson_would_refuse_or_write_otherwise_goes_to_json_dumps(data: Any) -> None:
    assert dumps_indented(data) == _reference(data)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"share": float("nan")}, ValueError),
        ([float("inf")], ValueError),
        ({"color": _Color.RED}, TypeError),  # orjson would write "red"
    ],
    ids=["nan", "infinity", "enum"],
)
def test_what_json_dumps_refuses_is_still_refused(data: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        dumps_indented(data)


def test_nesting_past_the_recursion_limit_is_refused_as_json_dumps_refuses_it() -> None:
    data: Any = []
    for _ in range(sys.getrecursionlimit() + 10):
        data = [data]
    with pytest.raises(RecursionError):
        dumps_indented(data)


@pytest.mark.parametrize("path", sorted(REPORTS.glob("*/audit.json")), ids=lambda p: p.parent.name)
def test_the_golden_reports_are_written_alike(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert json_dump._plain(data, 0) is not None  # the fast path, not the fallback
    assert dumps_indented(data) + "\n" == path.read_text(encoding="utf-8")
