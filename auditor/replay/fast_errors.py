"""The fast validator's errors, as python-jsonschema would give them, where the two provably agree.

A rejected call the report will not show in detail (the listed calls are full, and so are the
examples of every group it counts in) is still counted in its groups, and their keys and
evidence come from its errors: the failing keyword, where it stands in the schema (through
any ``$ref``), where the value stands in the arguments, the value, the keyword's limit, and
for ``anyOf``/``oneOf`` every branch's errors (the nearest branch, the causes inside). The
message, the one thing only python-jsonschema writes, is never shown for such a call. Here
jsonschema-rs gives those errors, built into python-jsonschema's own ``ValidationError`` so
that the same code (``CauseFinder``, ``observe``, the witnesses) reads them.

What python-jsonschema gives is all its errors (``tool.MAX_ERRORS`` of them, in its order),
sorted by pointers then message (``tool._in_order``); each error of ``anyOf``/``oneOf``
carries the errors of every branch, in its evaluation order, as ``context``. The mapping is
exact on a vocabulary checked for the whole schema once (``keyable``); a schema using
anything else is left to python-jsonschema, per tool:

- assertions that fail with one error each, at the value they judge, in both validators:
  ``type``, ``enum``, ``const``, the length, count and range limits, integer ``multipleOf``,
  ``pattern`` (a plain regex: ``auditor.replay.fast_validator.trusted``), ``uniqueItems``, and
  ``required`` and ``dependentRequired`` (one error per missing name, per rule, in both:
  they differ in nothing but the message, by which python-jsonschema orders them);
- ``not`` and ``contains`` (without ``minContains``/``maxContains``): one error at the value,
  neither validator reporting anything from inside;
- ``anyOf`` and ``oneOf``: one error when no branch matches, holding the errors of every
  branch (jsonschema-rs lists them per branch; they are mapped the same way, recursively,
  and put in python-jsonschema's order: branch by branch, then keyword by keyword in the
  order of each schema object's keys, names in the order of ``properties``, items and extra
  properties in the order of the arguments); ``oneOf`` matched more than once: one error
  with no context;
- ``allOf``, ``if``-``then``-``else``: the branches' own errors, the schema path gaining
  ``allOf``, the index, or ``then``/``else`` (python-jsonschema leaves ``if`` out);
- ``properties``, ``patternProperties``, ``additionalProperties`` (``false`` gives one error
  naming every extra property in both; a schema descends per extra property) and ``items``
  as one schema: the instance path gains one step, the schema path the keyword and the name;
  the fast validator is given each regex translated (``engine.python_dollar``), and its paths
  name the translation: mapped back to the schema's own key;
- a local ``$ref``: python-jsonschema leaves the ``$ref`` step out of the schema path
  (``CauseFinder`` hops through it), jsonschema-rs writes it in its evaluation path: it is
  dropped here, at keyword positions only (a property may be named ``$ref``);
- a ``false`` subschema: python-jsonschema's error names no keyword and leaves out the steps
  that led into it (the name, the index, ``then``/``else``; the property, the item);
- annotations and unknown keywords, which neither validator asserts.

Left to python-jsonschema, and why: ``propertyNames`` (python-jsonschema reports the name's
error at the object), ``dependencies``/``dependentSchemas`` (error counts and paths differ),
``minContains``/``maxContains`` (python-jsonschema names them on the ``contains`` path),
tuple ``items``/``prefixItems``/``additionalItems``, ``items: false``, ``unevaluated*``,
``$dynamicRef`` and the boolean ``exclusiveMinimum`` of draft 4; per call: more than
``limit`` errors (python-jsonschema keeps the first it meets, in its own order), two errors
at the same pointers from different schema objects (``$ref`` beside a keyword of the same
name: python-jsonschema orders them by message), and any error whose kind and paths do not
map as above.

Like its acceptances (``auditor.replay.fast_validator``), the fast validator's errors come
without the per-call CPU budget (``--call-timeout``): a call python-jsonschema could not
finish within it (with this vocabulary, only arguments of many megabytes or many nested
branches) is described, not a schema error.
"""

from __future__ import annotations

import re
from typing import Any, Final

from jsonschema.exceptions import ValidationError

from auditor import pointers
from auditor.models import JSON
from auditor.replay.fast_validator import python_dollar, schema_positions
from auditor.schema.keywords import VOCABULARY, draft_of

