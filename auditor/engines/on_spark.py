"""The audit on Spark: an RDD of the plan's parts, audited on the executors and combined
there by a tree reduce; the driver receives one partial and builds the report.

``audit_on_spark`` is for users who hold a ``SparkSession`` (on a cluster, the executors
need ``auditor`` installed and the log paths readable); ``run`` is ``--engine spark``.
pyspark is the ``tool-schema-auditor[spark]`` extra, imported only here and only when used.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from auditor.engines.core import EngineUnusable, Partial, audit_part, combine, merge
from auditor.engines.plan import AuditPlan
from auditor.models import Report

if TYPE_CHECKING:
    from pyspark import Broadcast
    from pyspark.sql import SparkSession


def audit_on_spark(plan: AuditPlan, spark: SparkSession) -> Report:
    """The report of ``plan``, its parts audited by ``spark``'s executors: the same report
    as one pass over the logs on one machine."""
    if not plan.parts:
        return merge(plan, [])
    context = spark.sparkContext
    shared = context.broadcast(plan)  # shipped once per executor, not once per part
    try:
        parts = context.parallelize(range(len(plan.parts)), len(plan.parts))
        total = parts.map(functools.partial(_audit, shared)).treeReduce(combine)
    finally:
        shared.unpersist()
    return merge(plan, [total])


def _audit(shared: Broadcast[AuditPlan], part: int) -> Partial:
    return audit_part(shared.value, part)


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
