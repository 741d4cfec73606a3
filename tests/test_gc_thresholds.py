"""The collector's thresholds while an audit counts, builds and renders: raised for that
extent (``auditor.gc_thresholds``), the caller's put back after, by an error too."""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema.exceptions import ValidationError

from auditor import cli
from auditor.aggregate import pipeline
from auditor.aggregate.pipeline import ReportSettings, build_report, count_calls, prepare
from auditor.cli import audit as cli_audit
from auditor.cli import main
from auditor.engines import inline
from auditor.gc_thresholds import AUDIT_GC, fewer_collections
from auditor.models import Call, Location, Outcome, ToolSchema
from auditor.report import Format, json_report, render, table
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import ROOT

# Python's defaults are (700, 10, 10): a caller's own thresholds, unlike both, show which
# ones were put back.
_CALLERS = (1_234, 5, 6)
_TOOL = ToolSchema(
    "count",
    {"type": "object", "properties": {"n": {"type": "Integer"}}},
    Location("tools.json", 1, 1),
    "",
    "mapping",
)


# "any_of" enforces nothing in the lenient old runtime; normalized, each "x" is newly rejected
# by an anyOf error holding its two branches' errors.
_BRANCHES = ToolSchema(
    "branches",
    {
        "type": "object",
        "properties": {"n": {"any_of": [{"type": "integer"}, {"type": "string", "maxLength": 1}]}},
    },
    Location("tools.json", 1, 1),
    "",
    "mapping",
)


@pytest.fixture(autouse=True)
def _callers_thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(*_CALLERS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _calls(seen: list[tuple[int, int, int]], fail_at: int | None = None) -> Iterator[Call]:
    # "Integer" enforces nothing in the lenient old runtime; normalized it asks for an
    # integer: "x" is newly rejected, 1 accepted on both sides.
    for line in range(1, 11):
        seen.append(gc.get_threshold())
        if line == fail_at:
            raise OSError("the log went away")
        text = '{"n": "x"}' if line % 2 else '{"n": 1}'
        yield Call(f"log:{line}", "count", orjson.loads(text), text=text)


def test_counting_raises_the_thresholds_and_puts_the_callers_back() -> None:
    seen: list[tuple[int, int, int]] = []
    tally = count_calls(prepare([_TOOL], DEFAULT_RULES), _calls(seen), ReportSettings())
    assert tally.totals[Outcome.NEWLY_REJECTED] == 5
    assert set(seen) == {AUDIT_GC}
    assert gc.get_threshold() == _CALLERS


def test_an_error_while_counting_puts_the_callers_thresholds_back() -> None:
    seen: list[tuple[int, int, int]] = []
    with pytest.raises(OSError, match="went away"):
        count_calls(prepare([_TOOL], DEFAULT_RULES), _calls(seen, fail_at=4), ReportSettings())
    assert set(seen) == {AUDIT_GC}
    assert gc.get_threshold() == _CALLERS


def test_building_and_rendering_keep_the_thresholds_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    replays = prepare([_TOOL], DEFAULT_RULES)
    tally = count_calls(replays, _calls([]), ReportSettings())
    seen: dict[str, tuple[int, int, int]] = {}
    real_roll_up, real_json, real_table = pipeline.roll_up, json_report.render, table._wrapped

    def roll_up(*args: object) -> object:
        seen["build"] = gc.get_threshold()
        return real_roll_up(*args)  # type: ignore[arg-type]

    def json_render(*args: object) -> str:
        seen["json"] = gc.get_threshold()
        return real_json(*args)  # type: ignore[arg-type]

    def wrapped(*args: object) -> str:
        seen.setdefault("table", gc.get_threshold())
        return real_table(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "roll_up", roll_up)
    monkeypatch.setattr(json_report, "render", json_render)
    monkeypatch.setattr(table, "_wrapped", wrapped)
    report = build_report(replays, tally, (), ["tools.json"], (), ReportSettings())
    assert gc.get_threshold() == _CALLERS
    assert '"newly_rejected": 5' in render(report, Format.JSON)
    assert gc.get_threshold() == _CALLERS
    assert "count" in table.concise(report, 100, 1)
    assert seen == {"build": AUDIT_GC, "json": AUDIT_GC, "table": AUDIT_GC}
    assert gc.get_threshold() == _CALLERS


def test_an_inner_scope_ending_leaves_the_outer_ones_thresholds() -> None:
    with fewer_collections():
        with fewer_collections():
            assert gc.get_threshold() == AUDIT_GC
        assert gc.get_threshold() == AUDIT_GC
    assert gc.get_threshold() == _CALLERS


def test_an_error_in_nested_scopes_puts_the_callers_thresholds_back() -> None:
    with pytest.raises(ValueError, match="inner"), fewer_collections(), fewer_collections():
        raise ValueError("inner")
    assert gc.get_threshold() == _CALLERS


def test_scopes_of_two_threads_end_with_the_last_of_them() -> None:
    entered, leave = threading.Event(), threading.Event()
    during: list[tuple[int, int, int]] = []

    def other() -> None:
        with fewer_collections():
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=other)
    with fewer_collections():
        thread.start()
        assert entered.wait(10)
    during.append(gc.get_threshold())  # this thread's scope ended, the other's has not
    leave.set()
    thread.join(10)
    assert during == [AUDIT_GC]
    assert gc.get_threshold() == _CALLERS


