"""The normalizer against hand-reasoned case files in tests/cases/normalize/."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from auditor.models import Rule
from auditor.schema.normalize import DEFAULT_RULES, normalize
from tests.conftest import load_cases

NORMALIZER_CODES = {"KW002", "TY002"}


def _rules(case: dict[str, Any]) -> frozenset[Rule]:
    """The case's ``rules`` (rule families), or the default ones."""
    return frozenset(Rule(name) for name in case["rules"]) if "rules" in case else DEFAULT_RULES


@pytest.mark.parametrize("case", load_cases("normalize"))
def test_case(case: dict[str, Any]) -> None:
    original = copy.deepcopy(case["schema"])
    result = normalize(case["schema"], _rules(case))
    # Key order is part of the contract: a renamed key keeps its place, an added one comes last.
    assert json.dumps(result.schema) == json.dumps(case["normalized"])
    got = [
        {
            "pointer": r.pointer,
            "old": r.old,
            "new": r.new,
            "rule": r.rule.value,
            "new_pointer": r.new_pointer,
            "change": r.edit.value,
        }
        for r in result.rewrites
    ]
    # A case names new_pointer and change where they matter (the profiles' cases do).
    want = case["rewrites"]
    assert len(got) == len(want), got
    assert [{key: g[key] for key in w} for g, w in zip(got, want, strict=True)] == want
    # These cases pin the findings about what the normalizer could not rename; the lint
    # cases pin the rest.
    assert [
        {"code": f.code, "pointer": f.pointer}
        for f in result.findings
        if f.code in NORMALIZER_CODES
    ] == case["findings"]
    assert result.refusal == case.get("refusal"), "a profile's model refuses as its SDK does"
    assert case["schema"] == original, "normalize must not modify its input"


@pytest.mark.parametrize("case", load_cases("normalize"))
def test_normalizing_twice_equals_once(case: dict[str, Any]) -> None:
    once = normalize(case["schema"], _rules(case))
    twice = normalize(once.schema, _rules(case))
    # A profile whose SDK rebuilds the schema (anthropic-strict) may order keys anew on a
    # second pass; the case says so, and the schemas must still be equal.
    reorders = bool(case.get("reorders"))
    if case.get("idempotent") is False:
        # A profile whose output, read back as JSON Schema, is input it transforms again
        # (google-genai-mcp drops the camelCase keyword a snake key became; litellm-gemini
        # splits the type list a nullable became), as its SDK would: the case says so.
        assert twice.rewrites and twice.schema != once.schema
        return
    assert json.dumps(twice.schema, sort_keys=reorders) == json.dumps(
        once.schema, sort_keys=reorders
    )
    assert twice.rewrites == ()
