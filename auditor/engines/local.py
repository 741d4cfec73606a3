"""The local engine: audit log files in forked worker processes, part by part where the logs
allow it (``--jobs``).

The logs are cut into work items (``auditor.inputs.parts``): byte ranges of large plain
files, gzip and small files whole (decompressed in the worker). Each worker reads its own
items (no call crosses the pipe), replays them with the tools it inherits from the parent
(each compiled on its first call in that worker), and sends back a tally; merging the
tallies in log order gives the tally of one pass over the log, so ``--jobs`` never changes a
report. Once the parts before a part list the report's whole list of calls between them (each
worker publishes its part's running count; the merge tells the rest), that part is full from
then on, as one pass is past its list: it sends back none of its calls (no merge could list
them) and describes a rejection with python-jsonschema only where it may be a group's first
call or example (``_PartTally``). With a scratch folder
(``--scratch``) no worker sends back any: each writes its kept calls to a side file, and the
first ``--max-calls`` are read back at the end (``auditor.engines.kept``).

A worker that dies (the out-of-memory killer sends SIGKILL) would leave its part uncounted:
the run stops the other workers and raises ``WorkerLost`` instead of waiting for it or
writing a report that misses the part. A worker whose parent dies exits at once, silently.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Final

from auditor.aggregate.pipeline import Replays, ReportSettings, Tally
from auditor.aggregate.progress import Progress
from auditor.engines import inline
from auditor.engines import plan as plans
from auditor.engines.core import count_item, file_stats, replays_for, report_of
from auditor.engines.kept import put_aside, take_back
from auditor.engines.plan import AuditPlan
from auditor.errors import EXIT_INTERNAL, AuditorError
from auditor.gc_thresholds import fewer_collections
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.log_format_names import LogFormat
from auditor.inputs.parts import LogPart, WorkItem, spill, spillable
from auditor.models import CallResult, LogStats, Outcome, Report

__all__ = ["WorkerLost", "run", "tally_in_parallel"]

AHEAD_PER_JOB: Final = 4
"""Parts handed out and not yet merged, per worker: enough to keep the workers busy, and a
bound on the tallies waiting and on a gzip log's text spilled ahead of them."""
GZIP_RATIO: Final = 4
"""A gzip log of at least a part's size over this (JSON Lines shrink 5-10 times) is
decompressed in parts for the workers; a smaller one is read whole by one of them."""
SHARED_TOOLS: Final = 2_000
"""Catalogs of at most this many tools are compiled before the workers are forked, so that
they share them; the tools of a larger catalog are compiled where they are first called."""

LISTED_PLACES: Final = 4_096
"""Parts (in log order) whose running count of listed calls the workers share, so that a
part knows early when the parts before it fill the report's list; a later part learns it
from the merge (``_Shared.full_from``)."""
ASK_EVERY: Final = 64
"""Calls a part replays between two looks at the other parts' counts."""

PR_SET_PDEATHSIG: Final = 1
"""prctl(2) option: the signal a Linux process gets when its parent dies."""


class WorkerLost(AuditorError):
    """A worker process died before returning its part: the tally would miss it."""

    exit_code = EXIT_INTERNAL
    kind = "internal error"

    def line(self) -> str:
        return f"{super().line()}; no report was written"


@dataclass(frozen=True)
class _Shared:
    """What the workers inherit when they are forked."""

    replays: Replays
    settings: ReportSettings
    max_record_bytes: int
    full_from: ctypes.c_int64
    """The place of the part whose merge filled the list of calls (``sys.maxsize`` until
    then): later parts' calls can only be counted as omitted."""
    aside_to: str | None = None
    """The folder each part writes its kept calls to, instead of sending them back."""
    listed: Any = None
    """Per place (below ``LISTED_PLACES``), how many calls its part has listed so far, as
    its worker counts them (a shared array of int64; only ever grows)."""
    filled: dict[str, int] = field(default_factory=dict)
    """In a worker, the groups whose examples its parts filled, each with the earliest such
    part's place: a later part needs no example of them (its own copy in each worker)."""


