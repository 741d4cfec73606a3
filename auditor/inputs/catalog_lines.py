"""A catalog written as JSON Lines: one tool definition per line.

BFCL keeps its functions so (``functions.jsonl``: ``{"name", "description", "parameters"}``
on each line), and so do scripts that dump OpenAI or MCP tools one per line. Such a file is
read as the list of its records: the record on the n-th non-blank line is item ``n - 1``, so
a tool's pointer is ``/3/parameters`` and the shape detectors see the list they know. The
positions of keys are found line by line, each at its line in the file.
"""

from __future__ import annotations

import json
from typing import Final

from auditor.inputs.lines import finite_float
from auditor.inputs.positions import Position, key_positions
from auditor.models import JSON

MAX_RECORDS: Final = 100_000
"""Records a JSON Lines catalog may hold: more is no catalog anyone wrote by hand or tool."""


def records(text: str) -> list[JSON] | None:
    """The JSON objects of ``text``, one per non-blank line; None unless there are two or
    more and every non-blank line is one (a single document is read as a document)."""
    found: list[JSON] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if len(found) >= MAX_RECORDS:
            return None
        try:
            record = json.loads(line, parse_constant=_refused, parse_float=finite_float)
        except (ValueError, RecursionError):
            return None
        if not isinstance(record, dict):
            return None
        found.append(record)
    return found if len(found) > 1 else None


def positions(text: str) -> dict[str, Position]:
    """Pointer (``/<record>/...``) -> 1-based (line, column) of every key, as
    ``auditor.inputs.positions.key_positions`` gives them for a document."""
    found: dict[str, Position] = {}
    index = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        root = f"/{index}"
        found[root] = (number, len(line) - len(line.lstrip()) + 1)
        for pointer, (_, column) in key_positions(line, is_json=True).items():
            found[root + pointer] = (number, column)
        index += 1
    return found


def _refused(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")
