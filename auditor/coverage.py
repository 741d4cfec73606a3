"""Which rewritten keywords a call's evaluation reaches under the normalized schema.

"0 newly rejected" means little when no logged call ever reached the rewritten keyword. A
tracking validator, built once per tool, wraps the function of every keyword some rewrite
produced and records the (schema object, keyword) pairs evaluation passes through. Schema
objects are matched by identity, the way ``auditor.causes`` locates errors, so the tracker
must be built over the very schema object the real validator uses.

Kept apart from the verdict on purpose: it costs a second full evaluation per call, and a
later optimization can memoize ``reached`` per distinct arguments text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jsonschema import validators
from referencing import Registry

from auditor import pointers
from auditor.causes import keyword_position
from auditor.models import JSON, Rewrite

_Site = tuple[int, str]
"""``(id(schema object), keyword)``."""


class CoverageTracker:
    """Evaluates calls with a validator that notes which rewritten keywords it ran."""

    def __init__(
        self, validator_class: Any, schema: JSON, rewrites: Sequence[Rewrite], registry: Registry
    ) -> None:
        self._targets: dict[_Site, list[int]] = {}
        for index, rewrite in enumerate(rewrites):
            position = keyword_position(rewrite)
            _, node = pointers.resolve(schema, pointers.parent(position))
            keyword = pointers.split(position)[-1] if position else ""
            if isinstance(node, dict):
                self._targets.setdefault((id(node), keyword), []).append(index)
        self._visited: set[_Site] = set()
        keywords = {keyword for _, keyword in self._targets}
        tracked = {
            keyword: self._track(keyword, function)
            for keyword, function in validator_class.VALIDATORS.items()
            if keyword in keywords
        }
        self._validator = (
            validators.extend(validator_class, tracked)(schema, registry=registry)
            if tracked
            else None
        )

    def reached(self, instance: JSON) -> frozenset[int]:
        """Indices of the rewrites whose keyword evaluating ``instance`` ran."""
        if self._validator is None:
            return frozenset()
        self._visited = set()
        try:
            for _ in self._validator.iter_errors(instance):
                pass
        except Exception:
            pass
        return frozenset(i for site in self._visited for i in self._targets.get(site, ()))

    def _track(self, keyword: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def tracked(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
            self._visited.add((id(schema), keyword))
            return function(validator, value, instance, schema)

        return tracked
