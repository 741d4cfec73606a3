"""Every format: registered, valid against its schema, deterministic, sized to fit."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
import xmlschema

from auditor.aggregate.pipeline import ReportSettings
from auditor.api import replay
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_files import check_logs
from auditor.inputs.reader import LogReader
from auditor.models import Report
from auditor.report import RENDERERS, Format, render
from auditor.report.github import MAX_ANNOTATIONS, escape_data, escape_property
from auditor.report.markdown import MAX_CHARS
from auditor.report.schema import report_schema
from tests.conftest import AUDITOR
from tests.reporting import make_report, write_inputs
from tests.samples import ROOT, Scenario, run, scenarios

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
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
    # Stamped, as with --timestamp: Ant's schema requires one (tests/report/test_junit.py has
    # the rest).
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


def _many_logs_report(folder: Path, files: int) -> Report:
    """300 properties gaining ``minLength 3``, and ``files`` log files of 10 calls each, most
    sending 0 to 2 characters: hundreds of groups, enough to fill any budget."""
    properties = "\n".join(f"    p{i}: {{type: string, min_length: 3}}" for i in range(300))
    catalog = folder / "tools.yaml"
    catalog.write_text(f"big:\n  type: object\n  properties:\n{properties}\n", encoding="utf-8")
    logs = folder / "logs"
    logs.mkdir()
    for number in range(files):
        lines = [
            json.dumps({"tool": "big", "arguments": {f"p{(number * 10 + i) % 300}": "x" * (i % 3)}})
            for i in range(10)
        ]
        name = f"gateway-{number:04d}-2026-11-30T00-00-00Z.jsonl"
        (logs / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    catalogs = load_catalogs([str(catalog)])
    found, problems = check_logs([str(logs)])
    assert not problems and len(found) == files
    return replay(catalogs.tools, LogReader(found), None, [str(catalog)], settings=ReportSettings())


def test_markdown_fits_with_1200_log_files_naming_the_first_three(tmp_path: Path) -> None:
    text = render(_many_logs_report(tmp_path, 1_200), Format.MARKDOWN)
    assert len(text) <= MAX_CHARS
    inputs = text.splitlines()[-1]
    assert inputs.startswith("Schemas: `") and inputs.count("gateway-") == 3
    for number in range(3):
        assert f"gateway-{number:04d}-2026-11-30T00-00-00Z.jsonl` (jsonl, 10 lines" in inputs
    assert " and 1,197 more log files. auditor " in inputs
    # The notice says what was cut near the top, before the summary, not after the inputs.
    assert text.index("**Cut to fit a pull-request comment:**") < text.index("## Summary")


def test_markdown_names_every_log_file_when_there_are_three(tmp_path: Path) -> None:
    inputs = render(_many_logs_report(tmp_path, 3), Format.MARKDOWN).splitlines()[-1]
    assert inputs.count("gateway-") == 3 and " more log file" not in inputs
    assert "(jsonl, 10 lines, 0 blank, 10 calls)" in inputs


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


def _decoded(line: str) -> tuple[str, str]:
    """An annotation's properties and message as the runner decodes them."""
    properties, message = line.split("::", 2)[1:]
    decode = {"%0A": "\n", "%0D": "\r", "%3A": ":", "%2C": ","}
    for code, char in decode.items():
        message = message.replace(code, char) if code in ("%0A", "%0D") else message
        properties = properties.replace(code, char)
    return properties.replace("%25", "%"), message.replace("%25", "%")


# q: maxLength 3 by the normalizer (max_length enforced nothing before). Six calls of 7 sent 5
# to 10 characters: loosen, raise to 10. s: minLength 1; one call of 7 sent "": fix callers.
DECIDED = (
    "t:\n  type: object\n  properties:\n    q: {type: string, max_length: 3}\n"
    "    s: {type: string, min_length: 1}\n"
)
DECIDED_CALLS = [("t", {"q": "abcde" + "x" * i}) for i in range(6)] + [("t", {"q": "a", "s": ""})]


def test_github_annotations_carry_the_evidence_and_the_patch_or_the_values(
    tmp_path: Path,
) -> None:
    lines = render(make_report(tmp_path, DECIDED, DECIDED_CALLS), Format.GITHUB).splitlines()
    assert len(lines) == 3 and all(line.startswith("::error ") for line in lines)
    messages = [_decoded(line)[1].splitlines() for line in lines[:2]]
    loosen, fix = sorted(messages, key=lambda m: "maxLength" not in m[0])
    assert loosen[1] == "evidence: maxLength 3; sent 5 to 10 characters (median 7.5)"
    assert loosen[2].startswith("patch: raise maxLength 3 → 10 at ")
    assert loosen[2].endswith('[{"op": "replace", "path": "/properties/q/maxLength", "value": 10}]')
    assert loosen[3] == 'error: "abcde" is too long'
    assert not any(m.startswith("values to fix") for m in loosen)
    assert fix[1].startswith("evidence: minLength 1; ")
    assert fix[2].startswith('values to fix: "" (1 call, first ') and fix[2].endswith(":7)")
    assert not any(m.startswith("patch") for m in fix)
    for message in (loosen, fix):
        assert re.fullmatch(r"\(fingerprint [0-9a-f]{16}\)", message[-1])


