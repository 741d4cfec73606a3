"""The loosening patch per keyword family, against hand-written cases in tests/cases/loosen/."""

from __future__ import annotations

from typing import Any

import pytest

from auditor.aggregate.pipeline import ReportSettings
from auditor.api import replay
from auditor.models import Call, Location, LogStats, OldRuntime, Outcome, Rule, ToolSchema
from auditor.request import AuditRequest, TheChange
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import load_cases


class Calls:
    """An in-memory call stream, as the readers give one."""

    def __init__(self, calls: list[Call]) -> None:
        self._calls = calls

    def __iter__(self) -> Any:
        return iter(self._calls)

    def stats(self) -> tuple[LogStats, ...]:
        return (LogStats("calls.jsonl", calls=len(self._calls)),)


def group_patch(case: dict[str, Any]) -> Any:
    """The patch of the case's group (keyword at pointer), after an audit of its calls."""
    tool = ToolSchema("t", case["schema"], Location("tools.json"), "", "mapping")
    calls = Calls([Call(f"calls.jsonl:{i}", "t", args) for i, args in enumerate(case["calls"], 1)])
    rules = frozenset(Rule(r) for r in case["rules"]) if "rules" in case else DEFAULT_RULES
    settings = ReportSettings(old_runtime=OldRuntime(case.get("old_runtime", "lenient")))
    report = replay(
        [tool],
        calls,
        AuditRequest(change=TheChange(rules=rules)),
        ["tools.json"],
        settings=settings,
    )
    [group] = [
        g
        for g in report.groups
        if g.keyword == case["keyword"] and g.schema_pointer == case["pointer"]
    ]
    assert group.outcome is Outcome.NEWLY_REJECTED
    assert group.patch is not None
    return group.patch


@pytest.mark.parametrize("case", load_cases("loosen"))
def test_case(case: dict[str, Any]) -> None:
    patch = group_patch(case)
    if "problem" in case:
        assert (patch.problem, patch.operations) == (case["problem"], ())
        return
    assert patch.problem is None
    assert patch.summary == case["summary"]
    assert [o.as_json() for o in patch.operations] == case["patch"]
    assert [o.as_json() for o in patch.file_operations] == case.get("file", case["patch"])
    assert patch.location is not None and patch.location.path == "tools.json"
