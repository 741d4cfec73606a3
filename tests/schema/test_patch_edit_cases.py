"""Loosening patches written into catalog files, byte for byte: tests/cases/patch_edit/."""

from __future__ import annotations

from typing import Any

import pytest

from auditor.models import PatchOp, PatchOperation
from auditor.schema.edit import patch_text
from tests.conftest import load_cases


def operations(specs: list[dict[str, Any]]) -> list[PatchOperation]:
    return [PatchOperation(PatchOp(s["op"]), s["path"], s.get("value")) for s in specs]


@pytest.mark.parametrize("case", load_cases("patch_edit"))
def test_case(case: dict[str, Any]) -> None:
    after = patch_text(case["file"], case["text"], case["pointer"], operations(case["operations"]))
    assert after == case["expected"]
