"""Differential tests: the fast engine never changes a verdict of the reference engine.

jsonschema-rs may only ever say "accepted", and only where python-jsonschema says the same;
everything else goes to python-jsonschema. These tests generate schemas and arguments that
probe the places where the engines are known to differ (regex dialects, fractional
multipleOf, formats, Unicode, integers and floats), and replay the project's own cases and
samples with and without the fast engine.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import validators

from auditor.aggregate.pipeline import prepare
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_files import check_logs
from auditor.inputs.reader import LogReader
from auditor.models import JSON, Call, Location, ToolSchema
from auditor.replay.engine import FastCheck, trusted
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import ROOT, load_cases
from tests.replaying import replay_call
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
TRICKY_NUMBERS = [0, 1, -1, 1.0, 0.1, 0.3, 0.7, 1e308, 2**53 + 1, 2**64, 2**70, 3, 7.5, -0.0]
STRINGS = st.sampled_from(TRICKY_STRINGS) | st.text(max_size=6)
NUMBERS = st.sampled_from(TRICKY_NUMBERS) | st.integers(-5, 5)
SCALARS = STRINGS | NUMBERS | st.booleans() | st.none()
INSTANCES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c", "abc", "ABC-12"]), children, max_size=4)
    ),
    max_leaves=10,
)

leaf_schema = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(
            ["string", "integer", "number", "object", "array", "boolean", "null"]
        )
        | st.lists(
            st.sampled_from(["string", "integer", "null"]), min_size=1, max_size=2, unique=True
        ),
        "pattern": st.sampled_from(PATTERNS),
        "minLength": st.integers(0, 3),
        "maxLength": st.integers(0, 4),
        "minimum": NUMBERS,
        "exclusiveMaximum": NUMBERS,
        "multipleOf": st.sampled_from([1, 2, 0.1, 0.5, 3]),
        "enum": st.lists(SCALARS, min_size=1, max_size=3),
        "const": SCALARS,
        "format": st.sampled_from(["date", "email", "uuid", "regex"]),
        "uniqueItems": st.booleans(),
        "minItems": st.integers(0, 2),
        "maxProperties": st.integers(0, 2),
        "required": st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True),
    },
)


def _compound(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "properties": st.dictionaries(st.sampled_from(["a", "b", "abc"]), children, max_size=2),
            "patternProperties": st.dictionaries(st.sampled_from(PATTERNS), children, max_size=1),
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
            "dependentRequired": st.dictionaries(
                st.sampled_from(["a", "b"]),
                st.lists(st.sampled_from(["a", "b", "c"]), max_size=2),
                max_size=1,
            ),
            "unevaluatedProperties": children,
        },
    )


SCHEMAS = st.recursive(
    leaf_schema | st.booleans(),
    lambda children: st.tuples(leaf_schema, _compound(children)).map(lambda p: {**p[0], **p[1]}),
    max_leaves=8,
)


def test_a_fast_acceptance_is_always_the_reference_acceptance() -> None:
    compared = {"instances": 0, "accepted": 0}

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(SCHEMAS, st.lists(INSTANCES, min_size=1, max_size=8))
    def agree(schema: Any, instances: list[Any]) -> None:
        reference_class = validators.Draft202012Validator
        try:
            reference_class.check_schema(schema)
        except Exception:
            assume(False)  # the reference refuses the schema: replay never asks the fast engine
        reference = reference_class(schema)
        fast = FastCheck(schema)
        for instance in instances:
            compared["instances"] += 1
            if fast.accepts(instance):
                compared["accepted"] += 1
                assert reference.is_valid(instance), (schema, instance)

    agree()
    # The assertion runs only on what the fast engine accepts: make sure that is not rare.
    assert compared["accepted"] >= 0.1 * compared["instances"], compared  # about 25%


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
    # Where replay trusts the fast engine, the comparison above never runs empty (each schema
    # accepts some tricky string, number or non-object); where it does not (Unicode classes,
    # fractional divisors), the fast engine accepts nothing and leaves every call to the
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
    # Where the engines are known to disagree, the fast engine must not answer "accepted"
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
    return [_describe(replay_call(replays, call)) for call in calls]


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
        results = [_describe(replay_call(replays, c)) for c in calls if c.tool in replays]
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