def test_counting_rejected_calls_leaves_no_validation_errors_for_the_collector() -> None:
    # Distinct arguments, so that no rejection is a repeat the memo answers.
    texts = [orjson.dumps({"n": "x" * (2 + line)}).decode() for line in range(300)]
    calls = (Call(f"log:{i}", "branches", orjson.loads(t), text=t) for i, t in enumerate(texts))
    replays = prepare([_BRANCHES], DEFAULT_RULES)
    gc.collect()
    gc.disable()
    try:
        tally = count_calls(replays, calls, ReportSettings())
    finally:
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        errors = sum(isinstance(o, ValidationError) for o in gc.garbage)
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert tally.totals[Outcome.NEWLY_REJECTED] == 300
    assert errors == 0  # without detaching them: three per call (the anyOf and its branches)


def test_the_command_line_keeps_them_raised_from_counting_to_the_reports_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Between count_calls' scope and build_report's, and after the report is built, the
    # thresholds were the caller's: the owed full collection came as counting ended.
    seen: dict[str, tuple[int, int, int]] = {}
    report_of, deliver = inline.report_of, cli_audit.deliver

    def recording_report_of(*args: Any) -> Any:
        seen["report"] = gc.get_threshold()
        return report_of(*args)

    def recording_deliver(*args: Any) -> int:
        seen["deliver"] = gc.get_threshold()
        return deliver(*args)

    monkeypatch.setattr(inline, "report_of", recording_report_of)
    monkeypatch.setattr(cli_audit, "deliver", recording_deliver)
    sample = ROOT / "sample_logs" / "mcp_files"
    args = ["audit", "--schemas", str(sample / "tools.json"), "--logs", str(sample / "calls.jsonl")]
    out = tmp_path / "audit.json"
    with pytest.raises(SystemExit) as exited:
        main([*args, "--format", "json", "--output", str(out), "--quiet", "--no-report-files"])
    assert gc.get_threshold() == _CALLERS  # the autouse fixture's, put back
    assert exited.value.code == 1  # the sample holds newly rejected calls
    assert json.loads(out.read_text())["totals"]["newly_rejected"] > 0
    assert seen == {"report": AUDIT_GC, "deliver": AUDIT_GC}


def test_the_console_script_freezes_the_heap_only_once_main_is_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    order: list[str] = []

    def fake_main() -> None:
        order.append("main")
        raise SystemExit(3)

    def fake_freeze() -> None:
        # Frozen while the thresholds are still raised: putting them back first would run
        # the full collection the freeze is there to spare.
        order.append(f"freeze under {gc.get_threshold()}")

    monkeypatch.setattr(cli, "main", fake_main)
    monkeypatch.setattr(gc, "freeze", fake_freeze)
    with pytest.raises(SystemExit) as exited:
        cli.console()
    assert exited.value.code == 3  # main's exit code, untouched
    assert order == ["main", f"freeze under {AUDIT_GC}"]
    assert gc.get_threshold() == _CALLERS


def test_main_itself_never_freezes_the_callers_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    frozen: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert frozen == []
