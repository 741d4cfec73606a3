"""Rewrite a schema's dialect spellings into the keywords JSON Schema evaluates.

Pure: ``normalize(schema)`` returns a new schema with every rewrite and finding recorded; the
input is never modified. The walk visits keyword positions only, by the vocabulary table in
:mod:`auditor.keywords`, so property names and data are never touched.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Final

from auditor import pointers
from auditor.findings import BOTH_SPELLINGS, UNKNOWN_TYPE
from auditor.keywords import JSON_TYPES, SNAKE_SPELLINGS, VOCABULARY, Draft, Kind, draft_of
from auditor.models import JSON, Finding, Rewrite, Rule

DEFAULT_RULES: Final = frozenset({Rule.KEYWORD_CASE, Rule.TYPE_CASE})

# What a type name that is not a JSON type most likely meant; used in messages only, because
# guessing (is `float` "number" or "integer"?) is a decision for the schema's owner.
LIKELY_TYPE: Final[dict[str, str]] = {
    "str": "string",
    "text": "string",
    "int": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "bool": "boolean",
    "dict": "object",
    "map": "object",
    "list": "array",
    "tuple": "array",
    "none": "null",
}


@dataclass(frozen=True)
class Normalized:
    """The normalized schema, and what changed or could not be changed on the way."""

    schema: JSON
    rewrites: tuple[Rewrite, ...]
    findings: tuple[Finding, ...]
    draft: Draft


@dataclass
class _RefSite:
    """A ``$ref`` met during the walk, patched once every rename is known."""

    holder: dict[str, JSON]
    old_pointer: str
    new_pointer: str
    resource: str
    """Old pointer of the schema resource that ``#`` refers to at this place."""
    slot: int
    """How many rewrites the walk had made when it met this ``$ref``: its place in the list."""


