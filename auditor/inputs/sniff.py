"""Tell a call log from a tool catalog, to say which option a file was meant for.

A JSON Lines log given to ``--schemas`` would otherwise be "invalid YAML" at its second line,
and a catalog given to ``--logs`` "no call read": both true, neither says what to do. These
checks run only once a file has failed as what it was given as, so they cost nothing on a
run that works.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from auditor.inputs.paths import STDIN, shown

SNIFF_CHARS: Final = 64 * 1024
"""Characters of a catalog's text looked at for log records."""
SNIFF_LINES: Final = 20
"""Log lines looked at, at most."""
MAX_SNIFFED_CATALOG: Final = 16 * 1024 * 1024
"""A log file larger than this is not read whole to see whether it is a catalog."""

LOG_AS_CATALOG: Final = (
    "looks like a call log (JSON Lines), not a tool catalog; did you mean --logs?"
)
CATALOG_AS_LOG: Final = "looks like a tool catalog, not a call log; did you mean --schemas?"


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
    return isinstance(record, dict) and detect(record) is not None


def looks_like_catalog(path: str) -> bool:
    """Whether the log file ``path`` reads as a tool catalog: a regular file, not too large,
    in which catalog detection finds tools. Standard input and gzip files are not sniffed
    (standard input has been read; a catalog is not compressed)."""
    from auditor.inputs.catalogs import parse_catalog, read_bounded  # YAML, only when needed

    if path == STDIN or not os.path.isfile(path):
        return False
    try:
        data = read_bounded(path, MAX_SNIFFED_CATALOG)
    except OSError:
        return False
    if data is None or data.startswith(b"\x1f\x8b"):
        return False
    as_json = None if not path.lower().endswith((".yaml", ".yml")) else False
    tools, problem = parse_catalog(shown(path), data, as_json, None, Path(path).stem)
    return problem is None and bool(tools)


def catalog_given_as_log(paths: Iterable[str]) -> str | None:
    """The message for the first of the log files ``paths`` that reads as a catalog
    (``tools.json: looks like a tool catalog, ...``); None when none does."""
    found = next((path for path in paths if looks_like_catalog(path)), None)
    return None if found is None else f"{shown(found)}: {CATALOG_AS_LOG}"
