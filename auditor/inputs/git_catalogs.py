"""Catalog files as a git revision holds them: the old side of ``--against REF``.

The pull-request audit compares the catalogs at the base revision with the work tree's. The
base files are read with ``git ls-tree`` and ``git cat-file``, never by checking anything out:
the work tree, the index and HEAD are left as they are, and nothing is fetched (a revision,
or a file of it, that is not in the local repository is an error, not a download).

The repository is the one the user is in: git's discovery starts at the working directory
(or the folder ``--repo`` names), never at a catalog's folder, which the change being audited
can fill with the files of a bare repository of its own. Discovery takes a repository only
through a ``.git`` entry (``safe.bareRepository=explicit``), and every later command names
that repository (``--git-dir``, ``--work-tree``) so that nothing is discovered again.

git is asked to read objects and nothing else. No transport can start (an allow-list of no
protocol), so no lazy fetch of a partial clone, no remote helper, ssh command, upload-pack
or credential helper ever runs; the objects a read needs are checked first with a command
that never fetches (``rev-list --missing=print``); and the programs a repository's config
can name for the commands used here (fsmonitor, pager, hooks) are switched off on the command
line, which wins over the repository's config. ``cat-file`` is never given ``--filters`` or
``--textconv``: no filter or textconv driver runs. The system and global config are the
administrator's and the user's (``safe.directory`` lives there) and are read as git reads
them.

Paths are the ``--schemas`` paths as given, relative to the current directory or absolute,
and must lie inside the work tree. A file the revision does not have contributes no tools
(its tools are new); a directory is every catalog file below it at the revision.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from auditor.errors import AuditorError
from auditor.inputs.catalog_listing import CATALOG_SUFFIXES, GLOB_CHARACTERS, Listing, is_glob
from auditor.inputs.catalogs import CatalogFormat, CatalogProblem, json_by_name, parse_catalog
from auditor.inputs.limits import byte_size
from auditor.inputs.paths import shown
from auditor.models import Location, ToolSchema

_ENVIRONMENT: Final = {
    # Never prompt, never take the index lock a concurrent git command may need, and say
    # errors in words this module can rely on.
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
    # An allow-list that names no protocol: it overrides every protocol.*.allow of any
    # config, so no transport (file, ssh, ext::, a remote helper) can start.
    "GIT_ALLOW_PROTOCOL": "",
    "GIT_PROTOCOL_FROM_USER": "0",
    # No lazy fetch of a missing object in a partial clone: git 2.44 and the security
    # releases of May 2024 (2.39.4 and up) honour it. Older versions never get to one: the
    # objects are checked first, and no transport could carry it.
    "GIT_NO_LAZY_FETCH": "1",
    # The revision's own objects, not what refs/replace/ substitutes for them; paths as
    # written, never globs or pathspec magic.
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_LITERAL_PATHSPECS": "1",
}

SAFE_CONFIG: Final = (
    # A repository is found through a `.git` entry only, never as a folder that holds HEAD,
    # objects/ and refs/ itself (git 2.38+; older versions are checked by _check_found).
    "safe.bareRepository=explicit",
    # Programs a repository's config can name: the fsmonitor, hooks and pager of any
    # command; the credential helpers and askpass of a transport, should one ever start.
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "credential.helper=",
    "core.askPass=",
    # GIT_ALLOW_PROTOCOL's rule again, as config: the repository's protocol.*.allow lose.
    "protocol.allow=never",
    *(f"protocol.{name}.allow=never" for name in ("file", "git", "ssh", "http", "https", "ext")),
)
"""``-c`` settings of every git command: on the command line, they win over the config of
the repository being read."""

NO_LAZY_FETCH_SINCE: Final = (2, 44)
"""The git version that has ``git --no-lazy-fetch``."""

FETCH_ADVICE: Final = "fetch it first, e.g. git fetch --refetch --no-filter origin"
"""What brings a partial clone's missing objects in (git 2.36+); auditor never does."""


