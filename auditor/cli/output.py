"""Writing files without destroying what a path names.

What a path names decides how it is written:

- a regular file, or a path that does not exist yet: a temporary file in the same folder,
  flushed to disk (``fsync``), renamed over the path, then the folder synced; an interrupted
  run leaves the previous file or the complete new one, never a truncated one;
- a device, a FIFO or a socket, and a descriptor path (``/dev/stdout``, ``/dev/fd/N``,
  ``/proc/self/fd/N``): opened and written in place. Renaming over them would turn
  ``/dev/null`` into a regular file (as root), cut ``/dev/stdout`` off from stdout, and
  starve a FIFO's reader;
- a symbolic link: written through. Its final target is written by the rules above, and the
  link stays a link. A dangling link is refused, and so is one whose target lies outside the
  folder the writes are confined to (``within``), when there is one;
- a directory: refused.

Confined to a folder (``within``), a path is also refused when it resolves into a ``.git``
folder below it: a checked-in configuration must not replace git's config or hooks. The same
check (``check_confined``) confines the inputs a configuration file names.

Failures are ``OSError``; ``WriteRefused`` (one of them) says why a path is not written at all.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import socket
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from auditor.inputs.links import is_inside

_DESCRIPTOR: Final = re.compile(
    r"/dev/(?:std(?P<std>in|out|err)|fd/(?P<fd>\d+))|/proc/(?:self|thread-self|(?P<pid>\d+))/fd/(?P<procfd>\d+)"
)
_STANDARD: Final = {"in": 0, "out": 1, "err": 2}
_MAX_LINKS: Final = 40
"""Symbolic links followed, at most, as the kernel does (ELOOP)."""


class WriteRefused(OSError):
    """A path that is not written at all; ``strerror`` says why, in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(errno.EPERM, reason)


@dataclass(frozen=True)
class _Target:
    """Where the text of one write really goes."""

    path: Path
    """The path to replace or open, symbolic links resolved."""
    descriptor: int | None = None
    """A descriptor of this process to write to (``/dev/stdout``), instead of a path."""
    in_place: bool = False
    """A device, FIFO or socket: opened and written, never replaced."""


def write_atomic(path: Path, text: str, within: Path | None = None) -> None:
    """Write ``text`` to ``path`` as the module docstring says, as UTF-8.

    Newlines are written as given (a CRLF file stays CRLF); an existing file keeps its mode,
    a new one gets the mode the umask allows, as ``open()`` would give it. ``within``, when
    given, is the folder the path and its link targets must stay in.
    """
    write_together([(path, text)], within=within)


def write_together(
    files: Sequence[tuple[Path, str]], within: Path | None = None, lock: Path | None = None
) -> None:
    """Write several files so that they change together: every new version is written to a
    temporary file first, and the renames follow one another under an advisory lock on the
    folder ``lock`` (``flock``), so two runs writing the same pair never leave one file of
    each. Devices, FIFOs and descriptors are written in place, after the renames.
    """
    targets = []
    for path, text in files:
        with _naming(path):
            targets.append((path, _target(path, within), text))
    staged: list[tuple[Path, str, Path]] = []
    try:
        for path, target, text in targets:
            if target.descriptor is None and not target.in_place:
                with _naming(path):
                    staged.append((path, _stage(target.path, text), target.path))
        with _locked(lock):
            for path, temporary, final in staged:
                with _naming(path):
                    os.replace(temporary, final)
        for folder in {final.parent for _, _, final in staged}:
            _sync_folder(folder)
    except BaseException:
        for _, temporary, _ in staged:
            Path(temporary).unlink(missing_ok=True)
        raise
    for path, target, text in targets:
        with _naming(path):
            if target.descriptor is not None:
                _write_descriptor(target.descriptor, text)
            elif target.in_place:
                _write_in_place(target.path, text)


@contextlib.contextmanager
def _naming(path: Path) -> Iterator[None]:
    """Name the path as the caller gave it in a failure (not a temporary file's name)."""
    try:
        yield
    except OSError as error:
        error.filename = os.fspath(path)
        error.filename2 = None
        raise


GIT_FOLDER: Final = ".git"
"""git's own folder: nothing confined to a folder goes into one below it."""
TO_WRITE: Final = "name it on the command line to write there"
TO_READ: Final = "name it on the command line to read it"
"""What a refusal says to do, for a write and for an input a configuration file named."""


def check_confined(path: Path, within: Path, remedy: str = TO_WRITE) -> None:
    """Raise ``WriteRefused`` now if ``path`` would leave ``within`` (through its folders or
    links) or go into a ``.git`` folder below it, before any work is done; a folder is fine
    here. ``remedy`` ends the refusal (``TO_READ`` for an input)."""
    with contextlib.suppress(IsADirectoryError):
        _target(path, within, remedy)


