"""Differential tests: the lenient old side compiled for jsonschema-rs gives the reference
lenient model's verdict, accepting and rejecting alike, wherever it gives one.

The reference is the lenient model as replay runs it without the fast validator: the old
schema read leniently (``read_leniently``), evaluated by python-jsonschema whose keywords
enforce nothing where they raise (``tolerant``, budgeted as replay builds it). Schemas are
generated in the dialects real catalogs are written in (snake_case keywords, type names in any
case, ``nullable``), of drafts 4, 7, 2019-09 and 2020-12, with applicators, local, dangling and
remote ``$ref``s, regexes Python cannot compile and ones the reference refuses to expand; the
compiled path must be reached for a good share of them, or a compiler that declines
everything would pass.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.models import JSON, Call, Location, Outcome, ToolSchema
from auditor.replay.budget import CallBudget
from auditor.replay.lenient_fast import (
    COMPILED,
    JOINED_REGEX,
    NOT_TRUSTED,
    UNEVALUATED_REGEX,
    compile_lenient,
)
from auditor.replay.tool import OLD_VERDICTS, ToolReplay, _compile_tolerant, _read_leniently
from auditor.schema.normalize import DEFAULT_RULES, normalize

DRAFTS = [
    None,  # 2020-12, the default
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
]
HUGE = "^(?:a{400}){400}$"
"""Python compiles it (the meta-schema passes it); the reference refuses to expand it."""
PATTERNS = [
    "^[a-z]+$",
    "^ab$",  # Python's $ also matches before a final newline
    "a|b$",
    "^[A-Z]{2}-[0-9]{1,3}$",
    "(",  # Python cannot compile it: the meta-schema's format: regex fails it
    "[a-",
    HUGE,
    "^\\w+$",  # Unicode classes: not trusted to the fast validator
]
TYPE_NAMES = ["string", "String", "STRING", "integer", "Integer", "number", "NUMBER", "int"]
TYPE_NAMES += ["object", "Object", "array", "ARRAY", "boolean", "null", "Null", "float"]
KEYS = ["a", "b", "ab", "id", "x_1", "ab\n"]
SPELLINGS = {
    "minLength": ["minLength", "min_length"],
    "maxLength": ["maxLength", "max_length"],
    "minItems": ["minItems", "min_items"],
    "maxItems": ["maxItems", "max_items"],
    "uniqueItems": ["uniqueItems", "unique_items"],
    "minimum": ["minimum"],
    "maximum": ["maximum"],
    "multipleOf": ["multipleOf", "multiple_of"],
    "anyOf": ["anyOf", "any_of"],
    "oneOf": ["oneOf", "one_of"],
    "allOf": ["allOf", "all_of"],
    "additionalProperties": ["additionalProperties", "additional_properties"],
    "patternProperties": ["patternProperties", "pattern_properties"],
    "propertyNames": ["propertyNames", "property_names"],
}


def _spelled(keyword: str) -> st.SearchStrategy[str]:
    return st.sampled_from(SPELLINGS.get(keyword, [keyword]))


TYPES = st.sampled_from(TYPE_NAMES) | st.lists(
    st.sampled_from(TYPE_NAMES), min_size=1, max_size=3, unique=True
)
DATA = st.sampled_from([0, 1, 2.5, "a", "ab", "ab\n", None, True, [1], {"a": 1}])
BOUNDS = st.integers(0, 3) | st.sampled_from([-1, "2", 1.5])  # invalid values: dropped
REFS = st.sampled_from(
    [
        "#/$defs/d",
        "#/definitions/d",
        "#/$defs/missing",  # points nowhere: enforces nothing
        "https://example.com/s.json",  # remote, never fetched: enforces nothing
        "#/properties/a",
        "#",  # recursive: not trusted to the fast validator
    ]
)


def _leaf() -> st.SearchStrategy[dict[str, Any]]:
    entries = st.one_of(
        st.tuples(st.just("type"), TYPES),
        st.tuples(st.just("nullable"), st.booleans()),
        st.tuples(st.just("pattern"), st.sampled_from(PATTERNS)),
        st.tuples(_spelled("minLength"), BOUNDS),
        st.tuples(_spelled("maxLength"), BOUNDS),
        st.tuples(_spelled("minItems"), BOUNDS),
        st.tuples(_spelled("maxItems"), BOUNDS),
        st.tuples(_spelled("uniqueItems"), st.booleans()),
        st.tuples(_spelled("minimum"), st.integers(-1, 3)),
        st.tuples(_spelled("maximum"), st.integers(0, 5) | st.just("5")),
        st.tuples(_spelled("multipleOf"), st.sampled_from([2, 3, 0.5, 0])),
        st.tuples(st.just("enum"), st.lists(DATA, max_size=3)),
        st.tuples(st.just("const"), DATA),
        st.tuples(st.just("required"), st.lists(st.sampled_from(KEYS), max_size=2) | DATA),
        st.tuples(st.just("format"), st.sampled_from(["email", "date", "regex"])),
        st.tuples(st.just("$ref"), REFS),
    )
    return st.lists(entries, max_size=4).map(dict)


def _compound(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    branches = st.lists(children, min_size=1, max_size=3)
    entries = st.one_of(
        st.tuples(
            st.just("properties"), st.dictionaries(st.sampled_from(KEYS), children, max_size=3)
        ),
        st.tuples(
            _spelled("patternProperties"),
            st.dictionaries(st.sampled_from(PATTERNS), children, max_size=2),
        ),
        st.tuples(_spelled("additionalProperties"), children),
        st.tuples(st.just("items"), children | branches),
        st.tuples(st.just("prefixItems"), branches),
        st.tuples(_spelled("anyOf"), branches | children),  # a lone schema: not valid there
        st.tuples(_spelled("oneOf"), branches),
        st.tuples(_spelled("allOf"), branches),
        st.tuples(st.just("not"), children),
        st.tuples(st.just("if"), children),
        st.tuples(st.just("then"), children),
        st.tuples(st.just("else"), children),
        st.tuples(st.just("contains"), children),
        st.tuples(_spelled("propertyNames"), children),
        st.tuples(
            st.just("dependentRequired"),
            st.dictionaries(st.sampled_from(KEYS), st.lists(st.sampled_from(KEYS), max_size=2)),
        ),
        st.tuples(
            st.just("dependencies"),
            st.dictionaries(st.sampled_from(KEYS), children | st.lists(st.sampled_from(KEYS))),
        ),
        st.tuples(st.just("unevaluatedProperties"), children),
    )
    return st.lists(entries, min_size=1, max_size=3).map(dict)


TREES = st.recursive(
    _leaf() | st.booleans(),
    lambda children: st.tuples(_leaf(), _compound(children)).map(lambda p: {**p[0], **p[1]}),
    max_leaves=8,
)


def _document(parts: tuple[JSON, JSON, str | None]) -> JSON:
    tree, target, draft = parts
    if not isinstance(tree, dict):
        return tree
    schema: dict[str, Any] = {**tree, "$defs": {"d": target}, "definitions": {"d": target}}
    if draft is not None:
        schema["$schema"] = draft
    return schema


SCHEMAS = st.tuples(TREES, TREES, st.sampled_from(DRAFTS)).map(_document)
STRINGS = st.sampled_from(["", "a", "ab", "ab\n", "ab\n\n", "AB-12", "a" * 5, "x_1", "é"])
SCALARS = STRINGS | st.integers(-2, 6) | st.sampled_from([0.5, 2.0, 1e308]) | st.booleans()
INSTANCES = st.recursive(
    SCALARS | st.none(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS), children, max_size=4)
    ),
    max_leaves=8,
)
_BRANCHES = {spelling for keyword in ("anyOf", "oneOf", "allOf") for spelling in SPELLINGS[keyword]}


def _shaped(schema: JSON, depth: int = 0) -> st.SearchStrategy[JSON]:
    """Instances that follow ``schema``'s shape (its properties' names, its items, its
    branches), so that they reach the keywords deep inside it, besides random ones."""
    if not isinstance(schema, dict) or depth > 3:
        return INSTANCES
    options: list[st.SearchStrategy[JSON]] = [INSTANCES]
    properties = schema.get("properties")
    if isinstance(properties, dict):
        named = {k: _shaped(v, depth + 1) for k, v in properties.items()}
        extra = st.dictionaries(st.sampled_from(KEYS), INSTANCES, max_size=2)
        options.append(
            st.tuples(st.fixed_dictionaries({}, optional=named), extra).map(
                lambda p: {**p[1], **p[0]}
            )
        )
    for keyword in ("items", "additionalProperties", "additional_properties", "contains"):
        if isinstance(schema.get(keyword), dict):
            inner = _shaped(schema[keyword], depth + 1)
            options.append(st.lists(inner, max_size=3))
            options.append(st.dictionaries(st.sampled_from(KEYS), inner, max_size=3))
    if "pattern" in schema or "type" in schema:
        options.append(STRINGS)  # a string where a pattern (and "ab\n" a $) is checked
    named_patterns = schema.get("patternProperties", schema.get("pattern_properties"))
    if isinstance(named_patterns, dict) and named_patterns:
        values = st.one_of([_shaped(v, depth + 1) for v in named_patterns.values()])
        options.append(st.dictionaries(st.sampled_from(KEYS), values, min_size=1, max_size=3))
    for keyword in _BRANCHES:
        branches = schema.get(keyword)
        if isinstance(branches, list):
            options += [_shaped(branch, depth + 1) for branch in branches[:3]]
    return st.one_of(options)


def _reference(read: JSON) -> Any:
    """The lenient model as replay evaluates it without the fast validator."""
    validator = _compile_tolerant(read, CallBudget(None)).validator
    assert validator is not None
    return validator


def test_the_compiled_old_side_gives_the_reference_lenient_verdict() -> None:
    seen = {"instances": 0, "compiled": 0, "accepted": 0, "rejected": 0, "tools": 0}
    paths: dict[str, int] = {}

    @settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
    @given(SCHEMAS, st.data())
    def agree(schema: JSON, data: st.DataObject) -> None:
        instances = data.draw(st.lists(_shaped(schema), min_size=1, max_size=6))
        read, _ = _read_leniently(schema)
        compiled = compile_lenient(read)
        paths[compiled.path] = paths.get(compiled.path, 0) + 1
        seen["tools"] += 1
        reference = _reference(read)
        for instance in instances:
            seen["instances"] += 1
            verdict = compiled.verdict(instance)
            if verdict is None:
                continue
            expected = reference.is_valid(instance)
            assert verdict == expected, (schema, read, instance)
            seen["compiled"] += 1
            seen["accepted" if verdict else "rejected"] += 1

    agree()
    print("STATS", seen, paths)
    # The floors: most generated tools compile, and their verdicts go both ways (measured:
    # about 75% of instances on the compiled path, a third of them rejected).
    assert paths.get(COMPILED, 0) >= 0.5 * seen["tools"], (paths, seen)
    assert seen["compiled"] >= 0.5 * seen["instances"], seen
    assert seen["accepted"] >= 0.1 * seen["compiled"], seen
    assert seen["rejected"] >= 0.1 * seen["compiled"], seen
    assert paths.get(NOT_TRUSTED, 0) > 0, paths  # the fallback is exercised too


DENSE_PATTERNS = ["^ab$", "^[a-z]+$", "^a", "b$", "(", "[a-", HUGE]
"""The regexes of ``PATTERNS`` that tell the readings apart on ``DENSE_STRINGS``."""
DENSE_STRINGS = st.sampled_from(["ab", "ab\n", "ab\n\n", "a", "AB", "(a"]) | st.integers(0, 1)
DENSE_KEYS = st.sampled_from(["a", "ab", "ab\n", "(a", "B"])
REGEX_LEAVES = st.fixed_dictionaries(
    {"pattern": st.sampled_from(DENSE_PATTERNS)},
    optional={"type": st.sampled_from(["string", "String", "integer"]), "maxLength": BOUNDS},
) | st.sampled_from([{}, {"type": "integer"}, False])
USABLE = st.sampled_from(["^ab$", "^[a-z]+$", "^a", "b$"])
UNUSABLE_AFTER_USABLE = st.tuples(
    st.lists(st.tuples(USABLE, REGEX_LEAVES), min_size=1, max_size=2),
    st.sampled_from(["(", "[a-", HUGE]),
    st.lists(st.tuples(USABLE, REGEX_LEAVES), max_size=1),
).map(lambda p: {**dict(p[0]), p[1]: {"type": "integer"}, **dict(p[2])})
"""``patternProperties`` whose unusable key comes after usable ones: those still apply."""
REGEX_SCHEMAS = st.fixed_dictionaries(
    {"$schema": st.sampled_from([*DRAFTS, DRAFTS[1]])},  # draft 4 twice: it keeps "(" keys
    optional={
        "properties": st.dictionaries(DENSE_KEYS, REGEX_LEAVES, max_size=2),
        "patternProperties": st.dictionaries(
            st.sampled_from(DENSE_PATTERNS), REGEX_LEAVES, min_size=1, max_size=3
        )
        | UNUSABLE_AFTER_USABLE,
        "additionalProperties": REGEX_LEAVES | st.booleans(),
        "propertyNames": REGEX_LEAVES,
    },
).map(lambda s: {k: v for k, v in s.items() if v is not None})
REGEX_INSTANCES = DENSE_STRINGS | st.dictionaries(DENSE_KEYS, DENSE_STRINGS, min_size=1, max_size=4)


def test_regexes_as_the_tolerant_reference_reads_them() -> None:
    """Regexes only, densely: ``$`` as Python reads it, each kind of unusable regex where it
    stands (``pattern``, ``patternProperties`` in order, ``additionalProperties``' joined
    regex), in every draft; the generic test above meets these too rarely to catch a wrong
    rewrite of them."""
    seen = {"instances": 0, "compiled": 0, "rewritten": 0}

    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
    @given(REGEX_SCHEMAS, st.lists(REGEX_INSTANCES, min_size=1, max_size=8))
    def agree(schema: JSON, instances: list[JSON]) -> None:
        read, _ = _read_leniently(schema)
        compiled = compile_lenient(read)
        reference = _reference(read)
        text = json.dumps(read)
        unusable = any(json.dumps(regex) in text for regex in ("(", "[a-", HUGE))
        rewritten = compiled.path == COMPILED and unusable
        for instance in instances:
            seen["instances"] += 1
            verdict = compiled.verdict(instance)
            if verdict is not None:
                assert verdict == reference.is_valid(instance), (schema, read, instance)
                seen["compiled"] += 1
                seen["rewritten"] += rewritten

    agree()
    assert seen["compiled"] >= 0.5 * seen["instances"], seen
    assert seen["rewritten"] >= 0.1 * seen["compiled"], seen


DRAFT4 = "http://json-schema.org/draft-04/schema#"

CASES: list[tuple[str, JSON, str, list[tuple[JSON, bool]]]] = [
    (
        "dialect keywords and type names enforce nothing; valid ones do",
        {
            "type": "Object",
            "properties": {"id": {"type": "STRING", "min_length": 3, "maxLength": 4}},
            "required": ["id"],
        },
        COMPILED,
        [({"id": "ab"}, True), ({"id": 5}, True), ({"id": "abcde"}, False), ({}, False)],
    ),
    (
        "a pattern the reference refuses to expand enforces nothing; its siblings do",
        {"type": "string", "pattern": HUGE, "maxLength": 3},
        COMPILED,
        [("zzz", True), ("zzzz", False), (3, False)],
    ),
    (
        "a $-ending pattern reads as Python reads it: before one final newline too",
        {"$schema": "http://json-schema.org/draft-07/schema#", "pattern": "^ab$"},
        COMPILED,
        [("ab", True), ("ab\n", True), ("ab\n\n", False), ("ab\nx", False), ("xab", False)],
    ),
    (
        # draft 4's meta-schema does not check patternProperties keys: "(" stays, and raises
        # at the first property, after "^a" was matched against every one
        "patternProperties from an unusable key on enforce nothing, the keys before do",
        {
            "$schema": DRAFT4,
            "patternProperties": {"^a": {"type": "integer"}, "(": {"type": "integer"}},
        },
        COMPILED,
        [({"ab": 1, "(x": "s"}, True), ({"ab": "s"}, False), ({}, True), ("s", True)],
    ),
    (
        "additionalProperties beside an unusable joined regex enforces nothing",
        {
            "$schema": DRAFT4,
            "properties": {"p": {"type": "integer"}},
            "patternProperties": {"(": {}},
            "additionalProperties": False,
        },
        COMPILED,
        [({"p": 1, "q": 2}, True), ({"p": "s"}, False)],
    ),
    (
        "keys unusable alone but usable joined: the reference path",
        {
            "$schema": DRAFT4,
            "patternProperties": {"(": {}, ")": {}},
            "additionalProperties": False,
        },
        JOINED_REGEX,
        [],
    ),
    (
        "an unusable key beside unevaluatedProperties: the reference path",
        {"patternProperties": {HUGE: {}}, "unevaluatedProperties": False},
        UNEVALUATED_REGEX,
        [],
    ),
    (
        "Unicode classes are not trusted to the fast validator: the reference path",
        {"type": "object", "properties": {"id": {"pattern": "^\\w+$"}}},
        NOT_TRUSTED,
        [],
    ),
    (
        "a dangling and a remote $ref enforce nothing; a local one is followed",
        {
            "$defs": {"short": {"maxLength": 2}},
            "properties": {
                "a": {"$ref": "#/$defs/short"},
                "b": {"$ref": "#/$defs/missing"},
                "c": {"$ref": "https://example.com/s.json"},
            },
        },
        COMPILED,
        [({"a": "ab", "b": "abc", "c": "abc"}, True), ({"a": "abc"}, False)],
    ),
]


@pytest.mark.parametrize(
    ("schema", "path", "verdicts"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_each_rewrite_of_what_raises(
    schema: JSON, path: str, verdicts: list[tuple[JSON, bool]]
) -> None:
    """Each kind of place the tolerant reference reads as enforcing nothing because evaluating
    it raises, with verdicts reasoned from python-jsonschema's keyword functions; the
    reference is asked too, so a wrong expectation here cannot hide a wrong rewrite."""
    read, _ = _read_leniently(schema)
    compiled = compile_lenient(read)
    assert compiled.path == path
    reference = _reference(read)
    for instance, accepts in verdicts:
        assert compiled.verdict(instance) is accepts, instance
        assert reference.is_valid(instance) is accepts, instance


def test_a_tool_replay_takes_its_old_verdicts_from_the_compiled_reading() -> None:
    """Through ``ToolReplay``: a dialect tool's old verdicts come from the compiled path, and
    are the ones replay gives without the fast validator."""
    schema: JSON = {
        "type": "object",
        "properties": {
            "id": {"type": "String", "pattern": "^[a-z]{2}_[0-9]$"},
            "tags": {"type": "array", "unique_items": True, "max_items": 2},
        },
        "required": ["id"],
    }
    tool = ToolSchema("t", schema, Location("t.json"), "", "mapping")
    fast = ToolReplay(tool, normalize(schema, DEFAULT_RULES))
    slow = ToolReplay(tool, normalize(schema, DEFAULT_RULES), fast=False)
    assert fast.old_path == COMPILED
    assert slow.old_path == "lenient"
    before = OLD_VERDICTS.compiled
    arguments: list[JSON] = [
        {"id": "ab_1"},  # accepted on both sides
        {"id": "ab_1", "tags": ["x", "x", "y"]},  # newly rejected: the old side accepts
        {"id": "AB-1"},  # still rejected: the old side rejects too
        {"tags": []},  # still rejected: required
    ]
    for number, value in enumerate(arguments, 1):
        call = Call(f"calls.jsonl:{number}", "t", value)
        assert fast.replay(call).outcome == slow.replay(call).outcome, value
    # The two old acceptances are compiled; the two rejections are the budgeted reference's,
    # as the schema holds a regex (``LenientFast.rejects_exactly``).
    assert OLD_VERDICTS.compiled - before >= 2
    # Without a regex, a rejection is compiled too.
    plain: JSON = {"type": "object", "properties": {"n": {"type": "Integer", "maximum": 3}}}
    tool = ToolSchema("p", plain, Location("t.json"), "", "mapping")
    replay = ToolReplay(tool, normalize(plain, DEFAULT_RULES))
    counts = OLD_VERDICTS.compiled, OLD_VERDICTS.reference
    assert replay.replay(Call("calls.jsonl:9", "p", {"n": 9})).outcome is Outcome.STILL_REJECTED
    assert (OLD_VERDICTS.compiled, OLD_VERDICTS.reference) == (counts[0] + 1, counts[1])
