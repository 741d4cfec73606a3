"""``--against`` reads only the repository the user is in, and only reads it.

A pull request controls the work tree, catalog folder included: it can plant the files of a
bare repository there (``HEAD``, ``config``, ``objects/``, ``refs/``) whose config fetches a
missing commit through an ``ext::`` remote (a command of its choosing), or borrows the real
objects (``objects/info/alternates``, ``core.worktree``) with a ``main`` that is the pull
request itself. A partial clone lacks the base's files until git fetches them. And the
repository's own config can name programs. Each case checks the outcome the catalogs give,
that no stand-in program ran (each writes a marker), and, as a second witness, what git
itself ran (``GIT_TRACE2_EVENT``): read commands only, and no child process at all.

The catalogs: at the base (``main``), tool ``t`` takes an optional integer ``n``; the pull
request (``pr``, the work tree) makes ``n`` required. The one logged call sends ``{}``:
accepted before, rejected after, so one newly rejected call and exit 1. Audited against
itself (the pull request as its own base) the call is accepted and the run exits 0.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor.inputs import git_catalogs
from tests.conftest import run_cli

BASE = {"t": {"type": "object", "properties": {"n": {"type": "integer"}}}}
HEAD = {"t": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}
SETUP = [
    "-c",
    "user.name=ci",
    "-c",
    "user.email=ci@example.com",
    "-c",
    "protocol.file.allow=always",
]
"""For the commands that build the repositories (never for the audit's own)."""
READS = {"version", "rev-parse", "rev-list", "ls-tree", "cat-file"}
"""The git commands an audit may run."""
MISSING = "1" * 40
"""A commit name no repository here holds."""


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *SETUP, *args], cwd=cwd, check=True, capture_output=True)
    return done.stdout.decode().strip()


def _write(path: Path, catalog: dict[str, Any]) -> None:
    path.write_text(json.dumps(catalog) + "\n", encoding="utf-8")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A repository whose ``main`` holds BASE as tools/catalog.json and whose ``pr``
    (checked out) holds HEAD there; ``tools/notes.md`` differs too, and ``*.json`` files
    name a filter and a diff driver (``evil``) in ``.gitattributes``."""
    repo = tmp_path / "source"
    (repo / "tools").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / ".gitattributes").write_text("*.json filter=evil diff=evil\n")
    _write(repo / "tools" / "catalog.json", BASE)
    (repo / "tools" / "notes.md").write_text("before\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "checkout", "-qb", "pr")
    _write(repo / "tools" / "catalog.json", HEAD)
    (repo / "tools" / "notes.md").write_text("after\n")
    _git(repo, "commit", "-qam", "pr")
    _git(repo, "config", "uploadpack.allowFilter", "true")
    return repo


@pytest.fixture
def log(tmp_path: Path) -> Path:
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"tool": "t", "arguments": {}}) + "\n")
    return calls


def _traced(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Record git's trace2 events from now on (after the repositories are built)."""
    events = tmp_path / "trace2.json"
    events.unlink(missing_ok=True)
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(events))
    return events


def _ran(events: Path) -> tuple[set[str], list[list[str]]]:
    """The git commands the trace shows, and every child process git started."""
    if not events.exists():
        return set(), []
    records = [json.loads(line) for line in events.read_text().splitlines()]
    names = {record["name"] for record in records if record["event"] == "cmd_name"}
    children = [record["argv"] for record in records if record["event"] == "child_start"]
    return names, children


def _audit(
    args: list[str], log: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any] | None, str]:
    """Exit code, JSON report (None when there is none) and stderr of an audit."""
    code, out, err = run_cli(
        ["audit", *args, "--logs", str(log), "--no-report-files", "--format", "json"], capsys
    )
    return code, json.loads(out) if out else None, err


def _newly_rejected(code: int, report: dict[str, Any] | None, err: str, against: str) -> None:
    """The audit of the pull request against its real base (see the module docstring)."""
    assert code == 1, err
    assert report is not None
    assert (report["totals"]["calls"], report["totals"]["newly_rejected"]) == (1, 1)
    assert report["change"]["kind"] == "git" and report["change"]["against"] == against


