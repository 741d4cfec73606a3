"""Done when (issue #29): no suggested patch, applied and re-audited with the same options,
newly rejects any logged call. Each sample scenario's diff (of every kind of group, so that
every patch the audit verifies is applied) goes through ``git apply``, and the audit runs
again on the patched catalog with the same options."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_cli
from tests.samples import Scenario, scenarios

ALL_KINDS = ("--suggest-patch-kinds", "loosen-schema,review,contradiction")


def _subjects(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The arguments' report and, where the logs hold results, the results' (issue #28): a
    results group's patch loosens an output schema, in the same diff."""
    return [report, *([report["results"]] if report.get("results") else [])]


def _rejected(report: dict[str, Any], outcome: str) -> set[tuple[str, str]]:
    return {
        (part.get("subject", "arguments"), call["source"])
        for part in _subjects(report)
        for call in part["calls"]
        if call["outcome"] == outcome
    }


def _groups(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {**group, "subject": part.get("subject", "arguments")}
        for part in _subjects(report)
        for group in part["groups"]
    ]


def _report(capsys: pytest.CaptureFixture[str], scenario: Scenario, *extra: str) -> Any:
    args = ["audit", "--schemas", scenario.catalog, "--logs", scenario.log, "--no-report-files"]
    _, out, _ = run_cli([*args, "--max-calls", "0", "--format", "json", *extra], capsys)
    return json.loads(out)


@pytest.mark.parametrize("scenario", scenarios(), ids=lambda s: s.name)
def test_the_applied_patches_newly_reject_no_logged_call(
    scenario: Scenario,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for path in (scenario.catalog, scenario.log):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / path, tmp_path / path)
    monkeypatch.chdir(tmp_path)
    before = _report(capsys, scenario, *ALL_KINDS, "--suggest-patch", "p.diff")
    diff = (tmp_path / "p.diff").read_text(encoding="utf-8")
    written = [g for g in _groups(before) if g["patch"] and g["patch"]["file"]]
    assert bool(diff) == bool(written)
    if diff:
        subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True)
    after = _report(capsys, scenario)
    for outcome in ("newly_rejected", "schema_error_after"):
        assert _rejected(after, outcome) <= _rejected(before, outcome), outcome
    # Each written patch's group is gone: its calls pass the keyword it loosened.
    left = {(g["subject"], g["tool"], g["keyword"], g["outcome"]) for g in _groups(after)}
    for group in written:
        key = (group["subject"], group["tool"], group["keyword"], group["outcome"])
        assert key not in left, group["patch"]
