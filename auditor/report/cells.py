"""Text measured in terminal cells, not characters: a CJK character takes two cells, a
combining accent none. Widths, padding, cutting and wrapping of the terminal answer all go
through here, with rich's cell tables (rich comes with typer)."""

from __future__ import annotations

import io
from functools import lru_cache
from typing import Final

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.text import Text

MIN_TEXT_CELLS: Final = 20
"""Cells a wrapped line keeps for its text, at least: a hanging indent that would leave less
is dropped, and a terminal narrower than this is wrapped as if it were this wide."""

__all__ = ["MIN_TEXT_CELLS", "cell_len", "cut", "ljust", "rjust", "wrap"]


def ljust(text: str, width: int) -> str:
    """``text`` padded with spaces on the right to ``width`` cells."""
    return text + " " * (width - cell_len(text))


def rjust(text: str, width: int) -> str:
    """``text`` padded with spaces on the left to ``width`` cells."""
    return " " * (width - cell_len(text)) + text


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: as it is when it fits, else its first cells and
    ``…`` (a wide character that would straddle the cut is left out)."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1).rstrip(" ") + "…"


def wrap(text: str, width: int, hang: int | None = None) -> list[str]:
    """``text`` (one line, no control characters) broken at spaces into lines of at most
    ``width`` cells, a word longer than a line cut where it reaches the end; the lines after
    the first are indented by ``hang`` cells (default: the text's own indent and two more)."""
    width = max(width, MIN_TEXT_CELLS)
    if cell_len(text) <= width:  # most lines: no need to divide them
        return [text.rstrip(" ")]
    if hang is None:
        hang = len(text) - len(text.lstrip(" ")) + 2
    if width - hang < MIN_TEXT_CELLS:
        hang = 0
    first, *_ = _lines(text, width)
    rest = text[len(first) :].lstrip(" ")
    lines = [first.rstrip(" ")]
    if rest:
        lines += [" " * hang + line.rstrip(" ") for line in _lines(rest, width - hang)]
    return lines


def _lines(text: str, width: int) -> list[str]:
    """``text`` divided into lines of at most ``width`` cells, spaces kept (so that the first
    line is a prefix of ``text``)."""
    return [line.plain for line in Text(text).wrap(_console(), width, overflow="fold")]


@lru_cache(maxsize=1)
def _console() -> Console:
    # rich wants a console to wrap with; this one is never printed to, and with the default
    # justification wrapping reads nothing from it.
    return Console(file=io.StringIO(), width=MIN_TEXT_CELLS, color_system=None)
