"""Catalog shapes, directories, duplicates and unusable files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from auditor import pointers
from auditor.inputs.catalogs import CatalogFormat, expand, load_catalogs, read_catalog

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("document", "shape", "pointer"),
    [
        (
            [{"type": "function", "function": {"name": "search", "parameters": SCHEMA}}],
            "openai",
            "/0/function/parameters",
        ),
        ({"tools": [{"name": "search", "inputSchema": SCHEMA}]}, "mcp", "/tools/0/inputSchema"),
        ([{"name": "search", "input_schema": SCHEMA}], "anthropic", "/0/input_schema"),
        ({"search": SCHEMA}, "mapping", "/search"),
    ],
)
def test_each_shape_is_detected(tmp_path: Path, document: object, shape: str, pointer: str) -> None:
    path = _write(tmp_path / "tools.json", json.dumps(document, indent=2))
    tools, problem = read_catalog(path)
    assert problem is None
    assert [(t.name, t.shape, t.pointer, t.schema) for t in tools] == [
        ("search", shape, pointer, SCHEMA)
    ]


def test_yaml_catalog_keeps_the_line_of_each_schema(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "tools.yaml",
        "# tools\nsearch:\n  type: object\nfetch:  # second\n  type: object\n",
    )
    tools, problem = read_catalog(path)
    assert problem is None
    assert [(t.name, t.location.line, t.location.column) for t in tools] == [
        ("search", 2, 1),
        ("fetch", 4, 1),
    ]


def test_json_catalog_keeps_the_line_of_each_schema(tmp_path: Path) -> None:
    document = [
        {"type": "function", "function": {"name": "a", "parameters": SCHEMA}},
        {"type": "function", "function": {"name": "b", "parameters": SCHEMA}},
    ]
    path = _write(tmp_path / "tools.json", json.dumps(document, indent=2))
    tools, problem = read_catalog(path)
    assert problem is None and [tool.name for tool in tools] == ["a", "b"]
    lines = Path(path).read_text().splitlines()
    for tool in tools:
        assert tool.location.line is not None
        assert lines[tool.location.line - 1].strip().startswith('"parameters"')


def test_directory_is_read_in_sorted_order(tmp_path: Path) -> None:
    _write(tmp_path / "b.yaml", "beta: {type: object}\n")
    _write(tmp_path / "a.json", json.dumps({"alpha": SCHEMA}))
    _write(tmp_path / "notes.txt", "not a catalog")
    catalogs = load_catalogs([str(tmp_path)])
    assert catalogs.problems == ()
    assert [t.name for t in catalogs.tools] == ["alpha", "beta"]


def test_duplicate_tool_names_both_places(tmp_path: Path) -> None:
    first = _write(tmp_path / "one.yaml", "search: {type: object}\n")
    second = _write(tmp_path / "two.yaml", "search: {type: string}\n")
    catalogs = load_catalogs([first, second])
    assert len(catalogs.problems) == 1
    message = str(catalogs.problems[0])
    assert first in message and second in message and "--allow-override" in message


def test_allow_override_keeps_the_later_one_and_says_so(tmp_path: Path) -> None:
    first = _write(tmp_path / "one.yaml", "search: {type: object}\n")
    second = _write(tmp_path / "two.yaml", "search: {type: string}\n")
    catalogs = load_catalogs([first, second], allow_override=True)
    assert catalogs.problems == ()
    assert [t.schema for t in catalogs.tools] == [{"type": "string"}]
    assert [(o.tool, o.kept.path, o.replaced.path) for o in catalogs.overrides] == [
        ("search", second, first)
    ]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("bad.json", '{"a": {"type": "object",}}', "bad.json:1:25: invalid JSON"),
        ("bad.yaml", "a:\n  b: [1, 2\n", "bad.yaml:3:1: invalid YAML"),
        ("list.yaml", "- 1\n- 2\n", "list.yaml: not a catalog in a known format"),
        ("scalar.json", "42", "scalar.json: not a catalog in a known format"),
        ("noname.json", '[{"name": 3, "input_schema": {}}]', "a tool has no name"),
        # JSON has no NaN or infinity; no report could write them: refused in both syntaxes.
        ("nan.json", '{"a": {"maximum": NaN}}', "nan.json: invalid JSON: NaN is not JSON"),
        ("huge.json", '{"a": {"maximum": 1e999}}', "huge.json: invalid JSON: number out of range"),
        ("nan.yaml", "a:\n  type: .nan\n", "nan.yaml:2:9: invalid YAML: .nan is not a JSON number"),
        ("inf.yaml", "a: {maximum: -.Inf}\n", "inf.yaml:1:14: invalid YAML: -.Inf is not a JSON"),
        ("huge.yaml", "a: {maximum: 1.0e+999}\n", "huge.yaml:1:14: invalid YAML: 1.0e+999 is"),
    ],
)
def test_unusable_catalogs_are_named(tmp_path: Path, name: str, text: str, expected: str) -> None:
    path = _write(tmp_path / name, text)
    catalogs = load_catalogs([path])
    assert catalogs.tools == ()
    assert len(catalogs.problems) == 1
    assert expected in str(catalogs.problems[0])
    assert "\n" not in str(catalogs.problems[0])


def test_finite_floats_and_nan_texts_still_load(tmp_path: Path) -> None:
    """The refusal is of non-finite numbers only: a quoted ".nan", a large finite float, a
    sexagesimal YAML 1.1 float and a plain ``1e999`` (a string in YAML 1.1) all load."""
    text = 'a:\n  maximum: 1.5e+300\n  const: ".nan"\n  minimum: 190:20:30.15\n  default: 1e999\n'
    catalogs = load_catalogs([_write(tmp_path / "ok.yaml", text)])
    assert catalogs.problems == ()
    [tool] = catalogs.tools
    assert tool.schema == {
        "maximum": 1.5e300,
        "const": ".nan",
        "minimum": 685230.15,
        "default": "1e999",
    }


def test_missing_catalog_is_a_problem(tmp_path: Path) -> None:
    catalogs = load_catalogs([str(tmp_path / "nope.yaml")])
    assert [str(p) for p in catalogs.problems] == [f"{tmp_path / 'nope.yaml'}: no such file"]


def test_yaml_tags_that_construct_objects_are_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "evil.yaml", "a: !!python/object/apply:os.system ['true']\n")
    catalogs = load_catalogs([path])
    assert catalogs.tools == ()
    assert "invalid YAML" in str(catalogs.problems[0])


CATALOG_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "catalogs"
CATALOG_EXPECTED = yaml.safe_load((CATALOG_FIXTURES / "expected.yaml").read_text())


@pytest.mark.parametrize("name", sorted(CATALOG_EXPECTED))
@pytest.mark.parametrize("forced", [False, True], ids=["detected", "forced"])
def test_catalog_fixture_gives_the_expected_tools(name: str, forced: bool) -> None:
    expected = CATALOG_EXPECTED[name]
    fmt = CatalogFormat(expected["format"]) if forced else None
    tools, problem = read_catalog(str(CATALOG_FIXTURES / name), fmt)
    assert problem is None
    assert [t.shape for t in tools] == [expected["format"]] * len(tools)
    assert [{"name": t.name, "pointer": t.pointer, "line": t.location.line} for t in tools] == [
        {k: v for k, v in tool.items() if k != "schema"} for tool in expected["tools"]
    ]
    for tool, want in zip(tools, expected["tools"], strict=True):
        if "schema" in want:
            assert tool.schema == want["schema"]


def test_every_catalog_format_has_a_fixture() -> None:
    assert {e["format"] for e in CATALOG_EXPECTED.values()} == {f.value for f in CatalogFormat}


def test_gemini_parameters_keep_their_dialect_for_the_normalizer() -> None:
    tools, _ = read_catalog(str(CATALOG_FIXTURES / "gemini_sdk.yaml"))
    origin = {"type": "STRING", "min_length": 3}
    assert pointers.resolve(tools[0].schema, "/properties/origin") == (True, origin)


def test_a_forced_format_that_does_not_fit_names_it(tmp_path: Path) -> None:
    path = _write(tmp_path / "tools.json", json.dumps({"search": SCHEMA}))
    tools, problem = read_catalog(path, CatalogFormat.MCP)
    assert tools == []
    assert str(problem) == f"{path}: not a mcp catalog (tried: mcp): a mapping with keys search"


def test_an_unknown_catalog_lists_the_formats_tried(tmp_path: Path) -> None:
    path = _write(tmp_path / "tools.json", "[1, 2]")
    _, problem = read_catalog(path)
    assert str(problem) == (
        f"{path}: not a catalog in a known format (tried: openai, openai-responses, "
        "anthropic, mcp, gemini, otel, schema, mapping): a list of 2 items; its items 0, 1 "
        "are not objects"
    )


def test_a_lone_schema_is_not_read_as_a_mapping(tmp_path: Path) -> None:
    path = _write(tmp_path / "lookup.json", json.dumps({"properties": {"q": {}}}))
    tools, _ = read_catalog(path)
    assert [(t.name, t.shape, t.pointer) for t in tools] == [("lookup", "schema", "")]


def test_a_directory_without_catalogs_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "tools.txt").write_text("{}")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "tools.yml").write_text("{}")
    files, problems = expand([str(tmp_path / "empty"), str(tmp_path / "full")])
    assert files == [str(tmp_path / "full" / "tools.yml")]
    assert [str(p) for p in problems] == [
        f"{tmp_path / 'empty'}: no catalog files (.json, .yaml, .yml): it holds 1 file (1 .txt)"
    ]
