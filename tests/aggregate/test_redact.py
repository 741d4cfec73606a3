"""What a report may show of a logged call: whole where nothing needs cutting (the very
records given, not copies), cut or masked where something does."""

from __future__ import annotations

from auditor.aggregate.redact import MAX_ITEMS, MAX_KEYS, Sanitizer
from auditor.models import JSON, Call, CallResult, Observation, Outcome, ValidationIssue

_LONG = "x" * 81  # one past the default limit of 80 characters
_CUT = "x" * 80 + "… (+1 chars)"


def _result(arguments: JSON, pointer: str = "/q", observed: JSON = "x") -> CallResult:
    issue = ValidationIssue(
        pointer,
        "maxLength",
        "/properties/q/maxLength",
        "'x' is too long",
        observed=(Observation("a value", observed, detail_is_value=True),),
    )
    call = Call("log:1", "search", arguments, caller="alice")
    return CallResult(call, Outcome.NEWLY_REJECTED, (issue,))


def test_a_value_with_nothing_to_cut_is_shown_as_it_is() -> None:
    value: JSON = {"q": "x" * 80, "tags": list(range(MAX_ITEMS)), "n": 1.5, "ok": None}
    assert Sanitizer().value(value) is value


def test_long_strings_keys_lists_and_objects_are_cut_however_deep() -> None:
    sanitizer = Sanitizer()
    assert sanitizer.value({"a": [{"b": _LONG}]}) == {"a": [{"b": _CUT}]}
    assert sanitizer.value({_LONG: 1}) == {_CUT: 1}
    assert sanitizer.value([[0] * (MAX_ITEMS + 2)]) == [[0] * MAX_ITEMS + ["<2 more items>"]]
    many: dict[str, JSON] = {f"k{i}": i for i in range(MAX_KEYS + 3)}
    shown = sanitizer.value({"o": many})
    assert isinstance(shown, dict) and isinstance(shown["o"], dict)
    assert len(shown["o"]) == MAX_KEYS + 1 and shown["o"]["…"] == "<3 more keys>"


def test_redaction_masks_even_a_value_with_nothing_to_cut() -> None:
    assert Sanitizer(redact=True).value({"q": "hi", "n": [1]}) == {
        "q": "<string, 2 chars>",
        "n": ["<number>"],
    }


def test_a_result_with_nothing_to_cut_is_the_record_given() -> None:
    result = _result({"q": "x"})
    assert Sanitizer().result(result) is result


def test_a_long_value_in_a_result_is_cut_in_its_arguments_and_its_error() -> None:
    result = _result({"q": _LONG}, observed=_LONG)
    shown = Sanitizer().result(result)
    assert shown.call.arguments == {"q": _CUT}
    assert shown.errors[0].observed[0].detail == _CUT
    assert shown.call.caller == "alice" and shown.errors[0].message == "'x' is too long"
    assert result.call.arguments == {"q": _LONG}  # the record given is left as it was


def test_a_long_key_in_an_errors_pointer_is_cut() -> None:
    result = _result({_LONG: "x"}, pointer="/" + _LONG)
    shown = Sanitizer().result(result)
    assert shown.errors[0].instance_pointer == "/" + _CUT
    assert shown.call.arguments == {_CUT: "x"}


def test_under_redaction_a_result_masks_its_values_and_its_caller() -> None:
    shown = Sanitizer(redact=True).result(_result({"q": "x"}))
    assert shown.call.arguments == {"q": "<string, 1 chars>"}
    assert shown.errors[0].observed[0].detail == "<string, 1 chars>"
    assert shown.call.caller is not None and shown.call.caller.startswith("caller-")
