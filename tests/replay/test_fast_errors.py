"""The fast validator's errors key groups and feed evidence exactly as python-jsonschema's do.

A rejected call the report does not show in detail takes its errors from jsonschema-rs
(``auditor.replay.fast_errors``). Differential: for generated schemas (keyword-like property
names, ``$ref``s into ``$defs``, snake_case keywords the normalizer renames, so that errors
have causes) and arguments, every error the fast validator describes is python-jsonschema's but
for its message: keyword, schema pointer (through ``$ref``), instance pointer, causes and
observations. End to end: the reports in every format are byte for byte the same with the
fast path on and off, with ``--max-calls`` small enough that it runs.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import pointers
from auditor.aggregate.pipeline import ReportSettings, Tally, prepare
from auditor.models import JSON, REJECTS, Call, Location, Outcome, ToolSchema, ValidationIssue
from auditor.replay import tool as tool_module
from auditor.replay.fast_errors import FastErrors, keyable
from auditor.replay.fast_validator import FastCheck
from auditor.replay.tool import MAX_ERRORS, Memo, Remembered, ToolReplay, _errors, _in_order
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import run_cli
from tests.replay.test_fast_validator import (
    INSTANCES,
    NAMES,
    NUMBERS,
    PLAIN_PATTERNS,
    PLAIN_SCHEMAS,
    _leaf,
    with_defs,
)

DRAFT4 = "http://json-schema.org/draft-04/schema#"


def _keyable_compound(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "properties": st.dictionaries(NAMES, children, max_size=3),
            "additionalProperties": children,
            "items": children.filter(lambda child: isinstance(child, dict)),
            "exclusiveMinimum": NUMBERS,
            "maximum": NUMBERS,
            "maxLength": st.integers(0, 3),
            "maxItems": st.integers(0, 2),
            "minProperties": st.integers(0, 2),
        },
    )


def _keyable_schemas() -> st.SearchStrategy[Any]:
    leaf = _leaf(PLAIN_PATTERNS, [1, 2, 3])
    tree = st.recursive(
        leaf | st.just(True),
        lambda children: st.tuples(leaf, _keyable_compound(children)).map(
            lambda p: {**p[0], **p[1]}
        ),
        max_leaves=8,
    )
    return st.tuples(tree, st.dictionaries(NAMES, tree, max_size=2)).map(with_defs)


_SNAKE: dict[str, str] = {
    "additionalProperties": "additional_properties",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
    "uniqueItems": "unique_items",
    "exclusiveMinimum": "exclusive_minimum",
}
_MAPS = ("properties", "$defs")


def _dialect(node: Any) -> Any:
    """``node`` with some keywords spelled in snake_case (names and data left alone): the
    normalizer renames them back, and errors at them get those renames as causes."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _MAPS and isinstance(value, dict):
            out[key] = {name: _dialect(member) for name, member in value.items()}
        elif key in ("enum", "const", "default", "required", "pattern", "$ref", "x-vendor"):
            out[key] = value
        else:
            name: str = key
            out[_SNAKE.get(name, name)] = _dialect(value)
    return out


def _without(node: Any, keys: set[str]) -> Any:
    """``node`` without ``keys`` anywhere (draft 4 has no ``const``, and its exclusive bounds
    are booleans): more generated schemas are then draft 4 schemas the fast errors take."""
    if isinstance(node, dict):
        return {k: _without(v, keys) for k, v in node.items() if k not in keys}
    if isinstance(node, list):
        return [_without(item, keys) for item in node]
    return node


def _replay(schema: JSON) -> ToolReplay:
    tool = ToolSchema("t", schema, Location("t.json"), "", "mcp")
    return prepare([tool], DEFAULT_RULES)["t"]


def _unmessaged(issues: tuple[ValidationIssue, ...]) -> list[ValidationIssue]:
    return [replace(issue, message="") for issue in issues]


