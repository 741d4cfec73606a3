"""The results section: in every format where a report holds results, nowhere otherwise."""

from __future__ import annotations

import json
import re

import pytest

from auditor.api import audit
from auditor.models import Report
from auditor.report import Format, render
from auditor.report.table import concise
from auditor.request import AuditRequest, Inputs
from tests.samples import ROOT

SAMPLE = ROOT / "sample_logs" / "mcp_results"
ARGUMENTS_ONLY = ROOT / "sample_logs" / "mcp_files"


def _report(folder: object) -> Report:
    inputs = Inputs(schemas=(f"{folder}/tools.json",), logs=(f"{folder}/calls.jsonl",))
    return audit(AuditRequest(inputs)).report


@pytest.fixture(scope="module")
def with_results() -> Report:
    report = _report(SAMPLE)
    assert report.results is not None and report.results.groups
    return report


@pytest.fixture(scope="module")
def arguments_only() -> Report:
    report = _report(ARGUMENTS_ONLY)
    assert report.results is None
    return report


@pytest.mark.parametrize("fmt", list(Format), ids=[f.value for f in Format])
def test_a_report_of_arguments_alone_has_no_results_section(
    fmt: Format, arguments_only: Report
) -> None:
    text = render(arguments_only, fmt)
    assert "of results" not in text and "(results)" not in text
    assert "structuredContent" not in text and "not validated" not in text


@pytest.mark.parametrize("fmt", list(Format), ids=[f.value for f in Format])
def test_every_format_shows_the_results_groups_apart(fmt: Format, with_results: Report) -> None:
    assert with_results.results is not None
    text = render(with_results, fmt)
    for group in with_results.results.groups:
        if fmt not in (Format.COMMENT, Format.GITLAB):  # no fingerprint, or a hash of it
            assert group.fingerprint in text, fmt
    marks = {
        Format.TABLE: "Results. Each tool's result",
        Format.MARKDOWN: "\n## auditor: normalization audit of results\n",
        Format.JSON: '"subject": "results"',
        Format.SARIF: '"subject": "results"',
        Format.JUNIT: 'name="get_forecast (results)"',
        Format.GITHUB: "title=auditor results summary::",
        Format.HTML: '<section id="results"><h2>auditor: normalization audit of results</h2>',
        Format.COMMENT: "**Results: FAIL**",
        Format.GITLAB: '"description": "Results: get_forecast: ',
    }
    assert marks[fmt] in text.replace("\n<h2>", "<h2>"), fmt


def test_the_json_results_are_a_report_of_their_own(with_results: Report) -> None:
    document = json.loads(render(with_results, Format.JSON))
    assert "subject" not in document and "not_validated" not in document
    results = document["results"]
    assert results["subject"] == "results"
    assert results["not_validated"] == {
        "results": 4,
        "error_results": 2,
        "unstructured": 1,
        "without_output_schema": 1,
    }
    assert results["totals"]["calls"] == 6 and document["totals"]["calls"] == 10
    assert "results" not in results  # one level only


def test_markdown_puts_every_results_heading_one_level_down(with_results: Report) -> None:
    text = render(with_results, Format.MARKDOWN)
    head, _, section = text.partition("\n## auditor: normalization audit of results\n")
    assert section and text.count("\n# ") == 0 and text.startswith("# auditor")
    headings = re.findall(r"^(#+) ", section, re.MULTILINE)
    assert headings and all(len(marks) >= 3 for marks in headings)
    assert "### Newly rejected calls" in section and "## Newly rejected calls" in head


def test_the_terminal_verdict_names_both_subjects_last(with_results: Report) -> None:
    for text in (render(with_results, Format.TABLE), concise(with_results, 80, 1)):
        assert text.rstrip("\n").splitlines()[-1] == (
            "2 calls would be newly rejected; 1 result would be newly rejected; exit 1"
        )
        assert text.count("would be newly rejected") == 2  # the verdict is said once


def test_the_results_roll_up_says_fix_the_server_and_loosen_the_output_schema() -> None:
    from auditor.models import RollUpKind
    from auditor.report.common import RESULT_ROLLUP_LABELS, ROLLUP_LABELS

    assert RESULT_ROLLUP_LABELS[RollUpKind.FIX_CALLERS] == "Fix the server"
    assert RESULT_ROLLUP_LABELS[RollUpKind.LOOSEN_SCHEMA] == "Loosen the output schema"
    assert ROLLUP_LABELS[RollUpKind.FIX_CALLERS] == "Fix the callers"
