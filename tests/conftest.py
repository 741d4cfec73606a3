"""Shared test helpers: case files (sqlfluff style) and the repository's paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "cases"


def load_cases(folder: str) -> list[Any]:
    """Every case of every YAML file in ``tests/cases/<folder>``, as pytest params."""
    params = []
    for path in sorted((CASES / folder).glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")):
            params.append(pytest.param(case, id=f"{path.stem}: {case['name']}"))
    return params
