"""Which rewrite made a validation error possible.

python-jsonschema reports an error's schema path without the ``$ref`` hops it took, so the
path is replayed over the new schema here, jumping through local references where the path
continues in their target. The nearest rewritten keyword on that evaluation path is the cause;
failing that, the rewritten siblings that changed the failing keyword's meaning; failing that,
for a keyword that fails on what a whole subschema matched (``contains``, ``not``) the rewrites
within that subschema; failing that, for a schema that only became usable through type-case
rewrites, those rewrites; failing that, for an error under ``then``/``else``, the rewrites
within the ``if`` beside it. Rewrites within a subschema are named only where the old and the
new schema judge that subschema otherwise for the call (when that can be told).

References resolve as a validator resolves them, locally: every ``$id`` against the base URI
of the resource it stands in, every ``$ref`` against the base URI of its own resource, and an
anchor only within the resource that defines it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, cast
from urllib.parse import urldefrag, urljoin

from jsonschema.exceptions import ValidationError

from auditor import pointers
from auditor.inputs.limits import too_deep
from auditor.models import JSON, Change, Edit, Rule
from auditor.schema.keywords import REF_OVERRIDES_SIBLINGS, VOCABULARY, Draft, Kind

# Keywords whose verdict depends on rewritten siblings in the same schema object.
_SIBLINGS: Final[dict[str, tuple[str, ...]]] = {
    "items": ("prefixItems",),
    "additionalItems": ("items",),
    "additionalProperties": ("properties", "patternProperties"),
    "contains": ("minContains", "maxContains"),
    "minimum": ("exclusiveMinimum",),
    "maximum": ("exclusiveMaximum",),
}
# Keywords that see what in-place applicators anywhere below them evaluated.
_SUBTREE: Final = frozenset({"unevaluatedProperties", "unevaluatedItems"})
# Keywords that fail on what a whole subschema matched (no error inside it to follow), and the
# keyword, beside them, holding that subschema.
_WHOLE: Final[dict[str, str]] = {
    "contains": "contains",
    "minContains": "contains",
    "maxContains": "contains",
    "not": "not",
}
_BRANCHES: Final = frozenset({"then", "else"})
# Keywords that hand their subschema a part of the instance (one instance path step each).
_DESCENDS: Final = frozenset(
    {
        "properties",
        "patternProperties",
        "additionalProperties",
        "unevaluatedProperties",
        "items",
        "prefixItems",
        "additionalItems",
        "unevaluatedItems",
    }
)
# Keywords on the way that make the instance at a container unknowable from the error alone.
_OPAQUE: Final = frozenset({"$ref", "$dynamicRef", "$recursiveRef", "propertyNames", "contains"})
_MAX_COMPARED: Final = 256
_REFS: Final = ("$ref", "$dynamicRef", "$recursiveRef")
# Where `$defs` and friends sit: a subschema under them runs only when referenced.
_UNREFERENCED: Final = frozenset({"$defs", "definitions"})
_MAX_REF_HOPS: Final = 16
_MAX_LOCATED: Final = 10_000
"""Places of errors, and evaluation paths, a cause finder remembers: a schema has few, but
a recursive one met by deep arguments has as many as the arguments have depths."""
_TYPE_MEMBER: Final = re.compile(r"/type/\d+$")

Accepts = Callable[[str, JSON], "bool | None"]
"""Whether one side's subschema at a pointer accepts an instance; None when it cannot say."""


@dataclass(frozen=True)
class Located:
    """Where an error's failing keyword stands in the new schema, and the evaluation path."""

    keyword: str
    pointer: str
    container: str
    path: tuple[str, ...]
    """Keyword positions evaluated on the way, outermost first."""


