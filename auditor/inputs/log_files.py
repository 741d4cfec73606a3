"""Log files: which files an input names, whether they can be opened, and their bytes.

A directory stands for the log files below it (``.jsonl``, ``.ndjson``, ``.json``, ``.log``,
``.gz``, and the columnar ``.parquet``, ``.arrow``, ``.feather``), in a stable order; ``-`` is
standard input, read once when its turn comes. A file is gunzipped when it holds gzip data,
whatever its name, and what comes out of it is bounded (``MAX_DECOMPRESSED_BYTES``): a gzip
bomb ends as one unreadable record, not an exhausted machine. A URI (``s3://…``) names an
object, or a prefix standing for the objects below it, read through fsspec
(``auditor.inputs.uri``). What the bytes hold is ``auditor.inputs.records``' business.
"""

from __future__ import annotations

import gzip
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Final, cast

from auditor.errors import AuditorError
from auditor.inputs.catalog_listing import held
from auditor.inputs.limits import MAX_DECOMPRESSED_BYTES
from auditor.inputs.paths import STDIN, STDIN_NAME, InputProblem, files_in, shown, walk
from auditor.inputs.sniff import catalog_given_as_log
from auditor.inputs.uri import is_uri, open_uri
from auditor.models import Location

LOG_SUFFIXES: Final = (
    *(".jsonl", ".ndjson", ".json", ".log", ".gz"),
    *(".parquet", ".arrow", ".feather"),  # columnar: auditor.inputs.parquet
)
_NONE: Final = f"no log files ({', '.join(LOG_SUFFIXES)})"
NAMES_SHOWN: Final = 3
"""Log inputs named in a message, at most; the rest are counted."""
_GZIP_MAGIC: Final = b"\x1f\x8b"


class LogProblem(InputProblem):
    """Why a log input cannot be used; ``str()`` is the one-line message for the user."""


class TooFewCalls(AuditorError):
    """The logs held fewer calls than the audit needs (none, or fewer than ``--min-calls``):
    an audit of no traffic would pass whatever the change, so it is unusable input (exit 2)."""


def holds_no_log(problem: LogProblem) -> bool:
    """Whether ``problem`` is a directory holding no log file: as empty as an empty file."""
    return problem.message == _NONE


def traffic_problem(calls: int, paths: Sequence[str], least: int, allow_empty: bool) -> str | None:
    """What is wrong with reading ``calls`` calls from the logs ``paths``: ``least`` is the
    fewest an audit needs (``--min-calls``); ``allow_empty`` accepts none at all. None: fine."""
    if calls >= least or (calls == 0 and allow_empty):
        return None
    if catalog := catalog_given_as_log(paths):  # say which option a catalog was meant for
        return catalog
    names = [display_name(path) for path in paths]
    more = len(names) - NAMES_SHOWN
    where = ", ".join(names[:NAMES_SHOWN]) + (f" and {more:,} more" if more > 0 else "")
    if calls == 0 and (folder := _folder_without_logs(paths)) is not None:
        return folder
    if calls == 0:
        return (
            f"no call read from the logs ({where}): an empty log audits nothing; "
            "give --allow-empty if no traffic is expected"
        )
    said = f"{calls:,} call" if calls == 1 else f"{calls:,} calls"
    return f"{said} read from the logs ({where}), fewer than --min-calls {least:,}"


def _folder_without_logs(paths: Sequence[str]) -> str | None:
    """For a folder among ``paths`` that holds files but no log file (``calls.txt``): what it
    holds and what is read, for "give --allow-empty" would be the wrong advice."""
    for path in paths:
        if path == STDIN or is_uri(path) or not os.path.isdir(path):
            continue
        files, _ = walk(path, lambda name: True)
        if files and not any(file.lower().endswith(LOG_SUFFIXES) for file in files):
            return (
                f"{shown(path)}: {_NONE}{held(path, LOG_SUFFIXES)}; a folder's logs are read "
                f"by those endings: name a log to read it whatever it is called "
                f"(--logs {shown(files[0])})"
            )
    return None


