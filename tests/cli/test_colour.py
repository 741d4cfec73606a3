"""How ``--color`` and the environment decide whether the verdict is coloured: the flag's
``always`` and ``never`` win over everything, ``NO_COLOR`` over ``FORCE_COLOR`` and
``CLICOLOR_FORCE``, and those over the terminal check, which ``CLICOLOR=0`` turns off. Every
combination is checked; the run's own output under each is in tests/report/test_table.py."""

from __future__ import annotations

import itertools

from auditor.cli.delivery import ColorChoice, colour_wanted

UNSET = None
VALUES = (UNSET, "", "0", "1", "yes")
"""What each variable can be: unset, empty (the conventions count it as unset), 0 (which
``CLICOLOR_FORCE`` reads as "do not force"), and two values that set it."""

COMBINATIONS = list(itertools.product(ColorChoice, VALUES, VALUES, VALUES, VALUES, (True, False)))
"""Every choice, every value of ``NO_COLOR``, ``FORCE_COLOR``, ``CLICOLOR_FORCE`` and
``CLICOLOR``, a terminal or not."""


def _environ(
    no_color: str | None, force: str | None, clicolor_force: str | None, clicolor: str | None
) -> dict[str, str]:
    pairs = (
        ("NO_COLOR", no_color),
        ("FORCE_COLOR", force),
        ("CLICOLOR_FORCE", clicolor_force),
        ("CLICOLOR", clicolor),
    )
    return {name: value for name, value in pairs if value is not None}


def test_there_are_that_many_combinations() -> None:
    # Three choices, five values of four variables, a terminal or not.
    assert len(COMBINATIONS) == 3 * 5**4 * 2


def test_each_combination_follows_the_order_of_precedence() -> None:
    # One test over the 3,750 combinations: a parametrized test each would cost more to
    # collect than to run.
    for choice, no_color, force, clicolor_force, clicolor, terminal in COMBINATIONS:
        environ = _environ(no_color, force, clicolor_force, clicolor)
        wanted = colour_wanted(choice, environ, terminal)
        assert wanted is _expected(choice, no_color, force, clicolor_force, clicolor, terminal), (
            choice,
            environ,
            terminal,
        )


def _expected(
    choice: ColorChoice,
    no_color: str | None,
    force: str | None,
    clicolor: str | None,
    clicolor_switch: str | None,
    terminal: bool,
) -> bool:
    if choice is ColorChoice.ALWAYS:
        return True  # the user's word, even under NO_COLOR and into a pipe
    if choice is ColorChoice.NEVER:
        return False  # even on a terminal, even when CI forces colour
    if no_color:  # any non-empty value, 0 included (no-color.org)
        return False
    if force or clicolor not in (UNSET, "", "0"):
        return True  # a pipe too: a CI log that shows colour, CLICOLOR=0 or not
    return terminal and clicolor_switch != "0"  # CLICOLOR=0: not even a terminal


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
    assert not colour_wanted(auto, {"CLICOLOR": "0"}, terminal=True)
    assert colour_wanted(auto, {"CLICOLOR": "1"}, terminal=True)
    assert colour_wanted(auto, {"CLICOLOR": ""}, terminal=True)
    assert not colour_wanted(auto, {"CLICOLOR": "1"}, terminal=False)  # it does not force
    assert colour_wanted(auto, {"CLICOLOR": "0", "CLICOLOR_FORCE": "1"}, terminal=True)
