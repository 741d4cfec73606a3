"""Replay against hand-reasoned case files in tests/cases/replay/.

Each case holds calls that must be accepted and calls that must be rejected, so a replay that
rejects everything fails here as surely as one that accepts everything.

A case may name its ``rules`` (rule families; the default ones otherwise). A case's
expectations hold under the old runtimes its ``old_runtime`` names (one or a list;
by default ``standard`` and ``lenient``, which agree wherever the old schema is valid). A call
may instead give ``outcomes``, one per old runtime, each checked under that runtime.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from auditor.aggregate.pipeline import evaluate_call, prepare
from auditor.inputs.arguments import call_from
from auditor.models import JSON, Call, Location, OldRuntime, Outcome, Rule, ToolSchema
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import load_cases

CASES = load_cases("replay")


def _call(index: int, spec: dict[str, Any]) -> Call:
    if "arguments_text" in spec:
        return call_from(f"case:{index}", "t", spec["arguments_text"])
    return Call(f"case:{index}", "t", spec["arguments"])


DEFAULT_RUNTIMES = ("standard", "lenient")


def _runtimes(case: dict[str, Any]) -> list[str]:
    named = case.get("old_runtime", DEFAULT_RUNTIMES)
    return [named] if isinstance(named, str) else list(named)


def _replay(case: dict[str, Any], runtime: str) -> list[tuple[dict[str, Any], Any]]:
    tool = ToolSchema("t", case["schema"], Location("case.yaml"), "", "mapping")
    rules = frozenset(Rule(r) for r in case["rules"]) if "rules" in case else DEFAULT_RULES
    replays = prepare([tool], rules, old_runtime=OldRuntime(runtime))
    return [
        (spec, evaluate_call(replays, _call(i, spec))[0]) for i, spec in enumerate(case["calls"], 1)
    ]


def _expected(spec: dict[str, Any], runtime: str, case: dict[str, Any]) -> dict[str, Any] | None:
    """What a call must give under ``runtime``: outcome, and causes and keywords if named."""
    if runtime in spec.get("outcomes", {}):
        own = spec["outcomes"][runtime]
        own = {"outcome": own} if isinstance(own, str) else own
        return {**{k: v for k, v in spec.items() if k in ("causes", "keywords")}, **own}
    if "outcome" in spec and runtime in _runtimes(case):
        return spec
    return None


def _runtimes_of(case: dict[str, Any]) -> list[str]:
    named = {r for spec in case["calls"] for r in spec.get("outcomes", {})}
    return sorted(named | set(_runtimes(case)))


@pytest.mark.parametrize("case", CASES)
def test_case(case: dict[str, Any]) -> None:
    mismatches = []
    checked: set[int] = set()
    for runtime in _runtimes_of(case):
        found, compared = _mismatches(case, runtime)
        mismatches.extend(found)
        # A runtime the case names compares at least one call.
        assert compared, f"{runtime}: no call of the case has an expectation under it"
        checked |= compared
    assert not mismatches, "\n".join(mismatches)
    # Every call is compared under some runtime: none is written down and never checked.
    assert checked == set(range(len(case["calls"]))), "calls with no expected outcome"


def _mismatches(case: dict[str, Any], runtime: str) -> tuple[list[str], set[int]]:
    """The mismatches under ``runtime``, and the indices of the calls compared."""
    mismatches = []
    compared: set[int] = set()
    for index, (spec, result) in enumerate(_replay(case, runtime)):
        expected = _expected(spec, runtime, case)
        if expected is None:
            continue
        compared.add(index)
        got: dict[str, Any] = {"outcome": result.outcome.value}
        want: dict[str, Any] = {"outcome": expected["outcome"]}
        if "causes" in expected:
            got["causes"] = sorted({r.pointer for e in result.errors for r in e.causes})
            want["causes"] = sorted(set(expected["causes"]))
        if "keywords" in expected:
            got["keywords"] = sorted({e.keyword for e in result.errors})
            want["keywords"] = sorted(set(expected["keywords"]))
        if got != want:
            args = spec.get("arguments", spec.get("arguments_text"))
            mismatches.append(f"{runtime}: {json.dumps(args)}: want {want}, got {got}")
    return mismatches, compared


def test_cases_reach_every_outcome_except_log_level_ones() -> None:
    seen = Counter(
        outcome
        for param in CASES
        for spec in param.values[0]["calls"]
        for outcome in _all_outcomes(spec)
    )
    expected = {o.value for o in Outcome} - {Outcome.UNKNOWN_TOOL.value}
    assert expected <= set(seen), f"outcomes never reached: {expected - set(seen)}"


def _all_outcomes(spec: dict[str, Any]) -> list[str]:
    named = [o if isinstance(o, str) else o["outcome"] for o in spec.get("outcomes", {}).values()]
    return [spec["outcome"], *named] if "outcome" in spec else named


@pytest.mark.parametrize(
    "uri",
    [
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-07/schema",
    ],
)
def test_normalizer_and_validator_agree_on_the_draft(uri: str) -> None:
    """`prefix_items` is not a draft-07 keyword: not renamed, and not evaluated either."""
    items: JSON = [{"type": "string"}]
    schema: JSON = {"$schema": uri, "type": "array", "items": items, "prefix_items": [{}]}
    tool = ToolSchema("t", schema, Location("case.yaml"), "", "mapping")
    replays = prepare([tool], DEFAULT_RULES)
    assert replays["t"].normalized.rewrites == ()
    # Draft-07 tuple `items`: the first element must be a string. 2020-12 would refuse the
    # schema (items must be one schema) and give schema_error_after instead.
    assert evaluate_call(replays, Call("x:1", "t", [1]))[0].outcome is Outcome.STILL_REJECTED
    assert evaluate_call(replays, Call("x:2", "t", ["a", 1]))[0].outcome is Outcome.ACCEPTED