KINDS: Final[dict[str, frozenset[str]]] = {
    keyword: frozenset(kinds)
    for keyword, kinds in {
        "type": ("Type",),
        "enum": ("Enum",),
        "const": ("Constant",),
        "minLength": ("MinLength",),
        "maxLength": ("MaxLength",),
        "minItems": ("MinItems",),
        "maxItems": ("MaxItems",),
        "minProperties": ("MinProperties",),
        "maxProperties": ("MaxProperties",),
        "minimum": ("Minimum",),
        "maximum": ("Maximum",),
        "exclusiveMinimum": ("ExclusiveMinimum",),
        "exclusiveMaximum": ("ExclusiveMaximum",),
        "multipleOf": ("MultipleOf",),
        "pattern": ("Pattern",),
        "uniqueItems": ("UniqueItems",),
        "required": ("Required",),
        "dependentRequired": ("Required",),
        "additionalProperties": ("AdditionalProperties",),
        "anyOf": ("AnyOf",),
        "oneOf": ("OneOfNotValid", "OneOfMultipleValid"),
        "not": ("Not",),
        "contains": ("Contains",),
    }.items()
}
"""Keywords whose own errors map exactly, with the class names of jsonschema-rs's error kinds."""
_BRANCHED: Final = frozenset({"AnyOf", "OneOfNotValid"})
"""Kinds whose error holds every branch's errors (python-jsonschema's ``context``)."""
_LISTS: Final = frozenset({"anyOf", "oneOf", "allOf"})
_MAPS: Final = frozenset({"properties", "patternProperties"})
_ONE: Final = frozenset({"items", "additionalProperties", "then", "else"})
"""Keywords holding one subschema an error's evaluation path may pass through."""
_ASKED: Final = frozenset({"not", "contains", "if"})
"""Keywords holding one subschema that is only asked whether it matches: no error comes from
inside it."""
_STRUCTURE: Final = {
    **dict.fromkeys(_LISTS, list),
    **dict.fromkeys(_MAPS, dict),
    **dict.fromkeys((*_ONE, *_ASKED), None),
}
"""The applicators ``keyable`` lets through, with the container their value must be (None:
one schema; ``items`` must be one, an object)."""
_ANNOTATIONS: Final = frozenset(
    {
        "$schema",
        "$comment",
        "$defs",
        "definitions",
        "title",
        "description",
        "default",
        "examples",
        "format",
        "readOnly",
        "writeOnly",
        "deprecated",
    }
)
"""Keys neither validator asserts here (``format`` is asserted by neither: see
fast_validator.py); ``$defs`` members run only where a ``$ref`` leads, and are checked like
any subschema."""
_KNOWN: Final = frozenset(keyword for vocabulary in VOCABULARY.values() for keyword in vocabulary)

Key = tuple[int, ...]
"""Where an error comes in python-jsonschema's evaluation order (see ``FastErrors._walk``)."""


def keyable(schema: JSON) -> bool:
    """Whether every schema object of ``schema`` keeps to the vocabulary whose errors map
    exactly (see the module's docstring). Unknown keywords are allowed: neither validator reads
    them. ``schema`` must already be one the fast validator is trusted with."""
    if not isinstance(schema, dict):
        return False
    # A keyword of another draft than the schema's (``const`` in draft 4) is refused too:
    # whether each engine ignores it there is not what this mapping rests on.
    vocabulary = VOCABULARY[draft_of(schema)]
    for node in schema_positions(schema):
        for key, value in node.items():
            if key in _ANNOTATIONS or (key not in _KNOWN and not key.startswith("$")):
                continue  # neither validator asserts it
            if key not in vocabulary:
                return False
            if key in KINDS or key in ("properties", "$ref"):
                continue
            if key not in _STRUCTURE:
                return False
            container = _STRUCTURE[key]
            if container is not None and not isinstance(value, container):
                return False
            if key == "items" and not isinstance(value, dict):
                return False  # a tuple, or a boolean schema refusing every item
        for bound in ("exclusiveMinimum", "exclusiveMaximum"):
            if isinstance(node.get(bound), bool):
                return False
        if "contains" in node and ("minContains" in node or "maxContains" in node):
            return False
    return True


