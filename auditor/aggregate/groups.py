"""Group rejected and changed calls by constraint, streaming: counts and a few examples each.

A group is one tool, one outcome, one failing keyword at one schema pointer, for the same cause
rewrites. It is what a reviewer decides about (loosen that keyword, or fix those callers) and
what a baseline accepts, so its fingerprint must not change from log to log: it hashes the
constraint, never the instance pointer or the values, which vary from call to call.
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Final

from auditor import pointers
from auditor.aggregate.bounded import KeptByDigest, added
from auditor.aggregate.hints import (
    contradiction_hint,
    hint,
    observation_key,
    removed_tool_hint,
)
from auditor.aggregate.json_keys import sorted_text, unicode_text
from auditor.aggregate.loosen import Witness
from auditor.defaults import DEFAULT_EXAMPLES
from auditor.models import (
    JSON,
    CallResult,
    Change,
    Example,
    Group,
    HintKind,
    OffendingValue,
    Outcome,
)
from auditor.replay.outcome import contradicted

GROUPED: Final = frozenset(
    {
        Outcome.NEWLY_REJECTED,
        Outcome.SCHEMA_ERROR_AFTER,
        Outcome.SCHEMA_ERROR_BEFORE,
        Outcome.NEWLY_ACCEPTED,
    }
)
"""Outcomes that change with the upgrade; still-rejected and unreplayed calls are not grouped."""
MAX_DISTINCT_OBSERVATIONS: Final = 200
"""Distinct observations counted per group; beyond, a value-rich log would grow memory."""
MAX_DISTINCT_CALLERS: Final = 1_000
"""Distinct callers counted per group; the calls of further ones are not attributed."""
MAX_SHOWN_CALLERS: Final = 10
"""Callers a group lists, most calls first; the rest are counted."""
MAX_OFFENDING: Final = 20
"""Distinct values sent counted per group (as the report shows them); the calls of further
values are not attributed."""
MAX_SHOWN_OFFENDING: Final = 10
"""Distinct values sent a group lists, most calls first."""

# Newly rejected first (the headline), then the schema problems, then the rest.
_OUTCOME_ORDER: Final = {
    Outcome.SCHEMA_ERROR_AFTER: 0,
    Outcome.NEWLY_REJECTED: 1,
    Outcome.SCHEMA_ERROR_BEFORE: 2,
    Outcome.NEWLY_ACCEPTED: 3,
}


@functools.lru_cache(maxsize=4096)
def fingerprint(
    tool: str,
    outcome: Outcome,
    causes: tuple[Change, ...],
    keyword: str,
    schema_pointer: str,
    problem: str = "",
    caller: str | None = None,
    contradiction: bool = False,
    results: bool = False,
) -> str:
    """A stable 16-hex-digit key for a group: the same constraint gives the same key, and
    with ``--group-by caller`` the same constraint and caller; the calls the log contradicts
    (``Group.contradicted``) are a group apart from the regressions at the same constraint,
    and a group of results (``results``) from the arguments' at the same pointer.

    Remembered: a log repeats few constraints many times, and this runs per rejected call.
    """
    fields: list[object] = [
        tool,
        outcome.value,
        sorted([r.pointer, r.old, r.new] for r in causes),
        keyword,
        schema_pointer,
        problem,
    ]
    if caller is not None:  # only split groups carry it: other keys stay as they were
        fields.append(["caller", caller])
    if contradiction:  # likewise
        fields.append(["contradicted"])
    if results:  # likewise: the arguments' keys stay as they were
        fields.append(["results"])
    payload = unicode_text(fields)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


@dataclass
class Offending:
    """One distinct value a group's calls sent where they fail, with its calls."""

    value: JSON
    calls: int
    first: str
    last: str


@dataclass
class _Pending:
    outcome: Outcome
    tool: str
    causes: tuple[Change, ...]
    keyword: str
    schema_pointer: str
    first: str
    error: str
    problem: str
    count: int = 0
    proven: int = 0
    last: str = ""
    examples: list[Example] = field(default_factory=list)
    observed: KeptByDigest[int] = field(
        default_factory=lambda: KeptByDigest(MAX_DISTINCT_OBSERVATIONS)
    )
    callers: KeptByDigest[int] = field(default_factory=lambda: KeptByDigest(MAX_DISTINCT_CALLERS))
    caller: str | None = None
    offending: KeptByDigest[Offending] = field(default_factory=lambda: KeptByDigest(MAX_OFFENDING))
    """Values sent at the failing place, as the report shows them, by their JSON text."""
    witness: Witness = field(default_factory=Witness)
    contradicted: bool = False


