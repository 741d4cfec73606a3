"""Kept calls off the driver (``--scratch``): each part writes the non-accepted calls its
tally keeps for the report's list to a side file of its own and ships counts only; the
driver reads the first ``--max-calls`` of them back, part by part in log order.

A part keeps the first ``--max-calls`` calls of its own, so the first ``--max-calls`` of the
whole log are among the side files' (in part order): reading them back gives the list and
``calls_omitted`` of one pass. The driver holds one side file at a time and stops once the
list is full, so its memory does not grow with the number of parts or calls.

The folder must be one run's own (``audit_logs`` makes one inside ``--scratch``), readable
by the driver and writable by every worker (a shared filesystem on a cluster): side files
are pickles, trusted as the run's own.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterable

from auditor.aggregate.pipeline import Tally

PREFIX = "auditor-kept-"
"""The name of the folder a run makes inside ``--scratch`` starts with this."""


def side_file(folder: str, part: int, row: int = 0) -> str:
    """Where part number ``part`` (in log order) puts its kept calls; ``row``: where in the
    part a record batch that puts its own starts (``auditor.engines.core.audit_batch``)."""
    batch = f"-{row:012d}" if row else ""
    return os.path.join(folder, f"kept-{part:08d}{batch}.pickle")


def put_aside(folder: str, part: int, tally: Tally, row: int = 0) -> int:
    """Write the calls ``tally`` keeps to the side file of ``part`` (of its batch from
    ``row``) and let them go; the number written (none: no file)."""
    count = len(tally.kept)
    if count:
        with open(side_file(folder, part, row), "wb") as out:
            pickle.dump(tally.kept, out, protocol=pickle.HIGHEST_PROTOCOL)
    tally.kept = []
    return count


def take_back(
    folder: str, aside: Iterable[tuple[int, int, int]], tally: Tally, max_calls: int | None
) -> None:
    """Fill the list of ``tally`` (the merge of every part's, none kept) with the first
    ``max_calls`` calls put aside, ``aside`` being (part, row, calls written) of every part
    (of every batch, from its row); the rest are counted as omitted."""
    for part, row, count in sorted(aside):
        room = count if max_calls is None else min(count, max_calls - len(tally.kept))
        room = max(room, 0)
        if room:
            with open(side_file(folder, part, row), "rb") as side:
                calls = pickle.load(side)
            tally.kept.extend(calls[:room])
        tally.omitted += count - room
