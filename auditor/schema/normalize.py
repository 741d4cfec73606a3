"""Rewrite a schema's dialect spellings into the keywords JSON Schema evaluates.

Pure: ``normalize(schema)`` returns a new schema with every rewrite and finding recorded; the
input is never modified. The walk visits keyword positions only, by the vocabulary table in
:mod:`auditor.schema.keywords`, so property names and data are never touched. The same walk reports
every place that is not evaluated as written (the findings ``auditor lint`` prints), so the
rules live in one place. The upgrade profiles (:mod:`auditor.schema.profiles`) ride the same
walk: their steps run on the schema objects their SDK's transform reaches, after the spelling
rewrites of each object, and may add keys (``Edit.ADD``) as well as rename, replace, remove.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from auditor import pointers
from auditor.inputs.limits import too_deep
from auditor.models import DEFAULT_RULES, JSON, Change, Edit, Finding, Rule
from auditor.schema import findings as rules_
from auditor.schema.keywords import (
    ANNOTATIONS,
    ANY_DRAFT,
    ANY_DRAFT_SNAKE,
    APPLIES_TO,
    DRAFT_AGNOSTIC_LOCATIONS,
    JSON_TYPES,
    REF_OVERRIDES_SIBLINGS,
    REF_SIBLINGS_KEPT,
    SNAKE_SPELLINGS,
    VOCABULARY,
    Draft,
    Kind,
    draft_of,
)
from auditor.schema.profile_models import MODELS, Refused
from auditor.schema.profiles import PROFILES, descends
from auditor.schema.structure import diff, shown

TYPE_ALIASES: Final[dict[str, str]] = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "dict": "object",
    "list": "array",
    "tuple": "array",
}
"""Python and Java type names that ``--rules type-alias`` rewrites (``any`` removes ``type``)."""

# What a type name that is not a JSON type most likely meant; a hint in findings only, since
# guessing (is `float` "number" or "integer"?) is the schema owner's decision.
_LIKELY_TYPE: Final[dict[str, str]] = {
    **TYPE_ALIASES,
    "text": "string",
    "long": "integer",
    "double": "number",
    "decimal": "number",
    "map": "object",
    "none": "null",
}
_GENERIC: Final = (
    (re.compile(r"optional\[(.+)\]"), None),
    (re.compile(r"(.+?)\s*,\s*optional"), None),
    (re.compile(r"(?:list|sequence|tuple|set|array)\[.*\]"), "array"),
    (re.compile(r"(?:dict|mapping|map)\[.*\]"), "object"),
)
_GEMINI_RENAMES: Final = {"defs": "$defs", "ref": "$ref", "property_ordering": "propertyOrdering"}
_BOUNDS: Final = (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum"))


def likely_type(name: str) -> str | None:
    """The JSON type a programming-language type name most likely means, if any."""
    lowered = name.strip().lower()
    if lowered in JSON_TYPES:
        return lowered
    for pattern, meaning in _GENERIC:
        match = pattern.fullmatch(lowered)
        if match:
            return meaning if meaning is not None else likely_type(match.group(1))
    return _LIKELY_TYPE.get(lowered)


@dataclass(frozen=True)
class Normalized:
    """The normalized schema, and what changed or is not evaluated as written."""

    schema: JSON
    rewrites: tuple[Change, ...]
    findings: tuple[Finding, ...]
    draft: Draft
    text_edits: int = 0
    """Between two catalogs: annotation edits left out of ``rewrites``
    (``auditor.schema.structure.text_only``); the normalizer makes none."""
    refusal: str | None = None
    """Why the upgraded code refuses the new schema (an SDK raising on it, or a profile's
    model of that refusal): then no call can be evaluated against it, and every call is
    ``schema_error_after`` with this reason, never a verdict."""


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
class _Object:
    """One schema object being walked: where it is, and its keys by what they mean."""

    old: str
    new: str
    source: dict[str, JSON]
    result: dict[str, JSON]
    meaning: dict[str, str] = field(default_factory=dict)
    """Keyword -> the key that spells it here (a snake_case key counts as its keyword)."""

    def old_key(self, keyword: str) -> str:
        return pointers.join(self.old, self.meaning.get(keyword, keyword))

    def new_key(self, keyword: str) -> str:
        return pointers.join(self.new, keyword)


@dataclass
class _Walk:
    draft: Draft
    rules: Collection[Rule]
    rewrites: list[Change] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    renamed: dict[str, tuple[str, Rule]] = field(default_factory=dict)
    """Old pointer of each renamed key -> its new spelling and the rule that renamed it."""
    refs: list[_RefSite] = field(default_factory=list)
    reach: list[frozenset[Rule]] = field(default_factory=list)
    """The upgrade profiles whose transform reaches the schema object being walked (a stack)."""
    refusal: str | None = None
    """Why a walked profile's SDK function raises on the schema, once one step says so."""

    def schema(self, node: JSON, old: str, new: str, resource: str) -> JSON:
        if not isinstance(node, dict):
            return node  # boolean schemas, and junk the meta-schema check will name
        if self._starts_resource(node):
            resource = old
        here = _Object(old, new, node, {})
        reach = self.reach[-1]
        for key, value in node.items():
            keyword = self._keyword(here, key)
            if keyword is None:
                here.result[key] = value  # not a keyword here: its value is data
                continue
            here.meaning.setdefault(keyword, key)
            if keyword == "$ref" and isinstance(value, str):
                site = _RefSite(
                    here.result, pointers.join(old, key), here.new_key(keyword), resource, 0
                )
                site.slot = len(self.rewrites)
                self.refs.append(site)
            kind = VOCABULARY[self.draft].get(keyword, Kind.DATA)
            self.reach.append(descends(reach, node, keyword, value, not old) if reach else reach)
            here.result[keyword] = self.value(
                kind, value, pointers.join(old, key), here.new_key(keyword), resource
            )
            self.reach.pop()
        self._check_object(here)
        if Rule.OPENAPI in self.rules:
            self._openapi(here)
        if Rule.TYPE_ALIAS in self.rules and _means_any(here.result.get("type")):
            self._remove(here, "type", Rule.TYPE_ALIAS)
        if Rule.OPENAI_STRICT in reach:
            self._strict(here)
        if Rule.CLOSE_OBJECTS in reach:
            self._close(here)
        return here.result

    def _keyword(self, here: _Object, key: str) -> str | None:
        """What ``key`` means in this object (renaming it if a rule says so), or None."""
        vocabulary = VOCABULARY[self.draft]
        if key in vocabulary:
            return key
        snake = SNAKE_SPELLINGS[self.draft]
        at = pointers.join(here.old, key)
        if key in snake:
            target = snake[key]
            if target in here.source:
                self.findings.append(
                    rules_.BOTH_SPELLINGS.finding(
                        at,
                        f"`{key}` stands beside `{target}`; only `{target}` is evaluated, "
                        "and renaming would overwrite it",
                    )
                )
                return None
            self.findings.append(
                rules_.SNAKE_CASE_KEYWORD.finding(
                    at, f"`{key}` is ignored: the keyword is `{target}`", fix=target
                )
            )
            if Rule.KEYWORD_CASE in self.rules:
                self._rename(here, key, target, Rule.KEYWORD_CASE)
                return target
            here.meaning.setdefault(target, key)
            return None
        if key in _GEMINI_RENAMES:
            return self._gemini(here, key)
        self._unknown(here, key)
        return None

    def _gemini(self, here: _Object, key: str) -> str | None:
        target = _GEMINI_RENAMES[key]
        if key != "property_ordering":
            self.findings.append(
                rules_.GEMINI_KEYWORD.finding(
                    pointers.join(here.old, key),
                    f"`{key}` is Gemini's spelling and is ignored: the keyword is `{target}`",
                    fix=target,
                )
            )
        if Rule.GEMINI not in self.rules or target in here.source:
            return None
        self._rename(here, key, target, Rule.GEMINI)
        return target

    def _unknown(self, here: _Object, key: str) -> None:
        at = pointers.join(here.old, key)
        if key.startswith("x-") or key in ANNOTATIONS:
            return
        if key == "nullable":
            self.findings.append(
                rules_.OPENAPI_NULLABLE.finding(
                    at,
                    "`nullable` is OpenAPI 3.0 and ignored by JSON Schema; "
                    '`--rules openapi` adds "null" to `type`',
                )
            )
            return
        other = ANY_DRAFT_SNAKE.get(key, key)
        if other in ANY_DRAFT and other not in DRAFT_AGNOSTIC_LOCATIONS:
            drafts = " and ".join(d.value for d, v in VOCABULARY.items() if other in v)
            spelled = f"`{key}`" if key == other else f"`{key}` (`{other}`)"
            self.findings.append(
                rules_.KEYWORD_NOT_IN_DRAFT.finding(
                    at, f"{spelled} is a keyword of {drafts}, not of {self.draft.value}: ignored"
                )
            )
            return
        if other in DRAFT_AGNOSTIC_LOCATIONS:
            return
        guess = _did_you_mean(key, VOCABULARY[self.draft])
        hint = f"; did you mean `{guess}`?" if guess else ""
        self.findings.append(
            rules_.UNKNOWN_KEYWORD.finding(
                at, f"`{key}` is not a JSON Schema keyword and is ignored{hint}", fix=guess
            )
        )

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
            self.findings.append(
                rules_.TYPE_CASE.finding(
                    old, f"type `{name}` is not a JSON type: it is `{lowered}`", fix=lowered
                )
            )
            if Rule.TYPE_CASE not in self.rules:
                return name
            self.rewrites.append(Change(old, name, lowered, Rule.TYPE_CASE, new, Edit.REPLACE))
            return lowered
        likely = likely_type(name)
        if lowered == "any":
            hint = "; any value is allowed when `type` is left out"
        else:
            hint = f"; it probably means `{likely}`" if likely else ""
        self.findings.append(
            rules_.UNKNOWN_TYPE.finding(old, f"type `{name}` is not a JSON type{hint}", fix=likely)
        )
        if Rule.TYPE_ALIAS in self.rules and lowered in TYPE_ALIASES:
            alias = TYPE_ALIASES[lowered]
            self.rewrites.append(Change(old, name, alias, Rule.TYPE_ALIAS, new, Edit.REPLACE))
            return alias
        return name

    def _check_object(self, here: _Object) -> None:
        """Findings about keywords that do nothing where they stand."""
        result, meaning = here.result, here.meaning
        items = here.source.get(meaning.get("items", "items"))
        if self.draft is Draft.DRAFT2020 and "items" in meaning and isinstance(items, list):
            self.findings.append(
                rules_.TUPLE_ITEMS.finding(
                    here.old_key("items"),
                    "`items: [...]` is the draft-4 tuple form; in 2020-12 it is `prefixItems`",
                    fix="prefixItems",
                )
            )
        if (
            "additionalItems" in meaning
            and "additionalItems" in VOCABULARY[self.draft]
            and not isinstance(items, list)
        ):
            self.findings.append(
                rules_.ADDITIONAL_ITEMS_WITHOUT_TUPLE.finding(
                    here.old_key("additionalItems"),
                    "`additionalItems` does nothing unless `items` is a list",
                )
            )
        declared = _declared_types(result.get("type", here.source.get("type")))
        if declared:
            for keyword, types in APPLIES_TO.items():
                if keyword in meaning and not declared & types:
                    self.findings.append(
                        rules_.KEYWORD_FOR_OTHER_TYPE.finding(
                            here.old_key(keyword),
                            f"`{keyword}` applies to {' or '.join(sorted(types))} values, "
                            f"never to the declared type {' or '.join(sorted(declared))}",
                        )
                    )
        if self.draft in REF_OVERRIDES_SIBLINGS and "$ref" in result:
            for key in here.source:
                if key not in REF_SIBLINGS_KEPT:
                    self.findings.append(
                        rules_.REF_SIBLINGS_IGNORED.finding(
                            pointers.join(here.old, key),
                            f"`{key}` beside `$ref` is ignored in {self.draft.value}",
                        )
                    )
        if self.draft is not Draft.DRAFT4:
            for keyword, _ in _BOUNDS:
                if isinstance(result.get(keyword), bool):
                    self.findings.append(
                        rules_.BOOLEAN_EXCLUSIVE_BOUND.finding(
                            here.old_key(keyword),
                            f"boolean `{keyword}` is draft-4 only; since draft 6 it is a number",
                        )
                    )

    def _openapi(self, here: _Object) -> None:
        """OpenAPI 3.0 forms -> JSON Schema: ``nullable``, boolean exclusive bounds."""
        result = here.result
        self._nullable(here, Rule.OPENAPI)
        if self.draft is Draft.DRAFT4:
            return
        for exclusive, inclusive in _BOUNDS:
            flag = result.get(exclusive)
            if flag is True and isinstance(result.get(inclusive), (int, float)):
                self._replace(here, exclusive, result[inclusive], Rule.OPENAPI)
                self._remove(here, inclusive, Rule.OPENAPI)
            elif flag is False:
                self._remove(here, exclusive, Rule.OPENAPI)

    def _nullable(self, here: _Object, rule: Rule) -> None:
        """OpenAPI's ``nullable: true`` -> ``"null"`` in ``type``; ``nullable`` removed."""
        nullable = here.result.get("nullable")
        if "nullable" in here.source and isinstance(nullable, bool):
            if nullable:
                self._widen(here.result, here.old, here.new, rule, enum=False)
            self._remove(here, "nullable", rule)

    def _widen(self, holder: dict[str, JSON], old: str, new: str, rule: Rule, enum: bool) -> None:
        """Let the schema object at ``old`` (``new``) accept null: ``"null"`` joins a ``type``
        that does not have it, and with ``enum``, ``null`` joins an ``enum`` list."""
        kind = holder.get("type")
        if not isinstance(kind, (str, list)) or "null" in _as_list(kind):
            return
        self._set(holder, old, new, "type", [*_as_list(kind), "null"], rule)
        values = holder.get("enum")
        if enum and isinstance(values, list) and None not in values:
            self._set(holder, old, new, "enum", [*values, None], rule)

    def _strict(self, here: _Object) -> None:
        """openai-python's ``_ensure_strict_json_schema`` steps for one schema object."""
        rule, result = Rule.OPENAI_STRICT, here.result
        # Spelled so: the SDK tests the key `additionalProperties`, and a snake_case
        # `additional_properties` (not renamed by keyword-case) is no such key.
        if result.get("type") == "object" and "additionalProperties" not in result:
            self._add(here, "additionalProperties", False, rule)
        properties = result.get("properties")
        if isinstance(properties, dict):
            names: list[JSON] = list(properties)
            if "required" not in result:
                self._add(here, "required", names, rule)
            elif result["required"] != names:
                self._replace(here, "required", names, rule)
        self._strict_refusal(here)
        if "default" in result and result["default"] is None:
            self._remove(here, "default", rule)

    def _strict_refusal(self, here: _Object) -> None:
        """The SDK raises ``TypeError`` on a subschema it recurses into that is not an object
        (``properties: {a: true}``): the first one met is the refusal."""
        for keyword in ("$defs", "definitions", "properties", "anyOf", "allOf"):
            members = here.result.get(keyword)
            named: list[tuple[str, JSON]] = []
            if isinstance(members, dict) and keyword not in ("anyOf", "allOf"):
                named = list(members.items())
            elif isinstance(members, list) and keyword in ("anyOf", "allOf"):
                named = [(str(i), member) for i, member in enumerate(members)]
            for name, member in named:
                if not isinstance(member, dict) and self.refusal is None:
                    path = (*pointers.split(here.new), keyword, name)
                    self.refusal = (
                        f"openai refuses the schema: TypeError: Expected {member} to be a "
                        "dictionary; "
                        f"path={path}"
                    )

    def _close(self, here: _Object) -> None:
        """``additionalProperties: false`` where ``properties`` stands and nothing says what
        other properties may be."""
        closed = {"additionalProperties", "unevaluatedProperties"} & here.meaning.keys()
        if isinstance(here.result.get("properties"), dict) and not closed:
            self._add(here, "additionalProperties", False, Rule.CLOSE_OBJECTS)

    def _replace(self, here: _Object, keyword: str, value: JSON, rule: Rule) -> None:
        self._set(here.result, here.old, here.new, keyword, value, rule, here.old_key(keyword))

    def _set(
        self,
        holder: dict[str, JSON],
        old: str,
        new: str,
        keyword: str,
        value: JSON,
        rule: Rule,
        old_key: str | None = None,
    ) -> None:
        """Replace the value of ``keyword`` in the schema object at ``old`` (``new``)."""
        before = _compact(holder[keyword])
        holder[keyword] = value
        self.rewrites.append(
            Change(
                old_key or pointers.join(old, keyword),
                before,
                _compact(value),
                rule,
                pointers.join(new, keyword),
                Edit.REPLACE,
            )
        )

    def _add(self, here: _Object, keyword: str, value: JSON, rule: Rule) -> None:
        """Add ``keyword`` (absent in the old schema: its pointer is where it would stand)."""
        here.result[keyword] = value
        here.meaning[keyword] = keyword
        self.rewrites.append(
            Change(
                pointers.join(here.old, keyword),
                "",
                _compact(value),
                rule,
                here.new_key(keyword),
                Edit.ADD,
            )
        )

    def _remove(self, here: _Object, keyword: str, rule: Rule) -> None:
        del here.result[keyword]
        key = here.meaning.get(keyword, keyword)
        self.rewrites.append(
            Change(here.old_key(keyword), key, "", rule, here.new_key(keyword), Edit.REMOVE)
        )

    def _rename(self, here: _Object, key: str, keyword: str, rule: Rule) -> None:
        old_key = pointers.join(here.old, key)
        self.renamed[old_key] = (keyword, rule)
        self.rewrites.append(Change(old_key, key, keyword, rule, here.new_key(keyword)))

    def _starts_resource(self, node: dict[str, JSON]) -> bool:
        identifier = node.get("id" if self.draft is Draft.DRAFT4 else "$id")
        return isinstance(identifier, str) and not identifier.startswith("#")

    def patch_refs(self) -> list[Change]:
        """Rewrite each local ``$ref`` whose pointer passes through a renamed keyword.

        Returns every rewrite in walk order, each ``$ref`` rewrite where its key stands.
        """
        by_slot: dict[int, list[Change]] = {}
        for site in self.refs:
            ref = site.holder["$ref"]
            if not isinstance(ref, str):
                continue
            tokens = pointers.fragment_tokens(ref)
            if tokens is None:
                continue
            old = site.resource
            rule: Rule | None = None
            for index, raw in enumerate(tokens):
                segment = pointers.decode_token(raw)
                if "/" in segment and raw != pointers.escape(segment):
                    break  # a percent-encoded "/" makes the pointer ambiguous; leave it
                old = pointers.join(old, segment)
                if old in self.renamed:
                    tokens[index], rule = self.renamed[old]
            if rule is not None:
                new_ref = "#/" + "/".join(tokens)
                site.holder["$ref"] = new_ref
                by_slot.setdefault(site.slot, []).append(
                    Change(site.old_pointer, ref, new_ref, rule, site.new_pointer, Edit.REPLACE)
                )
        ordered: list[Change] = []
        for index in range(len(self.rewrites) + 1):
            ordered.extend(by_slot.get(index, ()))
            if index < len(self.rewrites):
                ordered.append(self.rewrites[index])
        return ordered


