"""Issue 11, bounds: what a hostile catalog or log can make auditor spend, in memory and time,
is bounded before and during replay. The end-to-end cases are in ``tests/hostile/``; these
are the units behind them, each with an ordinary input that must still be accepted."""

from __future__ import annotations

import pytest

from auditor.budget import (
    MAX_PATTERN_EXPANSION,
    UnusablePattern,
    compiled_pattern,
    pattern_expansion,
)
from auditor.engine import trusted

REGEX_BOMB = "^(?:(?:(?:a{1000}){1000}){1000})$"


@pytest.mark.parametrize(
    ("pattern", "expansion"),
    [
        ("^[a-z]{1,64}$", 66),
        ("a{100000}", 100_000),
        ("(?:a{10}){10}", 100),
        ("(a|b)*", 2),
        ("(?:a{1000,}){100}", 100_000),
    ],
)
def test_ordinary_patterns_are_measured_exactly(pattern: str, expansion: int) -> None:
    assert pattern_expansion(pattern) == expansion


@pytest.mark.parametrize(
    "pattern",
    [
        REGEX_BOMB,
        "(?:a{1000}){101}",
        "(?:a{1000,}){1000}",
        # Not Python's dialect (\p{..}): the rougher scan of the text must not undercount.
        "\\p{L}(?:(?:b{1000}){1000}){1000}",
        "\\p{L}a{" + "9" * 5000 + "}",
    ],
)
def test_patterns_that_expand_past_the_bound_are_refused_uncompiled(pattern: str) -> None:
    assert pattern_expansion(pattern) > MAX_PATTERN_EXPANSION
    with pytest.raises(UnusablePattern, match="counted repeats expand to more than 100,000"):
        compiled_pattern(pattern)


def test_ordinary_patterns_still_compile_and_stay_with_the_fast_engine() -> None:
    assert compiled_pattern("^[a-z]{1,64}$").search("abc")
    assert compiled_pattern("\\p{L}{2,8}").search("ab")
    assert trusted({"properties": {"q": {"pattern": "^[a-z]{1,64}$"}}})
    assert not trusted({"properties": {"q": {"pattern": REGEX_BOMB}}})
    assert not trusted({"patternProperties": {REGEX_BOMB: {}}})
