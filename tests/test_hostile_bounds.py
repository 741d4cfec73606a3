"""Issue 11, bounds: what a hostile catalog or log can make auditor spend, in memory and time,
is bounded before and during replay. The end-to-end cases are in ``tests/hostile/``; these
are the units behind them, each with an ordinary input that must still be accepted."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import random
import resource
import signal
import subprocess
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from jsonschema import validators
from jsonschema.exceptions import ValidationError

from auditor.aggregate.loosen import PATTERN_TIMEOUT, Witness, suggest
from auditor.aggregate.pipeline import (
    MAX_UNCALLED_SEARCHED,
    MAX_UNKNOWN_TOOLS,
    CallList,
    ReportSettings,
    Tally,
    build_report,
    count_calls,
    evaluate_call,
    prepare,
)
from auditor.aggregate.redact import MAX_TOOL_NAME
from auditor.engines import local as parallel
from auditor.inputs.parts import LogPart
from auditor.models import (
    ACCEPTS,
    JSON,
    Call,
    CallResult,
    Location,
    Observation,
    OldRuntime,
    Outcome,
    ToolSchema,
    ValidationIssue,
)
from auditor.replay import budget
from auditor.replay.budget import (
    MAX_PATTERN_EXPANSION,
    SearchCeiling,
    UnusablePattern,
    compiled_pattern,
    pattern_expansion,
)
from auditor.replay.fast_validator import MAX_EVALUATION_DEPTH, fan_out, meta_valid, trusted
from auditor.replay.observed import observe
from auditor.replay.tool import (
    MEMO_BYTES,
    MEMO_ENTRIES,
    MEMO_MAX_ARGUMENT,
    VALIDATORS,
    Memo,
    Remembered,
    ToolReplay,
    schema_problem,
)
from auditor.report import Format, render
from auditor.schema.keywords import draft_of
from auditor.schema.normalize import DEFAULT_RULES
from tests.conftest import AUDITOR, ROOT, cpu_seconds, load_cases, run_cli, seconds, small_parts

REGEX_BOMB = "^(?:(?:(?:a{1000}){1000}){1000})$"


@pytest.mark.parametrize(
    ("pattern", "expansion"),
    [
        ("^[a-z]{1,64}$", 66),
        ("a{100000}", 100_000),
        ("(?:a{10}){10}", 100),
        ("(a|b)*", 2),
        ("(?:a{1000,}){100}", 100_000),
    ],
)
def test_ordinary_patterns_are_measured_exactly(pattern: str, expansion: int) -> None:
    assert pattern_expansion(pattern) == expansion


@pytest.mark.parametrize(
    "pattern",
    [
        REGEX_BOMB,
        "(?:a{1000}){101}",
        "(?:a{1000,}){1000}",
        # Not Python's dialect (\p{..}): the rougher scan of the text must not undercount.
        "\\p{L}(?:(?:b{1000}){1000}){1000}",
        "\\p{L}a{" + "9" * 5000 + "}",
        "\\p{L}a" + "{99}" * 100_000,  # measured without ever-growing numbers
    ],
)
def test_patterns_that_expand_past_the_bound_are_refused_uncompiled(pattern: str) -> None:
    assert pattern_expansion(pattern) > MAX_PATTERN_EXPANSION
    with pytest.raises(UnusablePattern, match="counted repeats expand to more than 100,000"):
        compiled_pattern(pattern)


def test_ordinary_patterns_still_compile_and_stay_with_the_fast_engine() -> None:
    assert compiled_pattern("^[a-z]{1,64}$").search("abc")
    assert compiled_pattern("\\p{L}{2,8}").search("ab")
    assert trusted({"properties": {"q": {"pattern": "^[a-z]{1,64}$"}}})
    assert not trusted({"properties": {"q": {"pattern": REGEX_BOMB}}})
    assert not trusted({"patternProperties": {REGEX_BOMB: {}}})


def _fan(levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "string"}
    return {"$defs": defs, "properties": {"q": {"$ref": "#/$defs/d0"}}}


def _chain(length: int) -> dict[str, Any]:
    defs: dict[str, Any] = {f"c{i}": {"$ref": f"#/$defs/c{i + 1}"} for i in range(length)}
    defs[f"c{length}"] = {"type": "string"}
    return {"$defs": defs, "properties": {"q": {"$ref": "#/$defs/c0"}}}


def test_fan_out_counts_reference_multiplicity() -> None:
    # d3 = {"type": ...} weighs 1; each d(k) = 1 (itself) + its allOf list (1 + two refs, each
    # 1 + d(k+1)); the root adds itself, "properties" and "q" (a ref: 1 + d0); $defs runs only
    # where a ref leads, so it adds nothing.
    d = 1
    for _ in range(3):
        d = 1 + 1 + 2 * (1 + d)
    weighed = fan_out(_fan(3))
    assert weighed is not None
    assert weighed[0] == 1 + 1 + (1 + d) == 39


def test_fanned_out_references_keep_the_schema_with_the_reference_engine() -> None:
    assert trusted(_fan(10))  # 2^10 evaluations: fine for the fast validator
    assert not trusted(_fan(40))  # 2^40: the fast validator would never return
    assert not trusted({"$ref": "#"})  # recursive, as before
    assert not trusted({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}})


def test_reference_chains_are_weighed_in_linear_time() -> None:
    # The old walk was cubic in the chain's length (800 references: 89 s); 20,000 here.
    weighed = fan_out(_chain(20_000))
    assert weighed is not None
    assert weighed[1] > MAX_EVALUATION_DEPTH  # deeper than the reference's recursion allows
    assert not trusted(_chain(20_000))
    assert trusted(_chain(100))  # an ordinary chain stays with the fast validator


REMEMBERED: Remembered = (None, ACCEPTS, frozenset())


@pytest.mark.parametrize("argument_bytes", [2_000_000, 250_000])
def test_the_verdict_memo_is_bounded_in_bytes(argument_bytes: int) -> None:
    # 300 distinct 2 MB arguments kept 600 MB when the memo counted only entries.
    memo = Memo(MEMO_ENTRIES)
    tracemalloc.start()
    try:
        for i in range(300):
            memo.put(("search", f"{i:04}" + "x" * argument_bytes), REMEMBERED)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < MEMO_BYTES + (8 << 20)
    assert memo.bytes <= MEMO_BYTES
    if argument_bytes > MEMO_MAX_ARGUMENT:
        assert len(memo) == 0  # too big to be worth remembering
    else:  # 75 MB offered: the oldest make room for the newest, as many as the bytes hold
        # (each entry weighs its text and a few hundred bytes besides: a little fewer fit)
        fit = MEMO_BYTES // argument_bytes
        assert fit < 300
        assert fit - 5 <= len(memo) <= fit
        assert memo.get(("search", "0299" + "x" * argument_bytes)) == REMEMBERED
        assert memo.get(("search", "0000" + "x" * argument_bytes)) is None


def test_the_verdict_memo_still_remembers_ordinary_arguments() -> None:
    memo = Memo(MEMO_ENTRIES)
    for i in range(1000):
        memo.put(("search", f'{{"q": "{i}"}}'), REMEMBERED)
    assert len(memo) == 1000
    assert memo.get(("search", '{"q": "7"}')) == REMEMBERED


def test_the_verdict_memo_lets_the_oldest_go_first_at_its_entry_bound() -> None:
    memo = Memo(3)
    for i in range(7):
        memo.put(("search", str(i)), REMEMBERED)
        memo.put(("search", str(i)), REMEMBERED)  # a key already kept is not added twice
    assert len(memo) == 3
    assert [memo.get(("search", str(i))) is not None for i in range(7)] == [False] * 4 + [True] * 3


def _big_log(folder: Path) -> Path:
    text = (ROOT / "sample_logs" / "mcp_files" / "calls.jsonl").read_text(encoding="utf-8")
    log = folder / "calls.jsonl"
    log.write_text(text * 30, encoding="utf-8")
    return log


_WORK = parallel._work


def _dying(place: int, part: LogPart) -> Any:
    """A worker's work that is killed after the first part, as the out-of-memory killer would."""
    if part.start > 0:
        os.kill(os.getpid(), signal.SIGKILL)
    return _WORK(place, part)