def test_github_annotations_keep_a_hostile_value_on_its_line_and_within_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1 call of 10 sends 21 characters against maxLength 3: a caller bug, shown as a
    # value to fix; the value holds a forged workflow command after a line break.
    name = "t" * 70  # below the length where names are abbreviated
    catalog = f"{name}:\n  type: object\n  properties:\n    q: {{type: string, max_length: 3}}\n"
    calls = [(name, {"q": f"a{i}"}) for i in range(9)] + [(name, {"q": "ab\n::error::forged%0A"})]
    report = make_report(tmp_path, catalog, calls)
    properties, message = _decoded(render(report, Format.GITHUB).splitlines()[0])
    shown = message.splitlines()
    assert shown[0].startswith(f"1 of 10 calls of {name} fails maxLength")
    assert shown[1] == "evidence: maxLength 3; sent 21 characters"
    assert shown[2].startswith('values to fix: "ab\\n::error::forged%0A" (1 call, first ')
    assert shown[-2] == 'error: "ab\\n::error::forged%0A" is too long'
    assert (
        properties.split("title=", 1)[1]
        == f"auditor: {name}: 1 call fails maxLength at /properties/q/maxLength"
    )

    monkeypatch.setattr("auditor.report.github.MAX_MESSAGE", 200)
    monkeypatch.setattr("auditor.report.github.MAX_TITLE", 60)
    lines = render(report, Format.GITHUB).splitlines()
    assert len(lines) == 2 and not any(line.startswith("::error::") for line in lines)
    properties, message = _decoded(lines[0])
    title = properties.split("title=", 1)[1]
    assert len(title) == 60 and title.endswith("…")
    shown = message.splitlines()
    assert len(message) <= 200 and "…" in message
    assert re.fullmatch(r"\(fingerprint [0-9a-f]{16}\)", shown[-1])


def test_markdown_cuts_a_very_long_input_path(tmp_path: Path) -> None:
    folder = tmp_path / ("d" * 200) / ("e" * 200)
    folder.mkdir(parents=True)
    report = make_report(folder, "t: {type: object}\n", [("t", {})])
    inputs = render(report, Format.MARKDOWN).splitlines()[-1]
    schemas = inputs.split(". Logs: ")[0].removeprefix("Schemas: ")
    assert len(str(folder / "tools.yaml")) > 300
    assert schemas == f"`{str(folder / 'tools.yaml')[:299]}…`"


def test_markdown_tables_pad_by_code_points_whether_or_not_wcwidth_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # tabulate pads by display width when it can import wcwidth: a CJK tool name (two cells
    # a character) would then be padded differently than in an environment without it.
    import tabulate as tabulate_module

    catalog = (
        "tools:\n  - name: 検索ツール\n    parameters:\n      type: object\n"
        "      properties:\n        q: {type: string, max_length: 2}\n"
    )
    calls = [("検索ツール", {"q": "abc"}), ("検索ツール", {"q": "a"})]
    report = make_report(tmp_path, catalog, calls)
    plain = render(report, Format.MARKDOWN)

    class DoubleWidth:  # a stand-in for wcwidth: every non-ASCII character takes two cells
        @staticmethod
        def wcswidth(text: str) -> int:
            return sum(1 if ord(c) < 128 else 2 for c in text)

        wcwidth = wcswidth

    monkeypatch.setattr(tabulate_module, "wcwidth", DoubleWidth, raising=False)
    monkeypatch.setattr(tabulate_module, "WIDE_CHARS_MODE", True)
    assert render(report, Format.MARKDOWN) == plain
    assert tabulate_module.WIDE_CHARS_MODE is True  # put back after each table
    assert "検索ツール" in plain
    # The stand-in does change how tabulate pads, outside the report's tables:
    wide = tabulate_module.tabulate([["検索"]], ["name"], tablefmt="pipe")
    monkeypatch.setattr(tabulate_module, "WIDE_CHARS_MODE", False)
    assert wide != tabulate_module.tabulate([["検索"]], ["name"], tablefmt="pipe")
