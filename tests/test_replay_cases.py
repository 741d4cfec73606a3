"""Replay against hand-reasoned case files in tests/cases/replay/.

Each case holds calls that must be accepted and calls that must be rejected, so a replay that
rejects everything fails here as surely as one that accepts everything.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from auditor.logs import call_from
from auditor.models import Call, Location, Outcome, ToolSchema
from auditor.normalize import DEFAULT_RULES
from auditor.pipeline import prepare, replay_call
from tests.conftest import load_cases

CASES = load_cases("replay")


def _call(index: int, spec: dict[str, Any]) -> Call:
    if "arguments_text" in spec:
        return call_from(f"case:{index}", "t", spec["arguments_text"])
    return Call(f"case:{index}", "t", spec["arguments"])


def _replay(case: dict[str, Any]) -> list[tuple[dict[str, Any], Any]]:
    tool = ToolSchema("t", case["schema"], Location("case.yaml"), "", "mapping")
    replays = prepare([tool], DEFAULT_RULES)
    return [(spec, replay_call(replays, _call(i, spec))) for i, spec in enumerate(case["calls"], 1)]


@pytest.mark.parametrize("case", CASES)
def test_case(case: dict[str, Any]) -> None:
    mismatches = []
    for spec, result in _replay(case):
        got: dict[str, Any] = {"outcome": result.outcome.value}
        want: dict[str, Any] = {"outcome": spec["outcome"]}
        if "causes" in spec:
            got["causes"] = sorted({r.pointer for e in result.errors for r in e.causes})
            want["causes"] = sorted(set(spec["causes"]))
        if "keywords" in spec:
            got["keywords"] = sorted({e.keyword for e in result.errors})
            want["keywords"] = sorted(set(spec["keywords"]))
        if got != want:
            args = spec.get("arguments", spec.get("arguments_text"))
            mismatches.append(f"{json.dumps(args)}: want {want}, got {got}")
    assert not mismatches, "\n".join(mismatches)


def test_cases_reach_every_outcome_except_log_level_ones() -> None:
    seen = Counter(spec["outcome"] for param in CASES for spec in param.values[0]["calls"])
    expected = {o.value for o in Outcome} - {Outcome.UNKNOWN_TOOL.value}
    assert expected <= set(seen), f"outcomes never reached: {expected - set(seen)}"


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
    schema = {"$schema": uri, "type": "array", "items": [{"type": "string"}], "prefix_items": [{}]}
    tool = ToolSchema("t", schema, Location("case.yaml"), "", "mapping")
    replays = prepare([tool], DEFAULT_RULES)
    assert replays["t"].normalized.rewrites == ()
    # Draft-07 tuple `items`: the first element must be a string. 2020-12 would refuse the
    # schema (items must be one schema) and give schema_error_after instead.
    assert replay_call(replays, Call("x:1", "t", [1])).outcome is Outcome.STILL_REJECTED
    assert replay_call(replays, Call("x:2", "t", ["a", 1])).outcome is Outcome.ACCEPTED
