"""The outcome of a call from its two verdicts, and what the log's evidence changes.

Pure and small on purpose: the order of the outcomes (docs/architecture.md) lives in
``classify`` alone, and the tests hold it to a truth table.
"""

from __future__ import annotations

from dataclasses import replace

from auditor.models import (
    ACCEPTS,
    REJECTS,
    Call,
    CallResult,
    Evidence,
    Outcome,
    ValidationIssue,
    Verdict,
)


def classify(old: Verdict | None, new: Verdict) -> Outcome:
    """The outcome of a replayed call (its tool is known and its arguments parsed).

    ``old`` is None only when it was not needed: the new schema could not be used.
    """
    if not new.usable:
        return Outcome.SCHEMA_ERROR_AFTER
    if old is None or not old.usable:
        return Outcome.SCHEMA_ERROR_BEFORE
    if old.accepts:
        return Outcome.ACCEPTED if new.accepts else Outcome.NEWLY_REJECTED
    return Outcome.NEWLY_ACCEPTED if new.accepts else Outcome.STILL_REJECTED


def passed(verdict: Verdict) -> bool:
    """Whether a runtime with this verdict let the call through to the tool."""
    return verdict.usable and verdict.accepts


def decide(call: Call, old: Verdict | None, new: Verdict) -> CallResult:
    """The call's result: its old-runtime verdict, overridden where the log shows what
    happened (strong evidence only), then classified."""
    contradicts = False
    over_budget = new.over_budget or (old is not None and old.over_budget)
    if call.evidence is not None and call.evidence.strong and new.usable:
        shown = ACCEPTS if call.evidence is Evidence.RAN else REJECTS
        contradicts = old is not None and passed(old) != shown.accepts
        old = shown
    outcome = classify(old, new)
    errors = new.errors
    if outcome is Outcome.STILL_REJECTED:
        # Rejected before too: no change made these errors possible. An error with no cause
        # is kept as it is (a tool whose schema did not change has no cause at all).
        if any(e.causes for e in errors):
            errors = tuple(replace(e, causes=()) if e.causes else e for e in errors)
    elif outcome in (Outcome.ACCEPTED, Outcome.NEWLY_ACCEPTED, Outcome.SCHEMA_ERROR_AFTER):
        errors = ()
    problem = (
        new.problem
        if outcome is Outcome.SCHEMA_ERROR_AFTER
        else old.problem
        if outcome is Outcome.SCHEMA_ERROR_BEFORE and old is not None
        else None
    )
    return CallResult(call, outcome, errors, problem, contradicts, over_budget)


def contradicted(result: CallResult, issue: ValidationIssue) -> bool:
    """Whether ``issue``, an error of ``result``, is the log's contradiction of the model
    rather than a regression: the call is newly rejected only because the log shows it ran
    although the old-runtime model rejects it, and no change made the error possible (it has
    no cause). The schema asked for it before and the old runtime did not enforce it: the
    change fails the call only if the new runtime starts enforcing the keyword."""
    return (
        result.outcome is Outcome.NEWLY_REJECTED
        and result.contradicts
        and result.call.evidence is Evidence.RAN
        and not issue.causes
    )
