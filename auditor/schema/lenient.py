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
- a ``$ref`` the new side cannot resolve either is absent: one that points nowhere in the
  schema, or to another document (never fetched). Every reference the new side resolves is
  kept: to the schema's own ``$id`` (``urn:uuid:…``, a relative reference against its base),
  an ``$anchor`` or ``$dynamicAnchor``, a bundled meta-schema (``_drop_unresolvable_refs``);
- anything else that raises while a call is evaluated (a pattern the regex engine refuses, a
  ``$dynamicRef``) enforces nothing at the keyword that raised:
  ``tolerant`` wraps every keyword function so.

The rest of the schema applies. ``read_leniently`` returns the schema so read and every place
it read as enforcing nothing, for the report's one-sentence "why".
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

import referencing.exceptions
import referencing.jsonschema
from jsonschema import validators
from jsonschema_specifications import REGISTRY as SPECIFICATIONS
from referencing import Registry, Specification
from referencing.exceptions import InvalidAnchor, NoSuchAnchor, PointerToNowhere

from auditor import pointers
from auditor.models import JSON, LenientReading
from auditor.schema.keywords import JSON_TYPES, VOCABULARY, Draft, Kind, schema_objects

if TYPE_CHECKING:
    from referencing._core import Resolver

MAX_ROUNDS: Final = 32
"""Meta-schema passes, at most: each removes every place the last one found, so a schema
settles in a few; one that does not is read as enforcing nothing at all."""
_DROP_KEYWORD_WHEN_BRANCH_BAD: Final = frozenset({"anyOf", "oneOf"})
"""List keywords for which an accepting branch would change the verdict of the others."""

NOT_VALID = "is not valid JSON Schema"
NOT_A_TYPE = "is not a JSON type name"
DANGLING_REF = "points to nothing in the schema"
REMOTE_REF = "is a remote reference (never fetched)"
REFERENCE_READINGS: Final = frozenset({DANGLING_REF, REMOTE_REF})
"""The readings of references the new side cannot resolve either."""


def read_leniently(
    schema: JSON, draft: Draft, meta: Any, registry: Registry[Any] = SPECIFICATIONS
) -> tuple[JSON, tuple[LenientReading, ...]]:
    """``schema`` with every place a lenient runtime cannot evaluate removed, and those places.

    ``meta`` is the meta-schema validator of the schema's draft; ``registry`` is what the new
    side resolves references with beside the schema itself (the bundled meta-schemas): a
    reference it resolves is kept. The input is not modified.
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
    _drop_unresolvable_refs(work, draft, vocabulary, registry, readings)
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
        if isinstance(value, list) and (index := pointers.array_index(key, len(value))) is not None:
            key = index
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
    root: JSON,
    draft: Draft,
    vocabulary: dict[str, Kind],
    registry: Registry[Any],
    readings: list[LenientReading],
) -> None:
    """The ``$ref``s the new side cannot resolve enforce nothing; every other one is kept.

    Each reference is looked up as the new side's validator looks it up: ``registry`` (the
    bundled meta-schemas, ``auditor.replay.tool``) with the schema as its root resource,
    relative to the base URI in force where the reference stands (the root's ``$id`` and any
    nested one). So a ``$ref`` to the document's own ``$id`` (``urn:uuid:…``, or a relative
    reference against an http base), to an ``$anchor`` or ``$dynamicAnchor``, or to a bundled
    meta-schema resolves on both sides alike; only what the new side cannot resolve either
    (a remote document, never fetched, or a place that does not exist) is set aside here,
    where evaluating it there raises (``schema_error_after``).
    """
    if not _has_ref(root, vocabulary):
        return
    specification = _SPECIFICATIONS[draft]
    resource = specification.create_resource(root)
    base = resource.id() or ""
    # What ``resolver_with_root`` gives, crawled once: a lookup that finds nothing in an
    # uncrawled registry crawls the whole schema again (each of 5,000 dangling anchors and
    # remote references did, 10 minutes for 20,000 references), a crawled one does not.
    top = registry.with_resource(base, resource).crawl().resolver(base_uri=base)
    stack: list[tuple[JSON, str, Resolver[Any]]] = [(root, "", top)]
    while stack:
        node, at, resolver = stack.pop()
        if not isinstance(node, dict):
            continue
        if at:  # the root's base URI is the resolver's already
            resolver = resolver.in_subresource(specification.create_resource(node))
        ref = node.get("$ref")
        if isinstance(ref, str):
            reason = _unresolvable(resolver, ref)
            if reason is not None:
                readings.append(LenientReading(pointers.join(at, "$ref"), node.pop("$ref"), reason))
        stack.extend(
            (child, pointers.join(at, *path), resolver)
            for child, path in _subschemas(node, vocabulary)
        )


_SPECIFICATIONS: Final[dict[Draft, Specification[Any]]] = {
    Draft.DRAFT4: referencing.jsonschema.DRAFT4,
    Draft.DRAFT6: referencing.jsonschema.DRAFT6,
    Draft.DRAFT7: referencing.jsonschema.DRAFT7,
    Draft.DRAFT2019: referencing.jsonschema.DRAFT201909,
    Draft.DRAFT2020: referencing.jsonschema.DRAFT202012,
}
"""How each draft reads ``$id`` (``id`` in draft 4) and anchors: python-jsonschema's own."""


def _unresolvable(resolver: Resolver[Any], ref: str) -> str | None:
    """Why the new side cannot resolve ``ref`` from where it stands, or None when it can."""
    try:
        resolver.lookup(ref)
    except referencing.exceptions.Unresolvable as error:
        if isinstance(error, (PointerToNowhere, NoSuchAnchor, InvalidAnchor)):
            return DANGLING_REF
        # A reference into the document itself that still fails (an $id it cannot reach)
        # points nowhere; any other document is remote.
        return DANGLING_REF if pointers.ref_target(ref) is not None else REMOTE_REF
    except Exception:  # a malformed reference raises there too, at evaluation
        return DANGLING_REF if pointers.ref_target(ref) is not None else REMOTE_REF
    return None


def _has_ref(root: JSON, vocabulary: dict[str, Kind]) -> bool:
    return any(isinstance(n.get("$ref"), str) for n, _ in schema_objects(root, "", vocabulary))


def _subschemas(
    node: dict[str, JSON], vocabulary: dict[str, Kind]
) -> Iterator[tuple[JSON, tuple[str | int, ...]]]:
    """The subschemas directly in ``node`` at keyword positions, with their path from it."""
    for key, value in node.items():
        kind = vocabulary.get(key)
        if kind is Kind.SCHEMA:
            yield value, (key,)
        elif kind in (Kind.SCHEMA_LIST, Kind.SCHEMA_OR_LIST) and isinstance(value, list):
            yield from ((item, (key, i)) for i, item in enumerate(value))
        elif kind is Kind.SCHEMA_OR_LIST:
            yield value, (key,)
        elif kind in (Kind.SCHEMA_MAP, Kind.DEPENDENCIES) and isinstance(value, dict):
            yield from ((item, (key, name)) for name, item in value.items())


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
