"""The pre-commit hooks (.pre-commit-hooks.yaml): each hook's entry run as pre-commit runs it,
over a repository holding a tool catalog beside a workflow YAML and a package.json.

pre-commit passes every staged file its ``types_or`` selects (JSON and YAML here, all of the
repository's files), so the hooks skip the files that are no tool catalog and check the one
that is. The hook environment itself (pre-commit installing this repository) needs the
package index: ``.ci/run`` runs ``pre-commit try-repo`` over the same kind of repository.
Here only pre-commit's own check of the manifest needs pre-commit; it is skipped where
pre-commit is not installed.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, run_cli

WORKFLOW = """name: ci
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v7
      - run: npm test
"""
PACKAGE = {"name": "demo", "version": "1.0.0", "scripts": {"test": "node --test"}}


def _catalog(length_keyword: str) -> str:
    """An Anthropic-shaped catalog of one tool whose ``q`` must not be empty: ``minLength``
    is JSON Schema; ``min_length`` is the dialect spelling no validator evaluates."""
    tool = {
        "name": "search",
        "description": "Search the notes.",
        "input_schema": {
            "type": "object",
            "properties": {"q": {"type": "string", length_keyword: 1}},
            "required": ["q"],
        },
    }
    return json.dumps([tool], indent=2) + "\n"


CALLS = [
    {"tool": "search", "arguments": {"q": "invoices"}},
    {"tool": "search", "arguments": {"q": ""}},  # empty: minLength 1 rejects it
]
FILES = ["tools/tools.json", ".github/workflows/ci.yml", "package.json"]
"""What pre-commit passes a hook whose types_or is [json, yaml]: every one of them."""
SKIPPED = [
    "auditor: skipped: .github/workflows/ci.yml (not a tool catalog)",
    "auditor: skipped: package.json (not a tool catalog)",
]
USING = "auditor: using auditor.toml"
"""What lint says on stderr too: it reads the repository's configuration (its max_catalog_bytes
and rules)."""


def _said(err: str) -> list[str]:
    """The lines of stderr but the configuration's announcement, sorted."""
    return sorted(line for line in err.splitlines() if line != USING)


def _hooks() -> dict[str, dict[str, Any]]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return {hook["id"]: hook for hook in hooks}


