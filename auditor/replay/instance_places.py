"""Where in an argument a schema object applies: the counterexample search's aim.

A changed keyword bites only on a value at a place its schema object judges. The schema path
alone often says where that is (``/properties/tags/items`` judges every item of ``tags``);
a definition says nothing by its own path, and is judged wherever a ``$ref`` leads into it
(``items: {$ref: '#/$defs/tag'}``: the items of ``tags`` again). So a schema object has
*templates* — instance paths with wildcards — one per way to it, followed through the
references that lead into it (every referrer, the way to each found the same way, recursion
cut at a way already on the stack), and the search edits those places first. What no
template surely covers (a ``propertyNames`` subschema, a reference by anchor or to another
document) is still tried at an argument's every place, last.

The schema's references are indexed once (``references_index``): the proofs ask, for every
schema object they visit, which references lead into it.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from auditor import pointers
from auditor.models import JSON
from auditor.replay.budget import SearchCeiling
from auditor.replay.pattern_example import example_matching

MAX_LOCATIONS: Final = 40
"""Places in one argument an edit is tried at, when the changed keyword's place is unknown."""
MAX_TEMPLATES: Final = 8
"""Ways into one schema object the search aims at (each referrer of a definition referred to
from many places is one): past them, the argument's every place."""
MAX_REFERENCE_STEPS: Final = 64
"""Referrers one templates' walk visits, recursion included: a chain of definitions each
referred to from several places multiplies the ways."""


class Template(NamedTuple):
    """An instance path to the places a schema object applies to, with the schema object
    that first applies at each place on the way (an edit that adds the missing part of the
    path builds each container as that schema wants it: ``{"field": "", "value": ...}``
    where ``field`` is required beside the changed ``value``)."""

    steps: tuple[str, ...]
    """``*`` any item, ``+`` any key, ``+name`` any key (``name`` when one is added), a number
    the item at that position, else a property name."""
    containers: tuple[JSON, ...]
    """``containers[i]``: the schema object judging the value that ``steps[i]`` enters."""


Wrap = tuple[Sequence[str], Sequence[JSON]]
"""The steps (and their containers' schemas) still to build around an added value."""
EVERY_PLACE: Final = None
"""In a list of templates: the argument's every place (what no template surely covers)."""

ABSENT: Final = object()
"""The value at a place an argument does not have yet (an edit adds it)."""


def templates(schema: JSON, holder: str, ceiling: SearchCeiling) -> list[Template | None]:
    """The instance paths the schema object at ``holder`` applies to — the one its own path
    gives and those through each reference leading into it — the shallowest first (then in
    the order ``references`` lists them); ``EVERY_PLACE`` last when these may not cover every
    way in."""
    walk = _Walk(schema, ceiling)
    found = walk.ways(holder, frozenset())
    unique = list({template.steps: template for template in reversed(found)}.values())[::-1]
    unique.sort(key=lambda template: len(template.steps))  # the shallowest places first
    kept: list[Template | None] = list(unique[:MAX_TEMPLATES])
    if walk.incomplete or not kept or len(unique) > MAX_TEMPLATES:
        kept.append(EVERY_PLACE)
    return kept


class _Walk:
    """One holder's templates being gathered, with whether a way in was left uncovered."""

    def __init__(self, schema: JSON, ceiling: SearchCeiling) -> None:
        self.schema = schema
        self.ceiling = ceiling
        self.index = references_index(schema)
        self.steps = MAX_REFERENCE_STEPS
        self.incomplete = False

    def ways(self, holder: str, seen: frozenset[str]) -> list[Template]:
        """The templates of ``holder``: its own path's, then through each reference into it
        (``seen``: the referrers on the way here, a recursion not followed again)."""
        found: list[Template] = []
        direct = _walk(self.schema, pointers.split(holder), self.ceiling)
        if direct is not None:
            found.append(direct)
        if self.index.elsewhere:
            self.incomplete = True  # an anchor or another document may lead here too
        for target, referrer in self._into(holder):
            if referrer in seen:
                continue  # a recursion: its places repeat, deeper, the ways found without it
            self.steps -= 1
            if self.steps < 0 or len(found) > MAX_TEMPLATES:
                self.incomplete = True
                break
            _, node = pointers.resolve(self.schema, target)
            rest = pointers.split(holder)[len(pointers.split(target)) :]
            tail = _walk(node, rest, self.ceiling)
            if tail is None:
                self.incomplete = True
                continue
            found += [
                Template(head.steps + tail.steps, head.containers + tail.containers)
                for head in self.ways(referrer, seen | {referrer})
            ]
        if direct is None and not found:
            self.incomplete = True
        return found

    def _into(self, holder: str) -> Iterator[tuple[str, str]]:
        """(target, referrer) of the local references whose target is ``holder`` or above it,
        in the order ``references`` lists them: merged lazily (each target's are listed in
        that order), so that a schema with thousands of ``$ref: "#"`` costs only the
        ``MAX_REFERENCE_STEPS`` the walk takes of them."""
        lists = []
        target = holder
        while True:
            listed = self.index.by_target.get(target, ())
            lists.append([(rank, target, where) for rank, where in listed[: self.steps + 1]])
            if not target:
                break
            target = pointers.parent(target)
        return ((target, where) for _, target, where in heapq.merge(*lists))


