"""Counterexamples: for a change the logs never tested, an argument that shows it bites.

For each change no logged call reached (or that no call failed), the search looks for an
argument the old runtime accepts and the new schema rejects *because of that change* (one of
the new errors names it among its causes), checked with the tool's own validators on both
sides (``ToolReplay.verdicts``: the old side as the old runtime reads it).

The search is targeted and deterministic, never random:

1. Proofs first. A change is *harmless* when no argument can be rejected because of it: its
   keyword is an annotation the validator asserts nothing for, its value constrains nothing
   (``minLength: 0``, ``required: []``, ``additionalProperties: true``...), it removes an
   assertion, or the old runtime could not use the old schema at all.
2. Edits of real calls. Starting from accepted logged calls of the tool (smallest first),
   one JSON Patch operation at the instance places the changed keyword applies to (those
   the references into a definition lead to included: ``instance_places``), with
   values chosen by the keyword (``[]`` against ``minItems: 1``, a longer string against
   ``maxLength``, an unknown key against ``additionalProperties: false``, a required key
   removed, a value of another type...). One edit is the fewest there can be.
3. Edits of generated arguments. The same edits, from a small argument built from the new
   schema (its required properties with minimal values) and from ``{}``.

Every candidate costs one replay, under the per-call time budget; a change gets at most
``MAX_CANDIDATES`` of them and a whole audit ``MAX_AUDIT_CANDIDATES``. A change without a
counterexample within the bound is reported as such, never as harmless.

The searches of an audit also share one CPU-time ceiling (``SearchCeiling``): every regex
match they make (a built pattern example checked, a declared name matched against
``patternProperties``) and every proof's evaluation keeps to one call's budget; the edits of
an argument stop at the first candidate whose evaluation runs past its call's budget; and
once the ceiling is reached the changes left are reported as not searched. The walks behind the
proofs and the candidates are bounded in count (``MAX_WAYS``, ``MAX_NAME_MATCHES``,
``MAX_GENERATED``, ``MAX_BUILT_SIZE``), so an ordinary search never comes near the ceiling.
"""

from __future__ import annotations

import copy
import json
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any, Final

import orjson

from auditor import pointers
from auditor.models import (
    JSON,
    Change,
    Counterexample,
    CounterexampleStatus,
    Edit,
    OldRuntime,
    Rule,
    Verdict,
)
from auditor.replay.budget import SearchCeiling, budgeted
from auditor.replay.causes import keyword_position
from auditor.replay.constraints import ASSERTIONS
from auditor.replay.fast_validator import trusted
from auditor.replay.instance_places import (
    ABSENT,
    MAX_LOCATIONS,
    places,
    referrers,
    templates,
    wrapped,
)
from auditor.replay.pattern_example import example_matching
from auditor.replay.tool import VALIDATORS, ToolReplay
from auditor.schema.keywords import (
    ANNOTATIONS,
    VOCABULARY,
    Draft,
    Kind,
    draft_of,
    schema_objects,
)
from auditor.schema.removals import ignores, names, same_place, undeclared

ARGUMENT_PROTOCOLS: Final = "MCP, OpenAI, Anthropic, Gemini"
"""The protocols whose tool arguments are always a JSON object: no counterexample is anything
else, and a schema's own ``type: object`` at its root never fails one."""
MAX_CANDIDATES: Final = 200
"""Candidate arguments replayed per change before the search gives up."""
MAX_AUDIT_CANDIDATES: Final = 20_000
"""Candidate arguments replayed per audit: a catalog of thousands of unreached changes stays
a matter of seconds."""
MAX_SAMPLES: Final = 20
"""Accepted logged arguments kept per tool to edit from (the first distinct ones in log order)."""
MAX_SAMPLE_BYTES: Final = 2048
"""Arguments texts longer than this are not kept as samples: counterexamples stay small."""
MAX_STARTS: Final = 8
"""Logged calls (the smallest) one change's search edits: one that bites mostly bites on the
first; the others repeat the same edits."""
_MAX_BOUND: Final = 10_000
"""Length and count bounds beyond this are not met by building a value that large."""
MAX_GENERATED: Final = 20 * MAX_CANDIDATES
"""Edits one change's search may generate, repeats of earlier candidates included: a long
list of equal values (an old ``enum`` of 200,000 copies) is not walked to its end."""
MAX_BUILT_SIZE: Final = 100_000
"""Values and string characters an argument built from the schema may hold (``minimal``):
nested ``minItems: 100`` arrays doubled their size a hundredfold per level."""
MAX_REPEATED_BYTES: Final = 1 << 20
"""JSON text of a list built of copies of one item (against ``minItems``/``maxItems``): past
it, the copies are null (a 2 KB item times 10,000 was 20 MB per candidate)."""
MAX_WAYS: Final = 1_000
"""Schema objects one proof visits following the references into a definition: a chain of
definitions each referred to from several places multiplied the ways to walk."""
MAX_NAME_MATCHES: Final = 100_000
"""Name-and-pattern pairs one proof or edit matches (declared properties against
``patternProperties``); beyond, no proof, and no more names tried."""

_ANNOTATIONS: Final = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "readOnly",
        "writeOnly",
        "deprecated",
        "contentMediaType",
        "contentEncoding",
        "contentSchema",
    }
)
_VACUOUS: Final[dict[str, tuple[JSON, ...]]] = {
    "minLength": (0,),
    "minItems": (0,),
    "minProperties": (0,),
    "minContains": (0,),
    "required": ([],),
    "uniqueItems": (False,),
    "additionalProperties": (True, {}),
    "unevaluatedProperties": (True, {}),
    "unevaluatedItems": (True, {}),
    "additionalItems": (True, {}),
    "items": (True, {}),
    "propertyNames": (True, {}),
    "allOf": ([{}], [True]),
    "dependentRequired": ({},),
}
"""Values with which a keyword constrains nothing."""
_NAMES: Final = frozenset(
    keyword
    for vocabulary in VOCABULARY.values()
    for keyword, kind in vocabulary.items()
    if kind in (Kind.SCHEMA_MAP, Kind.DEPENDENCIES)
)
"""Keywords whose keys are names: a property called ``not`` is no ``not``."""
_LOOSENING: Final = ASSERTIONS | {"if", "then", "else", "format", "minContains", "maxContains"}
"""Keywords whose removal can only accept more (their siblings keep their meaning)."""
_POOL: Final[tuple[JSON, ...]] = (None, False, 0, -1, 0.5, "", "a", [], {}, [None], {"": None})
"""Small values of every JSON type, tried where a keyword asks for no particular value."""
_STRINGS: Final[tuple[str, ...]] = ("", "a", "0", "A", " ", "-", "_", "a b", "\n", "ü", "aaaaaaaa")
_EXTRA_KEYS: Final[tuple[str, ...]] = ("unexpected", "x", "")

Sample = tuple[str, JSON]
"""(source of the logged call, its arguments) of an accepted call."""
Patch = tuple[dict[str, JSON], ...]


@dataclass
class SearchBudget:
    """Candidates the rest of an audit's searches may still replay, the CPU time they may
    still take (shared with the checks of loosening patches), and the verdicts of the tool
    searched last (its changes' searches edit the same samples alike)."""

    left: int = MAX_AUDIT_CANDIDATES
    ceiling: SearchCeiling = field(default_factory=SearchCeiling)
    _last: _Sides | None = field(default=None, repr=False)

    def sides(self, replay: ToolReplay) -> _Sides:
        """The verdicts of ``replay``'s tool, remembered while its changes are searched."""
        if self._last is None or self._last.replay is not replay:
            self._last = _Sides(replay, self.ceiling)
        return self._last


