"""The fast validator's errors agree with python-jsonschema's under every applicator it maps.

Differential, over generated schemas nesting ``anyOf``/``oneOf``/``allOf``/``not``/``if``-
``then``-``else``/``contains``/``patternProperties``/``$ref``/``dependentRequired`` (keys in
any order, since python-jsonschema's order of a branch's errors follows them; keywords in
snake_case the normalizer renames, so that errors inside branches have causes), and
arguments: for every example the fast validator's errors are python-jsonschema's, or it
declines. Compared twice: as the report reads them (keyword, schema pointer, instance
pointer, causes, observations: ``tests.replay.test_fast_errors._compare``) and field by field, the
branches' errors (``context``) included, in python-jsonschema's order. Floors on how often
the fast validator answered keep a fast path that always declines from passing.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema.exceptions import ValidationError

from auditor.models import JSON
from auditor.replay import tool as tool_module
from auditor.replay.tool import _errors, _in_order
from tests.replay.test_fast_errors import FORMATS, _audit, _compare, _replay
from tests.replay.test_fast_validator import INSTANCES, NAMES, NUMBERS, PLAIN_PATTERNS

_REFS = [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}]
_SNAKE = {
    "maxLength": "max_length",
    "minItems": "min_items",
    "uniqueItems": "unique_items",
    "additionalProperties": "additional_properties",
    "exclusiveMaximum": "exclusive_maximum",
}
_DATA = frozenset({"enum", "const", "required", "pattern", "$ref", "dependentRequired"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf"})
_VALUES = st.sampled_from([None, True, 0, 2, 7.5, "", "a", "abc", "ABC-12", [1, 1], {"a": 1}])


def _leaf() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["string", "integer", "number", "object", "array", "null"])
            | st.lists(
                st.sampled_from(["string", "integer", "null"]), min_size=1, max_size=2, unique=True
            ),
            "pattern": st.sampled_from(PLAIN_PATTERNS),
            "maxLength": st.integers(0, 3),
            "minimum": NUMBERS,
            "exclusiveMaximum": NUMBERS,
            "multipleOf": st.sampled_from([1, 2, 3]),
            "enum": st.lists(_VALUES, min_size=1, max_size=3),
            "const": _VALUES,
            "uniqueItems": st.booleans(),
            "minItems": st.integers(0, 2),
            "maxProperties": st.integers(0, 2),
            "required": st.lists(NAMES, max_size=2, unique=True),
        },
    )


def _compound(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "properties": st.dictionaries(NAMES, children, max_size=3),
            "patternProperties": st.dictionaries(
                st.sampled_from(PLAIN_PATTERNS), children, max_size=2
            ),
            "additionalProperties": children,
            "items": children.filter(lambda child: isinstance(child, dict)),
            "anyOf": st.lists(children, min_size=1, max_size=3),
            "oneOf": st.lists(children, min_size=1, max_size=3),
            "allOf": st.lists(children, min_size=1, max_size=2),
            "not": children,
            "contains": children,
            "if": children,
            "then": children,
            "else": children,
            "dependentRequired": st.dictionaries(
                NAMES, st.lists(NAMES, max_size=2, unique=True), max_size=2
            ),
        },
    )


def _shuffled(node: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """``node`` with its keys in any order: python-jsonschema evaluates them in that order."""
    return st.permutations(list(node.items())).map(dict)


def _trees(refs: bool) -> st.SearchStrategy[Any]:
    base = _leaf() | st.booleans()
    if refs:
        base = base | st.sampled_from(_REFS)
    return st.recursive(
        base,
        lambda children: (
            st.tuples(_leaf(), _compound(children))
            .map(lambda pair: {**pair[0], **pair[1]})
            .flatmap(_shuffled)
        ),
        max_leaves=10,
    )


def _branched(trees: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Branches where arguments meet them: at the root, or under properties (the commonest
    shape in catalogs: ``"x": {"anyOf": [T, {"type": "null"}]}``)."""
    branches = st.lists(trees, min_size=2, max_size=3)
    split = st.sampled_from(["anyOf", "oneOf"]).flatmap(
        lambda keyword: branches.map(lambda found: {keyword: found})
    )
    return split | st.dictionaries(NAMES, split, min_size=1, max_size=3).map(
        lambda members: {"type": "object", "properties": members}
    )


def _schemas() -> st.SearchStrategy[Any]:
    """A tree whose ``$ref``s (anywhere, branches included) lead into ``$defs`` holding trees
    without references (so never recursive: the fast validator would refuse those)."""
    defs = st.fixed_dictionaries({"a": _trees(False), "b": _trees(False)})
    trees = _trees(True)
    return st.tuples(trees | _branched(trees), defs).map(
        lambda pair: {**pair[0], "$defs": pair[1]} if isinstance(pair[0], dict) else pair[0]
    )


