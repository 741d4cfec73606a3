"""The results as a second subject of one audit: replayed against the old and new output
schemas, counted apart from the arguments, with the catalogs' sides as for arguments."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from auditor.api import audit
from auditor.inputs.log_files import TooFewCalls
from auditor.models import Outcome, Report, Subject
from auditor.request import AuditRequest, Gating, Inputs, TheChange
from tests.conftest import run_cli

CLOSED = {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False}


def _tool(name: str, output: Any = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "inputSchema": {"type": "object"}}
    if output is not None:
        tool["outputSchema"] = output
    return tool


def _write(tmp_path: Path, name: str, tools: list[dict[str, Any]]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"tools": tools}))
    return str(path)


def _log(tmp_path: Path, results: list[tuple[str, Any]]) -> str:
    lines = []
    for rpc_id, (tool, content) in enumerate(results, start=1):
        call = {"name": tool, "arguments": {}}
        lines.append({"jsonrpc": "2.0", "id": rpc_id, "method": "tools/call", "params": call})
        lines.append({"jsonrpc": "2.0", "id": rpc_id, "result": {"structuredContent": content}})
    path = tmp_path / "calls.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _audit(schemas: str, log: str, new: str | None = None, **inputs: Any) -> Report:
    change = TheChange(new_schemas=(new,) if new else ())
    request = AuditRequest(Inputs(schemas=(schemas,), logs=(log,), **inputs), change)
    return audit(request).report


def _outcomes(report: Report) -> dict[str, int]:
    return {o.value: n for o, n in report.totals.items() if n}


def test_a_closed_output_schema_written_in_a_dialect_wakes_up_for_results_only(
    tmp_path: Path,
) -> None:
    dialect = {"type": "object", "additional_properties": False}
    schemas = _write(tmp_path, "tools.json", [_tool("a", dialect)])
    log = _log(tmp_path, [("a", {"n": 1}), ("a", {})])
    report = _audit(schemas, log)
    # The arguments ({} against {"type": "object"}) are accepted, and counted alone.
    assert _outcomes(report) == {"accepted": 2}
    results = report.results
    assert results is not None and results.subject is Subject.RESULTS
    # {"n": 1} has a property the renamed additionalProperties: false refuses; {} has none.
    assert _outcomes(results) == {"accepted": 1, "newly_rejected": 1}
    (rejected,) = results.calls
    assert rejected.call.source.endswith(":2") and rejected.outcome is Outcome.NEWLY_REJECTED
    assert [c.pointer for e in rejected.errors for c in e.causes] == ["/additional_properties"]


def test_between_catalogs_an_output_schema_removed_validates_nothing_after(
    tmp_path: Path,
) -> None:
    old = _write(tmp_path, "old.json", [_tool("a", CLOSED)])
    new = _write(tmp_path, "new.json", [_tool("a")])
    log = _log(tmp_path, [("a", {"n": 1, "extra": 1}), ("a", {"n": 2})])
    results = _audit(old, log, new).results
    assert results is not None
    # Before, the extra property was refused; after, no output schema validates it.
    assert _outcomes(results) == {"newly_accepted": 1, "accepted": 1}


def test_between_catalogs_an_output_schema_added_judges_results_it_never_judged(
    tmp_path: Path,
) -> None:
    old = _write(tmp_path, "old.json", [_tool("a")])
    new = _write(tmp_path, "new.json", [_tool("a", CLOSED)])
    log = _log(tmp_path, [("a", {"n": 1, "extra": 1}), ("a", {"n": 2})])
    results = _audit(old, log, new).results
    assert results is not None
    # Nothing validated a result before: the extra property is a new rejection.
    assert _outcomes(results) == {"newly_rejected": 1, "accepted": 1}
    assert results.added_tools == ("a",)


def test_results_of_tools_without_output_schema_and_of_unknown_tools(tmp_path: Path) -> None:
    schemas = _write(tmp_path, "tools.json", [_tool("a", CLOSED), _tool("plain")])
    log = _log(tmp_path, [("a", {"n": 1}), ("plain", {"x": 1}), ("gone", {"x": 1})])
    results = _audit(schemas, log).results
    assert results is not None and results.not_validated is not None
    assert results.not_validated.without_output_schema == 1
    # A tool no catalog names is an unknown tool, as its arguments are.
    assert _outcomes(results) == {"accepted": 1, "unknown_tool": 1}


def test_no_output_schema_means_no_results_section(tmp_path: Path) -> None:
    schemas = _write(tmp_path, "tools.json", [_tool("a")])
    log = _log(tmp_path, [("a", {"n": 1})])
    assert _audit(schemas, log).results is None
    # Asked for, the results are the report: none replayed is an empty audit, refused as
    # one unless it is expected; the result of a tool without output schema is counted.
    inputs = Inputs(schemas=(schemas,), logs=(log,), subject=Subject.RESULTS)
    with pytest.raises(TooFewCalls):
        audit(AuditRequest(inputs))
    only = audit(AuditRequest(inputs, gating=Gating(allow_empty=True))).report
    assert only.subject is Subject.RESULTS and only.call_count == 0
    assert only.not_validated is not None and only.not_validated.without_output_schema == 1


def test_the_exit_code_covers_both_subjects(tmp_path: Path) -> None:
    schemas = _write(tmp_path, "tools.json", [_tool("a", {"additional_properties": False})])
    log = _log(tmp_path, [("a", {"n": 1})])
    request = AuditRequest(Inputs(schemas=(schemas,), logs=(log,)))
    result = audit(request)
    assert result.report.gate.exit_code == 0
    assert result.report.results is not None and result.report.results.gate.exit_code == 1
    assert result.exit_code == 1
    arguments_only = AuditRequest(
        Inputs(schemas=(schemas,), logs=(log,), subject=Subject.ARGUMENTS)
    )
    assert audit(arguments_only).exit_code == 0


def test_the_same_constraint_in_arguments_and_results_is_two_groups(tmp_path: Path) -> None:
    closed = {"type": "object", "additional_properties": False}
    tool = {"name": "a", "inputSchema": closed, "outputSchema": closed}
    schemas = _write(tmp_path, "tools.json", [tool])
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "a", "arguments": {"n": 1}}},
        {"jsonrpc": "2.0", "id": 1, "result": {"structuredContent": {"n": 1}}},
    ]  # fmt: skip
    log = tmp_path / "calls.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = _audit(schemas, str(log))
    assert report.results is not None
    (arguments,), (results,) = report.groups, report.results.groups
    assert (arguments.keyword, arguments.schema_pointer) == (
        results.keyword,
        results.schema_pointer,
    )
    assert arguments.fingerprint != results.fingerprint


def test_a_baseline_accepts_the_groups_of_both_subjects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schemas = _write(tmp_path, "tools.json", [_tool("a", {"additional_properties": False})])
    log = _log(tmp_path, [("a", {"n": 1})])
    base = ["audit", "--schemas", schemas, "--logs", log, "--no-report-files", "--quiet"]
    baseline = str(tmp_path / "baseline.json")
    assert run_cli([*base, "--generate-baseline", baseline], capsys)[0] == 0
    assert run_cli(base, capsys)[0] == 1
    assert run_cli([*base, "--baseline", baseline], capsys)[0] == 0


def test_results_are_not_read_from_standard_input_and_it_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    schemas = _write(tmp_path, "tools.json", [_tool("a", {"additional_properties": False})])
    log = Path(_log(tmp_path, [("a", {"n": 1})])).read_bytes()
    base = ["audit", "--schemas", schemas, "--logs", "-", "--no-report-files"]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(log)))
    code, _, err = run_cli(base, capsys)
    # The arguments pass; the results, which would fail, were not read, and that is said.
    assert code == 0
    assert "auditor: warning: the results were not read: standard input is read once" in err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(log)))
    code, _, err = run_cli([*base, "--subject", "results", "-q"], capsys)
    assert (code, err) == (
        2,
        "auditor: error: --subject results cannot read standard input: name the log files\n",
    )


def test_a_parquet_log_audits_its_arguments_and_adds_no_results(tmp_path: Path) -> None:
    # The parquet extra is not in the main run: .ci/run runs this test where it is installed.
    pa = pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")
    pq = pytest.importorskip("pyarrow.parquet")

    schemas = _write(tmp_path, "tools.json", [_tool("a", CLOSED)])
    pq.write_table(pa.table({"tool_name": ["a"], "arguments": ["{}"]}), tmp_path / "c.parquet")
    report = _audit(schemas, str(tmp_path / "c.parquet"))
    assert _outcomes(report) == {"accepted": 1} and report.results is None