def test_a_lost_worker_is_a_loud_failure_without_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _big_log(tmp_path)
    small_parts(monkeypatch, 1024)
    monkeypatch.setattr(parallel, "_work", _dying)
    reports = tmp_path / "reports"
    catalog = ROOT / "sample_logs" / "mcp_files" / "tools.json"
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--jobs", "2"]
    code, _, err = run_cli([*args, "--report-dir", str(reports), "-q"], capsys)
    assert code == 3
    assert err == (
        "auditor: internal error: a worker process was killed by SIGKILL (the out-of-memory"
        " killer sends it): its part of the logs was not counted; no report was written\n"
    )
    assert not reports.exists() or list(reports.iterdir()) == []


JOBS_2 = ("--jobs", "2", "--no-report-files", "-q")


def _failing(place: int, part: LogPart) -> Any:
    """A worker's work that runs out of memory after the first part."""
    if part.start > 0:
        raise MemoryError
    return _WORK(place, part)


def test_a_failing_worker_is_a_loud_failure_without_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _big_log(tmp_path)
    small_parts(monkeypatch, 1024)
    monkeypatch.setattr(parallel, "_work", _failing)
    reports = tmp_path / "reports"
    catalog = ROOT / "sample_logs" / "mcp_files" / "tools.json"
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--jobs", "2"]
    code, _, err = run_cli([*args, "--report-dir", str(reports), "-q"], capsys)
    assert (code, err) == (
        3,
        "auditor: internal error: a worker process failed (MemoryError): its part of the logs"
        " was not counted; no report was written\n",
    )
    assert not reports.exists() or list(reports.iterdir()) == []


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
def test_workers_end_at_once_when_the_parent_is_killed(tmp_path: Path) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text('{"search": {"properties": {"q": {"pattern": "^(a|a)*$"}}}}')
    # Every call distinct (nothing memoized) and backtracking until its 2 s budget: the
    # workers stay busy for hours unless something ends them. Over 8 MiB: two parts or more.
    log = tmp_path / "calls.jsonl"
    with log.open("w") as stream:
        for i in range(120_000):
            stream.write(f'{{"tool": "search", "arguments": {{"q": "{"a" * 28}!{i}"}}}}\n')
    process = subprocess.Popen(
        [*AUDITOR, "audit", "--schemas", str(catalog), "--logs", str(log), *JOBS_2],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while len(workers := _children(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(workers) >= 2
        time.sleep(1)  # let them start on their parts
    finally:
        process.kill()
        process.wait()
    deadline = time.monotonic() + 20
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:  # never leave them behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []


def _run_json(
    folder: Path, catalog: str, lines: list[str], capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[str, dict[str, Any]]:
    (folder / "tools.json").write_text(catalog)
    (folder / "calls.jsonl").write_text("".join(line + "\n" for line in lines))
    report = folder / "report.json"
    args = ["audit", "--schemas", str(folder / "tools.json"), "--logs", str(folder / "calls.jsonl")]
    code, _, err = run_cli(
        [
            *args,
            "--no-report-files",
            "--fail-on",
            "never",
            "--format",
            "json",
            "--output",
            str(report),
            *extra,
        ],
        capsys,
    )
    assert code == 0, err
    text = report.read_text(encoding="utf-8")
    return text, json.loads(text)


def _unknown(name: str) -> str:
    return json.dumps({"tool": name, "arguments": {}})


def test_unknown_tool_names_are_capped_and_the_rest_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["a" * 10_000, *(f"tool-{i:05}" for i in range(3000)), "tool-00000", "tool-00000"]
    names.append("z" * 10_000)
    text, report = _run_json(tmp_path, '{"search": {}}', [_unknown(n) for n in names], capsys)
    # The first 1,000 names in sorted order: the long "a…" one, tool-00000 (3 calls) and
    # tool-00001 to tool-00998; the other 2,001 tool-… names and the long "z…" one are counted.
    kept = report["unknown_tools"]
    assert len(kept) == MAX_UNKNOWN_TOOLS == 1000
    assert kept["a" * MAX_TOOL_NAME + "… (+9800 chars)"] == 1
    assert kept["tool-00000"] == 3
    assert "tool-00998" in kept and "tool-00999" not in kept
    assert report["unknown_tools_other_calls"] == 2002
    assert report["totals"]["unknown_tool"] == 3004 == sum(kept.values()) + 2002
    # Neither 10,000-character name is anywhere whole (the calls list cuts them to 80).
    assert "a" * 1000 not in text and "z" * 1000 not in text


def test_unknown_tool_names_merge_exactly_across_parts() -> None:
    rng = random.Random(11)
    names = [f"t{rng.randrange(5000)}" for _ in range(20_000)]
    results = [
        CallResult(Call(f"log:{i}", name, {}), Outcome.UNKNOWN_TOOL) for i, name in enumerate(names)
    ]
    settings = ReportSettings(max_calls=0)
    whole = Tally({}, settings)
    for result in results:
        whole.add(result, frozenset())
    whole.trim_unknown()
    merged = Tally({}, settings)
    for start in range(0, len(results), 3000):
        part = Tally({}, settings)
        for result in results[start : start + 3000]:
            part.add(result, frozenset())
        merged.merge(part)
    merged.trim_unknown()
    assert merged.unknown == whole.unknown
    assert len(whole.unknown) == MAX_UNKNOWN_TOOLS
    assert merged.unknown_other == whole.unknown_other
    assert whole.unknown_other + sum(whole.unknown.values()) == len(names)


LONG_KEY = "k" * 100_000
KEYED_CATALOG = json.dumps(
    {
        "open": {"type": "object", "additional_properties": {"type": "string"}},
        "closed": {"type": "object", "additional_properties": False},
    }
)


@pytest.mark.parametrize("extra", [(), ("--redact",)])
def test_logged_keys_are_cut_like_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: tuple[str, ...]
) -> None:
    lines = [
        json.dumps({"tool": "open", "arguments": {LONG_KEY: 1}}),
        json.dumps({"tool": "closed", "arguments": {LONG_KEY: "x"}}),
        json.dumps({"tool": "closed", "arguments": {f"p{i}": i for i in range(1000)}}),
    ]
    text, report = _run_json(tmp_path, KEYED_CATALOG, lines, capsys, *extra)
    assert report["totals"]["newly_rejected"] == 3
    shown = "k" * 80 + "… (+99920 chars)"
    first, second, third = report["calls"]
    assert list(first["arguments"]) == [shown]
    assert first["errors"][0]["instance_pointer"] == "/" + shown
    assert list(second["arguments"]) == [shown]
    assert len(third["arguments"]) == 101 and third["arguments"]["…"] == "<900 more keys>"
    # The three 100 KB keys and the 1,000-key object are nowhere whole.
    assert LONG_KEY[:1000] not in text
    assert len(text) < 100_000


def _catalog_of(count: int) -> list[ToolSchema]:
    shapes: list[Any] = [
        {"type": "object", "properties": {"q": {"type": "string", "min_length": 1}}},
        {"type": "object", "properties": {"n": {"type": "Integer"}}},  # unusable before
        {"type": "object", "properties": {"p": {"pattern": "("}}},  # unusable either way
        {"type": "object", "properties": {"q": {"type": "string"}}},  # nothing to rewrite
    ]
    return [
        ToolSchema(
            f"t{i:04}",
            copy.deepcopy(shapes[i % 4]),
            Location("tools.json", i + 1, 1),
            "",
            "mapping",
        )
        for i in range(count)
    ]


@pytest.mark.parametrize("old_runtime", list(OldRuntime))
def test_only_called_tools_are_compiled_and_the_report_is_the_same(
    monkeypatch: pytest.MonkeyPatch, old_runtime: OldRuntime
) -> None:
    # 10^5 tools took 50 s and 765 MB to compile up front; now a tool compiles on its first
    # call, and a tool never called is summarized (rewrites, findings, problems) at the end.
    tools = _catalog_of(400)
    calls = [Call(f"log:{i}", name, {"q": ""}) for i, name in enumerate(["t0000", "t0001"] * 3)]
    built: list[str] = []
    real_init = ToolReplay.__init__

    def counting(self: ToolReplay, tool: ToolSchema, *args: Any, **kwargs: Any) -> None:
        built.append(tool.name)
        real_init(self, tool, *args, **kwargs)

    monkeypatch.setattr(ToolReplay, "__init__", counting)
    settings = ReportSettings(old_runtime=old_runtime)
    replays = prepare(tools, DEFAULT_RULES, old_runtime=old_runtime)
    tally = count_calls(replays, CallList(calls), settings)
    lazy = build_report(replays, tally, (), [], [], settings)
    # Only called tools are kept; the counterexample search compiles a bounded number of
    # the others for the moment it takes, in name order.
    assert sorted(replays._built) == ["t0000", "t0001"]
    assert built[:2] == ["t0000", "t0001"]
    assert len(built) <= 2 + MAX_UNCALLED_SEARCHED
    assert built[2:] == sorted(built[2:])

    eager = prepare(tools, DEFAULT_RULES, old_runtime=old_runtime)
    for name in eager:  # every tool compiled up front, as before
        eager[name]
    eager_tally = count_calls(eager, CallList(calls), settings)
    expected = render(build_report(eager, eager_tally, (), [], [], settings), Format.JSON)
    assert render(lazy, Format.JSON) == expected
    summaries = {tool.name: tool for tool in lazy.tools}
    assert summaries["t0006"].new_schema_problem is not None  # pattern "(": never called
    if old_runtime is OldRuntime.STANDARD:  # type: Integer fails the meta-schema
        assert summaries["t0005"].old_schema_problem is not None
        assert summaries["t0005"].old_schema_problem == summaries["t0001"].old_schema_problem
    if old_runtime is OldRuntime.LENIENT:  # ... and is read as enforcing nothing
        assert summaries["t0005"].lenient_readings
        assert summaries["t0005"].lenient_readings == summaries["t0001"].lenient_readings


def _case_schemas() -> list[Any]:
    found: list[Any] = []
    for folder in ("replay", "normalize", "lint"):
        for case in load_cases(folder):
            for key in ("schema", "input", "expected"):
                value = case.values[0].get(key)
                if isinstance(value, (dict, bool)):
                    found.append(pytest.param(value, id=f"{case.id}: {key}"))
    return found


def _passed_by_the_fast_check() -> list[Any]:
    return [p for p in _case_schemas() if meta_valid(draft_of(p.values[0]), p.values[0])]


def test_the_fast_meta_schema_check_is_compared_on_most_case_schemas() -> None:
    # The comparison below runs only on the schemas the fast check passes: most of them.
    assert len(_passed_by_the_fast_check()) >= 0.5 * len(_case_schemas())


@pytest.mark.parametrize("schema", _passed_by_the_fast_check())
def test_the_fast_meta_schema_check_never_passes_what_python_jsonschema_refuses(
    schema: Any,
) -> None:
    draft = draft_of(schema)
    cls = VALIDATORS[draft]
    meta = validators.validator_for(cls.META_SCHEMA, default=cls)(
        cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER
    )
    assert list(meta.iter_errors(schema)) == []


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "String"},
        {"pattern": "("},
        {"pattern": "\\p{L}"},  # a regex for the fast validator, not for Python
        {"patternProperties": {"(?<n>a)": {}}},
        {"minLength": -1},
        {"minItems": 1.5},
        {"$schema": "http://json-schema.org/draft-04/schema#", "minLength": 1.0},
    ],
)
def test_the_fast_meta_schema_check_leaves_refusals_to_python_jsonschema(schema: Any) -> None:
    assert not meta_valid(draft_of(schema), schema)
    assert schema_problem(schema) is not None


