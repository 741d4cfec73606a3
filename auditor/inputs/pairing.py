"""Pair logged calls with the later replies that say what became of them, in log order.

A reply names its call by an id (a JSON-RPC id, a tool-call id) and comes in the same record
or a later one. Calls wait here until they are answered, or until ``window`` records have gone
by without an answer, or until too many wait; then they go on, in log order, with or without
evidence. Memory is bounded by ``max_waiting`` calls, whatever the log holds.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Final

from auditor.inputs.log_formats import Answer
from auditor.models import Call, Evidence

WINDOW: Final = 1_000
"""Records, at most, between a call and the reply that still counts as its answer."""
MAX_WAITING: Final = 10_000
"""Calls held at most while their answers may still come."""


@dataclass
class _Waiting:
    call: Call
    key: str | None
    record: int
    evidence: Evidence | None = None
    released: bool = False


class Pairing:
    """The calls of one log file, held until their answer comes or cannot come any more."""

    def __init__(self, window: int = WINDOW, max_waiting: int = MAX_WAITING) -> None:
        self._window = window
        self._max_waiting = max_waiting
        self._queue: deque[_Waiting] = deque()
        self._by_key: dict[str, deque[_Waiting]] = {}

    def add(self, call: Call, key: str | None, record: int) -> None:
        """A call read in record number ``record``; ``key`` is what an answer would name."""
        waiting = _Waiting(call, key, record)
        self._queue.append(waiting)
        if key is not None:
            self._by_key.setdefault(key, deque()).append(waiting)

    def answer(self, answer: Answer) -> None:
        """The earliest unanswered call with the answer's key gets its evidence."""
        waiting = self._by_key.get(answer.key)
        if not waiting:
            return  # a reply to a call read too long ago, or to none at all
        first = waiting.popleft()
        if not waiting:
            del self._by_key[answer.key]
        first.evidence = answer.evidence

    def ready(self, record: int) -> Iterator[Call]:
        """Calls that can go on now: in order, up to the first that may still be answered."""
        while self._queue:
            head = self._queue[0]
            waits = head.key is not None and head.evidence is None
            too_old = record - head.record >= self._window
            if waits and not too_old and len(self._queue) <= self._max_waiting:
                return
            yield self._release()

    def rest(self) -> Iterator[Call]:
        """Every call still held, in order (the file has ended: no answer can come)."""
        while self._queue:
            yield self._release()

    def _release(self) -> Call:
        head = self._queue.popleft()
        if head.key is not None and head.evidence is None:
            waiting = self._by_key[head.key]
            waiting.popleft()  # the oldest of its key: the ones before it were answered
            if not waiting:
                del self._by_key[head.key]
        if head.evidence is None:
            return head.call
        return replace(head.call, evidence=head.evidence)