def _walk(node: JSON, segments: Sequence[str], ceiling: SearchCeiling) -> Template | None:
    """The instance path the schema object ``segments`` below ``node`` applies to, relative to
    the place ``node`` applies to, or None when it does not follow from the path alone (below
    ``$defs``, ``propertyNames``...). A property named with a leading ``+`` is placed as the
    key ``+...`` wants: a rare miss, never a wrong verdict."""
    path: list[str] = []
    containers: list[JSON] = []
    entered = node  # the first schema object judging the place the walk is at
    i = 0
    while i < len(segments):
        keyword = segments[i]
        if not isinstance(node, dict):
            return None
        value = node.get(keyword)
        if keyword in _ENTERING:
            containers.append(entered)
        if keyword in ("properties", "prefixItems", "patternProperties") or (
            keyword == "items" and isinstance(value, list)
        ):
            if i + 1 >= len(segments):
                return None
            name = segments[i + 1]
            if keyword == "patternProperties":
                # A key of the place is one the pattern matches: "+" unless one is built.
                path.append(_key_step(name, ceiling))
            else:
                path.append(name)
            node = entered = value.get(name) if isinstance(value, dict) else _at(value, name)
            i += 2
        elif keyword in ("items", "additionalItems", "contains", "unevaluatedItems"):
            path.append("*")
            node = entered = value
            i += 1
        elif keyword in ("additionalProperties", "unevaluatedProperties"):
            path.append("+")
            node = entered = value
            i += 1
        elif keyword in ("allOf", "anyOf", "oneOf") and i + 1 < len(segments):
            node, i = _at(value, segments[i + 1]), i + 2
        elif keyword in ("not", "if", "then", "else"):
            node, i = value, i + 1
        elif keyword == "dependentSchemas" and i + 1 < len(segments) and isinstance(value, dict):
            node, i = value.get(segments[i + 1]), i + 2
        else:
            return None  # below $defs (reached by references), propertyNames...
    return Template(tuple(path), tuple(containers))


_ENTERING: Final = frozenset(
    {
        "properties",
        "prefixItems",
        "patternProperties",
        "items",
        "additionalItems",
        "contains",
        "unevaluatedItems",
        "additionalProperties",
        "unevaluatedProperties",
    }
)
"""Keywords whose subschemas judge a member of the value: a step of the instance path."""


def _key_step(pattern: str, ceiling: SearchCeiling) -> str:
    """The template step for a ``patternProperties`` entry: a name the pattern matches, after
    ``+`` (``+`` alone: any key)."""
    name = example_matching(pattern, ceiling)
    return "+" if name is None else "+" + name


def _at(value: JSON, index: str) -> JSON:
    if isinstance(value, list) and (at := pointers.array_index(index, len(value))) is not None:
        return value[at]
    return None


def wrapped(value: JSON, wrap: Wrap, built: Callable[[JSON], JSON]) -> JSON:
    """``value`` inside the containers that lead to it: ``{"name": value}``, ``[value]``, each
    object holding what ``built`` makes of its schema beside it (its required members)."""
    steps, containers = wrap
    for step, container in zip(reversed(steps), reversed(containers), strict=True):
        if step == "*":
            value = [value]
        elif step.isdigit() and int(step) <= MAX_LOCATIONS:
            value = [None] * int(step) + [value]  # earlier positions: placeholders
        else:
            members = built(container)
            around = members if isinstance(members, dict) else {}
            around[step[1:] or "A" if step.startswith("+") else step] = value
            value = around
    return value