def _dialect(node: Any) -> Any:
    """``node`` with some keywords in snake_case, through branches and maps of subschemas."""
    if isinstance(node, list):
        return [_dialect(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    key: str
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _dialect(member) for name, member in value.items()}
        elif key in _DATA:
            out[key] = value
        else:
            out[_SNAKE.get(key, key)] = _dialect(value)
    return out


def _in_draft7(node: Any) -> Any:
    """``node`` with its ``$defs`` as draft 7 names them (there ``$defs`` is no keyword, and a
    ``$ref`` into it would not land on a schema: the fast validator is not trusted with that),
    and its regexes without a final ``$``: jsonschema-rs checks a draft 7 schema's regexes as
    its meta-schema's ``format: regex`` and refuses the fast validator's spelling of ``$``
    (``engine.python_dollar``), so such a schema never reaches the fast validator."""
    if isinstance(node, list):
        return [_in_draft7(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str):
            out[key] = value.replace("#/$defs/", "#/definitions/")
        elif key == "pattern" and isinstance(value, str):
            out[key] = value.removesuffix("$")
        elif key == "patternProperties" and isinstance(value, dict):
            out[key] = {k.removesuffix("$"): _in_draft7(v) for k, v in value.items()}
        elif key in ("enum", "const"):
            out[key] = value
        else:
            out["definitions" if key == "$defs" else key] = _in_draft7(value)
    return out


def _without(node: Any, keys: frozenset[str]) -> Any:
    if isinstance(node, dict):
        return {k: _without(v, keys) for k, v in node.items() if k not in keys}
    if isinstance(node, list):
        return [_without(item, keys) for item in node]
    return node


def _same(ours: ValidationError, theirs: ValidationError, where: str) -> None:
    """Every field the report's readers take from an error (``CauseFinder``, ``observe``, the
    witnesses), the branches' errors included and in order; all but the message."""
    assert ours.validator == theirs.validator, where
    assert list(ours.relative_path) == list(theirs.relative_path), where
    assert list(ours.relative_schema_path) == list(theirs.relative_schema_path), where
    assert list(ours.absolute_path) == list(theirs.absolute_path), where
    assert list(ours.absolute_schema_path) == list(theirs.absolute_schema_path), where
    assert ours.schema is theirs.schema, where
    assert ours.validator_value is theirs.validator_value, where
    assert ours.instance == theirs.instance, where
    assert len(ours.context) == len(theirs.context), where
    for index, (sub, reference) in enumerate(zip(ours.context, theirs.context, strict=True)):
        _same(sub, reference, f"{where}/context/{index}")


def _contexts(errors: list[ValidationError]) -> int:
    return sum(len(e.context) + _contexts(list(e.context)) for e in errors)


DRAFT7 = "http://json-schema.org/draft-07/schema#"
"""No ``dependentRequired`` there (a keyword of another draft keeps a schema with the
reference); see ``_in_draft7`` for the rest."""


@pytest.mark.parametrize(
    ("draft", "examples"),
    [
        ("https://json-schema.org/draft/2020-12/schema", 400),
        ("https://json-schema.org/draft/2019-09/schema", 100),
        (DRAFT7, 200),
    ],
)
def test_under_every_applicator_the_fast_errors_are_the_references_or_declined(
    draft: str, examples: int
) -> None:
    counted = {
        "schemas": 0,
        "instances": 0,
        "rejected": 0,
        "taken": 0,
        "branched": 0,
        "branch_errors": 0,
    }
    compared = {"instances": 0, "unknown": 0, "rejected": 0, "caused": 0}

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(_schemas(), st.lists(INSTANCES, min_size=1, max_size=8))
    def agree(schema: Any, instances: list[JSON]) -> None:
        if not isinstance(schema, dict):
            return
        if draft == DRAFT7:
            schema = _in_draft7(_without(schema, frozenset({"dependentRequired"})))
        replay = _replay(_dialect({"$schema": draft, **schema}))
        fast, validator = replay.fast_errors, replay.new.validator
        if fast is None or validator is None:
            return  # the meta-schema or the fast validator refused it
        counted["schemas"] += 1
        for instance in instances:
            counted["instances"] += 1
            reference = _errors(validator, instance)
            counted["rejected"] += bool(reference)
            light = fast(instance)
            if light is None:
                assert reference, (replay.normalized.schema, instance)  # declines only errors
                continue
            ours = _in_order(light)
            assert len(ours) == len(reference), (replay.normalized.schema, instance)
            for index, (mine, theirs) in enumerate(zip(ours, reference, strict=True)):
                _same(mine, theirs, f"{replay.normalized.schema} {instance!r} error {index}")
            _compare(replay, instance, compared)  # and as the report reads them
            counted["taken"] += bool(reference)
            counted["branched"] += any(e.context for e in reference)
            counted["branch_errors"] += _contexts(reference)

    agree()
    # Not rare: most generated schemas are keyable, and the fast validator answers for most
    # rejections, many of them with branches, some with causes (a renamed keyword) inside.
    assert counted["schemas"] >= examples // 3, counted
    assert counted["rejected"] >= 0.4 * counted["instances"], counted
    assert counted["taken"] >= 0.6 * counted["rejected"], counted
    assert counted["branched"] >= 0.05 * counted["taken"] and counted["branch_errors"] >= 20
    assert compared["unknown"] == 0 and compared["instances"] == counted["taken"] + (
        counted["instances"] - counted["rejected"]
    ), (counted, compared)
    assert compared["caused"] >= 0.02 * counted["taken"], (counted, compared)


# End to end: a catalog of applicators (some written in a dialect the old runtime ignored, so
# that calls are newly rejected with causes inside branches), reports on and off.

_CATALOG: JSON = {
    "tools": [
        {
            "name": "search",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "pattern": "^[a-z]{2,8}_[0-9]{1,7}$"},
                    "mode": {"any_of": [{"const": "fast"}, {"const": "full"}]},
                    "note": {"anyOf": [{"type": "string", "max_length": 6}, {"type": "null"}]},
                    "filter": {
                        "oneOf": [
                            {
                                "type": "object",
                                "properties": {"field": {"enum": ["a", "b"]}},
                                "required": ["field"],
                            },
                            {"type": "string", "minLength": 2},
                        ]
                    },
                    "level": {
                        "if": {"type": "integer"},
                        "then": {"minimum": 0},
                        "else": {"type": "string", "pattern": "^[a-z]+$"},
                    },
                    "tags": {
                        "type": "array",
                        "items": {"$ref": "#/$defs/tag"},
                        "contains": {"const": "main"},
                        "unique_items": True,
                    },
                },
                "patternProperties": {"^x_": {"type": "integer"}},
                "dependentRequired": {"note": ["id"]},
                "allOf": [{"not": {"required": ["forbidden"]}}],
                "additional_properties": False,
                "$defs": {"tag": {"type": "string", "maxLength": 6}},
            },
        },
        {
            "name": "lookup",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "scope": {"oneOf": [{"const": "all"}, {"type": "array", "min_items": 1}]},
                    "limit": {"anyOf": [{"type": "integer", "maximum": 50}, {"type": "null"}]},
                },
                "required": ["id"],
            },
        },
    ]
}
_ARGUMENTS: dict[str, list[JSON]] = {
    "id": ["ab_1", "main_5721", "Bad-1", 7],
    "mode": ["fast", "full", "slow", None],
    "note": [None, "short", "far too long", 3],
    "filter": [{"field": "a"}, {"field": "c"}, "xy", "x", {}, 1],
    "level": [0, -1, "abc", "ABC", 2.5],
    "tags": [["main"], ["main", "main"], ["other"], ["main", "toolong_tag"], []],
    "x_count": [1, "one"],
    "forbidden": [True],
    "extra": [1],
    "scope": ["all", ["a"], [], "some"],
    "limit": [10, 99, None, "ten"],
}


