"""Value zones decided by their subschemas' verdicts (``auditor.replay.zones``): below
``anyOf``, ``oneOf``, ``not`` and ``if``, which subschemas python-jsonschema evaluates, and
where one checked with ``is_valid`` stops, follow from the verdicts. The decided answer must
be the tracking evaluation's, zone for zone and call for call; the expected sets below are
read off ``jsonschema/_keywords.py`` and the schemas, and each is also checked against the
full tracking evaluation."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.models import JSON
from auditor.replay.coverage import CoverageTracker
from auditor.replay.fast_validator import schema_positions
from auditor.replay.tool import ToolReplay
from tests.replay.test_coverage_zones import KEYED, _replay, zoned_schemas
from tests.replay.test_fast_validator import INSTANCES
from tests.schema.test_normalize_properties import dialect


def _tracked(tracker: CoverageTracker, node: JSON, value: JSON) -> frozenset[int] | None:
    """The tracking evaluation of the zone ``node`` alone on ``value``; None if it raised."""
    tracker._visited = set()
    # The root as it is: evolved to a schema with $schema, the draft's own class tracks nothing.
    root = tracker._tracking is not None and node is tracker._tracking[1]
    validator = tracker._validator if root else tracker._validator.evolve(schema=node)
    try:
        for _ in validator.iter_errors(value):
            pass
    except Exception:
        return None
    return frozenset(i for site in tracker._visited for i in tracker._targets.get(site, ()))


def _decided(tracker: CoverageTracker, node: dict[str, JSON], value: JSON) -> Any:
    """The zone's answer from its decision (the walk below it, its nested zones decided or
    evaluated), the decision, or None where the verdicts do not decide it."""
    decided = tracker._decide(node, value)
    if decided is None:
        return None
    found: set[int] = set()
    texts: list[tuple[dict[str, JSON], JSON]] = []
    if not tracker._gather(value, (node, decided[0]), found, texts, frozenset()):
        return None
    for zone, part in texts:
        evaluated = _tracked(tracker, zone, part)
        if evaluated is None:
            return None
        found |= evaluated
    return frozenset(found), decided[0]


DRAFTS = {
    None: 400,  # 2020-12, the default
    "http://json-schema.org/draft-07/schema#": 150,  # $ref alone where it stands; if
    "https://json-schema.org/draft/2019-09/schema": 100,
}
"""Examples per ``$schema``: which keywords run, and in what order, differs by draft."""


@pytest.mark.parametrize("draft", list(DRAFTS))
def test_decided_zones_reach_what_their_tracking_evaluation_reaches(draft: str | None) -> None:
    seen = {"zones": 0, "decided": 0, "stopped": 0, "fast": 0, "raised": 0, "calls": 0}

    @settings(
        max_examples=DRAFTS[draft], deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(
        zoned_schemas,
        st.randoms(use_true_random=False),
        st.lists(KEYED | INSTANCES, min_size=2, max_size=6),
    )
    def agree(schema: Any, rng: random.Random, instances: list[Any]) -> None:
        if draft is not None and isinstance(schema, dict):
            schema = {"$schema": draft, **schema}
        replay = _replay(dialect(schema, rng))
        tracker = replay.coverage
        if tracker is None or not tracker.tracks or tracker._paths is None:
            return
        zoned = tracker._paths._zoned
        zones = [n for n in schema_positions(replay.normalized.schema) if id(n) in zoned]
        # Every zone on every value, not only the parts the calls lead to: more verdicts.
        for node in zones:
            for value in instances:
                seen["zones"] += 1
                decided = _decided(tracker, node, value)
                if decided is None:
                    continue
                evaluated = _tracked(tracker, node, value)
                if evaluated is None:  # the evaluation raised; the call's would too
                    seen["raised"] += 1
                    continue
                seen["decided"] += 1
                seen["stopped"] += bool(decided[1].sites)
                assert decided[0] == evaluated, (node, value)
        for instance in instances:
            seen["calls"] += 1
            assert tracker.reached(instance) == tracker.reached(instance, by_shape=False)
        fast = tracker._zones is not None and tracker._zones._fast is not None
        seen["fast"] += fast and bool(tracker._zones._fast._validators)  # type: ignore[union-attr]

    agree()
    # The comparisons are real: many zones are decided (about 30%: the others hold contains,
    # patternProperties, dependentSchemas...), some after a subschema stopped at its first
    # error, and some tools' zones needed the fast validator's verdicts.
    assert seen["decided"] >= 0.2 * seen["zones"], seen
    assert seen["stopped"] >= 0.03 * seen["decided"], seen
    if draft is None:  # the other drafts' examples rarely need it (the case below does)
        assert seen["fast"] >= 10, seen
    assert seen["raised"] <= 0.01 * seen["zones"], seen


def _pointers(replay: ToolReplay, instance: JSON) -> set[str]:
    """The constraint pointers ``instance`` reaches, after checking the answer against the
    full tracking evaluation (the schemas below have no rewrites)."""
    tracker = replay.coverage
    assert tracker is not None and not replay.normalized.rewrites
    reached = tracker.reached(instance)
    assert reached == tracker.reached(instance, by_shape=False), instance
    return {replay.constraints[i].pointer for i in reached}


def _no_zone_evaluated(replay: ToolReplay) -> bool:
    return replay.coverage is not None and not replay.coverage._zone_validators


def test_any_of_runs_its_branches_up_to_the_first_that_passes() -> None:
    replay = _replay({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]})
    any_of, kind, longest, null = "/anyOf", "/anyOf/0/type", "/anyOf/0/maxLength", "/anyOf/1/type"
    for _ in range(2):
        assert _pointers(replay, "ab") == {any_of, kind, longest}  # the first passes
        # A failing branch is evaluated in full: maxLength runs after type failed.
        assert _pointers(replay, None) == {any_of, kind, longest, null}  # only the second
        assert _pointers(replay, 5) == {any_of, kind, longest, null}  # none
        assert _pointers(replay, "abcd") == {any_of, kind, longest, null}
    assert _no_zone_evaluated(replay)


def test_one_of_checks_the_branches_after_the_first_passing_one_until_their_first_error() -> None:
    replay = _replay(
        {
            "oneOf": [
                {"type": "string"},
                {"maxLength": 2},
                {"type": "integer", "minimum": 0},
                {"minimum": 0, "type": "integer"},
            ]
        }
    )
    one_of, string, length = "/oneOf", "/oneOf/0/type", "/oneOf/1/maxLength"
    integer, least = "/oneOf/2/type", "/oneOf/2/minimum"
    least_first, integer_last = "/oneOf/3/minimum", "/oneOf/3/type"
    for _ in range(2):
        # "ab": the first passes; the second passes too (in full); the third stops at type;
        # the fourth's minimum ignores strings, then its type fails.
        assert _pointers(replay, "ab") == {
            one_of,
            string,
            length,
            integer,
            least_first,
            integer_last,
        }
        # 5: the first fails (in full), the second is the first to pass; the later two pass.
        assert _pointers(replay, 5) == {
            one_of,
            string,
            length,
            integer,
            least,
            least_first,
            integer_last,
        }
        # -1: the third stops at minimum, after type; the fourth stops at its minimum.
        assert _pointers(replay, -1) == {one_of, string, length, integer, least, least_first}
        # [1, 2, 3]: maxLength ignores lists, so the second passes; the third stops at type,
        # the fourth's minimum ignores lists, then its type fails.
        assert _pointers(replay, [1, 2, 3]) == {
            one_of,
            string,
            length,
            integer,
            least_first,
            integer_last,
        }
    assert _no_zone_evaluated(replay)
    replay = _replay({"oneOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]})
    for _ in range(2):  # none passes: each branch is evaluated in full
        assert _pointers(replay, None) == {
            "/oneOf",
            "/oneOf/0/type",
            "/oneOf/1/type",
            "/oneOf/1/minimum",
        }
        # Two pass: the second is checked with is_valid, and passes in full.
        assert _pointers(replay, 3) == {
            "/oneOf",
            "/oneOf/0/type",
            "/oneOf/1/type",
            "/oneOf/1/minimum",
        }
        assert _pointers(replay, "x") == {"/oneOf", "/oneOf/0/type", "/oneOf/1/type"}
    assert _no_zone_evaluated(replay)


def test_an_any_of_inside_an_any_of_is_decided_in_turn() -> None:
    replay = _replay({"anyOf": [{"anyOf": [{"const": "a"}, {"const": "b"}]}, {"type": "integer"}]})
    outer, inner, a, b, integer = (
        "/anyOf",
        "/anyOf/0/anyOf",
        "/anyOf/0/anyOf/0/const",
        "/anyOf/0/anyOf/1/const",
        "/anyOf/1/type",
    )
    for _ in range(2):
        assert _pointers(replay, "a") == {outer, inner, a}
        assert _pointers(replay, "b") == {outer, inner, a, b}
        assert _pointers(replay, 3) == {outer, inner, a, b, integer}
    assert _no_zone_evaluated(replay)


def test_const_enum_and_type_branches_compare_as_python_jsonschema_does() -> None:
    replay = _replay({"anyOf": [{"const": 1}, {"enum": ["x", True]}, {"type": "boolean"}]})
    any_of, one, listed, boolean = "/anyOf", "/anyOf/0/const", "/anyOf/1/enum", "/anyOf/2/type"
    for _ in range(2):
        assert _pointers(replay, 1) == {any_of, one}
        assert _pointers(replay, 1.0) == {any_of, one}  # 1.0 equals 1
        assert _pointers(replay, True) == {any_of, one, listed}  # True is not 1
        assert _pointers(replay, "x") == {any_of, one, listed}
        assert _pointers(replay, False) == {any_of, one, listed, boolean}
        assert _pointers(replay, None) == {any_of, one, listed, boolean}
    assert _no_zone_evaluated(replay)


def test_not_and_if_stop_their_subschema_at_its_first_error() -> None:
    replay = _replay(
        {
            "properties": {
                "n": {"not": {"type": "string", "maxLength": 2}},
                "m": {
                    "if": {"type": "integer", "minimum": 10},
                    "then": {"maximum": 20},
                    "else": {"minLength": 1},
                },
            }
        }
    )
    never = "/properties/n/not"
    string, length = "/properties/n/not/type", "/properties/n/not/maxLength"
    for _ in range(2):
        assert _pointers(replay, {"n": 5}) == {never, string}  # type failed: no maxLength
        assert _pointers(replay, {"n": "abc"}) == {never, string, length}
        assert _pointers(replay, {"n": "ab"}) == {never, string, length}  # passed: in full
    integer, least = "/properties/m/if/type", "/properties/m/if/minimum"
    most, length = "/properties/m/then/maximum", "/properties/m/else/minLength"
    for _ in range(2):
        assert _pointers(replay, {"m": 15}) == {integer, least, most}
        assert _pointers(replay, {"m": 5}) == {integer, least, length}
        assert _pointers(replay, {"m": "x"}) == {integer, length}
    assert _no_zone_evaluated(replay)


@pytest.mark.parametrize(
    "draft",
    [
        None,
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2019-09/schema",
    ],
)
def test_a_branch_of_other_keywords_is_judged_by_the_fast_validator(draft: str | None) -> None:
    schema: dict[str, JSON] = {
        "properties": {
            "filter": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {"a": {"maxLength": 1}},
                        "required": ["a"],
                    },
                    {"type": "null"},
                ]
            }
        }
    }
    if draft is not None:
        schema["$schema"] = draft
    replay = _replay(schema)
    any_of, null = "/properties/filter/anyOf", "/properties/filter/anyOf/1/type"
    kind, required = "/properties/filter/anyOf/0/type", "/properties/filter/anyOf/0/required"
    a = "/properties/filter/anyOf/0/properties/a/maxLength"
    for _ in range(2):
        assert _pointers(replay, {"filter": {"a": "x"}}) == {any_of, kind, required, a}
        assert _pointers(replay, {"filter": {"b": 1}}) == {any_of, kind, required, null}
        assert _pointers(replay, {"filter": None}) == {any_of, kind, required, null}
    assert _no_zone_evaluated(replay)
    assert replay.coverage is not None and replay.coverage._zones is not None
    fast = replay.coverage._zones._fast
    assert fast is not None and fast._validators


def test_where_no_verdict_can_be_had_the_tracking_evaluation_answers() -> None:
    # The fast validator is not trusted with a Unicode class (\d): the object branch cannot
    # be judged, and the zone is evaluated as before; so is a subschema checked with
    # is_valid whose failure stops below it, where keywords are tracked.
    untrusted: JSON = {
        "properties": {
            "filter": {
                "anyOf": [
                    {"type": "object", "properties": {"a": {"pattern": "\\d"}}},
                    {"type": "null"},
                ]
            }
        }
    }
    replay = _replay(untrusted)
    any_of, kind = "/properties/filter/anyOf", "/properties/filter/anyOf/0/type"
    digits, null = (
        "/properties/filter/anyOf/0/properties/a/pattern",
        "/properties/filter/anyOf/1/type",
    )
    assert _pointers(replay, {"filter": {"a": "1"}}) == {any_of, kind, digits}
    assert _pointers(replay, {"filter": 3}) == {any_of, kind, null}
    assert not _no_zone_evaluated(replay)
    below: JSON = {"properties": {"n": {"not": {"properties": {"a": {"maxLength": 1}}}}}}
    replay = _replay(below)
    assert _pointers(replay, {"n": {"a": "xy"}}) == {
        "/properties/n/not",
        "/properties/n/not/properties/a/maxLength",
    }
    assert not _no_zone_evaluated(replay)