def _repository(root: Path, length_keyword: str) -> Path:
    (root / "tools").mkdir(parents=True)
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / "logs").mkdir()
    (root / "tools" / "tools.json").write_text(_catalog(length_keyword))
    (root / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (root / "package.json").write_text(json.dumps(PACKAGE, indent=2) + "\n")
    (root / "logs" / "calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CALLS))
    (root / "auditor.toml").write_text('schemas = ["tools/"]\nlogs = ["logs/calls.jsonl"]\n')
    return root


def _run_hook(
    hook_id: str, repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    """The hook's entry with the files pre-commit passes it (none under pass_filenames:
    false), run in the repository as pre-commit runs it."""
    hook = _hooks()[hook_id]
    words = shlex.split(hook["entry"])
    assert words[0] == "auditor"
    files = FILES if hook.get("pass_filenames", True) else []
    monkeypatch.chdir(repo)
    return run_cli([*words[1:], *hook.get("args", []), *files], capsys)


def test_the_hooks_are_the_documented_ones_for_a_recent_enough_pre_commit() -> None:
    hooks = _hooks()
    assert set(hooks) == {
        "auditor-lint",
        "auditor-normalize-check",
        "auditor-normalize",
        "auditor-audit",
    }
    for hook in hooks.values():
        # types_or came with pre-commit 2.9.0: an older one would ignore it and pass every
        # file type, a workflow's shell scripts among them.
        assert hook["minimum_pre_commit_version"] == "2.9.0"
        assert hook["language"] == "python"
    assert hooks["auditor-audit"]["pass_filenames"] is False
    assert hooks["auditor-normalize"]["entry"] == "auditor normalize --write --skip-non-catalogs"


@pytest.mark.parametrize("hook_id", ["auditor-lint", "auditor-normalize-check"])
def test_a_check_hook_passes_a_clean_catalog_and_skips_the_other_files(
    hook_id: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = _repository(tmp_path / "repo", "minLength")
    code, _, err = _run_hook(hook_id, repo, capsys, monkeypatch)
    assert code == 0, err
    assert _said(err) == SKIPPED


@pytest.mark.parametrize("hook_id", ["auditor-lint", "auditor-normalize-check"])
def test_a_check_hook_fails_a_dialect_catalog_among_other_files(
    hook_id: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = _repository(tmp_path / "repo", "min_length")
    code, out, err = _run_hook(hook_id, repo, capsys, monkeypatch)
    assert code == 1, err
    assert "tools/tools.json" in out
    assert _said(err) == SKIPPED


def test_a_named_file_that_is_no_catalog_still_fails_without_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Named on the command line by a person, a file is their choice: an error, not a skip.
    repo = _repository(tmp_path / "repo", "minLength")
    monkeypatch.chdir(repo)
    code, _, err = run_cli(["lint", *FILES], capsys)
    assert code == 2
    assert "auditor: error: .github/workflows/ci.yml: not a catalog in a known format" in err


def test_the_fixer_hook_rewrites_the_catalog_and_leaves_the_other_files_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repository(tmp_path / "repo", "min_length")
    before = {name: (repo / name).read_bytes() for name in FILES[1:]}
    code, _, err = _run_hook("auditor-normalize", repo, capsys, monkeypatch)
    # pre-commit fails a hook that changed a file: the rewrite is then reviewed and staged.
    assert code == 0, err
    assert (repo / "tools" / "tools.json").read_text() == _catalog("minLength")
    assert {name: (repo / name).read_bytes() for name in FILES[1:]} == before
    assert "auditor: normalized tools/tools.json (1 rewrite)" in err.splitlines()
    # Run again (the next commit): nothing left to rewrite.
    code, _, err = _run_hook("auditor-normalize", repo, capsys, monkeypatch)
    assert code == 0
    assert _said(err) == SKIPPED


@pytest.mark.parametrize(
    ("length_keyword", "expected"),
    # Normalizing minLength changes nothing: no call is newly rejected. min_length becomes
    # minLength, which rejects the logged empty q that passed before: exit 1.
    [("minLength", 0), ("min_length", 1)],
)
def test_the_audit_hook_reads_the_configuration_and_writes_no_report(
    length_keyword: str,
    expected: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = _repository(tmp_path / "repo", length_keyword)
    listed = sorted(p.relative_to(repo) for p in repo.rglob("*"))
    code, _, err = _run_hook("auditor-audit", repo, capsys, monkeypatch)
    assert code == expected, err
    assert USING in err.splitlines()
    assert sorted(p.relative_to(repo) for p in repo.rglob("*")) == listed  # nothing written


def _pre_commit() -> str | None:
    return os.environ.get("AUDITOR_PRE_COMMIT") or shutil.which("pre-commit")


def test_pre_commit_accepts_the_manifest(tmp_path: Path) -> None:
    pre_commit = _pre_commit()
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (.ci/run installs it and runs try-repo)")
    manifest = ROOT / ".pre-commit-hooks.yaml"
    done = subprocess.run(
        [pre_commit, "validate-manifest", str(manifest)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # The same manifest with a hook that lost its entry is refused: the check checks.
    broken = [dict(hook) for hook in yaml.safe_load(manifest.read_text(encoding="utf-8"))]
    del broken[0]["entry"]
    (tmp_path / "hooks.yaml").write_text(yaml.safe_dump(broken))
    done = subprocess.run(
        [pre_commit, "validate-manifest", str(tmp_path / "hooks.yaml")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "entry" in done.stdout
