"""Every constraint keyword of a schema: the places a call can fail.

A constraint is a keyword that can reject a value by itself (``type``, ``minLength``,
``required``, ``anyOf``...), or a subschema keyword whose value is ``false``
(``additionalProperties: false``). Annotations (``title``, ``format`` without a format
checker) and applicators that only pass values on (``properties``, ``items: {...}``) are not:
what they lead to is listed at its own place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from auditor import pointers
from auditor.models import JSON
from auditor.schema.keywords import VOCABULARY, Draft, schema_objects

ASSERTIONS: Final = frozenset(
    {
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "contains",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        "dependencies",
        "anyOf",
        "oneOf",
        "not",
    }
)
"""Keywords that reject values themselves, whatever their value."""
WHEN_FALSE: Final = frozenset(
    {
        "additionalProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "additionalItems",
        "items",
        "propertyNames",
    }
)
"""Subschema keywords that reject by themselves when their value is ``false``."""


@dataclass(frozen=True)
class Site:
    """A constraint keyword: the pointer of the schema object holding it, and its name."""

    holder: str
    keyword: str

    @property
    def pointer(self) -> str:
        return pointers.join(self.holder, self.keyword)


def constraint_sites(schema: JSON, draft: Draft, known: frozenset[str]) -> tuple[Site, ...]:
    """The constraint keywords of ``schema``, sorted by pointer; ``known``: the keywords the
    validator has a function for (what it does not evaluate constrains nothing)."""
    vocabulary = VOCABULARY[draft]
    # Before 2019-09 a ``$ref`` hides its siblings: they are never evaluated.
    legacy = draft in (Draft.DRAFT4, Draft.DRAFT6, Draft.DRAFT7)
    found = [
        Site(where, keyword)
        for node, where in schema_objects(schema, "", vocabulary)
        if not (legacy and "$ref" in node)
        for keyword, value in node.items()
        if keyword in known
        and keyword in vocabulary
        and (keyword in ASSERTIONS or (keyword in WHEN_FALSE and value is False))
    ]
    return tuple(sorted(found, key=lambda s: s.pointer))
