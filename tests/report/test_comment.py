"""The pull-request comment (``--format comment``): one screen whatever the log, and where the
full report is; the CI run's page comes from ``AUDITOR_RUN_URL``, refused when the comment
could not hold it as a plain link."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.report import Format, render
from auditor.report.comment import MAX_LINES, FullReport
from auditor.report.comment import render as comment
from tests.conftest import run_cli
from tests.reporting import make_report

CATALOG = "t:\n  type: object\n  properties:\n    s: {type: string, min_length: 2}\n"
RUN = "https://github.com/acme/tools/actions/runs/42"


def _args(tmp_path: Path) -> list[str]:
    (tmp_path / "tools.yaml").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "calls.jsonl").write_text(
        json.dumps({"tool": "t", "arguments": {"s": "x"}}) + "\n", encoding="utf-8"
    )
    return ["audit", "--schemas", "tools.yaml", "--logs", "calls.jsonl", "--format", "comment"]


def test_the_comment_names_the_report_folder_and_the_runs_artifact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = _args(tmp_path)
    # Piped to stdout, the report files are written only when --report-dir says where.
    code, out, _ = run_cli(args, capsys)
    assert code == 1
    assert out.splitlines()[-1] == (
        "**Full report:** not written by this run (`--report-dir DIR` writes `audit.md`)."
    )
    code, out, _ = run_cli([*args, "--report-dir", "out/reports"], capsys)
    assert out.splitlines()[-1] == "**Full report:** `out/reports/audit.md`."
    assert (tmp_path / "out" / "reports" / "audit.md").exists()
    monkeypatch.setenv("AUDITOR_RUN_URL", RUN)
    code, out, _ = run_cli([*args, "--report-dir", "out/reports"], capsys)
    assert out.splitlines()[-1] == (
        f"**Full report:** the `reports` artifact of [this run]({RUN}) (`audit.md`, `audit.json`)."
    )
    code, out, _ = run_cli(args, capsys)
    assert out.splitlines()[-1] == f"**Full report:** the artifacts of [this run]({RUN})."


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "ftp://example.com/run",
        "https://example.com/run) [click](https://evil.example",
        "https://example.com/a b",
        "https://example.com/<script>",
        'https://example.com/"quoted"',
        "https://example.com/" + "a" * 2_000,
        "https://example.com/\nnext line",
    ],
)
def test_a_run_url_the_comment_cannot_hold_as_a_plain_link_is_unusable_input(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUDITOR_RUN_URL", url)
    code, out, err = run_cli(_args(tmp_path), capsys)
    assert (code, out) == (2, "")
    assert err == (
        "auditor: error: AUDITOR_RUN_URL must be an http:// or https:// URL of at most 2,000 "
        "characters, without spaces, quotes, brackets or parentheses\n"
    )
    # Only the comment reads it: another format runs whatever the variable holds.
    args = _args(tmp_path)
    code, _, err = run_cli([*args[:-1], "json", "--no-report-files"], capsys)
    assert code == 1, err


def test_the_comment_stays_on_one_screen_whatever_the_catalog_and_the_log(
    tmp_path: Path,
) -> None:
    # 300 tools with long names, each with a newly rejected call, some with several callers:
    # the table shows 10 groups, the roll-up names 5 callers and the verdict 5 tools.
    names = [f"tool_{i:03}_" + "x" * 300 for i in range(300)]
    catalog = "".join(
        f"{name}:\n  type: object\n  properties:\n    s: {{type: string, min_length: 2}}\n"
        for name in names
    )
    report = make_report(tmp_path, catalog, [(name, {"s": "x"}) for name in names])
    assert len(report.groups) == 300
    text = comment(report, FullReport("auditor-reports", RUN))
    lines = text.splitlines()
    assert len(lines) <= MAX_LINES
    assert len(text) < 20_000  # a comment may hold 65,536
    assert len([line for line in lines if line.startswith("|")]) == 2 + 10
    assert "… and 290 more groups (in the full report)" in lines
    assert "and 295 more" in lines[2]  # the verdict names 5 tools and counts the rest
    # Each name is cut in the table and the roll-up, never whole.
    assert names[0] not in text and names[0][:100] in text
    assert render(report, Format.COMMENT) == comment(report)
