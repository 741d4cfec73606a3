"""The audit on Spark: an RDD of the plan's parts, audited on the executors and combined
there by a tree reduce; the driver receives one partial and builds the report. Parts whose
calls repeat earlier files' first get, by a shuffle on the call-id digests (``groupByKey``),
the ids that earlier parts hold (``auditor.engines.core.seen_before``), joined to them on the
executors: the ids never reach the driver.

With ``AuditPlan.distinct_first``, Spark's own reader and group-by first count the (tool,
arguments text) pairs of a sample of the JSON Lines logs' lines (``spark.read.text``,
``sample``, ``from_json``, ``groupBy``); the executors replay the most frequent once, and the
accepted ones, broadcast, are preloaded in every part (``auditor.engines.distinct``).

Parquet logs are read by Spark itself, where pandas is installed (pyspark's ``mapInArrow``
requires it): one scan per set of files alike in columns and types, their rows numbered by
the ``_metadata.row_index`` column, ``mapInArrow`` tallying each task's record batches
(``auditor.engines.core.audit_batch``, cut where a batch crosses a part of the plan), the
partials combined with those of the other parts. Without pandas, and for Arrow IPC files
(Spark reads none) and empty logs, the executors read the plan's row-group parts with
pyarrow (``audit_part``): the report is the same.

``audit_on_spark`` is for users who hold a ``SparkSession`` (on a cluster, the executors
need ``auditor`` (with pyarrow, the ``parquet`` extra, for columnar logs) installed and the
log paths readable); ``run`` is ``--engine spark``. pyspark is the
``tool-schema-auditor[spark]`` extra, imported only here and only when used.
"""

from __future__ import annotations

import bisect
import functools
import importlib.util
import os
import pickle
import sys
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

from auditor.aggregate.progress import Progress
from auditor.aggregate.repeats import Known, Payload
from auditor.engines import distinct
from auditor.engines.core import (
    BatchKey,
    EngineUnusable,
    Partial,
    audit_batch,
    audit_part,
    call_ids,
    combine,
    merge,
    repeat_parts,
    seen_before,
)
from auditor.engines.plan import AuditPlan
from auditor.inputs.parquet import Columnar
from auditor.inputs.parts import ColumnarPart
from auditor.models import Report

GLOB_CHARACTERS: Final = "*?[]{}\\,"
"""Characters Hadoop reads as a glob (or a list of paths) in a path given to a scan."""

if TYPE_CHECKING:
    from pyspark import RDD, Broadcast, SparkContext
    from pyspark.sql import SparkSession


def audit_on_spark(plan: AuditPlan, spark: SparkSession, arrow: bool | None = None) -> Report:
    """The report of ``plan``, its parts audited by ``spark``'s executors: the same report
    as one pass over the logs on one machine. ``arrow``: whether Spark reads Parquet logs
    itself (``mapInArrow``, which needs pandas); None: where pandas is installed."""
    if not plan.parts:
        return merge(plan, [])
    context = spark.sparkContext
    shared = context.broadcast(plan)  # shipped once per executor, not once per part
    preload = None
    try:
        if plan.distinct_first:
            preload = _preload(spark, shared)
        scans = _scans(plan) if _arrow_wanted(arrow) else []
        scanned = {part for scan in scans for part in scan.parts}
        rest = [part for part in range(len(plan.parts)) if part not in scanned]
        keyed = context.parallelize([(part, ()) for part in rest], max(1, len(rest)))
        seen = _seen_before(context, shared, repeat_parts(plan))
        if seen is not None:  # each part with the ids earlier parts hold (none: no repeats)
            keyed = keyed.cogroup(seen, len(rest)).mapValues(lambda both: list(both[1]))
        partials = keyed.map(functools.partial(_audit, shared, preload))
        for scan in scans:
            partials = partials.union(_scanned(spark, shared, scan))
        total = partials.treeReduce(combine)
    finally:
        shared.unpersist()
        if preload is not None:
            preload.unpersist()
    return merge(plan, [total])


def _arrow_wanted(arrow: bool | None) -> bool:
    """Whether Spark reads Parquet logs itself: pyspark's ``mapInArrow`` needs pandas."""
    return arrow if arrow is not None else importlib.util.find_spec("pandas") is not None


@dataclass(frozen=True)
class _Scan:
    """Parquet logs alike in columns and types, read by one Spark scan."""

    tool: str
    arguments: str
    files: dict[str, list[int]]
    """Each file's absolute path, with the plan's parts of it (in order)."""

    @property
    def parts(self) -> list[int]:
        return [part for parts in self.files.values() for part in parts]


