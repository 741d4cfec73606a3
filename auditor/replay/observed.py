"""What a failing value looked like, as countable observations for decision hints.

Pure: a validation error in, a few ``Observation`` records out. Kinds never carry logged data,
so they can be counted and printed under ``--redact``; details may (see ``Observation``).
"""

from __future__ import annotations

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
    elif keyword in _VALUE_KEYWORDS:
        found = [Observation(_VALUE_KEYWORDS[keyword], instance, detail_is_value=True)]
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


def _search(pattern: str, text: str) -> bool:
    # A user's regex: on the budgeted engine, like every match during replay (a catastrophic
    # patternProperties key must not hang the description of an error). Observations are only
    # hints, so a pattern that cannot be used, or that runs out of time, matches nothing.
    try:
        return compiled_pattern(pattern).search(text, timeout=OBSERVATION_TIMEOUT) is not None
    except (UnusablePattern, TimeoutError):
        return False
