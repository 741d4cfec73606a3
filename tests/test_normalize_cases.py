"""The normalizer against hand-reasoned case files in tests/cases/normalize/."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from auditor.schema.normalize import normalize
from tests.conftest import load_cases

NORMALIZER_CODES = {"KW002", "TY002"}


@pytest.mark.parametrize("case", load_cases("normalize"))
def test_case(case: dict[str, Any]) -> None:
    original = copy.deepcopy(case["schema"])
    result = normalize(case["schema"])
    # Key order is part of the contract: a renamed key keeps its place.
    assert json.dumps(result.schema) == json.dumps(case["normalized"])
    assert [
        {"pointer": r.pointer, "old": r.old, "new": r.new, "rule": r.rule.value}
        for r in result.rewrites
    ] == case["rewrites"]
    # These cases pin the findings about what the normalizer could not rename; the lint
    # cases pin the rest.
    assert [
        {"code": f.code, "pointer": f.pointer}
        for f in result.findings
        if f.code in NORMALIZER_CODES
    ] == case["findings"]
    assert case["schema"] == original, "normalize must not modify its input"


@pytest.mark.parametrize("case", load_cases("normalize"))
def test_normalizing_twice_equals_once(case: dict[str, Any]) -> None:
    once = normalize(case["schema"])
    twice = normalize(once.schema)
    assert json.dumps(twice.schema) == json.dumps(once.schema)
    assert twice.rewrites == ()