def _compare(replay: ToolReplay, instance: JSON, compared: dict[str, int]) -> None:
    fast = replay.fast_errors
    validator = replay.new.validator
    assert fast is not None and validator is not None
    light = fast(instance)
    compared["instances"] += 1
    if light is None:
        compared["unknown"] += 1
        return
    reference = _errors(validator, instance)
    assert len(light) == len(reference), (replay.normalized.schema, instance, reference)
    ours = replay._issues(_in_order(light), instance, light=True)
    theirs = replay._issues(reference, instance)
    assert _unmessaged(ours) == _unmessaged(theirs), (replay.normalized.schema, instance)
    assert all(issue.message == "" for issue in ours)
    compared["rejected"] += bool(reference)
    compared["caused"] += any(issue.causes for issue in theirs)


@pytest.mark.parametrize(
    ("draft", "examples", "rejected_share", "caused_share"),
    [
        ("https://json-schema.org/draft/2020-12/schema", 300, 0.4, 0.02),
        ("http://json-schema.org/draft-07/schema#", 150, 0.25, 0.02),
        # Integers are not floats there; its meta-schema refuses numeric exclusive bounds, so
        # fewer generated schemas are used, and fewer errors have causes.
        (DRAFT4, 150, 0.1, 0.0),
    ],
)
def test_the_fast_engines_errors_are_the_references_but_for_their_messages(
    draft: str, examples: int, rejected_share: float, caused_share: float
) -> None:
    compared = {"instances": 0, "unknown": 0, "rejected": 0, "caused": 0, "schemas": 0}

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(_keyable_schemas(), st.lists(INSTANCES, min_size=1, max_size=8))
    def agree(schema: Any, instances: list[Any]) -> None:
        if draft == DRAFT4:
            schema = _without(schema, {"const", "exclusiveMinimum", "exclusiveMaximum"})
        if isinstance(schema, dict):
            schema = {"$schema": draft, **schema}
        replay = _replay(_dialect(schema))
        if replay.fast_errors is None:  # the meta-schema or the fast validator refused it
            return
        compared["schemas"] += 1
        for instance in instances:
            _compare(replay, instance, compared)

    agree()
    # Not rare: most generated schemas are keyable, most arguments fail them, many at a
    # renamed keyword; the fast validator declines few (a false subschema, too many errors).
    assert compared["schemas"] >= examples // 5, compared
    assert compared["rejected"] >= rejected_share * compared["instances"], compared
    if caused_share:
        assert compared["caused"] >= caused_share * compared["instances"], compared
    assert compared["unknown"] <= 0.2 * compared["instances"], compared


def test_wherever_a_schema_is_keyable_the_errors_agree() -> None:
    """The general generator (every applicator): ``keyable`` lets through only what agrees."""
    counted = {"keyable": 0, "refused": 0}
    compared = {"instances": 0, "unknown": 0, "rejected": 0, "caused": 0}

    @settings(
        max_examples=300,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(PLAIN_SCHEMAS, st.lists(INSTANCES, min_size=1, max_size=6))
    def agree(schema: Any, instances: list[Any]) -> None:
        replay = _replay(schema)
        if replay._fast_new.validator is None:
            return
        if replay.fast_errors is None:
            counted["refused"] += 1
            return
        counted["keyable"] += 1
        for instance in instances:
            _compare(replay, instance, compared)

    agree()
    assert counted["keyable"] >= 20 and counted["refused"] >= 20, counted


@pytest.mark.parametrize(
    "schema",
    [
        {"propertyNames": {"maxLength": 2}},
        {"dependentSchemas": {"a": {"required": ["b"]}}},
        {"anyOf": [{"dependentSchemas": {"a": {"required": ["b"]}}}]},
        {"contains": {"type": "string"}, "minContains": 2},
        {"items": False},
        {"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}},
        {"$schema": "http://json-schema.org/draft-06/schema#", "if": {"type": "string"}},
        {"prefixItems": [{"type": "string"}]},
        {"unevaluatedProperties": False},
        {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]},
        {"$schema": DRAFT4, "minimum": 1, "exclusiveMinimum": True},
        {"properties": {"a": {"$anchor": "x", "type": "string"}}},
        {"properties": {"a": {"minContains": 1}}},
        {"$schema": DRAFT4, "properties": {"a": {"const": 1}}},  # not a draft 4 keyword
    ],
)
def test_schemas_whose_errors_do_not_map_exactly_are_left_to_the_reference(
    schema: dict[str, Any],
) -> None:
    assert not keyable(schema)
    assert _replay(schema).fast_errors is None


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"anyOf": {"type": "string"}, "$ref": {"maxLength": 1}}},
        {"properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"maxLength": 2}}},
        {"additionalProperties": False, "required": ["a"], "x-vendor": {"anyOf": []}},
        {"items": {"enum": [{"not": {}}], "title": "t"}, "maxItems": 3},
    ],
)
def test_names_data_and_unknown_keywords_do_not_stop_the_fast_errors(
    schema: dict[str, Any],
) -> None:
    assert keyable(schema)
    assert _replay(schema).fast_errors is not None


