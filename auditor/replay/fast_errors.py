"""The fast engine's errors, as python-jsonschema would give them, where the two provably agree.

A rejected call the report will not show in detail (the listed calls are full, and so are the
examples of every group it counts in) is still counted in its groups, and their keys and
evidence come from its errors: the failing keyword, where it stands in the schema (through
any ``$ref``), where the value stands in the arguments, the value, the keyword's limit. The
message, the one thing only python-jsonschema writes, is never shown for such a call. Here
jsonschema-rs gives those errors, built into python-jsonschema's own ``ValidationError`` so
that the same code (``CauseFinder``, ``observe``, the witnesses) reads them.

The mapping is exact only on a small vocabulary, checked for the whole schema once
(``keyable``); a schema using anything else is left to python-jsonschema, per tool:

- assertions that fail with one error each, at the value they judge, in both engines:
  ``type``, ``enum``, ``const``, the length, count and range limits, integer ``multipleOf``,
  ``pattern`` (a plain regex: ``auditor.replay.engine.trusted``), ``uniqueItems``, and
  ``required`` (one error per missing name in both: python-jsonschema orders those by message,
  and they differ in nothing else the key or the evidence reads);
- ``properties``, ``additionalProperties`` (``false`` gives one error naming every extra
  property in both; a schema descends per extra property, one instance step each) and
  ``items`` as one schema: the instance path gains one step, the schema path the keyword;
- a local ``$ref``: python-jsonschema leaves the ``$ref`` step out of the schema path
  (``CauseFinder`` hops through it), jsonschema-rs writes it in its evaluation path: it is
  dropped here, at keyword positions only (a property may be named ``$ref``);
- annotations and unknown keywords, which neither engine asserts.

Left to python-jsonschema, and why: ``anyOf``/``oneOf`` (the nearest branch needs every
branch's errors), ``allOf``/``not``/``if``-``then``-``else`` and ``contains`` (causes compare
the old and new schema on the whole subschema), ``patternProperties`` (the fast engine's copy
spells its regexes otherwise, so its paths do), ``propertyNames`` (python-jsonschema reports
the name's error at the object), ``dependencies``/``dependent*`` (error counts differ), tuple
``items``/``prefixItems``/``additionalItems``, ``unevaluated*``, ``$dynamicRef`` and the
boolean ``exclusiveMinimum`` of draft 4; a ``false`` subschema (python-jsonschema's error
names no keyword); more than ``limit`` errors (python-jsonschema keeps the first it meets,
in its own order); and any error whose kind and path do not map as above.

Like its acceptances (``auditor.replay.engine``), the fast engine's errors come without the
per-call CPU budget (``--call-timeout``): a call python-jsonschema could not finish within it
(with this vocabulary, only arguments of many megabytes) is described, not a schema error.
"""

from __future__ import annotations

from typing import Any, Final

from jsonschema.exceptions import ValidationError

from auditor import pointers
from auditor.models import JSON
from auditor.replay.engine import schema_positions
from auditor.schema.keywords import VOCABULARY, draft_of

KINDS: Final[dict[str, str]] = {
    "type": "Type",
    "enum": "Enum",
    "const": "Constant",
    "minLength": "MinLength",
    "maxLength": "MaxLength",
    "minItems": "MinItems",
    "maxItems": "MaxItems",
    "minProperties": "MinProperties",
    "maxProperties": "MaxProperties",
    "minimum": "Minimum",
    "maximum": "Maximum",
    "exclusiveMinimum": "ExclusiveMinimum",
    "exclusiveMaximum": "ExclusiveMaximum",
    "multipleOf": "MultipleOf",
    "pattern": "Pattern",
    "uniqueItems": "UniqueItems",
    "required": "Required",
    "additionalProperties": "AdditionalProperties",
}
"""Keywords whose errors map exactly, with the class name of jsonschema-rs's error kind."""
_APPLIED: Final = frozenset({"properties", "additionalProperties", "items", "$ref"})
"""Keywords an error's evaluation path may pass through."""
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
"""Keys neither engine asserts here (``format`` is not asserted by either: see engine.py);
``$defs`` members run only where a ``$ref`` leads, and are checked like any subschema."""
_KNOWN: Final = frozenset(keyword for vocabulary in VOCABULARY.values() for keyword in vocabulary)


