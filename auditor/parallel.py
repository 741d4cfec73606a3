"""Audit log files, in worker processes part by part where the logs allow it.

Each worker reads its own run of lines (no call crosses the pipe), replays it with the tools
prepared before the workers were forked, and sends back a tally; merging the tallies in log
order gives the tally of one pass over the log, so ``--jobs`` never changes a report.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Collection, Sequence
from typing import Final

from auditor.budget import DEFAULT_CALL_TIMEOUT
from auditor.limits import DEFAULT_MAX_RECORD_BYTES
from auditor.log_formats import LogFormat
from auditor.logs import LogPart, LogReader, merge_stats, split
from auditor.models import LogStats, Override, Report, Rule, ToolSchema
from auditor.normalize import DEFAULT_RULES
from auditor.pipeline import ReportSettings, Tally, build_report, count_calls, prepare
from auditor.progress import Progress
from auditor.replay import ToolReplay

MIN_PART_BYTES: Final = 4 << 20
"""Below this a part costs more to hand out than to read in place."""
PARTS_PER_JOB: Final = 4
"""More parts than workers, so a slow part does not leave the others idle."""

_prepared: list[tuple[dict[str, ToolReplay], ReportSettings, int]] = []
"""What the workers inherit when they are forked: the replays and settings."""


def audit_logs(
    tools: Sequence[ToolSchema],
    files: Sequence[str],
    schema_inputs: Sequence[str],
    overrides: Sequence[Override] = (),
    rules: Collection[Rule] = DEFAULT_RULES,
    settings: ReportSettings | None = None,
    fmt: LogFormat | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
) -> Report:
    """The audit of log files, read by ``jobs`` worker processes where the logs allow it.

    The report is the same whatever ``jobs`` is: parts are merged in log order.
    """
    settings = settings or ReportSettings()
    replays = prepare(tools, rules, call_timeout=call_timeout, old_runtime=settings.old_runtime)
    progress = progress or Progress(0)
    counted = (
        tally_in_parallel(replays, files, fmt, jobs, settings, progress, max_record_bytes)
        if jobs > 1
        else None
    )
    if counted is None:
        reader = LogReader(files, fmt, max_record_bytes)
        tally = count_calls(replays, progress.wrap(reader, lambda: reader.bytes_read), settings)
        counted = tally, reader.stats()
    tally, stats = counted
    return build_report(replays, tally, stats, schema_inputs, overrides, settings)


def tally_in_parallel(
    replays: dict[str, ToolReplay],
    files: Sequence[str],
    fmt: LogFormat | None,
    jobs: int,
    settings: ReportSettings,
    progress: Progress,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
) -> tuple[Tally, tuple[LogStats, ...]] | None:
    """The tally of every file, read by ``jobs`` workers; None when the logs must be read
    in one pass (standard input, gzip, a single document, a format whose calls repeat
    across records, or logs too small to be worth it)."""
    parts: list[LogPart] = []
    for file in files:
        size = os.path.getsize(file) if os.path.isfile(file) else 0
        count = min(jobs * PARTS_PER_JOB, size // MIN_PART_BYTES)
        found = split(file, count, fmt, max_record_bytes)
        if found is None:
            return None
        parts.extend(found)
    if len(parts) < 2:
        return None
    _prepared[:] = [(replays, settings, max_record_bytes)]
    tally = Tally(replays, settings)
    stats: dict[str, LogStats] = {}
    calls = done = 0
    # fork: the workers share the prepared (compiled) tools instead of rebuilding them.
    with multiprocessing.get_context("fork").Pool(jobs, initializer=_quiet_worker) as pool:
        for part, (part_tally, part_stats) in zip(parts, pool.imap(_work, parts), strict=True):
            tally.merge(part_tally)
            earlier = stats.get(part.file)
            stats[part.file] = part_stats if earlier is None else merge_stats(earlier, part_stats)
            calls += part_stats.calls
            done += part.end - part.start
            progress.update(calls, done)
    progress.done()
    return tally, tuple(stats[file] for file in files)


def _quiet_worker() -> None:
    """Ctrl-C reaches the whole process group: only the parent reports the interruption (and
    then ends the workers), never each worker with a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _work(part: LogPart) -> tuple[Tally, LogStats]:
    [(replays, settings, max_record_bytes)] = _prepared
    reader = LogReader([part.file], part.fmt, max_record_bytes)
    tally = count_calls(replays, reader.read_part(part), settings)
    return tally, reader.stats()[0]