def _checkout(kind: str, source: Path, tmp_path: Path) -> Path:
    """The work tree of the pull request, where ``main`` names the base, checked out as
    ``kind`` says: the repository itself, a linked worktree (``.git`` is a file), or a
    shallow clone holding the base (and not its parent)."""
    if kind == "clone":
        return source
    if kind == "worktree":
        _git(source, "checkout", "-q", "main")
        _git(source, "worktree", "add", "-q", str(tmp_path / "linked"), "pr")
        return tmp_path / "linked"
    assert kind == "shallow"
    shallow = tmp_path / "shallow"
    url = f"file://{source}"
    _git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch", "-b", "pr", url, "shallow")
    _git(shallow, "branch", "main", "origin/main")
    assert _git(shallow, "rev-parse", "--is-shallow-repository") == "true"
    return shallow


def _plant(
    folder: Path, top: Path, variant: str, marker: Path, worktree: Path | None = None
) -> None:
    """The files of a bare repository in ``folder``, as a pull request can add them: its
    work tree is ``worktree`` (default: ``top``, the real one); ``fetches``: its ``main``
    is a commit it lacks, fetched from a promisor remote whose ``ext::`` URL runs a command
    writing ``marker``; ``borrows``: its ``main`` is the pull request's commit, its objects
    the real repository's (alternates)."""
    (folder / "objects" / "info").mkdir(parents=True)
    (folder / "refs" / "heads").mkdir(parents=True)
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    config = (
        f"[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tworktree = {worktree or top}\n"
    )
    if variant == "fetches":
        config += '[extensions]\n\tpartialClone = evil\n[protocol "ext"]\n\tallow = always\n'
        config += f'[remote "evil"]\n\turl = ext::sh -c touch% {marker}\n\tpromisor = true\n'
        (folder / "refs" / "heads" / "main").write_text(MISSING + "\n")
    else:
        assert variant == "borrows"
        common = Path(top, _git(top, "rev-parse", "--git-common-dir")).resolve()
        (folder / "objects" / "info" / "alternates").write_text(f"{common / 'objects'}\n")
        (folder / "refs" / "heads" / "main").write_text(_git(top, "rev-parse", "pr") + "\n")
    (folder / "config").write_text(config)