def counterexample(
    replay: ToolReplay, index: int, samples: Sequence[Sample], budget: SearchBudget
) -> Counterexample:
    """The counterexample to rewrite ``index`` of ``replay``'s tool, or why there is none."""
    rewrite = replay.normalized.rewrites[index]
    name = replay.tool.name
    if replay.new.validator is None:  # every call is a schema error after: nothing is harmless
        whole = f"the new schema cannot be used for any call ({replay.new.problem})"
        return Counterexample(name, rewrite, CounterexampleStatus.UNUSABLE, reason=whole)
    ceiling = budget.ceiling
    with ceiling.counting():
        if ceiling.spent():
            return _not_found(name, rewrite, _not_searched(ceiling), 0)
        ceiling.met.clear()
        reason = harmless(replay, rewrite, ceiling)
        if reason is not None:
            return Counterexample(name, rewrite, CounterexampleStatus.HARMLESS, reason=reason)
        blocked = unevaluable(replay.normalized.schema, rewrite, ceiling)
        if blocked is not None:
            return Counterexample(name, rewrite, CounterexampleStatus.UNUSABLE, reason=blocked)
        if ceiling.spent():  # a proof that ran out proves nothing, and leaves no time
            return _not_found(name, rewrite, _not_searched(ceiling), 0)
        if budget.left <= 0:
            spent = f"not searched: the audit's {MAX_AUDIT_CANDIDATES:,} candidates were spent"
            return _not_found(name, rewrite, spent, 0)
        return _search(replay, rewrite, samples, budget)


def _not_searched(ceiling: SearchCeiling) -> str:
    return f"not searched: the audit's searches had spent {ceiling.describe()}"


def _search(
    replay: ToolReplay, rewrite: Change, samples: Sequence[Sample], budget: SearchBudget
) -> Counterexample:
    """The candidates' search of ``counterexample``, once no proof settled the change."""
    name = replay.tool.name
    ceiling = budget.ceiling
    tried = unusable = overran = generated = 0
    stopped = ""
    seen: set[bytes] = set()
    given_up: object = ABSENT  # the argument whose edits ran past the call budget
    starts = budget.sides(replay).starts(samples)
    for source, start, patch in _candidates(replay, rewrite, starts, ceiling):
        if start is given_up:
            continue
        generated += 1
        if generated > MAX_GENERATED:
            stopped = f"; the search stopped after {MAX_GENERATED:,} edits (most of them repeats)"
            break
        if ceiling.spent():
            stopped = (
                f"; the search stopped there: the audit's searches had spent {ceiling.describe()}"
            )
            break
        arguments = apply_patch(start, patch)
        if not isinstance(arguments, dict):
            continue  # tool arguments are an object (ARGUMENT_PROTOCOLS): never anything else
        try:
            key = orjson.dumps(arguments)
        except (TypeError, orjson.JSONEncodeError):
            continue
        if key in seen:
            continue
        seen.add(key)
        if tried >= MAX_CANDIDATES or budget.left <= 0:
            break
        tried += 1
        budget.left -= 1
        judged = _judge(budget.sides(replay), rewrite, arguments, key)
        if judged is _Judged.BITES:
            return Counterexample(
                name,
                rewrite,
                CounterexampleStatus.FOUND,
                arguments=arguments,
                derived_from=source,
                patch=patch if source is not None else (),
                candidates=tried,
            )
        unusable += judged is _Judged.UNUSABLE
        if judged is _Judged.OVERRAN:
            # The other edits of this argument keep what the evaluation ran out on: each
            # would run as long. The next argument (another call, or one built) may not.
            overran += 1
            given_up = start
    reason = f"no counterexample among {tried} candidate arguments (not a proof)"
    if not tried:
        none = "was tried" if stopped else "reaches the changed keyword's place"
        reason = f"no candidate argument {none} (not a proof)"
    if unusable:
        reason += f"; the new schema could not evaluate {unusable} of them (a schema error)"
    if overran:
        reason += (
            f"; {overran} of them ran past {ceiling.describe_step()}: the other edits of "
            f"{'that argument were' if overran == 1 else 'those arguments were'} not tried"
        )
    if ceiling.met:
        count = len(ceiling.met)
        reason += (
            f"; matching {count} {'pattern' if count == 1 else 'patterns'} ran past "
            f"{ceiling.describe_step()}: no name or value was built from "
            f"{'it' if count == 1 else 'them'}"
        )
    return _not_found(name, rewrite, reason + stopped, tried)


def _not_found(tool: str, rewrite: Change, reason: str, tried: int) -> Counterexample:
    return Counterexample(
        tool, rewrite, CounterexampleStatus.NOT_FOUND, reason=reason, candidates=tried
    )


def bites(replay: ToolReplay, rewrite: Change, arguments: JSON) -> bool:
    """Whether the old runtime accepts ``arguments`` and the new schema rejects them with an
    error the change causes: the check every counterexample passes before it is shown."""
    return _judge(_Sides(replay), rewrite, arguments) is _Judged.BITES


class _Judged(Enum):
    """What one candidate showed."""

    BITES = "bites"
    MISSES = "misses"
    UNUSABLE = "unusable"
    """The new schema could not be used for it (a schema error)."""
    OVERRAN = "overran"
    """Its evaluation ran out of the call's budget (and it does not bite)."""


def _judge(sides: _Sides, rewrite: Change, arguments: JSON, key: bytes | None = None) -> _Judged:
    """Whether ``arguments`` bite (see ``bites``), and why not; ``key``: their JSON text,
    under which the verdicts are remembered."""
    verdicts = sides.verdicts(arguments, key)
    if verdicts is None:
        return _Judged.MISSES
    old, new = verdicts
    if old is None or not new.usable:
        return _Judged.OVERRAN if new.over_budget else _Judged.UNUSABLE
    if old.over_budget or new.over_budget:
        # An acceptance the old runtime's model gave only because its evaluation could not
        # finish (a lenient reading enforces nothing it cannot finish) is no evidence that it
        # accepted: a counterexample must rest on finished verdicts. The new side's verdicts
        # are the fast validator's here (``light_verdicts``), which no budget stops.
        return _Judged.OVERRAN
    caused = rewrite.removes_tool or any(rewrite in issue.causes for issue in new.errors)
    if old.accepts and not new.accepts and caused:
        return _Judged.BITES
    return _Judged.MISSES


MAX_REMEMBERED: Final = 5_000
"""Candidates' verdicts remembered per tool: its changes' searches try the same edits of the
same samples (about 40% of the candidates on the benchmark's workloads)."""
MAX_REMEMBERED_BYTES: Final = 64 << 20
"""Bytes of candidates' JSON text those verdicts are remembered by, per tool."""


