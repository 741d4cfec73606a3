"""Every group says its keyword's limit against what its calls sent (issue: decide with
evidence), one case per keyword family in ``tests/cases/evidence``, reasoned by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.aggregate.pipeline import ReportSettings
from auditor.models import Outcome
from auditor.report import Format, render
from auditor.report.prose import markdown
from tests.conftest import load_cases, run_cli
from tests.reporting import make_report


@pytest.mark.parametrize("case", load_cases("evidence"))
def test_each_family_states_its_limit_against_what_was_sent(
    case: dict[str, Any], tmp_path: Path
) -> None:
    catalog = json.dumps({"t": case["schema"]})  # JSON is YAML, and keeps the keys' order
    report = make_report(tmp_path, catalog, [("t", arguments) for arguments in case["calls"]])
    newly = [g for g in report.groups if g.outcome is Outcome.NEWLY_REJECTED]
    if case["evidence"] is None:
        assert newly == []
        return
    (group,) = newly
    assert markdown(group.evidence) == case["evidence"]
    # Every format that shows groups in detail shows it.
    assert f"- **Evidence:** {case['evidence']}\n" in render(report, Format.MARKDOWN)
    assert "evidence: " in render(report, Format.TABLE)


def test_redaction_keeps_shapes_and_masks_values(tmp_path: Path) -> None:
    catalog = json.dumps(
        {"t": {"type": "object", "properties": {"q": {"type": "string", "max_length": 3}},
               "all_of": [{"properties": {"u": {"type": "string", "enum": ["c"]}}}]}}
    )  # fmt: skip
    calls = [("t", {"q": "secret-value", "u": "hidden"}), ("t", {"q": "abcd", "u": "c"})]
    report = make_report(tmp_path, catalog, calls, ReportSettings(redact=True))
    lines = {g.keyword: markdown(g.evidence) for g in report.groups}
    # Lengths are shape; an enum value sent is content.
    assert lines["maxLength"] == "maxLength `3`; sent 4 to 12 characters (median 8)"
    assert lines["enum"] == 'enum `["c"]`; sent outside it: `"<string, 6 chars>"` (1 call)'
    assert "hidden" not in render(report, Format.MARKDOWN)


def test_error_messages_quote_values_as_json(tmp_path: Path) -> None:
    catalog = json.dumps({"t": {"type": "object", "properties": {"b": {"type": "String"}}}})
    report = make_report(tmp_path, catalog, [("t", {"b": None}), ("t", {"b": True})])
    errors = [issue.message for result in report.calls for issue in result.errors]
    assert errors == ["null is not of type 'string'", "true is not of type 'string'"]


def test_the_values_to_fix_are_listed_with_their_calls_and_sources(tmp_path: Path) -> None:
    catalog = json.dumps(
        {"t": {"type": "object", "properties": {"sql": {"type": "string", "min_length": 1}}}}
    )
    calls = [("t", {"sql": "select 1"})] * 6 + [("t", {"sql": ""})] * 2
    report = make_report(tmp_path, catalog, calls)
    (group,) = report.groups
    # 2 of 8 sent "": an empty value where content is asked for, while most calls meet it.
    assert group.hint.kind.value == "fix-callers"
    (value,) = group.offending
    log = tmp_path / "calls.jsonl"
    assert (value.value, value.calls, value.first, value.last) == ("", 2, f"{log}:7", f"{log}:8")
    assert f'- **Values sent:** `""` (2 calls, first `{log}:7`, last `{log}:8`)' in render(
        report, Format.MARKDOWN
    )


def test_a_group_to_loosen_lists_no_values_to_fix(tmp_path: Path) -> None:
    catalog = json.dumps(
        {"t": {"type": "object", "properties": {"q": {"type": "string", "max_length": 1}}}}
    )
    report = make_report(tmp_path, catalog, [("t", {"q": "long"})] * 6)
    (group,) = report.groups
    assert group.hint.kind.value == "loosen-schema" and group.offending == ()


def test_counts_of_one_are_said_in_the_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.conftest import run_cli

    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps({"t": {"type": "object"}}))
    log = tmp_path / "calls.jsonl"
    log.write_text('{"tool": "t", "arguments": {}}\n{"tool": "t", "arguments": \n')
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files"]
    _, out, _ = run_cli([*args, "--format", "markdown"], capsys)
    assert "1 call was unparseable." in out and "1 calls" not in out
    assert "(2 calls replayed)" in out


@pytest.mark.parametrize("length", [12, 100, 200])
def test_a_long_tool_name_keeps_its_evidence_and_patch(
    tmp_path: Path, length: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # Groups look their tool up by name: a name longer than a logged key's 80 characters
    # (catalogs may name tools so) must not be cut out of its evidence and patch.
    name = "t" * length
    schema = {"type": "object", "properties": {"q": {"type": "string", "max_length": 2}}}
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps([{"name": name, "description": "d", "inputSchema": schema}]))
    log = tmp_path / "calls.jsonl"
    lines = [{"tool": name, "arguments": {"q": "x" * n}} for n in (3, 4, 6)]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files"]
    code, out, _ = run_cli([*args, "--format", "json", "--output", "-"], capsys)
    assert code == 1
    (group,) = json.loads(out)["groups"]
    assert (group["tool"], group["count"], group["tool_calls"]) == (name, 3, 3)
    assert group["evidence"] == "maxLength `2`; sent 3 to 6 characters (median 4)"
    assert group["patch"] is not None
