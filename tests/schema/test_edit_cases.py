"""`normalize --write` against hand-written expected files in tests/cases/edit/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from auditor.cli.common import parse_rules
from auditor.schema.edit import rewrite_file
from tests.conftest import load_cases


@pytest.mark.parametrize("case", load_cases("edit"))
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / case["file"]
    path.write_bytes(case["text"].encode("utf-8"))
    rules = parse_rules(",".join(case["rules"]) if "rules" in case else None)
    result = rewrite_file(str(path), rules)
    assert result.problem is None
    assert result.after == case["expected"]
    assert result.changed == (case["text"] != case["expected"])
    path.write_bytes(result.after.encode("utf-8"))
    again = rewrite_file(str(path), rules)
    if "refused_after" in case:
        # google-genai's output is JSON Schema (a `type` list for nullable), which its own
        # tool path then refuses: a second pass names that, and leaves the file alone.
        assert again.problem is not None and case["refused_after"] in again.problem
        assert not again.changed
        return
    assert again.problem is None and not again.changed, "normalizing twice must equal once"