class _PartTally(Tally):
    """The tally of the part at ``place``, as a worker counts it, that knows when the parts
    before it already list the report's whole list of calls (their workers' running counts,
    ``_Shared.listed``, or the merge, ``_Shared.full_from``): none of its calls can then be
    listed, so it counts as full, and a rejection is described by python-jsonschema only
    where it may be a group's first call or example (``Tally.detailed``), as one pass does
    once its list is full; a group whose examples this worker's earlier parts filled takes
    none of its calls either (``Tally.filled_before``). Without this every part described its
    first ``--max-calls`` rejections, and each group's first examples, in full, which one
    pass does once: most of the extra work of ``--jobs``."""

    def __init__(self, replays: Replays, settings: ReportSettings, place: int) -> None:
        super().__init__(replays, settings)
        self.place = place
        self.listed_before = False
        self._ask_in = 0

    @property
    def full(self) -> bool:
        if self.listed_before or super().full:
            return True
        if self._ask_in:
            self._ask_in -= 1
            return False
        self._ask_in = ASK_EVERY
        self.listed_before = _listed_before(self.place, self._max_calls)
        return self.listed_before

    def add(self, result: CallResult, reached: frozenset[int], weight: int = 1) -> None:
        super().add(result, reached, weight)
        listed = _prepared[0].listed
        if (
            result.outcome is not Outcome.ACCEPTED
            and listed is not None
            and self.place < len(listed)
        ):
            listed[self.place] = len(self.kept)

    def plain(self) -> Tally:
        """The counts as a plain ``Tally``, to send back (the parent merges those)."""
        tally = Tally.__new__(Tally)
        tally.__dict__.update(self.__dict__)
        for name in ("place", "listed_before", "_ask_in"):
            del tally.__dict__[name]
        tally.filled_before = ()
        return tally


def _listed_before(place: int, max_calls: int | None) -> bool:
    """Whether the parts before ``place`` list at least ``max_calls`` calls between them:
    the counts only grow, so once true it stays true."""
    [shared] = _prepared
    if max_calls is None:
        return False
    if place > shared.full_from.value:
        return True
    listed = shared.listed
    return listed is not None and place <= len(listed) and sum(listed[:place]) >= max_calls


_prepared: list[_Shared] = []


def run(plan: AuditPlan, workers: int, progress: Progress) -> Report:
    """The report of ``plan`` (cut for the local workers: ``Cut.FOR_LOCAL``), its parts
    replayed by ``workers`` forked processes; one pass in this process when the logs cannot
    be split or are too small to be worth it (``auditor.engines.inline``)."""
    # One scope for the whole run: the workers forked inside it keep the raised thresholds
    # while they count, pickle and exit, and so does this process while it unpickles and
    # merges their tallies; the collector's passes over what the parent holds by then were
    # half of the extra CPU time of --jobs 2.
    with fewer_collections():
        replays = replays_for(plan)
        counted = tally_in_parallel(replays, plan, workers, progress)
        if counted is None:
            return inline.run(plan, workers, progress, replays)
        tally, stats = counted
        return report_of(plan, replays, tally, stats)


def tally_in_parallel(
    replays: Replays, plan: AuditPlan, jobs: int, progress: Progress
) -> tuple[Tally, tuple[LogStats, ...]] | None:
    """The tally of every file of ``plan``, read by ``jobs`` workers; None when the logs must
    be read in one pass (standard input, a single document, a format whose calls repeat
    across records, or logs too small to be worth it). The workers put their kept calls in
    the plan's scratch folder when it has one (``auditor.engines.kept``)."""
    items = plan.parts
    fmt, max_record_bytes, calls_from = plan.log_format, plan.max_record_bytes, plan.calls_from
    settings, aside_to = plan.settings, plan.scratch
    gzipped = [spillable(item, fmt, max_record_bytes) for item in items]
    large = [
        found if found and os.path.getsize(found[0]) >= plans.MIN_PART_BYTES // GZIP_RATIO else None
        for found in gzipped
    ]
    if len(items) < 2 and not any(large):
        return None
    replays.build_all(SHARED_TOOLS)
    context = multiprocessing.get_context("fork")
    full_from = context.RawValue(ctypes.c_int64, sys.maxsize)
    listed = context.RawArray(ctypes.c_int64, LISTED_PLACES)
    _prepared[:] = [_Shared(replays, settings, max_record_bytes, full_from, aside_to, listed)]
    tally = Tally(replays, settings)
    counted: list[tuple[str, LogStats]] = []
    aside: list[tuple[int, int, int]] = []
    calls = done = 0
    # fork: the workers share the loaded catalog and whatever the parent compiled already.
    pool = ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_worker_setup, initargs=(os.getpid(),)
    )
    pending: deque[tuple[int, WorkItem, Future[Any]]] = deque()

    def merge_next() -> None:
        nonlocal calls, done
        place, part, future = pending.popleft()
        part_tally, part_stats, put = _result(future, pool)
        if put is not None:
            aside.append((place, 0, put))
        if isinstance(part, LogPart) and part.data is not None:
            os.unlink(part.data)  # read: the spilled text is not needed any more
        tally.merge(part_tally)
        if tally.full and full_from.value == sys.maxsize:
            full_from.value = place
        counted.extend(part_stats)
        calls += sum(stats.calls for _, stats in part_stats)
        done += _size(part)
        progress.update(calls, done)

    finished = False
    try:
        with tempfile.TemporaryDirectory(prefix="auditor-gzip-") as scratch:
            parts = _parts(items, large, scratch, calls_from)
            for place, part in enumerate(parts):
                pending.append((place, part, pool.submit(_work_at, place, part)))
                while len(pending) > jobs * AHEAD_PER_JOB:  # bounds the spilled text too
                    merge_next()
            while pending:
                merge_next()
        finished = True
    finally:
        _stop(pool, kill=not finished)
    if aside_to is not None:
        take_back(aside_to, aside, tally, settings.max_calls)
    progress.done()
    return tally, file_stats(plan.files, counted)


