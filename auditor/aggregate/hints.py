"""Decision hints: loosen the schema, or fix the callers? Read off the logged evidence.

A hint is ``Prose``: auditor's wording with the data in pieces of their own (names and values
as code, a schema problem as text), which each renderer writes for its format
(``auditor.report.prose``); nothing here knows a format.

The share of a tool's calls that fail one constraint is the signal. A constraint that most
real calls break describes a contract nobody follows; one that a handful break is catching
the bugs it was written for. The thresholds are explicit so that a reviewer can argue with them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection
from typing import Final

from auditor import pointers
from auditor.aggregate.json_keys import sorted_text
from auditor.models import (
    JSON,
    RULE_FAMILIES,
    DecisionHint,
    Edit,
    HintKind,
    Observation,
    Outcome,
    Prose,
    Rule,
    Span,
)
from auditor.replay.observed import shape_kind
from auditor.schema.normalize import normalize
from auditor.words import plural

code = Span.code

LOOSEN_SHARE: Final = 0.5
"""At least half of the tool's calls fail: the callers, not the schema, define the contract in
practice, so enforcing the constraint would break the common case."""
CALLER_BUG_SHARE: Final = 0.1
"""At most one call in ten fails: the constraint matches what callers usually send, and the
exceptions look like the mistakes it exists to catch."""
MIN_CALLS: Final = 5
"""Below this many logged calls of a tool, a share says nothing either way."""
EMPTY_VALUES: Final = frozenset({"an empty string", "an empty list", "an empty object"})
"""What a caller sends by mistake (``sql: ""``) to a constraint that asks for content."""
ASKS_FOR_CONTENT: Final = frozenset({"minLength", "minItems", "minProperties", "pattern"})
"""Keywords an empty value fails because it is empty."""


def describe(observation: Observation) -> Prose:
    """``an empty list``, ``extra property `currency```, ``a value outside the enum
    `"economy"``` (the detail as code)."""
    if observation.detail is None and not observation.detail_is_value:
        return Prose.of(observation.kind)
    detail = json.dumps(observation.detail, ensure_ascii=False)
    if not observation.detail_is_value and isinstance(observation.detail, str):
        detail = observation.detail
    return Prose.of(f"{observation.kind} ", code(detail))


def observation_key(observation: Observation) -> str:
    """A hashable, deterministic key for counting observations across calls."""
    detail: JSON = observation.detail
    return sorted_text([observation.kind, detail, observation.detail_is_value])


def hint(
    outcome: Outcome,
    tool: str,
    keyword: str,
    schema_pointer: str,
    count: int,
    tool_calls: int,
    observed: Counter[str],
    problem: str,
) -> DecisionHint:
    """The hint for one group; ``observed`` counts calls per ``observation_key``."""
    if not keyword:
        return _without_error(outcome, problem)
    verb = "fails" if count == 1 else "fail"
    what = Prose.of(
        f"{count:,} of {plural(tool_calls, 'call')} of ",
        code(tool),
        f" {verb} ",
        code(keyword),
        _evidence(count, observed),
    )
    share = count / tool_calls
    enough = tool_calls >= MIN_CALLS
    if enough and share >= LOOSEN_SHARE:
        return DecisionHint(
            HintKind.LOOSEN_SCHEMA,
            Prose.of(
                what,
                ": the constraint contradicts real use; consider removing or loosening ",
                code(keyword),
                " at ",
                code(schema_pointer),
                ".",
            ),
        )
    if enough and share <= CALLER_BUG_SHARE:
        return DecisionHint(
            HintKind.FIX_CALLERS,
            Prose.of(what, ": likely caller bugs; keep ", code(keyword), " and fix the callers."),
        )
    if share < LOOSEN_SHARE and _sent_empty(keyword, count, observed):
        # Whatever the sample size: an empty value where content is asked for is no contract
        # anyone meant, when most calls of the tool meet the constraint.
        return DecisionHint(
            HintKind.FIX_CALLERS,
            Prose.of(
                what,
                ": an empty value where the schema asks for content, while most calls meet it; "
                "keep ",
                code(keyword),
                " and fix the callers.",
            ),
        )
    if not enough:
        return DecisionHint(
            HintKind.REVIEW,
            Prose.of(
                what,
                ": too few calls of the tool were logged to tell a contract that contradicts "
                "real use from caller bugs.",
            ),
        )
    return DecisionHint(
        HintKind.REVIEW,
        Prose.of(
            what,
            ": neither rare nor the norm; check whether ",
            code(keyword),
            " states the intended contract before choosing.",
        ),
    )


def contradiction_hint(tool: str, keyword: str, schema_pointer: str, count: int) -> DecisionHint:
    """The hint for calls the log contradicts (``Group.contradicted``): what the contradiction
    is, and what the upgrade must change for the calls to fail."""
    calls = "this call" if count == 1 else f"these {count:,} calls"
    them = "it" if count == 1 else "them"
    return DecisionHint(
        HintKind.REVIEW,
        Prose.of(
            f"The log shows {calls} of ",
            code(tool),
            f" ran, yet the schema rejects {them} at ",
            code(keyword),
            " (",
            code(schema_pointer or "/"),
            "), where no change of this upgrade made the error possible: the old runtime did "
            "not enforce ",
            code(keyword),
            f", against the old-runtime model (which rejects {them} before the upgrade too). "
            f"The upgrade fails {them} only if it starts enforcing ",
            code(keyword),
            ": a contradiction, not a regression, which only --fail-on any-change fails on.",
        ),
    )


def removed_tool_hint(tool: str, count: int) -> DecisionHint:
    """The hint for calls of a tool the new catalogs no longer define."""
    return DecisionHint(
        HintKind.REVIEW,
        Prose.of(
            code(tool),
            f" is not in the new catalogs, and the log holds {plural(count, 'call')} of it: "
            "keep the tool (or an alias) until its callers have moved to its replacement.",
        ),
    )


def _evidence(count: int, observed: Counter[str]) -> Prose:
    if not observed:
        return Prose()
    key, seen = min(observed.items(), key=lambda item: (-item[1], item[0]))
    kind, detail, is_value = json.loads(key)
    who = ("it" if count == 1 else "all") if seen >= count else f"{seen:,} of them"
    if kind == "nearest branch":
        return Prose.of(f"; {who} came nearest to ", code(str(detail)))
    return Prose.of(f"; {who} sent ", describe(Observation(kind, detail, is_value)))


def _sent_empty(keyword: str, count: int, observed: Counter[str]) -> bool:
    """Whether every failing call sent an empty value to a keyword that asks for content."""
    if keyword not in ASKS_FOR_CONTENT or not observed:
        return False
    kinds = {json.loads(key)[0] for key in observed}
    return kinds <= EMPTY_VALUES and sum(observed.values()) >= count


def _without_error(outcome: Outcome, problem: str) -> DecisionHint:
    if outcome is Outcome.SCHEMA_ERROR_AFTER:
        return DecisionHint(
            HintKind.FIX_SCHEMA,
            Prose.of(
                "These calls will fail after the change: the new schema cannot be used (",
                Span.data(problem),
                "); fix the schema before upgrading.",
            ),
        )
    if outcome is Outcome.SCHEMA_ERROR_BEFORE:
        return DecisionHint(
            HintKind.REVIEW,
            Prose.of(
                "The schema as written could not be used (",
                Span.data(problem),
                "); the new schema accepts these calls, so they were never checked before and "
                "pass now.",
            ),
        )
    return DecisionHint(
        HintKind.REVIEW,
        Prose.of(
            "Rejected before and accepted after: the change widened what the schema allows; "
            "check that nothing relied on the rejection.",
        ),
    )


NULLABLE_READERS: Final = frozenset(
    {Rule.OPENAPI, Rule.GOOGLE_GENAI, Rule.GOOGLE_GENAI_RESPONSE_SCHEMA}
)
"""The rule families that read OpenAPI's ``nullable: true`` as ``null`` allowed
(``auditor.schema.normalize``, the google-genai profiles)."""
SHOWN_ALIASES: Final = 3
"""Type names a type-alias tip shows; the others are counted."""


def rules_option(rules: Collection[Rule], added: Rule | None = None) -> str:
    """``--rules keyword-case,type-case,openapi``: the audit's rules (with ``added``)."""
    chosen = set(rules) | ({added} if added is not None else set())
    return "--rules " + ",".join(rule.value for rule in RULE_FAMILIES if rule in chosen)


