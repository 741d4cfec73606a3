"""Counts in sentences, said one way by every format: thousands separators, and the singular
for one (``1 call meets``, ``1,234 calls meet``).

Nothing here knows a format or imports one, so the stages that word their own sentences
(hints, evidence lines) use the same helpers as the renderers.
"""

from __future__ import annotations


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 call``, ``2 calls``, ``1,234 calls``, ``0 calls``; ``words`` is the plural where it
    is not ``word`` + s (``plural(2, "entry", "entries")``)."""
    return f"{count:,} {word if count == 1 else (words or word + 's')}"


def agree(count: int, one: str, many: str) -> str:
    """The word that agrees with ``count``: ``one`` for exactly one, else ``many``
    (``agree(n, "was", "were")``, ``agree(n, "fails", "fail")``)."""
    return one if count == 1 else many
