"""Issue 14's "Done when" on every sample scenario: each group of newly rejected calls states
the limit against what was sent and carries a verified patch or the callers' values; each
change the logs never tested has a verified counterexample or a reason none exists."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from jsonschema import validators

from auditor import pointers
from auditor.aggregate import pipeline
from auditor.inputs.catalogs import load_catalogs
from auditor.models import (
    JSON,
    CounterexampleStatus,
    HintKind,
    Outcome,
    Report,
    ToolSchema,
)
from auditor.replay.counterexamples import apply_patch, bites
from auditor.replay.tool import ToolReplay
from auditor.report.prose import markdown
from auditor.schema.normalize import DEFAULT_RULES, normalize
from tests.samples import ROOT, Scenario, run, scenarios

SCENARIOS = scenarios()
IDS = [s.name for s in SCENARIOS]
_REPORTS: dict[str, Report] = {}

_OBSERVED = re.compile(r"; (sent|extra propert|missing|nearest|duplicate)")
"""What follows the limit in an evidence line: what the calls sent against it."""


def _report(scenario: Scenario) -> Report:
    """The scenario's audit, its counterexamples as the search built them: a report cuts long
    values, which would no longer be what was verified."""
    if scenario.name not in _REPORTS:
        with mock.patch.object(pipeline, "_shown", lambda found, sanitizer: found):
            _REPORTS[scenario.name] = run(scenario)
    return _REPORTS[scenario.name]


def _tools(scenario: Scenario) -> dict[str, ToolSchema]:
    catalogs = load_catalogs([str(ROOT / scenario.catalog)])
    return {tool.name: tool for tool in catalogs.tools}


def _errors_at(schema: JSON, arguments: JSON, pointer: str | None) -> list[str]:
    """Messages of the errors the reference validator gives ``arguments`` under ``schema``
    at the schema ``pointer`` (None: anywhere)."""
    assert isinstance(schema, (dict, bool))
    validator = validators.validator_for(schema)(schema)
    return [
        error.message
        for error in validator.iter_errors(arguments)
        if pointer is None or pointers.from_segments(error.absolute_schema_path) == pointer
    ]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_every_group_states_the_limit_and_a_patch_or_the_callers_values(
    scenario: Scenario,
) -> None:
    report = _report(scenario)
    tools = _tools(scenario)
    groups = [g for g in report.groups if g.outcome is Outcome.NEWLY_REJECTED]
    assert groups, "every sample holds newly rejected calls"
    for group in groups:
        label = (group.tool, group.schema_pointer)
        # The limit as the new schema states it, then what the calls sent against it.
        evidence = markdown(group.evidence)
        assert evidence.startswith(group.keyword + " "), label
        assert _OBSERVED.search(evidence), (label, evidence)
        verified = group.patch is not None and bool(group.patch.operations)
        if group.hint.kind in (HintKind.FIX_CALLERS, HintKind.REVIEW):
            assert group.offending, label
            assert sum(v.calls for v in group.offending) == group.count, label
        if group.hint.kind in (HintKind.LOOSEN_SCHEMA, HintKind.REVIEW):
            # A patch, or the reason no single change does.
            assert group.patch is not None and (verified or group.patch.problem), label
        assert verified or group.offending, label
        if verified:
            assert group.patch is not None
            new = normalize(tools[group.tool].schema, DEFAULT_RULES).schema
            patched = apply_patch(new, [op.as_json() for op in group.patch.operations])
            for example in group.examples:
                # Before the patch the example fails the keyword; after it, nothing there.
                assert _errors_at(new, example.arguments, group.schema_pointer), label
                assert not _errors_at(patched, example.arguments, group.schema_pointer), label


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_every_untested_change_has_a_verified_counterexample_or_a_reason(
    scenario: Scenario,
) -> None:
    report = _report(scenario)
    tools = _tools(scenario)
    for found in report.counterexamples:
        label = (found.tool, found.change.pointer, found.reason)
        if found.status is CounterexampleStatus.FOUND:
            tool = tools[found.tool]
            replay = ToolReplay(tool, normalize(tool.schema, DEFAULT_RULES))
            # The old runtime accepts it, the new schema rejects it because of the change.
            assert bites(replay, found.change, found.arguments), label
            rejected = _errors_at(replay.normalized.schema, found.arguments, None)
            assert rejected, label
            assert not found.reason, label
            continue
        assert found.arguments is None and found.reason, label
        # A reason why none exists; never only "none among N candidates".
        assert found.status is not CounterexampleStatus.NOT_FOUND, label


def test_the_samples_cover_every_kind_of_answer() -> None:
    """Across the samples: counterexamples found, proved harmless, and blocked by a schema
    error of the new schema, each at least once (the checks above run on each kind)."""
    statuses = {c.status for s in SCENARIOS for c in _report(s).counterexamples}
    assert statuses >= {
        CounterexampleStatus.FOUND,
        CounterexampleStatus.HARMLESS,
        CounterexampleStatus.UNUSABLE,
    }