class GitProblem(AuditorError):
    """The revision of ``--against`` cannot be read (exit 2)."""


@dataclass(frozen=True)
class GitRevision:
    """A commit of the repository the user is in, to read catalogs at."""

    ref: str
    """The revision as the user named it (``origin/main``): how reports name it."""
    commit: str
    top: Path
    """The work tree's top directory (resolved)."""
    git_dir: Path
    """The repository's git directory, which every command names."""

    @classmethod
    def resolve(cls, ref: str, repo: str | None = None) -> GitRevision:
        """The commit ``ref`` names, in the repository around the working directory, or
        around ``repo`` (``--repo``) when given; every folder of it must be here."""
        if not ref or ref.startswith("-"):
            raise GitProblem(f"--against {ref!r}: not a git revision")
        repository = _discover(repo)
        # rev-list --missing=print never fetches: a commit that is not here is an error.
        # (``ref`` cannot be read as an option: it does not start with "-".)
        said = _git(
            ["rev-list", "--missing=print", "--no-walk", f"{ref}^{{commit}}", "--"],
            f"--against {ref}: no such revision in this repository (nothing is fetched: "
            "fetch it first, e.g. with fetch-depth: 0 in actions/checkout)",
            repository,
            with_reason=False,
        )
        revision = cls(ref, said.decode().strip(), *repository)
        # ls-tree would fetch a folder a partial clone lacks: the trees are checked first,
        # all of them (a pathspec would read the parent commit's trees too).
        trees = ["rev-list", "--objects", "--no-walk", "--missing=print", "--filter=blob:none"]
        listed = _git([*trees, revision.commit, "--"], f"--against {ref}", repository)
        if any(line.startswith(b"?") for line in listed.splitlines()):
            raise GitProblem(
                f"--against {ref}: its folders are not all in this repository, only on the "
                f"remote of a partial clone (nothing is fetched): {FETCH_ADVICE}"
            )
        return revision

    def expand(self, paths: Sequence[str], suffixes: Sequence[str] = CATALOG_SUFFIXES) -> Listing:
        """The catalog files at this revision under ``paths``, in order (paths in the
        repository, from its top); each must be in this repository, not only on the
        remote of a partial clone. A glob is matched against the paths of the files below
        its folder part (``*`` may then cross a ``/``, as in ``fnmatch``)."""
        files: list[tuple[str, str]] = []
        found_in: dict[str, str] = {}
        wanted = tuple(suffixes)
        for path in paths:
            pattern = self._in_repository(path) if is_glob(path) else None
            inside = (
                self._in_repository(_folder_part(path)) if pattern else self._in_repository(path)
            )
            listed = _git(
                ["ls-tree", "-r", "-z", "--full-tree", self.commit, "--", inside],
                f"{shown(path)}: cannot list it at {self.ref}",
                self._repository,
            )
            catalogs: list[tuple[str, str]] = []
            for entry in filter(None, listed.split(b"\0")):
                kind, oid, name = _tree_entry(entry)
                if pattern is not None:
                    if not fnmatch.fnmatchcase(name, pattern):
                        continue
                elif name != inside and not name.lower().endswith(wanted):
                    continue
                if name != inside:
                    found_in[name] = path
                if kind != "blob":
                    raise GitProblem(
                        f"{self.ref}:{shown(name)}: a {kind} (a submodule?), not a catalog file"
                    )
                catalogs.append((name, oid))
            files += sorted(catalogs)
        absent = self._absent({oid for _, oid in files})
        missing = [name for name, oid in files if oid in absent]
        if missing:
            more = f" and {len(missing) - 1} more files" if len(missing) > 1 else ""
            raise GitProblem(
                f"{self.ref}:{shown(missing[0])}{more}: not in this repository, only on the "
                f"remote of a partial clone (nothing is fetched): {FETCH_ADVICE}"
            )
        return Listing([name for name, _ in files], [], found_in)

    def read(
        self, path: str, fmt: CatalogFormat | None, max_bytes: int
    ) -> tuple[list[ToolSchema], CatalogProblem | None, bytes | None]:
        """The tools of the file at ``path`` (from the top) at this revision: one that
        ``expand`` listed, so every object it needs is here."""
        name = f"{self.ref}:{shown(path)}"
        blob = f"{self.commit}:{path}"
        said = _git(["cat-file", "-s", blob], f"{name}: cannot read it", self._repository)
        size = int(said.strip())
        if size > max_bytes:
            message = f"larger than the {byte_size(max_bytes)} a catalog may have"
            return [], CatalogProblem(Location(name), f"{message} (--max-catalog-bytes)"), None
        # Neither --filters nor --textconv: the blob as stored, and no driver runs.
        data = _git(["cat-file", "blob", blob], f"{name}: cannot read it", self._repository)
        tools, problem = parse_catalog(name, data, json_by_name(path), fmt, Path(path).stem)
        return tools, problem, None  # the revision's blob: no loosening is written into it

    @property
    def _repository(self) -> tuple[Path, Path]:
        return self.top, self.git_dir

    def _absent(self, blobs: set[str]) -> set[str]:
        """Which of ``blobs`` this repository lacks, found without fetching: rev-list lists
        the ones it has and, told to ignore the missing ones, leaves those out."""
        if not blobs:
            return set()
        command = ["rev-list", "--objects", "--no-walk", "--missing=print", "--ignore-missing"]
        done = _run(
            ["git", *_global_options(), *_naming(self._repository), *command, "--stdin"],
            self.top,
            f"--against {self.ref}",
            "".join(f"{oid}\n" for oid in sorted(blobs)).encode(),
        )
        if done.returncode != 0:
            raise GitProblem(f"--against {self.ref}: cannot check its files{_reason(done)}")
        return blobs - {line.partition(b" ")[0].decode() for line in done.stdout.splitlines()}

    def _in_repository(self, path: str) -> str:
        """``path`` (as given) relative to the top of the work tree, with ``/``."""
        if path == "-":
            raise GitProblem("--against reads the catalogs from files: '-' has no revision")
        absolute = Path(os.path.abspath(path))
        # The work tree's top is resolved; so is the part of the path that exists.
        parent = absolute.parent.resolve() if absolute.parent.exists() else absolute.parent
        try:
            relative = (parent / absolute.name).relative_to(self.top)
        except ValueError:
            raise GitProblem(
                f"{shown(path)}: outside the git work tree {shown(self.top)}"
            ) from None
        return relative.as_posix() if str(relative) != "." else "."