class _Sides:
    """One tool's verdicts as the search asks for them: first yes-or-no questions (the fast
    validator's where it is trusted, else the reference's ``is_valid``, which stops at the first
    error), the reference's errors and their causes only for a candidate that may bite."""

    def __init__(self, replay: ToolReplay, ceiling: SearchCeiling | None = None) -> None:
        self.replay = replay
        self._ceiling = ceiling
        # A schema the fast validator is trusted with has every reference local and resolvable,
        # every regex plain and compilable, no recursion: the reference evaluating it raises
        # nothing (but a timeout of the call budget, which no report depends on).
        self._new_raises_nothing = replay.new.validator is not None and trusted(
            replay.normalized.schema
        )
        self._known: dict[bytes, tuple[Verdict | None, Verdict] | None] = {}
        self._known_bytes = 0
        self._starts: tuple[Sequence[Sample], list[tuple[str | None, JSON]]] | None = None

    def starts(self, samples: Sequence[Sample]) -> list[tuple[str | None, JSON]]:
        """(source or None, argument) every change's search edits, in order: the smallest
        logged calls (``MAX_STARTS``), then the argument built from the schema, then ``{}``.
        Ordered once per tool's samples: sizing every sample again for each change was a
        twelfth of the search. Never edited: candidates are patched copies."""
        if self._starts is None or self._starts[0] is not samples:
            ordered = sorted(enumerate(samples), key=lambda s: (_size(s[1][1]), s[0]))
            smallest = [(source, args) for _, (source, args) in ordered[:MAX_STARTS]]
            self._starts = (samples, [*smallest, (None, self.built), (None, {})])
        return self._starts[1]

    @cached_property
    def built(self) -> JSON:
        """The argument built from the new schema (``minimal``): every change's search edits
        it, and building it for each change walked every required property of the tool each
        time. Never edited: candidates are patched copies."""
        schema = self.replay.normalized.schema
        return minimal(schema, schema, ceiling=self._ceiling)

    def verdicts(self, arguments: JSON, key: bytes | None) -> tuple[Verdict | None, Verdict] | None:
        """``ToolReplay.verdicts`` of ``arguments``, or None when they cannot bite: the new
        schema surely accepts them, or the old runtime surely rejects them (and the new
        schema cannot raise on them: a candidate it could not evaluate is counted as such,
        whatever the old side says)."""
        if key is not None and key in self._known:
            return self._known[key]
        replay = self.replay
        found = None
        if not replay.surely_accepted(arguments) and self._old_may_accept(arguments):
            found = replay.light_verdicts(arguments)
        if (
            key is not None
            and len(self._known) < MAX_REMEMBERED
            and self._known_bytes + len(key) <= MAX_REMEMBERED_BYTES
        ):
            self._known[key] = found
            self._known_bytes += len(key)
        return found

    def _old_may_accept(self, arguments: JSON) -> bool:
        """False only when the old runtime surely rejects ``arguments`` (as
        ``ToolReplay.verdicts`` would say) and the new schema cannot raise on them: then the
        new schema, not surely accepting them, rejects them."""
        return not self._new_raises_nothing or self.replay.old_accepts_rejected(arguments)


def harmless(
    replay: ToolReplay, rewrite: Change, ceiling: SearchCeiling | None = None
) -> str | None:
    """Why no argument can be rejected because of ``rewrite``, when that can be shown (within
    ``ceiling``'s steps)."""
    ceiling = ceiling or SearchCeiling()
    if replay.old_runtime.checks_schema and replay.old.validator is None:
        return "the old schema failed its meta-schema: no argument passed before the change"
    if rewrite.removes_tool:
        return None
    respelled_reference = rewrite.edit is Edit.REPLACE and rewrite.pointer.endswith("/$ref")
    if respelled_reference and rewrite.rule is not Rule.EDIT:
        # The normalizer respells a reference only where it points through a renamed key:
        # it lands on the same subschema as before, whose own changes are changes of their own.
        return "the reference follows a renamed keyword to the same subschema as before"
    if rewrite.entry_of == "properties":
        reason = _property_entry_harmless(replay, rewrite)
        if reason is not None:
            return reason
    position = keyword_position(rewrite)
    keyword = pointers.split(position)[-1] if position else ""
    if rewrite.edit is Edit.REMOVE and not rewrite.entry_of:
        removed = pointers.split(rewrite.pointer)[-1] if rewrite.pointer else ""
        if removed in _LOOSENING:
            return f"it removes '{removed}': removing a constraint only accepts more"
        return None
    found, value = pointers.resolve(replay.normalized.schema, position)
    if not found:
        return None
    if (
        position == "/type"
        and (value == "object" or (isinstance(value, list) and "object" in value))
        and not _root_referenced(replay.normalized.schema)
    ):
        return f"tool arguments are always an object ({ARGUMENT_PROTOCOLS}), which 'type' admits"
    unused = _unreferenced_definition(replay.normalized.schema, position)
    if unused is not None:
        return f"it lies in the definition '{unused}', which no $ref refers to: never evaluated"
    functions: Any = getattr(type(replay.new.validator), "VALIDATORS", {})
    if keyword == "format" and keyword in functions:
        return "'format' is an annotation here: no format checker asserts it"
    if keyword in _ANNOTATIONS and keyword not in functions:
        return f"'{keyword}' is an annotation: the validator asserts nothing for it"
    if keyword == "type" and _evaluated_alike(replay, pointers.parent(position), _Ways(ceiling)):
        _, holder = pointers.resolve(replay.normalized.schema, pointers.parent(position))
        implied = _implied_by_values(holder, value)
        if implied is not None:
            return f"the sibling '{implied}' admits only values of that type already"
    if any(type(value) is type(v) and value == v for v in _VACUOUS.get(keyword, ())):
        return f"'{keyword}: {orjson.dumps(value).decode()}' constrains nothing"
    return (
        _inside_changed_collapsing_applicator(replay, rewrite)
        or _under_refusing_not(replay, rewrite, ceiling)
        or _members_refused_before(replay, rewrite, ceiling)
        or _siblings_admit_nothing_it_refuses(replay, position, keyword, value, ceiling)
    )


_COLLAPSING: Final = frozenset({"anyOf", "oneOf"})
"""Applicators that report one error of their own for whatever fails inside them (python-
jsonschema keeps the branches' errors only as its ``context``): the causes of that error are
the rewrites on its own way (``CauseFinder._direct``), never one inside it while one stands
there. (``not`` and ``contains`` report one error too, but no rule respells them.)"""


def _inside_changed_collapsing_applicator(replay: ToolReplay, rewrite: Change) -> str | None:
    """Why ``rewrite`` can never be a rejection's cause when it lies inside an ``anyOf`` or
    ``oneOf`` that the change itself respells (``any_of`` -> ``anyOf``): every error from
    inside is that applicator's one error, whose causes are the respelling on its way. Only
    where nothing leads inside but the applicator: no ``$ref`` lands within it, no
    ``$anchor``/``$id`` stands there, every ``$ref`` is a local pointer."""
    if rewrite.removes_tool:
        return None
    found = _ENTERED.get(replay)
    if found is None:
        found = _ENTERED[replay] = _Entered(replay)
    enclosing = found.enclosing(keyword_position(rewrite))
    if enclosing is None:
        return None
    keyword = pointers.split(enclosing)[-1]
    return (
        f"it lies inside '{keyword}', which the change respells too: whatever fails inside is "
        f"one '{keyword}' error, counted under that respelling ({enclosing})"
    )


_ENTRANCES: Final = frozenset({"$id", "id", "$anchor", "$dynamicAnchor"})
_REFERRING: Final = ("$ref", "$dynamicRef", "$recursiveRef")


class _Entered:
    """One tool's respelled ``anyOf``/``oneOf`` and the places its references land, found
    once: a large tool's thousands of changes each ask (a walk per change was quadratic)."""

    def __init__(self, replay: ToolReplay) -> None:
        self._schema = replay.normalized.schema
        self._respelled = {
            other.new_pointer
            for other in replay.normalized.rewrites
            if other.edit is Edit.RENAME and other.new in _COLLAPSING and other.old != other.new
        }
        self._targets: list[str] | None = None
        self._walked = False
        self._closed: dict[str, bool] = {}

    def enclosing(self, position: str) -> str | None:
        """The respelled applicator ``position`` lies strictly inside, when only it leads
        there."""
        if not self._respelled:
            return None
        tokens = pointers.split(position)
        for depth in range(1, len(tokens)):
            at = pointers.from_segments(tokens[:depth])
            if at in self._respelled:
                return at if self._reached_only_through(at) else None
        return None

    def _reached_only_through(self, at: str) -> bool:
        known = self._closed.get(at)
        if known is None:
            landing = self._landing()
            known = self._closed[at] = (
                landing is not None
                and not any(target.startswith(at + "/") for target in landing)
                and self._no_entrance_below(at)
            )
        return known

    def _no_entrance_below(self, at: str) -> bool:
        found, below = pointers.resolve(self._schema, at)
        return found and not any(_ENTRANCES.intersection(node) for node in _objects(below))

    def _landing(self) -> list[str] | None:
        """Where every reference of the schema lands, or None when one is not a local
        pointer (an anchor, another document): this walk cannot say where it lands."""
        if not self._walked:
            self._walked = True
            values = [
                node[key] for node in _objects(self._schema) for key in _REFERRING if key in node
            ]
            targets = [pointers.ref_target(v) if isinstance(v, str) else None for v in values]
            placed = [target for target in targets if isinstance(target, str)]
            self._targets = placed if len(placed) == len(targets) else None
        return self._targets