@dataclass
class _Walk:
    draft: Draft
    rules: Collection[Rule]
    rewrites: list[Rewrite] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    """Old pointer of each renamed key -> its new spelling."""
    refs: list[_RefSite] = field(default_factory=list)

    def schema(self, node: JSON, old: str, new: str, resource: str) -> JSON:
        if not isinstance(node, dict):
            return node  # boolean schemas, and junk the meta-schema check will name
        vocabulary = VOCABULARY[self.draft]
        snake = SNAKE_SPELLINGS[self.draft]
        if self._starts_resource(node):
            resource = old
        result: dict[str, JSON] = {}
        for key, value in node.items():
            keyword = key
            if key not in vocabulary and key in snake and Rule.KEYWORD_CASE in self.rules:
                if snake[key] in node:
                    self.findings.append(
                        BOTH_SPELLINGS.finding(
                            pointers.join(old, key),
                            f"`{key}` stands beside `{snake[key]}`; only `{snake[key]}` is "
                            "evaluated, and renaming would overwrite it",
                        )
                    )
                else:
                    keyword = snake[key]
                    self._rename(old, new, key, keyword)
            if keyword == "$ref" and isinstance(value, str):
                self.refs.append(
                    _RefSite(
                        result,
                        pointers.join(old, key),
                        pointers.join(new, key),
                        resource,
                        len(self.rewrites),
                    )
                )
            kind = vocabulary.get(keyword, Kind.DATA)
            result[keyword] = self.value(
                kind, value, pointers.join(old, key), pointers.join(new, keyword), resource
            )
        return result

    def value(self, kind: Kind, value: JSON, old: str, new: str, resource: str) -> JSON:
        if kind is Kind.SCHEMA:
            return self.schema(value, old, new, resource)
        if kind is Kind.SCHEMA_LIST or (kind is Kind.SCHEMA_OR_LIST and isinstance(value, list)):
            if not isinstance(value, list):
                return value
            return [
                self.schema(item, pointers.join(old, i), pointers.join(new, i), resource)
                for i, item in enumerate(value)
            ]
        if kind is Kind.SCHEMA_OR_LIST:
            return self.schema(value, old, new, resource)
        if kind in (Kind.SCHEMA_MAP, Kind.DEPENDENCIES):
            if not isinstance(value, dict):
                return value
            return {
                name: (
                    member  # a dependencies name list is data
                    if isinstance(member, list)
                    else self.schema(
                        member, pointers.join(old, name), pointers.join(new, name), resource
                    )
                )
                for name, member in value.items()
            }
        if kind is Kind.TYPE:
            return self.type_names(value, old, new)
        return value

    def type_names(self, value: JSON, old: str, new: str) -> JSON:
        if isinstance(value, str):
            return self.type_name(value, old, new)
        if isinstance(value, list):
            return [
                self.type_name(name, pointers.join(old, i), pointers.join(new, i))
                if isinstance(name, str)
                else name
                for i, name in enumerate(value)
            ]
        return value

    def type_name(self, name: str, old: str, new: str) -> str:
        if name in JSON_TYPES:
            return name
        lowered = name.lower()
        if lowered in JSON_TYPES:
            if Rule.TYPE_CASE not in self.rules:
                return name
            self.rewrites.append(Rewrite(old, name, lowered, Rule.TYPE_CASE, new))
            return lowered
        likely = LIKELY_TYPE.get(lowered)
        hint = f"; it probably means `{likely}`" if likely else ""
        self.findings.append(
            UNKNOWN_TYPE.finding(
                old,
                f"type `{name}` is not a JSON type{hint}",
                fix=likely,
            )
        )
        return name

    def _rename(self, old: str, new: str, key: str, keyword: str) -> None:
        old_key = pointers.join(old, key)
        self.renamed[old_key] = keyword
        self.rewrites.append(
            Rewrite(old_key, key, keyword, Rule.KEYWORD_CASE, pointers.join(new, keyword))
        )

    def _starts_resource(self, node: dict[str, JSON]) -> bool:
        identifier = node.get("id" if self.draft is Draft.DRAFT4 else "$id")
        return isinstance(identifier, str) and not identifier.startswith("#")

    def patch_refs(self) -> list[Rewrite]:
        """Rewrite each local ``$ref`` whose pointer passes through a renamed keyword.

        Returns every rewrite in walk order, each ``$ref`` rewrite where its key stands.
        """
        by_slot: dict[int, list[Rewrite]] = {}
        for site in self.refs:
            ref = site.holder["$ref"]
            tokens = pointers.fragment_tokens(ref)
            if tokens is None:
                continue
            old = site.resource
            changed = False
            for index, raw in enumerate(tokens):
                segment = pointers.decode_token(raw)
                if "/" in segment and raw != pointers.escape(segment):
                    break  # a percent-encoded "/" makes the pointer ambiguous; leave it
                old = pointers.join(old, segment)
                if old in self.renamed:
                    tokens[index] = self.renamed[old]
                    changed = True
            if changed:
                new_ref = "#/" + "/".join(tokens)
                site.holder["$ref"] = new_ref
                by_slot.setdefault(site.slot, []).append(
                    Rewrite(site.old_pointer, ref, new_ref, Rule.KEYWORD_CASE, site.new_pointer)
                )
        ordered: list[Rewrite] = []
        for index in range(len(self.rewrites) + 1):
            ordered.extend(by_slot.get(index, ()))
            if index < len(self.rewrites):
                ordered.append(self.rewrites[index])
        return ordered


def normalize(schema: JSON, rules: Collection[Rule] = DEFAULT_RULES) -> Normalized:
    """Rename dialect keywords and type names of ``schema``; never modifies ``schema``.

    Rewrites are listed in the order a depth-first walk meets them, with each ``$ref``
    rewrite where its ``$ref`` key stands.
    """
    walk = _Walk(draft_of(schema), rules)
    result = walk.schema(schema, "", "", "")
    rewrites = walk.patch_refs()
    return Normalized(result, tuple(rewrites), tuple(walk.findings), walk.draft)
