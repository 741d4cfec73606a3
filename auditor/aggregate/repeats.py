"""Distinct-first counting: an accepted call whose payload was seen accepted is only counted.

Most calls of a log are accepted, and most accepted calls repeat an earlier payload (the
same tool, arguments text and logged evidence). Such a repeat changes nothing in a report but
counts: it is not listed, grouped or kept as a sample (its text already is one, or the
samples were full or its tool has none), so it is not replayed nor turned into a result; it
adds one to the weight of its payload, and the tally counts each payload's weight at once
(``Tally.add(..., weight)``). Counts add up in any order, so the report is the one a call by
call pass gives. Calls that are not accepted always go through one by one: their order, each
one's ``path:line`` and their examples are what the report shows.

A payload is remembered after its second accepted replay (the first leaves a hash); memory is
bounded by the number of payloads and the characters of their texts, and reaching a bound
settles the weights so far.

Payloads can also be known before the calls are read (``preload``: an engine replays the
payloads the whole log repeats once, ``auditor.engines.distinct``): no call of one is
replayed, all are counted as repeats (``preloaded``). The first call of each, which replaying
would have offered as a sample, is offered as one (``Tally.offer``): samples are the first
distinct texts in log order, so offering a text's first call is offering all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from auditor.models import Call, CallResult, Outcome, Payload
from auditor.replay.tool import MEMO_MAX_ARGUMENT, text_of

MAX_PAYLOADS: Final = 50_000
"""Accepted payloads remembered at once."""
MAX_PAYLOAD_CHARS: Final = 32 << 20
"""Characters of arguments text the remembered payloads may hold together."""
ONCE_PER_PAYLOAD: Final = 4
"""Hashes of payloads seen once kept per remembered payload (about 50 bytes each)."""

Known = tuple[bool, frozenset[int]]
"""What counting a call of a payload known accepted needs: whether the log contradicts the
old runtime for it, and the rewrites (and constraints) its evaluation reached."""


@dataclass(slots=True)
class _Seen:
    """What counting a repeat of an accepted payload needs: never its arguments."""

    contradicts: bool
    reached: frozenset[int]
    repeats: int = 0
    """Calls of the payload after its first, not counted yet."""


class AcceptedRepeats:
    """Payloads replayed as accepted, each with the repeats counted since (its weight)."""

    def __init__(
        self,
        payloads: int = MAX_PAYLOADS,
        chars: int = MAX_PAYLOAD_CHARS,
        preload: Mapping[Payload, Known] | None = None,
    ) -> None:
        """``preload``: payloads known accepted before any call is read, never replayed."""
        self._preload: Mapping[Payload, Known] = preload or {}
        self._most = payloads
        self._chars_most = chars
        self._chars = 0
        self._seen: dict[Payload, _Seen] = {}
        self._once: set[int] = set()
        """Hashes of the payloads replayed as accepted once."""
        self.hits = 0
        """Calls counted as repeats by a reader, which does not pass them on
        (``repeat_aside``; for the progress line)."""
        self.one_by_one: Callable[[Payload], bool] = _never
        """Payloads whose calls are never counted as repeats (``Tally.one_by_one``): each is
        replayed and counted with its own record (its line, its caller)."""

    @staticmethod
    def payload(call: Call) -> Payload | None:
        """What identifies the call's outcome; None for a call that must be replayed (no tool,
        arguments that did not parse, or a text too long to remember, as the memo does)."""
        if call.tool is None or call.unparsed is not None:
            return None
        text = call.text if call.text is not None else text_of(call.arguments)
        if text is None or len(text) > MEMO_MAX_ARGUMENT:
            return None
        return (call.tool, text, call.evidence)

    def repeat(self, payload: Payload) -> bool:
        """Count one more call of ``payload`` when it is known accepted; False otherwise."""
        known = self._seen.get(payload)
        if known is None:
            return False
        known.repeats += 1
        return True

    def repeat_aside(self, payload: Payload) -> bool:
        """``repeat``, for a reader that counts the call itself and does not pass it on:
        such calls are counted in ``hits`` (the progress line's calls read)."""
        if self.repeat(payload):
            self.hits += 1
            return True
        return False

    def known_mask(self, payloads: Sequence[Payload]) -> bytes:
        """One byte per payload: 1 where ``repeat`` would count its calls now (it is known
        accepted), else 0. A payload counted one by one (``one_by_one``) is never known, nor
        is one only preloaded: its first call is replayed or offered as a sample."""
        seen = self._seen
        return bytes([payload in seen for payload in payloads])

    def repeat_many(self, payloads: Sequence[Payload], counts: Mapping[int, int]) -> None:
        """Count ``counts[index]`` more calls of ``payloads[index]``, each of which
        ``known_mask`` marked known (nothing ran since), as ``repeat_aside`` counts them one
        by one: the same weights, the same ``hits``."""
        seen = self._seen
        for index, calls in counts.items():
            seen[payloads[index]].repeats += calls
            self.hits += calls

    @property
    def preloading(self) -> bool:
        """Whether payloads were preloaded (else ``preloaded`` is always False)."""
        return bool(self._preload)

    def preloaded(self, payload: Payload) -> bool:
        """Count one call of ``payload`` when it was preloaded, known accepted (then its later
        calls are repeats); False otherwise. Called when ``repeat`` says False: the call is
        the payload's first since the last ``settle``, which its caller offers as a sample."""
        known = self._preload.get(payload)
        if known is None or self.one_by_one(payload):
            return False
        contradicts, reached = known
        self._seen[payload] = _Seen(contradicts, reached, 1)
        return True

    def remember(self, payload: Payload, result: CallResult, reached: frozenset[int]) -> bool:
        """Note a replay of ``payload``, when accepted; True when a bound is reached and
        ``settle`` should run.

        A payload is remembered from its second replay on: the first only leaves its hash
        (an int, which the garbage collector never visits), so that a log of distinct
        arguments pays one set lookup per call and keeps no object per payload (keeping
        them made such a log 14% slower). A hash that collides only remembers early."""
        if result.outcome is not Outcome.ACCEPTED or result.over_budget:
            # An accepted call whose evaluation ran out of budget counts as such, each time
            # (its verdict is remembered by the memo): ``settle`` counts weights as within it.
            return False
        if self.one_by_one(payload):
            return False
        digest = hash(payload)
        if digest not in self._once:
            if len(self._once) >= self._most * ONCE_PER_PAYLOAD:
                self._once.clear()  # forgetting only delays remembering
            self._once.add(digest)
            return False
        self._seen[payload] = _Seen(result.contradicts, reached)
        self._chars += len(payload[1])
        return len(self._seen) >= self._most or self._chars >= self._chars_most

    def settle(self) -> Iterator[tuple[CallResult, frozenset[int], int]]:
        """Each payload's result, reached rewrites and repeats not yet counted; forgets them."""
        seen, self._seen, self._chars = self._seen, {}, 0
        for (tool, text, evidence), known in seen.items():
            if known.repeats:
                # The call as far as counting reads it: its text finds the sample it is.
                call = Call("", tool, text=text, evidence=evidence)
                accepted = CallResult(call, Outcome.ACCEPTED, contradicts=known.contradicts)
                yield accepted, known.reached, known.repeats


def _never(payload: Payload) -> bool:
    """``one_by_one`` by default: every payload's repeats are counted together."""
    return False
