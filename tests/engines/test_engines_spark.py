"""`--engine spark`: Spark (`local[2]`) gives the report of `--jobs 1`, byte for byte.

Skipped, with the reason, where the `spark` extra or a JDK is absent (`.ci/run` runs these
in a venv of their own, after the main suite)."""

from __future__ import annotations

import json
import pickle
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engine_cases import (
    COLUMNAR_TOTALS,
    SCENARIOS,
    cli_on_and_off,
    columnar_plan,
    generated_plan,
    history_plan,
    json_of,
    local_spark,
    named_columns_on_and_off,
    one_pass,
    repeats_plan,
    sample_plan,
)

pytest.importorskip("pyspark", reason="the spark extra is not installed: pip install '.[spark]'")
if shutil.which("java") is None:
    pytest.skip("Spark needs a JDK: no java on PATH", allow_module_level=True)

from pyspark.sql import SparkSession

from auditor.engines import on_spark
from auditor.engines.on_spark import audit_on_spark


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    with local_spark() as session:
        yield session


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_sample_gives_the_one_pass_report(spark: SparkSession, name: str) -> None:
    plan = sample_plan(name)
    assert json_of(audit_on_spark(plan, spark)) == one_pass(plan)


def test_a_generated_workload_of_many_parts_gives_the_one_pass_report(
    spark: SparkSession, tmp_path: Path
) -> None:
    plan = generated_plan(tmp_path)
    assert len(plan.parts) >= 6  # byte ranges of the large log, gzip and small logs whole
    assert json_of(audit_on_spark(plan, spark)) == one_pass(plan)


def test_the_responses_of_a_history_log_in_parts_give_the_one_pass_report(
    spark: SparkSession, tmp_path: Path
) -> None:
    plan = history_plan(tmp_path)
    assert len(plan.parts) >= 4  # history logs cut in byte ranges: their responses alone
    assert json_of(audit_on_spark(plan, spark)) == one_pass(plan)
    assert plan.scratch is not None and len(list(Path(plan.scratch).iterdir())) >= 2


def test_histories_across_files_are_deduplicated_by_a_shuffle(
    spark: SparkSession, tmp_path: Path
) -> None:
    plan = repeats_plan(tmp_path)
    assert len(plan.parts) == 5  # four history files apart, the plain log between them
    assert json_of(audit_on_spark(plan, spark)) == one_pass(plan)


def test_the_command_line_engine_prints_the_local_report(
    spark: SparkSession, capsys: pytest.CaptureFixture[str]
) -> None:
    on_spark, local = cli_on_and_off("spark", capsys)
    assert (
        on_spark == local and isinstance(local, tuple) and local[0] == 1
    )  # the sample has newly rejected calls


@pytest.mark.parametrize("arrow", [True, False], ids=["mapInArrow", "row-group-parts"])
def test_parquet_and_arrow_logs_give_the_one_pass_report(
    spark: SparkSession, tmp_path: Path, arrow: bool
) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")
    if arrow:  # pyspark's mapInArrow refuses to run without pandas
        pytest.importorskip("pandas", reason="pyspark's mapInArrow needs pandas")
    plan = columnar_plan(tmp_path, scratch=True)
    # The two Parquet logs with rows differ in columns: two scans (the empty one and the
    # Arrow file are parts that the executors read with pyarrow).
    assert [sorted(Path(f).name for f in scan.files) for scan in on_spark._scans(plan)] == [
        ["text.parquet"],
        ["spans.parquet"],
    ]
    # Small scans and batches: a file read by several tasks, batches cut across parts.
    spark.conf.set("spark.sql.files.maxPartitionBytes", "1024")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "7")
    try:
        report = json_of(audit_on_spark(plan, spark, arrow=arrow))
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    assert json.loads(report)["totals"] == COLUMNAR_TOTALS
    assert report == one_pass(plan)


def test_a_task_cuts_its_batches_where_they_cross_a_file_a_part_or_a_gap(
    tmp_path: Path,
) -> None:
    """What an executor runs (``mapInArrow``'s function) is not measured there: here it is,
    on batches as Spark hands them (tool, arguments, file URI, 0-based row index)."""
    pa = pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")
    plan = columnar_plan(tmp_path)
    [text, spans] = on_spark._scans(plan)
    [(path, parts)] = text.files.items()
    firsts = [getattr(plan.parts[part], "first_row", 0) for part in parts]
    uri = "file:" + path.replace(" ", "%20")
    other = "file:" + next(iter(spans.files))
    # Rows 1-3 of text.parquet, then row 5 (a gap), then the last row of its first part and
    # the first of its second, then a row of the other file.
    indices = [0, 1, 2, 4, firsts[1] - 2, firsts[1] - 1, 0]
    batch = pa.record_batch(
        [
            pa.array(["search"] * 7),
            pa.array(["{}"] * 7),
            pa.array([uri] * 6 + [other]),
            pa.array(indices, pa.int64()),
        ],
        names=["tool", "arguments", "file", "row"],
    )
    files = {**text.files, **spans.files}
    starts = {
        file: [getattr(plan.parts[part], "first_row", 0) for part in numbers]
        for file, numbers in files.items()
    }
    runs = [
        (part, first, rows.num_rows) for part, first, rows in on_spark._runs(files, starts, batch)
    ]
    spans_first = next(iter(spans.files.values()))[0]
    assert runs == [
        (parts[0], 1, 3),
        (parts[0], 5, 1),
        (parts[0], firsts[1] - 1, 1),
        (parts[1], firsts[1], 1),
        (spans_first, 1, 1),
    ]
    with pytest.raises(Exception, match="Spark read rows of a file not asked for"):
        list(on_spark._runs({}, {}, batch))

    class Shared:  # a broadcast's interface: its value
        value = plan

    [out] = on_spark._tally_batches(Shared(), files, [batch])
    partial = pickle.loads(out.column(0)[0].as_py())
    # The last row of part 0 and the first of part 1 meet: one run across the two parts.
    assert [(run.first, run.start, run.last, run.stop) for run in partial.runs] == [
        (parts[0], 0, parts[0], 3),
        (parts[0], 4, parts[0], 5),
        (parts[0], firsts[1] - 2, parts[1], 1),
        (spans_first, 0, spans_first, 1),
    ]
    assert on_spark._arrow_wanted(False) is False
    assert on_spark._local("file:/tmp/a%20b.parquet") == "/tmp/a b.parquet"


def test_files_spark_would_read_otherwise_are_left_to_the_row_group_parts(
    tmp_path: Path,
) -> None:
    """Hadoop reads ``[1]`` in a path as a glob, and skips ``_``-prefixed names."""
    pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")
    plan = columnar_plan(tmp_path)
    scanned = {Path(file).name for scan in on_spark._scans(plan) for file in scan.files}
    assert scanned == {"text.parquet", "spans.parquet"}
    assert on_spark._scannable("/logs/calls-1.parquet")
    for name in ("/logs/calls[1].parquet", "/logs/{a,b}.parquet", "/logs/_calls.parquet"):
        assert not on_spark._scannable(name)


def test_named_columns_of_a_parquet_log_are_read_on_the_engine(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")
    on_spark_run, local = named_columns_on_and_off("spark", tmp_path, capsys)
    assert on_spark_run == local
    code, out, _ = on_spark_run
    assert code == 1 and json.loads(out)["totals"]["newly_rejected"] == 1