def _objects(value: JSON) -> Iterator[dict[str, JSON]]:
    """Every object in ``value``, data included (a walk that over-counts only refuses more)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


_ENTERED: weakref.WeakKeyDictionary[ToolReplay, _Entered] = weakref.WeakKeyDictionary()


def unevaluable(schema: JSON, rewrite: Change, ceiling: SearchCeiling | None = None) -> str | None:
    """Why every argument that fails the changed keyword makes the new schema raise instead of
    reject, when it does: on every way to the keyword a reference that resolves nowhere is
    followed whenever the keyword fails (a sibling ``anyOf``/``oneOf`` branch tried next, an
    ``allOf`` branch or a ``$ref`` beside it)."""
    position = keyword_position(rewrite)
    if not position or rewrite.removes_tool or rewrite.edit is Edit.REMOVE:
        return None
    dangling = _dangling_references(schema)
    if not dangling:
        return None
    keyword = pointers.split(position)[-1]
    found, value = pointers.resolve(schema, position)
    if found and keyword in ("anyOf", "oneOf") and isinstance(value, list):
        # The keyword fails only once every branch has been tried.
        for index in range(len(value)):
            branch = pointers.join(position, index)
            if branch in dangling:
                return _unevaluable_reason(dangling[branch], branch)
    ways = _Ways(ceiling or SearchCeiling())
    hit = _dangling_on_the_way(
        schema, dangling, pointers.parent(position), keyword, frozenset(), ways
    )
    return None if hit is None else _unevaluable_reason(*hit)


def _unevaluable_reason(ref: str, where: str) -> str:
    return (
        f"every argument it would reject makes the new schema follow $ref "
        f"{json.dumps(ref)} at '{where}', which points to nothing in the schema: a schema "
        "error after (counted there), never a rejection, until the reference is fixed"
    )


_EAGER_SCHEMA: Final = frozenset({"additionalProperties", "items", "additionalItems"})
_EAGER_NAMED: Final = frozenset(
    {"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
)
_EAGER_LISTED: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})


def _eager_depths(holder: str) -> set[int] | None:
    """The depths of ``holder``'s segments at which a schema object stands (0: the root), when
    the way passes only keywords the reference validator evaluates in full (``not``, ``if``,
    ``contains``... stop at the first error, skipping what follows); else None."""
    segments = pointers.split(holder)
    depths = {0}
    at = 0
    while at < len(segments):
        keyword = segments[at]
        following = segments[at + 1] if at + 1 < len(segments) else None
        if following is not None and (
            keyword in _EAGER_NAMED or (keyword in _EAGER_LISTED and following.isdigit())
        ):
            at += 2
        elif keyword in _EAGER_SCHEMA:
            at += 1
        else:
            return None
        depths.add(at)
    return depths


_last_dangling: list[tuple[JSON, dict[str, str]]] = []
"""The dangling references of the schema searched last, with it (each change asks)."""


def _dangling_references(schema: JSON) -> dict[str, str]:
    """Schema objects whose local ``$ref`` resolves nowhere, by pointer, with the reference:
    walked once per schema (it was walked for every change, the square of a large tool's
    size)."""
    if _last_dangling and _last_dangling[0][0] is schema:
        return _last_dangling[0][1]
    vocabulary = VOCABULARY[draft_of(schema)]
    found: dict[str, str] = {}
    for node, where in schema_objects(schema, "", vocabulary):
        ref = node.get("$ref")
        if not isinstance(ref, str):
            continue
        target = pointers.ref_target(ref)
        if isinstance(target, str) and not pointers.resolve(schema, target)[0]:
            found[where] = ref
    _last_dangling[:] = [(schema, found)]
    return found


def _dangling_on_the_way(
    schema: JSON,
    dangling: dict[str, str],
    holder: str,
    then: str,
    seen: frozenset[str],
    ways: _Ways,
) -> tuple[str, str] | None:
    """(reference, its place) followed on every way a failure at ``holder`` surfaces, or None;
    ``then``: the key of ``holder`` the way goes on by (the changed keyword, or ``$ref``).

    A schema object's keywords are evaluated in their order and errors are yielded as they are
    found (the replay stops at ``MAX_ERRORS``): a ``$ref`` or an ``allOf`` branch beside the way
    counts only when it comes first, so that it raises before the change's error is yielded.
    A sibling ``anyOf``/``oneOf`` branch counts wherever it stands: the combinator's error is
    yielded only once every branch was tried."""
    depths = _eager_depths(holder)
    if holder in seen or len(seen) > 20 or depths is None or not ways.visit():
        return None
    segments = pointers.split(holder)
    for depth in sorted(depths, reverse=True):
        here = pointers.from_segments(segments[:depth])
        _, node = pointers.resolve(schema, here)
        if not isinstance(node, dict):
            continue  # a boolean schema: nothing beside the way
        following = segments[depth] if depth < len(segments) else then
        keys = list(node)
        before = keys[: keys.index(following)] if following in keys else []
        if here in dangling and "$ref" in before:
            return dangling[here], here
        every = node.get("allOf")
        if isinstance(every, list):
            # The branches tried before the way goes on: those before its own branch, or all
            # when allOf comes first.
            last = len(every) if "allOf" in before else 0
            if following == "allOf" and depth + 1 < len(segments):
                on_the_way = segments[depth + 1]
                last = int(on_the_way) if on_the_way.isdigit() else 0
            for index in range(last):
                if (branch := pointers.join(here, "allOf", index)) in dangling:
                    return dangling[branch], branch
        if depth - 2 in depths and segments[depth - 2] in ("anyOf", "oneOf"):
            # A failing branch surfaces only once its siblings were tried too.
            combinator = pointers.from_segments(segments[: depth - 1])
            _, branches = pointers.resolve(schema, combinator)
            for index in range(len(branches) if isinstance(branches, list) else 0):
                if (branch := pointers.join(combinator, index)) in dangling:
                    return dangling[branch], branch
    if len(segments) < 2 or segments[0] not in ("$defs", "definitions"):
        return None
    # A definition is evaluated only where a reference leads into it: each of those ways.
    entry = pointers.from_segments(segments[:2])
    sites = referrers(schema, entry)
    hits: list[tuple[str, str]] = []
    for referrer in sites:
        hit = _dangling_on_the_way(schema, dangling, referrer, "$ref", seen | {holder}, ways)
        if hit is None:
            return None  # one way reaches the keyword without the dangling reference
        hits.append(hit)
    return min(hits) if hits else None


def _under_refusing_not(replay: ToolReplay, rewrite: Change, ceiling: SearchCeiling) -> str | None:
    """Why a change inside a ``not`` cannot bite: before the change the ``not``'s subschema
    enforced nothing (``not: {min_items: 1}`` read as ``not: {}``), so the ``not`` refused
    every value that reached it, and nothing on the way there changed."""
    if replay.old_runtime is OldRuntime.NONE:
        return None  # nothing refused anything before
    old, new = pointers.split(rewrite.pointer), pointers.split(rewrite.new_pointer)
    for index in range(len(old) - 1, -1, -1):
        inside_names = index > 0 and old[index - 1] in _NAMES
        if old[index] != "not" or inside_names or old[: index + 1] != new[: index + 1]:
            continue
        holder = pointers.from_segments(old[:index])
        if not _evaluated_alike(replay, holder, _Ways(ceiling)):
            return None
        _, subschema = pointers.resolve(replay.tool.schema, pointers.join(holder, "not"))
        if not _enforces_nothing(subschema, draft_of(replay.tool.schema)):
            return None
        where = pointers.join(holder, "not") or "/"
        return (
            f"it lies under the 'not' at '{where}', whose subschema enforced nothing before: "
            "every value reaching it was refused already"
        )
    return None


_APPLIES: Final[dict[str, frozenset[str]]] = {
    **dict.fromkeys(("minLength", "maxLength", "pattern"), frozenset({"string"})),
    **dict.fromkeys(
        (
            "items",
            "prefixItems",
            "additionalItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "contains",
            "minContains",
            "maxContains",
        ),
        frozenset({"array"}),
    ),
    **dict.fromkeys(
        (
            "properties",
            "patternProperties",
            "additionalProperties",
            "required",
            "minProperties",
            "maxProperties",
            "dependentRequired",
            "dependentSchemas",
            "dependencies",
            "propertyNames",
        ),
        frozenset({"object"}),
    ),
    **dict.fromkeys(
        ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
        frozenset({"number", "integer"}),
    ),
}
"""Keywords that assert something only of values of these JSON types."""
_SHAPING: Final = frozenset(
    keyword for keyword, kinds in _APPLIES.items() if kinds & {"object", "array"}
) | {"unevaluatedProperties", "unevaluatedItems"}
"""Keywords about an object's or array's members, which the structural edits aim at."""
_ADJACENT: Final[dict[str, tuple[str, ...]]] = {
    "additionalProperties": ("properties", "patternProperties"),
    "properties": ("additionalProperties", "patternProperties"),
    "patternProperties": ("additionalProperties", "properties"),
    "additionalItems": ("items",),
    "items": ("prefixItems", "additionalItems"),
    "prefixItems": ("items",),
    "contains": ("minContains", "maxContains"),
    "minContains": ("contains", "maxContains"),
    "maxContains": ("contains", "minContains"),
    "if": ("then", "else"),
    "then": ("if",),
    "else": ("if",),
}
"""Siblings a keyword's meaning depends on: evaluated beside it when it is tried alone."""
_REFERENCES: Final = (b'"$ref"', b'"$dynamicRef"', b'"$recursiveRef"')


