"""Which rewrite made a validation error possible.

python-jsonschema reports an error's schema path without the ``$ref`` hops it took, so the
path is replayed over the new schema here, jumping through local references where the path
continues in their target. The nearest rewritten keyword on that evaluation path is the cause;
failing that, the rewritten siblings that changed the failing keyword's meaning; failing that,
for a schema that only became usable through type-case rewrites, those rewrites.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from jsonschema.exceptions import ValidationError

from auditor.inputs.limits import too_deep
from auditor.models import JSON, Change, Rewrite, Rule
from auditor.schema import pointers
from auditor.schema.keywords import Draft

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
_MAX_REF_HOPS: Final = 16
_TYPE_MEMBER: Final = re.compile(r"/type/\d+$")


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
        rewrites: Sequence[Rewrite],
        draft: Draft,
        unblocking: Sequence[Rewrite] = (),
        unblocking_in_reach: bool = False,
    ) -> None:
        """``unblocking``: value fixes that made the schema, or parts of it, evaluable; with
        ``unblocking_in_reach`` only those on an error's path or inside its failing keyword
        are its causes (the lenient reading made only parts unevaluable), else all of them
        (the whole schema was unusable)."""
        self._root = schema
        self._in_reach = unblocking_in_reach
        self._draft = draft
        self._unblocking = tuple(unblocking)
        self._rewrites = tuple(rewrites)
        self._at: dict[str, list[Rewrite]] = {}
        for rewrite in rewrites:
            self._at.setdefault(keyword_position(rewrite), []).append(rewrite)
        self._locations: dict[int, str] = {}
        self._anchors: dict[str, tuple[JSON, str]] = {}
        if not too_deep(schema):  # unusable then (replay says so): nothing to explain
            self._index(schema, "")

    def _index(self, root: JSON, at: str) -> None:
        # An explicit stack, in the order a recursive walk would take (first anchor wins):
        # a schema too deep to evaluate still gets a cause finder, and must not crash it.
        stack: list[tuple[JSON, str]] = [(root, at)]
        while stack:
            node, pointer = stack.pop()
            if isinstance(node, dict):
                self._locations[id(node)] = pointer
                for name in ("$anchor", "$dynamicAnchor"):
                    if isinstance(anchor := node.get(name), str):
                        self._anchors.setdefault("#" + anchor, (node, pointer))
                identifier = node.get("id" if self._draft is Draft.DRAFT4 else "$id")
                if isinstance(identifier, str):
                    self._anchors.setdefault(identifier, (node, pointer))
                children = [(value, pointers.join(pointer, key)) for key, value in node.items()]
            elif isinstance(node, list):
                children = [(value, pointers.join(pointer, i)) for i, value in enumerate(node)]
            else:
                continue
            stack.extend(reversed(children))

    def locate(self, error: ValidationError) -> Located:
        """Where ``error``'s keyword stands, following the references its path went through."""
        keyword = error.validator if isinstance(error.validator, str) else "false"
        segments = [str(s) for s in error.absolute_schema_path]
        if isinstance(error.validator, str) and segments and segments[-1] == keyword:
            segments = segments[:-1]
        walked = self._walk(self._root, "", "", segments, error.schema, 0)
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
        resource: str,
        segments: Sequence[str],
        target: object,
        hops: int,
    ) -> tuple[str, tuple[str, ...]] | None:
        """Follow ``segments`` from ``node``; returns the container's pointer and the path."""
        if isinstance(node, dict) and self._starts_resource(node):
            resource = pointer
        if not segments:
            if node is target or not isinstance(target, dict):
                return pointer, ()
            return self._hop(node, pointer, resource, segments, target, hops)
        head, rest = segments[0], segments[1:]
        child: JSON = None
        found = False
        if isinstance(node, dict) and head in node:
            child, found = node[head], True
        elif isinstance(node, list) and head.isdigit() and int(head) < len(node):
            child, found = node[int(head)], True
        if found:
            step = pointers.join(pointer, head)
            walked = self._walk(child, step, resource, rest, target, hops)
            if walked is not None:
                return walked[0], (step, *walked[1])
        return self._hop(node, pointer, resource, segments, target, hops)

    def _hop(
        self,
        node: JSON,
        pointer: str,
        resource: str,
        segments: Sequence[str],
        target: object,
        hops: int,
    ) -> tuple[str, tuple[str, ...]] | None:
        if not isinstance(node, dict) or hops >= _MAX_REF_HOPS:
            return None
        for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):
            ref = node.get(keyword)
            if not isinstance(ref, str):
                continue
            resolved = self._resolve(ref, resource)
            if resolved is None:
                continue
            walked = self._walk(resolved[0], resolved[1], "", segments, target, hops + 1)
            if walked is not None:
                # A rename above the target changed what the reference lands on: it is on
                # the path too, behind the reference itself (which is nearer when rewritten).
                above = tuple(p for p in _prefixes(resolved[1]) if p != resolved[1])
                return walked[0], (*above, pointers.join(pointer, keyword), *walked[1])
        return None

    def _resolve(self, ref: str, resource: str) -> tuple[JSON, str] | None:
        if ref in self._anchors:
            return self._anchors[ref]
        target = pointers.ref_target(ref)
        if not isinstance(target, str):
            return None  # remote, or an anchor the schema does not define
        return self._at_pointer(resource + target)

    def _at_pointer(self, pointer: str) -> tuple[JSON, str] | None:
        found, node = pointers.resolve(self._root, pointer)
        return (node, pointer) if found else None

    def _starts_resource(self, node: dict[str, JSON]) -> bool:
        identifier = node.get("id" if self._draft is Draft.DRAFT4 else "$id")
        return isinstance(identifier, str) and not identifier.startswith("#")

    def causes(self, error: ValidationError, located: Located | None = None) -> tuple[Rewrite, ...]:
        """The rewrites that made ``error`` possible; empty when none can be named."""
        found = self._direct(error, located or self.locate(error))
        if not found:
            found = _unique(c for sub in error.context for c in self._direct(sub, self.locate(sub)))
        if not found:
            located = located or self.locate(error)
            found = tuple(
                r
                for r in self._unblocking
                if not self._in_reach
                or keyword_position(r) in located.path
                or pointers.is_within(keyword_position(r), located.pointer)
            )
        return found

    def _direct(self, error: ValidationError, located: Located) -> tuple[Rewrite, ...]:
        for position in reversed(located.path):
            if position in self._at:
                return tuple(self._at[position])
        siblings = _SIBLINGS.get(located.keyword, ())
        found = [
            r for name in siblings for r in self._at.get(pointers.join(located.container, name), ())
        ]
        if not found and located.keyword in _SUBTREE:
            found = [
                r
                for r in self._rewrites
                if r.rule is Rule.KEYWORD_CASE
                and pointers.is_within(r.new_pointer, located.container)
                and r.new_pointer != located.pointer
            ]
        return tuple(found)


def keyword_position(rewrite: Rewrite) -> str:
    """The keyword a rewrite belongs to: a type-array member belongs to its ``type``, an
    added or removed property to its ``properties``."""
    if rewrite.entry_of or (
        rewrite.change is Change.REPLACE and _TYPE_MEMBER.search(rewrite.new_pointer)
    ):
        return pointers.parent(rewrite.new_pointer)
    return rewrite.new_pointer


def _prefixes(pointer: str) -> Iterator[str]:
    current = ""
    for segment in pointers.split(pointer):
        current = pointers.join(current, segment)
        yield current


def _unique(rewrites: Iterator[Rewrite]) -> tuple[Rewrite, ...]:
    return tuple(dict.fromkeys(rewrites))
