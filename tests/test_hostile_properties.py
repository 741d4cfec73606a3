"""Property-based tests and bounded fuzzing for hostile input (issue 7).

- Invariant: for any log mixing valid, malformed and hostile lines, every line is a call,
  blank, or an unparseable call with its line; the outcome totals add up to the calls read.
- Fuzz: the catalog reader, the log reader and the normalizer (with replay behind it) raise
  nothing but their documented problem values, whatever bytes or values they are given.

Each test is bounded (examples and a per-example deadline) so the whole file runs in CI in
about half a minute.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from auditor.api import replay
from auditor.inputs.catalogs import read_catalog
from auditor.inputs.log_files import LogFormatError
from auditor.inputs.log_formats import LogFormat
from auditor.inputs.reader import LogReader
from auditor.models import Call, CallResult, Location, OldRuntime, Outcome, ToolSchema
from auditor.replay.budget import CallBudget
from auditor.replay.tool import ToolReplay
from auditor.schema.normalize import normalize
from tests.conftest import seconds

BOUNDED = settings(
    max_examples=400,
    deadline=seconds(5) * 1000,  # milliseconds
    suppress_health_check=[HealthCheck.too_slow],
)
TOOLS = [
    ToolSchema(
        "search",
        {"type": "object", "properties": {"q": {"type": "string", "max_length": 3}}},
        Location("tools.json"),
        "/search",
        "mapping",
    )
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)
valid_lines = st.builds(
    lambda tool, args: json.dumps({"tool": tool, "arguments": args}).encode(),
    st.sampled_from(["search", "other", ""]),
    json_values,
)
hostile_lines = st.sampled_from(
    [
        b'{"tool": "search", "arguments": {"q": "hel',  # truncated
        b'{"tool": "search", "arguments": {"q": "\xff"}}',  # not UTF-8
        b'{"tool": "search",\x00 "arguments": {}}',  # NUL
        b'{"tool": "search", "arguments": NaN}',
        b'{"tool": "search", "arguments": "{\\"q\\": Infinity}"}',
        b'{"tool": "search", "tool": "other", "arguments": {}}',  # duplicate keys
        b'{"tool": "search", "arguments": {"q": "\\ud800"}}',  # lone surrogate
        b'{"tool": "search", "arguments": ' + b"[" * 5_000 + b"]" * 5_000 + b"}",
        b'{"tool": "search", "arguments": ' + b"[" * 101 + b"]" * 101 + b"}",
        b'{"tool": "search", "arguments": "' + b"x" * 300 + b'"}',  # over the test's limit
        b"[1, 2",
        b"null",
        b'"just a string"',
        b"\x89PNG\r\n\x1a",
        b"   ",
        b"",
    ]
)
lines = st.lists(st.one_of(valid_lines, hostile_lines, st.binary(max_size=40)), max_size=25)
endings = st.sampled_from([b"\n", b"\r\n"])


@BOUNDED
@given(lines=lines, ending=endings, bom=st.booleans())
def test_every_line_is_a_call_blank_or_unparseable(
    lines: list[bytes], ending: bytes, bom: bool
) -> None:
    # A lone "{" or "[" line switches to whole-document reading, another invariant's business.
    lines = [line for line in lines if line.strip() not in (b"{", b"[")]
    data = (b"\xef\xbb\xbf" if bom else b"") + b"".join(
        line.replace(b"\n", b" ") + ending for line in lines
    )
    assume(not data.startswith(b"\x1f\x8b"))  # read as gzip: lines are the unzipped ones
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "calls.jsonl"
        path.write_bytes(data)
        reader = LogReader([str(path)], LogFormat.JSONL, max_record_bytes=200)
        calls = list(reader)
        (stats,) = reader.stats()
        report = replay(
            TOOLS, LogReader([str(path)], LogFormat.JSONL, max_record_bytes=200), None, ["t"]
        )
    numbers = [int(call.source.split(":")[1]) for call in calls]
    physical = data.split(b"\n")
    if physical and physical[-1] == b"":
        physical.pop()
    bom_less = [physical[0].removeprefix(b"\xef\xbb\xbf"), *physical[1:]] if physical else []
    blank = [i for i, line in enumerate(bom_less, start=1) if not line.strip()]
    assert stats.lines == len(physical)
    assert stats.blank == len(blank)
    # In JSON Lines every non-blank line is exactly one call (unparseable when it must be).
    assert sorted(numbers) == [i for i in range(1, len(physical) + 1) if i not in blank]
    assert stats.calls == len(calls) == report.call_count
    assert sum(report.totals.values()) == len(calls)
    # An unknown tool is checked first (docs/architecture.md): its broken arguments count as
    # unknown_tool.
    unusable = [c for c in calls if c.tool is None or (c.unparsed and c.tool == "search")]
    assert report.totals[Outcome.UNPARSEABLE] == len(unusable)
    assert all(call.unparsed is None or call.unparsed.reason for call in calls)


@BOUNDED
@given(data=st.binary(max_size=300) | lines.map(lambda ls: b"\n".join(ls)))
def test_log_reader_raises_only_its_format_problem(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "calls.jsonl"
        path.write_bytes(data)
        reader = LogReader([str(path)], max_record_bytes=200)
        try:
            calls = list(reader)
        except LogFormatError as refusal:
            # The one documented refusal: a file in no known format (exit 2). It names the
            # file, and never a log with no record in it (an empty log is JSON Lines).
            assert refusal.problem.location.path == str(path)
            assert data.strip()
            return
        assert reader.stats()[0].calls == len(calls)


catalog_texts = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    st.builds(
        lambda tools: json.dumps(tools).encode(),
        st.dictionaries(st.text(min_size=1, max_size=5), json_values, max_size=3),
    ),
    st.sampled_from(
        [
            b"a: &a [1]\nb: *a\n",
            b"a: &a [*a]\n",
            b"s: !!python/name:os.system\n",
            b"x: !!binary aGVsbG8=\n",
            b"x: !!set {a, b}\n",
            b"x: 2001-12-14\n",
            b"{" * 2_000 + b"}" * 2_000,
        ]
    ),
)


@BOUNDED
@given(data=catalog_texts, suffix=st.sampled_from([".json", ".yaml"]))
def test_catalog_reader_returns_tools_or_a_problem(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"tools{suffix}"
        path.write_bytes(data)
        tools, problem = read_catalog(str(path))
    assert (problem is None) or not tools
    for tool in tools:
        _replay_all(tool)


schema_keys = st.sampled_from(
    ["type", "properties", "items", "any_of", "anyOf", "$ref", "pattern", "min_items",
     "additional_properties", "unique_items", "enum", "const", "$defs", "$schema", "not",
     "pattern_properties", "prefix_items", "required", "unevaluatedProperties", "x"]
)  # fmt: skip
schemas = st.recursive(
    st.booleans() | st.sampled_from(["String", "string", "#", "#/$defs/a", "^(a|a)*$", "(", 3]),
    lambda inner: (
        st.dictionaries(schema_keys | st.text(max_size=3), inner, max_size=4)
        | st.lists(inner, max_size=3)
    ),
    max_leaves=15,
)


@BOUNDED
@given(schema=schemas, arguments=json_values)
def test_normalizer_and_replay_never_raise(schema: Any, arguments: Any) -> None:
    tool = ToolSchema("t", schema, Location("t.json"), "/t", "mapping")
    normalize(schema)
    _replay_all(tool, arguments)


def _replay_all(tool: ToolSchema, arguments: Any = None) -> None:
    tried: tuple[Any, ...] = ({}, arguments, "aaaaaaaaaaaaaaaaaaaaaaaa!")
    outcomes: dict[OldRuntime, list[Outcome]] = {}
    for runtime in OldRuntime:
        replay = ToolReplay(
            tool, normalize(tool.schema), budget=CallBudget(0.2), old_runtime=runtime
        )
        outcomes[runtime] = []
        for args in tried:
            result = replay.replay(Call("calls.jsonl:1", tool.name, args))
            _assert_consistent(result, runtime)
            outcomes[runtime].append(result.outcome)
            replay.reached_rewrites(Call("calls.jsonl:1", tool.name, args))
    # The new side does not depend on the old runtime: where the new schema cannot be used,
    # every runtime says so, and lenient and none agree on whether the new schema accepts.
    after = {r: [o is Outcome.SCHEMA_ERROR_AFTER for o in outcomes[r]] for r in OldRuntime}
    assert after[OldRuntime.LENIENT] == after[OldRuntime.STANDARD] == after[OldRuntime.NONE]
    new_accepts = {
        r: [o in (Outcome.ACCEPTED, Outcome.NEWLY_ACCEPTED) for o in outcomes[r]]
        for r in (OldRuntime.LENIENT, OldRuntime.NONE)
    }
    assert new_accepts[OldRuntime.LENIENT] == new_accepts[OldRuntime.NONE]


SCHEMA_ERRORS = {Outcome.SCHEMA_ERROR_AFTER, Outcome.SCHEMA_ERROR_BEFORE}
REJECTED = {Outcome.NEWLY_REJECTED, Outcome.STILL_REJECTED}


def _assert_consistent(result: CallResult, runtime: OldRuntime) -> None:
    """The outcome invariants of docs/architecture.md for a parsed call of a known tool."""
    outcome = result.outcome
    # A parsed call of a known tool is never unknown_tool nor unparseable.
    assert outcome not in (Outcome.UNKNOWN_TOOL, Outcome.UNPARSEABLE), result
    # Only an old runtime that checks schemas (standard, the SDK models) can find the old
    # schema unusable.
    if not runtime.checks_schema:
        assert outcome is not Outcome.SCHEMA_ERROR_BEFORE, result
    # With no old runtime every call passed before: nothing was rejected or accepted anew.
    if runtime is OldRuntime.NONE:
        assert outcome not in (Outcome.STILL_REJECTED, Outcome.NEWLY_ACCEPTED), result
    # A schema problem is given exactly for the schema-error outcomes.
    assert (result.schema_problem is not None) == (outcome in SCHEMA_ERRORS), result
    # The new schema's errors are listed when it rejects, and only then.
    if outcome in REJECTED:
        assert result.errors, result
    elif outcome is not Outcome.SCHEMA_ERROR_BEFORE:
        assert not result.errors, result