def _folder_part(pattern: str) -> str:
    """The folders of a glob before its first pattern character (``.`` when it starts
    with one): where its files are listed from."""
    fixed: list[str] = []
    for part in Path(pattern).parts:
        if GLOB_CHARACTERS.intersection(part):
            break
        fixed.append(part)
    return str(Path(*fixed)) if fixed else "."


def _discover(repo: str | None) -> tuple[Path, Path]:
    """The work tree's top and the git directory of the repository around the working
    directory, or around ``repo``."""
    if repo is None:
        where: list[str] = []
        failure = "--against needs a git work tree: run auditor in one, or name it with --repo"
    else:
        where = ["-C", repo]
        failure = f"--repo {shown(repo)}: not a git work tree"
    top, git_dir = (
        Path(_discovered([*where, "rev-parse", asked], failure)).resolve()
        for asked in ("--show-toplevel", "--absolute-git-dir")
    )
    _check_found(top, git_dir)
    return top, git_dir


def _discovered(arguments: list[str], failure: str) -> str:
    """What ``git rev-parse`` says of the repository it discovers (one path, which may
    hold a newline)."""
    done = _run(["git", *_global_options(), *arguments], None, failure)
    if done.returncode != 0:
        reason = _reason(done)
        if "dubious ownership" in reason:  # safe.directory, which CI sets when it needs it
            raise GitProblem(
                f"--against: git refuses the repository{reason}: another user owns it; if "
                "you trust it, git config --global --add safe.directory PATH"
            )
        raise GitProblem(f"{failure}{reason}")
    return done.stdout.decode("utf-8", "surrogateescape").removesuffix("\n")