def _target(path: Path, within: Path | None, remedy: str = TO_WRITE) -> _Target:
    """Follow ``path``'s symbolic links to what it names, refusing what must not be written."""
    root = os.path.realpath(within) if within is not None else None
    given = current = os.path.join(os.getcwd(), path)
    for _ in range(_MAX_LINKS):
        descriptor = _descriptor(os.path.normpath(current))
        if descriptor is not None:
            if root is not None:
                raise WriteRefused(f"names a descriptor ({current}), outside {root}")
            return _Target(Path(current), descriptor=descriptor)
        try:
            status = os.lstat(current)
        except FileNotFoundError:
            if current != given:
                raise WriteRefused(f"a symbolic link to {current}, which does not exist") from None
            status = None
        except NotADirectoryError:
            raise WriteRefused("a folder on its way is not a folder") from None
        if status is not None and stat.S_ISLNK(status.st_mode):
            current = os.path.join(os.path.dirname(current), os.readlink(current))
            continue
        # The final name: the folders on the way may still be links; resolve them.
        real = os.path.join(os.path.realpath(os.path.dirname(current)), os.path.basename(current))
        if root is not None and not is_inside(real, root):
            raise WriteRefused(f"resolves to {real}, outside {root}; {remedy}")
        if root is not None and _in_git_folder(real, root):
            raise WriteRefused(f"resolves to {real}, inside a {GIT_FOLDER} folder; {remedy}")
        if status is None:
            return _Target(Path(real))
        if stat.S_ISDIR(status.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        return _Target(Path(real), in_place=not stat.S_ISREG(status.st_mode))
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))


def _in_git_folder(real: str, root: str) -> bool:
    """Whether ``real`` (below ``root``) has a ``.git`` folder on its way, in any case: a file
    system that ignores case takes ``.GIT`` for ``.git``."""
    below = os.path.relpath(real, root).split(os.sep)
    return any(part.casefold() == GIT_FOLDER for part in below)


def names_stdout(path: str) -> bool:
    """Whether ``path`` is ``-`` or names this process's standard output (``/dev/stdout``)."""
    if path == "-":
        return True
    return _descriptor(os.path.normpath(os.path.join(os.getcwd(), path))) == 1


def _descriptor(path: str) -> int | None:
    """The descriptor ``/dev/stdout``, ``/dev/fd/3`` or ``/proc/self/fd/3`` names, if any."""
    found = _DESCRIPTOR.fullmatch(path)
    if found is None or (found["pid"] is not None and int(found["pid"]) != os.getpid()):
        return None
    if found["std"] is not None:
        return _STANDARD[found["std"]]
    return int(found["fd"] or found["procfd"])


def _stage(path: Path, text: str) -> str:
    """A complete, synced temporary copy of the new ``path``, in its folder; its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        _keep_mode_and_owner(path, temporary)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return temporary


def _keep_mode_and_owner(path: Path, temporary: str) -> None:
    try:
        status = path.stat()
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        return
    if (status.st_uid, status.st_gid) != (os.geteuid(), os.getegid()):
        with contextlib.suppress(OSError):  # only root may give a file away
            os.chown(temporary, status.st_uid, status.st_gid)
    os.chmod(temporary, stat.S_IMODE(status.st_mode))


def _sync_folder(folder: Path) -> None:
    """Make a rename durable; some file systems cannot sync a folder, which is no failure."""
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


@contextlib.contextmanager
def _locked(folder: Path | None) -> Iterator[None]:
    """An exclusive advisory lock on ``folder`` itself (no lock file is left behind)."""
    if folder is None:
        yield
        return
    folder.mkdir(parents=True, exist_ok=True)
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with contextlib.suppress(OSError):  # a file system without locks: rename unlocked
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # releases the lock


def _write_descriptor(descriptor: int, text: str) -> None:
    for stream in (sys.stdout, sys.stderr):  # what Python buffered goes first
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    _write_all(descriptor, text.encode("utf-8"))


def _write_in_place(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    if stat.S_ISSOCK(os.stat(path).st_mode):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.connect(os.fspath(path))
            connection.sendall(data)
        return
    # No O_CREAT: if the node went away meanwhile, nothing is created in its place. A FIFO
    # waits here for its reader, as a shell redirection would.
    handle = os.open(path, os.O_WRONLY | os.O_NOCTTY)
    try:
        if stat.S_ISREG(os.fstat(handle).st_mode):  # replaced by a file since it was looked at
            raise OSError(errno.EAGAIN, "changed while being written; try again")
        _write_all(handle, data)
    finally:
        os.close(handle)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
