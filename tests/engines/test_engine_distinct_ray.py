"""Distinct-first across the whole log on Ray (local): Ray Data reads and groups the payloads,
tasks replay the repeated ones once, and the report is still the one of `--jobs 1`, byte for
byte.

Skipped, with the reason, where the `ray` extra is absent."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engine_cases import generated_plan, json_of, local_ray, one_pass, sample_plan
from tests.engines.test_engine_distinct import FIRST, distinct_workload

ray = pytest.importorskip("ray", reason="the ray extra is not installed: pip install '.[ray]'")

from auditor.engines import distinct, on_ray  # noqa: E402
from auditor.engines.on_ray import audit_on_ray  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def ray_for_the_module() -> Iterator[None]:
    with local_ray():
        yield


def test_ray_data_counts_the_pairs_called_twice_most_frequent_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(distinct, "SAMPLE_FRACTION", 1.0)  # every line: exact counts
    plan = distinct_workload(tmp_path)
    # As on Spark (tests/engines/test_engine_distinct_spark.py): 230, 201, 57, 31 and 24 calls; the
    # object {"n": 2} keyed as auditor's reader keys it, compact.
    assert on_ray._candidates(plan, ray.put(plan), 0.5) == [
        ("count", '{"n": 1}'),
        ("label", FIRST),
        ("count", '{"n": "x"}'),
        ("count", '{"n":2}'),
        ("nobody", "{}"),
    ]


def test_only_accepted_candidates_are_preloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(distinct, "SAMPLE_FRACTION", 1.0)
    plan = distinct_workload(tmp_path)
    preload = on_ray._preload(plan, ray.put(plan), 0.5)
    assert set(ray.get(preload)) == {
        ("label", FIRST, None),
        ("count", '{"n": 1}', None),
        ("count", '{"n":2}', None),
    }


@pytest.mark.parametrize("fraction", [1.0, distinct.SAMPLE_FRACTION])
def test_with_repeats_across_many_parts_the_report_is_the_one_pass_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fraction: float
) -> None:
    monkeypatch.setattr(distinct, "SAMPLE_FRACTION", fraction)  # every line, then a sample
    plan = distinct_workload(tmp_path)
    assert plan.distinct_first and len(plan.parts) >= 8
    assert json_of(audit_on_ray(plan, cpus_per_part=0.5)) == one_pass(plan)


@pytest.mark.parametrize("name", ["gemini_travel", "mcp_files"])
def test_the_json_lines_samples_give_the_one_pass_report(name: str) -> None:
    plan = dataclasses.replace(sample_plan(name), distinct_first=True)
    assert json_of(audit_on_ray(plan, cpus_per_part=0.5)) == one_pass(plan)


def test_a_generated_workload_of_every_kind_of_part_gives_the_one_pass_report(
    tmp_path: Path,
) -> None:
    plan = dataclasses.replace(generated_plan(tmp_path), distinct_first=True)
    assert json_of(audit_on_ray(plan, cpus_per_part=0.5)) == one_pass(plan)