def nullable_tip(
    keyword: str,
    schema_pointer: str,
    new_schema: JSON,
    observed: Counter[str],
    rules: Collection[Rule],
    profile: Rule | None = None,
) -> tuple[Rule, Prose] | None:
    """For a group failing ``type`` where the failing schema says ``nullable: true`` and the
    calls sent ``null``: the rule family that reads it (``profile``, the one the catalog's
    shape implies, when that is google-genai; else ``openapi``); None when one already runs."""
    if keyword != "type" or NULLABLE_READERS & set(rules):
        return None
    holder_pointer = pointers.parent(schema_pointer)
    _, holder = pointers.resolve(new_schema, holder_pointer)
    if not isinstance(holder, dict) or holder.get("nullable") is not True:
        return None
    if not any(json.loads(key)[0] == shape_kind(None) for key in observed):
        return None
    rule = Rule.GOOGLE_GENAI if profile is Rule.GOOGLE_GENAI else Rule.OPENAPI
    return rule, Prose.of(
        "But ",
        code("nullable: true"),
        " stands beside ",
        code("type"),
        " at ",
        code(holder_pointer or "/"),
        ": OpenAPI's way to allow ",
        code("null"),
        f", which JSON Schema ignores; where the runtime reads it, as {_READERS[rule]} does, "
        "audit with ",
        code(rules_option(rules, rule)),
        ".",
    )


