"""Groups, fingerprints, decision hints, coverage and redaction, through the pipeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.aggregate.pipeline import ReportSettings
from auditor.models import HintKind, Outcome
from auditor.report import Format, render
from auditor.report.prose import markdown
from tests.reporting import make_report

CATALOG = """\
search:
  type: object
  properties:
    tags: {type: array, min_items: 1}
    query: {type: string, max_length: 5}
    kind: {type: string, enum_values: [a], any_of: [{enum: [a, b]}]}
    unused: {type: object, min_properties: 1}
  additional_properties: false
"""


def test_one_group_per_constraint_with_a_stable_fingerprint(tmp_path: Path) -> None:
    report = make_report(
        tmp_path,
        CATALOG,
        [
            ("search", {"tags": []}),
            ("search", {"tags": [], "query": "toolong"}),
            ("search", {"tags": ["x"], "extra": 1, "other": 2}),
        ],
    )
    by_keyword = {g.keyword: g for g in report.groups}
    assert sorted(by_keyword) == ["additionalProperties", "maxLength", "minItems"]
    min_items = by_keyword["minItems"]
    assert (min_items.count, min_items.tool_calls) == (2, 3)
    assert [c.pointer for c in min_items.causes] == ["/properties/tags/min_items"]
    assert min_items.schema_pointer == "/properties/tags/minItems"
    assert (min_items.first, min_items.last) == (
        f"{tmp_path}/calls.jsonl:1",
        f"{tmp_path}/calls.jsonl:2",
    )
    # The same constraint failed by other values and other calls keeps its fingerprint.
    other = make_report(tmp_path, CATALOG, [("search", {"tags": [], "query": "a"})])
    assert other.groups[0].fingerprint == min_items.fingerprint
    assert report.groups[0].keyword == "minItems"  # largest first


def test_examples_are_bounded(tmp_path: Path) -> None:
    calls: list[tuple[str, Any]] = [("search", {"tags": []})] * 10
    report = make_report(tmp_path, CATALOG, calls, ReportSettings(examples=2))
    assert report.groups[0].count == 10
    assert len(report.groups[0].examples) == 2


def test_hint_loosen_when_every_call_breaks_the_constraint(tmp_path: Path) -> None:
    report = make_report(tmp_path, CATALOG, [("search", {"tags": []})] * 42)
    hint = report.groups[0].hint
    assert hint.kind is HintKind.LOOSEN_SCHEMA
    assert markdown(hint.text).startswith(
        "42 of 42 calls of `search` fail `minItems`; all sent an empty"
    )
    assert "contradicts real use" in markdown(hint.text)


def test_hint_fix_callers_when_few_calls_break_it(tmp_path: Path) -> None:
    calls: list[tuple[str, Any]] = [("search", {"tags": []})] * 3
    calls += [("search", {"tags": ["x"]})] * 977
    report = make_report(tmp_path, CATALOG, calls)
    hint = report.groups[0].hint
    assert hint.kind is HintKind.FIX_CALLERS
    assert markdown(hint.text).startswith("3 of 980 calls")
    assert "likely caller bugs" in markdown(hint.text)


def test_hint_between_the_thresholds_and_on_too_few_calls(tmp_path: Path) -> None:
    calls: list[tuple[str, Any]] = [("search", {"tags": ["x"], "query": "toolong"})] * 3
    calls += [("search", {"tags": ["x"]})] * 7
    assert make_report(tmp_path, CATALOG, calls).groups[0].hint.kind is HintKind.REVIEW
    few = make_report(tmp_path, CATALOG, [("search", {"tags": ["x"], "query": "toolong"})] * 2)
    assert few.groups[0].hint.kind is HintKind.REVIEW
    assert "too few calls" in markdown(few.groups[0].hint.text)
    # Every call empty: no other call shows what the constraint asks for.
    empty = make_report(tmp_path, CATALOG, [("search", {"tags": []})] * 2)
    assert empty.groups[0].hint.kind is HintKind.REVIEW


@pytest.mark.parametrize(
    ("empty", "full", "kind"),
    [
        (1, 2, HintKind.FIX_CALLERS),  # 1 of 3: a handful, and most calls meet minItems
        (1, 1, HintKind.REVIEW),  # 1 of 2: half is not "most"; too few calls to tell
        (4, 5, HintKind.FIX_CALLERS),  # 4 of 9, under half
        (5, 5, HintKind.LOOSEN_SCHEMA),  # 5 of 10: half of the calls, the share rule
    ],
)
def test_an_empty_value_reads_fix_callers_while_most_calls_meet_the_constraint(
    tmp_path: Path, empty: int, full: int, kind: HintKind
) -> None:
    calls: list[tuple[str, Any]] = [("search", {"tags": []})] * empty
    calls += [("search", {"tags": ["x"]})] * full
    (group,) = make_report(tmp_path, CATALOG, calls).groups
    assert group.hint.kind is kind
    verb = "fails" if empty == 1 else "fail"
    assert markdown(group.hint.text).startswith(
        f"{empty} of {empty + full} calls of `search` {verb}"
    )


def test_a_long_value_is_no_empty_value(tmp_path: Path) -> None:
    calls: list[tuple[str, Any]] = [("search", {"tags": ["x"], "query": "toolong"})]
    calls += [("search", {"tags": ["x"]})] * 2
    (group,) = make_report(tmp_path, CATALOG, calls).groups
    assert group.hint.kind is HintKind.REVIEW and "too few calls" in markdown(group.hint.text)
    assert "; it sent a string:" in markdown(group.hint.text)


def test_hint_names_extra_properties(tmp_path: Path) -> None:
    report = make_report(tmp_path, CATALOG, [("search", {"tags": ["x"], "currency": "EUR"})] * 6)
    assert "extra property `currency`" in markdown(report.groups[0].hint.text)


def test_coverage_counts_calls_reaching_each_rewrite(tmp_path: Path) -> None:
    report = make_report(
        tmp_path, CATALOG, [("search", {"tags": ["x"]}), ("search", {"query": "a"})]
    )
    (tool,) = report.tools
    reached = {r.pointer: n for r, n in zip(tool.rewrites, tool.reached, strict=True)}
    assert reached["/properties/tags/min_items"] == 1
    assert reached["/properties/query/max_length"] == 1
    assert reached["/additional_properties"] == 2
    assert reached["/properties/unused/min_properties"] == 0
    assert reached["/properties/kind/any_of"] == 0
    assert report.unexercised_count == 2
    assert (
        "3 of 5 rewrites were reached by a logged call; 2 were not reached by any, so the log "
        "says nothing about what they will reject."
    ) in render(report, Format.MARKDOWN)


SECRET = "sk-live-0123456789abcdef"


def test_redact_leaves_no_logged_value_in_any_format(tmp_path: Path) -> None:
    calls = [
        ("search", {"tags": [], "query": SECRET}),
        ("search", {"tags": [SECRET], "token": SECRET}),
        ("search", {"kind": SECRET}),
        ("nope", {"x": SECRET}),
    ]
    report = make_report(tmp_path, CATALOG, calls, ReportSettings(redact=True))
    for fmt in Format:
        text = render(report, fmt)
        assert SECRET not in text, fmt
        assert "sk-live" not in text, fmt
    data = json.loads(render(report, Format.JSON))
    assert data["redacted"] is True
    first = data["calls"][0]
    assert first["arguments"] == {"tags": [], "query": "<string, 24 chars>"}
    assert any("token" in json.dumps(g["examples"]) for g in data["groups"])  # keys are kept


def test_long_values_are_truncated_to_80_characters_by_default(tmp_path: Path) -> None:
    long = "x" * 500
    report = make_report(tmp_path, CATALOG, [("search", {"tags": [], "query": long})])
    for fmt in Format:
        assert "x" * 81 not in render(report, fmt), fmt
    (result,) = [r for r in report.calls if r.outcome is Outcome.NEWLY_REJECTED]
    arguments = result.call.arguments
    assert isinstance(arguments, dict) and arguments["query"] == "x" * 80 + "… (+420 chars)"


def test_max_calls_bounds_the_call_list_and_says_so(tmp_path: Path) -> None:
    report = make_report(
        tmp_path, CATALOG, [("search", {"tags": []})] * 5, ReportSettings(max_calls=2)
    )
    assert len(report.calls) == 2 and report.calls_omitted == 3
    assert report.groups[0].count == 5
    assert json.loads(render(report, Format.JSON))["calls_omitted"] == 3