def _check_found(top: Path, git_dir: Path) -> None:
    """Refuse a repository that discovery did not reach through the work tree's own
    ``.git`` (a directory, or a file naming the directory, as a linked worktree or a
    submodule has): a folder that only looks like a repository, which git before 2.38
    takes despite ``safe.bareRepository``. A ``GIT_DIR`` the user set is theirs."""
    if "GIT_DIR" in os.environ:
        return
    entry = top / ".git"
    if entry.is_dir():
        found = entry.resolve()
    elif entry.is_file():
        with entry.open("rb") as file:
            first = file.read(4096).decode("utf-8", "surrogateescape").partition("\n")[0]
        found = (top / first.removeprefix("gitdir:").strip()).resolve()
    else:
        found = None
    if found != git_dir:
        raise GitProblem(
            f"--against: the repository found, {shown(git_dir)}, is not the .git of its work "
            f"tree {shown(top)} (a folder that only looks like a repository?): run auditor "
            "at the work tree's top, or name it with --repo"
        )


def _tree_entry(entry: bytes) -> tuple[str, str, str]:
    """An ``ls-tree`` entry (``<mode> <type> <oid>\\t<path>``): its type, oid and path."""
    head, _, name = entry.partition(b"\t")
    _, kind, oid = head.decode().split(" ")
    return kind, oid, name.decode("utf-8", "surrogateescape")


@functools.cache
def _global_options() -> tuple[str, ...]:
    """The options before every git command: no pager, no replaced objects, literal paths,
    no lazy fetch (where git has the option), and ``SAFE_CONFIG``."""
    options = ["--no-pager", "--no-replace-objects", "--literal-pathspecs"]
    if _version() >= NO_LAZY_FETCH_SINCE:
        options.append("--no-lazy-fetch")
    for setting in SAFE_CONFIG:
        options += ["-c", setting]
    return tuple(options)


def _version() -> tuple[int, int]:
    """The installed git's version (``git version 2.39.5``; ``(0, 0)`` when unreadable)."""
    said = _run(["git", "version"], None, "--against cannot run git")
    found = re.match(rb"git version (\d+)\.(\d+)", said.stdout)
    return (int(found[1]), int(found[2])) if found else (0, 0)


def _git(
    arguments: list[str],
    failure: str,
    repository: tuple[Path, Path],
    *,
    with_reason: bool = True,
) -> bytes:
    """git's standard output, run on ``repository`` (its top and git directory);
    ``failure`` (with git's own first line, unless ``with_reason`` is false) when it fails."""
    command = ["git", *_global_options(), *_naming(repository), *arguments]
    done = _run(command, repository[0], failure)
    if done.returncode != 0:
        raise GitProblem(f"{failure}{_reason(done) if with_reason else ''}")
    return done.stdout


def _naming(repository: tuple[Path, Path]) -> list[str]:
    """The options that name ``repository`` to git, so that it discovers nothing."""
    top, git_dir = repository
    return [f"--git-dir={git_dir}", f"--work-tree={top}"]


def _reason(done: subprocess.CompletedProcess[bytes]) -> str:
    """git's own first line of error (a warning may come before it), as `` (...)``."""
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    errors = [line for line in said if line.startswith(("fatal: ", "error: "))] or said
    return f" ({errors[0].removeprefix('fatal: ')})" if errors else ""


def _run(
    command: list[str], cwd: Path | None, failure: str, given: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            command,
            cwd=cwd,
            input=given,
            capture_output=True,
            env={**os.environ, **_ENVIRONMENT},
            check=False,
        )
    except FileNotFoundError:
        raise GitProblem("--against needs git, which is not installed") from None
    except OSError as error:
        raise GitProblem(f"{failure}: {error.strerror or error}") from None
