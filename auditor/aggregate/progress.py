"""A progress line on stderr for long audits: calls read, calls per second, time left.

Shown only when stderr is a terminal (and not with ``--quiet``); it writes nothing else and
changes nothing in any report.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Final, TextIO, TypeVar

T = TypeVar("T")
_EVERY: Final = 0.25
"""Seconds between redraws: smooth enough, and cheap."""
_CHECK: Final = 2048
"""Items between clock reads."""


class Progress:
    """Draws ``calls read, calls/s, ETA`` from the calls and bytes read so far."""

    def __init__(self, total_bytes: int, stream: TextIO | None = None) -> None:
        self._total = total_bytes
        self._stream = stream
        self._started = time.monotonic()
        self._drawn = 0.0

    @classmethod
    def for_terminal(cls, total_bytes: int, quiet: bool) -> Progress:
        shown = not quiet and sys.stderr.isatty()
        return cls(total_bytes, sys.stderr if shown else None)

    def wrap(
        self,
        items: Iterable[T],
        bytes_read: Callable[[], int],
        counted_aside: Callable[[], int] = lambda: 0,
    ) -> Iterator[T]:
        """Pass ``items`` through, redrawing now and then; ``counted_aside``: the calls read
        but not passed on (repeats the reader counted itself)."""
        if self._stream is None:
            yield from items
            return
        for count, item in enumerate(items, start=1):
            if count % _CHECK == 0:
                self.update(count + counted_aside(), bytes_read())
            yield item
        self.done()

    def update(self, calls: int, done_bytes: int) -> None:
        now = time.monotonic()
        if self._stream is None or now - self._drawn < _EVERY:
            return
        self._drawn = now
        elapsed = max(now - self._started, 1e-9)
        rate = calls / elapsed
        left = (self._total - done_bytes) * elapsed / done_bytes if done_bytes else 0.0
        eta = f", about {left:.0f} s left" if self._total and done_bytes else ""
        self._stream.write(f"\r{calls:,} calls read, {rate:,.0f} calls/s{eta}   ")
        self._stream.flush()

    def done(self) -> None:
        if self._stream is not None:
            self._stream.write("\r\033[K")
            self._stream.flush()
