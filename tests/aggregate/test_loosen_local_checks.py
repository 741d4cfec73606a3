"""A patch's whole-schema checks decided on the schema object it edits give the answers the
whole schema gives (``auditor.aggregate.local_checks``).

Each audit here runs twice: as it is, and with the local checks refusing to decide, so that
every patch is checked on the whole patched schema and normalized file, as before. The
patches must be the same, and the local checks must have decided most of them (else the
comparison proves nothing).
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.aggregate import local_checks, loosen
from auditor.aggregate.local_checks import (
    Usable,
    Whole,
    Written,
    alone_usable,
    normalizes_to,
    usable_after,
    values_in,
)
from auditor.aggregate.loosen import FileSide, ToolPatches, Witness, suggest
from auditor.aggregate.pipeline import ReportSettings
from auditor.api import replay
from auditor.inputs.limits import MAX_NESTING, MAX_SCHEMA_NODES
from auditor.models import (
    JSON,
    Call,
    Location,
    OldRuntime,
    PatchOp,
    PatchOperation,
    Report,
    Rule,
    SchemaPatch,
    ToolSchema,
)
from auditor.replay.tool import schema_problem
from auditor.request import AuditRequest, TheChange
from auditor.schema.jsonpatch import PatchError, apply_patch
from auditor.schema.keywords import Draft
from auditor.schema.normalize import DEFAULT_RULES, normalize
from tests.aggregate.test_loosen_cases import Calls
from tests.aggregate.test_loosen_properties import scenario
from tests.conftest import load_cases

DRAFT4 = "http://json-schema.org/draft-04/schema#"
DRAFT7 = "http://json-schema.org/draft-07/schema#"
DRAFT2019 = "https://json-schema.org/draft/2019-09/schema"

# (name, catalog schema, calls, rules, old runtime): groups the loosen cases do not have.
EXTRA: list[tuple[str, JSON, list[JSON], frozenset[Rule], OldRuntime]] = [
    (
        "draft-07 definitions reached by a reference",
        {
            "$schema": DRAFT7,
            "type": "object",
            "properties": {"a": {"$ref": "#/definitions/s"}},
            "definitions": {"s": {"type": "string", "max_length": 2}},
        },
        [{"a": "abcd"}],
        DEFAULT_RULES,
        OldRuntime.LENIENT,
    ),
    (
        "draft-04: an enum, a required list, a bound, nothing enforced before",
        {
            "$schema": DRAFT4,
            "type": "object",
            "properties": {
                "e": {"enum": ["a", "b"]},
                "o": {"type": "object", "required": ["x", "y"]},
                "n": {"type": "number", "maximum": 3},
            },
        },
        [{"e": "c", "o": {"x": 1}, "n": 5}, {"e": 1, "o": {}, "n": 4.5}],
        DEFAULT_RULES,
        OldRuntime.NONE,
    ),
    (
        "2019-09: $defs, an extra property of a closed object",
        {
            "$schema": DRAFT2019,
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/closed"}},
            "$defs": {
                "closed": {
                    "type": "object",
                    "properties": {"k": {"type": "string"}},
                    "additional_properties": False,
                }
            },
        },
        [{"a": {"k": "x", "extra": 1}}, {"a": {"k": "y", "other": "z"}}],
        DEFAULT_RULES,
        OldRuntime.LENIENT,
    ),
    (
        "OpenAPI: the file's exclusive bound does not normalize to the raised one",
        {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "maximum": 5, "exclusiveMaximum": True},
                "s": {"type": "string", "nullable": True, "max_length": 2},
            },
        },
        [{"n": 7, "s": "abcd"}, {"n": 9, "s": None}],
        frozenset({Rule.KEYWORD_CASE, Rule.OPENAPI}),
        OldRuntime.NONE,
    ),
    (
        "Gemini spellings: defs and ref renamed, the bound in a definition",
        {
            "type": "object",
            "properties": {"a": {"ref": "#/defs/s"}},
            "defs": {"s": {"type": "string", "maxLength": 2}},
        },
        [{"a": "abcdef"}],
        frozenset({Rule.GEMINI}),
        OldRuntime.LENIENT,
    ),
    (
        "a holder holding a reference, and one beside both spellings",
        {
            "type": "object",
            "properties": {
                "r": {"type": "string", "max_length": 2, "allOf": [{"$ref": "#/$defs/any"}]},
                "both": {"type": "string", "max_length": 1, "maxLength": 2},
            },
            "$defs": {"any": {}},
        },
        [{"r": "abcd", "both": "abc"}],
        DEFAULT_RULES,
        OldRuntime.NONE,
    ),
    (
        "a profile: strict mode reads each object's parent",
        {
            "type": "object",
            "properties": {"s": {"type": "string", "max_length": 2}},
            "required": ["s"],
        },
        [{"s": "abcd"}],
        frozenset({Rule.KEYWORD_CASE, Rule.OPENAI_STRICT}),
        OldRuntime.LENIENT,
    ),
    (
        "the root is the holder: additionalProperties and required",
        {
            "type": "object",
            "properties": {"k": {"type": "string"}},
            "required": ["k", "m"],
            "additional_properties": False,
        },
        [{"k": "x", "z": 1}, {"k": "y", "w": True}],
        DEFAULT_RULES,
        OldRuntime.NONE,
    ),
    (
        "type names and aliases rewritten beside the bound, an embedded resource",
        {
            "type": "OBJECT",
            "properties": {
                "a": {"type": "STRING", "max_length": 2},
                "b": {"type": "int", "maximum": 1},
                "c": {"$id": "https://example.com/c", "type": "string", "max_length": 1},
            },
        },
        [{"a": "abcd", "b": 3, "c": "xy"}],
        frozenset({Rule.KEYWORD_CASE, Rule.TYPE_CASE, Rule.TYPE_ALIAS}),
        OldRuntime.NONE,
    ),
]


def _loosen_cases() -> Iterator[tuple[str, JSON, list[JSON], frozenset[Rule], OldRuntime]]:
    for param in load_cases("loosen"):
        [case] = param.values
        rules = frozenset(Rule(r) for r in case["rules"]) if "rules" in case else DEFAULT_RULES
        runtime = OldRuntime(case.get("old_runtime", "lenient"))
        yield case["name"], case["schema"], case["calls"], rules, runtime


CASES = [*_loosen_cases(), *EXTRA]


def _audit(schema: JSON, calls: list[JSON], rules: frozenset[Rule], runtime: OldRuntime) -> Report:
    tool = ToolSchema("t", schema, Location("tools.json"), "", "mapping")
    stream = Calls([Call(f"calls.jsonl:{i}", "t", c) for i, c in enumerate(calls, 1)])
    settings = ReportSettings(old_runtime=runtime)
    return replay(
        [tool],
        stream,
        AuditRequest(change=TheChange(rules=rules)),
        ["tools.json"],
        settings=settings,
    )


Patches = list[tuple[str, SchemaPatch | None]]


def _patches(report: Report) -> Patches:
    return [(g.fingerprint, g.patch) for g in report.groups]


def _both_ways(
    monkeypatch: pytest.MonkeyPatch,
    schema: JSON,
    calls: list[JSON],
    rules: frozenset[Rule],
    runtime: OldRuntime,
) -> tuple[
    list[tuple[str, SchemaPatch | None]], list[tuple[str, SchemaPatch | None]], Counter[str]
]:
    """The patches with the local checks, the patches without them, and how often the local
    checks decided (``usable``, ``alone``, ``normalized True``, ``normalized False``)."""
    decided: Counter[str] = Counter()

    def counted(name: str, function: Any, undecided: object = None) -> Any:
        def run(*args: Any) -> Any:
            answer = function(*args)
            if answer is not undecided:
                decided[f"{name} {answer}" if name == "normalized" else name] += 1
            return answer

        return run

    with monkeypatch.context() as patched:
        patched.setattr(loosen, "usable_after", counted("usable", local_checks.usable_after))
        patched.setattr(loosen, "alone_usable", counted("alone", local_checks.alone_usable, False))
        patched.setattr(loosen, "normalizes_to", counted("normalized", local_checks.normalizes_to))
        local = _patches(_audit(schema, calls, rules, runtime))
    with monkeypatch.context() as patched:
        patched.setattr(loosen, "usable_after", lambda *_: None)
        patched.setattr(loosen, "alone_usable", lambda *_: False)
        patched.setattr(loosen, "normalizes_to", lambda *_: None)
        whole = _patches(_audit(schema, calls, rules, runtime))
    return local, whole, decided


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_patch_checked_on_its_holder_is_the_patch_checked_on_the_whole_schema(
    case: tuple[str, JSON, list[JSON], frozenset[Rule], OldRuntime],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, schema, calls, rules, runtime = case
    local, whole, _ = _both_ways(monkeypatch, schema, calls, rules, runtime)
    assert local == whole
    assert any(patch is not None for _, patch in local)


def test_the_local_checks_decide_most_patches_of_the_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without this, the comparison above could hold because nothing was decided locally.
    total: Counter[str] = Counter()
    for _, schema, calls, rules, runtime in CASES:
        _, _, decided = _both_ways(monkeypatch, schema, calls, rules, runtime)
        total.update(decided)
    assert total["usable"] >= 20 and total["alone"] >= 20, total
    # Both answers of the normalization come out locally: the OpenAPI case's exclusive bound
    # does not normalize back (the file keeps `maximum` beside it), its other bound does.
    assert total["normalized True"] >= 15 and total["normalized False"] >= 1, total


def test_generated_patches_are_the_same_checked_locally() -> None:
    counted = {"examples": 0, "decided locally": 0}

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(scenario())
    def check(drawn: tuple[str, Any, list[Any], list[Any]]) -> None:
        _, schema, calls, _ = drawn
        with pytest.MonkeyPatch.context() as monkeypatch:
            local, whole, decided = _both_ways(
                monkeypatch, schema, calls, DEFAULT_RULES, OldRuntime.NONE
            )
        assert local == whole
        counted["examples"] += 1
        counted["decided locally"] += bool(decided)

    check()
    # Where the local checks decide nothing, both audits run the same code and agree by
    # construction: some examples must have been decided locally for the comparison to test
    # them (measured: 39 of 150 derandomized, 10 to 56 in thirteen runs with random seeds).
    assert counted["examples"] >= 150, counted
    assert counted["decided locally"] * 30 >= counted["examples"], counted


# The meta-schema at a schema position: what usable_after shows must be what the whole
# patched schema's check says, for each draft, at each kind of position, for patched holders
# the meta-schema accepts and ones it refuses (the holder at "/h" of the root is replaced).
_POSITIONS: list[tuple[str, JSON]] = [
    ("/properties/h", {"type": "object", "properties": {"h": {}, "k": {"type": "string"}}}),
    ("/items", {"type": "array", "items": {}}),
    ("/allOf/1", {"allOf": [{"type": "object"}, {}]}),
    ("/definitions/h", {"definitions": {"h": {}, "other": {"type": "integer"}}}),
    ("/not", {"not": {}}),
    ("/additionalProperties", {"type": "object", "additionalProperties": {}}),
    ("/patternProperties/^x", {"patternProperties": {"^x": {}}}),
    ("/properties/p/properties/h", {"properties": {"p": {"properties": {"h": {}}}}}),
]
_HOLDERS: list[JSON] = [
    {"type": "string", "maxLength": 5},
    {"type": "string", "maxLength": -1},
    {"type": "string", "maxLength": 2.5},
    {"enum": ["a", "b", "a"]},
    {"enum": []},
    {"required": []},
    {"required": ["a", "a"]},
    {"type": "object", "properties": {"x": {"type": "strin"}}},
    {"type": "object", "properties": {"x": {"minimum": "0"}}},
    {"pattern": "("},
    {"pattern": "^a+$"},
    {"patternProperties": {"(": {}}},
    {"exclusiveMaximum": True},
    {"exclusiveMaximum": True, "maximum": 3},
    {"exclusiveMaximum": 3},
    {"$ref": "#/definitions/zzz", "type": "string"},
    {"additionalProperties": False, "properties": {"q": {"type": "integer"}}},
    {"dependentRequired": {"a": ["b"]}},
    {"minItems": 0, "uniqueItems": "yes"},
]
_DRAFTS = [None, DRAFT4, DRAFT7, DRAFT2019]


def _placed(base: JSON, at: str, holder: JSON, draft: str | None) -> JSON:
    """``base`` with ``holder`` at ``at``, declaring ``draft``."""
    declared = () if draft is None else (PatchOperation(PatchOp.ADD, "/$schema", draft),)
    return apply_patch(base, (*declared, PatchOperation(PatchOp.REPLACE, at, holder)))


@pytest.mark.parametrize("draft", _DRAFTS)
def test_a_holder_the_meta_schema_accepts_leaves_the_schema_usable(draft: str | None) -> None:
    shown = refused = 0
    for at, base in _POSITIONS:
        unpatched = _placed(base, at, {"type": "string"}, draft)
        whole = Whole(unpatched)
        assert whole.usable, (at, draft)
        for holder in _HOLDERS:
            patched = _placed(base, at, holder, draft)
            operations = (PatchOperation(PatchOp.REPLACE, at, holder),)
            decided = usable_after(whole, patched, operations, at)
            problem = schema_problem(patched)
            if decided is not None:
                assert problem is None, (at, holder, draft)
                assert decided.size == values_in(patched)
                shown += 1
            else:
                refused += problem is not None
    assert shown >= 40 and refused >= 40, (shown, refused)


def test_a_holder_off_the_schema_positions_is_left_to_the_whole_schema() -> None:
    # Under an enum (data, reached by a reference), a holder's patch is never shown usable
    # from the holder: the meta-schema does not check it as a schema there.
    schema: JSON = {"enum": [{"maxLength": 1}], "properties": {"a": {"$ref": "#/enum/0"}}}
    patched: JSON = {"enum": [{"maxLength": 2}], "properties": {"a": {"$ref": "#/enum/0"}}}
    operations = (PatchOperation(PatchOp.REPLACE, "/enum/0/maxLength", 2),)
    assert usable_after(Whole(schema), patched, operations, "/enum/0") is None
    # An operation outside the holder, or the root as holder: not decided locally either.
    inside: JSON = {"properties": {"a": {"maxLength": 2}}}
    whole = Whole({"properties": {"a": {"maxLength": 1}}})
    assert usable_after(whole, inside, operations, "/properties/a") is None
    root = (PatchOperation(PatchOp.REPLACE, "/maxLength", 2),)
    assert usable_after(Whole({"maxLength": 1}), {"maxLength": 2}, root, "") is None
    good = (PatchOperation(PatchOp.REPLACE, "/properties/a/maxLength", 2),)
    assert usable_after(whole, inside, good, "/properties/a") is not None


_DOCUMENT = st.recursive(
    st.one_of(st.none(), st.integers(-3, 3), st.text("ab", max_size=2)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
    ),
    max_leaves=12,
)
_PATH = st.lists(st.sampled_from(["a", "b", "c", "0", "1", "-"]), min_size=0, max_size=4).map(
    lambda segments: "".join("/" + s for s in segments)
)
_OPERATION = st.builds(PatchOperation, st.sampled_from(list(PatchOp)), _PATH, _DOCUMENT)


@settings(max_examples=400, deadline=None)
@given(_DOCUMENT, st.lists(_OPERATION, min_size=1, max_size=3))
def test_a_shared_patch_is_the_copied_patch_and_leaves_the_document_alone(
    document: JSON, operations: list[PatchOperation]
) -> None:
    before = json.dumps(document)
    try:
        copied: JSON = apply_patch(document, operations)
    except PatchError as error:
        with pytest.raises(PatchError, match=re.escape(str(error))):
            apply_patch(document, operations, share=True)
    else:
        assert apply_patch(document, operations, share=True) == copied
    assert json.dumps(document) == before


def _op(op: PatchOp, path: str, value: JSON = None) -> tuple[PatchOperation, ...]:
    return (PatchOperation(op, path, value),)


def test_what_the_holder_cannot_show_is_left_to_the_whole_schema() -> None:
    whole = Whole({"properties": {"a": {"maxLength": 1}}})
    # The holder replaced by a boolean schema, or nested past the bound: not shown here.
    assert (
        usable_after(
            whole,
            {"properties": {"a": True}},
            _op(PatchOp.REPLACE, "/properties/a", True),
            "/properties/a",
        )
        is None
    )
    deep: JSON = {}
    for _ in range(MAX_NESTING):
        deep = {"not": deep}
    patched: JSON = {"properties": {"a": deep}}
    assert (
        usable_after(whole, patched, _op(PatchOp.REPLACE, "/properties/a", deep), "/properties/a")
        is None
    )
    assert schema_problem(patched) is not None
    # An unusable schema shows nothing about its patches.
    broken = Whole({"type": "strin", "properties": {"a": {"maxLength": 1}}})
    good: JSON = {"type": "strin", "properties": {"a": {"maxLength": 2}}}
    assert (
        usable_after(
            broken, good, _op(PatchOp.REPLACE, "/properties/a/maxLength", 2), "/properties/a"
        )
        is None
    )


def test_definitions_that_cannot_stand_in_are_checked_again() -> None:
    shown = Usable(size=10)
    draft = Draft.DRAFT2020
    assert alone_usable({"maxLength": 2, "$defs": {"d": {"minimum": 1}}}, shown, draft)
    # A $defs that is not an object, a draft without the keyword with a list there.
    assert not alone_usable({"maxLength": 2, "$defs": [1]}, shown, draft)
    seven: dict[str, JSON] = {"$schema": DRAFT7, "maxLength": 2}
    assert not alone_usable({**seven, "$defs": [1]}, shown, Draft.DRAFT7)
    # In draft 7, $defs is no keyword: its members are data, checked by nothing.
    assert alone_usable({**seven, "$defs": {"d": 1}}, shown, Draft.DRAFT7)
    # Past the bounds of depth or size, and a refused keyword.
    deep: JSON = []
    for _ in range(MAX_NESTING):
        deep = [deep]
    assert not alone_usable({"enum": deep}, shown, draft)
    assert not alone_usable({"maxLength": 2}, Usable(size=MAX_SCHEMA_NODES), draft)
    assert not alone_usable({"maxLength": -2}, shown, draft)
    # The draft the alone schema declares is the one it is checked in.
    assert not alone_usable({"$schema": DRAFT4, "maxLength": 2}, shown, draft)


def _written(schema: JSON, rules: frozenset[Rule] = DEFAULT_RULES) -> tuple[Written, Whole]:
    new = normalize(schema, rules).schema
    return Written(schema, rules, new), Whole(new)


def test_an_edit_the_holder_cannot_decide_is_normalized_whole() -> None:
    schema: JSON = {"type": "object", "properties": {"a": {"type": "string", "max_length": 2}}}
    written, whole = _written(schema)
    new = whole.schema
    ops = _op(PatchOp.REPLACE, "/properties/a/maxLength", 3)
    file_ops = _op(PatchOp.REPLACE, "/properties/a/max_length", 3)
    edited, patched = apply_patch(schema, file_ops), apply_patch(new, ops)
    assert normalizes_to(written, whole, edited, file_ops, ops, "/properties/a", patched) is True
    # The new schema is not the file's normalization; the holder is not a schema object of
    # it; an operation outside the holder; a schema to compare with that is another one.
    other = Written(schema, DEFAULT_RULES, {"type": "object"})
    assert (
        normalizes_to(
            other, Whole(other.new_schema), edited, file_ops, ops, "/properties/a", patched
        )
        is None
    )
    assert (
        normalizes_to(
            written, Whole(copy.deepcopy(new)), edited, file_ops, ops, "/properties/a", patched
        )
        is None
    )
    assert normalizes_to(written, whole, edited, file_ops, ops, "/properties", patched) is None
    assert normalizes_to(written, whole, edited, file_ops, ops, "/properties/b", patched) is None
    # An edit that adds a key the normalization renames: the holder's renames differ.
    added = _op(PatchOp.ADD, "/properties/a/min_items", 1)
    again = apply_patch(schema, added)
    assert (
        normalizes_to(written, whole, again, added, added, "/properties/a", apply_patch(new, added))
        is None
    )
    assert normalize(again).schema != apply_patch(new, added)


def test_an_edit_nested_past_the_bound_or_on_a_deep_stack_is_normalized_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    schema: JSON = {"type": "object", "properties": {"a": {"type": "string", "max_length": 2}}}
    written, whole = _written(schema)
    deep: JSON = {}
    for _ in range(MAX_NESTING):
        deep = {"not": deep}
    ops = _op(PatchOp.ADD, "/properties/a/not", deep)
    edited = apply_patch(schema, ops)
    patched = apply_patch(whole.schema, ops)
    assert normalizes_to(written, whole, edited, ops, ops, "/properties/a", patched) is None
    shallow = _op(PatchOp.REPLACE, "/properties/a/maxLength", 3)
    file_ops = _op(PatchOp.REPLACE, "/properties/a/max_length", 3)
    edited, patched = apply_patch(schema, file_ops), apply_patch(whole.schema, shallow)

    def too_deep(*_: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(local_checks, "normalize", too_deep)
    assert (
        normalizes_to(written, whole, edited, file_ops, shallow, "/properties/a", patched) is None
    )


def test_a_patch_the_whole_schema_refuses_or_the_file_cannot_take_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    witness = Witness(longest=4, shortest=4)
    # The new schema already fails its meta-schema: so does the patched one.
    patch = suggest("maxLength", "/maxLength", {"maxLength": 1, "type": "strin"}, witness)
    assert patch.problem is not None
    assert patch.problem.startswith(
        "no single change makes every call of the group pass: the patched schema fails its "
        "meta-schema at '/type'"
    )
    # The catalog's schema is not the one patched: the edit does not apply to it.
    tool = ToolSchema("t", {}, Location("tools.json"), "", "mapping")
    patch = suggest("maxLength", "/maxLength", {"maxLength": 1}, witness, side=FileSide(tool))
    assert patch.problem is None and patch.summary == "raise maxLength 1 → 4"
    assert patch.file_problem == "the schema as written has nothing at /maxLength to edit"
    # Too deep to normalize on this stack: said so.
    monkeypatch.setattr(
        local_checks, "normalize", lambda *_: (_ for _ in ()).throw(RecursionError())
    )
    shared = ToolPatches({"maxLength": 1}, FileSide(tool, DEFAULT_RULES))
    assert shared.written is None and ToolPatches({"maxLength": 1}).written is None
    patch = suggest(
        "maxLength", "/maxLength", shared.new_schema, witness, side=shared.side, shared=shared
    )
    assert patch.file_problem == "the catalog's schema is too deep to map"