def _siblings_admit_nothing_it_refuses(
    replay: ToolReplay, position: str, keyword: str, value: JSON, ceiling: SearchCeiling
) -> str | None:
    """Why the changed keyword cannot fail on a value the old runtime let reach it: an
    unchanged sibling ``type`` admits no value the keyword applies to, or an unchanged sibling
    ``enum``/``const`` admits only values that pass it."""
    holder_at = pointers.parent(position)
    _, holder = pointers.resolve(replay.normalized.schema, holder_at)
    if (
        replay.old_runtime is OldRuntime.NONE
        or not isinstance(holder, dict)
        or not _evaluated_alike(replay, holder_at, _Ways(ceiling))
    ):
        return None
    kinds = holder.get("type")
    names = {kinds} if isinstance(kinds, str) else set(kinds) if isinstance(kinds, list) else None
    applies = _APPLIES.get(keyword)
    disjoint = names is not None and applies is not None and not names & applies
    if disjoint and _unchanged(replay, pointers.join(holder_at, "type")):
        shown = orjson.dumps(kinds).decode()
        return f"the sibling 'type: {shown}' admits no value '{keyword}' applies to"
    if "unevaluatedProperties" in holder or "unevaluatedItems" in holder:
        return None  # what they refuse depends on every sibling: none is tried alone
    enum = holder.get("enum")
    if "const" in holder:
        values, where = [holder["const"]], "const"
    elif isinstance(enum, list):
        values, where = enum, "enum"
    else:
        return None
    alone = {keyword: value} | {k: holder[k] for k in _ADJACENT.get(keyword, ()) if k in holder}
    if any(marker in _text(alone) for marker in _REFERENCES):
        return None  # a reference would need the rest of the schema to resolve
    root = replay.normalized.schema
    if isinstance(root, dict) and "$schema" in root:
        alone["$schema"] = root["$schema"]
    validator: Any = replay.new.validator
    # Evaluated within a step of its own: the replay's budget was started by whatever call
    # ran last, however long ago, and a proof must not depend on that.
    step = ceiling.start_step()
    if step is None:
        return None
    try:
        with ceiling.counting():
            check = budgeted(VALIDATORS[draft_of(root)], step)(
                alone, format_checker=validator.format_checker
            )
            if not all(check.is_valid(v) for v in values):
                return None
    except Exception:  # a user's subschema may raise anything (the step's end too): no proof
        return None
    return f"the sibling '{where}' admits only values that pass it"


def _unchanged(replay: ToolReplay, place: str) -> bool:
    """Whether no change and no lenient reading lies at or below ``place``: asked of the
    tool's index (a loop over every change, for each change, was the square of their
    number)."""
    return not _places_of(replay).at_or_below(place)


def _text(value: JSON) -> bytes:
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):  # an integer beyond 64 bits
        return json.dumps(value).encode()


def _members_refused_before(
    replay: ToolReplay, rewrite: Change, ceiling: SearchCeiling
) -> str | None:
    """Why a change to what ``patternProperties`` or ``prefixItems`` say of
    some members cannot bite: the old schema object refused every such member outright
    (``additionalProperties: false`` with no old property the names match, ``items: false``
    with no old ``prefixItems``), so an argument the old runtime accepted has none of them."""
    if replay.old_runtime is OldRuntime.NONE:
        return None  # nothing refused anything before
    new = pointers.split(keyword_position(rewrite))
    old = pointers.split(rewrite.pointer)
    for at in range(len(new) - 1, -1, -1):
        keyword = new[at]
        if keyword not in ("patternProperties", "prefixItems"):
            continue
        if (at > 0 and new[at - 1] in _NAMES) or len(old) <= at:
            continue
        holder = pointers.from_segments(new[:at])
        if not _evaluated_alike(replay, holder, _Ways(ceiling)):
            return None
        old_holder_at = pointers.from_segments(old[:at])
        _, before = pointers.resolve(replay.tool.schema, old_holder_at)
        if not isinstance(before, dict) or _places_of(replay).read_at_or_below(old_holder_at):
            return None
        _, now = pointers.resolve(replay.normalized.schema, pointers.join(holder, keyword))
        member = new[at + 1] if at + 1 < len(new) else None
        where = holder or "/"
        if keyword == "prefixItems":
            if before.get("items") is False and "prefixItems" not in before:
                return f"the old schema at '{where}' had 'items: false': only [] passed it"
            return None
        names = before.get("properties")
        old_names = list(names) if isinstance(names, dict) else []
        if before.get("additionalProperties") is not False or "patternProperties" in before:
            return None
        patterns = [member] if member is not None else list(now if isinstance(now, dict) else {})
        if len(patterns) * len(old_names) > MAX_NAME_MATCHES:
            return None
        if any(_matches_any(patterns, name, ceiling) is not False for name in old_names):
            return None
        return (
            f"the old schema at '{where}' had 'additionalProperties: false' and no property "
            f"whose name matches {', '.join(map(json.dumps, patterns))}: it refused every "
            "value this changes"
        )
    return None


