"""The tally's key texts are ``json.dumps``'s, with the encoders built once."""

from __future__ import annotations

import json

import pytest

from auditor.aggregate.json_keys import canonical_text, sorted_text, unicode_text

_VALUES: list[object] = [
    {"b": [1, 2.5, None], "a": {"é": "ü\u2028", "z": True}},
    ["kind", "naïve", False],
    "a string",
    float("inf"),
    [],
]


@pytest.mark.parametrize("value", _VALUES)
def test_each_encoder_writes_the_text_dumps_writes(value: object) -> None:
    assert unicode_text(value) == json.dumps(value, ensure_ascii=False)
    assert sorted_text(value) == json.dumps(value, ensure_ascii=False, sort_keys=True)
    assert canonical_text(value) == json.dumps(  # type: ignore[arg-type]
        value, ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )


def test_keys_are_sorted_and_text_is_kept_unescaped() -> None:
    assert sorted_text({"b": 1, "a": "é"}) == '{"a": "é", "b": 1}'
    assert unicode_text({"b": 1, "a": "é"}) == '{"b": 1, "a": "é"}'
    assert canonical_text({"b": [1, 2], "a": None}) == '{"a":null,"b":[1,2]}'
