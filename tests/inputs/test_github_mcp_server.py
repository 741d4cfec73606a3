"""github-mcp-server's own pull request, audited with ``--against`` (issue 29): its
``pkg/github/__toolsnaps__/*.snap`` files (one MCP ``Tool`` object each), copied verbatim
from commit 7e79ae9a and its parent into ``tests/fixtures/github-mcp-server`` (see the
README there), committed in a repository made here, then changed in the work tree as that
commit changes them.

The change: ``get_commit`` loses ``include_diff`` (a boolean) and gains ``detail`` (a string,
enum ``none``/``stats``/``full_patch``); its object has no ``additionalProperties`` before or
after, so an undeclared property is ignored on both sides. ``get_tag`` and ``get_me`` do not
change. Every outcome below is reasoned from those two schemas.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "github-mcp-server"
SNAPS = "pkg/github/__toolsnaps__"
WHERE = {"owner": "github", "repo": "github-mcp-server"}

CALLS: list[tuple[str, dict[str, Any], str]] = [
    # (tool, arguments, outcome) in log order
    ("get_commit", {**WHERE, "sha": "main"}, "accepted"),
    # include_diff is declared before; after, it is undeclared in an open object: ignored
    ("get_commit", {**WHERE, "sha": "main", "include_diff": False}, "accepted"),
    ("get_commit", {**WHERE, "sha": "v1", "include_diff": True}, "accepted"),
    # detail is undeclared before (ignored) and one of the enum after
    ("get_commit", {**WHERE, "sha": "main", "detail": "full_patch"}, "accepted"),
    # not one of none/stats/full_patch: only the new schema refuses it
    ("get_commit", {**WHERE, "sha": "main", "detail": "everything"}, "newly_rejected"),
    # sha is required on both sides
    ("get_commit", dict(WHERE), "still_rejected"),
    # perPage has maximum 100 on both sides
    ("get_commit", {**WHERE, "sha": "main", "perPage": 500}, "still_rejected"),
    ("get_tag", {**WHERE, "tag": "v1.0.0"}, "accepted"),
    ("get_me", {}, "accepted"),
]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """The snapshots as the parent of 7e79ae9a holds them, committed; the work tree as
    7e79ae9a leaves them; and the log of calls beside them (untracked)."""
    if shutil.which("git") is None:
        pytest.fail("git is needed for --against (and is on every CI runner)")
    repo = tmp_path / "github-mcp-server"
    snaps = repo / SNAPS
    snaps.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "ci@example.com")
    _git(repo, "config", "user.name", "ci")
    shutil.copyfile(FIXTURES / "get_commit.before.snap", snaps / "get_commit.snap")
    for name in ("get_tag.snap", "get_me.snap"):
        shutil.copyfile(FIXTURES / name, snaps / name)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "before 7e79ae9a")
    shutil.copyfile(FIXTURES / "get_commit.after.snap", snaps / "get_commit.snap")
    lines = [json.dumps({"tool": tool, "arguments": arguments}) for tool, arguments, _ in CALLS]
    (repo / "calls.jsonl").write_text("\n".join(lines) + "\n")
    return repo


def _outcomes(tool: str | None = None) -> dict[str, int]:
    counted: dict[str, int] = {}
    for name, _, outcome in CALLS:
        if tool is None or name == tool:
            counted[outcome] = counted.get(outcome, 0) + 1
    return counted


@pytest.mark.parametrize(
    "schemas",
    [
        [SNAPS, "--catalog-format", "mcp"],  # a folder of .snap files: named by the format
        [f"{SNAPS}/*.snap"],  # a quoted glob names them in any format
    ],
    ids=["folder", "glob"],
)
def test_the_include_diff_pull_request_against_head(
    repository: Path,
    schemas: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(repository)
    report = repository.parent / "report.json"
    args = ["audit", "--against", "HEAD", "--schemas", *schemas, "--logs", "calls.jsonl"]
    only_json = ["--no-report-files", "--format", "json", "--output", str(report)]
    code, _, err = run_cli([*args, *only_json], capsys)
    assert code == 1, err  # one newly rejected call fails the default gate
    data = json.loads(report.read_text())
    change = data["change"]
    assert (change["kind"], change["against"]) == ("git", "HEAD")
    assert (change["added_tools"], change["removed_tools"]) == ([], [])
    totals = data["totals"]
    want = _outcomes()
    assert want == {"accepted": 6, "newly_rejected": 1, "still_rejected": 2}
    assert {key: totals[key] for key in want} == want
    assert totals["calls"] == len(CALLS)
    assert totals["unknown_tool"] == totals["unparseable"] == 0
    assert totals["schema_error_before"] == totals["schema_error_after"] == 0
    by_tool = {tool["name"]: tool["outcomes"] for tool in data["tools"]}
    assert set(by_tool) == {"get_commit", "get_tag", "get_me"}
    for name, outcomes in by_tool.items():
        assert {key: outcomes[key] for key in _outcomes(name)} == _outcomes(name), name
    # The tools were read from the .snap files at both sides, at their upstream pointer.
    assert {(t["name"], t["shape"], t["pointer"]) for t in data["tools"]} == {
        ("get_commit", "mcp", "/inputSchema"),
        ("get_tag", "mcp", "/inputSchema"),
        ("get_me", "mcp", "/inputSchema"),
    }
    # Nothing was checked out: the work tree still holds the change.
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repository, capture_output=True, text=True
    )
    assert status.stdout == f" M {SNAPS}/get_commit.snap\n?? calls.jsonl\n"