def _matches_any(patterns: Iterable[str], name: str, ceiling: SearchCeiling) -> bool | None:
    """Whether ``name`` matches one of the regular expressions (None: none does, and one
    cannot be compiled or matched within a step of ``ceiling``)."""
    known: bool | None = False
    for pattern in patterns:
        matched = ceiling.matches(pattern, name) if isinstance(pattern, str) else None
        if matched:
            return True
        if matched is None:
            known = None
    return known


def _enforces_nothing(schema: JSON, draft: Draft) -> bool:
    """Whether the old runtime read ``schema`` as accepting every value: ``true``, or an
    object of keys that are no keywords of its draft, or annotations only."""
    if schema is True:
        return True
    if not isinstance(schema, dict):
        return False
    vocabulary = VOCABULARY[draft]
    return all(key not in vocabulary or key in ANNOTATIONS for key in schema)


def _root_referenced(schema: JSON) -> bool:
    """Whether a reference may lead back to the root (``"$ref": "#"``, a dynamic or recursive
    one, or one through an ``$id``): then the root's ``type`` judges members too, which need
    not be objects. Only local references into the schema (``#/...``) surely do not."""
    vocabulary = VOCABULARY[draft_of(schema)]
    return any(
        isinstance(obj.get(key), str) and not str(obj[key]).startswith("#/")
        for obj, _ in schema_objects(schema, "", vocabulary)
        for key in ("$ref", "$dynamicRef", "$recursiveRef")
        if key in obj
    )


def _property_entry_harmless(replay: ToolReplay, rewrite: Change) -> str | None:
    """Why a property added to or removed from ``properties`` rejects nothing, when it does.

    A removed one, where the new schema ignores a property it does not declare (the object is
    open: ``removals.ignores``), is harmless whatever a call sends. An added optional one is
    met only by a call that sends it, a property the old schema gave no schema to: no call
    written against the old schema has a reason to, and the logged calls that did were
    replayed (their rejections are groups of their own)."""
    segments = pointers.split(rewrite.new_pointer)
    holder, name = pointers.from_segments(segments[:-2]), segments[-1]
    new = replay.normalized.schema
    if rewrite.edit is Edit.REMOVE:
        if ignores(new, holder, name):
            return (
                f"objects are open: the new schema ignores '{name}' (no "
                "additionalProperties, unevaluatedProperties, propertyNames or "
                "patternProperties constrains it), so a call that still sends it is accepted"
            )
        return None
    if rewrite.edit is not Edit.ADD:
        return None
    _, new_holder = pointers.resolve(new, holder)
    if not isinstance(new_holder, dict) or any(
        name in names(obj, "required") for obj in same_place(new_holder)
    ):
        return None  # a required addition refuses every call without it: searched
    old_holder = pointers.parent(pointers.parent(rewrite.pointer))
    if not undeclared(replay.tool.schema, old_holder, name):
        return None  # the old schema gave the name a schema: a value it accepted may fail
    return (
        f"an added optional property: only a call that sends '{name}', which the old "
        "schema did not declare, can meet it"
    )


def _unreferenced_definition(schema: JSON, position: str) -> str | None:
    """The top-level ``$defs``/``definitions`` entry holding ``position`` when no reference
    can lead into it (every ``$ref`` of the schema is a local pointer elsewhere)."""
    segments = pointers.split(position)
    if len(segments) < 3 or segments[0] not in ("$defs", "definitions"):
        return None
    entry = pointers.from_segments(segments[:2])
    ways_in = _ways_in(schema)
    if ways_in is None or entry in ways_in:
        return None  # an anchor, a remote, an embedded resource or a way in: it may be evaluated
    return entry


_last_ways_in: list[tuple[JSON, set[str] | None]] = []
"""``_ways_in`` of the schema searched last, with it: walked once, not once per change."""


def _ways_in(schema: JSON) -> set[str] | None:
    """Every pointer a local reference of ``schema`` targets, and each pointer above it; None
    when a reference may lead anywhere (an anchor, another document) or references resolve
    against embedded resources (an ``$id``, ``id`` or anchor key in a schema object: a
    property *named* ``id`` is none, and was taken for one)."""
    if _last_ways_in and _last_ways_in[0][0] is schema:
        return _last_ways_in[0][1]
    vocabulary = VOCABULARY[draft_of(schema)]
    if any(_ENTRANCES.intersection(node) for node, _ in schema_objects(schema, "", vocabulary)):
        _last_ways_in[:] = [(schema, None)]
        return None
    found: set[str] | None = set()
    stack: list[JSON] = [schema]
    while stack and found is not None:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("$ref", "$dynamicRef", "$recursiveRef") and isinstance(value, str):
                    target = pointers.ref_target(value)
                    if not isinstance(target, str):
                        found = None
                        break
                    while target not in found:
                        found.add(target)
                        if not target:
                            break
                        target = pointers.parent(target)
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    _last_ways_in[:] = [(schema, found)]
    return found


class _Ways:
    """The schema objects one proof may still visit (``MAX_WAYS``), while the searches'
    ceiling lasts: past either, the proof is not made."""

    def __init__(self, ceiling: SearchCeiling) -> None:
        self.left = MAX_WAYS
        self.ceiling = ceiling

    def visit(self) -> bool:
        """Whether one more schema object may be visited (counting it)."""
        self.left -= 1
        return self.left >= 0 and not self.ceiling.spent()


def _evaluated_alike(
    replay: ToolReplay, holder: str, ways: _Ways, seen: frozenset[str] = frozenset()
) -> bool:
    """Whether the old runtime evaluated the schema object at ``holder`` (a new pointer)
    wherever the new schema does, its ``enum`` and ``const`` as they stand: no change lies on
    the way to it — nor on the way to a ``$ref`` that leads into it — no ``$ref`` changed,
    nothing on the way read as inert. False too when ``ways`` run out."""
    places = _places_of(replay)
    if places.any_reference or holder in seen or len(seen) > 20 or not ways.visit():
        return False
    for site in referrers(replay.normalized.schema, holder):
        if not _evaluated_alike(replay, site, ways, seen | {holder}):
            return False
    values = (pointers.join(holder, "enum"), pointers.join(holder, "const"))
    return not places.on_the_way(holder) and not any(places.at_or_below(v) for v in values)


class _Places:
    """Where a tool's changes (their keywords' places) and lenient readings stand, indexed:
    ``_evaluated_alike`` asks of each schema object it visits whether one stands on the way
    to it or inside its ``enum``/``const``, and a loop over every change each time made the
    proofs of a tool's changes take time in the square of their number (2,000 properties
    with two dialect keywords each: 54 s)."""

    def __init__(self, replay: ToolReplay) -> None:
        rewrites = replay.normalized.rewrites
        self.replay = replay
        self.any_reference = any(r.pointer.endswith("/$ref") or r.removes_tool for r in rewrites)
        """A ``$ref`` changed (or the tool was removed): no schema object is evaluated alike."""
        readings = [r.pointer for r in replay.readings]
        points = [keyword_position(r) for r in rewrites] + readings
        self._points = set(points)
        self._above = _with_ancestors(points)
        """Every point and each pointer above it."""
        self._readings_above = _with_ancestors(readings)
        """Every lenient reading's pointer (of the old schema) and each pointer above it."""

    def on_the_way(self, holder: str) -> bool:
        """Whether a point is ``holder`` or above it."""
        while holder not in self._points:
            if not holder:
                return False
            holder = pointers.parent(holder)
        return True

    def at_or_below(self, pointer: str) -> bool:
        """Whether a point is ``pointer`` or below it."""
        return pointer in self._above

    def read_at_or_below(self, pointer: str) -> bool:
        """Whether a lenient reading stands at ``pointer`` (of the old schema) or below it."""
        return pointer in self._readings_above


