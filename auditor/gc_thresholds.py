"""The garbage collector's thresholds while an audit counts its calls, builds its report and
renders it: raised for that extent, put back when the outermost such scope ends.

Counting makes a few container objects per call that die young and hold no cycle, while the
memo, the per-tool caches and the tally grow old: with Python's thresholds (700, 10, 10) the
collector ran every 700 allocations and took 10% of an audit of distinct calls (11.0 -> 9.9 s
CPU at 300,000 calls; ``gc.freeze()`` after compiling saved nothing). Cycles (an exception's
traceback, python-jsonschema's error contexts) are still collected, in larger batches.

The scope covers the report's build and rendering too, not the counting alone. Raised
thresholds make the collector promote survivors to the oldest generation without ever
examining it, so a full collection is owed when they are put back; with them put back right
after counting, it came a few thousand allocations later, in the middle of rendering the JSON
report, and walked every object the audit still held (the memo's entries above all): 0.73 of
the 1.02 CPU seconds of that rendering at 300,000 calls. Kept until the reports are made, the
owed collection falls after the audit, once; the command line spares even that one, by
freezing the heap just before it exits (``auditor.cli.console``).

Within an audit ``gc.freeze()`` was not the fix: what it freezes is never collected until
``gc.unfreeze()``, which thaws every frozen object, an embedding program's own ones included (a
pre-fork server's frozen heap), and the audit's leftovers hold cycles (its compiled validators,
and errors that were garbage already).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

AUDIT_GC: Final = (50_000, 20, 100)
"""The collector's thresholds within the scope (Python's: 700, 10, 10)."""


class _Scopes:
    """How many scopes are open (across threads: the thresholds are the process's), and the
    thresholds the first one found."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open = 0
        self.before: tuple[int, int, int] = gc.get_threshold()


_SCOPES: Final = _Scopes()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the body with the thresholds ``AUDIT_GC``; the thresholds found when the outermost
    scope began are put back when it ends, by an error too. Nested and concurrent scopes share
    the outermost's extent: an inner one ending does not put them back."""
    with _SCOPES.lock:
        if _SCOPES.open == 0:
            _SCOPES.before = gc.get_threshold()
            gc.set_threshold(*AUDIT_GC)
        _SCOPES.open += 1
    try:
        yield
    finally:
        with _SCOPES.lock:
            _SCOPES.open -= 1
            if _SCOPES.open == 0:
                gc.set_threshold(*_SCOPES.before)