def keyable(schema: JSON) -> bool:
    """Whether every schema object of ``schema`` keeps to the vocabulary whose errors map
    exactly (see the module's docstring). Unknown keywords are allowed: neither engine reads
    them. ``schema`` must already be one the fast engine is trusted with."""
    if not isinstance(schema, dict):
        return False
    # A keyword of another draft than the schema's (``const`` in draft 4) is refused too:
    # whether each engine ignores it there is not what this mapping rests on.
    vocabulary = VOCABULARY[draft_of(schema)]
    for node in schema_positions(schema):
        for key, value in node.items():
            if key in _ANNOTATIONS or (key not in _KNOWN and not key.startswith("$")):
                continue  # neither engine asserts it
            exact = key in KINDS or key in ("properties", "$ref")
            if not ((exact or (key == "items" and isinstance(value, dict))) and key in vocabulary):
                return False
        for bound in ("exclusiveMinimum", "exclusiveMaximum"):
            if isinstance(node.get(bound), bool):
                return False
    return True


class FastErrors:
    """A trusted, keyable schema's errors for a call, from the fast engine."""

    def __init__(self, schema: JSON, validator: Any, limit: int) -> None:
        """``schema``: the very object python-jsonschema evaluates (error locations are found
        by the identity of its nodes); ``validator``: the fast engine's, built on it;
        ``limit``: the errors python-jsonschema's evaluation keeps."""
        self._root = schema
        self._validator = validator
        self._limit = limit

    def __call__(self, arguments: JSON) -> list[ValidationError] | None:
        """python-jsonschema's errors for ``arguments``, but for their messages; None where
        this cannot tell them exactly (python-jsonschema must evaluate)."""
        found: list[ValidationError] = []
        try:
            for error in self._validator.iter_errors(arguments):
                mapped = self._mapped(error, arguments)
                if mapped is None or len(found) == self._limit:
                    return None
                found.append(mapped)
        except Exception:  # an argument the fast engine cannot take: the reference decides
            return None
        return found

    def _mapped(self, error: Any, arguments: JSON) -> ValidationError | None:
        path = list(error.evaluation_path)
        keyword = path[-1] if path else None
        if not isinstance(keyword, str) or KINDS.get(keyword) != type(error.kind).__name__:
            return None
        walked = self._walk(path[:-1])
        if walked is None:
            return None
        holder, schema_path = walked
        located, at = pointers.resolve(self._root, pointers.from_segments(error.schema_path[:-1]))
        if not (located and at is holder and keyword in holder):
            return None  # the fast engine's own location must be the walk's
        instance_path = list(error.instance_path)
        found, instance = pointers.resolve(arguments, pointers.from_segments(instance_path))
        if not found:
            return None
        return ValidationError(
            "",  # never shown: the report shows only calls python-jsonschema evaluated
            validator=keyword,
            path=instance_path,
            schema_path=[*schema_path, keyword],
            instance=instance,
            schema=holder,
            validator_value=holder[keyword],
        )

    def _walk(self, path: list[Any]) -> tuple[dict[str, JSON], list[str]] | None:
        """The schema object holding the failing keyword, reached along the evaluation path,
        and python-jsonschema's schema path to it (``$ref`` steps left out)."""
        node: JSON = self._root
        schema_path: list[str] = []
        index = 0
        while index < len(path):
            step = path[index]
            if not isinstance(node, dict) or step not in _APPLIED or step not in node:
                return None
            if step == "$ref":
                node = self._target(node["$ref"])
                index += 1
            elif step == "properties":
                if index + 1 >= len(path):
                    return None
                name = path[index + 1]
                members = node["properties"]
                if not isinstance(members, dict) or name not in members:
                    return None
                node = members[name]
                schema_path += [step, name]
                index += 2
            else:  # items or additionalProperties: one schema
                node = node[step]
                schema_path.append(step)
                index += 1
        return (node, schema_path) if isinstance(node, dict) else None

    def _target(self, ref: JSON) -> JSON:
        pointer = pointers.ref_target(ref) if isinstance(ref, str) else None
        if not isinstance(pointer, str):
            return None
        found, target = pointers.resolve(self._root, pointer)
        return target if found else None