class CauseFinder:
    """Finds causes for the errors of one tool's normalized schema."""

    def __init__(
        self,
        schema: JSON,
        rewrites: Sequence[Change],
        draft: Draft,
        unblocking: Sequence[Change] = (),
        unblocking_in_reach: bool = False,
        old_accepts: Accepts | None = None,
        new_accepts: Accepts | None = None,
    ) -> None:
        """``unblocking``: value fixes that made the schema, or parts of it, evaluable; with
        ``unblocking_in_reach`` only those on an error's path or inside its failing keyword
        are its causes (the lenient reading made only parts unevaluable), else all of them
        (the whole schema was unusable). ``old_accepts``/``new_accepts`` evaluate one side's
        subschema: a subschema the rewrites within changed nothing for (``contains``, ``not``,
        an ``if``) is no cause; without them, or when they cannot say, it is one."""
        self._root = schema
        self._in_reach = unblocking_in_reach
        self._draft = draft
        self._unblocking = tuple(unblocking)
        self._rewrites = tuple(rewrites)
        self._old_accepts = old_accepts
        self._new_accepts = new_accepts
        self._renamed = {
            r.new_pointer: r.pointer
            for r in rewrites
            if r.edit is Edit.RENAME and not r.entry_of and r.new_pointer
        }
        self._at: dict[str, list[Change]] = {}
        for rewrite in rewrites:
            self._at.setdefault(keyword_position(rewrite), []).append(rewrite)
        self._locations: dict[int, str] = {}
        self._anchors: dict[tuple[str, str], tuple[JSON, str]] = {}
        self._resources: dict[str, str] = {}
        """Absolute URI (no fragment) of each schema resource -> its pointer."""
        self._bases: dict[str, str] = {}
        """Pointer of each schema object that starts a resource -> its base URI."""
        self._refs: list[tuple[str, str]] = []
        """(pointer of the schema object, reference) of every reference, sorted."""
        self._within_memo: dict[str, tuple[Change, ...]] = {}
        self._located: dict[tuple[object, tuple[object, ...], int], tuple[object, Located]] = {}
        """``locate``'s answers, with the failing schema object each was found for."""
        self._conditions: dict[tuple[str, ...], tuple[str, str, tuple[Change, ...]] | None] = {}
        """``_condition``'s branch for an evaluation path (``_nearest_condition``)."""
        if not too_deep(schema):  # unusable then (replay says so): nothing to explain
            self._index(schema)
        self._refs.sort()
        self._positions = sorted((p, p) for p in self._at)

    def _index(self, root: JSON) -> None:
        # An explicit stack, in the order a recursive walk would take (first anchor wins):
        # a schema too deep to evaluate still gets a cause finder, and must not crash it.
        self._resources[""] = ""
        stack: list[tuple[JSON, str, str]] = [(root, "", "")]
        while stack:
            node, pointer, base = stack.pop()
            if isinstance(node, dict):
                self._locations[id(node)] = pointer
                base = self._identify(node, pointer, base)
                for name in ("$anchor", "$dynamicAnchor"):
                    if isinstance(anchor := node.get(name), str):
                        self._anchors.setdefault((base, anchor), (node, pointer))
                self._refs.extend((pointer, r) for k in _REFS if isinstance(r := node.get(k), str))
                children = [
                    (value, pointers.join(pointer, key), base) for key, value in node.items()
                ]
            elif isinstance(node, list):
                children = [
                    (value, pointers.join(pointer, i), base) for i, value in enumerate(node)
                ]
            else:
                continue
            stack.extend(reversed(children))

    def _identify(self, node: dict[str, JSON], pointer: str, base: str) -> str:
        """Registers what ``node``'s ``$id`` names; returns the base URI inside ``node``.

        A relative ``$id`` resolves against the resource it stands in (``folder/`` then
        ``b.json`` is ``folder/b.json``); a fragment-only one (draft 6/7 ``#name``) is an
        anchor of that resource, not a resource of its own. Up to draft 7 an ``$id`` beside
        ``$ref`` is ignored, like every sibling of ``$ref``.
        """
        identifier = node.get("id" if self._draft is Draft.DRAFT4 else "$id")
        if not isinstance(identifier, str) or (
            self._draft in REF_OVERRIDES_SIBLINGS and "$ref" in node
        ):
            return base
        uri, fragment = urldefrag(urljoin(base, identifier))
        if not identifier.startswith("#"):
            base = uri
            self._resources.setdefault(uri, pointer)
            self._bases[pointer] = uri
        if fragment and not fragment.startswith("/"):
            self._anchors.setdefault((uri, fragment), (node, pointer))
        return base

    def _base_of(self, pointer: str) -> str:
        """The base URI at ``pointer``: that of the nearest resource around it."""
        for prefix in reversed(["", *_prefixes(pointer)]):
            if prefix in self._bases:
                return self._bases[prefix]
        return ""

    def locate(self, error: ValidationError) -> Located:
        """Where ``error``'s keyword stands, following the references its path went through.

        Remembered: the answer depends on the failing keyword, the schema path and the schema
        object that failed alone, and a tool's calls fail at few places. The entry holds that
        object, whose identity it is found by (no other object can take its id meanwhile)."""
        schema_path = tuple(error.absolute_schema_path)
        key = (error.validator, schema_path, id(error.schema))
        known = self._located.get(key)
        if known is not None and known[0] is error.schema:
            return known[1]
        located = self._locate(error, schema_path)
        if len(self._located) < _MAX_LOCATED:
            self._located[key] = (error.schema, located)
        return located

    def _locate(self, error: ValidationError, schema_path: Sequence[object]) -> Located:
        keyword = error.validator if isinstance(error.validator, str) else "false"
        segments = [str(s) for s in schema_path]
        if isinstance(error.validator, str) and segments and segments[-1] == keyword:
            segments = segments[:-1]
        walked = self._walk(self._root, "", self._base_of(""), segments, error.schema, 0)
        if walked is not None:
            container, path = walked
        else:
            container = self._locations.get(id(error.schema), pointers.from_segments(segments))
            path = tuple(_prefixes(container))
        pointer = container if keyword == "false" else pointers.join(container, keyword)
        return Located(keyword, pointer, container, (*path, pointer))

    def _walk(
        self,
        node: JSON,
        pointer: str,
        base: str,
        segments: Sequence[str],
        target: object,
        hops: int,
    ) -> tuple[str, tuple[str, ...]] | None:
        """Follow ``segments`` from ``node``; returns the container's pointer and the path."""
        base = self._bases.get(pointer, base)
        if not segments:
            if node is target or not isinstance(target, dict):
                return pointer, ()
            return self._hop(node, pointer, base, segments, target, hops)
        head, rest = segments[0], segments[1:]
        child: JSON = None
        found = False
        if isinstance(node, dict) and head in node:
            child, found = node[head], True
        elif (
            isinstance(node, list) and (index := pointers.array_index(head, len(node))) is not None
        ):
            child, found = node[index], True
        if found:
            step = pointers.join(pointer, head)
            walked = self._walk(child, step, base, rest, target, hops)
            if walked is not None:
                return walked[0], (step, *walked[1])
        return self._hop(node, pointer, base, segments, target, hops)

    def _hop(
        self,
        node: JSON,
        pointer: str,
        base: str,
        segments: Sequence[str],
        target: object,
        hops: int,
    ) -> tuple[str, tuple[str, ...]] | None:
        if not isinstance(node, dict) or hops >= _MAX_REF_HOPS:
            return None
        for keyword in _REFS:
            ref = node.get(keyword)
            if not isinstance(ref, str):
                continue
            resolved = self._resolve(ref, base)
            if resolved is None:
                continue
            walked = self._walk(
                resolved[0], resolved[1], self._base_of(resolved[1]), segments, target, hops + 1
            )
            if walked is not None:
                # A rename above the target changed what the reference lands on: it is on
                # the path too, behind the reference itself (which is nearer when rewritten).
                above = tuple(p for p in _prefixes(resolved[1]) if p != resolved[1])
                return walked[0], (*above, pointers.join(pointer, keyword), *walked[1])
        return None

    def _resolve(self, ref: str, base: str) -> tuple[JSON, str] | None:
        """The schema ``ref`` names, read against ``base``; None when it is not in this
        document (remote: never fetched) or names nothing here."""
        uri, fragment = urldefrag(urljoin(base, ref))
        resource = self._resources.get(uri)
        if resource is None:
            return None
        target = pointers.ref_target("#" + fragment)
        if isinstance(target, pointers.Anchor):
            return self._anchors.get((uri, target.name))
        if not isinstance(target, str):
            return None
        return self._at_pointer(resource + target)

    def _at_pointer(self, pointer: str) -> tuple[JSON, str] | None:
        found, node = pointers.resolve(self._root, pointer)
        return (node, pointer) if found else None

    def causes(
        self,
        error: ValidationError,
        located: Located | None = None,
        arguments: Sequence[JSON] = (),
    ) -> tuple[Change, ...]:
        """The rewrites that made ``error`` possible; empty when none can be named.
        ``arguments``: the call's arguments as a one-element sequence, when known."""
        located = located or self.locate(error)
        found = self._direct(error, located)
        if not found:
            found = _unique(c for sub in error.context for c in self._direct(sub, self.locate(sub)))
        if not found:
            found = tuple(
                r
                for r in self._unblocking
                if not self._in_reach
                or keyword_position(r) in located.path
                or pointers.is_within(keyword_position(r), located.pointer)
            )
        if not found:
            found = self._condition(error, located, arguments) or _unique(
                c
                for sub in error.context
                for c in self._condition(sub, self.locate(sub), arguments)
            )
        return found

    def _direct(self, error: ValidationError, located: Located) -> tuple[Change, ...]:
        for position in reversed(located.path):
            if position in self._at:
                return tuple(self._at[position])
        siblings = _SIBLINGS.get(located.keyword, ())
        found = [
            r
            for name in siblings
            for r in self._at.get(pointers.join(located.container, name), ())
            if not _lets_through(r, located.keyword, _instance(error))
        ]
        if not found and located.keyword in _SUBTREE:
            found = [
                r
                for r in self._rewrites
                if r.rule is Rule.KEYWORD_CASE
                and pointers.is_within(r.new_pointer, located.container)
                and r.new_pointer != located.pointer
            ]
        if not found and located.keyword in _WHOLE:
            at = pointers.join(located.container, _WHOLE[located.keyword])
            within = self._within(at)
            instance = _instance(error)
            if located.keyword != "not":  # contains: each item met the subschema, or not
                instances = list(instance) if isinstance(instance, list) else []
            else:
                instances = [instance]
            return within if within and self._changed(at, instances) else ()
        return tuple(found)

    def _changed(self, at: str, instances: Sequence[JSON]) -> bool:
        """Whether the subschema at ``at`` (new schema) judges one of ``instances`` otherwise
        than the same place in the old schema; True when that cannot be told."""
        if self._old_accepts is None or self._new_accepts is None:
            return True
        if len(instances) > _MAX_COMPARED:
            return True
        old_at = self._old_pointer(at)
        for instance in instances:
            old, new = self._old_accepts(old_at, instance), self._new_accepts(at, instance)
            if old is None or new is None or old != new:
                return True
        return False

    def _old_pointer(self, pointer: str) -> str:
        """The place in the old schema of ``pointer`` in the new one: renames undone."""
        old = current = ""
        for segment in pointers.split(pointer):
            current = pointers.join(current, segment)
            old = self._renamed.get(current, pointers.join(old, segment))
        return old

    def _condition(
        self, error: ValidationError, located: Located, arguments: Sequence[JSON]
    ) -> tuple[Change, ...]:
        """For an error under ``then`` or ``else``: the rewrites within the ``if`` beside the
        nearest such branch that has any, unless that ``if`` judges the instance as the old
        one did (then they did not change which branch applies)."""
        nearest = self._nearest_condition(located.path)
        if nearest is None:
            return ()
        container, condition, rewrites = nearest
        known, instance = self._instance_at(container, located, error, arguments)
        if not known or self._changed(condition, [instance]):
            return rewrites
        return ()

    def _nearest_condition(
        self, path: tuple[str, ...]
    ) -> tuple[str, str, tuple[Change, ...]] | None:
        """The nearest ``then``/``else`` on ``path`` whose ``if`` has rewrites within: its
        schema object, the ``if`` and those rewrites; None when there is none (most paths).
        Remembered by the path: it depends on the schema alone."""
        if path in self._conditions:
            return self._conditions[path]
        nearest = None
        for position in reversed(path):
            segments = pointers.split(position)
            if not segments or segments[-1] not in _BRANCHES or self._is_name(segments[:-1]):
                continue
            container = pointers.parent(position)
            found, node = pointers.resolve(self._root, container)
            if not (found and isinstance(node, dict) and "if" in node):
                continue
            condition = pointers.join(container, "if")
            if rewrites := self._within(condition):
                nearest = (container, condition, rewrites)
                break
        if len(self._conditions) < _MAX_LOCATED:
            self._conditions[path] = nearest
        return nearest

    def _instance_at(
        self, container: str, located: Located, error: ValidationError, arguments: Sequence[JSON]
    ) -> tuple[bool, JSON]:
        """The instance the schema object at ``container`` (on ``located``'s path) evaluated,
        and whether it is known: the error's instance path less one step per keyword on the
        way down that hands its subschema a part of the instance."""
        steps = 0
        for position in located.path[:-1]:
            if position == container or not pointers.is_within(position, container):
                continue
            segments = pointers.split(position)
            if self._is_name(segments[:-1]):
                continue
            if segments[-1] in _OPAQUE:
                return False, None
            steps += segments[-1] in _DESCENDS
        path = list(error.absolute_path)
        if steps > len(path):
            return False, None
        if not steps:
            return True, _instance(error)
        if not arguments:
            return False, None
        return pointers.resolve(arguments[0], pointers.from_segments(path[: len(path) - steps]))

    def _is_name(self, container: Sequence[str]) -> bool:
        """True when the last segment of ``container`` is a map of names to schemas (so what
        follows it is a name, not a keyword)."""
        kind = VOCABULARY[self._draft].get(container[-1]) if container else None
        return kind in (Kind.SCHEMA_MAP, Kind.DEPENDENCIES)

    def _within(self, root: str) -> tuple[Change, ...]:
        """The rewrites of the subschema at ``root``: those below it, and those of what its
        local references reach (below their targets, or renames above them), in rewrite order.
        ``$defs`` met on the way are not evaluated unless referenced, and are left out."""
        if root in self._within_memo:
            return self._within_memo[root]
        positions: set[str] = set()
        seen = {root}
        pending = [(root, 0)]
        while pending:
            at, hops = pending.pop()
            positions.update(
                p for p, _ in _below(self._positions, at) if self._evaluated_within(p, at)
            )
            if hops:
                positions.update(p for p in _prefixes(at) if p in self._at)
            if hops >= _MAX_REF_HOPS:
                continue
            for holder, ref in _below(self._refs, at):
                if not self._evaluated_within(holder, at):
                    continue
                resolved = self._resolve(ref, self._base_of(holder))
                if resolved is not None and resolved[1] not in seen:
                    seen.add(resolved[1])
                    pending.append((resolved[1], hops + 1))
        found = tuple(r for r in self._rewrites if keyword_position(r) in positions)
        self._within_memo[root] = found
        return found

    @staticmethod
    def _evaluated_within(pointer: str, root: str) -> bool:
        if not pointers.is_within(pointer, root):
            return False
        below = pointers.split(pointer)[len(pointers.split(root)) :]
        return not any(segment in _UNREFERENCED for segment in below[:-1])