def test_a_schema_too_large_to_prepare_is_unusable_in_one_line() -> None:
    def properties(count: int) -> dict[str, Any]:
        return {f"p{i}": {"type": "string", "enum": ["a", "b"]} for i in range(count)}

    # 5 values per property (the object, "string", the list and its two items): 250,005 here.
    huge: JSON = {"type": "object", "properties": properties(50_000)}
    ordinary: JSON = {"type": "object", "properties": properties(100)}
    tools = [
        ToolSchema(name, schema, Location("tools.json"), "", "mapping")
        for name, schema in (("huge", huge), ("ordinary", ordinary))
    ]
    replays = prepare(tools, DEFAULT_RULES)
    result = evaluate_call(replays, Call("log:1", "huge", {"p1": "a"}))[0]
    assert result.outcome is Outcome.SCHEMA_ERROR_AFTER
    assert result.schema_problem == "holds more than 200,000 values (too large to prepare)"
    assert (
        evaluate_call(replays, Call("log:2", "ordinary", {"p1": "a"}))[0].outcome
        is Outcome.ACCEPTED
    )
    # 150,003 values: still prepared
    assert schema_problem({"type": "object", "properties": properties(30_000)}) is None


def test_describing_an_error_never_compiles_a_pattern_past_the_bound() -> None:
    # An extra property is named by matching patternProperties keys on the regex engine: a
    # key that expands past the bound matches nothing there instead of being compiled.
    schema = {"patternProperties": {REGEX_BOMB: {}}, "additionalProperties": False}
    error = ValidationError(
        "Additional properties are not allowed ('aaa' was unexpected)",
        validator="additionalProperties",
        validator_value=False,
        instance={"aaa": 1},
        schema=schema,
    )
    assert observe(error) == (Observation("extra property", "aaa"),)


