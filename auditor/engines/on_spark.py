"""The audit on Spark: an RDD of the plan's parts, audited on the executors and combined
there by a tree reduce; the driver receives one partial and builds the report. Parts whose
calls repeat earlier files' first get, by a shuffle on the call-id digests (``groupByKey``),
the ids that earlier parts hold (``auditor.engines.core.seen_before``), joined to them on the
executors: the ids never reach the driver.

With ``AuditPlan.distinct_first``, Spark's own reader and group-by first count the (tool,
arguments text) pairs of a sample of the JSON Lines logs' lines (``spark.read.text``,
``sample``, ``from_json``, ``groupBy``); the executors replay the most frequent once, and the
accepted ones, broadcast, are preloaded in every part (``auditor.engines.distinct``).

``audit_on_spark`` is for users who hold a ``SparkSession`` (on a cluster, the executors
need ``auditor`` installed and the log paths readable); ``run`` is ``--engine spark``.
pyspark is the ``tool-schema-auditor[spark]`` extra, imported only here and only when used.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from auditor.aggregate.repeats import Known, Payload
from auditor.engines import distinct
from auditor.engines.core import (
    EngineUnusable,
    Partial,
    audit_part,
    call_ids,
    combine,
    merge,
    repeat_parts,
    seen_before,
)
from auditor.engines.plan import AuditPlan
from auditor.models import Report

if TYPE_CHECKING:
    from pyspark import RDD, Broadcast, SparkContext
    from pyspark.sql import SparkSession


def audit_on_spark(plan: AuditPlan, spark: SparkSession) -> Report:
    """The report of ``plan``, its parts audited by ``spark``'s executors: the same report
    as one pass over the logs on one machine."""
    if not plan.parts:
        return merge(plan, [])
    context = spark.sparkContext
    shared = context.broadcast(plan)  # shipped once per executor, not once per part
    preload = None
    try:
        if plan.distinct_first:
            preload = _preload(spark, shared)
        count = len(plan.parts)
        keyed = context.parallelize([(part, ()) for part in range(count)], count)
        seen = _seen_before(context, shared, repeat_parts(plan))
        if seen is not None:  # each part with the ids earlier parts hold (none: no repeats)
            keyed = keyed.cogroup(seen, count).mapValues(lambda both: list(both[1]))
        total = keyed.map(functools.partial(_audit, shared, preload)).treeReduce(combine)
    finally:
        shared.unpersist()
        if preload is not None:
            preload.unpersist()
    return merge(plan, [total])


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


def run(plan: AuditPlan, workers: int) -> Report:
    """``--engine spark``: the session ``spark-submit`` configured, or a local one with
    ``workers`` cores; a session started here is stopped here."""
    try:
        from pyspark import SparkConf
        from pyspark.sql import SparkSession
    except ImportError:
        raise _unusable("needs pyspark: pip install 'tool-schema-auditor[spark]'") from None
    builder = SparkSession.builder.appName("auditor").config("spark.ui.enabled", "false")
    started = not SparkConf().contains("spark.master")  # spark-submit names the master
    if started:
        builder = builder.master(f"local[{workers}]")
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
