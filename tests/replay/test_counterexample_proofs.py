"""The proofs behind a counterexample search's "none exists": a reference that resolves
nowhere on every way to the change, and members the old schema refused outright. Each proof
is tested where it holds and where one condition of it fails."""

from __future__ import annotations

from typing import Any

import pytest

from auditor.models import Change, CounterexampleStatus, Location, OldRuntime, ToolSchema
from auditor.replay.counterexamples import SearchBudget, counterexample, harmless, unevaluable
from auditor.replay.tool import ToolReplay
from auditor.schema.normalize import DEFAULT_RULES, normalize


def _replay(schema: dict[str, Any], old_runtime: OldRuntime = OldRuntime.LENIENT) -> ToolReplay:
    tool = ToolSchema("t", schema, Location("tools.json"), "", "mapping")
    return ToolReplay(tool, normalize(schema, DEFAULT_RULES), old_runtime=old_runtime)


def _rewrite(replay: ToolReplay, pointer: str) -> Change:
    return next(r for r in replay.normalized.rewrites if r.pointer == pointer)


def _blocked(schema: dict[str, Any], pointer: str) -> str | None:
    replay = _replay(schema)
    return unevaluable(replay.normalized.schema, _rewrite(replay, pointer))


NOWHERE: dict[str, Any] = {"$ref": "#/$defs/nowhere"}


def test_an_all_of_branch_that_resolves_nowhere_blocks_its_siblings() -> None:
    # allOf evaluates every branch: the reference is followed whenever maxLength is.
    schema = {"type": "object", "properties": {"a": {"allOf": [NOWHERE], "max_length": 2}}}
    reason = _blocked(schema, "/properties/a/max_length")
    assert reason is not None and "'/properties/a/allOf/0'" in reason
    # Without the branch, nothing blocks it.
    assert _blocked({"properties": {"a": {"max_length": 2}}}, "/properties/a/max_length") is None


def test_a_reference_beside_the_keyword_blocks_it() -> None:
    schema = {"properties": {"a": {"$ref": "#/$defs/nowhere", "max_length": 2}}}
    reason = _blocked(schema, "/properties/a/max_length")
    assert reason is not None and "\"#/$defs/nowhere\" at '/properties/a'" in reason


def test_a_reference_or_branch_after_the_way_is_no_proof() -> None:
    # Keywords are evaluated in order and errors yielded as found: the change's error comes
    # first, and the replay may stop collecting before the reference raises.
    after = {"properties": {"a": {"max_length": 2, "$ref": "#/$defs/nowhere"}}}
    assert _blocked(after, "/properties/a/max_length") is None
    after = {"properties": {"a": {"max_length": 2, "allOf": [NOWHERE]}}}
    assert _blocked(after, "/properties/a/max_length") is None
    # Within allOf, only the branches before the way's own are tried first.
    later = {"properties": {"a": {"all_of": [{"max_length": 2}, NOWHERE]}}}
    assert _blocked(later, "/properties/a/all_of/0/max_length") is None
    earlier = {"properties": {"a": {"all_of": [NOWHERE, {"max_length": 2}]}}}
    reason = _blocked(earlier, "/properties/a/all_of/1/max_length")
    assert reason is not None and "'/properties/a/allOf/0'" in reason


def test_keywords_named_like_combinators_are_names() -> None:
    # A property called "anyOf" whose value is a map with a dangling entry: no combinator.
    named = {
        "properties": {
            "anyOf": {"properties": {"0": NOWHERE, "1": {"max_length": 2}}},
        }
    }
    assert _blocked(named, "/properties/anyOf/properties/1/max_length") is None


def test_under_not_the_validator_stops_early_and_nothing_is_claimed() -> None:
    # A "not" evaluates its subschema only until the first error: the reference in the
    # sibling branch may never be followed, so no proof.
    under_not = {"properties": {"a": {"not": {"any_of": [{"max_length": 2}, NOWHERE]}}}}
    assert _blocked(under_not, "/properties/a/not/any_of/0/max_length") is None
    # The same without the "not": the sibling branch is tried whenever branch 0 fails.
    schema = {"properties": {"a": {"any_of": [{"max_length": 2}, NOWHERE]}}}
    assert _blocked(schema, "/properties/a/any_of/0/max_length") is not None


