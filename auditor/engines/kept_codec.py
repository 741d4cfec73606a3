"""The listed-call record (``CallResult``) as one line of JSON, and back: what ``--scratch``
side files hold (``auditor.engines.kept``).

A side file is data, read back by the driver: decoding it builds records field by field,
each checked for its type, and runs nothing (a pickle, which side files used to be, runs
whatever its writer put in it). A line that is not a record written here is a ``ValueError``
saying why, never a half-built record.

Every field is written, so a record reads back equal to the one written: JSON values
(arguments, observed details) keep their types, key order, integers of any size and file
names that are not UTF-8 (lone surrogates); tuples come back as tuples, enums as enums.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import Enum
from typing import Final, TypeVar, cast

import orjson

from auditor.models import (
    JSON,
    Call,
    CallResult,
    Change,
    Edit,
    Evidence,
    Observation,
    Outcome,
    Rule,
    Unparsed,
    ValidationIssue,
)

FIELDS: Final[dict[type, tuple[str, ...]]] = {
    CallResult: ("call", "outcome", "errors", "schema_problem", "contradicts", "over_budget"),
    Call: ("source", "tool", "arguments", "unparsed", "text", "evidence", "caller"),
    Unparsed: ("raw", "reason"),
    ValidationIssue: (
        "instance_pointer",
        "keyword",
        "schema_pointer",
        "message",
        "causes",
        "observed",
    ),
    Change: ("pointer", "old", "new", "rule", "new_pointer", "edit", "entry_of"),
    Observation: ("kind", "detail", "detail_is_value"),
}
"""The fields written for each record, in the order they are declared (a test keeps them
equal to the dataclasses' own, so that a field added there is not dropped here)."""

BY_JSON_MODULE: Final = b" "
"""How a line that the json module wrote begins (JSON allows leading space). orjson writes
most lines, fast; what it cannot write (an integer past 64 bits, a lone surrogate, nesting
past 255 levels) the json module writes, and reads back exactly, where orjson would read a
large integer as a float."""

_E = TypeVar("_E", bound=Enum)
_T = TypeVar("_T")


def encode(result: CallResult) -> bytes:
    """``result`` as one line of JSON, newline included."""
    record = _result(result)
    try:
        return orjson.dumps(record) + b"\n"
    except (TypeError, orjson.JSONEncodeError):  # subclasses of one another, as versions go
        text = json.dumps(record, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
        return BY_JSON_MODULE + text.encode("ascii") + b"\n"


def decode(line: bytes) -> CallResult:
    """The record a line of ``encode`` holds; ``ValueError`` saying why for any other line."""
    try:
        if line.startswith(BY_JSON_MODULE):
            value = json.loads(line, parse_constant=_no_constant)
        else:
            value = orjson.loads(line)
    except (ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
        raise ValueError(f"not JSON ({' '.join(str(error).split())})") from None
    return _read_result(value)


def _result(result: CallResult) -> dict[str, object]:
    call = result.call
    return {
        "call": {
            "source": call.source,
            "tool": call.tool,
            "arguments": call.arguments,
            "unparsed": None
            if call.unparsed is None
            else {"raw": call.unparsed.raw, "reason": call.unparsed.reason},
            "text": call.text,
            "evidence": None if call.evidence is None else call.evidence.value,
            "caller": call.caller,
        },
        "outcome": result.outcome.value,
        "errors": [_issue(issue) for issue in result.errors],
        "schema_problem": result.schema_problem,
        "contradicts": result.contradicts,
        "over_budget": result.over_budget,
    }


def _issue(issue: ValidationIssue) -> dict[str, object]:
    return {
        "instance_pointer": issue.instance_pointer,
        "keyword": issue.keyword,
        "schema_pointer": issue.schema_pointer,
        "message": issue.message,
        "causes": [_rewrite(cause) for cause in issue.causes],
        "observed": [
            {"kind": seen.kind, "detail": seen.detail, "detail_is_value": seen.detail_is_value}
            for seen in issue.observed
        ],
    }


def _rewrite(rewrite: Change) -> dict[str, object]:
    return {
        "pointer": rewrite.pointer,
        "old": rewrite.old,
        "new": rewrite.new,
        "rule": rewrite.rule.value,
        "new_pointer": rewrite.new_pointer,
        "edit": rewrite.edit.value,
        "entry_of": rewrite.entry_of,
    }


def _read_result(value: object) -> CallResult:
    record = _fields(value, CallResult)
    return CallResult(
        call=_read_call(record["call"]),
        outcome=_enum(Outcome, record["outcome"], "outcome"),
        errors=_tuple(record["errors"], _read_issue, "errors"),
        schema_problem=_optional_text(record["schema_problem"], "schema_problem"),
        contradicts=_flag(record["contradicts"], "contradicts"),
        over_budget=_flag(record["over_budget"], "over_budget"),
    )


def _read_call(value: object) -> Call:
    record = _fields(value, Call)
    unparsed = record["unparsed"]
    evidence = record["evidence"]
    return Call(
        source=_text(record["source"], "source"),
        tool=_optional_text(record["tool"], "tool"),
        arguments=cast(JSON, record["arguments"]),  # decoded JSON: a JSON value by construction
        unparsed=None if unparsed is None else _read_unparsed(unparsed),
        text=_optional_text(record["text"], "text"),
        evidence=None if evidence is None else _enum(Evidence, evidence, "evidence"),
        caller=_optional_text(record["caller"], "caller"),
    )


def _read_unparsed(value: object) -> Unparsed:
    record = _fields(value, Unparsed)
    return Unparsed(_text(record["raw"], "raw"), _text(record["reason"], "reason"))


def _read_issue(value: object) -> ValidationIssue:
    record = _fields(value, ValidationIssue)
    return ValidationIssue(
        instance_pointer=_text(record["instance_pointer"], "instance_pointer"),
        keyword=_text(record["keyword"], "keyword"),
        schema_pointer=_text(record["schema_pointer"], "schema_pointer"),
        message=_text(record["message"], "message"),
        causes=_tuple(record["causes"], _read_rewrite, "causes"),
        observed=_tuple(record["observed"], _read_observation, "observed"),
    )


def _read_rewrite(value: object) -> Change:
    record = _fields(value, Change)
    return Change(
        pointer=_text(record["pointer"], "pointer"),
        old=_text(record["old"], "old"),
        new=_text(record["new"], "new"),
        rule=_enum(Rule, record["rule"], "rule"),
        new_pointer=_text(record["new_pointer"], "new_pointer"),
        edit=_enum(Edit, record["edit"], "edit"),
        entry_of=_text(record["entry_of"], "entry_of"),
    )


def _read_observation(value: object) -> Observation:
    record = _fields(value, Observation)
    return Observation(
        kind=_text(record["kind"], "kind"),
        detail=cast(JSON, record["detail"]),
        detail_is_value=_flag(record["detail_is_value"], "detail_is_value"),
    )


def _fields(value: object, kind: type) -> dict[str, object]:
    """``value`` as the object of a ``kind`` record: exactly its fields, in their order."""
    names = FIELDS[kind]
    if not isinstance(value, dict) or tuple(value) != names:
        raise ValueError(f"not a {kind.__name__} record")
    return cast(dict[str, object], value)


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} is not a string")
    return value


def _optional_text(value: object, name: str) -> str | None:
    return None if value is None else _text(value, name)


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} is not true or false")
    return value


def _enum(kind: type[_E], value: object, name: str) -> _E:
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"{name} is not one of the {kind.__name__} values") from None


def _tuple(value: object, read: Callable[[object], _T], name: str) -> tuple[_T, ...]:
    if not isinstance(value, list):
        raise ValueError(f"{name} is not a list")
    return tuple(read(item) for item in value)


def _no_constant(name: str) -> None:
    # NaN and Infinity are no JSON: no line written here holds them.
    raise ValueError(f"{name} is not JSON")