def test_a_property_named_ref_is_a_name_in_the_error_paths() -> None:
    replay = _replay(
        {
            "properties": {"$ref": {"maxLength": 1}, "b": {"$ref": "#/$defs/b"}},
            "$defs": {"b": {"type": "integer", "maximum": 3}},
        }
    )
    fast = replay.fast_errors
    assert fast is not None
    errors = fast({"$ref": "long", "b": 9, "c": 1})
    assert errors is not None
    issues = replay._issues(_in_order(errors), {}, light=True)
    assert [(i.instance_pointer, i.keyword, i.schema_pointer) for i in issues] == [
        ("/$ref", "maxLength", "/properties/$ref/maxLength"),
        ("/b", "maximum", "/$defs/b/maximum"),  # through the $ref, as the report names it
    ]
    assert [list(e.absolute_schema_path) for e in _in_order(errors)] == [
        ["properties", "$ref", "maxLength"],
        ["properties", "b", "maximum"],  # python-jsonschema's path leaves the $ref out
    ]
    assert fast({"$ref": "x", "b": 3}) == []  # accepted: no errors


def test_the_fast_errors_decline_what_they_cannot_tell_exactly() -> None:
    schema: JSON = {
        "properties": {"a": False, "z": False},
        "additionalProperties": {"maxLength": 1},
    }
    validator = FastCheck(schema).validator
    fast = FastErrors(schema, validator, limit=3)
    # Two false subschemas refusing two values: python-jsonschema places both at the object
    # (no name, no keyword) and orders them by message, which the fast validator does not have.
    assert fast({"a": 1, "z": "x"}) is None
    assert fast({"b": "xx", "c": "xx", "d": "xx", "e": "xx"}) is None  # over the limit
    found = fast({"b": "xx", "c": "xx", "d": "x"})
    assert found is not None and sorted(list(e.path) for e in found) == [["b"], ["c"]]
    assert fast({"b": "x"}) == []


def test_a_false_subschema_is_placed_where_python_jsonschema_places_it() -> None:
    schema: JSON = {"properties": {"a": {"anyOf": [False, {"type": "null"}]}, "b": False}}
    fast = FastErrors(schema, FastCheck(schema).validator, limit=5)
    found = fast({"a": 1, "b": 2})
    assert found is not None
    refused, branched = sorted(found, key=lambda e: e.validator is None)[::-1]
    # The descent into the false subschema leaves the name out of both paths: the error is
    # the object's, under `properties`, with the value `false` refused.
    nameless: object = refused.validator  # the stubs say a name; python-jsonschema writes None
    assert nameless is None
    assert (list(refused.path), list(refused.schema_path)) == ([], ["properties"])
    assert refused.schema is False and refused.instance == 2
    assert (branched.validator, list(branched.path)) == ("anyOf", ["a"])
    # In the branches: the false branch's error has no index (it is no branch's), the other has.
    assert [list(e.relative_schema_path) for e in branched.context] == [[], [1, "type"]]


