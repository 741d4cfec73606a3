"""How ``--color`` and the environment decide whether the verdict is coloured: the flag's
``always`` and ``never`` win over everything, ``NO_COLOR`` over ``FORCE_COLOR`` and
``CLICOLOR_FORCE``, and those over the terminal check. Every combination is checked; the
run's own output under each is in tests/report/test_table.py."""

from __future__ import annotations

import itertools

import pytest

from auditor.cli.delivery import ColorChoice, colour_wanted

UNSET = None
VALUES = (UNSET, "", "0", "1", "yes")
"""What each variable can be: unset, empty (the conventions count it as unset), 0 (which
``CLICOLOR_FORCE`` reads as "do not force"), and two values that set it."""

COMBINATIONS = [
    (choice, no_color, force_color, clicolor_force, terminal)
    for choice, no_color, force_color, clicolor_force, terminal in itertools.product(
        ColorChoice, VALUES, VALUES, VALUES, (True, False)
    )
]


def _environ(no_color: str | None, force: str | None, clicolor: str | None) -> dict[str, str]:
    pairs = (("NO_COLOR", no_color), ("FORCE_COLOR", force), ("CLICOLOR_FORCE", clicolor))
    return {name: value for name, value in pairs if value is not None}


def test_there_are_that_many_combinations() -> None:
    # Three choices, five values of three variables, a terminal or not.
    assert len(COMBINATIONS) == 3 * 5 * 5 * 5 * 2


@pytest.mark.parametrize(("choice", "no_color", "force", "clicolor", "terminal"), COMBINATIONS)
def test_each_combination_follows_the_order_of_precedence(
    choice: ColorChoice,
    no_color: str | None,
    force: str | None,
    clicolor: str | None,
    terminal: bool,
) -> None:
    wanted = colour_wanted(choice, _environ(no_color, force, clicolor), terminal)
    if choice is ColorChoice.ALWAYS:
        assert wanted  # the user's word, even under NO_COLOR and into a pipe
    elif choice is ColorChoice.NEVER:
        assert not wanted  # even on a terminal, even when CI forces colour
    elif no_color:  # any non-empty value, 0 included (no-color.org)
        assert not wanted
    elif force or clicolor not in (UNSET, "", "0"):
        assert wanted  # a pipe too: a CI log that shows colour
    else:
        assert wanted is terminal


def test_the_rows_a_reader_checks_first() -> None:
    auto = ColorChoice.AUTO
    assert colour_wanted(auto, {}, terminal=True)
    assert not colour_wanted(auto, {}, terminal=False)
    assert colour_wanted(auto, {"FORCE_COLOR": "1"}, terminal=False)
    assert colour_wanted(auto, {"FORCE_COLOR": "0"}, terminal=False)  # any value forces
    assert colour_wanted(auto, {"CLICOLOR_FORCE": "1"}, terminal=False)
    assert not colour_wanted(auto, {"CLICOLOR_FORCE": "0"}, terminal=False)
    assert not colour_wanted(auto, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, terminal=True)
    assert colour_wanted(auto, {"NO_COLOR": "", "CLICOLOR_FORCE": "1"}, terminal=False)
    assert colour_wanted(ColorChoice.ALWAYS, {"NO_COLOR": "1"}, terminal=False)
    assert not colour_wanted(ColorChoice.NEVER, {"FORCE_COLOR": "1"}, terminal=True)
