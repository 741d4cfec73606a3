"""Which subschemas a value zone's applicators run, from their verdicts on the zone's value.

Below ``anyOf``, ``oneOf``, ``not`` and ``if`` the coverage walk (``auditor.replay.coverage``)
cannot tell from the arguments' shape which subschemas python-jsonschema evaluates: that
depends on verdicts. But only on verdicts, and exactly so (``jsonschema/_keywords.py``):

- ``anyOf`` evaluates its branches in full, in order, up to the first without errors (all of
  them when none passes);
- ``oneOf`` does the same up to the first passing branch (all when none passes), then checks
  each later branch with ``is_valid``, which stops at its first error;
- ``not`` checks its subschema with ``is_valid``;
- ``if`` checks its subschema with ``is_valid``, then evaluates ``then`` in full where it
  passed and ``else`` where it did not (each where present).

A subschema checked with ``is_valid`` that passes was evaluated in full (no error stopped it);
one that fails was evaluated up to the keyword of its first error. So a zone's coverage is
its own keywords, the walk of each subschema evaluated in full (by shape, recursively), and
the keywords of those stopped early, once each subschema's verdict on the value is known.

A verdict comes from a cheap exact check where the subschema holds only keywords that look at
the value itself (``LEAF_KEYWORDS``: ``const``, ``enum``, ``type``, ``maxLength``...): each
keyword's own python-jsonschema function, in the order python-jsonschema runs them, which
also says where a failing one stops. Elsewhere it comes from the fast validator where the
tool's schema is trusted with it (``auditor.replay.fast_validator``) and the tracker's
validator reads it as the standard one does; a subschema stopped early must then have nothing
tracked below it. Anything else (``contains``, ``patternProperties``, ``dependentSchemas``,
``unevaluated*``, a subschema neither way can judge, a check that raised) leaves the zone to
the tracking evaluation, as before.

The verdicts (``Decision.key``) decide which subschemas run and where the stopped ones stop:
a zone whose walks do not depend on the value beyond that is answered by its key alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from auditor.models import JSON
from auditor.replay.fast_validator import (
    VALIDATORS_BY_DRAFT,
    FastSubschemas,
    schema_places,
    trusted,
)
from auditor.schema.keywords import draft_of

_Site = tuple[int, str]
"""``(id(schema object), keyword)``, as in ``auditor.replay.coverage``."""

LEAF_KEYWORDS: Final = frozenset(
    {
        "type",
        "const",
        "enum",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "required",
        "dependentRequired",
    }
)
"""Keywords whose python-jsonschema function looks at the value (and its own schema object,
for draft 4's boolean ``exclusiveMaximum``) and evaluates no subschema."""

DECIDED: Final = frozenset({"anyOf", "oneOf", "not", "if"})
"""The applicators whose subschemas' evaluation follows from their verdicts (module doc)."""

FOLLOWED: Final = frozenset(
    {"properties", "additionalProperties", "items", "prefixItems", "allOf", "$ref"}
)
"""Keywords whose subschemas run on parts of the value chosen by its shape alone."""
ZONED: Final = frozenset({"patternProperties", "unevaluatedProperties", "unevaluatedItems"})
"""Keywords that make a schema object leading to a tracked keyword a value zone whatever
their value: which properties ``additionalProperties`` gets depends on the patterns' matches,
and the unevaluated keywords evaluate their siblings' subschemas again, stopping at the first
error (``find_evaluated_property_keys_by_schema``)."""

_MISSING: Final[dict[str, JSON]] = {"$comment": "absent"}
"""Stands for a ``then`` or ``else`` the schema object does not have."""

_FRAGMENT: Final = re.compile(r"[A-Za-z0-9_~./-]*")
"""Pointers written in a URI fragment as they are (others are left to the tracking
evaluation rather than percent-encoded)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """What evaluating a value zone's object on its value runs, besides its own keywords."""

    walked: tuple[JSON, ...]
    """Subschemas evaluated in full on the value (walked by shape)."""
    sites: tuple[_Site, ...]
    """Keywords of subschemas checked with ``is_valid`` that stopped at an error."""
    key: tuple[tuple[int, ...], ...]
    """Per decided applicator, each checked subschema's outcome: 1 passed, 0 failed (in
    full), 2 + n failed after its first n keywords. One key, one ``walked`` and ``sites``."""


_Rule = tuple[str, tuple[JSON, ...]]
"""A decided applicator of a zone's object and its subschemas (``if``: if, then, else)."""
_Check = tuple[bool, tuple[_Site, ...] | None]
"""A subschema's verdict, and the keywords it runs when checked until its first error (None:
not known)."""


class ZoneDecider:
    """Decides the value zones of one tool's schema that verdicts alone decide."""

    def __init__(
        self,
        validator_class: Any,
        schema: JSON,
        legacy_ref: bool,
        leads: set[int],
    ) -> None:
        """``legacy_ref``: only ``$ref`` runs where it stands (before 2019-09); ``leads``: the
        schema objects from which a tracked keyword can be reached."""
        self._class = validator_class
        self._functions: Mapping[str, Callable[..., Any]] = validator_class.VALIDATORS
        self._schema = schema
        self._legacy_ref = legacy_ref
        self._leads = leads
        self._rules: dict[int, tuple[_Rule, ...] | None] = {}
        self._running: dict[int, tuple[str, ...] | None] = {}
        self._checker: Any = None
        self._fast: _FastVerdicts | None = None
        self._fast_built = False

    def decide(self, node: dict[str, JSON], value: JSON) -> Decision | None:
        """What the zone ``node`` runs on ``value`` below its own keywords; None when its
        verdicts cannot say (the tracking evaluation answers)."""
        if id(node) not in self._rules:
            self._rules[id(node)] = self._rules_of(node)
        rules = self._rules[id(node)]
        if rules is None:
            return None
        walked: list[JSON] = []
        sites: list[_Site] = []
        key: list[tuple[int, ...]] = []
        for keyword, members in rules:
            codes: list[int] = []
            if keyword == "anyOf":
                for member in members:
                    check = self._check(member, value)
                    if check is None:
                        return None
                    walked.append(member)
                    codes.append(int(check[0]))
                    if check[0]:
                        break
            elif keyword == "oneOf":
                passed = False
                for member in members:
                    check = self._check(member, value)
                    if check is None:
                        return None
                    if not passed or check[0]:
                        walked.append(member)
                        codes.append(int(check[0]))
                        passed = passed or check[0]
                    elif check[1] is None:
                        return None
                    else:
                        sites += check[1]
                        codes.append(2 + len(check[1]))
            else:  # not, if: the first member checked with is_valid
                check = self._check(members[0], value)
                if check is None:
                    return None
                if check[0]:
                    walked.append(members[0])
                    codes.append(1)
                elif check[1] is None:
                    return None
                else:
                    sites += check[1]
                    codes.append(2 + len(check[1]))
                if keyword == "if":
                    branch = members[1] if check[0] else members[2]
                    if branch is not _MISSING:
                        walked.append(branch)
            key.append(tuple(codes))
        return Decision(tuple(walked), tuple(sites), tuple(key))

    def _rules_of(self, node: dict[str, JSON]) -> tuple[_Rule, ...] | None:
        """The decided applicators ``node`` runs, or None when it runs another keyword whose
        subschemas lead to a tracked keyword (or one that makes it a zone whatever it holds)."""
        rules: list[_Rule] = []
        for keyword in self._keywords(node):
            value = node[keyword]
            if keyword in ("anyOf", "oneOf"):
                if not isinstance(value, list):
                    return None
                rules.append((keyword, tuple(value)))
            elif keyword == "not":
                rules.append((keyword, (value,)))
            elif keyword == "if":
                then, otherwise = node.get("then", _MISSING), node.get("else", _MISSING)
                rules.append((keyword, (value, then, otherwise)))
            elif keyword in FOLLOWED:
                continue  # walked by shape, as anywhere
            elif keyword in ZONED or _leads_to(value, self._leads):
                return None
        return tuple(rules)

    def _keywords(self, node: dict[str, JSON]) -> list[str]:
        """The keywords of ``node`` python-jsonschema runs, in the order it runs them."""
        names = ("$ref",) if self._legacy_ref and "$ref" in node else tuple(node)
        return [name for name in names if name in self._functions]

    def _check(self, member: JSON, value: JSON) -> _Check | None:
        """``member``'s verdict on ``value``, and what it runs until its first error; None when
        neither the keywords' own functions nor the fast validator can say."""
        if isinstance(member, bool):
            return member, ()
        if not isinstance(member, dict):
            return None
        if id(member) not in self._running:
            self._running[id(member)] = self._leaf(member)
        running = self._running[id(member)]
        if running is not None:
            return self._by_keywords(member, running, value)
        fast = self._fast_verdicts()
        verdict = None if fast is None else fast.valid(member, value)
        if verdict is None:
            return None
        # Stopped early, only a subschema with nothing tracked below says nothing more.
        return verdict, (None if id(member) in self._leads else ())

    def _leaf(self, member: dict[str, JSON]) -> tuple[str, ...] | None:
        """The keywords ``member`` runs, when all of them look at the value alone."""
        running = self._keywords(member)
        return tuple(running) if all(k in LEAF_KEYWORDS for k in running) else None

    def _by_keywords(
        self, member: dict[str, JSON], running: tuple[str, ...], value: JSON
    ) -> _Check | None:
        """Each keyword's own function in turn: python-jsonschema's verdict, and the keywords
        ``is_valid`` runs (up to the first that yields an error)."""
        try:
            if self._checker is None:
                self._checker = self._class({})
            for index, keyword in enumerate(running):
                errors = self._functions[keyword](self._checker, member[keyword], value, member)
                if next(iter(errors or ()), None) is not None:
                    return False, tuple((id(member), k) for k in running[: index + 1])
        except Exception:  # an unknown type, a broken regex, the budget: evaluate for real
            return None
        return True, tuple((id(member), k) for k in running)

    def _fast_verdicts(self) -> _FastVerdicts | None:
        if not self._fast_built:
            self._fast, self._fast_built = _FastVerdicts.build(self._class, self._schema), True
        return self._fast


class _FastVerdicts:
    """The fast validator's verdicts on the subschemas of one trusted schema."""

    def __init__(self, schema: JSON) -> None:
        self._compiled = FastSubschemas(schema)
        self._places = schema_places(schema)
        self._validators: dict[int, Any] = {}

    @classmethod
    def build(cls, validator_class: Any, schema: JSON) -> _FastVerdicts | None:
        """None where the fast validator is not trusted with ``schema``, or where the tracking
        validator does not read it as the standard one does (a runtime model's own keywords)."""
        if not isinstance(schema, dict) or not _standard(validator_class, schema):
            return None
        return cls(schema) if trusted(schema) else None

    def valid(self, member: dict[str, JSON], value: JSON) -> bool | None:
        """Whether ``member`` accepts ``value``; None where the fast validator cannot say."""
        if id(member) not in self._validators:
            where = self._places.get(id(member))
            # Below patternProperties the fast validator's copy spells the names otherwise.
            plain = (
                where is not None
                and "patternProperties" not in where
                and _FRAGMENT.fullmatch(where) is not None
            )
            self._validators[id(member)] = (
                self._compiled.at(where) if where is not None and plain else None
            )
        validator = self._validators[id(member)]
        if validator is None:
            return None
        try:
            return bool(validator.is_valid(value))
        except Exception:  # a value the fast validator cannot take
            return None


def _standard(validator_class: Any, schema: dict[str, JSON]) -> bool:
    """Whether ``validator_class`` evaluates ``schema`` as its draft's validator does (perhaps
    within a time budget, which changes no verdict)."""
    base = VALIDATORS_BY_DRAFT[draft_of(schema)]
    return (
        set(validator_class.VALIDATORS) == set(base.VALIDATORS)
        and validator_class.TYPE_CHECKER is base.TYPE_CHECKER
        and validator_class._APPLICABLE_VALIDATORS is base._APPLICABLE_VALIDATORS
        and validator_class.META_SCHEMA.get("$schema") == base.META_SCHEMA.get("$schema")
    )


def _leads_to(value: JSON, leads: set[int]) -> bool:
    """Whether a keyword's value (a schema, a list or a map of them) leads to a tracked
    keyword: the map, like any object, is among ``leads`` when one of its members is."""
    members = value if isinstance(value, list) else [value]
    return any(isinstance(m, dict) and id(m) in leads for m in members)
