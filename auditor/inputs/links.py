"""Symbolic links out of a folder: the one test of confinement, and what a refusal says.

A catalog or log folder is often a pull request's to fill: a link in it to ``~/.ssh/id_rsa``
or ``../.git/config`` would be read and quoted in the report. Files found in a folder (on
disk, or below a ``file://`` prefix) whose link leads out of it are refused unless the user
asks to follow such links; the writers use the same test for the folder a write is confined
to (``auditor.cli.output``).
"""

from __future__ import annotations

import os
from typing import Final

FOLLOW_LINKS: Final = "--follow-links"
"""The option that reads links leading out of the folder walked."""


def is_inside(real: str, root: str) -> bool:
    """Whether the resolved path ``real`` is ``root`` or below it (both absolute, links
    resolved)."""
    return os.path.commonpath([real, root]) == root


def leaves(path: str, root: str) -> str | None:
    """The real target of ``path`` when its links lead out of the folder ``root``; None when
    it stays inside."""
    target = os.path.realpath(path)
    return None if is_inside(target, os.path.realpath(root)) else target


def link_out(target: str, root: str) -> str:
    """Why a link to ``target`` out of the folder ``root`` (both as shown) is not read."""
    return f"a symbolic link to {target}, outside the folder {root}; give {FOLLOW_LINKS} to read it"
