"""Kept calls off the driver (``--scratch``): each part writes the non-accepted calls its
tally keeps for the report's list to a side file of its own and ships counts only; the
driver reads the first ``--max-calls`` of them back, part by part in log order.

A part keeps the first ``--max-calls`` calls of its own, so the first ``--max-calls`` of the
whole log are among the side files' (in part order): reading them back gives the list and
``calls_omitted`` of one pass. The driver holds one side file at a time and stops once the
list is full, so its memory does not grow with the number of parts or calls.

The folder must be one run's own (``audit_logs`` makes one inside ``--scratch``), readable
by the driver and writable by every worker (a shared filesystem on a cluster), so whoever
else can write it can put files there. Side files are therefore data: JSON Lines, one
listed call a line (``auditor.engines.kept_codec``), decoded field by field. A side file
that is not what the run wrote (not JSON, not the run's records, fewer of them than its
part put aside, a link or a FIFO where a file should be) stops the run as a lost worker
does (``SideFileUnreadable``, exit 3): nothing in it is run, and no report is built from it.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterable

from auditor.aggregate.pipeline import Tally
from auditor.engines.kept_codec import decode, encode
from auditor.errors import EXIT_INTERNAL, AuditorError
from auditor.inputs.paths import shown
from auditor.models import CallResult

PREFIX = "auditor-kept-"
"""The name of the folder a run makes inside ``--scratch`` starts with this."""


class SideFileUnreadable(AuditorError):
    """A side file does not hold the calls its part put aside: the report would list
    calls nobody logged, or miss some."""

    exit_code = EXIT_INTERNAL
    kind = "internal error"

    def line(self) -> str:
        return f"{super().line()}; no report was written"


def side_file(folder: str, part: int, row: int = 0) -> str:
    """Where part number ``part`` (in log order) puts its kept calls; ``row``: where in the
    part a record batch that puts its own starts (``auditor.engines.core.audit_batch``)."""
    batch = f"-{row:012d}" if row else ""
    return os.path.join(folder, f"kept-{part:08d}{batch}.jsonl")


def put_aside(folder: str, part: int, tally: Tally, row: int = 0) -> int:
    """Write the calls ``tally`` keeps to the side file of ``part`` (of its batch from
    ``row``) and let them go; the number written (none: no file)."""
    count = len(tally.kept)
    if count:
        _write_whole(side_file(folder, part, row), (encode(result) for result in tally.kept))
    tally.kept = []
    return count


def _write_whole(path: str, lines: Iterable[bytes]) -> None:
    """Write ``lines`` to a new file beside ``path``, then rename it to ``path``: a link
    planted at that name is replaced, not written through, and a task that runs twice (a
    retry, a speculative copy) leaves one whole file, never a mix. The mode is what
    ``open`` would give (the umask applies): the driver may be another user than a worker."""
    temporary = f"{path}.{os.getpid()}-{secrets.token_hex(4)}"
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with open(handle, "wb") as out:
            out.writelines(lines)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def take_back(
    folder: str, aside: Iterable[tuple[int, int, int]], tally: Tally, max_calls: int | None
) -> None:
    """Fill the list of ``tally`` (the merge of every part's, none kept) with the first
    ``max_calls`` calls put aside, ``aside`` being (part, row, calls written) of every part
    (of every batch, from its row); the rest are counted as omitted. ``SideFileUnreadable``
    when a side file does not give back the calls its part wrote."""
    for part, row, count in sorted(aside):
        room = count if max_calls is None else min(count, max_calls - len(tally.kept))
        room = max(room, 0)
        if room:
            tally.kept.extend(_read_back(side_file(folder, part, row), room))
        tally.omitted += count - room


def _read_back(path: str, calls: int) -> list[CallResult]:
    """The first ``calls`` records of the side file at ``path``."""
    try:
        # Not through a link, and without waiting on a FIFO: a side file is a regular file.
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with open(handle, "rb") as side:
            if not stat.S_ISREG(os.fstat(side.fileno()).st_mode):
                raise _unreadable(path, "not a regular file")
            return [_record(path, number, side.readline(), calls) for number in range(calls)]
    except OSError as error:
        said = "a symbolic link" if error.errno == errno.ELOOP else error.strerror or str(error)
        raise _unreadable(path, said) from None


def _record(path: str, index: int, line: bytes, calls: int) -> CallResult:
    """The record on line ``index + 1`` of a side file of ``calls`` records."""
    where = f"line {index + 1}"
    if not line.endswith(b"\n"):
        said = f"it ends after {index} calls" if not line else f"{where} is cut short"
        raise _unreadable(path, f"{said}, and its part wrote at least {calls}")
    try:
        return decode(line)
    except ValueError as error:
        raise _unreadable(path, f"{where}: {error}") from None


def _unreadable(path: str, reason: str) -> SideFileUnreadable:
    return SideFileUnreadable(
        f"the --scratch side file {shown(path)} does not hold the calls its part wrote "
        f"({reason}); someone else who can write the folder may have changed it"
    )
