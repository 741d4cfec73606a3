"""Tell a call log given to ``--schemas`` from a tool catalog, to say which option it was
meant for.

A JSON Lines log given as a catalog would otherwise be "invalid YAML" at its second line:
true, but it does not say what to do. The catalog loader asks this module once a file has
failed as a catalog, so the check costs nothing on a run that works. The other way round (a
catalog given to ``--logs``) is ``auditor.inputs.sniff``, which reads catalogs.
"""

from __future__ import annotations

import json
from typing import Final

SNIFF_CHARS: Final = 64 * 1024
"""Characters of a catalog's text looked at for log records."""
SNIFF_LINES: Final = 20
"""Log lines looked at, at most."""

LOG_AS_CATALOG: Final = (
    "looks like a call log (JSON Lines), not a tool catalog; did you mean --logs?"
)


def looks_like_log(text: str) -> bool:
    """Whether ``text`` starts as JSON Lines whose records a log format recognizes: more than
    half of its first non-blank lines (complete ones, up to ``SNIFF_LINES``) records of a
    known format. Not all: real logs hold a broken line here and there."""
    window = text[:SNIFF_CHARS]
    if len(text) > SNIFF_CHARS:
        window = window[: window.rfind("\n") + 1]  # complete lines only
    lines = [line for line in window.splitlines() if line.strip()][:SNIFF_LINES]
    return 2 * sum(_is_record(line) for line in lines) > len(lines)


def _is_record(line: str) -> bool:
    # Only once an input has failed: the log formats (and orjson) stay out of --help.
    from auditor.inputs.log_formats import detect

    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(record, dict) and detect(record) is not None and not _defines(record)


_DEFINING: Final = frozenset({"description", "parameters", "inputSchema", "input_schema"})
_CALLING: Final = frozenset({"arguments", "args", "input"})


def _defines(record: dict[str, object]) -> bool:
    """A named record with a description or a schema and no arguments: a tool's definition
    (a JSON Lines log's ``{"name": ..., "arguments": ...}`` has the same ``name``)."""
    return bool(_DEFINING.intersection(record)) and not _CALLING.intersection(record)
