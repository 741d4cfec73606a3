"""Every format: registered, valid against its schema, deterministic, sized to fit."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest
import xmlschema

from auditor.report import RENDERERS, Format, render
from auditor.report.github import MAX_ANNOTATIONS, escape_data, escape_property
from auditor.report.markdown import MAX_CHARS
from auditor.report.schema import report_schema
from tests.conftest import AUDITOR
from tests.reporting import make_report, write_inputs
from tests.samples import ROOT, Scenario, run, scenarios

SCHEMAS = Path(__file__).resolve().parent / "schemas"
SCENARIOS = scenarios()
IDS = [s.name for s in SCENARIOS]


def test_every_format_has_a_renderer() -> None:
    assert set(RENDERERS) == set(Format)


def test_the_report_schema_is_a_valid_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(report_schema())


def _validate_json(text: str) -> None:
    jsonschema.Draft202012Validator(report_schema()).validate(json.loads(text))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_json_reports_validate_against_the_report_schema(scenario: Scenario) -> None:
    _validate_json(render(run(scenario), Format.JSON))


def test_committed_json_reports_validate_against_the_report_schema() -> None:
    committed = sorted((ROOT / "reports").glob("*/audit.json"))
    assert committed
    for path in committed:
        _validate_json(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_sarif_validates_and_points_at_the_rewritten_key(scenario: Scenario) -> None:
    report = run(scenario)
    document = json.loads(render(report, Format.SARIF))
    schema = json.loads((SCHEMAS / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(schema).validate(document)
    results = document["runs"][0]["results"]
    assert len(results) == len(report.groups)
    catalog = (ROOT / scenario.catalog).read_text(encoding="utf-8").splitlines()
    located = [(r, g) for r, g in zip(results, report.groups, strict=True) if g.causes]
    assert located or not report.groups, "no group has a cause: nothing located to check"
    for result, group in located:
        region = result["locations"][0]["physicalLocation"]["region"]
        line = catalog[region["startLine"] - 1]
        key = group.causes[0].pointer.rsplit("/", 1)[1]
        # A keyword rewrite points at the key; a type rewrite at its `type` key.
        assert line[region["startColumn"] - 1 :].lstrip('"').startswith((key, "type")), line


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_junit_validates_against_the_common_schema(scenario: Scenario) -> None:
    # Stamped, as with --timestamp: Ant's schema requires one (tests/test_junit.py has the rest).
    text = render(
        dataclasses.replace(run(scenario), generated_at="2026-01-31T12:00:00Z"), Format.JUNIT
    )
    xmlschema.XMLSchema(str(SCHEMAS / "junit.xsd")).validate(text)
    assert "<failure" in text


def test_github_annotations_escape_and_stop_at_ten(tmp_path: Path) -> None:
    assert escape_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    properties = "\n".join(f"    p{i}: {{type: string, min_length: 3}}" for i in range(12))
    catalog = f"t:\n  type: object\n  properties:\n{properties}\n"
    report = make_report(tmp_path, catalog, [("t", {f"p{i}": "x"}) for i in range(12)])
    lines = render(report, Format.GITHUB).splitlines()
    assert len(lines) == MAX_ANNOTATIONS + 1
    assert all(line.startswith("::error file=") for line in lines[:-1])
    assert ",line=" in lines[0] and ",col=" in lines[0]
    assert lines[-1].startswith("::error title=auditor summary::")
    assert "2 more groups not annotated" in lines[-1]


def test_markdown_fits_a_pull_request_comment_for_a_huge_log(tmp_path: Path) -> None:
    properties = "\n".join(f"    p{i}: {{type: string, min_length: 3}}" for i in range(300))
    catalog = f"big:\n  type: object\n  properties:\n{properties}\n"
    calls = [("big", {f"p{i % 300}": "x" * (i % 3), "n": "y" * 200}) for i in range(20_000)]
    calls += [("missing", {}) for _ in range(500)]
    report = make_report(tmp_path, catalog, calls)
    text = render(report, Format.MARKDOWN)
    assert len(text) < 65_000
    assert len(text) <= MAX_CHARS
    assert "**Cut to fit a pull-request comment:**" in text
    assert "<details>" in text


def test_small_markdown_is_not_cut(tmp_path: Path) -> None:
    report = make_report(tmp_path, "t: {type: object, min_properties: 1}\n", [("t", {})])
    assert "Cut to fit" not in render(report, Format.MARKDOWN)


@pytest.mark.parametrize(
    ("runtime", "exit_code"),
    # standard: the old schema fails its meta-schema (STRING), so every call is
    # schema_error_before, which the default gate lets pass. lenient: STRING enforces nothing;
    # the first call has extra properties and the third sends b = 0, both newly rejected.
    [("standard", 0), ("lenient", 1)],
)
def test_every_format_is_byte_identical_across_hash_seeds(
    tmp_path: Path, runtime: str, exit_code: int
) -> None:
    catalog, log = write_inputs(
        tmp_path,
        "t:\n  type: object\n  properties:\n    a: {type: STRING}\n    b: {type: integer, "
        "minimum: 0, exclusive_minimum: 0}\n  additional_properties: false\n  required: [a]\n",
        [("t", {"x": 1, "y": 2, "z": 3, "a": "s"}), ("t", {"b": 0}), ("t", {"a": "s", "b": 0})],
    )
    outputs: dict[str, set[bytes]] = {}
    for seed in ("0", "1", "2"):
        args = [
            *AUDITOR,
            "audit",
            "--schemas",
            str(catalog),
            "--logs",
            str(log),
            "--no-report-files",
            "--old-runtime",
            runtime,
        ]
        for fmt in Format:
            args += ["--format", fmt.value, "--output", str(tmp_path / f"{seed}.{fmt.value}")]
        completed = subprocess.run(
            args, capture_output=True, check=False, env={**os.environ, "PYTHONHASHSEED": seed}
        )
        assert completed.returncode == exit_code, completed.stderr
        for fmt in Format:
            outputs.setdefault(fmt.value, set()).add(
                (tmp_path / f"{seed}.{fmt.value}").read_bytes()
            )
    assert {fmt: len(texts) for fmt, texts in outputs.items()} == {f.value: 1 for f in Format}
