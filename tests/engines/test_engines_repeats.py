"""Exact de-duplication across files on the engines: a history log's files are parts of
their own; a shuffle of call ids tells each which ids earlier files hold, and the merged
report is one pass's (``--jobs 1``), byte for byte."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml

from auditor.engines.core import audit_part, call_ids, merge, repeat_parts, seen_before
from auditor.engines.plan import AuditPlan, make_plan
from auditor.inputs.parts import LogPart, WholeFiles
from auditor.models import Report
from tests.engine_cases import SAMPLES, json_of, one_pass, repeats_plan


def _shuffled(plan: AuditPlan, buckets: int) -> dict[int, list[int]]:
    """What an engine's shuffle gives: per part, the ids an earlier part holds, found
    bucket by bucket as the reduce tasks do."""
    repeating = repeat_parts(plan)
    held = {part: call_ids(plan, part, buckets) for part in repeating}
    seen: dict[int, list[int]] = {}
    for bucket in range(buckets):
        for part, ids in seen_before((p, held[p][bucket]) for p in reversed(repeating)).items():
            seen.setdefault(part, []).extend(ids)
    return seen


def _audited(plan: AuditPlan, buckets: int, order: list[int]) -> Report:
    seen = _shuffled(plan, buckets)
    partials = [audit_part(plan, part, frozenset(seen.get(part, ()))) for part in order]
    return merge(plan, partials)


@pytest.mark.parametrize("buckets", [1, 3])
def test_files_read_apart_with_the_shuffled_ids_give_the_one_pass_report(
    tmp_path: Path, buckets: int
) -> None:
    plan = repeats_plan(tmp_path)
    # Each history file is a part of its own; the plain log is read as usual.
    kinds = [(type(item).__name__, getattr(item, "repeats", False)) for item in plan.parts]
    assert (
        kinds == [("WholeFiles", True)] * 2 + [("WholeFiles", False)] + [("WholeFiles", True)] * 2
    )
    order = list(range(len(plan.parts)))
    random.Random(buckets).shuffle(order)
    report = _audited(plan, buckets, order)
    assert json_of(report) == one_pass(plan)
    totals = json.loads(json_of(report))["totals"]
    gateway = yaml.safe_load((SAMPLES / "openai_gateway" / "expected.yaml").read_text("utf-8"))
    mcp = yaml.safe_load((SAMPLES / "mcp_files" / "expected.yaml").read_text("utf-8"))
    # The gateway log's calls once however it is cut, its first file again adding none.
    assert totals["calls"] == gateway["lenient_totals"]["calls"] + mcp["lenient_totals"]["calls"]
    again = report.log_inputs[0]
    assert again.calls > 0 and again.repeated_calls > 0  # named twice: one entry, both reads


def test_without_the_shuffle_a_later_file_counts_its_history_again(tmp_path: Path) -> None:
    plan = repeats_plan(tmp_path)
    lone = merge(plan, [audit_part(plan, part) for part in range(len(plan.parts))])
    with_ids = _audited(plan, 2, list(range(len(plan.parts))))
    # History calls of earlier files are counted as new calls when no ids are given.
    assert lone.totals != with_ids.totals
    assert sum(s.calls for s in lone.log_inputs) > sum(s.calls for s in with_ids.log_inputs)


def test_seen_before_names_the_later_holders_of_each_id() -> None:
    earlier = seen_before([(4, [1, 2]), (0, [2, 3]), (7, [1, 3, 5])])
    # 2 and 3 are first held by part 0, 1 by part 4, 5 by part 7 alone.
    assert earlier == {0: [], 4: [2], 7: [1, 3]}


def test_a_plan_keeps_histories_in_one_part_unless_asked(tmp_path: Path) -> None:
    plan = repeats_plan(tmp_path)
    together = make_plan(plan.tools, plan.files, plan.schema_inputs, settings=plan.settings)
    assert [type(item) for item in together.parts] == [WholeFiles]
    assert repeat_parts(together) == []
    assert call_ids(together, 0) == [[]]  # a part without repeats is not read for its ids
    assert not any(isinstance(item, LogPart) for item in plan.parts)
