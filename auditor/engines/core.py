"""The engine-neutral audit: ``audit_part`` on any worker, ``combine`` anywhere, ``merge``
on the driver, ``report_of`` at the end of every engine. No engine is imported here.

A tally is exact when merged in log order (``Tally.merge``). A ``Partial`` therefore holds
runs of consecutive parts, each keyed by the plan indices of its first and last part;
``combine`` sorts the runs of both sides and folds the ones that meet, in order. So
partials combine in any order and grouping (a tree reduce, a combiner, results as they
arrive) and the report is the one a single pass gives, byte for byte. The kept calls of a
run that follows a full run from the first part are dropped as soon as that is known: no
merge could list them.

Logs whose calls repeat across files (request histories, deduplicated by call id) are one
part per file when the plan says so (``make_plan(repeats_apart=True)``): an engine first
finds, by a shuffle on the call-id digests (``call_ids``, ``seen_before``), which ids of each
file an earlier file holds, and gives them to that file's part (``audit_part(seen=...)``),
which then counts their calls as repeats: exactly what one pass does. Replies are paired with
calls within a file in one pass too, so nothing else crosses files.

With a scratch folder (``AuditPlan.scratch``) a part ships no kept
calls at all: it writes them to a side file, and ``merge`` reads the first back
(``auditor.engines.kept``).

A Parquet or Arrow IPC file is cut in runs of row groups (``ColumnarPart``), which a worker
reads itself (``audit_part``) or an engine reads in record batches of its own making
(``audit_batch``): a batch is some consecutive rows of one part, keyed by the part and the
file's number of its first row (``BatchKey``). Its run then starts and stops inside the part
(``Run.start``, ``Run.stop``), and runs meet where one stops and the next starts: batches of
a part combine with each other and with whole parts in any order, as parts do.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from auditor.aggregate.pipeline import (
    Replays,
    ReportSettings,
    Tally,
    build_report,
    count_calls,
    prepare,
)
from auditor.aggregate.repeats import AcceptedRepeats, Known, Payload
from auditor.engines.kept import put_aside, take_back
from auditor.engines.plan import AuditPlan
from auditor.errors import EXIT_INTERNAL, AuditorError
from auditor.inputs.log_files import display_name
from auditor.inputs.parquet import RowCount, batches_calls, group_batches
from auditor.inputs.parts import ColumnarPart, LogPart, WholeFiles, WorkItem
from auditor.inputs.reader import LogReader
from auditor.models import LogStats, Report


class PartsMissing(AuditorError):
    """The partials given to ``merge`` do not cover every part exactly once."""

    exit_code = EXIT_INTERNAL
    kind = "internal error"


class EngineUnusable(AuditorError):
    """The engine cannot run this audit: its extra is not installed, it cannot start, or
    the input is one it cannot reach (standard input)."""


@dataclass
class Run:
    """The tally of the consecutive parts ``first`` to ``last`` of a plan (from row
    ``start`` of the first, up to row ``stop`` of the last, for batches of columnar parts)."""

    first: int
    last: int
    tally: Tally
    stats: list[tuple[str, LogStats]]
    """How each file (a file cut in parts repeats) accounted for its lines, in order."""
    aside: list[tuple[int, int, int]] = field(default_factory=list)
    """(part, row, calls) written to side files instead of ``tally.kept``, with a scratch
    folder (``row``: where in the part the batch that wrote them starts)."""
    start: int = 0
    """Rows of part ``first`` before this run's (a batch's place in its part): 0 for parts."""
    stop: int | None = None
    """Rows of part ``last`` up to this run's end; None: the part's end."""

    @property
    def begin(self) -> tuple[int, int]:
        """Where the run starts, as (part, rows of it before)."""
        return self.first, self.start

    @property
    def end(self) -> tuple[int, int]:
        """Where the next run starts, as (part, rows of it before)."""
        return (self.last + 1, 0) if self.stop is None else (self.last, self.stop)

    def span(self) -> str:
        """The parts it covers, in words (with the rows, for batches)."""
        first = f"{self.first}" + (f" from row {self.start + 1}" if self.start else "")
        last = f"{self.last}" + (f" to row {self.stop}" if self.stop is not None else "")
        return f"{first}-{last}"


@dataclass(frozen=True)
class BatchKey:
    """Where a record batch of a columnar log lies: in part ``part`` of the plan (a
    ``ColumnarPart``), its first row being the file's row ``first_row`` (1: the first)."""

    part: int
    first_row: int


@dataclass
class Partial:
    """The tally of some parts of a plan: combine partials in any order and grouping."""

    runs: list[Run] = field(default_factory=list)


_compiled: dict[str, Replays] = {}
"""This process's replays of the plan it last worked on, by ``AuditPlan.catalog_key``."""


