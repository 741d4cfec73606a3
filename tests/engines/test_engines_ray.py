"""`--engine ray`: Ray (local, fractional CPUs so that a 2-core runner does not starve)
gives the report of `--jobs 1`, byte for byte.

Skipped, with the reason, where the `ray` extra is absent (`.ci/run` runs these in a venv
of their own, after the main suite)."""

from __future__ import annotations

import json
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
    local_ray,
    named_columns_on_and_off,
    one_pass,
    repeats_plan,
    sample_plan,
)

ray = pytest.importorskip("ray", reason="the ray extra is not installed: pip install '.[ray]'")

from auditor.engines.on_ray import audit_on_ray  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def ray_for_the_module() -> Iterator[None]:
    with local_ray():
        yield


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_sample_gives_the_one_pass_report(name: str) -> None:
    plan = sample_plan(name)
    assert json_of(audit_on_ray(plan, cpus_per_part=0.5)) == one_pass(plan)


def test_a_generated_workload_of_many_parts_gives_the_one_pass_report(tmp_path: Path) -> None:
    plan = generated_plan(tmp_path)
    assert len(plan.parts) >= 6  # byte ranges of the large log, gzip and small logs whole
    assert json_of(audit_on_ray(plan, cpus_per_part=0.5)) == one_pass(plan)


def test_the_responses_of_a_history_log_in_parts_give_the_one_pass_report(tmp_path: Path) -> None:
    plan = history_plan(tmp_path)
    assert len(plan.parts) >= 4  # history logs cut in byte ranges: their responses alone
    assert json_of(audit_on_ray(plan, cpus_per_part=0.5)) == one_pass(plan)
    assert plan.scratch is not None and len(list(Path(plan.scratch).iterdir())) >= 2


def test_histories_across_files_are_deduplicated_by_a_shuffle(tmp_path: Path) -> None:
    plan = repeats_plan(tmp_path)
    assert len(plan.parts) == 5  # four history files apart, the plain log between them
    assert json_of(audit_on_ray(plan, cpus_per_part=0.5)) == one_pass(plan)


def test_the_command_line_engine_prints_the_local_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    on_ray, local = cli_on_and_off("ray", capsys)
    assert (
        on_ray == local and isinstance(local, tuple) and local[0] == 1
    )  # the sample has newly rejected calls


def test_parquet_and_arrow_logs_give_the_one_pass_report(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")
    plan = columnar_plan(tmp_path, scratch=True)
    report = json_of(audit_on_ray(plan, cpus_per_part=0.5))
    assert json.loads(report)["totals"] == COLUMNAR_TOTALS
    assert report == one_pass(plan)


def test_named_columns_of_a_parquet_log_are_read_on_the_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow (the parquet extra) is not installed")
    on_ray, local = named_columns_on_and_off("ray", tmp_path, capsys)
    assert on_ray == local
    code, out, _ = on_ray
    assert code == 1 and json.loads(out)["totals"]["newly_rejected"] == 1
