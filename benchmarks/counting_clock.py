"""A stand-in for the ``time`` module that counts the clock reads of ``auditor.replay.budget``.

Put in place of ``budget.time`` (``benchmarks/verdict_path.py``, ``tests/replay/test_budget.py``),
it counts each ``time.monotonic`` and ``time.thread_time`` the budget reads and returns the real
reading; any other name is the real ``time`` module's.
"""

from __future__ import annotations

import time
from typing import Any


class CountingClock:
    """Stands in for the ``time`` module inside ``auditor.replay.budget``, counting reads."""

    def __init__(self) -> None:
        self.reads = 0

    def monotonic(self) -> float:
        self.reads += 1
        return time.monotonic()

    def thread_time(self) -> float:
        self.reads += 1
        return time.thread_time()

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)
