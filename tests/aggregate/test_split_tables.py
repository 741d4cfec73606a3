"""A group's bounded tables (values sent, callers, observations) count the same however the
log is cut: a part that meets more distinct keys than a table keeps must not drop calls one
pass would count (``auditor.aggregate.bounded``)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from auditor.aggregate import groups
from auditor.engines.core import audit_part, merge
from auditor.engines.plan import make_plan
from auditor.inputs.catalogs import load_catalogs
from auditor.report import Format, render

CODES = [f"code-{n:02d}" for n in range(30)]
CALLERS = [f"agent-{n}" for n in range(12)]


def _workload(folder: Path) -> tuple[Path, Path]:
    """One tool whose dialect ``max_length: 3`` wakes up: 1,200 calls send one of thirty
    codes, too long, among 1,800 that send a short one (a share of 0.4: a group to review,
    which lists the values sent). Each part of the log meets more codes and callers than a
    group's tables keep."""
    catalog = folder / "tools.json"
    schema = {"type": "object", "properties": {"code": {"type": "string", "max_length": 3}}}
    catalog.write_text(json.dumps({"tools": [{"name": "lookup", "inputSchema": schema}]}))
    rng = random.Random(5)
    lines = []
    rejected = 0
    for n in range(3_000):
        if n % 5 < 2:
            code = CODES[rejected % len(CODES)] if rejected < 600 else rng.choice(CODES)
            rejected += 1
        else:
            code = rng.choice(["ok", "ab", "x"])
        arguments = json.dumps({"code": code})
        record = {"id": f"c{n}", "tool": "lookup", "arguments": arguments}
        lines.append(json.dumps({**record, "caller": rng.choice(CALLERS)}))
    log = folder / "calls.jsonl"
    log.write_text("\n".join(lines) + "\n")
    return catalog, log


def _report(catalog: Path, log: Path, part_bytes: int) -> tuple[dict[str, Any], int]:
    tools = load_catalogs([str(catalog)]).tools
    plan = make_plan(tools, [str(log)], [str(catalog)], workers=8, min_part_bytes=part_bytes)
    partials = [audit_part(plan, part) for part in range(len(plan.parts))]
    return json.loads(render(merge(plan, partials), Format.JSON)), len(plan.parts)


def test_values_and_callers_count_alike_in_one_part_and_in_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(groups, "MAX_DISTINCT_CALLERS", 5)  # fewer than the log's twelve
    catalog, log = _workload(tmp_path)
    whole, one = _report(catalog, log, part_bytes=1 << 30)
    cut, many = _report(catalog, log, part_bytes=8 << 10)
    assert one == 1 and many >= 4
    [group] = whole["groups"]
    assert group["count"] == 1_200
    values = group["offending_values"]
    callers = group["callers"]
    # Ten values shown, each counted in full: a value's calls are 40 over the whole log
    # (every code twenty times in the first 600 calls, then about twenty more at random).
    assert len(values) == groups.MAX_SHOWN_OFFENDING
    assert all(value["calls"] >= 20 for value in values)
    # Five callers kept of twelve, each with all its calls (about a hundred: 1,200 / 12).
    assert len(callers) == 5 and all(caller["calls"] >= 50 for caller in callers)
    # The report of the cut log is the same, values and callers included.
    assert cut == whole
