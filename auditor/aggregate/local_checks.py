"""A loosening patch's two whole-schema checks, decided on the schema object it edits.

A patch (``auditor.aggregate.loosen``) edits one schema object of a tool's new schema, the
*holder* of the loosened keyword: every operation's path lies within it. Two of its checks
ask about the whole patched schema, and a tool has up to a couple of hundred patched groups,
so asking them of the whole schema for each group cost the groups times the schema's size
(180 groups of a 1,000-property tool: 6 s; of 4,000 properties: 25 s). What does not change
from one group to the next is worked out once per schema (``Whole``, ``Written``); each group
then looks at its holder only, and where a guard below does not hold, the caller asks the
whole schema as before. Either way the answer is the one the whole-schema check gives.

**Is the patched schema usable?** (``schema_problem`` of it is None.) Each draft's
meta-schema checks a schema object at a schema position (reached from the root through
keywords whose values are schemas, as ``VOCABULARY`` has them) with the meta-schema itself,
on its own: its parent's check of that position asks only that the meta-schema accepts it
(``{"$ref": "#"}``, ``$recursiveRef``, ``$dynamicRef: "#meta"``, alone or as one branch of an
``anyOf``), and nothing else in the document looks into it. So when the unpatched schema is
usable, the holder stands at a schema position, and the meta-schema accepts the patched
holder as a document of the schema's draft, the patched schema passes its meta-schema; its
depth and size are bounded by the unpatched schema's and the holder's. ``usable_after``
says so, or None when it cannot (then the whole schema is checked, and its message shown).

**Does the catalog's normalization give the patched schema?** Without an upgrade profile,
the normalizer's walk (``auditor.schema.normalize``) makes each schema object's result out of
that object's own keys and its subschemas' results, with the draft and the rules: what a key
means depends on which other keys stand beside it, and nothing else; what an object does
after its keys are walked (OpenAPI's bounds and ``nullable``, a ``type`` alias) reads its
own data keywords, never a subschema; profiles are the rules that look at an object's parent
(``descends``, strict mode's ``required``). After the walk, each ``$ref`` is respelled
through the keys the walk renamed anywhere. So when the edit lies within the holder, the
holder stands at a schema position (the way to it passes only keywords whose values are
schemas), the written schema normalizes to the new one, and the edited holder holds no
``$ref`` and renames the same keys as before, the edited schema normalizes to the new schema
with the holder's result in place of the holder's — which ``normalizes_to`` computes by
normalizing the holder on the way to it (each ancestor keeps its keys, for what they mean,
and nothing below them but the way) and compares with the patched holder.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Final

from auditor import pointers
from auditor.inputs.limits import MAX_NESTING, MAX_SCHEMA_NODES, nesting
from auditor.models import JSON, Change, Edit, PatchOperation, Rule
from auditor.replay.fast_validator import meta_valid
from auditor.replay.tool import schema_problem
from auditor.schema.keywords import VOCABULARY, Draft, Kind, draft_of, schema_objects
from auditor.schema.normalize import normalize
from auditor.schema.profiles import PROFILES

_DEFINITIONS: Final = ("$defs", "definitions")


def values_in(value: JSON, limit: int = MAX_SCHEMA_NODES) -> int:
    """How many values ``value`` holds, itself included, as ``too_large`` counts them
    (counting no further than ``limit + 1``)."""
    count = 0
    stack: list[JSON] = [value]
    while stack and count <= limit:
        node = stack.pop()
        count += 1
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


def _within(operations: Sequence[PatchOperation], holder: str) -> bool:
    return bool(holder) and all(pointers.is_within(o.path, holder) for o in operations)


class Whole:
    """What the checks of every patch of one schema ask of the schema as a whole."""

    def __init__(self, schema: JSON) -> None:
        self.schema = schema

    @cached_property
    def usable(self) -> bool:
        """Whether the schema passes its meta-schema and the bounds (``schema_problem``)."""
        return schema_problem(self.schema) is None

    @cached_property
    def draft(self) -> Draft:
        return draft_of(self.schema)

    @cached_property
    def positions(self) -> frozenset[str]:
        """The pointers of its schema objects at schema positions."""
        vocabulary = VOCABULARY[self.draft]
        return frozenset(where for _, where in schema_objects(self.schema, "", vocabulary))

    @cached_property
    def size(self) -> int:
        return values_in(self.schema)


@dataclass(frozen=True)
class Usable:
    """What ``usable_after`` showed of a patched schema."""

    size: int
    """How many values it holds (at most ``MAX_SCHEMA_NODES``)."""


def usable_after(
    whole: Whole, patched: JSON, operations: Sequence[PatchOperation], holder: str
) -> Usable | None:
    """``Usable`` when ``patched`` (``whole``'s schema with ``operations`` applied, every one
    within the schema object at ``holder``) is shown usable from its holder alone; None when
    it is not shown so (it may still be: ask ``schema_problem``)."""
    if not _within(operations, holder) or holder not in whole.positions or not whole.usable:
        return None
    found, after = pointers.resolve(patched, holder)
    _, before = pointers.resolve(whole.schema, holder)
    if not found or not isinstance(after, dict):
        return None
    # Usable, the schema nests at most MAX_NESTING deep; outside the holder nothing changed.
    if len(pointers.split(holder)) + nesting(after) > MAX_NESTING:
        return None
    size = whole.size - values_in(before) + values_in(after)
    if size > MAX_SCHEMA_NODES or not meta_valid(whole.draft, after):
        return None
    return Usable(size)


def alone_usable(alone: dict[str, JSON], patched: Usable, draft: Draft) -> bool:
    """Whether ``alone`` — keywords of a patched holder, with ``$schema``, ``$defs`` and
    ``definitions`` from the root of the patched schema shown ``patched`` — is usable, shown
    without checking those definitions again: they are subschemas of the patched schema at
    schema positions, which its meta-schema accepted, so an empty object in their place
    (a schema the meta-schema accepts) leaves the verdict as it was. False: not shown."""
    standing = dict(alone)
    vocabulary = VOCABULARY[draft]
    for name in _DEFINITIONS:
        if name in standing:
            # Where the draft has no such keyword, its value is data, unchecked either way.
            kind = vocabulary.get(name)
            if not isinstance(standing[name], dict) or kind not in (None, Kind.SCHEMA_MAP):
                return False
            standing[name] = {}
    held = [v for k, v in alone.items() if k not in (*_DEFINITIONS, "$schema")]
    # The root's own members nest and count no more than the patched schema does.
    if any(1 + nesting(v) > MAX_NESTING for v in held):
        return False
    if 1 + sum(values_in(v) for v in held) + patched.size > MAX_SCHEMA_NODES:
        return False
    return draft_of(alone) is draft and meta_valid(draft, standing)


class Written:
    """A catalog's schema as written and the normalization that gives a tool's new schema:
    what every patch located in that file asks of them."""

    def __init__(self, written: JSON, rules: Collection[Rule], new_schema: JSON) -> None:
        """May raise ``RecursionError`` (normalizing on a deep stack)."""
        self.written = written
        self.rules = rules
        self.new_schema = new_schema
        self.depth = nesting(written)
        normalized = normalize(written, rules) if rules else None
        renames = sorted(
            (r for r in (normalized.rewrites if normalized else ()) if r.edit is Edit.RENAME),
            key=_by_pointer,
        )
        self.renamed: dict[str, str] = {r.new_pointer: r.pointer for r in renames}
        """The keys renamed, new pointer to old."""
        self._renames = renames
        self._rename_pointers = [r.pointer for r in renames]
        # Compared only when shallow: deeper, comparing could recurse past the stack.
        self.same = self.depth <= MAX_NESTING and (
            (normalized.schema if normalized else written) == new_schema
        )
        """Whether the written schema normalizes to the new schema (it does, unless the
        caller's new schema came from elsewhere), and nests at most ``MAX_NESTING`` deep."""

    def renames_within(self, pointer: str) -> list[Change]:
        """The renames of keys at or below ``pointer`` (an old pointer), in pointer order."""
        start = bisect.bisect_left(self._rename_pointers, pointer)
        # "/" is followed by "0": the pointers below ``pointer`` sort before pointer + "0".
        end = bisect.bisect_left(self._rename_pointers, pointer + "0")
        return [r for r in self._renames[start:end] if pointers.is_within(r.pointer, pointer)]

    def old_pointer(self, pointer: str) -> str:
        """``pointer`` in the new schema, spelled as the file writes it (renamed keys undone)."""
        segments = pointers.split(pointer)
        for cut in range(len(segments), 0, -1):
            prefix = pointers.from_segments(segments[:cut])
            if prefix in self.renamed:
                return self.renamed[prefix] + pointers.from_segments(segments[cut:])
        return pointer


def normalizes_to(
    written: Written,
    whole: Whole,
    edited: JSON,
    file_operations: Sequence[PatchOperation],
    operations: Sequence[PatchOperation],
    holder: str,
    patched: JSON,
) -> bool | None:
    """Whether the catalog's normalization of ``edited`` (the written schema with
    ``file_operations``) is ``patched`` (the new schema with ``operations``, all within the
    schema object at ``holder``), decided from the holder alone; None when it cannot be (then
    normalize ``edited`` whole)."""
    if whole.schema is not written.new_schema or not written.same:
        return None
    if not written.rules:
        # Taken as written: nothing is renamed, so both sides are the same operations on
        # equal schemas.
        return True
    if set(written.rules) & PROFILES.keys():
        return None
    held = written.old_pointer(holder)
    if not _within(operations, holder) or not _within(file_operations, held):
        return None
    if holder not in whole.positions:
        return None
    found, inner = pointers.resolve(edited, held)
    if not found or len(pointers.split(held)) + nesting(inner) > MAX_NESTING:
        return None  # the whole edited schema might be too deep to normalize at all
    on_the_way = _on_the_way(edited, pointers.split(held), pointers.split(holder), whole, inner)
    try:
        normalized = normalize(on_the_way, written.rules)
    except RecursionError:  # on a deep stack: the whole schema says what happens
        return None
    found, result = pointers.resolve(normalized.schema, holder)
    if not found or _has_ref(result):
        return None
    renames = [r for r in normalized.rewrites if r.edit is Edit.RENAME]
    within = sorted((r for r in renames if pointers.is_within(r.pointer, held)), key=_by_pointer)
    if within != written.renames_within(held):
        return None
    return result == pointers.resolve(patched, holder)[1]


def _by_pointer(rewrite: Change) -> str:
    return rewrite.pointer


def _on_the_way(
    document: JSON, segments: list[str], new_segments: list[str], whole: Whole, inner: JSON
) -> JSON:
    """``document`` cut down to the way to ``inner`` (at ``segments``): each schema object on
    the way keeps its keys (what a key means depends on the keys beside it), their values
    emptied where they hold more (``None``); maps and lists keep only the way's member, lists
    at its place."""
    ancestors: list[JSON] = []
    node = document
    for segment in segments:
        ancestors.append(node)
        node = node[segment] if isinstance(node, dict) else node[int(segment)]  # type: ignore[index]
    built = inner
    for depth in range(len(segments) - 1, -1, -1):
        ancestor, segment = ancestors[depth], segments[depth]
        if isinstance(ancestor, dict):
            if pointers.from_segments(new_segments[:depth]) in whole.positions:
                built = {
                    key: built if key == segment else _emptied(value)
                    for key, value in ancestor.items()
                }
            else:
                built = {segment: built}
        else:
            built = [None] * int(segment) + [built]
    return built


def _emptied(value: JSON) -> JSON:
    return None if isinstance(value, (dict, list)) else value


def _has_ref(value: JSON) -> bool:
    """Whether a ``$ref`` key stands anywhere in ``value`` (a property of that name too)."""
    stack: list[JSON] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "$ref" in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
