"""Line and column of every key in a JSON or YAML document, by JSON pointer.

JSON is (for this purpose) YAML, so one composer serves both: PyYAML's node tree keeps the
start mark of every key and item without building Python objects.
"""

from __future__ import annotations

from typing import Final

import yaml

from auditor import pointers

_Loader: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Position = tuple[int, int]


def composable(text: str, is_json: bool) -> str:
    """Text YAML can compose with every index unchanged.

    YAML refuses tabs where JSON allows them as whitespace; JSON strings cannot hold a raw
    tab, so in JSON every tab is whitespace and a space in its place keeps all offsets.
    """
    return text.replace("\t", " ") if is_json else text


def key_positions(text: str, is_json: bool = False) -> dict[str, Position]:
    """Pointer -> 1-based (line, column) of the key (in a mapping) or item (in a sequence).

    Returns an empty map when the text cannot be composed; positions are a courtesy, never a
    reason to fail.
    """
    try:
        root = yaml.compose(composable(text, is_json), Loader=_Loader)
    except yaml.YAMLError:
        return {}
    found: dict[str, Position] = {}
    if root is not None:
        _collect(root, "", found)
    return found


MAX_DEPTH: Final = 256
"""Pointer depth below which positions are not recorded. Every position is keyed by its whole
pointer, so memory grows with the square of the depth: a 10,000-level schema would take
gigabytes. Schemas nested past 100 levels are unusable anyway (``auditor.inputs.limits``), and 256
pointer segments hold that with room to spare."""


def _collect(node: yaml.Node, pointer: str, found: dict[str, Position]) -> None:
    # An explicit stack: catalogs can nest deeper than Python's recursion limit. A YAML alias
    # shares its node; it is expanded once, so an alias bomb costs no more than its text.
    stack = [(node, pointer, 0)]
    seen: set[int] = set()
    while stack:
        current, at, depth = stack.pop()
        if id(current) in seen or depth >= MAX_DEPTH:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                child = pointers.join(at, str(key.value))
                found.setdefault(child, (key.start_mark.line + 1, key.start_mark.column + 1))
                stack.append((value, child, depth + 1))
        elif isinstance(current, yaml.SequenceNode):
            for i, item in enumerate(current.value):
                child = pointers.join(at, i)
                found.setdefault(child, (item.start_mark.line + 1, item.start_mark.column + 1))
                stack.append((item, child, depth + 1))
