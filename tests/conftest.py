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
from auditor.inputs.calls_from import CallsFrom
from auditor.request import AuditRequest, Engine, Inputs, Limits

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


# A shell or CI that forces colour (FORCE_COLOR, CLICOLOR_FORCE) would colour every answer
# the tests read: the run starts without them (its subprocesses too), and the colour tests
# set them. Not an autouse fixture: one holding ``monkeypatch`` would be set up before every
# other fixture and so undone after their teardown, which then runs with the test's patches
# still in place (tests/inputs/test_uri.py's bucket).
for _forcing in ("FORCE_COLOR", "CLICOLOR_FORCE"):
    os.environ.pop(_forcing, None)


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


def request_for(
    jobs: int = 1,
    engine: Engine = Engine.LOCAL,
    calls_from: CallsFrom = CallsFrom.ALL,
    scratch: str | None = None,
) -> AuditRequest:
    """The request of an audit run on ``jobs`` local workers (one: in this process)."""
    return AuditRequest(
        inputs=Inputs(calls_from=calls_from),
        limits=Limits(jobs=jobs, engine=engine, scratch=scratch),
    )


def small_parts(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """Cut logs in parts of ``size`` bytes (and spill gzip logs so), for small test logs."""
    from auditor.engines import plan

    monkeypatch.setattr(plan, "MIN_PART_BYTES", size)


def local_plan(tools: Any, files: list[str], jobs: int = 2) -> Any:
    """The plan the local engine runs with ``jobs`` workers."""
    from auditor.engines.plan import Cut, make_plan

    return make_plan(tools, files, ["tools.json"], workers=jobs, cut=Cut.FOR_LOCAL)


def what_runs(request: AuditRequest, outputs: Any) -> Any:
    """What an audit runs with, flat, as the command line resolved it: every field of the
    request's parts and of the run's outputs, with the values the run derives from them
    (``jobs`` one per core, ``0`` as no limit, ``auto`` as None, the default rules)."""
    from dataclasses import asdict
    from types import SimpleNamespace

    flat: dict[str, Any] = {}
    for part in (request.inputs, request.change, request.keep, request.gating, request.limits):
        flat.update({name: getattr(part, name) for name in asdict(part)})
    flat.update({name: getattr(outputs, name) for name in asdict(outputs)})
    flat.update(
        jobs=request.limits.workers,
        max_calls=request.keep.max_calls or None,
        call_timeout=request.limits.call_timeout or None,
        catalog_format=request.inputs.catalog_format.to_format(),
        log_format=request.inputs.log_format.to_format(),
        rules=request.change.normalization,
        suggest_patch_kinds=request.keep.patch_kinds,
        columns=request.inputs.columns,
        outputs=outputs.formats,
        outputs_within=outputs.formats_within,
    )
    return SimpleNamespace(**flat)
