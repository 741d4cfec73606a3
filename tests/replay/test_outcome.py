"""What ``decide`` makes of two verdicts: the errors a result keeps, by outcome."""

from __future__ import annotations

from auditor.models import (
    ACCEPTS,
    REJECTS,
    Call,
    Change,
    Evidence,
    Outcome,
    Rule,
    ValidationIssue,
    Verdict,
)
from auditor.replay.outcome import decide

RENAME = Change("/min_items", "min_items", "minItems", Rule.KEYWORD_CASE, "/minItems")
CAUSED = ValidationIssue("", "minItems", "/minItems", "[] is too short", (RENAME,))
UNCAUSED = ValidationIssue("/a", "type", "/properties/a/type", "1 is not of type 'string'")
CALL = Call("calls.jsonl:1", "t", {"a": 1})


def test_a_still_rejected_call_keeps_its_errors_without_causes() -> None:
    new = Verdict(False, (CAUSED, UNCAUSED))
    result = decide(CALL, REJECTS, new)
    assert result.outcome is Outcome.STILL_REJECTED
    assert [e.causes for e in result.errors] == [(), ()]
    assert [(e.keyword, e.schema_pointer, e.message) for e in result.errors] == [
        ("minItems", "/minItems", "[] is too short"),
        ("type", "/properties/a/type", "1 is not of type 'string'"),
    ]
    assert new.errors[0].causes == (RENAME,)  # the remembered verdict is left as it was


def test_errors_without_causes_are_kept_as_they_are() -> None:
    new = Verdict(False, (UNCAUSED,))
    assert decide(CALL, REJECTS, new).errors == (UNCAUSED,)


def test_a_newly_rejected_call_keeps_its_causes() -> None:
    result = decide(CALL, ACCEPTS, Verdict(False, (CAUSED,)))
    assert result.outcome is Outcome.NEWLY_REJECTED and result.errors == (CAUSED,)
    # The log shows the call refused before: rejected before too, so no cause.
    refused = Call("calls.jsonl:2", "t", {"a": 1}, evidence=Evidence.REFUSED)
    assert refused.evidence is not None and refused.evidence.strong
    shown = decide(refused, ACCEPTS, Verdict(False, (CAUSED,)))
    assert shown.outcome is Outcome.STILL_REJECTED and shown.errors[0].causes == ()


def test_accepted_calls_keep_no_errors() -> None:
    assert decide(CALL, ACCEPTS, ACCEPTS).errors == ()
    assert decide(CALL, REJECTS, ACCEPTS).outcome is Outcome.NEWLY_ACCEPTED
