"""The Python models of the MCP TypeScript SDK's validation agree with Ajv itself.

Ajv and ajv-formats run under node (``auditor/replay/ajv_runner.js``, driven in batches by
``auditor.replay.ajv``) on the corpora of ``tests/replay/runtime_corpus.py``; each verdict
of the ``mcp-ts-v2`` and ``mcp-ts-v1`` models must equal Ajv's, or be one of the documented
differences of ``tests/replay/data/ajv_differences.json`` (docs/runtimes.md cites it). A
broken model (date-time without its offset check) must be caught.

The packages come from ``AUDITOR_NODE_MODULES`` (``.ci/run`` installs them there), else they
are installed with npm into a scratch folder; only a missing ``node`` skips.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor.models import JSON
from auditor.replay import ajv as ajv_module
from auditor.replay import formats
from auditor.replay.ajv import AjvProcess, AjvRequest, AjvVerdict, close_runners, find_ajv
from auditor.replay.runtimes import MODELS, Runtime
from auditor.replay.tool import compile_schema
from tests.conftest import ROOT
from tests.replay.runtime_corpus import DIALECT_CASES, DRAFT_07, DRAFT_2020, Case, corpus

DIFFERENCES = Path(__file__).parent / "data" / "ajv_differences.json"
RUNTIMES = ("mcp-ts-v2", "mcp-ts-v1")
CORPORA = {
    "2020-12 (no $schema)": corpus(None),
    "2020-12": corpus(DRAFT_2020),
    "draft-07": corpus(DRAFT_07),
    "dialects": list(DIALECT_CASES),
}


@pytest.fixture(scope="module")
def ajv_found(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """``node`` and a ``node_modules`` with ajv and ajv-formats: named, else npm-installed."""
    if shutil.which("node") is None:
        pytest.skip("node is not on the PATH: Ajv cannot run here")
    found = find_ajv()
    if isinstance(found, str):
        folder = tmp_path_factory.mktemp("ajv")
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(folder),
                "ajv@8",
                "ajv-formats@3",
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
        found = find_ajv(str(folder / "node_modules"))
    assert not isinstance(found, str), found
    return found


@pytest.fixture(scope="module")
def ajv(ajv_found: tuple[str, Path]) -> Iterator[AjvProcess]:
    with AjvProcess(*ajv_found) as process:
        yield process


def model_verdict(runtime: str, schema: JSON, instance: JSON) -> AjvVerdict:
    """The Python model's verdict, as ``ToolReplay`` compiles the new side."""
    model = MODELS[runtime]
    reading = Runtime(model, True, model.default_dialect).read(schema)
    compiled = compile_schema(schema, reading=reading)
    if compiled.validator is None:
        return AjvVerdict(False, unusable=compiled.problem)
    return AjvVerdict(bool(compiled.validator.is_valid(instance)))


def _requests(cases: list[Case]) -> list[AjvRequest]:
    return [
        AjvRequest(runtime, schema, instance)
        for runtime in RUNTIMES
        for schema, instances in cases
        for instance in instances
    ]


def _key(request: AjvRequest) -> str:
    return json.dumps([request.runtime, request.schema, request.instance], sort_keys=True)


def differences(ajv: AjvProcess, cases: list[Case]) -> dict[str, dict[str, Any]]:
    """Each request where the model and Ajv disagree on the verdict (valid, invalid, or
    unusable schema), by its key."""
    requests = _requests(cases)
    found = {}
    for request, theirs in zip(requests, ajv.verdicts(requests), strict=True):
        ours = model_verdict(request.runtime, request.schema, request.instance)
        if (ours.unusable is None) != (theirs.unusable is None) or (
            ours.unusable is None and ours.valid != theirs.valid
        ):
            found[_key(request)] = {
                "ajv": "unusable" if theirs.unusable else theirs.valid,
                "model": "unusable" if ours.unusable else ours.valid,
            }
    return found


def _documented() -> dict[str, dict[str, Any]]:
    entries = json.loads(DIFFERENCES.read_text(encoding="utf-8"))
    return {
        json.dumps([e["runtime"], e["schema"], e["instance"]], sort_keys=True): e for e in entries
    }


@pytest.mark.parametrize("name", list(CORPORA))
def test_the_models_agree_with_ajv(ajv: AjvProcess, name: str) -> None:
    documented = _documented()
    found = differences(ajv, CORPORA[name])
    undocumented = {k: v for k, v in found.items() if k not in documented}
    assert undocumented == {}
    for key, seen in found.items():  # a documented difference says who says what
        entry = documented[key]
        assert (entry["ajv"], entry["model"]) == (seen["ajv"], seen["model"]), key
        assert entry["why"]


def test_every_documented_difference_still_differs(ajv: AjvProcess) -> None:
    cases = [c for cases in CORPORA.values() for c in cases]
    found = differences(ajv, cases)
    stale = [key for key in _documented() if key not in found]
    assert stale == []


