"""Tell a tool catalog given to ``--logs`` from a call log, to say which option it was meant
for.

A catalog given as a log would otherwise be "no call read": true, but it does not say what
to do. This check runs only once the logs have failed (too few calls), so it costs nothing on
a run that works. The other way round (a log given to ``--schemas``) is
``auditor.inputs.log_as_catalog``, which the catalog loader asks.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from auditor.inputs.paths import STDIN, shown

MAX_SNIFFED_CATALOG: Final = 16 * 1024 * 1024
"""A log file larger than this is not read whole to see whether it is a catalog."""

CATALOG_AS_LOG: Final = "looks like a tool catalog, not a call log; did you mean --schemas?"


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
