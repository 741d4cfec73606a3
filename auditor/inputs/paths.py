"""Input paths: how a path is shown, and the files found in a directory.

A file name is bytes on POSIX; Python hands undecodable bytes over as lone surrogates, which
no UTF-8 output can hold. ``shown`` gives the name every message and report uses: the same
text for a UTF-8 name, ``\\xe9`` for a byte that is not UTF-8.

``walk`` lists a directory's files like ``rglob`` but says what it could not list or read —
an unreadable folder, a FIFO (opening it would wait for a writer), a socket or device, a
dangling symbolic link — instead of skipping it in silence, and refuses a symbolic link whose
target lies outside the folder walked (a catalog or log folder is often a pull request's to
fill: a link in it to ``~/.ssh/id_rsa`` would be read and quoted in the report), unless the
user asks to follow such links (``--follow-links``). ``files_in`` is how an input
path names files, for catalogs and logs alike: itself, standard input, or a directory's files
— or, for a URI, an object or the objects below a prefix (``auditor.inputs.uri``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from auditor.inputs.links import leaves, link_out
from auditor.inputs.uri import is_uri, local_path, masked, uri_files
from auditor.models import Location

STDIN: Final = "-"
"""The path that means standard input."""
STDIN_NAME: Final = "<stdin>"
"""How standard input is named in sources, statistics and messages."""
NOT_REGULAR: Final = "not a regular file (a FIFO, socket or device)"
DANGLING: Final = "no such file (a broken symbolic link?)"


@dataclass(frozen=True)
class InputProblem:
    """Why an input (a catalog, a log) cannot be used; ``str()`` is the one-line message
    for the user. Each kind of input has its subclass."""

    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


def shown(path: str | os.PathLike[str]) -> str:
    """``path`` as text that can be written out as UTF-8 (``caf\\xe9.json``); a URI with
    its password, if it holds one, masked."""
    text = os.fspath(path)
    if is_uri(text):
        text = masked(text)
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte: spell it out
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def walk(
    root: str, wanted: Callable[[str], bool], follow_links: bool = False
) -> tuple[list[str], list[tuple[str, str]]]:
    """The regular files below ``root`` whose name is ``wanted``, in ``sorted(rglob)``
    order, and ``(path, reason)`` for every wanted entry, or folder, that cannot be read.

    Links to files inside ``root`` are followed, and links out of it only when
    ``follow_links``; links to folders are not descended (as ``rglob``), so a link cycle
    cannot loop.
    """
    found: list[Path] = []
    problems: list[tuple[str, str]] = []
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError as error:
            problems.append((folder, f"cannot read the folder: {error.strerror or error}"))
            continue
        for entry in listed:
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
                continue
            if not wanted(entry.name):
                continue
            try:
                mode = os.stat(entry.path).st_mode
            except FileNotFoundError:
                problems.append((entry.path, DANGLING))
                continue
            except OSError as error:
                problems.append((entry.path, f"cannot read: {error.strerror or error}"))
                continue
            if not follow_links and entry.is_symlink():
                target = leaves(entry.path, root)
                if target is not None:
                    problems.append((entry.path, link_out(shown(target), shown(root))))
                    continue
            if stat.S_ISREG(mode):
                found.append(Path(entry.path))
            elif not stat.S_ISDIR(mode):
                problems.append((entry.path, NOT_REGULAR))
    return [str(p) for p in sorted(found)], sorted(problems)


def _inside_prefix(
    prefix: str, root: str, files: list[str], unreadable: list[tuple[str, str]]
) -> tuple[list[str], list[tuple[str, str]]]:
    """The files below a ``file://`` prefix (a folder on this machine, ``root``) whose links
    stay inside it, and the others as links out, as ``walk`` finds them."""
    kept = []
    for file in files:
        named = local_path(file)
        target = None if named is None else leaves(named, root)
        if target is None:
            kept.append(file)
        else:
            unreadable.append((shown(file), link_out(shown(target), shown(prefix))))
    return kept, unreadable


def files_in(
    path: str, suffixes: tuple[str, ...], none: str, follow_links: bool = False
) -> tuple[list[str], list[tuple[str, str]]]:
    """``path`` itself (a file, or ``-``), or the files below a directory whose name ends
    with one of ``suffixes`` (in any case), in a stable order, with ``(shown path, reason)``
    for each entry there that cannot be read (a FIFO, a broken link, an unreadable folder),
    or for the directory itself, with the reason ``none``, when it holds no such file, or for a
    link there whose target is outside it (unless ``follow_links``). A URI names an object, or
    a prefix that stands for the objects below it as a directory does (a ``file://`` prefix
    with the same rule for links)."""
    if is_uri(path):
        files, unreadable = uri_files(path, suffixes, none)
        root = local_path(path)
        if follow_links or root is None:
            return files, unreadable
        return _inside_prefix(path, root, files, unreadable)
    if path == STDIN or not Path(path).is_dir():
        return [path], []
    files, unreadable = walk(path, lambda name: name.lower().endswith(suffixes), follow_links)
    if not files and not unreadable:
        return [], [(shown(path), none)]
    return files, [(shown(entry), why) for entry, why in unreadable]