class LogFormatError(Exception):
    """A log file in no known format (or not in the forced one), found while reading it."""

    def __init__(self, problem: LogProblem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def display_name(path: str) -> str:
    """The name a log goes by in sources and messages (a non-UTF-8 name escaped)."""
    return STDIN_NAME if path == STDIN else shown(path)


def log_files(path: str, follow_links: bool = False) -> tuple[list[str], list[LogProblem]]:
    """``path`` itself, or the log files below a directory in a stable order, with the
    entries there that cannot be read: a FIFO (opening it would wait forever for a writer),
    a broken link, an unreadable folder, a link out of it (unless ``follow_links``), or the
    directory when it holds no log file. A path given by name is the user's choice."""
    files, unreadable = files_in(path, LOG_SUFFIXES, _NONE, follow_links)
    return files, [LogProblem(Location(entry), why) for entry, why in unreadable]


def check_logs(
    paths: Sequence[str], follow_links: bool = False
) -> tuple[list[str], list[LogProblem]]:
    """Every log file to read, and the inputs that cannot be read at all."""
    files: list[str] = []
    problems: list[LogProblem] = []
    for path in paths:
        found, unreadable = log_files(path, follow_links)
        problems.extend(unreadable)
        for file in found:
            if file == STDIN:  # read once, when its turn comes
                files.append(file)
                continue
            try:
                # Opened, not read: peeking would consume what a pipe holds.
                with _opened(file):
                    pass
            except FileNotFoundError:
                problems.append(LogProblem(Location(shown(file)), "no such file"))
            except OSError as error:
                why = f"cannot read: {error.strerror or error}"
                problems.append(LogProblem(Location(shown(file)), why))
            else:
                files.append(file)
    return files, problems


@contextmanager
def open_log(file: str) -> Iterator[IO[bytes]]:
    """A binary stream of the file or of standard input, gunzipped when it is gzip data
    (recognized by its magic bytes, so a ``.gz`` name is not needed, nor trusted)."""
    with _opened(file) as stream:
        # Peeking keeps the bytes in the buffer: nothing is consumed to recognize gzip.
        peek = getattr(stream, "peek", None)
        head = peek(2)[:2] if peek is not None else b""
        if head == _GZIP_MAGIC:
            with gzip.GzipFile(fileobj=stream, mode="rb") as unzipped:
                yield cast(IO[bytes], _Capped(unzipped, MAX_DECOMPRESSED_BYTES))
        else:
            yield stream


@contextmanager
def _opened(file: str) -> Iterator[IO[bytes]]:
    """The raw bytes of a file, an object named by URI, or standard input (left open)."""
    if file == STDIN:
        yield sys.stdin.buffer
    elif is_uri(file):
        with open_uri(file) as stream:
            yield stream
    else:
        with open(file, "rb") as stream:
            yield stream


class _Capped:
    """A decompressed stream that fails once more than ``cap`` bytes have come out of it, so
    a gzip bomb ends as one unreadable record (``bounded_lines`` reports the failure)."""

    def __init__(self, stream: gzip.GzipFile, cap: int) -> None:
        self._stream = stream
        self._cap = cap
        self._read = 0

    def _count(self, data: bytes) -> bytes:
        self._read += len(data)
        if self._read > self._cap:
            raise OSError(
                f"decompressed past {self._cap:,} bytes, the bound on one gzip log "
                "(decompress it outside and pipe it in to read it all)"
            )
        return data

    def readline(self, size: int = -1) -> bytes:
        return self._count(self._stream.readline(size))

    def read(self, size: int = -1) -> bytes:
        return self._count(self._stream.read(size))

    def peek(self, size: int = 0) -> bytes:
        return self._stream.peek(size)