@pytest.fixture
def without_explicit_bare(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """git as before 2.38, which ignores ``safe.bareRepository`` on the command line."""
    kept = tuple(s for s in git_catalogs.SAFE_CONFIG if not s.startswith("safe.bareRepository"))
    assert len(kept) == len(git_catalogs.SAFE_CONFIG) - 1
    monkeypatch.setattr(git_catalogs, "SAFE_CONFIG", kept)
    git_catalogs._global_options.cache_clear()
    yield
    monkeypatch.undo()
    git_catalogs._global_options.cache_clear()


@pytest.mark.parametrize("variant", ["fetches", "borrows"])
@pytest.mark.parametrize("kind", ["clone", "worktree", "shallow", "elsewhere"])
def test_a_repository_planted_in_the_catalog_folder_is_never_read(
    kind: str, variant: str, source: Path, log: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    top = _checkout("clone" if kind == "elsewhere" else kind, source, tmp_path)
    marker = tmp_path / "planted-command-ran"
    _plant(top / "tools", top, variant, marker)
    if kind == "elsewhere":  # the repository named by --repo, from another folder
        (tmp_path / "elsewhere").mkdir()
        monkeypatch.chdir(tmp_path / "elsewhere")
        args = ["--schemas", str(top / "tools"), "--against", "main", "--repo", str(top)]
    else:
        monkeypatch.chdir(top)
        args = ["--schemas", "tools", "--against", "main"]
    events = _traced(monkeypatch, tmp_path)
    _newly_rejected(*_audit(args, log, capsys), against="main")
    assert not marker.exists()
    names, children = _ran(events)
    assert names <= READS and children == []


@pytest.mark.parametrize("variant", ["fetches", "borrows"])
def test_a_working_directory_that_looks_like_a_repository_is_refused(
    variant: str, source: Path, log: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    marker = tmp_path / "planted-command-ran"
    _plant(source / "tools", source, variant, marker)
    monkeypatch.chdir(source / "tools")
    code, report, err = _audit(["--schemas", ".", "--against", "main"], log, capsys)
    assert (code, report) == (2, None) and err.count("\n") == 1, err
    assert err.startswith("auditor: error: --against needs a git work tree: run auditor in one, "
                          "or name it with --repo (cannot use bare repository")  # fmt: skip
    assert "safe.bareRepository is 'explicit'" in err
    # Named, the work tree around it is read.
    args = ["--schemas", ".", "--against", "main", "--repo", ".."]
    _newly_rejected(*_audit(args, log, capsys), against="main")
    assert not marker.exists()


@pytest.mark.parametrize("variant", ["fetches", "borrows"])
@pytest.mark.parametrize("worktree", ["real", "empty"])
@pytest.mark.usefixtures("without_explicit_bare")
def test_before_git_2_38_a_planted_repository_is_still_refused(
    variant: str, worktree: str, source: Path, log: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    marker = tmp_path / "planted-command-ran"
    empty = tmp_path / "empty"
    empty.mkdir()
    _plant(source / "tools", source, variant, marker, None if worktree == "real" else empty)
    monkeypatch.chdir(source / "tools")
    code, report, err = _audit(["--schemas", ".", "--against", "main"], log, capsys)
    assert (code, report) == (2, None) and err.count("\n") == 1, err
    shown_top = source if worktree == "real" else empty
    assert err.startswith(
        f"auditor: error: --against: the repository found, {source / 'tools'}, is not the .git "
        f"of its work tree {shown_top}"
    )
    assert not marker.exists()
    # git discovered the planted repository here (nothing refused it), and ran no program.
    _newly_rejected(*_audit([*["--schemas", ".", "--against", "main"], "--repo", ".."], log,
                            capsys), against="main")  # fmt: skip


def _missing(repo: Path, ref: str) -> set[str]:
    """The objects of ``ref``'s tree that ``repo`` lacks, found without fetching."""
    listed = _git(repo, "rev-list", "--objects", "--missing=print", "--no-walk", ref)
    return {line for line in listed.splitlines() if line.startswith("?")}


@pytest.mark.parametrize(
    ("spec", "refused"),
    [
        ("blob:none", "origin/main:tools/catalog.json: not in this repository, only on the "
                      "remote of a partial clone (nothing is fetched)"),
        ("tree:0", "--against origin/main: its folders are not all in this repository, only "
                   "on the remote of a partial clone (nothing is fetched)"),
    ],
)  # fmt: skip
def test_a_partial_clone_without_the_base_files_fetches_nothing(
    spec: str, refused: str, source: Path, log: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    part = tmp_path / "part"
    _git(tmp_path, "clone", "-q", f"--filter={spec}", "-b", "pr", f"file://{source}", "part")
    # A commit the remote has and the clone does not.
    _git(source, "commit", "-q", "--allow-empty", "-m", "later")
    later = _git(source, "rev-parse", "HEAD")
    lacking = _missing(part, "origin/main")
    assert lacking  # the base's catalog, at least
    monkeypatch.chdir(part)
    events = _traced(monkeypatch, tmp_path)
    code, report, err = _audit(["--schemas", "tools", "--against", "origin/main"], log, capsys)
    assert (code, report) == (2, None), err
    assert err == f"auditor: error: {refused}: {git_catalogs.FETCH_ADVICE}\n"
    code, report, err = _audit(["--schemas", "tools", "--against", later], log, capsys)
    assert (code, report) == (2, None), err
    assert err.startswith(f"auditor: error: --against {later}: no such revision in this "
                          "repository (nothing is fetched") and err.count("\n") == 1  # fmt: skip
    if spec == "blob:none":  # what needs nothing from the remote is read
        _write(part / "tools" / "added.json", HEAD)  # only in the work tree: t is added
        args = ["--schemas", "tools/added.json", "--against", "origin/main"]
        code, report, err = _audit(args, log, capsys)
        assert code == 1 and report is not None, err
        assert report["change"]["added_tools"] == ["t"]
        assert report["totals"]["newly_rejected"] == 1  # nothing enforced on the old side
        (part / "tools" / "added.json").unlink()
    names, children = _ran(events)
    assert names <= READS and children == []
    assert _missing(part, "origin/main") == lacking
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    if spec == "blob:none":
        # The user fetches the base's catalog alone: its notes.md still lacks, and is not
        # needed.
        _git(part, "cat-file", "-e", "origin/main:tools/catalog.json")
        assert len(_missing(part, "origin/main")) == len(lacking) - 1
    else:  # the advice, as given
        _git(part, *shlex.split(git_catalogs.FETCH_ADVICE.partition("e.g. git ")[2]))
        assert _missing(part, "origin/main") == set()
    args = ["--schemas", "tools", "--against", "origin/main"]
    _newly_rejected(*_audit(args, log, capsys), against="origin/main")


def _stand_in(folder: Path, name: str, markers: Path) -> str:
    """A program that records that it ran (a file in ``markers``) and fails."""
    folder.mkdir(exist_ok=True)
    program = folder / name
    program.write_text(f'#!/bin/sh\necho "$0 $*" >> {markers / name}\nexit 1\n')
    program.chmod(0o755)
    return str(program)


def _configure_programs(repo: Path, source: Path, tmp_path: Path) -> None:
    """Every program a repository's config can name, as stand-ins; transports allowed, and
    promisor remotes that reach a stand-in (ssh, upload-pack, a remote helper, ext::)."""
    bin_dir, markers = tmp_path / "bin", tmp_path / "markers"
    markers.mkdir(exist_ok=True)
    hooks = tmp_path / "hooks"
    for hook in ("reference-transaction", "post-checkout", "post-index-change", "pre-auto-gc"):
        _stand_in(hooks, hook, markers)
    _stand_in(bin_dir, "git-remote-standin", markers)  # found on PATH as a remote helper

    def program(name: str) -> str:
        return _stand_in(bin_dir, name, markers)

    settings = {
        "core.fsmonitor": program("fsmonitor"),
        "core.hooksPath": str(hooks),
        "core.pager": program("pager"),
        "pager.cat-file": program("pager-cat-file"),
        "pager.ls-tree": program("pager-ls-tree"),
        "pager.rev-list": program("pager-rev-list"),
        "filter.evil.clean": program("filter-clean"),
        "filter.evil.smudge": program("filter-smudge"),
        "filter.evil.process": program("filter-process"),
        "diff.evil.textconv": program("textconv"),
        "diff.external": program("diff-external"),
        "credential.helper": program("credential"),
        "core.askPass": program("askpass"),
        "core.sshCommand": program("ssh"),
        "core.alternateRefsCommand": program("alternate-refs"),
        "gpg.program": program("gpg"),
        "core.editor": program("editor"),
        "protocol.allow": "always",
        "protocol.ext.allow": "always",
        "remote.by-ssh.url": "ssh://example.invalid/tools.git",
        "remote.by-ssh.promisor": "true",
        "remote.by-upload-pack.url": f"file://{source}",
        "remote.by-upload-pack.uploadpack": program("upload-pack"),
        "remote.by-upload-pack.promisor": "true",
        "remote.by-helper.vcs": "standin",
        "remote.by-helper.url": "nowhere",
        "remote.by-helper.promisor": "true",
        "remote.by-helper-url.url": "standin::tools",
        "remote.by-helper-url.promisor": "true",
        "remote.origin.url": f"ext::{program('ext')}",
    }
    for key, value in settings.items():
        _git(repo, "config", key, value)


@pytest.mark.parametrize("layers", ["all", "no check", "no check, lazy fetch"])
def test_no_program_the_repository_config_names_ever_runs(
    layers: str, source: Path, log: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Each layer holds alone. ``no check``: as if the check for missing objects let one
    through, so that git goes for it: GIT_NO_LAZY_FETCH stops it (git 2.39.4+). ``lazy
    fetch``: without that either, git starts a fetch, which finds no transport it may use."""
    full, part = tmp_path / "full", tmp_path / "part"
    _git(tmp_path, "clone", "-q", "--no-local", "-b", "pr", str(source), "full")
    _git(full, "branch", "main", "origin/main")
    _git(tmp_path, "clone", "-q", "--filter=blob:none", "-b", "pr", f"file://{source}", "part")
    _git(part, "branch", "main", "origin/main")
    for repo in (full, part):
        _configure_programs(repo, source, tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    for variable in ("GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PAGER"):
        monkeypatch.delenv(variable, raising=False)
    if layers != "all":
        monkeypatch.setattr(git_catalogs.GitRevision, "_absent", lambda self, blobs: set())
    if layers == "no check, lazy fetch":
        monkeypatch.delitem(git_catalogs._ENVIRONMENT, "GIT_NO_LAZY_FETCH")
    events = _traced(monkeypatch, tmp_path)
    # Every object here: the audit reads the base, and nothing runs.
    monkeypatch.chdir(full)
    _newly_rejected(*_audit(["--schemas", "tools", "--against", "main"], log, capsys), "main")
    # The base's catalog on the remotes only: refused, and no remote is tried.
    monkeypatch.chdir(part)
    code, report, err = _audit(["--schemas", "tools", "--against", "main"], log, capsys)
    assert sorted(path.name for path in (tmp_path / "markers").iterdir()) == []
    assert (code, report) == (2, None) and err.count("\n") == 1, err
    names, children = _ran(events)
    if layers == "all":
        assert err.startswith("auditor: error: main:tools/catalog.json: not in this repository")
    else:
        assert err.startswith("auditor: error: main:tools/catalog.json: cannot read it (")
    if layers == "no check, lazy fetch":  # git's own lazy fetch started, and got nowhere
        fetches = [argv[1:4] == ["-c", "fetch.negotiationAlgorithm=noop", "fetch"]
                   for argv in children]  # fmt: skip
        assert fetches and all(fetches), children
        assert "transport" in err and "not allowed" in err
    else:
        assert names <= READS and children == []


def test_a_submodule_named_like_a_catalog_is_refused_in_one_line(
    source: Path, log: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _git(source, "checkout", "-q", "--detach", "main")
    base = _git(source, "rev-parse", "HEAD")
    _git(source, "update-index", "--add", "--cacheinfo", f"160000,{base},tools/linked.json")
    _git(source, "commit", "-qm", "a submodule")
    _git(source, "branch", "-q", "with-submodule")
    _git(source, "checkout", "-q", "pr")
    monkeypatch.chdir(source)
    code, report, err = _audit(["--schemas", "tools", "--against", "with-submodule"], log, capsys)
    assert (code, report) == (2, None)
    assert err == (
        "auditor: error: with-submodule:tools/linked.json: a commit (a submodule?), "
        "not a catalog file\n"
    )
    # Read as the base, main gives the outcome reasoned above.
    _newly_rejected(*_audit(["--schemas", "tools", "--against", "main"], log, capsys), "main")


def test_the_repository_is_named_on_the_command_line_only(
    source: Path, log: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.chdir(source)
    (source / "auditor.toml").write_text('repo = "tools"\n')
    code, report, err = _audit(["--schemas", "tools", "--against", "main"], log, capsys)
    assert (code, report) == (2, None)
    assert err.startswith(f"auditor: error: {source / 'auditor.toml'}: unknown setting 'repo'")
    (source / "auditor.toml").unlink()
    args = ["--schemas", "tools", "--against", "main", "--repo", str(source)]
    _newly_rejected(*_audit(args, log, capsys), "main")
    # A GIT_DIR the user set names the repository (git's own rule), wherever its .git is.
    moved = tmp_path / "elsewhere.git"
    (source / ".git").rename(moved)
    monkeypatch.setenv("GIT_DIR", str(moved))
    monkeypatch.setenv("GIT_WORK_TREE", str(source))
    _newly_rejected(*_audit(args[:4], log, capsys), "main")


@pytest.mark.parametrize(
    ("said", "option"),
    [
        ("git version 2.44.0", True),
        ("git version 2.45.1.windows.1", True),
        ("git version 3.0.0", True),
        ("git version 2.43.4", False),
        ("git version 2.39.5 (Apple Git-154)", False),
        ("not git at all", False),
    ],
)
def test_no_lazy_fetch_is_asked_of_the_git_versions_that_have_it(
    said: str, option: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in = tmp_path / "git"
    stand_in.write_text(f"#!/bin/sh\necho '{said}'\n")
    stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    git_catalogs._global_options.cache_clear()
    try:
        options = git_catalogs._global_options()
    finally:
        git_catalogs._global_options.cache_clear()
    assert ("--no-lazy-fetch" in options) is option
    # Whatever the version, the rest is always asked.
    assert options[:3] == ("--no-pager", "--no-replace-objects", "--literal-pathspecs")
    assert [options[i + 1] for i, o in enumerate(options) if o == "-c"] == list(
        git_catalogs.SAFE_CONFIG
    )
