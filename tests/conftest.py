"""Shared test helpers: case files (sqlfluff style) and the repository's paths."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "cases"
AUDITOR = (sys.executable, "-m", "auditor")
"""The command line as a user runs it, for tests that need a separate process."""


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``auditor ARGS`` run in this process."""
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def load_cases(folder: str) -> list[Any]:
    """Every case of every YAML file in ``tests/cases/<folder>``, as pytest params."""
    params = []
    for path in sorted((CASES / folder).glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")):
            params.append(pytest.param(case, id=f"{path.stem}: {case['name']}"))
    return params