def keyword_position(rewrite: Change) -> str:
    """The keyword a rewrite belongs to: a type-array member belongs to its ``type``, an
    added or removed property to its ``properties``."""
    if rewrite.entry_of or (
        rewrite.edit is Edit.REPLACE and _TYPE_MEMBER.search(rewrite.new_pointer)
    ):
        return pointers.parent(rewrite.new_pointer)
    return rewrite.new_pointer


def _below(entries: Sequence[tuple[str, str]], at: str) -> Sequence[tuple[str, str]]:
    """A slice of the entries (sorted by pointer) holding every one whose pointer is ``at``
    or below it, as those start with ``at/`` and ``0`` follows ``/``; a few neighbours
    (``at-x``) too, which the caller filters out."""
    start = bisect.bisect_left(entries, (at, ""))
    return entries[start : bisect.bisect_left(entries, (at + "0", ""), lo=start)]


def _lets_through(change: Change, keyword: str, instance: JSON) -> bool:
    """Whether ``change``, a change of ``properties`` beside a failing ``additionalProperties``
    on ``instance``, cannot be a cause: a property added is one more ``additionalProperties``
    no longer judges, and one removed that the object does not hold refused nothing in it."""
    if keyword != "additionalProperties" or change.entry_of != "properties":
        return False
    if change.edit is Edit.ADD:
        return True
    name = pointers.split(change.new_pointer)[-1]
    return change.edit is Edit.REMOVE and isinstance(instance, dict) and name not in instance


def _instance(error: ValidationError) -> JSON:
    return cast("JSON", error.instance)


def _prefixes(pointer: str) -> Iterator[str]:
    current = ""
    for segment in pointers.split(pointer):
        current = pointers.join(current, segment)
        yield current


def _unique(rewrites: Iterator[Change]) -> tuple[Change, ...]:
    return tuple(dict.fromkeys(rewrites))
