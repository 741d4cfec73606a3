"""The observations of a failing ``uniqueItems``: which items are duplicated."""

from __future__ import annotations

from typing import Any

from auditor.models import Observation
from auditor.replay.observed import observe
from auditor.replay.tool import VALIDATORS
from auditor.schema.keywords import Draft
from tests.conftest import cpu_seconds, seconds


def _observed(items: list[Any]) -> tuple[Observation, ...]:
    validator = VALIDATORS[Draft.DRAFT2020]({"uniqueItems": True})
    (error,) = validator.iter_errors(items)
    return observe(error)


def test_duplicates_are_named_once_in_the_order_of_their_second_sight() -> None:
    # 1.0 equals 1 and {"x": 1.0} equals {"x": 1}, as JSON Schema compares them; true does
    # not equal 1. Each is named as first logged.
    items = ["a", 1, True, 2, 1.0, {"x": 1}, "a", {"x": 1.0}, 1, True, "a"]
    assert [(o.kind, o.detail) for o in _observed(items)] == [
        ("duplicate item", 1),
        ("duplicate item", "a"),
        ("duplicate item", {"x": 1}),
        ("duplicate item", True),
    ]


def test_lists_equal_as_json_schema_compares_them_are_duplicates() -> None:
    assert [(o.kind, o.detail) for o in _observed([[1], [1.0]])] == [("duplicate item", [1])]


def test_a_long_logged_array_is_observed_in_linear_time() -> None:
    # 200,000 distinct items and one repeat: comparing each with every earlier one took
    # minutes (and no call budget bounds describing an error).
    items: list[Any] = [*range(200_000), 0]
    started = cpu_seconds()
    assert [(o.kind, o.detail) for o in _observed(items)] == [("duplicate item", 0)]
    assert cpu_seconds() - started < seconds(5.0)
