"""The listed-call record as a line of a ``--scratch`` side file: every field written, read
back as written (types included), and anything else refused by what it is, never run."""

from __future__ import annotations

import re
from dataclasses import fields, replace

import orjson
import pytest

from auditor.engines.kept_codec import BY_JSON_MODULE, FIELDS, decode, encode
from auditor.models import (
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

CAUSE = Change(
    "/properties/tags/max_items",
    "max_items",
    "maxItems",
    Rule.KEYWORD_CASE,
    "/properties/tags/maxItems",
    Edit.REPLACE,
    "properties",
)
ISSUE = ValidationIssue(
    "/tags",
    "maxItems",
    "/properties/tags/maxItems",
    "['a', 'b', 'c'] is too long",
    causes=(CAUSE, replace(CAUSE, rule=Rule.EDIT, edit=Edit.ADD, entry_of="")),
    observed=(
        Observation("a list"),
        Observation("a value outside the enum", {"b": [1, 1.0, -0.0, None, True]}, True),
    ),
)
RESULT = CallResult(
    call=Call(
        source="calls.jsonl:12#choices[0].message.tool_calls[1]",
        tool="search",
        arguments={"z": 1, "a": [1.0, 2, 10**30, "é\u202e", {"": None}], "ok": False},
        unparsed=Unparsed("{not json", "Expecting value at column 1"),
        text='{"z": 1}',
        evidence=Evidence.RAN,
        caller="agent-7",
    ),
    outcome=Outcome.NEWLY_REJECTED,
    errors=(ISSUE, replace(ISSUE, causes=(), observed=())),
    schema_problem="cannot resolve $ref '#/x'",
    contradicts=True,
    over_budget=True,
)
"""Every field away from its default, and JSON values that an inexact codec would change:
1.0 against 1, -0.0, an integer past 64 bits, key order, tuples beside lists."""


def test_the_fields_written_are_every_field_of_the_records() -> None:
    # A field added to a record must be written too, or --scratch would drop it.
    for kind, names in FIELDS.items():
        assert names == tuple(field.name for field in fields(kind)), kind.__name__


@pytest.mark.parametrize(
    "result",
    [
        RESULT,
        CallResult(Call("calls.jsonl:1", None), Outcome.UNPARSEABLE),
        # A file name that is not UTF-8 reaches sources as a lone surrogate.
        CallResult(Call("caf\udce9.jsonl:3", "t", [1]), Outcome.UNKNOWN_TOOL),
    ],
    ids=["every field", "defaults", "not-UTF-8 file name"],
)
def test_a_record_reads_back_as_written(result: CallResult) -> None:
    line = encode(result)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    back = decode(line)
    # repr tells 1 from 1.0, a tuple from a list and an enum from its value; == does not.
    assert repr(back) == repr(result)
    assert back == result


def test_what_orjson_cannot_write_is_written_and_read_back_by_the_json_module() -> None:
    nested: list[object] = []
    deepest = nested
    for _ in range(300):  # orjson writes at most 255 levels
        deepest.append([])
        deepest = deepest[0]  # type: ignore[assignment]
    result = replace(RESULT, call=replace(RESULT.call, arguments=nested))  # type: ignore[arg-type]
    line = encode(result)
    assert line.startswith(BY_JSON_MODULE)
    assert repr(decode(line)) == repr(result)
    big = encode(replace(RESULT, call=replace(RESULT.call, arguments=2**64)))
    assert big.startswith(BY_JSON_MODULE)  # orjson would read it back as a float
    assert decode(big).call.arguments == 2**64
    assert not encode(replace(RESULT, call=replace(RESULT.call, arguments=2**63))).startswith(
        BY_JSON_MODULE
    )


def _line(record: object) -> bytes:
    return orjson.dumps(record) + b"\n"


def _written() -> dict[str, object]:
    record = orjson.loads(encode(RESULT))
    assert isinstance(record, dict)
    return record


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (b"\x80\x04\x95 a pickle\n", "not JSON"),
        (b"[]\n", "not a CallResult record"),
        (_line({**_written(), "extra": 1}), "not a CallResult record"),
        (_line({**_written(), "outcome": "gone"}), "outcome is not one of the Outcome values"),
        (_line({**_written(), "outcome": ["unhashable"]}), "outcome is not one of the Outcome"),
        (_line({**_written(), "contradicts": 1}), "contradicts is not true or false"),
        (_line({**_written(), "errors": {}}), "errors is not a list"),
        (_line({**_written(), "errors": [[]]}), "not a ValidationIssue record"),
        (_line({**_written(), "call": {"source": "x"}}), "not a Call record"),
        (b" [NaN]\n", "not JSON (NaN is not JSON)"),
        (b" " + b"[" * 100_000 + b"\n", "not JSON"),
    ],
)
def test_a_line_that_is_no_record_is_refused_by_what_it_is(line: bytes, said: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(said)):
        decode(line)


def test_each_field_is_checked_for_its_type() -> None:
    record = _written()
    call = record["call"]
    assert isinstance(call, dict)
    for name, wrong in [("source", 7), ("tool", []), ("evidence", "maybe")]:
        with pytest.raises(ValueError, match=f"^{name} is not"):
            decode(_line({**record, "call": {**call, name: wrong}}))
    errors = record["errors"]
    assert isinstance(errors, list)
    issue = errors[0]
    for name, wrong in [("message", None), ("causes", "x")]:
        with pytest.raises(ValueError, match=f"^{name} is not"):
            decode(_line({**record, "errors": [{**issue, name: wrong}]}))
    cause = {**issue["causes"][0], "rule": "no-such-rule"}
    with pytest.raises(ValueError, match=r"^rule is not one of the Rule values"):
        decode(_line({**record, "errors": [{**issue, "causes": [cause]}]}))
    seen = {**issue["observed"][0], "detail_is_value": "yes"}
    with pytest.raises(ValueError, match=r"^detail_is_value is not true or false"):
        decode(_line({**record, "errors": [{**issue, "observed": [seen]}]}))
    unparsed = {**call["unparsed"], "raw": 1}
    with pytest.raises(ValueError, match=r"^raw is not a string"):
        decode(_line({**record, "call": {**call, "unparsed": unparsed}}))
