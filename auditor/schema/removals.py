"""Properties a change removed from a tool's schema, where calls would still send them.

A pull request that drops a property from ``properties`` (github-mcp-server's ``get_commit``
lost ``include_diff`` to ``detail``) changes nothing for a call that never sent it. For a call
that still does, the new schema either ignores it (the object is open: the tool silently does
what the property no longer asks) or refuses it (``additionalProperties: false`` and the
like). Both are what the pull request changes for that caller, so each removal is traced to
the place in the arguments it concerns (``RemovedProperty.path``), and the calls that send it
are counted by the aggregate stage (``auditor.aggregate.removed_sent``).

A removal is traced only through keywords whose instance place is known without evaluating
the schema: ``properties`` (a named member), ``items`` and ``prefixItems`` (array members), and
the applicators that stay at the same place (``allOf``, ``anyOf``, ``oneOf``, ``then``,
``else``). A property the new schema still declares at that place (moved into an ``allOf``
branch, say) is not removed.

``ignored`` is a proof, never a guess: the new schema ignores an undeclared property there
when the object holding it has no ``additionalProperties`` that constrains (absent, ``true``
or ``{}``), no ``propertyNames``, no ``patternProperties`` whose pattern matches the name, and
the whole schema no ``unevaluatedProperties`` that constrains (it sees through applicators
and references, so any one of them could close the object).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from auditor import pointers
from auditor.models import JSON, Change, Edit
from auditor.schema.keywords import VOCABULARY, draft_of, schema_objects

ANY_ITEM: Final = None
"""A path segment standing for every member of an array (``items``)."""

PathSegment = str | int | None
"""A member name, an array index, or ``ANY_ITEM``."""

_SAME_PLACE: Final = frozenset({"allOf", "anyOf", "oneOf", "then", "else"})
"""Applicators whose subschemas apply to the instance the schema object applies to."""
_OPEN: Final[tuple[JSON, ...]] = (True, {})
"""Values of ``additionalProperties`` (and ``unevaluatedProperties``) that constrain nothing."""


@dataclass(frozen=True)
class RemovedProperty:
    """A property the change removed from a tool's ``properties``, where calls send it."""

    change: Change
    """The removal (``entry_of == "properties"``, ``Edit.REMOVE``)."""
    name: str
    path: tuple[PathSegment, ...]
    """Where in the arguments the object holding the property is: member names, array
    indexes, ``ANY_ITEM`` for every member of an array; empty for the arguments themselves."""
    ignored: bool
    """Proved: the new schema accepts the property there whatever its value (see module)."""

    @property
    def pointer(self) -> str:
        """The property's place in the arguments as a JSON pointer, ``*`` for every member of
        an array (``/options/include_diff``, ``/files/*/mode``)."""
        return pointers.from_segments(
            ["*" if segment is ANY_ITEM else segment for segment in (*self.path, self.name)]
        )

    def sent_by(self, arguments: JSON) -> bool:
        """Whether ``arguments`` hold the property at its place (at any member of an array)."""
        return any(self.name in holder for holder in _holders(arguments, self.path))


def removed_properties(new: JSON, changes: Iterable[Change]) -> tuple[RemovedProperty, ...]:
    """The properties ``changes`` (from a tool's old schema to ``new``) removed from
    ``properties`` at a place calls can be traced to, and that ``new`` no longer declares
    there."""
    found: list[RemovedProperty] = []
    for change in changes:
        if change.edit is not Edit.REMOVE or change.entry_of != "properties":
            continue
        segments = pointers.split(change.new_pointer)
        holder, name = pointers.from_segments(segments[:-2]), segments[-1]
        path = instance_path(segments[:-2])
        if path is None or declares(new, holder, name):
            continue
        found.append(RemovedProperty(change, name, path, ignores(new, holder, name)))
    return tuple(found)


def instance_path(segments: Sequence[str]) -> tuple[PathSegment, ...] | None:
    """The place in an instance a schema object at ``segments`` applies to, or None when
    keywords other than those in the module docstring lie on the way."""
    path: list[PathSegment] = []
    at = 0
    while at < len(segments):
        keyword = segments[at]
        following = segments[at + 1] if at + 1 < len(segments) else None
        if keyword == "properties" and following is not None:
            path.append(following)
            at += 2
        elif keyword in ("prefixItems", "items") and following is not None and following.isdigit():
            path.append(int(following))  # a tuple position (``items`` as a list before 2020-12)
            at += 2
        elif keyword == "items":
            path.append(ANY_ITEM)
            at += 1
        elif keyword in ("allOf", "anyOf", "oneOf") and following is not None:
            at += 2
        elif keyword in ("then", "else"):
            at += 1
        else:
            return None
    return tuple(path)


