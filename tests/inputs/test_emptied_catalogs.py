"""A catalog file a pull request empties (issue 29): ``[]`` is a catalog of no tools, so the
change removes the file's tools; an empty file (0 bytes, or blanks only) is what a failed
generator leaves (``gen > tools.json`` empties the file before the generator runs), so it is
never read as "every tool removed": named, it is an error (exit 2) saying how to remove the
tools; in a folder, it is skipped and named like any file that is no catalog, and under
``--against`` the revision's tools of it are then removed, the skip line saying why."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from auditor.inputs.catalogs import EMPTY_FILE, NotACatalog, read_catalog
from tests.conftest import run_cli

LOOKUP = {"name": "lookup", "inputSchema": {"type": "object", "properties": {}}}
NOTIFY = {"name": "notify", "inputSchema": {"type": "object", "properties": {}}}


@pytest.mark.parametrize("name", ["tools.json", "tools.yaml", "tools.snap"])
@pytest.mark.parametrize("text", ["", "\n\n  \n", "\ufeff"], ids=["0 bytes", "blanks", "bom"])
def test_an_empty_file_is_no_catalog_whatever_its_name(
    tmp_path: Path, name: str, text: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    tools, problem = read_catalog(str(path))
    assert tools == []
    assert isinstance(problem, NotACatalog)
    assert problem.skip == "an empty file"
    assert str(problem) == f"{path}: {EMPTY_FILE}"


def test_an_empty_file_named_is_exit_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_bytes(b"")
    log = tmp_path / "calls.jsonl"
    log.write_text('{"tool": "lookup", "arguments": {}}\n')
    code, out, err = run_cli(["audit", "--schemas", str(catalog), "--logs", str(log)], capsys)
    assert (code, out) == (2, "")
    assert err == f"auditor: error: {catalog}: {EMPTY_FILE}\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """``tools/lookup.json`` and ``tools/notify.json`` committed, one tool each, and a log
    calling both tools; the tests change the work tree."""
    if shutil.which("git") is None:
        pytest.fail("git is needed for --against (and is on every CI runner)")
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "ci@example.com")
    _git(repo, "config", "user.name", "ci")
    (repo / "tools" / "lookup.json").write_text(json.dumps([LOOKUP]))
    (repo / "tools" / "notify.json").write_text(json.dumps([NOTIFY]))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    calls = [{"tool": "lookup", "arguments": {}}, {"tool": "notify", "arguments": {}}]
    (tmp_path / "calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls))
    return repo


def _audit(
    repo: Path, capsys: pytest.CaptureFixture[str], *schemas: str
) -> tuple[int, dict[str, Any] | None, str]:
    report = repo.parent / "report.json"
    report.unlink(missing_ok=True)
    args = ["audit", "--against", "main", "--schemas", *schemas, "--logs", "../calls.jsonl"]
    only_json = ["--no-report-files", "--format", "json", "--output", str(report)]
    code, _, err = run_cli([*args, *only_json], capsys)
    return code, json.loads(report.read_text()) if report.exists() else None, err


def test_a_file_emptied_to_a_list_removes_its_tools_under_against(
    repository: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repository)
    (repository / "tools" / "lookup.json").write_text("[]\n")
    for schemas in (["tools"], ["tools/lookup.json", "tools/notify.json"]):
        code, report, err = _audit(repository, capsys, *schemas)
        # lookup is gone: its one call is newly rejected; notify is unchanged, accepted.
        assert code == 1, err
        assert report is not None
        assert report["change"]["removed_tools"] == ["lookup"]
        assert (report["totals"]["newly_rejected"], report["totals"]["accepted"]) == (1, 1)
        assert "skipped" not in report["inputs"]


def test_a_file_emptied_to_0_bytes_in_a_folder_is_skipped_and_its_tools_removed(
    repository: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repository)
    (repository / "tools" / "notify.json").write_bytes(b"")
    code, report, err = _audit(repository, capsys, "tools")
    assert code == 1, err  # notify is gone from the work tree's catalogs: newly rejected
    assert report is not None
    assert report["change"]["removed_tools"] == ["notify"]
    assert (report["totals"]["newly_rejected"], report["totals"]["accepted"]) == (1, 1)
    assert report["inputs"]["skipped"] == [{"path": "tools/notify.json", "reason": "an empty file"}]
    assert "auditor: skipped: tools/notify.json (an empty file)\n" in err


def test_a_file_emptied_to_0_bytes_and_named_is_exit_2(
    repository: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repository)
    (repository / "tools" / "notify.json").write_bytes(b"")
    code, report, err = _audit(repository, capsys, "tools/lookup.json", "tools/notify.json")
    assert (code, report) == (2, None)
    assert err == f"auditor: error: tools/notify.json: {EMPTY_FILE}\n"


def test_an_empty_file_at_the_revision_adds_the_tools_the_work_tree_gives_it(
    repository: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repository)
    (repository / "tools" / "notify.json").write_bytes(b"")
    _git(repository, "commit", "-q", "-am", "notify emptied")
    (repository / "tools" / "notify.json").write_text(json.dumps([NOTIFY]))
    code, report, err = _audit(repository, capsys, "tools")
    # At the revision the file is skipped (no tools): notify is added, its call replayed
    # with nothing enforced before; both calls are accepted.
    assert code == 0, err
    assert report is not None
    assert report["change"]["added_tools"] == ["notify"]
    assert (report["totals"]["newly_rejected"], report["totals"]["accepted"]) == (0, 2)
    assert "auditor: skipped: main:tools/notify.json (an empty file)\n" in err
