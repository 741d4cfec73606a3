"""Bounded per-group tables (callers, values sent, observations) that any split counts alike.

A table that keeps the first N distinct keys it meets depends on where the log was cut: a
part that meets more than N keys keeps its own first N and drops the calls of the others,
although one pass would have counted some of them under keys an earlier part kept. Keeping
instead the N keys whose digests are smallest makes the kept set a property of the keys
alone. A key among the N smallest of the whole log is among the N smallest of every part it
occurs in, so each part kept every one of its calls, and merging the parts' tables gives
exactly the counts one pass gives. The digest is BLAKE2b of the key's text: Python's ``hash``
of a string changes with every process.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

V = TypeVar("V")


def rank(key: str) -> tuple[int, str]:
    """Where ``key`` stands among keys: by digest, then (for a collision) by text."""
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big"), key


class KeptByDigest(Generic[V]):
    """At most ``most`` entries by key, those of the keys with the smallest digests; an entry
    of a key that is not kept, or no longer, is never counted again."""

    __slots__ = ("_largest", "_ranks", "entries", "most")

    def __init__(self, most: int) -> None:
        if most < 1:
            raise ValueError("a bounded table keeps at least one key")
        self.most = most
        self.entries: dict[str, V] = {}
        self._ranks: dict[str, tuple[int, str]] = {}
        self._largest: tuple[int, str] | None = None
        """The largest rank kept, once the table is full (found again after an eviction)."""

    def add(self, key: str, value: V, combine: Callable[[V, V], V]) -> None:
        """Count ``value`` under ``key``: ``combine(kept, value)`` when it has an entry."""
        kept = self.entries.get(key)
        if kept is not None:
            self.entries[key] = combine(kept, value)
            return
        mine = rank(key)
        if len(self.entries) >= self.most:
            largest = self._largest
            if largest is None:
                largest = self._largest = max(self._ranks.values())
            if mine > largest:
                return  # the table holds `most` keys that rank before it
            del self.entries[largest[1]], self._ranks[largest[1]]
            self._largest = None
        self.entries[key] = value
        self._ranks[key] = mine

    def merge(self, later: KeptByDigest[V], combine: Callable[[V, V], V]) -> None:
        """Add the entries of ``later``, a table of calls that came after these."""
        for key, value in later.entries.items():
            self.add(key, value, combine)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def items(self) -> Iterator[tuple[str, V]]:
        return iter(self.entries.items())


def added(kept: int, more: int) -> int:
    """``combine`` for counts."""
    return kept + more