def test_a_definition_with_one_clean_way_in_is_searched() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "$defs": {"name": {"type": "string", "max_length": 3}},
        "properties": {
            "a": {"any_of": [{"$ref": "#/$defs/name"}, NOWHERE]},
            "b": {"$ref": "#/$defs/name"},
        },
    }
    assert _blocked(schema, "/$defs/name/max_length") is None
    # ... and through "b" the search finds one: "b" one past the bound.
    replay = _replay(schema)
    index = replay.normalized.rewrites.index(_rewrite(replay, "/$defs/name/max_length"))
    found = counterexample(replay, index, [("log:1", {"b": "ab"})], SearchBudget())
    assert found.status is CounterexampleStatus.FOUND
    assert found.arguments == {"b": "aaaa"}
    # With "b" gone, every way in passes the dangling branch.
    del schema["properties"]["b"]
    reason = _blocked(schema, "/$defs/name/max_length")
    assert reason is not None and "'/properties/a/anyOf/1'" in reason


TRAILERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "trailers": {
            "type": "object",
            "properties": {"note": {}},
            "pattern_properties": {"^[A-Z]": {"type": "string"}},
            "additionalProperties": False,
        }
    },
}


def test_pattern_properties_refused_before_is_harmless_only_where_something_refused() -> None:
    pointer = "/properties/trailers/pattern_properties"
    replay = _replay(TRAILERS)
    reason = harmless(replay, _rewrite(replay, pointer))
    assert reason is not None and "'additionalProperties: false'" in reason
    # With no old runtime nothing was refused before: no proof.
    replay = _replay(TRAILERS, OldRuntime.NONE)
    assert harmless(replay, _rewrite(replay, pointer)) is None


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        ({"additionalProperties": True}, "other keys passed before"),
        ({"properties": {"Note": {}}}, "an old property the pattern matches"),
        ({"pattern_properties": {"[": {"type": "string"}}}, "a pattern that does not compile"),
    ],
)
def test_pattern_properties_is_no_proof_when(edit: dict[str, Any], why: str) -> None:
    trailers = {**TRAILERS["properties"]["trailers"], **edit}
    schema = {**TRAILERS, "properties": {"trailers": trailers}}
    replay = _replay(schema)
    rewrite = next(r for r in replay.normalized.rewrites if r.pointer.endswith("_properties"))
    assert harmless(replay, rewrite) is None, why


def test_prefix_items_is_no_proof_where_old_items_allowed_some() -> None:
    r: dict[str, Any] = {"type": "array", "prefix_items": [{"type": "integer"}]}
    schema: dict[str, Any] = {"properties": {"r": r}}
    replay = _replay(schema)
    assert harmless(replay, _rewrite(replay, "/properties/r/prefix_items")) is None
    r["items"] = False
    replay = _replay(schema)
    reason = harmless(replay, _rewrite(replay, "/properties/r/prefix_items"))
    assert reason == "the old schema at '/properties/r' had 'items: false': only [] passed it"


def test_a_new_schema_unusable_for_every_call_says_so() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array", "max_items": "8"}}}
    replay = _replay(schema)
    found = counterexample(replay, 0, [], SearchBudget())
    assert found.status is CounterexampleStatus.UNUSABLE
    assert found.reason.startswith("the new schema cannot be used for any call (")


def _harmless(a: dict[str, Any], pointer: str, old_runtime: OldRuntime = OldRuntime.LENIENT) -> Any:
    replay = _replay({"type": "object", "properties": {"a": a}}, old_runtime)
    return harmless(replay, _rewrite(replay, "/properties/a/" + pointer))


def test_a_sibling_type_the_keyword_does_not_apply_to_makes_it_harmless() -> None:
    # Every value reaching minLength was an integer before: minLength asserts nothing of it.
    reason = _harmless({"type": "integer", "min_length": 2}, "min_length")
    assert reason == "the sibling 'type: \"integer\"' admits no value 'minLength' applies to"
    # A string may reach it: no proof.
    assert _harmless({"type": ["integer", "string"], "min_length": 2}, "min_length") is None
    # The type itself changed ("Integer" enforced nothing before): no proof.
    assert _harmless({"type": "Integer", "min_length": 2}, "min_length") is None
    # With no old runtime nothing was refused before.
    assert _harmless({"type": "integer", "min_length": 2}, "min_length", OldRuntime.NONE) is None


