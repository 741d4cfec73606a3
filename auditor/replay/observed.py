"""What a failing value looked like, as countable observations for decision hints.

Pure: a validation error in, a few ``Observation`` records out. Kinds never carry logged data,
so they can be counted and printed under ``--redact``; details may (see ``Observation``).
"""

from __future__ import annotations

import json
from typing import Final, cast

from jsonschema.exceptions import ValidationError

from auditor.models import JSON, Observation
from auditor.replay.budget import UnusablePattern, compiled_pattern

OBSERVATION_TIMEOUT: Final = 0.1
"""Seconds one property-name match may take while describing an error."""
MAX_OBSERVATIONS: Final = 5
"""Per error: a call sending twenty extra properties needs only a few named."""

_PROPERTY_KEYWORDS: Final = frozenset({"additionalProperties", "unevaluatedProperties"})
_VALUE_KEYWORDS: Final = {"enum": "a value outside the enum", "const": "a value other than const"}


def observe(error: ValidationError) -> tuple[Observation, ...]:
    """Observations about ``error.instance`` relevant to the failing keyword."""
    keyword = error.validator if isinstance(error.validator, str) else ""
    # python-jsonschema hands back (a part of) the decoded arguments it was given
    instance = cast(JSON, error.instance)
    found: list[Observation] = []
    if keyword in _PROPERTY_KEYWORDS and isinstance(instance, dict):
        found = [Observation("extra property", name) for name in _extra_properties(error)]
    elif keyword == "required" and isinstance(instance, dict):
        wanted = error.validator_value if isinstance(error.validator_value, list) else []
        found = [Observation("missing property", name) for name in wanted if name not in instance]
    elif keyword == "dependentRequired" and isinstance(instance, dict):
        found = [Observation("missing property", name) for name in _dependent_missing(error)]
    elif keyword in _VALUE_KEYWORDS:
        found = [Observation(_VALUE_KEYWORDS[keyword], instance, detail_is_value=True)]
    elif keyword == "uniqueItems" and isinstance(instance, list):
        found = [
            Observation("duplicate item", item, detail_is_value=True) for item in _twice(instance)
        ]
    elif keyword in ("anyOf", "oneOf") and error.context:
        found = [Observation("nearest branch", _nearest(error))]
    return tuple(found[:MAX_OBSERVATIONS]) or (Observation(shape_kind(instance)),)


def shape_kind(value: object) -> str:
    """A value's kind in words, with emptiness: what most length and type errors turn on."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "an empty string" if not value else "a string"
    if isinstance(value, list):
        return "an empty list" if not value else "a list"
    if isinstance(value, dict):
        return "an empty object" if not value else "an object"
    return type(value).__name__


def _extra_properties(error: ValidationError) -> list[str]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    declared = schema.get("properties")
    declared = declared if isinstance(declared, dict) else {}
    patterns = schema.get("patternProperties")
    patterns = patterns if isinstance(patterns, dict) else {}
    instance = error.instance if isinstance(error.instance, dict) else {}
    return sorted(
        name
        for name in instance
        if name not in declared and not any(_search(p, name) for p in patterns)
    )


def _dependent_missing(error: ValidationError) -> list[str]:
    """The names a present property requires that the object lacks, each once, in order."""
    rules = error.validator_value if isinstance(error.validator_value, dict) else {}
    instance = error.instance if isinstance(error.instance, dict) else {}
    missing: dict[str, None] = {}
    for present, wanted in rules.items():
        if present in instance and isinstance(wanted, list):
            missing.update((n, None) for n in wanted if isinstance(n, str) and n not in instance)
    return list(missing)


def _twice(items: list[JSON]) -> list[JSON]:
    """The items that occur more than once, each once, in the order of their second sight;
    equal as JSON Schema compares them (``1`` and ``1.0`` are equal, ``true`` and ``1`` not).
    Linear in the items: a logged array of 20,000 took a second when ``seen`` was a list."""
    values: dict[str, JSON] = {}  # every item seen, by canonical form: the first of equals
    found: dict[str, None] = {}  # those seen twice, in the order of their second sight
    for item in items:
        key = _canonical(item)
        if key in values:
            found.setdefault(key)
        else:
            values[key] = item
    return [values[key] for key in found]


def _canonical(value: JSON) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, list):
        return "[" + ",".join(_canonical(item) for item in value) + "]"
    if isinstance(value, dict):
        items = sorted(value.items())
        return "{" + ",".join(json.dumps(k) + ":" + _canonical(v) for k, v in items) + "}"
    return json.dumps(value)


def _nearest(error: ValidationError) -> str:
    """``branch 1, failing minimum`` — the branch that failed on the fewest errors (the first of
    equals), and its failing keywords: what the value nearly matched."""
    by_branch: dict[int, list[str]] = {}
    for sub in error.context or ():
        path = list(sub.relative_schema_path)
        if path and isinstance(path[0], int):
            keyword = sub.validator if isinstance(sub.validator, str) else "false"
            by_branch.setdefault(path[0], []).append(keyword)
    if not by_branch:
        return "no branch"
    # Fewest errors first; a value of another type is farther than one out of bounds.
    branch = min(by_branch, key=lambda i: (len(by_branch[i]), "type" in by_branch[i], i))
    keywords = sorted(set(by_branch[branch]))
    return f"branch {branch}, failing " + ", ".join(keywords)


def _search(pattern: str, text: str) -> bool:
    # A user's regex: on the budgeted engine, like every match during replay (a catastrophic
    # patternProperties key must not hang the description of an error). Observations are only
    # hints, so a pattern that cannot be used, or that runs out of time, matches nothing.
    try:
        return compiled_pattern(pattern).search(text, timeout=OBSERVATION_TIMEOUT) is not None
    except (UnusablePattern, TimeoutError):
        return False