def _audit_limited(folder: Path, catalog: Any, lines: list[Any], cpu_limit: int) -> dict[str, Any]:
    """The JSON report of ``auditor audit`` over ``catalog`` and ``lines`` (arguments of
    calls of the tool ``t``), run in a process of its own killed past ``cpu_limit`` CPU
    seconds or 4 GB of address space."""
    (folder / "tools.json").write_text(json.dumps(catalog))
    log = "".join(json.dumps({"tool": "t", "arguments": a}) + "\n" for a in lines)
    (folder / "calls.jsonl").write_text(log)

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit))
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    args = ["audit", "--schemas", "tools.json", "--logs", "calls.jsonl", "--no-report-files"]
    done = subprocess.run(
        [*AUDITOR, *args, "--fail-on", "never", "--format", "json", "--output", "report.json"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=limits,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    report: dict[str, Any] = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    return report


def test_a_pattern_example_that_backtracks_stays_within_the_call_budget(tmp_path: Path) -> None:
    # The counterexample search builds a key for this pattern ("a" forty times, then "b":
    # "$" is dropped as an anchor) and checks it: 2^40 ways to fail. Before, that check had
    # no timeout (101 CPU s at a lower bound of 30, doubling per unit: days at 40).
    catalog = {
        "t": {
            "type": "object",
            "properties": {"q": {"type": "string"}},
            "patternProperties": {"^(a|a){40}$b": {"type": "string", "min_length": 2}},
        }
    }
    started = cpu_seconds()
    report = _audit_limited(tmp_path, catalog, [{"q": "x"}], cpu_limit=120)
    assert cpu_seconds() - started < seconds(20)
    [found] = report["counterexamples"]
    assert found["status"] == "not_found"
    assert found["reason"].endswith(
        "; matching 1 pattern ran past the 2 s budget of a call (--call-timeout, CPU time): "
        "no name or value was built from it"
    )


def test_checking_a_loosening_patch_never_backtracks_in_python_re(tmp_path: Path) -> None:
    # The extra property is named by 40 "a" then "!": the regex engine answers at once that
    # "^(a+)+$" does not match it, so the call is newly rejected by additionalProperties and
    # the patch declares the name. Checking that patch ran python-jsonschema on Python's re,
    # which tried 2^40 ways on the same name; it runs on the budgeted engine now.
    name = "a" * 40 + "!"
    catalog = {
        "t": {
            "type": "object",
            "properties": {"q": {"type": "integer"}},
            "patternProperties": {"^(a+)+$": {}},
            "additional_properties": False,
        }
    }
    started = cpu_seconds()
    report = _audit_limited(tmp_path, catalog, [{"q": 1, name: 1}], cpu_limit=120)
    assert cpu_seconds() - started < seconds(20)
    [group] = report["groups"]
    assert group["keyword"] == "additionalProperties"
    assert group["patch"]["summary"] == f"add property {name} (integer)"


def test_an_extra_property_not_told_in_time_gives_no_patch_rather_than_a_wrong_one() -> None:
    # "zzz" is an extra property; whether the 30 "a" then "!" is one is decided by a pattern
    # that backtracks on it past PATTERN_TIMEOUT. It used to count as matched: the patch then
    # declared "zzz" alone, and the call still failed on the other name.
    schema: dict[str, Any] = {
        "type": "object",
        "patternProperties": {"^(a|a)*$": {}},
        "additionalProperties": False,
    }
    issue = ValidationIssue("", "additionalProperties", "/additionalProperties", "extra")
    witness = Witness()
    # Ten such names a call: their matches together stop at PATTERN_TIMEOUT (each had it).
    hostile: dict[str, JSON] = {"zzz": 1}
    hostile.update({"a" * 30 + "!" + "x" * i: i for i in range(10)})
    started = cpu_seconds()
    for _ in range(5):
        witness.add(issue, hostile, schema)
    assert cpu_seconds() - started < seconds(5 * PATTERN_TIMEOUT + 1)
    patch = suggest("additionalProperties", "/additionalProperties", schema, witness)
    assert patch.operations == ()
    assert patch.problem == (
        "a logged property name could not be matched against patternProperties within 0.1 s "
        "of CPU time: whether it is an extra property is not known, no patch proposed"
    )
    # The same names where the pattern answers at once: "zzz" is declared, the other matches.
    quick = Witness()
    schema["patternProperties"] = {"^a+!$": {}}
    quick.add(issue, {"zzz": 1, "a" * 30 + "!": 1}, schema)
    found = suggest("additionalProperties", "/additionalProperties", schema, quick)
    assert found.summary == "add property zzz (integer)"
    # A pattern that cannot be compiled names no extra property (the validators cannot use
    # it either: its calls are schema errors), and leaves nothing undecided.
    refused = Witness()
    bomb: dict[str, Any] = {"patternProperties": {REGEX_BOMB: {}}, "additionalProperties": False}
    refused.add(issue, {"aaa": 1, "b": 2}, {**bomb, "properties": {"b": {}}})
    assert refused.extras == {} and not refused.undecided


def test_a_patch_check_past_the_searches_ceiling_is_not_made() -> None:
    schema: JSON = {"type": "object", "maxLength": 3}
    witness = Witness(longest=5, shortest=5)
    spent = SearchCeiling(2.0, seconds=0.0)
    patch = suggest("maxLength", "/maxLength", schema, witness, ceiling=spent)
    assert patch.problem == (
        "not checked: the audit's searches had spent the 0 s of CPU time the searches of an "
        "audit may take"
    )
    assert suggest("maxLength", "/maxLength", schema, witness).summary == "raise maxLength 3 → 5"


def test_a_patch_check_that_runs_past_its_step_gives_no_patch() -> None:
    # The patch declares the extra name; checking it matches the pattern against that name,
    # which backtracks (30 "a", then "!") past the step's 0.1 s.
    name = "a" * 30 + "!"
    schema: JSON = {"patternProperties": {"^(a|a)*$": {}}, "additionalProperties": False}
    witness = Witness(extras={name: {"integer"}})
    started = cpu_seconds()
    patch = suggest(
        "additionalProperties", "/additionalProperties", schema, witness, ceiling=SearchCeiling(0.1)
    )
    assert cpu_seconds() - started < seconds(1)
    assert patch.problem == (
        "the patch could not be checked: pattern '^(a|a)*$' did not finish within the 0.1 s "
        "budget of a call (--call-timeout, CPU time)"
    )


def test_a_refused_pattern_is_measured_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A megabyte of literals expands past the bound: refused. Measuring it parses it (0.35
    # CPU s), and every call that reached it measured it again, outside the call's budget.
    measured: list[str] = []

    def counting(pattern: str) -> int:
        measured.append(pattern)
        return pattern_expansion(pattern)

    monkeypatch.setattr(budget, "pattern_expansion", counting)
    long = "q" * (MAX_PATTERN_EXPANSION + 17)
    for _ in range(3):
        with pytest.raises(UnusablePattern, match="expand to more than 100,000 elements"):
            compiled_pattern(long)
    assert measured == [long]
    ordinary = "^c[0-9]{2}$"
    assert compiled_pattern(ordinary) is compiled_pattern(ordinary)
    assert compiled_pattern(ordinary).search("c42")