class GroupCollector:
    """Accumulates groups call by call, keeping counts and at most ``examples`` calls each;
    ``by_caller`` splits each group by the caller the log names (``--group-by caller``)."""

    def __init__(
        self, examples: int = DEFAULT_EXAMPLES, by_caller: bool = False, results: bool = False
    ) -> None:
        """``results``: the calls are results (their groups' fingerprints say so)."""
        self._examples = examples
        self._by_caller = by_caller
        self._results = results
        self._pending: dict[str, _Pending] = {}

    def add(self, result: CallResult, raw: CallResult | None = None, schema: JSON = None) -> None:
        """Count ``result`` (already sanitized) in each group it belongs to, once per group;
        ``raw``, the same result unsanitized, and ``schema``, its tool's new schema, feed the
        groups' witnesses (``auditor.aggregate.loosen``) for newly rejected calls."""
        if result.outcome not in GROUPED:
            return
        witnessed = raw is not None and result.outcome is Outcome.NEWLY_REJECTED
        tool = result.call.tool or ""
        problem = result.schema_problem or ""
        split = (result.call.caller or "") if self._by_caller else None
        # The groups this call is counted in, with the observations counted for it there: a
        # call missing two required names fails `required` twice, and counts once.
        seen: dict[str, set[str]] = {}
        if not result.errors:
            key = fingerprint(
                tool, result.outcome, (), "", "", problem, split, False, self._results
            )
            self._count(key, result, "", "", (), problem or "", "", [])
            return
        for index, issue in enumerate(result.errors):
            apart = contradicted(result, issue)
            key = fingerprint(
                tool,
                result.outcome,
                issue.causes,
                issue.keyword,
                issue.schema_pointer,
                "",
                split,
                apart,
                self._results,
            )
            observed = [observation_key(o) for o in issue.observed]
            if key in seen:
                self._observe(self._pending[key], [o for o in observed if o not in seen[key]])
                seen[key].update(observed)
                if witnessed and raw is not None:
                    self._pending[key].witness.add(raw.errors[index], raw.call.arguments, schema)
                continue
            seen[key] = set(observed)
            self._count(
                key,
                result,
                issue.keyword,
                issue.schema_pointer,
                issue.causes,
                issue.message,
                issue.instance_pointer,
                observed,
                apart,
            )
            if witnessed and raw is not None:
                self._pending[key].witness.add(raw.errors[index], raw.call.arguments, schema)

    def settled(
        self, result: CallResult, tool: str, caller: str | None, before: Collection[str] = ()
    ) -> bool:
        """Whether every group ``result`` would count in exists and holds all its examples:
        counting it then shows nothing of it but counts and evidence. ``tool`` and ``caller``:
        the call's as sanitized for the report (as ``add`` is given them); ``before``: the
        fingerprints of groups that earlier calls, counted elsewhere, filled."""
        if result.outcome not in GROUPED:
            return True
        split = (caller or "") if self._by_caller else None
        outcome = result.outcome
        tag = self._results
        keys = [
            fingerprint(tool, outcome, i.causes, i.keyword, i.schema_pointer, "", split, apart, tag)
            for i in result.errors
            for apart in (contradicted(result, i),)
        ] or [
            fingerprint(tool, outcome, (), "", "", result.schema_problem or "", split, False, tag)
        ]
        for key in keys:
            pending = self._pending.get(key)
            if (pending is None or len(pending.examples) < self._examples) and key not in before:
                return False
        return True

    def filled(self) -> list[str]:
        """The fingerprints of the groups that hold all their examples: no later call can
        be one of their examples."""
        return [key for key, p in self._pending.items() if len(p.examples) >= self._examples]

    def observed(self, key: str) -> Counter[str]:
        """The observations counted for the group of fingerprint ``key``."""
        pending = self._pending.get(key)
        return Counter() if pending is None else Counter(pending.observed.entries)

    def witness(self, key: str) -> Witness | None:
        """What every call of the group of fingerprint ``key`` sent at its keyword."""
        pending = self._pending.get(key)
        return None if pending is None else pending.witness

    def _count(
        self,
        key: str,
        result: CallResult,
        keyword: str,
        schema_pointer: str,
        causes: tuple[Change, ...],
        error: str,
        instance_pointer: str,
        observed: list[str],
        apart: bool = False,
    ) -> None:
        """``apart``: the group of calls the log contradicts at this constraint."""
        source = result.call.source
        pending = self._pending.get(key)
        if pending is None:
            pending = self._pending[key] = _Pending(
                result.outcome,
                result.call.tool or "",
                causes,
                keyword,
                schema_pointer,
                first=source,
                error=error,
                problem=result.schema_problem or "",
                caller=(result.call.caller or "") if self._by_caller else None,
                contradicted=apart,
            )
        pending.count += 1
        caller = result.call.caller
        if caller is not None:
            pending.callers.add(caller, 1, added)
        pending.proven += result.proven and not apart  # a contradiction proves no regression
        pending.last = source
        if len(pending.examples) < self._examples:
            pending.examples.append(
                Example(source, result.call.arguments, instance_pointer, result.call.evidence)
            )
        self._observe(pending, observed)
        found, value = pointers.resolve(result.call.arguments, instance_pointer)
        if found and keyword:
            text = _key(value)
            known = pending.offending.entries.get(text)
            if known is not None:  # sent again: what ``_later`` does, without a record to add
                known.calls += 1
                known.last = source
            else:
                pending.offending.add(text, Offending(value, 1, source, source), _later)

    def merge(self, later: GroupCollector) -> None:
        """Add the groups of calls that come after these in the log, as if added one by one."""
        for key, theirs in later._pending.items():
            mine = self._pending.get(key)
            if mine is None:
                self._pending[key] = theirs
                continue
            mine.count += theirs.count
            mine.proven += theirs.proven
            mine.last = theirs.last
            mine.examples.extend(theirs.examples[: self._examples - len(mine.examples)])
            mine.witness.merge(theirs.witness)
            mine.observed.merge(theirs.observed, added)
            mine.offending.merge(theirs.offending, _later)
            mine.callers.merge(theirs.callers, added)

    @staticmethod
    def _observe(pending: _Pending, observed: list[str]) -> None:
        for key in dict.fromkeys(observed):
            pending.observed.add(key, 1, added)

    def groups(self, tool_calls: Mapping[str, int], baseline: frozenset[str]) -> tuple[Group, ...]:
        """The groups, schema errors after first, then within each outcome the groups with
        proven regressions (calls the log shows ran) first, largest first, and last the
        groups the log contradicts."""
        built = [
            Group(
                fingerprint=key,
                outcome=p.outcome,
                tool=p.tool,
                causes=p.causes,
                keyword=p.keyword,
                schema_pointer=p.schema_pointer,
                count=p.count,
                proven=p.proven,
                tool_calls=tool_calls.get(p.tool, p.count),
                first=p.first,
                last=p.last,
                error=p.error,
                examples=tuple(p.examples),
                hint=removed_tool_hint(p.tool, p.count)
                if any(cause.removes_tool for cause in p.causes)
                else contradiction_hint(p.tool, p.keyword, p.schema_pointer, p.count)
                if p.contradicted
                else hint(
                    p.outcome,
                    p.tool,
                    p.keyword,
                    p.schema_pointer,
                    p.count,
                    tool_calls.get(p.tool, p.count),
                    Counter(p.observed.entries),
                    p.problem,
                ),
                baselined=key in baseline,
                callers=_most(p.callers)[:MAX_SHOWN_CALLERS],
                more_callers=max(0, len(p.callers) - MAX_SHOWN_CALLERS),
                caller=p.caller,
                offending=_offending_values(p.offending),
                contradicted=p.contradicted,
            )
            for key, p in self._pending.items()
        ]
        # The values to fix are for groups whose callers may be the ones to change.
        built = [
            g
            if g.hint.kind in (HintKind.FIX_CALLERS, HintKind.REVIEW)
            else replace(g, offending=())
            for g in built
        ]
        return tuple(
            sorted(
                built,
                key=lambda g: (
                    _OUTCOME_ORDER[g.outcome],
                    g.contradicted,  # after the regressions of their outcome
                    not g.proven,
                    -g.count,
                    g.tool,
                    g.schema_pointer,
                    g.keyword,
                    g.caller or "",
                    g.fingerprint,
                ),
            )
        )


def _most(callers: KeptByDigest[int]) -> tuple[tuple[str, int], ...]:
    """Callers by calls, most first, then by name: the same order whatever the log order."""
    return tuple(sorted(callers.items(), key=lambda item: (-item[1], item[0])))


def _key(value: JSON) -> str:
    return sorted_text(value)


def _later(known: Offending, later: Offending) -> Offending:
    """``combine`` for a value sent again, by calls after ``known``'s."""
    known.calls += later.calls
    known.last = later.last
    return known


def _offending_values(pending: KeptByDigest[Offending]) -> tuple[OffendingValue, ...]:
    """The values most sent first, then by their text: the same order whatever the split."""
    ordered = sorted(pending.items(), key=lambda item: (-item[1].calls, item[0]))
    return tuple(
        OffendingValue(o.value, o.calls, o.first, o.last) for _, o in ordered[:MAX_SHOWN_OFFENDING]
    )
