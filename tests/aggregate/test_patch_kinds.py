"""``--suggest-patch`` writes the loosenings of loosen-schema groups; ``--suggest-patch-kinds``
names the others (issue #29, item 4): a review group's loosening rests on too few calls, or
on a share that is neither rare nor the norm, and applying it makes the audit pass while
production may still fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.aggregate.test_rollup import _audit
from tests.conftest import run_cli

LOOKUP = "-    q: {type: string, max_length: 3}\n+    q: {type: string, max_length: 5}\n"
"""lookup: 6 of 10 calls send 5 characters to `max_length: 3`: loosen-schema."""
NOTES = "-    text: {type: string, min_length: 2}\n+    text: {type: string, min_length: 1}\n"
"""notes: 1 of 2 calls sends 1 character to `min_length: 2`, too few calls to tell: review."""


def _diff(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code, _, err = run_cli([*_audit(tmp_path, "--suggest-patch", "p.diff", "-q"), *extra], capsys)
    path = tmp_path / "p.diff"
    return code, path.read_text(encoding="utf-8") if path.exists() else "", err


def test_the_default_diff_holds_only_the_loosen_schema_groups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, diff, _ = _diff(tmp_path, capsys)
    assert code == 1
    assert LOOKUP in diff and NOTES not in diff
    assert diff.count("\n@@ ") == 1  # one hunk


def test_review_named_writes_the_review_group_and_both_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _, diff, _ = _diff(tmp_path, capsys, "--suggest-patch-kinds", "review")
    assert NOTES in diff and LOOKUP not in diff
    _, diff, _ = _diff(tmp_path, capsys, "--suggest-patch-kinds", "loosen-schema,review")
    assert NOTES in diff and LOOKUP in diff
    # The config file takes a TOML list, as for --rules.
    (tmp_path / "auditor.toml").write_text('suggest_patch_kinds = ["review"]\n')
    _, diff, _ = _diff(tmp_path, capsys)
    assert NOTES in diff and LOOKUP not in diff


def test_an_unknown_kind_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, diff, err = _diff(tmp_path, capsys, "--suggest-patch-kinds", "loosen")
    assert code == 2 and diff == ""
    assert err == (
        "auditor: error: unknown patch kind loosen; choose from loosen-schema, review, "
        "contradiction\n"
    )