def _write_workload(folder: Path, calls: int) -> None:
    rng = random.Random(26)
    folder.mkdir()
    (folder / "tools.json").write_text(json.dumps(_CATALOG))
    names = {
        "search": ["id", "mode", "note", "filter", "level", "tags", "x_count", "forbidden"],
        "lookup": ["id", "scope", "limit", "extra"],
    }
    with (folder / "calls.jsonl").open("w") as log:
        for index in range(calls):
            tool = rng.choice(["search", "lookup"])
            chosen = rng.sample(names[tool], rng.randint(1, 4))
            arguments = {name: rng.choice(_ARGUMENTS[name]) for name in chosen}
            record = {"id": f"call_{index}", "tool": tool, "arguments": json.dumps(arguments)}
            log.write(json.dumps(record) + "\n")


@pytest.mark.parametrize(
    "extra",
    [
        ["--max-calls", "5", "--examples", "1"],
        ["--max-calls", "20", "--examples", "2", "--group-by", "caller", "--redact"],
    ],
)
def test_reports_on_applicators_are_byte_identical_with_the_fast_errors_on_and_off(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
) -> None:
    _write_workload(tmp_path / "work", 1500)
    before = tool_module.LIGHT.calls
    on = _audit(tmp_path / "work", tmp_path / "on", extra, capsys)
    light = tool_module.LIGHT.calls - before
    monkeypatch.setattr(tool_module, "keyable", lambda schema: False)
    off = _audit(tmp_path / "work", tmp_path / "off", extra, capsys)
    assert tool_module.LIGHT.calls - before == light  # off: not one more
    found = re.search(r'"newly_rejected": (\d+)', on["json"].decode())
    assert found is not None
    rejected = int(found.group(1))
    assert rejected > 50, rejected
    assert light > rejected // 2, (light, rejected)  # most were described by the fast validator
    for name in FORMATS:
        assert on[name] == off[name], name
