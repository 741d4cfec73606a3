"""The plan carries which code makes each profile's schemas (``AuditPlan.profile_runs``):
decided once by the driver (``auditor.schema.sdk_runs.choose``), never again by a worker."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from auditor.api import audit
from auditor.engines.core import prepared
from auditor.engines.plan import make_plan
from auditor.models import JSON, Location, Outcome, ProfileRun, Rule, ToolSchema
from auditor.request import AuditRequest, Inputs, Limits, TheChange
from auditor.schema import sdk_adapters
from auditor.schema.profiles import PROFILES, SdkFunction
from auditor.schema.sdk_adapters import Adapter
from auditor.schema.sdk_runs import choose

PROFILE = Rule.OPENAI_STRICT
REQUEST = AuditRequest(change=TheChange(rules=frozenset({PROFILE})))
TOOL = ToolSchema("search", {"type": "object"}, Location("tools.json"), "", "mapping")


def _refuse(schema: dict[str, Any]) -> JSON:
    raise ValueError("refused by the stand-in")


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """openai-strict follows a stand-in SDK of an installed package, which refuses all."""
    monkeypatch.setitem(
        sdk_adapters.ADAPTERS, PROFILE.value, Adapter("PyYAML", "yaml", "safe_load", _refuse)
    )
    follows = SdkFunction("PyYAML", "yaml", "safe_load", ">=5")
    monkeypatch.setitem(PROFILES, PROFILE, dataclasses.replace(PROFILES[PROFILE], follows=follows))


def test_the_plan_holds_the_drivers_choice_and_workers_use_it(stand_in: None) -> None:
    plan = make_plan([TOOL], [], [], REQUEST)
    assert plan.profile_runs == choose({PROFILE}) and plan.profile_runs[0].sdk
    model = (ProfileRun(PROFILE.value),)  # as a driver without the SDK would have chosen
    assert prepared(dataclasses.replace(plan, profile_runs=model)).profile_runs == model
    assert prepared(plan).profile_runs == plan.profile_runs


def test_between_two_catalogs_the_new_catalogs_profiles_run(stand_in: None) -> None:
    from auditor.schema.diff import NewCatalogs

    as_written = NewCatalogs((TOOL,), ("new.json",))
    assert make_plan([TOOL], [], [], REQUEST, new_catalogs=as_written).profile_runs == ()
    # --new-schemas B --rules openai-strict: the profile transforms B, its SDK where installed.
    profiled = NewCatalogs((TOOL,), ("new.json",), frozenset({PROFILE}))
    plan = make_plan([TOOL], [], [], REQUEST, new_catalogs=profiled)
    assert plan.profile_runs == choose({PROFILE}) and plan.profile_runs[0].sdk


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_audit_in_worker_processes_meets_the_sdks_refusal(
    stand_in: None, tmp_path: Path, jobs: int
) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps({"search": {"type": "object"}}), "utf-8")
    log = tmp_path / "calls.jsonl"
    lines = [json.dumps({"tool": "search", "arguments": {"q": i}}) + "\n" for i in range(40)]
    log.write_text("".join(lines), "utf-8")
    request = dataclasses.replace(
        REQUEST, inputs=Inputs(schemas=(str(catalog),), logs=(str(log),)), limits=Limits(jobs=jobs)
    )
    report = audit(request).report
    assert report is not None
    assert report.totals[Outcome.SCHEMA_ERROR_AFTER] == 40
    assert report.profile_runs == choose({PROFILE})