def places(start: JSON, template: Template | None) -> Iterator[tuple[str, Any, Wrap]]:
    """(instance pointer, value there or ``ABSENT``, steps still to build) where the edits
    go: the template's places in ``start`` (a missing step is a place to add a value wrapped
    in what leads to the keyword's place), or every place (``EVERY_PLACE``)."""
    if template is None:
        yield from ((where, value, ((), ())) for where, value in _every_place(start))
        return
    steps, containers = template
    frontier: list[tuple[str, Any]] = [("", start)]
    for depth, step in enumerate(steps):
        following: list[tuple[str, Any]] = []
        for where, value in frontier:
            if value is ABSENT:
                yield where, value, (steps[depth:], containers[depth:])
                continue
            if step == "*" or step.startswith("+"):
                if step == "*" and isinstance(value, list):
                    following += [(pointers.join(where, i), v) for i, v in enumerate(value)]
                    following.append((pointers.join(where, len(value)), ABSENT))
                elif isinstance(value, dict):
                    following += [(pointers.join(where, k), v) for k, v in value.items()]
                    if step[1:] and step[1:] not in value:  # a key the pattern matches, added
                        following.append((pointers.join(where, step[1:]), ABSENT))
            elif isinstance(value, dict):
                following.append((pointers.join(where, step), value.get(step, ABSENT)))
            elif isinstance(value, list) and step.isdigit():
                index = int(step)
                following.append(
                    (pointers.join(where, step), value[index] if index < len(value) else ABSENT)
                )
        frontier = following[:MAX_LOCATIONS]
    yield from ((where, value, ((), ())) for where, value in frontier)


def _every_place(start: JSON) -> Iterator[tuple[str, Any]]:
    queue: list[tuple[str, JSON]] = [("", start)]
    count = 0
    while queue and count < MAX_LOCATIONS:
        where, value = queue.pop(0)
        count += 1
        yield where, value
        if isinstance(value, dict):
            queue += [(pointers.join(where, k), v) for k, v in value.items()]
        elif isinstance(value, list):
            queue += [(pointers.join(where, i), v) for i, v in enumerate(value)]


def referrers(schema: JSON, holder: str) -> list[str]:
    """Pointers of the schema objects whose ``$ref`` leads to ``holder`` or above it, in the
    order ``references`` lists them (those to no local pointer included: they may lead
    anywhere)."""
    index = references_index(schema)
    found = list(index.elsewhere)
    target = holder
    while True:
        found += index.by_target.get(target, ())
        if not target:
            break
        target = pointers.parent(target)
    return [where for _, where in sorted(found)]


@dataclass
class ReferencesIndex:
    """A schema's references by the local pointer they target (with their rank in
    ``references``): a proof asks which lead to a pointer for every object it visits."""

    by_target: dict[str, list[tuple[int, str]]]
    elsewhere: list[tuple[int, str]]
    """References to no local pointer (an anchor, another document): they may lead anywhere."""


_last_references: list[tuple[JSON, list[tuple[str, str | None]], ReferencesIndex]] = []
"""The references of the schema searched last: its changes' proofs ask for them again and
again, and walking the whole schema each time was a tenth of the search. Held with the schema
itself, so that it is recognized by identity (schemas are never edited in place)."""


def references_index(schema: JSON) -> ReferencesIndex:
    """``references`` of ``schema`` by target."""
    references(schema)
    return _last_references[0][2]


def references(schema: JSON) -> list[tuple[str, str | None]]:
    """(pointer of the object holding a ``$ref``, the local pointer it targets or None) for
    every ``$ref`` string in ``schema``, wherever it stands, in document order."""
    if _last_references and _last_references[0][0] is schema:
        return _last_references[0][1]
    found: list[tuple[str, str | None]] = []
    stack: list[tuple[JSON, str]] = [(schema, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                target = pointers.ref_target(ref)
                found.append((where, target if isinstance(target, str) else None))
            stack.extend((v, pointers.join(where, k)) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((v, pointers.join(where, i)) for i, v in reversed(list(enumerate(node))))
    index = ReferencesIndex({}, [])
    for rank, (where, target) in enumerate(found):
        if target is None:
            index.elsewhere.append((rank, where))
        else:
            index.by_target.setdefault(target, []).append((rank, where))
    _last_references[:] = [(schema, found, index)]
    return found
