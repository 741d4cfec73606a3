"""How counts and option values are said, one way by every stage that words a sentence.

Thousands separators and the singular for one (``1 call meets``, ``1,234 calls meet``), and a
``--fail-min-share`` value as the user wrote it. Nothing here knows an output format, so the
aggregation stage (hints, evidence lines, the gate's reasons) and the renderers share it.
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


def share_text(share: float) -> str:
    """A ``--fail-min-share`` value as the user would write it: ``0.001``, ``0.5``, ``1``."""
    short = f"{share:g}"
    return short if float(short) == share else repr(share)
