"""Strings built to match a regular expression: the names and values the counterexample
search tries where a ``pattern`` or ``patternProperties`` decides."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.replay.pattern_example import MAX_REPEAT_SHOWN, example_matching

# (pattern, the string reasoned from it: the first member of each class, each repeat at its
# least, the first alternative, anchors dropped)
BUILT = [
    ("^[A-Z][A-Za-z-]*$", "A"),
    ("^[0-9a-f]+$", "0"),
    ("^X-[a-z]+$", "X-a"),
    ("a|bc", "a"),
    ("^(?:x-)?[a-z]{3,5}$", "aaa"),
    ("^\\d{4}-\\d{2}$", "0000-00"),
    ("^\\w+@\\S+$", "a@a"),
    ("^.+$", "a"),
    ("^[^a-z]$", "A"),  # the first fallback the negated class leaves
    ("^[^\\s]$", "a"),
    ("^[^aA0_\\- .:/@]$", "é"),  # every fallback excluded
    ("^a*?b$", "b"),
    ("(?>ab)c", "abc"),
]


@pytest.mark.parametrize(("pattern", "expected"), BUILT)
def test_a_string_is_built_from_the_common_forms(pattern: str, expected: str) -> None:
    assert example_matching(pattern) == expected
    assert regex.search(pattern, expected)


@pytest.mark.parametrize(
    "pattern",
    [
        "(?=a)b",  # a lookahead no string meets
        "(a)\\1",  # a back reference
        f"^a{{{MAX_REPEAT_SHOWN + 1}}}$",  # more copies than are built out
        "^(((a{64}){64}){64}){64}$",  # nested repeats multiply past the bound
        "a" * 600 + "b" * 600,  # a long literal past the bound
        "[",  # not a regular expression at all
        "^\\d\\D$" + "(?<=x)",  # a lookbehind
    ],
)
def test_no_string_where_the_form_is_not_covered(pattern: str) -> None:
    assert example_matching(pattern) is None


def test_a_guess_the_pattern_refuses_is_never_offered() -> None:
    # "\b" parses as an anchor (dropped): "a" then "b" gives "ab", which has no boundary
    # between the two letters, so the built string fails the check and none is offered.
    assert example_matching("a\\bb") is None
    assert example_matching("a\\b") == "a"


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.from_regex(
        r"\^?(\[a-z0-9\]|[a-zA-Z0-9_-]|\\d|\\w){1,6}(\{[1-3]\}|[*+?])?\$?", fullmatch=True
    )
)
def test_whatever_is_built_matches(pattern: str) -> None:
    built = example_matching(pattern)
    assert built is not None, pattern
    assert regex.search(pattern, built), (pattern, built)
