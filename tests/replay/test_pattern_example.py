"""Strings built to match a regular expression: the names and values the counterexample
search tries where a ``pattern`` or ``patternProperties`` decides."""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.replay.budget import SearchCeiling
from auditor.replay.pattern_example import MAX_REPEAT_SHOWN, example_matching
from tests.conftest import ROOT, cpu_seconds, seconds

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


# "$" is dropped as an anchor, so the string built is forty "a" then "b"; "$" fails before "b",
# and the engine tries both alternatives of every copy: 2^40 ways before it gives up.
BACKTRACKING = "^(a|a){40}$b"


def _bounded(code: str, cpu_limit: int, memory: int = 4 << 30) -> subprocess.CompletedProcess[str]:
    """``code`` run by this Python in a process of its own, under a CPU-time and an
    address-space limit (killed past them), with the repository's package on its path."""

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        preexec_fn=limits,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_guess_that_backtracks_is_given_up_within_a_call_budget() -> None:
    # Before: 0.13 CPU s at a lower bound of 20, 4 s at 25, 101 s at 30, doubling per unit
    # (days at 40). Now the check stops at the call budget (2 s by default).
    started = cpu_seconds()
    done = _bounded(
        "from auditor.replay.pattern_example import example_matching\n"
        f"print(repr(example_matching({BACKTRACKING!r})))",
        cpu_limit=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"
    assert cpu_seconds() - started < seconds(10)


def test_the_check_keeps_to_the_step_it_is_given_and_is_not_tried_again() -> None:
    ceiling = SearchCeiling(0.2)
    started = cpu_seconds()
    assert example_matching(BACKTRACKING, ceiling) is None
    assert example_matching(BACKTRACKING, ceiling) is None  # remembered: no second step
    assert cpu_seconds() - started < seconds(1.5)
    assert list(ceiling.overran) == [BACKTRACKING]
    # The same shape with nothing to backtrack over is still built and checked at once.
    assert example_matching("^(a|a){40}b", ceiling) == "a" * 40 + "b"
    assert example_matching("^[a-z]{3}$", ceiling) == "aaa"


def test_an_alternative_not_built_is_never_compiled_past_the_expansion_bound() -> None:
    # The first alternative gives "b", but compiling the pattern to check it unrolled the
    # other: over 20 GB for these 35 bytes (a MemoryError under this limit).
    bomb = "^(?:b|(?:(?:a{1000}){1000}){1000})$"
    done = _bounded(
        "from auditor.replay.pattern_example import example_matching\n"
        f"print(repr(example_matching({bomb!r})))",
        cpu_limit=60,
        memory=2 << 30,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"
    # Within the bound, the same shape is built from its first alternative and checked.
    assert example_matching("^(?:b|(?:(?:a{10}){10}){10})$") == "b"


def test_the_ceiling_reached_leaves_every_check_undone() -> None:
    spent = SearchCeiling(2.0, seconds=0.0)
    assert example_matching("^[a-z]{3}$", spent) is None
    assert spent.start_step() is None


def test_without_a_call_budget_a_step_takes_what_is_left_of_the_ceiling() -> None:
    # --call-timeout 0 lifts the budget of a call, not the searches' ceiling.
    ceiling = SearchCeiling(0, seconds=0.3)
    started = cpu_seconds()
    assert example_matching(BACKTRACKING, ceiling) is None
    assert cpu_seconds() - started < seconds(1.5)
    assert ceiling.spent() and ceiling.describe_step() == "the searches' CPU time"
    assert SearchCeiling(0).seconds == 60 and SearchCeiling(10).seconds == 300
