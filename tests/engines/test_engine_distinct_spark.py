"""Distinct-first across the whole log on Spark (`local[2]`): Spark's own reader and group-by
find the repeated payloads, the executors replay them once, and the report is still the one
of `--jobs 1`, byte for byte.

Skipped, with the reason, where the `spark` extra or a JDK is absent."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engine_cases import (
    SAMPLES,
    generated_plan,
    json_of,
    local_spark,
    one_pass,
    sample_plan,
)
from tests.engines.test_engine_distinct import FIRST, distinct_workload

pytest.importorskip("pyspark", reason="the spark extra is not installed: pip install '.[spark]'")
if shutil.which("java") is None:
    pytest.skip("Spark needs a JDK: no java on PATH", allow_module_level=True)

from pyspark.sql import SparkSession

from auditor.engines import distinct, on_spark
from auditor.engines.on_spark import audit_on_spark


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    with local_spark() as session:
        yield session


def test_spark_counts_the_pairs_called_twice_most_frequent_first(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(distinct, "SAMPLE_FRACTION", 1.0)  # every line: exact counts
    plan = distinct_workload(tmp_path)
    candidates = on_spark._candidates(spark, [plan.files[0]])
    # Most frequent first: {"n": 1} on the lines none of 3, 5, 7, 11, 13 divides (230);
    # FIRST on line 1 and every third (201); {"n": "x"} every seventh, not third (57); the
    # object {"n": 2} every eleventh, not third nor seventh (31), which Spark reads back as
    # compact JSON; the unknown tool every thirteenth, not 3rd, 7th, 11th (24). The distinct
    # labels (every fifth) and the malformed line are called once: not candidates.
    assert candidates == [
        ("count", '{"n": 1}'),
        ("label", FIRST),
        ("count", '{"n": "x"}'),
        ("count", '{"n":2}'),
        ("nobody", "{}"),
    ]


def test_only_accepted_candidates_are_broadcast(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(distinct, "SAMPLE_FRACTION", 1.0)
    plan = distinct_workload(tmp_path)
    shared = spark.sparkContext.broadcast(plan)
    preload = on_spark._preload(spark, shared)
    assert preload is not None
    assert set(preload.value) == {
        ("label", FIRST, None),
        ("count", '{"n": 1}', None),
        ("count", '{"n":2}', None),  # auditor keys the object {"n": 2} so: a hit too
    }


@pytest.mark.parametrize("fraction", [1.0, distinct.SAMPLE_FRACTION])
def test_with_repeats_across_many_parts_the_report_is_the_one_pass_report(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fraction: float
) -> None:
    monkeypatch.setattr(distinct, "SAMPLE_FRACTION", fraction)  # every line, then a sample
    plan = distinct_workload(tmp_path)
    assert plan.distinct_first and len(plan.parts) >= 8
    assert json_of(audit_on_spark(plan, spark)) == one_pass(plan)


@pytest.mark.parametrize("name", ["gemini_travel", "mcp_files"])
def test_the_json_lines_samples_give_the_one_pass_report(spark: SparkSession, name: str) -> None:
    plan = dataclasses.replace(sample_plan(name), distinct_first=True)
    assert (SAMPLES / name / "calls.jsonl").exists()
    assert json_of(audit_on_spark(plan, spark)) == one_pass(plan)


def test_a_generated_workload_of_every_kind_of_part_gives_the_one_pass_report(
    spark: SparkSession, tmp_path: Path
) -> None:
    plan = dataclasses.replace(generated_plan(tmp_path), distinct_first=True)
    assert json_of(audit_on_spark(plan, spark)) == one_pass(plan)