def _with_ancestors(points: Iterable[str]) -> set[str]:
    """The pointers, and each pointer above each of them."""
    found: set[str] = set()
    for point in points:
        while point not in found:
            found.add(point)
            if not point:
                break
            point = pointers.parent(point)
    return found


_last_places: list[_Places] = []
"""The index of the tool searched last (its changes' proofs ask it again and again)."""


def _places_of(replay: ToolReplay) -> _Places:
    if not _last_places or _last_places[0].replay is not replay:
        _last_places[:] = [_Places(replay)]
    return _last_places[0]


def _implied_by_values(holder: JSON, kinds: JSON) -> str | None:
    """``enum`` or ``const`` when the holder's values are all of a type in ``kinds``."""
    if not isinstance(holder, dict):
        return None
    names = kinds if isinstance(kinds, list) else [kinds]
    checks = [_TYPE_CHECKS.get(n, _never) for n in names if isinstance(n, str)]
    for keyword, values in (("const", [holder.get("const")]), ("enum", holder.get("enum"))):
        if keyword not in holder or not isinstance(values, list) or not values:
            continue
        if all(any(check(v) for check in checks) for v in values):
            return keyword
    return None


def _never(value: JSON) -> bool:
    return False


def _is_number(value: JSON) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPE_CHECKS: Final[dict[str, Callable[[JSON], bool]]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, (int, float)) and _is_number(v) and float(v).is_integer(),
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def apply_patch(document: JSON, patch: Sequence[JSON]) -> JSON:
    """``document`` with a JSON Patch (RFC 6902: add, replace, remove) applied to a copy."""
    result = _copied(document)
    for operation in patch:
        path = operation.get("path") if isinstance(operation, dict) else None
        if not isinstance(operation, dict) or not isinstance(path, str):
            continue
        if not path:
            result = _copied(operation.get("value"))
            continue
        segments = pointers.split(path)
        _, parent = pointers.resolve(result, pointers.from_segments(segments[:-1]))
        last = segments[-1]
        if isinstance(parent, dict):
            if operation["op"] == "remove":
                parent.pop(last, None)
            else:
                parent[last] = _copied(operation.get("value"))
        elif isinstance(parent, list):
            at = len(parent) if last == "-" else int(last)
            if operation["op"] == "remove":
                del parent[at]
            elif operation["op"] == "add":
                parent.insert(at, _copied(operation.get("value")))
            else:
                parent[at] = _copied(operation.get("value"))
    return result


def _copied(value: JSON) -> JSON:
    """A copy of JSON data (every container new): several times faster than
    ``copy.deepcopy``, which this runs in place of on the search's every candidate, since
    JSON data has no cycles and nothing edits two places of one candidate."""
    if isinstance(value, dict):
        return {key: _copied(member) for key, member in value.items()}
    if isinstance(value, list):
        return [_copied(member) for member in value]
    return value  # immutable


def _candidates(
    replay: ToolReplay,
    rewrite: Change,
    starts: Sequence[tuple[str | None, JSON]],
    ceiling: SearchCeiling,
) -> Iterator[tuple[str | None, JSON, Patch]]:
    """(source or None, argument to edit, one-operation patch), most promising first; the
    patterns they are built from are matched within ``ceiling``'s steps. ``starts``: the
    arguments edited, in order (``_Sides.starts``)."""
    schema = replay.normalized.schema
    position = keyword_position(rewrite)
    holder_pointer = pointers.parent(position) if position else ""
    keyword = pointers.split(position)[-1] if position else ""
    _, holder = pointers.resolve(schema, holder_pointer)
    if not isinstance(holder, dict):
        holder = {}
    aims = templates(schema, holder_pointer, ceiling)

    containers: dict[int, JSON] = {}

    def build(container: JSON) -> JSON:
        # Built once per search (a container with many required members is met by every edit
        # that adds a place inside it), copied for each edit, which adds its value to it.
        key = id(container)  # a schema object: alive, unchanged, while the search runs
        if key not in containers:
            containers[key] = minimal(container, schema, ceiling=ceiling)
        return _copied(containers[key])

    entry = pointers.split(rewrite.pointer)[-1] if rewrite.entry_of and rewrite.pointer else None
    # What the old schema allowed at the keyword (an enum's dropped members, a const) is the
    # likeliest value the new one refuses.
    _, before = pointers.resolve(replay.tool.schema, rewrite.pointer)
    hints: tuple[JSON, ...] = ()
    if keyword in ("enum", "const") and rewrite.edit is not Edit.ADD:
        hints = tuple(before) if isinstance(before, list) and keyword == "enum" else (before,)
    elif keyword == "pattern" and isinstance(before, str):
        # A value the old pattern matches: the new pattern may not.
        hints = tuple(n for n in (example_matching(before, ceiling),) if n is not None)
    for source, start in starts:
        for aim in aims:
            for location, value, wrap in places(start, aim):
                edits = _edits(keyword, holder, location, value, entry, schema, ceiling, hints)
                for operation in edits:
                    if wrap[0]:
                        if "value" not in operation:
                            continue
                        inside = wrapped(operation["value"], wrap, build)
                        operation = {**operation, "value": inside}
                    yield source, start, (operation,)


def _size(value: JSON) -> int:
    """The length of the value's JSON text: smaller samples make smaller counterexamples."""
    try:
        return len(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):  # an integer beyond 64 bits
        return len(json.dumps(value))


def _edits(
    keyword: str,
    holder: dict[str, JSON],
    where: str,
    value: Any,
    entry: str | None,
    root: JSON,
    ceiling: SearchCeiling,
    hints: tuple[JSON, ...] = (),
) -> Iterator[dict[str, JSON]]:
    """One-operation patches at ``where`` aimed at ``keyword`` of the schema object ``holder``;
    ``hints``: values to try first. Where the argument has no value yet, the structural edits
    aimed at members are made to one built from ``holder`` (an unexpected key beside its
    required ones), added whole."""
    absent = value is ABSENT
    put = "add" if absent else "replace"
    for new in hints:
        yield {"op": put, "path": where, "value": new}
    for new in _values(keyword, holder, None if absent else value, root):
        yield {"op": put, "path": where, "value": new}
    if not absent:
        yield from _structural(keyword, holder, where, value, entry, root, ceiling)
    elif keyword in _SHAPING and isinstance(
        built := minimal(holder, root, ceiling=ceiling), (dict, list)
    ):
        for edit in _structural(keyword, holder, "", built, entry, root, ceiling):
            yield {"op": put, "path": where, "value": apply_patch(built, (edit,))}
    for new in _POOL:
        yield {"op": put, "path": where, "value": new}


def _structural(
    keyword: str,
    holder: dict[str, JSON],
    where: str,
    value: JSON,
    entry: str | None,
    root: JSON,
    ceiling: SearchCeiling,
) -> Iterator[dict[str, JSON]]:
    """Patches that remove or add one member of the object or list at ``where``."""
    if isinstance(value, dict):
        names: list[JSON] = []
        required = holder.get("required")
        if keyword == "required" and isinstance(required, list):
            names = list(required)
        dependent = holder.get("dependentRequired")
        if keyword == "dependentRequired" and isinstance(dependent, dict):
            names = [n for v in dependent.values() if isinstance(v, list) for n in v]
        names += list(value) if keyword in ("minProperties", "required") else []
        for name in dict.fromkeys(n for n in names if isinstance(n, str)):
            if name in value:
                yield {"op": "remove", "path": pointers.join(where, name)}
        named = holder.get("properties")
        properties = named if isinstance(named, dict) else {}
        added: set[str] = set()
        for key in _added_keys(keyword, holder, entry, ceiling):
            if key in added or key in value:
                continue
            added.add(key)
            for item in (minimal(properties.get(key, {}), root, ceiling=ceiling), None, 0, "", {}):
                yield {"op": "add", "path": pointers.join(where, key), "value": item}
    elif isinstance(value, list):
        if value:
            yield {"op": "remove", "path": pointers.join(where, len(value) - 1)}
        for item in (*value[:1], None, 0, ""):
            yield {"op": "add", "path": pointers.join(where, "-"), "value": item}