def _scans(plan: AuditPlan) -> list[_Scan]:
    """The scans that read the plan's Parquet logs: each file named once, with rows (an
    empty one holds no row that would stand for it), grouped by its columns and types."""
    by_file: dict[str, dict[int, ColumnarPart]] = {}
    for number, item in enumerate(plan.parts):
        if isinstance(item, ColumnarPart) and item.kind is Columnar.PARQUET:
            by_file.setdefault(item.file, {})[number] = item
    scans: dict[tuple[str, str, str], _Scan] = {}
    for file, parts in by_file.items():
        items = list(parts.values())
        named_once = sum(1 for item in items if item.first_row == 1) == 1
        if not named_once or sum(item.rows for item in items) == 0 or not _scannable(file):
            continue
        first = items[0]
        alike = (first.tool, first.arguments, first.types)
        scan = scans.setdefault(alike, _Scan(first.tool, first.arguments, {}))
        scan.files[os.path.abspath(file)] = list(parts)
    return list(scans.values())


def _scannable(file: str) -> bool:
    """Whether Spark reads ``file`` as named: Hadoop expands glob characters in a path, and
    skips files whose name starts with ``_`` or ``.`` (its own metadata)."""
    name = os.path.basename(file)
    return not (set(file) & set(GLOB_CHARACTERS) or name.startswith(("_", ".")))


def _scanned(spark: SparkSession, shared: Broadcast[AuditPlan], scan: _Scan) -> RDD[Partial]:
    """The partials of a scan's files, read by Spark: one per task, of its record batches."""
    from pyspark.sql import functions

    rows = spark.read.parquet(*scan.files).select(
        functions.col(_quoted(scan.tool)).alias("tool"),
        functions.col(_quoted(scan.arguments)).alias("arguments"),
        functions.col("_metadata.file_path").alias("file"),
        functions.col("_metadata.row_index").alias("row"),
    )
    tally = functools.partial(_tally_batches, shared, scan.files)
    return rows.mapInArrow(tally, "partial binary").rdd.map(lambda row: pickle.loads(row[0]))


def _quoted(column: str) -> str:
    """A column name as Spark reads it literally (a name with dots is no nested field)."""
    return "`" + column.replace("`", "``") + "`"


def _tally_batches(
    shared: Broadcast[AuditPlan], files: dict[str, list[int]], batches: Iterable[Any]
) -> Iterator[Any]:
    """The partial of a task's record batches (tool, arguments, file URI, row index), each
    cut in runs of consecutive rows of one part of the plan, as one Arrow batch."""
    import pyarrow as pa

    plan = shared.value
    starts = {
        file: [cast(ColumnarPart, plan.parts[part]).first_row for part in parts]
        for file, parts in files.items()
    }
    total = Partial()
    for batch in batches:
        for part, first_row, rows in _runs(files, starts, batch):
            item = cast(ColumnarPart, plan.parts[part])
            columns = [rows.column(0), rows.column(1)]
            named = pa.record_batch(columns, names=[item.tool, item.arguments])
            total = combine(total, audit_batch(plan, BatchKey(part, first_row), named))
    yield pa.record_batch([pa.array([pickle.dumps(total)], pa.binary())], names=["partial"])


def _runs(
    files: dict[str, list[int]], starts: dict[str, list[int]], batch: Any
) -> Iterator[tuple[int, int, Any]]:
    """(part, the file's row number of the first row, the rows) of each run of consecutive
    rows of one part of the plan in ``batch`` (``starts``: each file's parts' first rows)."""
    paths = batch.column(2).to_pylist()
    indices = batch.column(3).to_pylist()  # _metadata.row_index: the first row is 0
    begin = 0
    while begin < len(paths):
        file = _local(paths[begin])
        if file not in files:
            raise EngineUnusable(f"Spark read rows of a file not asked for: {paths[begin]}")
        place = bisect.bisect_right(starts[file], indices[begin] + 1) - 1
        following = starts[file][place + 1 : place + 2]
        limit = following[0] - 1 if following else sys.maxsize
        end = begin + 1
        while (
            end < len(paths)
            and paths[end] == paths[begin]
            and indices[end] == indices[end - 1] + 1
            and indices[end] < limit
        ):
            end += 1
        yield files[file][place], indices[begin] + 1, batch.slice(begin, end - begin)
        begin = end


def _local(uri: str) -> str:
    """The local path of a file URI as Spark gives it (``file:/a%20b``)."""
    return urllib.parse.unquote(urllib.parse.urlparse(uri).path)


def _seen_before(
    context: SparkContext, shared: Broadcast[AuditPlan], repeating: list[int]
) -> RDD[tuple[int, int]] | None:
    """(part, digest) for each call id a part holds that an earlier part holds too."""
    if len(repeating) < 2:
        return None
    held = context.parallelize(repeating, len(repeating)).flatMap(functools.partial(_held, shared))
    return held.groupByKey().flatMap(_later_holders)