def _parts(
    items: Sequence[WorkItem],
    large: Sequence[tuple[str, LogFormat] | None],
    scratch: str,
    calls_from: CallsFrom = CallsFrom.ALL,
) -> Iterator[WorkItem]:
    """The work items in log order, a large gzip log's as parts of its text spilled to
    ``scratch`` as it is decompressed: workers replay them while it goes on."""
    for item, gzipped in zip(items, large, strict=True):
        if gzipped is None:
            yield item
        else:
            yield from spill(*gzipped, scratch, plans.MIN_PART_BYTES, calls_from)


def _size(part: WorkItem) -> int:
    """Bytes of the part on disk: what progress counts (not for spilled text: progress
    counts the calls there)."""
    if isinstance(part, LogPart):
        return part.end - part.start if part.data is None else 0
    return part.size


def _result(
    future: Future[tuple[Tally, list[tuple[str, LogStats]]]], pool: ProcessPoolExecutor
) -> Any:
    """A part's tally and stats; ``WorkerLost`` when its worker died or failed (a
    MemoryError, say), so that no report is built without the part."""
    try:
        return future.result()
    except BrokenProcessPool:
        raise WorkerLost(_lost(pool)) from None
    except Exception as error:
        said = " ".join(f"{type(error).__name__}: {error}".split()).removesuffix(":")
        said = said if len(said) <= 200 else said[:199] + "…"
        raise WorkerLost(
            f"a worker process failed ({said}): its part of the logs was not counted"
        ) from None


def _lost(pool: ProcessPoolExecutor) -> str:
    """What became of the worker that died, in words."""
    processes = dict(getattr(pool, "_processes", None) or {})
    for process in processes.values():
        process.join(timeout=5)  # the pool is ending them: their exit codes say how
    # The pool ends the other workers with SIGTERM once one is lost: that one is the other.
    codes = sorted(
        (p.exitcode for p in processes.values() if p.exitcode not in (None, 0)),
        key=lambda code: code == -signal.SIGTERM,
    )
    if codes and codes[0] is not None and codes[0] < 0:
        name = signal.Signals(-codes[0]).name
        how = f"killed by {name}" + (
            " (the out-of-memory killer sends it)" if name == "SIGKILL" else ""
        )
    else:
        how = f"exited with code {codes[0]}" if codes else "ended unexpectedly"
    return f"a worker process was {how}: its part of the logs was not counted"


def _stop(pool: ProcessPoolExecutor, kill: bool) -> None:
    """End the workers; ``kill`` ends them now (after a failure or an interruption nothing
    they do is used)."""
    if kill:
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            with contextlib.suppress(Exception):
                process.kill()
    pool.shutdown(wait=True, cancel_futures=True)


def _worker_setup(parent: int) -> None:
    """Ctrl-C reaches the whole process group: only the parent reports the interruption (and
    then ends the workers), never each worker with a traceback of its own. A worker whose
    parent is gone (killed, say) has no one to report to: it ends at once, silently."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    armed = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(0)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    # Where prctl is unavailable (not Linux), the parent's death shows as a new parent id.
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def _work_at(place: int, part: WorkItem) -> tuple[Tally, list[tuple[str, LogStats]], int | None]:
    """The tally of the part at ``place`` in log order, without its kept calls when an
    earlier part filled the list: no merge could list them, so they are not shipped. With
    a scratch folder they are put aside there instead; then the number put aside comes too."""
    counted, stats = _work(place, part)
    tally = counted.plain()
    aside_to = _prepared[0].aside_to
    if counted.listed_before or _listed_before(place, _prepared[0].settings.max_calls):
        tally.drop_kept()
    if aside_to is None:
        return tally, stats, None
    return tally, stats, put_aside(aside_to, place, tally)


def _work(place: int, part: WorkItem) -> tuple[_PartTally, list[tuple[str, LogStats]]]:
    [shared] = _prepared
    tally = _PartTally(shared.replays, shared.settings, place)
    # Examples are a group's first calls in log order: a group this worker's earlier parts
    # filled takes none from this part, whose calls of it need no full description.
    tally.filled_before = {key for key, at in shared.filled.items() if at < place}
    _, stats = count_item(
        shared.replays, shared.settings, part, shared.max_record_bytes, tally=tally
    )
    for key in tally.collector.filled():
        shared.filled[key] = min(place, shared.filled.get(key, place))
    return tally, stats
