"""Where the files a report names stand in the repository: the source root of the machine
formats (SARIF's ``%SRCROOT%``, GitLab Code Quality's paths).

Paths in a report are as the user gave them, relative to the working directory or absolute.
Code scanning and GitLab read a path from the repository root, so the formats that feed them
restate each local path from there (``SourceRoot``); a catalog read from a remote object
(``s3://…``) is no file of the repository and keeps its URI as given (its password masked).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePath
from urllib.parse import unquote, urlsplit

from auditor.inputs.uri import is_uri, masked, scheme


@dataclass(frozen=True)
class SourceRoot:
    """Where relative paths start (``cwd``, the working directory) and the folder the
    formats count from (``root``): the nearest folder at or above the working directory that
    holds a ``.git`` (a repository, a worktree, a submodule), else the working directory."""

    cwd: PurePath
    root: PurePath

    @classmethod
    def find(cls, cwd: Path | None = None) -> SourceRoot:
        """The source root of ``cwd`` (default: the process's working directory). Paths are
        taken as spelled (no symbolic link resolved), as the user typed them."""
        here = Path(os.path.abspath(cwd if cwd is not None else Path.cwd()))
        for folder in (here, *here.parents):
            if (folder / ".git").exists():
                return cls(here, folder)
        return cls(here, here)

    def absolute(self, path: str) -> PurePath | None:
        """The local file ``path`` names (as given, or a ``file:`` URI), made absolute and
        normalized (``.`` and ``..`` taken away); None for a remote URI."""
        if is_uri(path):
            if scheme(path) != "file":
                return None
            path = unquote(urlsplit(path).path)
        return PurePath(os.path.normpath(self.cwd / path))

    def relative(self, full: PurePath) -> PurePath | None:
        """``full`` (absolute) from the root; None when it lies outside."""
        try:
            return full.relative_to(self.root)
        except ValueError:
            return None


def remote_uri(path: str) -> str | None:
    """The URI of an input read from a remote object, as given (a password in it masked);
    None for a local file."""
    return masked(path) if is_uri(path) and scheme(path) != "file" else None


def repository_path(path: str, where: SourceRoot) -> str:
    """``path`` as a repository-relative path with forward slashes where it lies inside the
    root; else the absolute path, or a remote input's URI (masked)."""
    full = where.absolute(path)
    if full is None:
        return remote_uri(path) or path
    relative = where.relative(full)
    return (relative if relative is not None else full).as_posix()