_READERS: Final = {Rule.OPENAPI: "OpenAPI 3.0", Rule.GOOGLE_GENAI: "google-genai's types.Schema"}


def type_alias_tip(old_schema: JSON, rules: Collection[Rule]) -> Prose | None:
    """For a group of a tool whose schema names types by a programming language's names
    (``dict``, ``float``, ``any``: the names ``--rules type-alias`` rewrites, found by
    normalizing with it): the rule to audit with; None when it already runs or none is
    named."""
    if Rule.TYPE_ALIAS in rules:
        return None
    try:
        rewrites = normalize(old_schema, set(rules) | {Rule.TYPE_ALIAS}).rewrites
    except RecursionError:  # too deep to walk: the schema's problem says so already
        return None
    aliases = [r for r in rewrites if r.rule is Rule.TYPE_ALIAS]
    if not aliases:
        return None
    shown: list[Prose] = []
    for rewrite in aliases[:SHOWN_ALIASES]:
        _, name = pointers.resolve(old_schema, rewrite.pointer)
        written = name if isinstance(name, str) else json.dumps(name, ensure_ascii=False)
        after = Prose.of(" → ", code(rewrite.new)) if rewrite.edit is Edit.REPLACE else None
        shown.append(Prose.of(code(written), after or Prose.of(" → no ", code("type"))))
    more = len(aliases) - SHOWN_ALIASES
    listed = Prose.of(*_joined(shown), f" and {more:,} more" if more > 0 else "")
    return Prose.of(
        "The schema names types as a programming language does (",
        listed,
        "), which are no JSON types: audit with ",
        code(rules_option(rules, Rule.TYPE_ALIAS)),
        ", which rewrites them as the JSON types they mean.",
    )


def _joined(parts: list[Prose]) -> list[Prose | str]:
    joined: list[Prose | str] = []
    for index, part in enumerate(parts):
        if index:
            joined.append(", ")
        joined.append(part)
    return joined