def _added_keys(
    keyword: str, holder: dict[str, JSON], entry: str | None, ceiling: SearchCeiling
) -> Iterator[str]:
    """Keys to add to an object ``holder`` applies to, in order: ``dependentRequired``'s
    (against it), the changed entry, the keys ``patternProperties`` governs — declared ones a
    pattern matches (both schemas apply to them), then one built from each pattern — and
    unexpected ones. Lazy: a pattern is matched only when the search gets that far."""
    dependent = holder.get("dependentRequired")
    if keyword == "dependentRequired" and isinstance(dependent, dict):
        yield from dependent
    if entry is not None:
        yield entry
    named = holder.get("properties")
    patterned = holder.get("patternProperties")
    if isinstance(patterned, dict):
        declared = list(named) if isinstance(named, dict) else []
        patterns = list(patterned)
        # At most MAX_NAME_MATCHES pairs: the names a search can still use come first.
        for name in declared[: MAX_NAME_MATCHES // max(len(patterns), 1)]:
            if _matches_any(patterns, name, ceiling):
                yield name
        for pattern in patterns:
            built = example_matching(pattern, ceiling)
            if built is not None:
                yield built
    yield from (k for k in _EXTRA_KEYS if not (isinstance(named, dict) and k in named))


def _values(keyword: str, holder: dict[str, JSON], value: JSON, root: JSON) -> Iterator[JSON]:
    """Replacement values aimed at ``keyword``, smallest first."""
    bound = holder.get(keyword)
    number = bound if isinstance(bound, (int, float)) and not isinstance(bound, bool) else None
    items = holder.get("items")
    item = minimal(items, root) if isinstance(items, dict) else None
    if keyword in ("minLength", "maxLength") and number is not None and number <= _MAX_BOUND:
        size = int(number) - 1 if keyword == "minLength" else int(number) + 1
        if size >= 0:
            for letter in "a0A -":
                yield letter * size
    elif keyword == "pattern":
        yield from _STRINGS
    elif keyword in ("minimum", "exclusiveMinimum") and number is not None:
        yield from (number - 1, number - 0.5, number)
    elif keyword in ("maximum", "exclusiveMaximum") and number is not None:
        yield from (number + 1, number + 0.5, number)
    elif keyword == "multipleOf" and number is not None:
        yield from (number + 1, number / 2, number * 1.5, 1, 0.5)
    elif keyword in ("minItems", "maxItems") and number is not None and number <= _MAX_BOUND:
        size = int(number) - 1 if keyword == "minItems" else int(number) + 1
        if size >= 0:
            filler = value[0] if isinstance(value, list) and value else item
            if size * _size(filler) > MAX_REPEATED_BYTES:
                filler = None  # repeated, a large item makes a huge argument
            kept = value[:size] if isinstance(value, list) and keyword == "minItems" else []
            yield kept if len(kept) == size else [filler] * size
    elif keyword == "uniqueItems":
        filler = value[0] if isinstance(value, list) and value else item
        yield [filler, filler]
    elif keyword in ("minProperties", "maxProperties") and number is not None:
        if number <= _MAX_BOUND:
            size = int(number) - 1 if keyword == "minProperties" else int(number) + 1
            if size >= 0 and isinstance(value, dict) and keyword == "minProperties":
                yield dict(list(value.items())[:size])
            elif size >= 0:
                yield {f"p{i}": None for i in range(size)}
    elif keyword == "enum" and isinstance(bound, list):
        yield from (f"{s}_" for s in bound[:3] if isinstance(s, str))
    elif keyword == "prefixItems" and isinstance(bound, list):
        # Position by position: the items before it as their schemas want, then one that
        # is not, so the item at that position is what fails.
        before = [minimal(b, root) for b in bound[:MAX_LOCATIONS]]
        for at in range(len(before)):
            for other in _POOL[:5]:
                yield [*before[:at], other]


def minimal(
    schema: JSON,
    root: JSON,
    depth: int = 0,
    room: list[int] | None = None,
    *,
    ceiling: SearchCeiling | None = None,
) -> JSON:
    """A small value the schema is likely to accept: its required properties with minimal
    values, its lower bounds met, with ``ceiling`` a string its ``pattern`` matches (built and
    checked within the ceiling's steps; without one, no pattern is matched); a guess the
    validators check, never trusted. It holds at most ``MAX_BUILT_SIZE`` values and string
    characters (``room``: what is left of them, shared by the parts): past it, the rest is
    null."""
    room = [MAX_BUILT_SIZE] if room is None else room
    if not isinstance(schema, dict) or depth > 12 or room[0] <= 0:
        return None
    room[0] -= 1
    if "const" in schema:
        return copy.deepcopy(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return copy.deepcopy(enum[0])
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = pointers.ref_target(ref)
        if isinstance(target, str):
            found, node = pointers.resolve(root, target)
            if found:
                return minimal(node, root, depth + 1, room, ceiling=ceiling)
    for combinator in ("allOf", "anyOf", "oneOf"):
        branches = schema.get(combinator)
        if isinstance(branches, list) and branches and "type" not in schema:
            return minimal(branches[0], root, depth + 1, room, ceiling=ceiling)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0] if kind else None
    if kind is None:
        kind = _implied_type(schema)
    if kind == "object":
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = schema.get("required")
        names = [n for n in required if isinstance(n, str)] if isinstance(required, list) else []
        return {
            n: minimal(properties.get(n, {}), root, depth + 1, room, ceiling=ceiling) for n in names
        }
    if kind == "array":
        count = schema.get("minItems", 0)
        count = count if isinstance(count, int) and 0 <= count <= 100 else 0
        item = schema.get("items", {})
        return [minimal(item, root, depth + 1, room, ceiling=ceiling) for _ in range(count)]
    if kind == "string":
        length = schema.get("minLength", 0)
        length = length if isinstance(length, int) and 0 <= length <= _MAX_BOUND else 0
        pattern = schema.get("pattern")
        if ceiling is not None and isinstance(pattern, str):
            # A call sending an id that is a pattern's has to match it: "" rarely does, and an
            # argument the old side refuses for it shows no change.
            matching = example_matching(pattern, ceiling)
            longest = schema.get("maxLength")
            if (
                matching is not None
                and len(matching) >= length
                and (not isinstance(longest, int) or len(matching) <= longest)
                and len(matching) <= room[0]
            ):
                room[0] -= len(matching)
                return matching
        if length > room[0]:
            return None
        room[0] -= length
        return "a" * length
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        if isinstance(low, (int, float)) and not isinstance(low, bool):
            return int(low) + 1 if kind == "integer" or isinstance(low, int) else low + 1
        return 0
    if kind == "boolean":
        return False
    return None


def _implied_type(schema: dict[str, JSON]) -> str | None:
    if any(k in schema for k in ("properties", "required", "additionalProperties")):
        return "object"
    if any(k in schema for k in ("items", "prefixItems", "minItems")):
        return "array"
    if any(k in schema for k in ("minLength", "maxLength", "pattern")):
        return "string"
    return None