def replays_for(plan: AuditPlan) -> Replays:
    """The plan's tools, normalized and compiled once per process (each tool on its first
    call): a worker keeps one catalog, so memory does not grow with the plans it sees."""
    if not plan.catalog_key:
        return prepared(plan)
    replays = _compiled.get(plan.catalog_key)
    if replays is None:
        _compiled.clear()
        replays = _compiled[plan.catalog_key] = prepared(plan)
    return replays


def prepared(plan: AuditPlan) -> Replays:
    """The plan's tools, normalized (or matched with the new catalogs), each compiled on its
    first call."""
    return prepare(
        plan.tools,
        plan.rules,
        call_timeout=plan.call_timeout,
        old_runtime=plan.settings.old_runtime,
        runtimes=plan.settings.runtimes,
        new_catalogs=plan.new_catalogs,
        profile_runs=plan.profile_runs,
    )


def count_item(
    replays: Replays,
    settings: ReportSettings,
    item: WorkItem,
    max_record_bytes: int,
    seen: Collection[int] = (),
    preload: Mapping[Payload, Known] | None = None,
    tally: Tally | None = None,
) -> tuple[Tally, list[tuple[str, LogStats]]]:
    """The tally of one work item and how each of its files accounted for its lines;
    ``seen``: the call ids earlier files hold (``seen_before``); ``preload``: payloads known
    accepted (``auditor.engines.distinct``); ``tally``: an empty one to count into (a local
    worker's, which knows when earlier parts list calls enough: ``auditor.engines.local``)."""
    repeats = AcceptedRepeats(preload=preload)  # the reader counts accepted repeats itself
    if isinstance(item, LogPart):
        reader = LogReader(
            [item.file],
            item.fmt,
            max_record_bytes,
            calls_from=item.calls_from,
            known=repeats,
        )
        tally = count_calls(replays, reader.read_part(item), settings, repeats, tally)
        return tally, [(item.file, reader.stats()[0])]
    if isinstance(item, ColumnarPart):
        batches = group_batches(
            item.file, item.kind, item.groups, (item.tool, item.arguments), max_record_bytes
        )
        return _count_rows(
            replays, settings, item, batches, item.first_row, max_record_bytes, tally
        )
    reader = LogReader(
        item.files,
        item.fmt,
        max_record_bytes,
        calls_from=item.calls_from,
        seen=seen,
        known=repeats,
    )
    tally = count_calls(replays, reader, settings, repeats, tally)
    # The reader counts a file named twice under one entry, as a one-pass read does.
    return tally, list(zip(dict.fromkeys(item.files), reader.stats(), strict=True))


def _count_rows(
    replays: Replays,
    settings: ReportSettings,
    part: ColumnarPart,
    batches: Iterable[Any],
    first_row: int,
    max_record_bytes: int,
    tally: Tally | None = None,
) -> tuple[Tally, list[tuple[str, LogStats]]]:
    """The tally of consecutive rows of a columnar part, from the file's row ``first_row``,
    in record batches of its tool and arguments columns (in that order), and their
    accounting: as the one-pass read (``ColumnarLog``) counts them."""
    name = display_name(part.file)
    counted = RowCount(first_row)
    calls = batches_calls(name, part.kind, batches, part.arguments, max_record_bytes, counted)
    tally = count_calls(replays, calls, settings, tally=tally)
    return tally, [(part.file, counted.stats(name, part.kind))]


def repeat_parts(plan: AuditPlan) -> list[int]:
    """The parts whose calls may repeat those of earlier parts: each needs the call ids of
    the earlier ones it repeats (``seen_before``) before it is audited."""
    return [
        number
        for number, item in enumerate(plan.parts)
        if isinstance(item, WholeFiles) and item.repeats
    ]


def call_ids(plan: AuditPlan, part: int, buckets: int = 1) -> list[list[int]]:
    """The digests of the call ids part ``part`` holds, in ``buckets`` lists by digest (a
    shuffle's partitions), each sorted; none for a part without repeats."""
    item = plan.parts[part]
    found: list[list[int]] = [[] for _ in range(buckets)]
    if not (isinstance(item, WholeFiles) and item.repeats):
        return found
    reader = LogReader(item.files, item.fmt, plan.max_record_bytes, calls_from=item.calls_from)
    for _ in reader:  # read for the ids alone: nothing is replayed
        pass
    for digest in sorted(reader.call_ids()):
        found[digest % buckets].append(digest)
    return found


def seen_before(held: Iterable[tuple[int, Iterable[int]]]) -> dict[int, list[int]]:
    """From (part, digests it holds) of some digests (one shuffle partition: every holder of
    each digest in it), the digests each part holds that an earlier part holds too."""
    first: set[int] = set()
    earlier: dict[int, list[int]] = {}
    for part, digests in sorted(held, key=lambda one: one[0]):
        mine = earlier.setdefault(part, [])
        for digest in digests:
            if digest in first:
                mine.append(digest)
            else:
                first.add(digest)
    return earlier


