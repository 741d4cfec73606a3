"""Catalog files as a git revision holds them: the old side of ``--against REF``.

The pull-request audit compares the catalogs at the base revision with the work tree's. The
base files are read with ``git ls-tree`` and ``git cat-file``, never by checking anything out:
the work tree, the index and HEAD are left as they are, and nothing is fetched (a revision
that is not in the local repository is an error, not a download).

Paths are the ``--schemas`` paths as given, relative to the current directory or absolute,
and must lie inside the work tree. A file the revision does not have contributes no tools
(its tools are new); a directory is every catalog file below it at the revision.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from auditor.errors import AuditorError
from auditor.inputs.catalogs import (
    CATALOG_SUFFIXES,
    CatalogFormat,
    CatalogProblem,
    parse_catalog,
)
from auditor.inputs.limits import byte_size
from auditor.inputs.paths import shown
from auditor.models import Location, ToolSchema

_ENVIRONMENT: Final = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
"""Never prompt, never take the index lock a concurrent git command may need, and say
errors in words this module can rely on."""


class GitProblem(AuditorError):
    """The revision of ``--against`` cannot be read (exit 2)."""


@dataclass(frozen=True)
class GitRevision:
    """A commit of the repository around the current directory, to read catalogs at."""

    ref: str
    """The revision as the user named it (``origin/main``): how reports name it."""
    commit: str
    top: Path
    """The work tree's top directory (resolved)."""

    @classmethod
    def resolve(cls, ref: str, near: str) -> GitRevision:
        """The commit ``ref`` names, in the repository holding the path ``near`` (a catalog
        file or directory, which need not exist in the work tree)."""
        if not ref or ref.startswith("-"):
            raise GitProblem(f"--against {ref!r}: not a git revision")
        where = Path(os.path.abspath(near))
        while not where.is_dir() and where != where.parent:
            where = where.parent
        top = _git(["rev-parse", "--show-toplevel"], where, "--against needs a git work tree")
        commit = _git(
            ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
            where,
            f"--against {ref}: no such revision in this repository (nothing is fetched)",
        )
        return cls(ref, commit.decode().strip(), Path(top.decode().strip()).resolve())

    def expand(self, paths: Sequence[str]) -> tuple[list[str], list[CatalogProblem]]:
        """The catalog files at this revision under ``paths``, in order (paths in the
        repository, from its top)."""
        files: list[str] = []
        for path in paths:
            inside = self._in_repository(path)
            listed = _git(
                ["ls-tree", "-r", "-z", "--full-name", "--name-only", self.commit, "--", inside],
                self.top,
                f"{shown(path)}: cannot list it at {self.ref}",
            )
            names = [name.decode("utf-8", "surrogateescape") for name in listed.split(b"\0")]
            files += sorted(n for n in names if n == inside or n.lower().endswith(CATALOG_SUFFIXES))
        return files, []

    def read(
        self, path: str, fmt: CatalogFormat | None, max_bytes: int
    ) -> tuple[list[ToolSchema], CatalogProblem | None]:
        """The tools of the file at ``path`` (from the top) at this revision."""
        name = f"{self.ref}:{shown(path)}"
        blob = f"{self.commit}:{path}"
        size = int(_git(["cat-file", "-s", blob], self.top, f"{name}: cannot read it").strip())
        if size > max_bytes:
            message = f"larger than the {byte_size(max_bytes)} a catalog may have"
            return [], CatalogProblem(Location(name), f"{message} (--max-catalog-bytes)")
        data = _git(["cat-file", "blob", blob], self.top, f"{name}: cannot read it")
        return parse_catalog(name, data, path.lower().endswith(".json"), fmt, Path(path).stem)

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


def _git(arguments: list[str], cwd: Path, failure: str) -> bytes:
    """git's standard output; ``failure`` (with git's own first line) when it fails."""
    try:
        done = subprocess.run(
            ["git", *arguments],
            cwd=cwd,
            capture_output=True,
            env={**os.environ, **_ENVIRONMENT},
            check=False,
        )
    except FileNotFoundError:
        raise GitProblem("--against needs git, which is not installed") from None
    except OSError as error:
        raise GitProblem(f"{failure}: {error.strerror or error}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = f" ({said[0].removeprefix('fatal: ')})" if said else ""
        raise GitProblem(f"{failure}{reason}")
    return done.stdout