def _did_you_mean(key: str, vocabulary: Collection[str]) -> str | None:
    folded = {keyword.lower(): keyword for keyword in vocabulary}
    if key.lower() in folded:
        return folded[key.lower()]
    close = difflib.get_close_matches(key, list(vocabulary), n=1, cutoff=0.8)
    return close[0] if close else None


def _declared_types(value: JSON) -> frozenset[str]:
    """The JSON types a ``type`` value declares, or nothing when it is not all valid names."""
    names = [n.lower() if isinstance(n, str) else n for n in _as_list(value)]
    if not names or not all(isinstance(n, str) and n in JSON_TYPES for n in names):
        return frozenset()
    return frozenset(str(n) for n in names)


def _means_any(value: JSON) -> bool:
    """``type: any`` (or a list naming it) allows every value: the same as no ``type``."""
    return any(isinstance(name, str) and name.lower() == "any" for name in _as_list(value))


def _as_list(value: JSON) -> list[JSON]:
    return list(value) if isinstance(value, list) else [value]


def _compact(value: JSON) -> str:
    """A rewritten value as its change shows it: a name as itself (``string``), any other
    value in the one JSON text every change uses (``structure.shown``), so that a cause
    reads the same whether the walk, a profile's model or an SDK's run made the schema."""
    return value if isinstance(value, str) else shown(value)


