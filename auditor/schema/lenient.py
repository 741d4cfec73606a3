"""The old schema as a lenient runtime reads it: what it cannot evaluate enforces nothing.

Most agent runtimes never check a tool schema against its meta-schema. They ignore what they
do not understand, and the calls in the log got through. ``--old-runtime lenient`` models
that, keyword by keyword:

- a type name that is not one of the seven JSON types is dropped from ``type`` (a ``type``
  left with no name is absent);
- a keyword whose value fails the meta-schema is absent; a subschema that is not a schema
  accepts anything where that is what "enforces nothing" means (a property, an ``allOf``
  branch, a ``prefixItems`` position), and takes its keyword with it where it is not (an
  ``anyOf`` or ``oneOf`` branch, ``not``);
- a ``$ref`` that points nowhere in the schema, or outside it (never fetched), is absent;
- anything else that raises while a call is evaluated (a pattern the regex engine refuses, a
  reference inside a nested ``$id`` resource) enforces nothing at the keyword that raised:
  ``tolerant`` wraps every keyword function so.

The rest of the schema applies. ``read_leniently`` returns the schema so read and every place
it read as enforcing nothing, for the report's one-sentence "why".
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from typing import Any, Final

from jsonschema import validators

from auditor.models import JSON, LenientReading
from auditor.schema import pointers
from auditor.schema.keywords import JSON_TYPES, VOCABULARY, Draft, Kind, schema_objects

MAX_ROUNDS: Final = 32
"""Meta-schema passes, at most: each removes every place the last one found, so a schema
settles in a few; one that does not is read as enforcing nothing at all."""
_DROP_KEYWORD_WHEN_BRANCH_BAD: Final = frozenset({"anyOf", "oneOf"})
"""List keywords for which an accepting branch would change the verdict of the others."""

NOT_VALID = "is not valid JSON Schema"
NOT_A_TYPE = "is not a JSON type name"
DANGLING_REF = "points to nothing in the schema"
REMOTE_REF = "is a remote reference (never fetched)"


def read_leniently(
    schema: JSON, draft: Draft, meta: Any
) -> tuple[JSON, tuple[LenientReading, ...]]:
    """``schema`` with every place a lenient runtime cannot evaluate removed, and those places.

    ``meta`` is the meta-schema validator of the schema's draft. The input is not modified.
    """
    readings: list[LenientReading] = []
    if not isinstance(schema, (dict, bool)):
        return {}, (LenientReading("", schema, NOT_VALID),)
    work = copy.deepcopy(schema)
    vocabulary = VOCABULARY[draft]
    for node, at in list(schema_objects(work, "", vocabulary)):
        _filter_types(node, at, readings)
    for _ in range(MAX_ROUNDS):
        found = sorted(
            {pointers.from_segments(e.absolute_path) for e in meta.iter_errors(work)},
            key=lambda p: (-len(pointers.split(p)), p),  # deepest first: parents stay in place
        )
        if not found:
            break
        for where in found:
            reading = _neutralize(work, pointers.split(where), vocabulary)
            if reading is not None:
                readings.append(reading)
        if isinstance(work, dict) and "" in found:
            return {}, (*readings, LenientReading("", schema, NOT_VALID))
    else:
        return {}, (*readings, LenientReading("", schema, NOT_VALID))
    _drop_unresolvable_refs(work, vocabulary, readings)
    return work, tuple(sorted(readings, key=lambda r: (r.pointer, r.reason)))


def _filter_types(node: dict[str, JSON], at: str, readings: list[LenientReading]) -> None:
    value = node.get("type")
    names = value if isinstance(value, list) else [value]
    if "type" not in node or not all(isinstance(n, str) for n in names):
        return  # not names at all: the meta-schema pass decides
    kept: list[JSON] = [n for n in names if n in JSON_TYPES]
    if len(kept) == len(names):
        return
    readings.append(LenientReading(pointers.join(at, "type"), value, NOT_A_TYPE))
    if not kept:
        del node["type"]
    else:
        node["type"] = kept if isinstance(value, list) else kept[0]


def _neutralize(
    root: JSON, segments: list[str], vocabulary: dict[str, Kind]
) -> LenientReading | None:
    """Make the place a meta-schema error points to enforce nothing; what was there.

    The path is walked through keyword positions: it ends at a keyword (dropped), inside a
    keyword's data (the keyword is dropped), or at a subschema that is not a schema.
    """
    node: JSON = root
    at = ""
    i = 0
    while isinstance(node, dict) and i < len(segments):
        keyword = segments[i]
        if keyword not in node:
            return None  # already removed with an outer place this round
        here = pointers.join(at, keyword)
        value = node[keyword]
        kind = vocabulary.get(keyword, Kind.DATA)
        rest = segments[i + 1 :]
        if not rest or kind in (Kind.DATA, Kind.TYPE):
            return _drop(node, keyword, here)
        if kind is Kind.SCHEMA:
            node, at, i = value, here, i + 1
            continue
        member: JSON
        key: Any = rest[0]
        if isinstance(value, list) and key.isdigit() and int(key) < len(value):
            key = int(key)
            member = value[key]
        elif isinstance(value, dict) and key in value:
            member = value[key]
        else:
            return _drop(node, keyword, here)
        member_at = pointers.join(here, key)
        if kind is Kind.DEPENDENCIES and isinstance(member, list):
            del value[key]  # a name list: data
            return LenientReading(member_at, member, NOT_VALID)
        if len(rest) == 1 and not isinstance(member, (dict, bool)):
            if keyword in _DROP_KEYWORD_WHEN_BRANCH_BAD:
                return _drop(node, keyword, here)
            value[key] = {}
            return LenientReading(member_at, member, NOT_VALID)
        node, at, i = member, member_at, i + 2
    return None


def _drop(node: dict[str, JSON], keyword: str, at: str) -> LenientReading:
    return LenientReading(at, node.pop(keyword), NOT_VALID)


def _drop_unresolvable_refs(
    root: JSON, vocabulary: dict[str, Kind], readings: list[LenientReading]
) -> None:
    """Local ``$ref``s that point nowhere, and remote ones, enforce nothing.

    Only where no nested ``$id`` changes what a reference is relative to; those are left to
    ``tolerant``, which finds them when a call reaches them.
    """
    nodes = list(schema_objects(root, "", vocabulary))
    if any(isinstance(n.get("$id"), str) or isinstance(n.get("id"), str) for n, _ in nodes[1:]):
        return
    anchors = {
        pointers.Anchor(anchor)
        for n, _ in nodes
        for name in ("$anchor", "$dynamicAnchor")
        if isinstance(anchor := n.get(name), str)
    }
    for node, at in nodes:
        ref = node.get("$ref")
        if not isinstance(ref, str):
            continue
        target = pointers.ref_target(ref)
        if target is None:
            readings.append(LenientReading(pointers.join(at, "$ref"), node.pop("$ref"), REMOTE_REF))
        elif not _resolves(root, target, anchors):
            readings.append(
                LenientReading(pointers.join(at, "$ref"), node.pop("$ref"), DANGLING_REF)
            )


def _resolves(root: JSON, target: str | pointers.Anchor, anchors: set[pointers.Anchor]) -> bool:
    if isinstance(target, pointers.Anchor):
        return target in anchors
    return pointers.resolve(root, target)[0]


_Keyword = Callable[..., Any]


def _tolerant_keyword(function: _Keyword) -> _Keyword:
    @functools.wraps(function)
    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        try:
            yield from function(validator, value, instance, schema) or ()
        except Exception:  # the runtime could not evaluate this keyword: it enforced nothing
            return

    return keyword


def tolerant(validator_class: Any) -> Any:
    """``validator_class`` whose keywords enforce nothing where evaluating them raises
    (the per-call time budget running out included: the keyword could not be evaluated)."""
    keywords = {
        name: _tolerant_keyword(function) for name, function in validator_class.VALIDATORS.items()
    }
    return validators.extend(validator_class, keywords)