class FastErrors:
    """A trusted, keyable schema's errors for a call, from the fast validator."""

    def __init__(self, schema: JSON, validator: Any, limit: int) -> None:
        """``schema``: the very object python-jsonschema evaluates (error locations are found
        by the identity of its nodes); ``validator``: the fast validator's, built on it;
        ``limit``: the errors python-jsonschema's evaluation keeps."""
        self._root = schema
        self._validator = validator
        self._limit = limit
        self._places: dict[tuple[Any, ...], JSON] = {}
        """``_located``'s answers: a schema has few keyword places, and calls meet them often."""
        self._targets: dict[str, JSON] = {}
        """``_target``'s answers, by reference."""

    def __call__(self, arguments: JSON) -> list[ValidationError] | None:
        """python-jsonschema's errors for ``arguments``, but for their messages; None where
        this cannot tell them exactly (python-jsonschema must evaluate)."""
        found: list[ValidationError] = []
        at: dict[tuple[tuple[Any, ...], tuple[Any, ...]], ValidationError] = {}
        try:
            for error in self._validator.iter_errors(arguments):
                mapped = self._mapped(error, arguments)
                if mapped is None or len(found) == self._limit:
                    return None
                built = mapped[1]
                # python-jsonschema orders errors at the same pointers by message: only
                # errors that differ in nothing else (one per missing name) may tie; not
                # two ``false`` refusing two properties' values, placed at their object.
                tied = at.setdefault((tuple(built.path), tuple(built.schema_path)), built)
                if not (
                    tied.schema is built.schema
                    and tied.validator == built.validator
                    and tied.instance is built.instance
                ):
                    return None
                found.append(built)
        except Exception:  # an argument the fast validator cannot take: the reference decides
            return None
        return found

    def _mapped(
        self, error: Any, arguments: JSON, outer: tuple[int, int] = (0, 0)
    ) -> tuple[Key, ValidationError] | None:
        """python-jsonschema's error for one of the fast validator's, and its place in
        python-jsonschema's order; ``outer``: the lengths of the schema path and instance
        path of the error whose context this one is in (its paths are relative to those)."""
        path = list(error.evaluation_path)
        kind = type(error.kind).__name__
        instance_path = list(error.instance_path)
        if kind == "FalseSchema":  # python-jsonschema's error names no keyword, only the place
            walked = self._walk(path, instance_path, arguments)
            if walked is None or walked[0] is not False:
                return None
            if self._located(list(error.schema_path)) is not False:
                return None
            _, schema_path, key, instance, (schema_step, instance_step) = walked
            # python-jsonschema's error for a false subschema it descends into leaves out the
            # steps of that descent (the name, the index, ``then``; the item, the property):
            # it is placed at the applicator, with the value it refused.
            schema_path = schema_path[: len(schema_path) - schema_step]
            instance_path = instance_path[: len(instance_path) - instance_step]
            nameless: Any = None  # as python-jsonschema writes it (its stubs say a name)
            built = ValidationError(
                "",
                validator=nameless,
                path=instance_path[outer[1] :],
                schema_path=schema_path[outer[0] :],
                instance=instance,
                schema=False,
                validator_value=None,
            )
            return key, built
        keyword = path[-1] if path else None
        if not isinstance(keyword, str) or kind not in KINDS.get(keyword, ()):
            return None
        walked = self._walk(path[:-1], instance_path, arguments)
        if walked is None:
            return None
        holder, schema_path, key, instance, _ = walked
        if (
            not isinstance(holder, dict)
            or keyword not in holder
            or self._located(list(error.schema_path[:-1])) is not holder
        ):
            return None  # the fast validator's own location must be the walk's
        context: list[ValidationError] = []
        if kind in _BRANCHED:
            inner = (len(schema_path) + 1, len(instance_path))
            branches = list(error.kind.context)
            members = holder[keyword]
            if not isinstance(members, list) or len(branches) != len(members) or not all(branches):
                return None  # every branch failed, each with at least one error
            ordered: list[tuple[Key, ValidationError]] = []
            for branch in branches:
                for sub in branch:
                    mapped = self._mapped(sub, arguments, inner)
                    if mapped is None:
                        return None
                    ordered.append(mapped)
            ordered.sort(key=lambda pair: pair[0])  # stable: ties are alike but for messages
            context = [sub for _, sub in ordered]
        built = ValidationError(
            "",  # never shown: the report shows only calls python-jsonschema evaluated
            validator=keyword,
            path=instance_path[outer[1] :],
            schema_path=[*schema_path, keyword][outer[0] :],
            instance=instance,
            schema=holder,
            validator_value=holder[keyword],
            context=context,
        )
        return (*key, _position(holder, keyword)), built

    def _walk(
        self, path: list[Any], instance_path: list[Any], arguments: JSON
    ) -> tuple[JSON, list[str | int], Key, JSON, tuple[int, int]] | None:
        """The schema holding the failing keyword (or the ``false`` that fails), reached along
        the evaluation path; python-jsonschema's schema path to it (``$ref`` steps left out);
        where the error comes in python-jsonschema's evaluation order; the value it judged;
        how many steps the last move added to the schema path and to the instance path.

        The order: at each schema object, the place of the keyword among its keys (that of
        ``if`` for ``then``/``else``, which python-jsonschema evaluates under ``if``), then
        the branch, the place of the name in ``properties``, of the pattern and of the name
        in the arguments for ``patternProperties``, of the item or the extra property in the
        arguments (extra properties: in the order of python-jsonschema's set of them).
        """
        node: JSON = self._root
        instance = arguments
        schema_path: list[str | int] = []
        key: list[int] = []
        depth = index = 0
        last = (0, 0)
        while index < len(path):
            step = path[index]
            if not isinstance(node, dict) or not isinstance(step, str) or step not in node:
                return None
            if step in ("then", "else") and "if" not in node:
                return None  # inert without ``if``: nothing can fail there
            key.append(_position(node, "if" if step in ("then", "else") else step))
            if step == "$ref":
                node = self._target(node["$ref"])
                index += 1
                last = (0, 0)
                continue
            node_above, member = node, node[step]
            if step in _LISTS:
                branch = path[index + 1] if index + 1 < len(path) else None
                if not (isinstance(member, list) and isinstance(branch, int)):
                    return None
                if not 0 <= branch < len(member):
                    return None
                key.append(branch)
                node = member[branch]
                schema_path += [step, branch]
                index += 2
                last = (1, 0)
                continue
            if step in ("then", "else"):
                node = member
                schema_path.append(step)
                index += 1
                last = (1, 0)
                continue
            # A step into the arguments: a property (by name or pattern), an item, an extra.
            name: Any = instance_path[depth] if depth < len(instance_path) else None
            if step in _MAPS:
                spelled = path[index + 1] if index + 1 < len(path) else None
                if not isinstance(member, dict) or not isinstance(spelled, str):
                    return None
                own = spelled if step == "properties" else _pattern(member, spelled)
                if own is None or own not in member or (step == "properties" and own != name):
                    return None
                key.append(list(member).index(own))
                schema_path += [step, own]
                node = member[own]
                index += 2
                last = (1, 1)
            elif step in _ONE:
                schema_path.append(step)
                node = member
                index += 1
                last = (0, 1)
            else:
                return None
            if isinstance(instance, dict) and isinstance(name, str) and name in instance:
                if step == "additionalProperties":
                    extras = _extras_in_set_order(node_above, instance)
                    if name not in extras:
                        return None
                    key.append(extras.index(name))
                elif step == "patternProperties":
                    key.append(list(instance).index(name))
            elif isinstance(instance, list) and isinstance(name, int) and step == "items":
                if not 0 <= name < len(instance):
                    return None
                key.append(name)
            else:
                return None
            instance = instance[name]
            depth += 1
        if depth != len(instance_path):
            return None
        return node, schema_path, tuple(key), instance, last

    def _located(self, segments: list[Any]) -> JSON:
        """The schema object the fast validator names by its own schema path (its copy of the
        schema spells ``patternProperties`` keys translated); None if there is none."""
        place = tuple(segments)
        if place not in self._places:
            self._places[place] = self._find(segments)
        return self._places[place]

    def _find(self, segments: list[Any]) -> JSON:
        node: JSON = self._root
        previous: Any = None
        for segment in segments:
            if isinstance(node, dict) and isinstance(segment, str):
                name = _pattern(node, segment) if previous == "patternProperties" else segment
                if name is None or name not in node:
                    return None
                node = node[name]
            elif isinstance(node, list) and isinstance(segment, int) and 0 <= segment < len(node):
                node = node[segment]
            else:
                return None
            previous = segment
        return node

    def _target(self, ref: JSON) -> JSON:
        if not isinstance(ref, str):
            return None
        if ref not in self._targets:
            self._targets[ref] = self._resolved(ref)
        return self._targets[ref]

    def _resolved(self, ref: str) -> JSON:
        pointer = pointers.ref_target(ref)
        if not isinstance(pointer, str):
            return None
        found, target = pointers.resolve(self._root, pointer)
        return target if found else None


def _position(node: dict[str, JSON], keyword: str) -> int:
    return list(node).index(keyword)


def _extras_in_set_order(schema: dict[str, JSON], instance: dict[str, JSON]) -> list[str]:
    """The properties ``additionalProperties`` judges, in the order python-jsonschema takes
    them: it makes a set of them, in the order of the arguments, and iterates that. A set of
    the same strings added in the same order iterates alike within one process, so the
    reference's order (which decides the order of the causes an ``anyOf`` names) is this."""
    declared = schema.get("properties", {})
    named = schema.get("patternProperties", {})
    patterns = "|".join(named) if isinstance(named, dict) else ""
    return list(
        set(  # built exactly as python-jsonschema builds it
            name
            for name in instance
            if not (isinstance(declared, dict) and name in declared)
            and not (patterns and re.search(patterns, name))
        )
    )


def _pattern(patterns: dict[str, JSON], spelled: str) -> str | None:
    """The ``patternProperties`` key the fast validator spells ``spelled``: the one key whose
    translation it is (None when none is, or when two are)."""
    found = [regex for regex in patterns if python_dollar(regex) == spelled]
    return found[0] if len(found) == 1 else None
