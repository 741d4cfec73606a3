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


def _rejected(report: dict[str, Any], outcome: str) -> set[str]:
    return {call["source"] for call in report["calls"] if call["outcome"] == outcome}


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
    written = [g for g in before["groups"] if g["patch"] and g["patch"]["file"]]
    assert bool(diff) == bool(written)
    if diff:
        subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True)
    after = _report(capsys, scenario)
    for outcome in ("newly_rejected", "schema_error_after"):
        assert _rejected(after, outcome) <= _rejected(before, outcome), outcome
    # Each written patch's group is gone: its calls pass the keyword it loosened.
    left = {(g["tool"], g["keyword"], g["outcome"]) for g in after["groups"]}
    for group in written:
        assert (group["tool"], group["keyword"], group["outcome"]) not in left, group["patch"]