def test_a_broken_model_is_caught(ajv: AjvProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    # A date-time check that forgot the offset: Ajv rejects "2026-01-05T10:00:00", this
    # model would accept it, and the differential test must see that.
    broken = formats._strings(formats._date_time(False))
    monkeypatch.setitem(formats.AJV_FORMATS, "date-time", broken)
    from auditor.replay import runtimes

    monkeypatch.setattr(runtimes, "format_checker", lambda _: formats.ajv_format_checker())
    monkeypatch.setattr("auditor.replay.tool.format_checker", runtimes.format_checker)
    found = differences(ajv, [({"format": "date-time"}, ("2026-01-05T10:00:00",))])
    assert len(found) == len(RUNTIMES)
    assert {v["ajv"] for v in found.values()} == {False}


def test_node_modules_are_found_where_named(tmp_path: Path) -> None:
    # No network at audit time: a folder without the packages is refused with the reason.
    assert find_ajv(str(tmp_path)) == (
        "node is not on the PATH"
        if shutil.which("node") is None
        else f"{tmp_path} holds no ajv, ajv-formats"
    )


def test_at_audit_time_ajv_gives_the_verdicts(
    ajv_found: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The model is broken as above; with --runtime-validator ajv, Ajv still rejects the
    # date-time without an offset, and the change of runtime is its cause.
    from auditor.models import Call, Location, NewRuntime, OldRuntime, Outcome, ToolSchema
    from auditor.replay import runtimes
    from auditor.replay.ajv import locate_ajv
    from auditor.replay.tool import ToolReplay
    from auditor.schema.normalize import normalize

    broken = formats._strings(formats._date_time(False))
    monkeypatch.setitem(formats.AJV_FORMATS, "date-time", broken)
    monkeypatch.setattr(runtimes, "format_checker", lambda _: formats.ajv_format_checker())
    monkeypatch.setattr("auditor.replay.tool.format_checker", runtimes.format_checker)
    location = locate_ajv(str(ajv_found[1]))
    assert not isinstance(location, str), location
    schema: JSON = {"type": "object", "properties": {"when": {"format": "date-time"}}}
    tool = ToolSchema("book", schema, Location("tools.json"), "", "schema")
    for ajv_at, expected in ((None, Outcome.ACCEPTED), (location, Outcome.NEWLY_REJECTED)):
        pair = runtimes.runtimes_of(OldRuntime.LENIENT, NewRuntime.MCP_TS_V2, ajv=ajv_at)
        normalized = runtimes.with_runtime_changes(normalize(schema, ()), pair)
        replay = ToolReplay(tool, normalized, runtimes=pair)
        result = replay.replay(Call("calls.jsonl:1", "book", {"when": "2026-01-05T10:00:00"}))
        assert result.outcome is expected
    [issue] = result.errors
    assert (issue.instance_pointer, issue.keyword, issue.schema_pointer) == (
        "/when",
        "format",
        "/properties/when/format",
    )
    assert issue.message == 'must match format "date-time" (Ajv)'
    assert [c.describe() for c in issue.causes] == [
        "/properties/when/format: format: date-time asserted by mcp-ts-v2"
    ]
    assert runtimes.sides(pair)[1].verdicts.startswith("Ajv (ajv 8.")  # type: ignore[index]


def _pipes_closed(process: AjvProcess) -> bool:
    popen = process._process
    return all(pipe is None or pipe.closed for pipe in (popen.stdin, popen.stdout))


def test_close_ends_the_runner_and_closes_its_pipes(
    ajv_found: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    process = AjvProcess(*ajv_found)
    assert process.verdicts([AjvRequest("mcp-ts-v2", {"type": "string"}, "x")])[0].valid
    process.close()
    assert process._process.returncode == 0  # it exited at the end of its input
    assert _pipes_closed(process)
    # A runner that neither exits at the end of its input nor on SIGTERM is killed, and close
    # returns within its timeouts instead of hanging.
    stubborn = tmp_path / "stubborn.js"
    stubborn.write_text(
        "process.on('SIGTERM', () => {}); process.stdin.resume();"
        " setInterval(() => {}, 1000); console.log('ready');\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(ajv_module, "RUNNER", stubborn)
    process = AjvProcess(*ajv_found)
    assert process._process.stdout is not None
    assert process._process.stdout.readline() == "ready\n"  # its SIGTERM handler is set
    started = time.monotonic()
    process.close(timeout=0.5)
    assert time.monotonic() - started < 10
    assert process._process.returncode == -9  # SIGKILL, after SIGTERM was ignored
    assert _pipes_closed(process)


def test_the_exit_hook_closes_this_process_runners_and_no_other_process_runners(
    ajv_found: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    ours, theirs = AjvProcess(*ajv_found), AjvProcess(*ajv_found)
    node, folder = ajv_found
    other = os.getpid() + 1  # as a forked worker sees its parent's runner
    runners = {(os.getpid(), node, str(folder)): ours, (other, node, str(folder)): theirs}
    monkeypatch.setattr(ajv_module, "_PROCESSES", runners)
    try:
        close_runners()
        assert ours._process.returncode is not None and _pipes_closed(ours)
        assert theirs._process.poll() is None and not _pipes_closed(theirs)
        assert list(runners) == [(other, node, str(folder))]
    finally:
        theirs.close()


def test_an_audit_process_leaves_no_runner_behind_at_exit(ajv_found: tuple[str, Path]) -> None:
    # The runner AjvLocation.verdict starts is closed by the exit hook: no ResourceWarning
    # (unclosed pipe, subprocess still running) as the interpreter ends.
    script = (
        "import sys\n"
        "from auditor.replay.ajv import locate_ajv\n"
        "location = locate_ajv(sys.argv[1])\n"
        "print(location.verdict('mcp-ts-v2', {'type': 'string'}, 1).valid)\n"
    )
    done = subprocess.run(
        [sys.executable, "-X", "dev", "-W", "error::ResourceWarning", "-c", script, ajv_found[1]],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "False\n", "")
