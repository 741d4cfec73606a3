"""The logged calls that still send a property the change removed, per tool and property.

Whether the new schema ignores such a property (objects open) or refuses it (closed), the
call no longer gets what it asks: each removal some call still sends is a finding of its
own, with the calls' count, how many of them the new schema newly rejects, the callers the
log names and the first calls' ``path:line``. The removals come from
``auditor.schema.removals``; this is their mergeable tally: parts of a log counted apart and
merged in log order give one pass's counts, callers (``KeptByDigest``) and examples (the
first ones of the earliest part first).

Every such call is counted one by one: the tally asks the accepted-repeats counter not to
count the repeats of such a payload together (``Tally.one_by_one``): a repeat's record is not kept,
and its caller would be lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

import orjson

from auditor.aggregate.bounded import KeptByDigest, added
from auditor.aggregate.groups import MAX_DISTINCT_CALLERS, MAX_SHOWN_CALLERS
from auditor.models import JSON, CallResult, Outcome, RemovedPropertyCalls
from auditor.schema.removals import RemovedProperty

MAX_EXAMPLES: Final = 5
"""Calls (``path:line``) kept per removed property, the first in log order."""
MAX_REMEMBERED: Final = 10_000
"""Arguments texts whose removals sent are remembered (``RemovedSent.sent``): a log repeats
few payloads many times, and each such call is counted one by one."""


@dataclass
class _Sent:
    site: RemovedProperty
    calls: int = 0
    newly_rejected: int = 0
    callers: KeptByDigest[int] = field(default_factory=lambda: KeptByDigest(MAX_DISTINCT_CALLERS))
    examples: list[str] = field(default_factory=list)


class RemovedSent:
    """Calls that send each removed property, by (tool, index of the removal in its tool's
    ``removed_properties``)."""

    def __init__(self) -> None:
        self._sent: dict[tuple[str, int], _Sent] = {}
        self._known: dict[tuple[str, str], tuple[int, ...]] = {}
        """By (tool, arguments text): ``sent``'s answer."""

    def __getstate__(self) -> dict[str, object]:
        # A part's counts go back to the parent by pickle: what it remembered stays behind.
        return {"_sent": self._sent, "_known": {}}

    def sent(
        self,
        tool: str,
        sites: Sequence[RemovedProperty],
        text: str | None,
        arguments: JSON = None,
    ) -> tuple[int, ...]:
        """The indices of the ``sites`` a call of ``tool`` sends, from its arguments ``text``
        (or, without one, its parsed ``arguments``)."""
        key = None if text is None else (tool, text)
        if key is not None:
            known = self._known.get(key)
            if known is not None:
                return known
        if text is not None and "\\" not in text and all(f'"{s.name}"' not in text for s in sites):
            found: tuple[int, ...] = ()  # no key of those names (none written with an escape)
        else:
            if arguments is None and text is not None:
                try:
                    arguments = orjson.loads(text)
                except orjson.JSONDecodeError:
                    arguments = None
            found = tuple(index for index, site in enumerate(sites) if site.sent_by(arguments))
        if key is not None:
            if len(self._known) >= MAX_REMEMBERED:
                self._known.clear()
            self._known[key] = found
        return found

    def add(
        self,
        tool: str,
        sites: Sequence[RemovedProperty],
        result: CallResult,
        caller: str | None,
        weight: int = 1,
    ) -> None:
        """Count ``weight`` calls like ``result``'s of ``tool`` (whose removals are ``sites``),
        named by ``caller`` (as reports show it) or by none."""
        call = result.call
        for index in self.sent(tool, sites, call.text, call.arguments):
            site = sites[index]
            sent = self._sent.get((tool, index))
            if sent is None:
                sent = self._sent[(tool, index)] = _Sent(site)
            sent.calls += weight
            if result.outcome is Outcome.NEWLY_REJECTED:
                sent.newly_rejected += weight
            if caller is not None:
                sent.callers.add(caller, weight, added)
            if result.call.source and len(sent.examples) < MAX_EXAMPLES:
                sent.examples.append(result.call.source)

    def merge(self, later: RemovedSent) -> None:
        """Add the counts of the calls that come after these in the log."""
        for key, theirs in later._sent.items():
            mine = self._sent.get(key)
            if mine is None:
                mine = self._sent[key] = _Sent(theirs.site)
            mine.calls += theirs.calls
            mine.newly_rejected += theirs.newly_rejected
            mine.callers.merge(theirs.callers, added)
            mine.examples = (mine.examples + theirs.examples)[:MAX_EXAMPLES]

    def findings(self) -> tuple[RemovedPropertyCalls, ...]:
        """Each removal some call sends, by tool name, then in the order of the tool's changes."""
        return tuple(
            RemovedPropertyCalls(
                tool=tool,
                name=sent.site.name,
                pointer=sent.site.pointer,
                change=sent.site.change,
                ignored=sent.site.ignored,
                calls=sent.calls,
                newly_rejected=sent.newly_rejected,
                callers=_most(sent.callers)[:MAX_SHOWN_CALLERS],
                more_callers=max(0, len(sent.callers) - MAX_SHOWN_CALLERS),
                examples=tuple(sent.examples),
            )
            for (tool, _), sent in sorted(self._sent.items(), key=lambda item: item[0])
        )


def _most(callers: KeptByDigest[int]) -> tuple[tuple[str, int], ...]:
    """The callers, most calls first, then by name."""
    return tuple(sorted(callers.items(), key=lambda item: (-item[1], item[0])))