def test_the_limit_is_python_jsonschemas() -> None:
    schema: JSON = {"additionalProperties": {"maxLength": 0}}
    replay = _replay(schema)
    fast = replay.fast_errors
    assert fast is not None
    assert fast({f"p{i}": "x" for i in range(MAX_ERRORS + 1)}) is None
    assert len(fast({f"p{i}": "x" for i in range(MAX_ERRORS)}) or []) == MAX_ERRORS


# End to end: the benchmark's rejection workload at a small size.

FORMATS = ("table", "markdown", "json", "sarif", "junit", "github", "html")


def _generate(folder: Path) -> None:
    from tests.benchmark_scripts import load_benchmark

    generator = load_benchmark("generate")
    workload = replace(generator.WORKLOADS["rejections"], tools=12)
    generator.generate(1200, 5, folder, workload)


def _audit(
    folder: Path, out: Path, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> dict[str, bytes]:
    out.mkdir()
    arguments = ["audit", "--schemas", str(folder / "tools.json")]
    arguments += ["--logs", str(folder / "calls.jsonl"), "--jobs", "1", "--no-report-files"]
    for name in FORMATS:
        arguments += ["--format", name, "--output", str(out / name)]
    code, _, err = run_cli(arguments + extra, capsys)
    assert code == 1, err  # newly rejected calls fail the audit
    return {name: (out / name).read_bytes() for name in FORMATS}


@pytest.mark.parametrize(
    "extra",
    [
        ["--max-calls", "5", "--examples", "1"],
        ["--max-calls", "20", "--examples", "2", "--group-by", "caller", "--redact"],
    ],
)
def test_reports_are_byte_identical_with_the_fast_errors_on_and_off(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
) -> None:
    _generate(tmp_path / "work")
    before = tool_module.LIGHT.calls
    on = _audit(tmp_path / "work", tmp_path / "on", extra, capsys)
    light = tool_module.LIGHT.calls - before
    monkeypatch.setattr(tool_module, "keyable", lambda schema: False)
    off = _audit(tmp_path / "work", tmp_path / "off", extra, capsys)
    assert tool_module.LIGHT.calls - before == light  # off: not one more
    report = on["json"].decode()
    rejected = int(re.search(r'"newly_rejected": (\d+)', report).group(1))  # type: ignore[union-attr]
    accepted = int(re.search(r'"accepted": (\d+)', report).group(1))  # type: ignore[union-attr]
    assert rejected > 150 and accepted > 500  # refusals and acceptances, both
    assert light > rejected // 2  # most rejections were described by the fast validator
    for name in FORMATS:
        assert on[name] == off[name], name


def test_a_light_result_is_remembered_as_such_and_replaced_when_a_repeat_is_shown() -> None:
    # max_length: a keyword the old runtime ignored, renamed maxLength: newly rejected.
    schema: JSON = {"type": "object", "properties": {"s": {"type": "string", "max_length": 2}}}
    replay = _replay(schema)
    call = Call("log:1", "t", {"s": "abc"}, text='{"s":"abc"}')
    before = tool_module.LIGHT.calls

    hidden, _ = replay.evaluate(call, lambda result: False)
    assert hidden.outcome is Outcome.NEWLY_REJECTED
    assert [(e.keyword, e.schema_pointer, e.message) for e in hidden.errors] == [
        ("maxLength", "/properties/s/maxLength", "")
    ]
    assert [r.pointer for r in hidden.errors[0].causes] == ["/properties/s/max_length"]
    again, _ = replay.evaluate(call, lambda result: False)  # remembered, still light
    assert again == hidden and tool_module.LIGHT.calls == before + 2

    shown, _ = replay.evaluate(call, lambda result: True)  # the repeat is shown: evaluated
    assert [e.message for e in shown.errors] == ['"abc" is too long']
    assert _unmessaged(shown.errors) == _unmessaged(hidden.errors)
    assert replay.evaluate(call, lambda result: False)[0] == shown  # now remembered in full
    assert replay.evaluate(call)[0] == shown
    assert tool_module.LIGHT.calls == before + 2

    accepted, _ = replay.evaluate(Call("log:2", "t", {"s": "ab"}), lambda result: False)
    assert accepted.outcome is Outcome.ACCEPTED and tool_module.LIGHT.calls == before + 2


def test_the_memo_replaces_only_light_entries() -> None:
    memo = Memo(10)
    full: Remembered = (None, REJECTS, frozenset())
    light: Remembered = (None, REJECTS, frozenset({1}))
    memo.put(("t", "a"), light, light=True)
    assert memo.found(("t", "a")) == (light, True)
    memo.put(("t", "a"), full)
    assert memo.found(("t", "a")) == (full, False) and len(memo) == 1
    memo.put(("t", "a"), light, light=True)  # a full entry stays
    assert memo.found(("t", "a")) == (full, False)
    assert memo.found(("t", "b")) is None


class _Kind:
    """Stands for a jsonschema-rs error kind: only its class name is read."""


def _fake(path: list[Any], kind: str, where: list[Any], at: list[Any]) -> SimpleNamespace:
    named = type(kind, (_Kind,), {})
    return SimpleNamespace(evaluation_path=path, kind=named(), schema_path=where, instance_path=at)


def test_errors_that_do_not_map_as_expected_are_declined_one_by_one() -> None:
    schema: JSON = {
        "properties": {"a": {"maxLength": 1}, "b": {"$ref": "#anchor"}},
        "anyOf": [{"maxLength": 1}],
    }
    fast = FastErrors(schema, None, limit=5)
    arguments: JSON = {"a": "xx"}
    good = _fake(
        ["properties", "a", "maxLength"], "MaxLength", ["properties", "a", "maxLength"], ["a"]
    )
    found = fast._mapped(good, arguments)
    assert found is not None
    mapped = found[1]
    assert (mapped.validator, list(mapped.path)) == ("maxLength", ["a"])
    holder = pointers.resolve(schema, "/properties/a")[1]
    assert mapped.schema is holder and mapped.validator_value == 1
    declined = [
        _fake(["properties", "a", "maxLength"], "Type", ["properties", "a", "maxLength"], ["a"]),
        _fake(["anyOf", 1, "maxLength"], "MaxLength", ["anyOf", 1, "maxLength"], []),
        _fake(["anyOf", "0", "maxLength"], "MaxLength", ["anyOf", 0, "maxLength"], []),
        _fake(["properties", "a", "maxLength"], "MaxLength", ["anyOf", 0, "maxLength"], ["a"]),
        _fake(["properties", "maxLength"], "MaxLength", ["properties", "maxLength"], []),
        _fake(["properties", "z", "maxLength"], "MaxLength", ["properties", "z", "maxLength"], []),
        _fake(
            ["properties", "a", "maxLength"], "MaxLength", ["properties", "a", "maxLength"], ["q"]
        ),
        _fake(["properties", "b", "$ref", "maxLength"], "MaxLength", ["maxLength"], ["b"]),
        _fake([], "MaxLength", [], []),
    ]
    assert [fast._mapped(error, arguments) for error in declined] == [None] * len(declined)


def test_arguments_the_fast_engine_cannot_take_are_declined() -> None:
    schema: JSON = {"properties": {"a": {"maxLength": 1}}}
    fast = FastErrors(schema, FastCheck(schema).validator, limit=5)
    assert fast(object()) is None  # type: ignore[arg-type]  # not JSON: it raises
    assert fast({"a": "xx"}) is not None


def test_a_tally_shows_every_result_until_its_listed_calls_are_full() -> None:
    replay = _replay({"type": "object", "properties": {"s": {"type": "string", "max_length": 2}}})
    result, reached = replay.evaluate(Call("log:1", "t", {"s": "abc"}))
    tally = Tally({"t": replay}, ReportSettings(examples=1, max_calls=1))
    assert tally.detailed(result)  # the listed calls have room
    tally.add(result, reached)
    assert not tally.detailed(result)  # listed calls full, its group holds its example
    other = replace(result, call=replace(result.call, tool="u"))
    assert tally.detailed(other)  # a group not seen yet: its first call is shown