def test_a_sibling_enum_or_const_whose_values_all_pass_makes_it_harmless() -> None:
    reason = _harmless({"enum": ["ab", "abc"], "min_length": 2}, "min_length")
    assert reason == "the sibling 'enum' admits only values that pass it"
    reason = _harmless({"const": "xyz", "max_length": 3}, "max_length")
    assert reason == "the sibling 'const' admits only values that pass it"
    # "a" passed the enum before and fails minLength 2 now.
    assert _harmless({"enum": ["a", "abc"], "min_length": 2}, "min_length") is None
    # A reference in the changed keyword needs the rest of the schema: no proof attempted.
    changed = {"enum": [{}], "property_names": {"$ref": "#/properties/a"}}
    assert _harmless(changed, "property_names") is None
    # unevaluatedProperties depends on every sibling: none is tried alone.
    beside = {"enum": [{"x": 1}], "unevaluatedProperties": False, "properties": {"x": {}}}
    assert _harmless({**beside, "max_properties": 1}, "max_properties") is None
    assert _harmless({**beside, "max_properties": 0}, "max_properties") is None
    del beside["unevaluatedProperties"]
    assert _harmless({**beside, "max_properties": 1}, "max_properties") is not None


# Values of every JSON kind and a few lengths: what a branch's keywords could turn on.
VALUES: list[Any] = [
    None, True, 0, 3, -1, 2.5, "", "ab", "abcdef", [], [1], ["a", "b", "c", "d", "e"], {},
    {"k": 1},
]  # fmt: skip


@pytest.mark.parametrize(
    ("dialect", "keyword"),
    [("any_of", "anyOf"), ("one_of", "oneOf")],
)
def test_a_change_inside_a_respelled_any_of_is_counted_under_the_respelling(
    dialect: str, keyword: str
) -> None:
    branch = {"type": "String", "max_length": 4}
    schema = {"type": "object", "properties": {"note": {dialect: [branch, {"type": "null"}]}}}
    replay = _replay(schema)
    outer = _rewrite(replay, f"/properties/note/{dialect}")
    inner = [_rewrite(replay, f"/properties/note/{dialect}/0/{k}") for k in ("type", "max_length")]
    for rewrite in inner:
        reason = harmless(replay, rewrite)
        assert reason is not None and f"inside '{keyword}'" in reason
    assert harmless(replay, outer) is None
    # The proof's claim, checked on the verdicts: whatever the new schema rejects, the
    # respelling is named and neither inner change ever is.
    rejected = 0
    for value in VALUES:
        _, new = replay.verdicts({"note": value})
        causes = {c for issue in new.errors for c in issue.causes}
        if not new.accepts:
            rejected += 1
            assert outer in causes and not causes.intersection(inner), value
    assert rejected >= 5  # numbers, booleans, lists, objects, a long string


def test_the_proof_needs_the_applicator_respelled_and_nothing_leading_inside() -> None:
    # anyOf active already: its branch's `type: String` enforced nothing before (the branch
    # accepted everything, and so did anyOf) and is the cause after: a counterexample exists.
    active = {"type": "object", "properties": {"note": {"anyOf": [{"type": "String"}]}}}
    replay = _replay(active)
    rewrite = _rewrite(replay, "/properties/note/anyOf/0/type")
    assert harmless(replay, rewrite) is None
    found = counterexample(replay, replay.normalized.rewrites.index(rewrite), [], SearchBudget())
    assert found.status is CounterexampleStatus.FOUND

    # A $ref into the branch judges its keywords outside the respelled any_of: no proof, and
    # the branch's max_length alone rejects a long `other`.
    referenced = {
        "type": "object",
        "properties": {
            "note": {"any_of": [{"type": "string", "max_length": 2}, {"type": "null"}]},
            "other": {"$ref": "#/properties/note/any_of/0"},
        },
    }
    replay = _replay(referenced)
    rewrite = _rewrite(replay, "/properties/note/any_of/0/max_length")
    assert harmless(replay, rewrite) is None
    old, new = replay.verdicts({"other": "abc"})
    assert old is not None and old.accepts and not new.accepts
    assert [issue.causes for issue in new.errors] == [(rewrite,)]