def _held(shared: Broadcast[AuditPlan], part: int) -> Iterator[tuple[int, int]]:
    """(digest, part) for each call id the part holds."""
    [digests] = call_ids(shared.value, part)
    return ((digest, part) for digest in digests)


def _later_holders(digest_parts: tuple[int, Iterable[int]]) -> Iterator[tuple[int, int]]:
    digest, parts = digest_parts
    for part, earlier in seen_before((part, [digest]) for part in set(parts)).items():
        if earlier:
            yield part, digest


def _audit(
    shared: Broadcast[AuditPlan],
    preload: Broadcast[dict[Payload, Known]] | None,
    keyed: tuple[int, Iterable[int]],
) -> Partial:
    part, seen = keyed
    known = None if preload is None else preload.value
    return audit_part(shared.value, part, frozenset(seen), known)


def _preload(
    spark: SparkSession, shared: Broadcast[AuditPlan]
) -> Broadcast[dict[Payload, Known]] | None:
    """The payloads the logs repeat most, replayed once by the executors: the accepted ones,
    broadcast; None when no log can be counted so (or none repeats)."""
    candidates = _candidates(spark, distinct.eligible_files(shared.value))
    if not candidates:
        return None
    context = spark.sparkContext
    slices = min(context.defaultParallelism, len(candidates))
    replayed = context.parallelize(candidates, slices).mapPartitions(
        functools.partial(_replay, shared)
    )
    known: dict[Payload, Known] = {}
    for some in replayed.collect():
        known.update(some)
    return context.broadcast(known)


def _candidates(spark: SparkSession, files: list[str]) -> list[tuple[str, str]]:
    """The (tool, arguments text) pairs called at least twice in a sample of the lines of
    ``files``, most frequent first, within ``distinct``'s bounds: counted by Spark (the JVM),
    not by Python."""
    if not files:
        return []
    from pyspark.sql import functions as F

    record = F.from_json(
        "value", f"{distinct.TOOL_FIELD} STRING, {distinct.ARGUMENTS_FIELD} STRING"
    )
    lines = spark.read.text(files)
    if distinct.SAMPLE_FRACTION < 1:
        lines = lines.sample(fraction=distinct.SAMPLE_FRACTION, seed=distinct.SAMPLE_SEED)
    pairs = lines.select(
        record[distinct.TOOL_FIELD].alias("tool"), record[distinct.ARGUMENTS_FIELD].alias("text")
    )
    counted = (
        pairs.where(F.length("text") <= distinct.MAX_CANDIDATE_TEXT)  # null: not a candidate
        .where(F.col("tool").isNotNull())
        .groupBy("tool", "text")
        .count()
        .where(F.col("count") >= distinct.MIN_CALLS)
    )
    # Ties in a fixed order: the same candidates every run.
    top = counted.orderBy(F.desc("count"), "tool", "text").limit(distinct.MAX_CANDIDATES)
    return distinct.take((row["tool"], row["text"]) for row in top.toLocalIterator())


def _replay(
    shared: Broadcast[AuditPlan], candidates: Iterable[tuple[str, str]]
) -> Iterator[dict[Payload, Known]]:
    yield distinct.replay_candidates(shared.value, candidates)


def run(plan: AuditPlan, workers: int, progress: Progress | None = None) -> Report:
    """``--engine spark``: the session ``spark-submit`` configured, or a local one with
    ``workers`` cores; a session started here is stopped here."""
    try:
        from pyspark import SparkConf
        from pyspark.sql import SparkSession
    except ImportError:
        raise _unusable("needs pyspark: pip install 'tool-schema-auditor[spark]'") from None
    builder = (
        SparkSession.builder.appName("auditor")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")  # stderr is auditor's own
    )
    started = not SparkConf().contains("spark.master")  # spark-submit names the master
    if started:
        builder = builder.master(f"local[{workers}]")
        # Local workers run this Python, which has auditor and its extras (pyarrow), unless
        # the user names another (pyspark reads it when the context starts).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    try:
        spark = builder.getOrCreate()
    except Exception as error:  # pyspark's own errors: no JVM found, the gateway exited
        said = " ".join(str(error).split())[:200]
        raise _unusable(f"could not start Spark (is a JDK installed?): {said}") from None
    spark.sparkContext.setLogLevel("ERROR")
    try:
        return audit_on_spark(plan, spark)
    finally:
        if started:
            spark.stop()


def _unusable(why: str) -> EngineUnusable:
    return EngineUnusable(f"--engine spark {why}")
