"""Reports are byte-identical whether JSON Lines are read grouped by payload in C, grouped by
the Python twin, or line by line (issue 26, item 1): on every sample and through the engines,
one process and parts in workers, plain and gzip."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml

import auditor.inputs.line_buffers
from auditor.aggregate.pipeline import ReportSettings
from auditor.engines import choice
from auditor.inputs import payload_groups
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.reader import LogReader
from auditor.report import Format, render
from tests.conftest import ROOT, request_for, small_parts
from tests.inputs.compiled_groups import compiled_function
from tests.samples import rendered, scenarios

MODES = ("lines", "compiled", "python")
TRAVEL = ROOT / "sample_logs" / "gemini_travel"


def _mode(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    if mode == "lines":
        monkeypatch.setattr(LogReader, "_grouped_format", lambda *_: False)
    else:
        function = compiled_function() if mode == "compiled" else None
        monkeypatch.setattr(payload_groups, "compiled_group_payloads", function)
        monkeypatch.setattr(payload_groups, "twin_forced", mode == "python")


@pytest.mark.parametrize("scenario", scenarios(), ids=lambda scenario: scenario.name)
def test_every_sample_report_is_the_same_and_the_committed_one(
    monkeypatch: pytest.MonkeyPatch, scenario: object
) -> None:
    reports = []
    for mode in MODES:
        with monkeypatch.context() as patch:
            _mode(patch, mode)
            reports.append(rendered(scenario))  # type: ignore[arg-type]
    assert reports[1] == reports[0] and reports[2] == reports[0]
    for name, text in reports[0].items():
        assert (scenario.report_dir / name).read_text(encoding="utf-8") == text  # type: ignore[attr-defined]


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("jobs", [1, 2])
def test_engines_give_the_same_report_grouped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int, compressed: bool
) -> None:
    # The travel sample (calls with text and object arguments, broken and blank lines)
    # 40 times: its payloads repeat, in small buffers and parts.
    body = (TRAVEL / "calls.jsonl").read_bytes() * 40
    log = tmp_path / ("calls.jsonl.gz" if compressed else "calls.jsonl")
    log.write_bytes(gzip.compress(body) if compressed else body)
    small_parts(monkeypatch, 16 << 10)
    monkeypatch.setattr(auditor.inputs.line_buffers, "BUFFER_BYTES", 5000)
    catalogs = load_catalogs([str(TRAVEL / "tools.yaml")])
    settings = ReportSettings(examples=2, max_calls=40)
    reports = []
    for mode in MODES:
        with monkeypatch.context() as patch:
            _mode(patch, mode)
            report = choice.audit_logs(
                catalogs.tools,
                [str(log)],
                ["tools.yaml"],
                request_for(jobs=jobs),
                settings=settings,
            )
            reports.append({fmt: render(report, fmt) for fmt in (Format.JSON, Format.MARKDOWN)})
    assert reports[1] == reports[0] and reports[2] == reports[0]
    # Every call of the 40 copies is counted (the sample's hand-reasoned count, 40 times).
    expected = yaml.safe_load((TRAVEL / "expected.yaml").read_text("utf-8"))["lenient_totals"]
    assert json.loads(reports[0][Format.JSON])["totals"]["calls"] == 40 * expected["calls"]
