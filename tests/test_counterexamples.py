"""Counterexamples: the hand-reasoned case files, and properties on generated schemas."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.models import Counterexample, CounterexampleStatus, Location, Rule, ToolSchema
from auditor.replay.counterexamples import (
    MAX_CANDIDATES,
    SearchBudget,
    apply_patch,
    bites,
    counterexample,
)
from auditor.replay.tool import ToolReplay
from auditor.schema.diff import compare
from auditor.schema.normalize import DEFAULT_RULES, normalize
from tests.conftest import load_cases
from tests.test_coverage import KEYED, walkable_schemas
from tests.test_engine import INSTANCES
from tests.test_normalize_properties import dialect


def _replay(case: dict[str, Any]) -> ToolReplay:
    tool = ToolSchema("t", case["schema"], Location("tools.json"), "", "mapping")
    if "new_schema" in case:
        new = ToolSchema("t", case["new_schema"], Location("new.json"), "", "mapping")
        return ToolReplay(tool, compare(tool, new, frozenset()))
    rules = frozenset(Rule(r) for r in case["rules"]) if "rules" in case else DEFAULT_RULES
    return ToolReplay(tool, normalize(case["schema"], rules))


def _search(case: dict[str, Any]) -> dict[str, Counterexample]:
    replay = _replay(case)
    samples = [(s["source"], s["arguments"]) for s in case["samples"]]
    budget = SearchBudget()
    return {
        rewrite.pointer: counterexample(replay, index, samples, budget)
        for index, rewrite in enumerate(replay.normalized.rewrites)
    }


@pytest.mark.parametrize("case", load_cases("counterexamples"))
def test_each_keyword_family_has_its_reasoned_counterexample(case: dict[str, Any]) -> None:
    found = _search(case)
    replay = _replay(case)
    for expected in case["expect"]:
        got = found[expected["change"]]
        assert got.status.value == expected["status"], (expected["change"], got)
        if got.status is CounterexampleStatus.FOUND:
            assert got.arguments == expected["arguments"]
            assert got.derived_from == expected["derived_from"]
            if "patch" in expected:
                assert list(got.patch) == expected["patch"]
            # Verified on both sides, and the patch turns the logged call into it.
            assert bites(replay, got.change, got.arguments)
            if got.derived_from is not None:
                start = next(s for s in case["samples"] if s["source"] == got.derived_from)
                assert apply_patch(start["arguments"], got.patch) == got.arguments
        else:
            assert got.arguments is None and got.reason
            assert expected.get("reason", "") in got.reason
            assert got.candidates <= MAX_CANDIDATES


def test_every_counterexample_found_on_generated_schemas_verifies_as_stated() -> None:
    stats = {"searched": 0, "found": 0, "harmless": 0}

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        walkable_schemas,
        st.randoms(use_true_random=False),
        st.lists(KEYED | INSTANCES, max_size=4),
    )
    def verifies(schema: Any, rng: random.Random, calls: list[Any]) -> None:
        tool = ToolSchema("t", dialect(schema, rng), Location("x"), "", "mapping")
        replay = ToolReplay(tool, normalize(tool.schema, DEFAULT_RULES))
        samples = [(f"log:{i}", c) for i, c in enumerate(calls)]
        budget = SearchBudget(2_000)
        for index in range(len(replay.normalized.rewrites)):
            found = counterexample(replay, index, samples, budget)
            stats["searched"] += 1
            if found.status is CounterexampleStatus.FOUND:
                stats["found"] += 1
                # The old runtime accepts it, the new schema rejects it because of the change,
                # and it is the logged call with the patch applied (or generated).
                old, new = replay.verdicts(found.arguments)
                assert old is not None and old.accepts and new.usable and not new.accepts
                assert any(found.change in issue.causes for issue in new.errors)
                if found.derived_from is not None:
                    start = dict(samples)[found.derived_from]
                    assert apply_patch(start, found.patch) == found.arguments
                    assert len(found.patch) == 1
                else:
                    assert found.patch == ()
            elif found.status is CounterexampleStatus.HARMLESS:
                stats["harmless"] += 1
                # Nothing any logged call or its edits gave bites either.
                for _, call in samples:
                    assert not bites(replay, found.change, call)
            assert found.candidates <= MAX_CANDIDATES

    verifies()
    # Generated dialects are odd (keywords under `default`, schemas no call can satisfy,
    # schemas that fail their meta-schema): most changes there cannot bite. Enough do for
    # the verification above to be exercised.
    assert stats["found"] >= 0.02 * stats["searched"], stats
    assert stats["harmless"] >= 0.02 * stats["searched"], stats
