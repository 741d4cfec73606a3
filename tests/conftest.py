"""Shared test helpers: case files (sqlfluff style), the repository's paths, the Hypothesis
profile for CI and the allowance for time bounds (measured in CPU seconds)."""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import settings

from auditor.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "cases"
AUDITOR = (sys.executable, "-m", "auditor")
"""The command line as a user runs it, for tests that need a separate process."""

CI = os.environ.get("CI") == "true"

# CI is reproducible: the same examples on every run (derandomized, no example database),
# no per-example deadline, and the failing example printed for replay. Locally Hypothesis
# keeps exploring with random seeds. HYPOTHESIS_PROFILE=ci selects it anywhere.
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if CI else "default"))

TIME_FACTOR = float(os.environ.get("AUDITOR_TEST_TIME_FACTOR", "3" if CI else "1"))
"""How much a time bound stretches: a 2-core CI runner is slower than a laptop.
Every bound is already several times what the work takes; under CI it is three times that."""


def seconds(bound: float) -> float:
    """A time bound for a test, stretched by ``TIME_FACTOR``."""
    return bound * TIME_FACTOR


def cpu_seconds() -> float:
    """CPU seconds (user and system) of this process and of its children it has waited for:
    what a bound on work measures whatever else the machine runs (wall time swings with the
    load of others)."""
    mine = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


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
