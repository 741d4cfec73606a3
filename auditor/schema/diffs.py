"""What an edit of a text changes, as a unified diff or as the lines that differ.

Pure text: no file is read here. ``unified_diff`` names a file the way ``git diff`` does,
quoting a name that holds a line break, a control character or a byte that is not ASCII
(``core.quotePath``), so that no file name can end a header line and write a header or a hunk
of its own. ``window_change`` finds the lines that differ between a text and the same text
with a few of its lines replaced, looking only at those lines and their neighbours: one
loosening of a large catalog costs what its lines cost, not what the file does.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class LineChange:
    """The lines that differ between a file's text and an edit of it: lines ``first`` to
    ``last`` (1-based) of the text, the last of them ``last_length`` characters long without
    its line break, become ``text`` (lines joined by ``\\n``, without the last one's break).

    Never empty on either side: lines only added, or only removed, take a neighbouring line
    on both sides (a SARIF replacement needs a region and content of at least one line)."""

    path: str
    first: int
    last: int
    last_length: int
    text: str


def changed_lines(path: str, before: str, after: str) -> LineChange:
    """The lines that differ between ``before`` and ``after`` (texts of the file ``path``)."""
    lines = before.split("\n")
    return window_change(path, lines, 0, len(lines), after.split("\n"))


def window_change(
    path: str, lines: Sequence[str], start: int, stop: int, new_lines: Sequence[str]
) -> LineChange:
    """The ``LineChange`` from the text of ``lines`` (a text split on ``\\n``) to the same text
    with ``lines[start:stop]`` replaced by ``new_lines``: the same answer ``changed_lines``
    gives on both whole texts, from the replaced lines and the equal ones next to them.

    The lines that differ are what is left between the longest common run of first lines
    and the longest common run of last lines; the lines outside the window are common by
    construction, so each run starts at the window and goes on only as long as it matches.
    """
    after_length = len(lines) + len(new_lines) - (stop - start)

    def after(index: int) -> str:
        if index < start:
            return lines[index]
        if index < start + len(new_lines):
            return new_lines[index - start]
        return lines[index - start - len(new_lines) + stop]

    shorter = min(len(lines), after_length)
    head = start
    while head < shorter and lines[head] == after(head):
        head += 1
    tail = min(len(lines) - stop, shorter - head)
    while tail < shorter - head and lines[-1 - tail] == after(after_length - 1 - tail):
        tail += 1
    if head == len(lines) - tail or head == after_length - tail:
        if head > 0:
            head -= 1
        else:
            tail -= 1
    last = len(lines) - tail
    text = "\n".join(after(index) for index in range(head, after_length - tail))
    return LineChange(path, head + 1, last, len(lines[last - 1]), text)


_GIT_ESCAPES: Final = {
    7: "a",
    8: "b",
    9: "t",
    10: "n",
    11: "v",
    12: "f",
    13: "r",
    34: '"',
    92: "\\",
}
"""The bytes git writes as a letter after a backslash in a quoted name (``quote_c_style``)."""


def git_quoted(name: str) -> str:
    """A file name as ``git diff`` writes it in a header: as it is, or, when it holds a
    control character, ``"``, ``\\`` or a byte that is not ASCII, between double quotes
    with those written as C escapes (``\\n``, ``\\"``, ``\\303\\251``: ``core.quotePath``).
    ``git apply`` and GNU ``patch`` read the name back; no byte of it can end the line."""
    try:
        raw = name.encode("utf-8", "surrogateescape")  # a name that is not UTF-8: its bytes
    except UnicodeEncodeError:
        raw = name.encode("utf-8", "surrogatepass")
    if not any(byte < 0x20 or byte >= 0x7F or byte in (0x22, 0x5C) for byte in raw):
        return name
    quoted = "".join(
        "\\" + _GIT_ESCAPES[byte]
        if byte in _GIT_ESCAPES
        else f"\\{byte:03o}"
        if byte < 0x20 or byte >= 0x7F
        else chr(byte)
        for byte in raw
    )
    return f'"{quoted}"'


def unified_diff(path: str, before: str, after: str) -> str:
    """A unified diff of one file, ``a/PATH`` to ``b/PATH`` as ``git apply`` reads it (the
    names quoted as git quotes them, ``git_quoted``)."""
    return minimal_diff(before, after, git_quoted(f"a/{path}"), git_quoted(f"b/{path}"))


def minimal_diff(before: str, after: str, fromfile: str, tofile: str, context: int = 3) -> str:
    """A unified diff that shows only lines that changed.

    ``difflib.unified_diff`` matches with ``autojunk``: in a file of 200 lines or more, a
    line that makes up more than 1% of it (``type: string``) is junk to the matcher, and
    unchanged copies of it come out removed and added again. This is the same format, from
    a matcher without that heuristic.
    """
    a, b = _lines(before), _lines(after)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(context):
        if not out:
            out += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        first, last = group[0], group[-1]
        old = _hunk_range(first[1], last[2])
        new = _hunk_range(first[3], last[4])
        out.append(f"@@ -{old} +{new} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            out += ["-" + line for line in a[i1:i2]]
            out += ["+" + line for line in b[j1:j2]]
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out
    )


def _hunk_range(start: int, stop: int) -> str:
    """``start,length`` as a hunk header writes it (difflib's ``_format_range_unified``)."""
    length = stop - start
    beginning = start + 1 if length else start
    return str(beginning) if length == 1 else f"{beginning},{length}"


def _lines(text: str) -> list[str]:
    return [line for line in re.split(r"(?<=\n)", text) if line]
