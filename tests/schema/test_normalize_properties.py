"""Property-based tests: normalizing undoes any dialect, and is a no-op on canonical schemas.

The dialect is produced by a helper written independently of the normalizer: it knows only
which keys hold schemas, lists of schemas or maps of schemas, and turns keywords into
snake_case and type names into case variants at those positions and nowhere else.
"""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.schema.edit import rewrite_file
from auditor.schema.normalize import normalize

TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"]
SCHEMA_KEYS = {"not", "items", "additionalProperties", "if", "then", "else", "contains"}
LIST_KEYS = {"anyOf", "allOf", "oneOf", "prefixItems"}
MAP_KEYS = {"properties", "patternProperties", "$defs", "dependentSchemas"}
# Names that look like keywords, where only a wrong walk would rename something.
NAMES = st.sampled_from(["type", "any_of", "min_items", "enum", "anyOf", "path", "mode", "String"])
DATA = st.sampled_from(["any_of", "String", "minItems", "min_items", 1, None, True])

leaf = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(TYPES)
        | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True),
        "minLength": st.integers(0, 3),
        "maxItems": st.integers(0, 3),
        "uniqueItems": st.booleans(),
        "exclusiveMinimum": st.integers(-2, 2),
        "enum": st.lists(DATA, min_size=1, max_size=3),
        "const": DATA,
        "default": st.dictionaries(NAMES, DATA, max_size=2),
        "description": st.sampled_from(["min_items: 1", "type String"]),
        "required": st.lists(NAMES, max_size=2, unique=True),
        "dependentRequired": st.dictionaries(NAMES, st.lists(NAMES, max_size=2), max_size=2),
        "x-any_of": st.dictionaries(NAMES, DATA, max_size=2),
    },
)


def _branches(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            **{key: children for key in ("not", "items", "additionalProperties", "contains")},
            **{key: st.lists(children, min_size=1, max_size=2) for key in ("anyOf", "oneOf")},
            "properties": st.dictionaries(NAMES, children, max_size=3),
            "patternProperties": st.dictionaries(
                st.sampled_from(["^min_items$", "^a"]), children, max_size=2
            ),
            "$defs": st.dictionaries(NAMES, children, max_size=2),
        },
    )


schemas = st.recursive(
    leaf | st.booleans(),
    lambda children: st.tuples(leaf, _branches(children)).map(lambda pair: {**pair[0], **pair[1]}),
    max_leaves=12,
)


def _snake(keyword: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", keyword).lower()


def dialect(schema: Any, rng: random.Random) -> Any:
    """The same schema as a dialect catalog would write it: keyword positions only."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in SCHEMA_KEYS:
            value = dialect(value, rng)
        elif key in LIST_KEYS:
            value = [dialect(v, rng) for v in value]
        elif key in MAP_KEYS:
            value = {name: dialect(v, rng) for name, v in value.items()}
        elif key == "type":
            value = [_case(v, rng) for v in value] if isinstance(value, list) else _case(value, rng)
        spelled = _snake(key) if not key.startswith("$") and rng.random() < 0.7 else key
        out[spelled] = value
    return out


def _case(name: str, rng: random.Random) -> str:
    return rng.choice([name, name.upper(), name.capitalize()])


@given(schemas, st.randoms(use_true_random=False))
def test_a_dialect_normalizes_back_to_the_canonical_schema(schema: Any, rng: random.Random) -> None:
    written = dialect(schema, rng)
    before = copy.deepcopy(written)
    result = normalize(written)
    assert json.dumps(result.schema) == json.dumps(schema)
    assert written == before


@given(schemas)
def test_a_canonical_schema_is_left_as_it_is(schema: Any) -> None:
    result = normalize(schema)
    assert result.rewrites == ()
    assert json.dumps(result.schema) == json.dumps(schema)


@given(schemas, st.randoms(use_true_random=False))
def test_normalizing_twice_equals_normalizing_once(schema: Any, rng: random.Random) -> None:
    once = normalize(dialect(schema, rng))
    twice = normalize(once.schema)
    assert twice.rewrites == ()
    assert json.dumps(twice.schema) == json.dumps(once.schema)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schemas, st.randoms(use_true_random=False), st.booleans())
def test_files_normalize_in_place_to_the_canonical_schema(
    tmp_path: Path, schema: Any, rng: random.Random, as_json: bool
) -> None:
    catalog = {"tool": dialect(schema, rng)}
    path = tmp_path / ("tools.json" if as_json else "tools.yaml")
    text = json.dumps(catalog, indent=2) if as_json else yaml.safe_dump(catalog, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    result = rewrite_file(str(path))
    assert result.problem is None
    loaded = json.loads(result.after) if as_json else yaml.safe_load(result.after)
    assert json.dumps(loaded["tool"]) == json.dumps(schema)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schemas, st.booleans())
def test_a_canonical_file_is_byte_identical(tmp_path: Path, schema: Any, as_json: bool) -> None:
    path = tmp_path / ("tools.json" if as_json else "tools.yaml")
    text = json.dumps({"tool": schema}) if as_json else yaml.safe_dump({"tool": schema})
    path.write_text(text, encoding="utf-8")
    result = rewrite_file(str(path))
    assert result.problem is None and not result.changed and result.after == text