def audit_part(
    plan: AuditPlan,
    part: int,
    seen: Collection[int] = (),
    preload: Mapping[Payload, Known] | None = None,
) -> Partial:
    """The partial of part number ``part`` of ``plan``: pure but for reading that part.
    ``seen``: for a part with repeats (``repeat_parts``), the call ids it holds that earlier
    parts hold (``seen_before``); ``preload``: payloads of the whole log known accepted, not
    replayed (``auditor.engines.distinct``): the partial is the same with or without."""
    tally, stats = count_item(
        replays_for(plan), plan.settings, plan.parts[part], plan.max_record_bytes, seen, preload
    )
    if plan.scratch is None:
        return Partial([Run(part, part, tally, stats)])
    aside = [(part, 0, put_aside(plan.scratch, part, tally))]
    return Partial([Run(part, part, tally, stats, aside)])


def audit_batch(plan: AuditPlan, key: BatchKey, batch: Any) -> Partial:
    """The partial of an Arrow record batch of consecutive rows of one columnar part of
    ``plan`` (``key`` says which, and where in it the batch starts), read by the engine: its
    rows accounted for and turned into calls as the one-pass read does. The batch holds the
    part's tool and arguments columns by name (other columns are not read)."""
    item = plan.parts[key.part]
    if not isinstance(item, ColumnarPart):
        raise PartsMissing(f"part {key.part} of the logs is not a columnar log's")
    start = key.first_row - item.first_row
    stop = start + batch.num_rows
    if start < 0 or stop > item.rows:
        raise PartsMissing(
            f"rows {key.first_row}-{key.first_row + batch.num_rows - 1} are not all in "
            f"part {key.part} of the logs (rows {item.first_row}-{item.first_row + item.rows - 1})"
        )
    columns = batch.select([item.tool, item.arguments])
    tally, stats = _count_rows(
        replays_for(plan), plan.settings, item, [columns], key.first_row, plan.max_record_bytes
    )
    end = None if stop == item.rows else stop
    run = Run(key.part, key.part, tally, stats, start=start, stop=end)
    if plan.scratch is not None:
        run.aside = [(key.part, start, put_aside(plan.scratch, key.part, tally, start))]
    return Partial([run])


def combine(one: Partial, other: Partial) -> Partial:
    """The partial of the parts of both (which it reuses: do not use them after)."""
    runs = sorted([*one.runs, *other.runs], key=lambda run: (run.begin, run.end))
    folded: list[Run] = []
    for run in runs:
        if folded and run.begin < folded[-1].end:
            raise PartsMissing(f"part {run.first} of the logs was counted twice")
        if folded and run.begin == folded[-1].end:
            before = folded[-1]
            before.tally.merge(run.tally)
            before.stats.extend(run.stats)
            before.aside.extend(run.aside)
            before.last, before.stop = run.last, run.stop
        else:
            folded.append(run)
    if folded and folded[0].begin == (0, 0) and folded[0].tally.full:
        for run in folded[1:]:
            run.tally.drop_kept()
    return Partial(folded)


def merge(plan: AuditPlan, partials: Iterable[Partial]) -> Report:
    """The report of the plan's partials, given in any order and grouping: the report of
    one pass over the logs. ``PartsMissing`` when a part is missing or counted twice."""
    total = functools.reduce(combine, partials, Partial())
    replays = replays_for(plan)
    if not plan.parts:
        tally, counted = Tally(replays, plan.settings), []
    else:
        whole = [((0, 0), (len(plan.parts), 0))]
        if [(run.begin, run.end) for run in total.runs] != whole:
            covered = ", ".join(run.span() for run in total.runs) or "none"
            raise PartsMissing(
                f"the partials cover parts {covered} of 0-{len(plan.parts) - 1}: "
                "some of the logs were not counted"
            )
        [run] = total.runs
        tally, counted = run.tally, run.stats
        if plan.scratch is not None:
            take_back(plan.scratch, run.aside, tally, plan.settings.max_calls)
    return report_of(plan, replays, tally, file_stats(plan.files, counted))


def report_of(
    plan: AuditPlan, replays: Replays, tally: Tally, stats: tuple[LogStats, ...]
) -> Report:
    """The report of the plan's whole tally and each file's accounting: where every engine
    ends, whatever way it merged its parts."""
    return build_report(replays, tally, stats, plan.schema_inputs, plan.overrides, plan.settings)


def file_stats(
    files: Sequence[str], counted: Iterable[tuple[str, LogStats]]
) -> tuple[LogStats, ...]:
    """Each file's accounting, its parts' added up, in the order the files were named."""
    stats: dict[str, LogStats] = {}
    for file, part in counted:
        earlier = stats.get(file)
        stats[file] = part if earlier is None else earlier.merge(part)
    return tuple(stats[file] for file in dict.fromkeys(files))
