"""The default gate fails every change that breaks calls: an unusable new schema too.

Two scenarios, reasoned from the schemas (tests/fixtures/gate/):

- ``bfcl_functions.json``, written as BFCL writes its functions: ``"type": "dict"`` at each
  root and ``"float"`` for numbers. The default rules (keyword-case, type-case) leave both as
  they are (``"dict".lower()`` and ``"float".lower()`` are no JSON type; mapping them is the
  type-alias family, not on by default), so every new schema fails its meta-schema and each of
  the six logged calls meets an unusable new schema (``schema_error_after``). The lenient old
  reading dropped those type names, so the calls got through before: after the change they
  fail.
- ``pr_base.json`` -> ``pr_head.json``: a pull request writing ``"type": "Integer"`` for
  ``list_issues``' ``per_page``. A catalog given with ``--new-schemas`` (or ``--against``) is
  taken as written, so the head schema fails its meta-schema: the three calls of
  ``list_issues`` (one sends no ``per_page`` at all: the whole schema is unusable) fail after
  the change; ``get_issue`` is unchanged and its one call is accepted.

Both exit 1 by default, through the CLI and the Action, and every format says so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from tests.cli.test_action import REAL, _run_audit_step, _step
from tests.conftest import ROOT, run_cli

FIXTURES = ROOT / "tests" / "fixtures" / "gate"
BFCL = ["--schemas", str(FIXTURES / "bfcl_functions.json")]
BFCL_LOG = str(FIXTURES / "bfcl_calls.jsonl")
PR = ["--schemas", str(FIXTURES / "pr_base.json"), "--new-schemas", str(FIXTURES / "pr_head.json")]
PR_LOG = str(FIXTURES / "pr_calls.jsonl")
FORMATS = {
    "json": "audit.json",
    "markdown": "audit.md",
    "html": "audit.html",
    "junit": "audit.xml",
    "sarif": "audit.sarif",
    "github": "audit.github.txt",
}
SCENARIOS = {
    # name: (arguments, log, calls that will fail, by tool)
    "bfcl": (
        BFCL,
        BFCL_LOG,
        {"calculate_density": 2, "calculate_triangle_area": 2, "math.hypot": 2},
    ),
    "pull request": (PR, PR_LOG, {"list_issues": 3}),
}


def _audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], log: str, *extra: str
) -> tuple[int, dict[str, str]]:
    outputs = [
        part
        for name, file in FORMATS.items()
        for part in ("--format", name, "--output", str(tmp_path / file))
    ]
    code, _, err = run_cli(
        ["audit", *args, "--logs", log, "--no-report-files", "-q", *outputs, *extra], capsys
    )
    assert code in (0, 1), err
    return code, {name: (tmp_path / file).read_text() for name, file in FORMATS.items()}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_calls_meeting_an_unusable_new_schema_fail_the_default_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: str
) -> None:
    args, log, broken = SCENARIOS[scenario]
    code, texts = _audit(tmp_path, capsys, args, log)
    assert code == 1
    report = json.loads(texts["json"])
    groups = report["groups"]
    after = {g["tool"]: g["count"] for g in groups if g["outcome"] == "schema_error_after"}
    assert after == broken
    assert report["totals"]["newly_rejected"] == 0
    # The gate data: every unusable-schema group fails, and the level says what it counts.
    failing = {g["fingerprint"] for g in report["groups"] if g["outcome"] == "schema_error_after"}
    assert set(report["gate"]["failing_groups"]) == failing
    assert report["gate"]["failing_outcomes"] == ["schema_error_after", "newly_rejected"]
    calls = sum(broken.values())
    # Markdown and HTML say the calls will fail, never that they cannot be checked.
    for name in ("markdown", "html"):
        assert f"{calls} calls will fail" in texts[name], name
        assert "cannot be checked" not in texts[name], name
    assert '<p class="badge fail">FAIL: 0 newly rejected calls, ' in texts["html"]
    assert f"{calls} calls that will fail on an unusable new schema" in texts["html"]
    assert "badge pass" not in texts["html"]
    # JUnit: each group a failing case; SARIF: each result an error; GitHub: errors.
    cases = list(ET.fromstring(texts["junit"]).iter("testcase"))
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == len(broken)
    assert all("will fail" in (c.find("failure").get("message") or "") for c in failed)  # type: ignore[union-attr]
    results = json.loads(texts["sarif"])["runs"][0]["results"]
    assert [r["level"] for r in results] == ["error"] * len(broken)
    lines = texts["github"].splitlines()
    assert len(lines) == len(broken) + 1
    assert all(line.startswith("::error ") for line in lines)
    assert f"{calls} calls will fail on an unusable new schema" in lines[-1]


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_only_never_lets_an_unusable_new_schema_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: str
) -> None:
    args, log, _ = SCENARIOS[scenario]
    code, texts = _audit(tmp_path, capsys, args, log, "--fail-on", "never")
    assert code == 0
    assert '<p class="badge pass">PASS: 0 newly rejected calls, ' in texts["html"]
    assert json.loads(texts["json"])["gate"]["failing_outcomes"] == []
    # Still said: the calls will fail, whatever the gate.
    assert "calls will fail" in texts["markdown"]


def test_the_same_catalogs_made_usable_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Acceptance beside the refusals above: with the type-alias family, dict -> object and
    # float -> number, every new schema is usable and accepts every logged call (each sends
    # its required names with values of their types: 39000 is a number too).
    rules = ["--rules", "keyword-case,type-case,type-alias"]
    code, texts = _audit(tmp_path, capsys, BFCL, BFCL_LOG, *rules)
    assert code == 0
    assert json.loads(texts["json"])["totals"]["accepted"] == 6
    # The pull request's head without its one edit is the base: nothing changes, nothing fails.
    same = ["--schemas", PR[1], "--new-schemas", PR[1]]
    code, texts = _audit(tmp_path, capsys, same, PR_LOG)
    assert code == 0
    assert json.loads(texts["json"])["totals"]["accepted"] == 4


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_the_pull_request_against_a_revision_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("git") is None:
        pytest.fail("git is needed for --against (and is on every CI runner)")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "ci@example.com")
    _git(repo, "config", "user.name", "ci")
    shutil.copy(FIXTURES / "pr_base.json", repo / "tools.json")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    shutil.copy(FIXTURES / "pr_head.json", repo / "tools.json")
    monkeypatch.chdir(repo)
    out = tmp_path / "audit.md"
    code, _, err = run_cli(
        [
            "audit",
            "--schemas",
            "tools.json",
            "--against",
            "main",
            "--logs",
            PR_LOG,
            "--no-report-files",
            "-q",
            "--format",
            "markdown",
            "--output",
            str(out),
        ],
        capsys,
    )
    assert code == 1, err
    assert "**3 calls will fail after the change: the new schema is unusable**" in out.read_text()


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_action_fails_the_step(tmp_path: Path, scenario: str) -> None:
    """The Action runs auditor, records its exit code and fails the step with it."""
    args, log, _ = SCENARIOS[scenario]
    given = {"AUDITOR_SCHEMAS": args[1], "AUDITOR_LOGS": log}
    if "--new-schemas" in args:
        given["AUDITOR_NEW_SCHEMAS"] = args[3]
    done = _run_audit_step(tmp_path, REAL, **given)
    assert done.returncode == 0, done.stderr  # the audit step itself only records the code
    assert "python: command not found" not in done.stderr
    outputs = dict(line.split("=", 1) for line in (tmp_path / "out").read_text().splitlines())
    assert outputs["exit-code"] == "1", done.stderr
    assert Path(outputs["sarif-file"]).is_file()
    assert _step(name="Fail per fail-on")["run"] == "exit ${{ steps.audit.outputs.exit-code }}"
    summary = (tmp_path / "summary.md").read_text()
    assert "calls will fail" in summary and "cannot be checked" not in summary
