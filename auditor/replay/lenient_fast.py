"""The old side under ``--old-runtime lenient``, compiled for the fast validator: a rewritten
schema that jsonschema-rs evaluates with the lenient model's verdicts, rejections included.

The lenient model has two steps (``auditor.schema.lenient``): ``read_leniently`` removes what
the runtime could not evaluate by looking at the schema (type names, keyword values that fail
the meta-schema, references nothing resolves), and ``tolerant`` makes any keyword that raises
while a call is evaluated enforce nothing. The first step gives a schema; this module writes
the second as more rewrites of that schema, so that no keyword of the result can raise:

- a regex the reference cannot use (``auditor.replay.budget.compiled_pattern`` refuses it: the
  ``regex`` engine does not compile it, or its counted repeats expand too far) raises where
  it is matched, so the keyword holding it enforces nothing there. Where it stands decides what
  that means, read off python-jsonschema's keyword functions:

  - ``pattern``: the keyword is absent (it raises on every string, and checks nothing else);
  - a ``patternProperties`` key: the patterns before it in the schema's order are matched
    against every property first (their errors stand), then it raises at the first property:
    the patterns from it on are absent (an empty object meets none of them either);
  - ``additionalProperties`` beside them matches the keys joined into one regex, and only for
    a property ``properties`` does not name: where the joined regex is unusable, the keyword is
    absent (without such a property it has nothing to check either); where it is usable
    although a key is not, the two validators would read the keys differently, and the tool
    stays on the reference path, as it does where ``unevaluatedProperties`` (which matches
    them again, through every subschema it looks into) is in the schema;

- the rest is what ``auditor.replay.fast_validator`` trusts the fast validator with: plain
  regexes (with ``$`` spelled as Python reads it), integral ``multipleOf``, local references
  that land on schema positions, no recursion, a bounded fan-out; in such a schema no keyword
  of python-jsonschema raises on JSON arguments. Whatever the fast validator is not trusted
  with keeps the tool on the reference path (python-jsonschema, ``tolerant``), as does an
  argument the fast validator cannot take.

The differential test (tests/replay/test_lenient_fast.py) checks, over generated dialect
schemas of every draft, that each verdict given here is the reference lenient model's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from auditor.models import JSON
from auditor.replay.budget import UnusablePattern, compiled_pattern
from auditor.replay.fast_validator import (
    FastCheck,
    rewritten_at_schema_positions,
    schema_positions,
)

COMPILED: Final = "compiled"
"""The path of a tool whose old side the fast validator decides, rejections included."""
NOT_TRUSTED: Final = "not trusted to the fast validator"
JOINED_REGEX: Final = "a patternProperties regex is unusable alone but not joined"
UNEVALUATED_REGEX: Final = "an unusable patternProperties regex beside unevaluatedProperties"
NOT_AN_OBJECT: Final = "not an object schema"
"""The reasons a tool's old side stays on the reference path (``LenientFast.path``)."""


@dataclass(frozen=True)
class LenientFast:
    """The old schema, read leniently, as the fast validator evaluates it; where it cannot
    be exact, ``validator`` is None and ``path`` says why."""

    validator: Any
    path: str
    rejects_exactly: bool = True
    """Whether a rejection is the reference's too under a call's budget. Not where the schema
    holds a regex: the reference's backtracking engine can run out of the budget on a value
    the fast validator's linear one rejects at once, and under the lenient model what could
    not finish enforced nothing (the call passed, counted over budget). ``verdict`` is the
    unbounded reference's; the replay asks the budgeted one about such rejections."""

    def verdict(self, arguments: JSON) -> bool | None:
        """Whether the lenient old runtime accepts ``arguments``; None means *ask the
        reference* (the tool is not compiled, or the fast validator cannot take them)."""
        if self.validator is None:
            return None
        try:
            return bool(self.validator.is_valid(arguments))
        except Exception:  # an argument the fast validator cannot take: the reference decides
            return None


def compile_lenient(read: JSON) -> LenientFast:
    """``read`` (the old schema as ``read_leniently`` left it) compiled for the fast
    validator with the verdicts of ``tolerant`` python-jsonschema over it, or why not."""
    if isinstance(read, bool):
        return _built(read)
    if not isinstance(read, dict):
        return LenientFast(None, NOT_AN_OBJECT)
    tolerated = _without_unusable_regexes(read)
    if isinstance(tolerated, str):
        return LenientFast(None, tolerated)
    return _built(tolerated)


def _built(schema: JSON) -> LenientFast:
    fast = FastCheck(schema)
    if fast.validator is None:
        return LenientFast(None, NOT_TRUSTED)
    regexes = isinstance(schema, dict) and any(
        regex is not None for node in schema_positions(schema) for regex in _regexes(node)
    )
    return LenientFast(fast.validator, COMPILED, rejects_exactly=not regexes)


def _without_unusable_regexes(read: dict[str, JSON]) -> JSON | str:
    """``read`` with each regex the reference cannot use rewritten as the keyword holding it
    behaves (see the module's docstring), or why that cannot be exact. The same object where
    every regex is usable, which is nearly every schema.

    The walk is the fast validator's (every draft's applicators at once): no subschema it
    evaluates is left unrewritten, and data and names are never touched."""
    if all(_usable(regex) for node in schema_positions(read) for regex in _regexes(node)):
        return read
    if any("unevaluatedProperties" in node for node in schema_positions(read)):
        return UNEVALUATED_REGEX
    problems: list[str] = []

    def tolerated(node: dict[str, JSON], out: dict[str, JSON]) -> dict[str, JSON]:
        if not _usable(node.get("pattern")):
            del out["pattern"]
        named, edited = node.get("patternProperties"), out.get("patternProperties")
        if not isinstance(named, dict) or not isinstance(edited, dict):
            return out
        first_unusable = next((i for i, regex in enumerate(named) if not _usable(regex)), None)
        if first_unusable is None:
            return out
        out["patternProperties"] = dict(list(edited.items())[:first_unusable])
        if "additionalProperties" in out:
            if _usable("|".join(named)):
                problems.append(JOINED_REGEX)
            del out["additionalProperties"]
        return out

    rewritten = rewritten_at_schema_positions(read, tolerated)
    return problems[0] if problems else rewritten


def _regexes(node: dict[str, JSON]) -> list[Any]:
    named = node.get("patternProperties")
    return [node.get("pattern"), *(named if isinstance(named, dict) else ())]


def _usable(regex: Any) -> bool:
    """Whether the reference can match ``regex`` (``compiled_pattern``, as the budgeted
    reference validator does); no regex at all (None) or a value that is not a string (the
    meta-schema's business) is not an unusable one."""
    if not isinstance(regex, str):
        return True
    try:
        compiled_pattern(regex)
    except UnusablePattern:
        return False
    return True