def normalize(schema: JSON, rules: Collection[Rule] = DEFAULT_RULES) -> Normalized:
    """Rename dialect keywords and type names of ``schema``; never modifies ``schema``.

    Rewrites are listed in the order a depth-first walk meets them, with each ``$ref``
    rewrite where its ``$ref`` key stands. A schema nested deeper than ``MAX_NESTING`` is
    left as written: the walk recurses, and such a schema is unusable anyway (replay says so).
    """
    if too_deep(schema):
        return Normalized(schema, (), (), draft_of(schema))
    walk = _Walk(draft_of(schema), rules)
    walked = frozenset(rule for rule in rules if rule in PROFILES and rule not in MODELS)
    walk.reach.append(walked)
    result = walk.schema(schema, "", "", "")
    rewrites = walk.patch_refs()
    refusal = walk.refusal
    for rule, model in MODELS.items():
        if refusal is not None:
            break
        if rule not in rules:
            continue
        try:
            produced = model(result)
        except Refused as refused:
            follows = PROFILES[rule].follows
            refusal = refused.reason(follows.package if follows else rule.value)
            break
        rewrites.extend(model_changes(result, produced, rule, rewrites))
        result = produced
    return Normalized(result, tuple(rewrites), tuple(walk.findings), walk.draft, refusal=refusal)


def model_changes(before: JSON, after: JSON, rule: Rule, earlier: Sequence[Change]) -> list[Change]:
    """What a profile's model changed, as its rewrites: the structural difference between the
    schema it was given and the one it produced (as between two catalogs), each pointer
    carried back through the renames ``earlier`` made to where the key stands in the old
    schema. An SDK's own run (``auditor.schema.sdk_runs``) records its changes the same way,
    so a group's fingerprint does not depend on which ran."""
    renamed = {r.new_pointer: r.pointer for r in earlier if r.edit is Edit.RENAME}
    return [
        dataclasses.replace(change, rule=rule, pointer=carried(change.pointer, renamed))
        for change in diff(before, after)
    ]


def carried(pointer: str, renamed: Mapping[str, str]) -> str:
    """``pointer`` in the renamed schema -> the same place in the schema before the renames."""
    old = new = ""
    for token in pointers.split(pointer):
        new = pointers.join(new, token)
        old = renamed.get(new, pointers.join(old, token))
    return old