def declares(schema: JSON, holder: str, name: str) -> bool:
    """Whether a schema object applying where ``holder`` does (itself, or a subschema at the
    same place) still declares ``name`` in its ``properties``."""
    found, node = pointers.resolve(schema, holder)
    return found and any(name in names(obj, "properties") for obj in same_place(node))


def ignores(schema: JSON, holder: str, name: str) -> bool:
    """Whether ``schema`` surely accepts a member ``name`` of any value in an object that the
    schema object at ``holder`` applies to, once ``name`` is not among its ``properties``.

    Only where accepting more there accepts more overall: ``holder`` is reached through
    ``properties``, ``items``, ``prefixItems``, ``allOf``, ``anyOf``, ``then`` and ``else``
    alone (under ``not``, ``oneOf``, ``if`` or ``contains``, or in a definition some ``$ref``
    may reach from there, a subschema that accepts more can make its schema refuse more)."""
    if not _accepting_more_accepts_more(pointers.split(holder)):
        return False
    found, node = pointers.resolve(schema, holder)
    if not found or not isinstance(node, dict):
        return found and node is True
    if not _constrains_nothing(node.get("additionalProperties", True)):
        return False
    if not _constrains_nothing(node.get("propertyNames", True)):
        return False
    patterns = node.get("patternProperties", {})
    if not isinstance(patterns, dict) or any(_may_match(p, name) for p in patterns):
        return False
    vocabulary = VOCABULARY[draft_of(schema)]
    return all(
        _constrains_nothing(obj.get("unevaluatedProperties", True))
        for obj, _ in schema_objects(schema, "", vocabulary)
    )


def undeclared(schema: JSON, holder: str, name: str) -> bool:
    """Whether the schema object at ``holder`` gives a member ``name`` no schema of its own:
    neither it nor a subschema at the same place declares it in ``properties`` or matches it
    by ``patternProperties``, and its ``additionalProperties`` is absent, ``true``, ``{}`` or
    ``false`` (a schema there would judge the value)."""
    found, node = pointers.resolve(schema, holder)
    if not found or not isinstance(node, dict):
        return False
    additional = node.get("additionalProperties", True)
    if not (_constrains_nothing(additional) or additional is False):
        return False
    for obj in same_place(node):
        declared = obj.get("properties")
        patterns = obj.get("patternProperties", {})
        if isinstance(declared, dict) and name in declared:
            return False
        if not isinstance(patterns, dict) or any(_may_match(p, name) for p in patterns):
            return False
    return True


def _accepting_more_accepts_more(segments: Sequence[str]) -> bool:
    at = 0
    while at < len(segments):
        keyword = segments[at]
        if keyword in ("properties", "prefixItems", "allOf", "anyOf"):
            at += 2
        elif keyword == "items":
            following = segments[at + 1] if at + 1 < len(segments) else ""
            at += 2 if following.isdigit() else 1
        elif keyword in ("then", "else"):
            at += 1
        else:
            return False
    return True


def names(schema: dict[str, JSON], keyword: str) -> Collection[str]:
    """The names ``schema[keyword]`` holds (a map's keys, a list's strings); none else."""
    value = schema.get(keyword)
    if isinstance(value, dict):
        return value.keys()
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return ()


def _constrains_nothing(value: JSON) -> bool:
    return any(type(value) is type(kind) and value == kind for kind in _OPEN)


def _may_match(pattern: str, name: str) -> bool:
    """Whether ``pattern`` matches ``name``; True when Python cannot tell (a pattern it does not
    read as ECMA-262 would): no proof rests on a guess."""
    try:
        return re.search(pattern, name) is not None
    except (re.error, TypeError, RecursionError):
        return True


def same_place(node: JSON) -> Iterator[dict[str, JSON]]:
    """``node`` and its subschemas through the applicators that stay at the same instance
    place (``allOf``, ``anyOf``, ``oneOf``, ``then``, ``else``)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if not isinstance(current, dict):
            continue
        yield current
        for keyword in _SAME_PLACE & current.keys():
            value = current[keyword]
            stack.extend(value if isinstance(value, list) else [value])


def _holders(arguments: JSON, path: Sequence[PathSegment]) -> Iterator[dict[str, JSON]]:
    """The objects of ``arguments`` at ``path``."""
    places: list[JSON] = [arguments]
    for segment in path:
        following: list[JSON] = []
        for place in places:
            if segment is ANY_ITEM:
                following.extend(place if isinstance(place, list) else ())
            elif isinstance(place, dict) and isinstance(segment, str):
                following.extend([place[segment]] if segment in place else ())
            elif isinstance(place, list) and isinstance(segment, int):
                following.extend(place[segment : segment + 1])
        places = following
    for place in places:
        if isinstance(place, dict):
            yield place
