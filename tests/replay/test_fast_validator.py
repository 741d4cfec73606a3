"""Differential tests: the fast validator never changes a verdict of the reference validator.

jsonschema-rs may only ever say "accepted", and only where python-jsonschema says the same;
everything else goes to python-jsonschema. These tests generate schemas and arguments that
probe the places where the engines are known to differ (regex dialects, fractional
multipleOf, formats, Unicode, integers and floats), with property names, ``$defs`` names and
enum/const/default data spelled like keywords (which must neither keep a schema with the
reference nor change a verdict), and replay the project's own cases and samples with and
without the fast validator.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import validators

from auditor import pointers
from auditor.aggregate.pipeline import evaluate_call, prepare
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_files import check_logs
from auditor.inputs.reader import LogReader
from auditor.models import JSON, Call, Location, ToolSchema
from auditor.replay import fast_validator
from auditor.replay.fast_validator import FastCheck, meta_valid, schema_positions, trusted
from auditor.schema.keywords import Draft, schema_objects
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import ROOT, load_cases
from tests.samples import scenarios

PATTERNS = [
    "^[A-Z]{3}-[0-9]{2,4}$",  # plain: trusted
    "^[a-z_.\\-]+$",  # plain: trusted
    "^abc$",  # plain; Python's $ also matches before a final newline
    "(?:ab)+",
    "^\\d+$",  # Unicode digits: reference only
    "^\\w+$",  # Unicode word characters: reference only
    "^\\S+$",  # Unicode whitespace differs: reference only
    "^[^ ]+$",
]
TRICKY_STRINGS = [
    *("", "a", "abc", "abc\n", "ABC-12", "ABC-123456", "a_b.c-d", "١٢٣", "123", "e\u0301"),
    *("a\x1cb", "ab ab", "abab", "Straße", "🙂", "a\u2028b", "ǅ"),
]
KEYWORD_NAMES = [
    *("id", "$id", "$ref", "pattern", "type", "items", "format", "default", "multipleOf"),
    "patternProperties",
]
"""Property names spelled like keywords: names, never keywords, so never a reason to distrust."""
KEYWORD_LIKE_DATA: list[Any] = [
    {"pattern": "a$"},
    {"pattern": "a(?=\n?$)"},  # what the fast validator is given for a$ at a schema position
    {"pattern": "^\\w+$"},
    {"patternProperties": {"$ref": "#"}},
    {"$ref": "#"},
    {"$ref": "https://example.com/s.json"},
    {"$id": "https://example.com/other"},
    {"id": "x", "type": "integer"},
    {"multipleOf": 0.1},
    {"contentMediaType": "application/json"},
    {"items": {"$ref": "#"}, "format": "email"},
]
"""Values that look like schemas (risky ones) where only data stands: enum, const, default."""
TRICKY_NUMBERS = [0, 1, -1, 1.0, 0.1, 0.3, 0.7, 1e308, 2**53 + 1, 2**64, 2**70, 3, 7.5, -0.0]
STRINGS = st.sampled_from(TRICKY_STRINGS) | st.text(max_size=6)
NAMES = st.sampled_from(["a", "b", "abc", *KEYWORD_NAMES])
NUMBERS = st.sampled_from(TRICKY_NUMBERS) | st.integers(-5, 5)
SCALARS = STRINGS | NUMBERS | st.booleans() | st.none()
INSTANCES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c", "abc", "ABC-12"]), children, max_size=4)
        | st.dictionaries(NAMES, children, max_size=3)
    ),
    max_leaves=10,
) | st.sampled_from(KEYWORD_LIKE_DATA)
DATA = SCALARS | st.sampled_from(KEYWORD_LIKE_DATA)

PLAIN_PATTERNS = [p for p in PATTERNS if not any(c in p for c in ("\\d", "\\w", "\\S"))]
"""The patterns the fast validator is trusted with (ASCII only; ``$`` is translated)."""


def _leaf(patterns: list[str], divisors: list[float]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(
                ["string", "integer", "number", "object", "array", "boolean", "null"]
            )
            | st.lists(
                st.sampled_from(["string", "integer", "null"]), min_size=1, max_size=2, unique=True
            ),
            "pattern": st.sampled_from(patterns),
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 4),
            "minimum": NUMBERS,
            "exclusiveMaximum": NUMBERS,
            "multipleOf": st.sampled_from(divisors),
            "enum": st.lists(DATA, min_size=1, max_size=3),
            "const": DATA,
            "default": DATA,
            "x-vendor": st.sampled_from(KEYWORD_LIKE_DATA),
            "format": st.sampled_from(["date", "email", "uuid", "regex"]),
            "uniqueItems": st.booleans(),
            "minItems": st.integers(0, 2),
            "maxProperties": st.integers(0, 2),
            "required": st.lists(NAMES, max_size=2, unique=True),
        },
    )


def _compound(
    children: st.SearchStrategy[Any], patterns: list[str]
) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "properties": st.dictionaries(NAMES, children, max_size=3),
            "patternProperties": st.dictionaries(st.sampled_from(patterns), children, max_size=1),
            "additionalProperties": children,
            "items": children,
            "prefixItems": st.lists(children, min_size=1, max_size=2),
            "anyOf": st.lists(children, min_size=1, max_size=2),
            "oneOf": st.lists(children, min_size=1, max_size=2),
            "allOf": st.lists(children, min_size=1, max_size=2),
            "not": children,
            "contains": children,
            "minContains": st.integers(0, 2),
            "if": children,
            "then": children,
            "else": children,
            "propertyNames": children,
            "dependentRequired": st.dictionaries(NAMES, st.lists(NAMES, max_size=2), max_size=1),
            "unevaluatedProperties": children,
        },
    )


def _schemas(patterns: list[str], divisors: list[float]) -> st.SearchStrategy[Any]:
    """Generated schemas with keyword-like property names and data, and at the root ``$defs``
    named like keywords, each reached by a ``$ref`` from a property of the same name."""
    leaf = _leaf(patterns, divisors)
    tree = st.recursive(
        leaf | st.booleans(),
        lambda children: st.tuples(leaf, _compound(children, patterns)).map(
            lambda p: {**p[0], **p[1]}
        ),
        max_leaves=8,
    )
    return st.tuples(tree, st.dictionaries(NAMES, tree, max_size=2)).map(with_defs)


def with_defs(parts: tuple[Any, dict[str, Any]]) -> Any:
    schema, defs = parts
    if not isinstance(schema, dict) or not defs:
        return schema
    refs = {name: {"$ref": "#/$defs/" + pointers.escape(name)} for name in defs}
    return {**schema, "$defs": defs, "properties": {**schema.get("properties", {}), **refs}}


SCHEMAS = _schemas(PATTERNS, [1, 2, 0.1, 0.5, 3])
PLAIN_SCHEMAS = _schemas(PLAIN_PATTERNS, [1, 2, 3])
"""Schemas the fast validator must be trusted with: whatever their names and data say."""


def _compare(schema: Any, instances: list[Any], compared: dict[str, int]) -> None:
    """Every instance the fast validator accepts, the reference accepts too; both counted."""
    reference = validators.Draft202012Validator(schema)
    fast = FastCheck(schema)
    for instance in instances:
        compared["instances"] += 1
        if fast.accepts(instance):
            compared["accepted"] += 1
            assert reference.is_valid(instance), (schema, instance)


def test_a_fast_acceptance_is_always_the_reference_acceptance() -> None:
    compared = {"instances": 0, "accepted": 0}

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(SCHEMAS, st.lists(INSTANCES, min_size=1, max_size=8))
    def agree(schema: Any, instances: list[Any]) -> None:
        reference_class = validators.Draft202012Validator
        try:
            reference_class.check_schema(schema)
        except Exception:
            assume(False)  # the reference refuses the schema: replay never asks the fast validator
        _compare(schema, instances, compared)

    agree()
    # The assertion runs only on what the fast validator accepts: make sure that is not rare.
    assert compared["accepted"] >= 0.1 * compared["instances"], compared  # about 25%


def test_plain_schemas_are_trusted_whatever_their_names_and_data_look_like() -> None:
    """Property names, ``$defs`` names and enum/const/default/extension data spelled like risky
    keywords (``id``, ``$ref``, ``pattern: \\w``, fractional ``multipleOf``...) are not
    keywords: the schema is trusted, and the fast validator still agrees with the reference."""
    compared = {"instances": 0, "accepted": 0}

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(PLAIN_SCHEMAS, st.lists(INSTANCES, min_size=1, max_size=8))
    def agree(schema: Any, instances: list[Any]) -> None:
        reference_class = validators.Draft202012Validator
        try:
            reference_class.check_schema(schema)
        except Exception:
            assume(False)
        assert trusted(schema), schema
        _compare(schema, instances, compared)

    agree()
    assert compared["accepted"] >= 0.1 * compared["instances"], compared


RISKY_KEYWORDS: list[tuple[dict[str, Any], bool]] = [
    *(({"pattern": p}, p in PLAIN_PATTERNS) for p in PATTERNS),
    *(({"patternProperties": {p: False}}, p in PLAIN_PATTERNS) for p in PATTERNS),
    *(({"multipleOf": m}, isinstance(m, int)) for m in (1, 2, 0.1, 0.5, 0.01)),
    ({"type": "integer"}, True),
    ({"enum": [1, True, "a", None, [1], {"a": 1}]}, True),
    ({"const": {"pattern": "a$"}}, True),
    ({"contentMediaType": "application/json"}, False),
    ({"$id": "https://example.com/s"}, False),
    ({"id": "https://example.com/s"}, False),
    ({"$ref": "https://example.com/s.json"}, False),
    ({"items": {"$ref": "#"}}, False),
]
"""Each risky keyword, and whether a schema holding it at a schema position is trusted."""


def _at_schema_positions(risky: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """``risky`` where it is evaluated: under a property, a ``$defs`` entry reached by
    ``$ref``, a ``patternProperties`` member, all named ``name``."""
    escaped = pointers.escape(name)
    return [
        {"type": "object", "properties": {name: risky}},
        {"$defs": {name: risky}, "properties": {name: {"$ref": "#/$defs/" + escaped}}},
        {"patternProperties": {"^" + re.escape(name) + "$": risky}},
    ]


def _as_data(risky: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """``risky`` where it is data or a name, never evaluated: trusted whatever it holds."""
    return [
        {"properties": {name: {"type": "string"}}, "enum": [risky, {name: risky}, "a"]},
        {"properties": {name: {}}, "const": {name: risky}},
        {"properties": {name: {"default": risky}}, "default": {name: risky}},
        {"x-vendor": {name: risky}, "examples": [risky], "properties": {name: {"minLength": 1}}},
        {"$defs": {name: {"const": risky}}, "dependentRequired": {name: [name]}},
    ]


def _crossing() -> list[Any]:
    params = []
    for risky, plain in RISKY_KEYWORDS:
        for name in KEYWORD_NAMES:
            for schema in _at_schema_positions(risky, name):
                params.append(pytest.param(schema, plain, risky, name, id=json.dumps(schema)))
            for schema in _as_data(risky, name):
                params.append(pytest.param(schema, True, risky, name, id=json.dumps(schema)))
    return params


@pytest.mark.parametrize(("schema", "expected", "risky", "name"), _crossing())
def test_every_risky_keyword_at_a_schema_position_and_as_data_under_keyword_names(
    schema: dict[str, Any], expected: bool, risky: dict[str, Any], name: str
) -> None:
    """Exhaustive: each risky keyword under properties named like keywords (distrusted exactly
    when the keyword alone is) and as data (always trusted); the tricky values, under that
    name too, and the data itself (and its ``$``-translated spelling) as arguments."""
    assert trusted(schema) is expected, schema
    validators.Draft202012Validator.check_schema(schema)
    reference = validators.Draft202012Validator(schema)
    fast = FastCheck(schema)
    scalars: list[Any] = [*TRICKY_STRINGS, *TRICKY_NUMBERS, True, None]
    translated = json.loads(json.dumps(risky).replace("$", "(?=\\n?$)"))
    values: list[Any] = [*scalars, risky, translated, {name: risky}, {name: translated}]
    values += [{name: v} for v in [*scalars, [1, 1.0], {"a": 1}, risky, translated]]
    values += [{v: 1, name: "a"} for v in TRICKY_STRINGS]
    accepted = [value for value in values if fast.accepts(value)]
    for value in accepted:
        assert reference.is_valid(value), value
    # A trusted schema really is answered by the fast validator (each accepts some value).
    assert bool(accepted) == expected, (schema, accepted)


def test_names_and_data_spelled_like_keywords_do_not_keep_a_schema_with_the_reference() -> None:
    string: JSON = {"type": "string"}
    accepted: list[JSON] = [
        {"type": "object", "properties": dict.fromkeys(KEYWORD_NAMES, string)},
        {"properties": {"pattern": string}, "enum": [{"pattern": "^\\w+$"}]},
        {"default": {"multipleOf": 0.1, "$id": "x", "$ref": "https://example.com/s.json"}},
        {"x-vendor": {"pattern": "\\w", "contentSchema": {}}, "examples": [{"id": 1}]},
        {"$defs": {"id": string}, "properties": {"id": {"$ref": "#/$defs/id"}}},
        {"$defs": {"$ref": string}, "items": {"$ref": "#/$defs/$ref"}},
        {"$defs": {"a/b": string}, "items": {"$ref": "#/$defs/a~1b"}},
        {"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"id": string}},
        # `$defs` is no draft-07 keyword, but both validators resolve the pointer into it: walked.
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$defs": {"t": string},
            "properties": {"id": {"$ref": "#/$defs/t"}},
        },
        {"dependentRequired": {"pattern": ["id"]}, "required": ["$ref", "items"]},
    ]
    for schema in accepted:
        assert trusted(schema), schema
    refused: list[JSON] = [
        {"properties": {"name": {"pattern": "^\\w+$"}}},  # a regex at a keyword position
        {"properties": {"pattern": {"pattern": "^\\S+$"}}},
        {"properties": {"id": {"multipleOf": 0.5}}},
        {"$defs": {"a": {"pattern": "\\d"}}},  # never referenced, still a schema position
        {"dependencies": {"a": {"pattern": "\\d"}}},  # a draft-07 applicator, in any draft
        {"properties": {"a": {"$id": "https://example.com/a"}}},
        # A $ref off the schema positions: both validators would read data as a schema.
        {"x-data": {"type": "integer"}, "properties": {"a": {"$ref": "#/x-data"}}},
        {"x-data": {"pattern": "\\w"}, "$ref": "#/x-data"},
        {"enum": [{"type": "string"}], "properties": {"a": {"$ref": "#/enum/0"}}},
        {"default": {"type": "string"}, "items": {"$ref": "#/default"}},
        {"properties": {"a": string}, "items": {"$ref": "#/properties"}},  # a map, not a schema
        {"allOf": [string], "items": {"$ref": "#/allOf/00"}},  # index spelled two ways
        {"properties": {"a": string}, "items": {"$ref": "#/properties/b"}},  # nothing there
        {"$defs": {"a": string}, "items": {"$ref": "#a"}},  # an anchor
    ]
    for schema in refused:
        assert not trusted(schema), schema


@pytest.mark.parametrize("draft", ["draft-04", "draft-06", "draft-07", "2019-09", "2020-12"])
def test_keyword_names_are_names_in_every_draft(draft: str) -> None:
    """In each draft (draft-04's ``id`` included), properties and definitions named like
    keywords, reached through ``$ref``, with keyword-like defaults: trusted, and agreeing."""
    uri = f"http://json-schema.org/{draft}/schema#"
    if draft in ("2019-09", "2020-12"):
        uri = f"https://json-schema.org/draft/{draft}/schema"
    definition = {"type": "string", "maxLength": 3, "pattern": "^[a-z]+"}
    schema: dict[str, Any] = {
        "$schema": uri,
        "definitions": {name: {**definition, "default": {name: "x"}} for name in KEYWORD_NAMES},
        "properties": {
            name: {"$ref": "#/definitions/" + pointers.escape(name)} for name in KEYWORD_NAMES
        },
        "required": ["id"],
    }
    assert trusted(schema)
    reference = validators.validator_for(schema)(schema)
    reference.check_schema(schema)
    fast = FastCheck(schema)
    values: list[Any] = [{"id": "ab"}, {"id": "abcd"}, {"id": 1}, {"$id": "x"}, {"id": "a\n"}]
    variants: list[Any] = ["ab", "AB", 1, {}]
    values += [{"id": "ab", name: v} for name in KEYWORD_NAMES for v in variants]
    accepted = [value for value in values if fast.accepts(value)]
    assert {"id": "ab"} in accepted
    for value in accepted:
        assert reference.is_valid(value), value


def test_data_reaches_the_fast_engine_unchanged() -> None:
    """Regexes are translated (``$`` as Python reads it) at schema positions only: an enum
    member or a property named ``patternProperties`` is compared or evaluated as written."""
    string: JSON = {"type": "string"}
    cases: list[tuple[dict[str, Any], JSON]] = [
        ({"enum": [{"pattern": "a$"}]}, {"pattern": "a(?=\n?$)"}),
        ({"const": {"patternProperties": {"a$": 1}}}, {"patternProperties": {"a(?=\n?$)": 1}}),
        (
            {"properties": {"patternProperties": {"$ref": "#/$defs/s"}}, "$defs": {"s": string}},
            {"patternProperties": 1},
        ),
    ]
    for schema, instance in cases:
        assert trusted(schema)
        assert not validators.Draft202012Validator(schema).is_valid(instance)
        assert not FastCheck(schema).accepts(instance), (schema, instance)


def test_only_regexes_at_schema_positions_need_python_to_compile_them() -> None:
    """The meta-schema checks ``format: regex`` at keyword positions only; data holding an
    invalid regex is valid, and ``meta_valid`` says so without asking python-jsonschema."""
    valid: list[dict[str, Any]] = [
        {"enum": [{"pattern": "("}], "default": {"patternProperties": {"[": {}}}},
        {"properties": {"pattern": {"type": "string"}}, "x-vendor": {"pattern": "(?<"}},
    ]
    invalid: list[dict[str, Any]] = [
        {"properties": {"pattern": {"pattern": "("}}},
        {"$defs": {"id": {"patternProperties": {"[": {}}}}},
    ]
    for schema in [*valid, *invalid]:
        try:
            validators.Draft202012Validator.check_schema(schema)
        except Exception:
            expected = False
        else:
            expected = True
        assert expected == (schema in valid), schema
        assert meta_valid(Draft.DRAFT2020, schema) is expected, schema


@pytest.mark.parametrize(
    "schema",
    [
        *({"pattern": p} for p in PATTERNS),
        *({"patternProperties": {p: False}} for p in PATTERNS),
        *({"multipleOf": m} for m in (1, 2, 0.1, 0.5, 0.01)),
        *({"type": t} for t in ("integer", "number")),
        {"uniqueItems": True},
        {"enum": [1, True, "a", None, [1], {"a": 1}]},
        {"const": 1.0},
        {"maxLength": 1},
        {"minimum": 2**64},
    ],
    ids=json.dumps,
)
def test_every_tricky_value_against_every_risky_keyword(schema: dict[str, Any]) -> None:
    """Exhaustive over the known trouble spots, where random generation rarely lands."""
    reference = validators.Draft202012Validator(schema)
    fast = FastCheck(schema)
    values: list[Any] = [*TRICKY_STRINGS, *TRICKY_NUMBERS, True, None]
    values += [[v, v] for v in values] + [[1, 1.0], [True, 1], [0, False]]
    values += [{v: 1} for v in TRICKY_STRINGS]
    accepted = [value for value in values if fast.accepts(value)]
    for value in accepted:
        assert reference.is_valid(value), value
    # Where replay trusts the fast validator, the comparison above never runs empty (each schema
    # accepts some tricky string, number or non-object); where it does not (Unicode classes,
    # fractional divisors), the fast validator accepts nothing and leaves every call to the
    # reference, so there is nothing to compare.
    assert bool(accepted) == trusted(schema), (schema, accepted)


def test_the_fast_engine_is_trusted_with_plain_schemas_and_not_with_risky_ones() -> None:
    assert trusted({"type": "object", "properties": {"a": {"pattern": "^[A-Z]+$"}}})
    assert trusted({"$defs": {"t": {"type": "string"}}, "items": {"$ref": "#/$defs/t"}})
    risky_schemas: list[JSON] = [
        {"pattern": "^\\w+$"},
        {"patternProperties": {"^\\d+$": {}}},
        {"multipleOf": 0.1},
        {"contentMediaType": "application/json"},
        {"$ref": "https://example.com/s.json"},
        {"$defs": {"n": {"items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"},
        {"items": {"$ref": "#"}},
    ]
    for risky in risky_schemas:
        assert not trusted(risky), risky


def test_unicode_and_newline_cases_go_to_the_reference() -> None:
    # Where the engines are known to disagree, the fast validator must not answer "accepted"
    # unless the reference does too.
    cases: list[tuple[dict[str, JSON], JSON]] = [
        ({"pattern": "^\\S+$"}, "a\x1cb"),
        ({"pattern": "^\\w+$"}, "e\u0301"),
        ({"pattern": "^abc$"}, "abc\n"),
        ({"multipleOf": 0.1}, 0.3),
    ]
    for schema, instance in cases:
        accepted = FastCheck(schema).accepts(instance)
        assert not accepted or validators.Draft202012Validator(schema).is_valid(instance)


def _outcomes(tool: ToolSchema, calls: list[Call], fast: bool) -> list[str]:
    replays = prepare([tool], DEFAULT_RULES, fast=fast)
    return [_describe(evaluate_call(replays, call)[0]) for call in calls]


def _describe(result: Any) -> str:
    return json.dumps(
        [
            result.outcome.value,
            result.schema_problem,
            [(e.instance_pointer, e.keyword, e.schema_pointer, e.message) for e in result.errors],
        ]
    )


@pytest.mark.parametrize("case", load_cases("replay"))
def test_replay_cases_give_the_same_results_with_and_without_the_fast_engine(
    case: dict[str, Any],
) -> None:
    tool = ToolSchema("t", case["schema"], Location("case.yaml"), "", "mapping")
    calls = [
        Call(f"case:{i}", "t", spec["arguments"])
        for i, spec in enumerate(case["calls"])
        if "arguments" in spec
    ]
    assert _outcomes(tool, calls, fast=True) == _outcomes(tool, calls, fast=False)


@pytest.mark.parametrize("scenario", scenarios(), ids=lambda s: s.name)
def test_samples_give_the_same_results_with_and_without_the_fast_engine(scenario: Any) -> None:
    from auditor.inputs.catalogs import load_catalogs

    catalogs = load_catalogs([str(ROOT / scenario.catalog)])
    files, _ = check_logs([str(ROOT / scenario.log)])
    calls = [c for c in LogReader(files) if c.unparsed is None]
    for fast in (True, False):
        replays = prepare(catalogs.tools, DEFAULT_RULES, fast=fast)
        results = [_describe(evaluate_call(replays, c)[0]) for c in calls if c.tool in replays]
        if fast:
            with_fast = results
    assert with_fast == results


def test_the_fast_engine_is_actually_used_on_the_samples() -> None:
    used = 0
    for scenario in scenarios():
        for tool in load_catalogs([str(ROOT / scenario.catalog)]).tools:
            # Accepting {} where the reference does shows a compiled fast validator answered.
            used += FastCheck(tool.schema).accepts({}) and trusted(tool.schema)
    assert used >= 3


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCHEMAS)
def test_the_schema_positions_are_the_keyword_walks_objects_in_its_order(schema: Any) -> None:
    """``schema_positions`` walks without pointers: the very objects ``schema_objects`` yields
    over the union of the drafts' applicators, none more, none fewer, in the same order."""
    walked = [node for node, _ in schema_objects(schema, "", fast_validator._APPLICATORS)]
    assert [id(node) for node in schema_positions(schema)] == [id(node) for node in walked]


def test_the_schema_positions_skip_data_and_names_and_enter_every_applicator() -> None:
    inner = {"type": "string"}
    listed, mapped, dependent = {"minimum": 1}, {"maxItems": 2}, {"required": ["b"]}
    schema: dict[str, Any] = {
        "properties": {"enum": inner},  # a property named like a keyword: a subschema
        "anyOf": [listed],
        "patternProperties": {"^x": mapped},
        "dependencies": {"a": dependent, "b": ["a"]},  # a name list is data
        "enum": [{"type": "integer"}],  # data, never a schema
        "default": {"properties": {}},
        "x-extension": {"type": "object"},  # an unknown keyword's value: data
    }
    found = list(schema_positions(schema))
    assert [id(node) for node in found] == [
        id(node) for node in (schema, dependent, mapped, listed, inner)
    ]
