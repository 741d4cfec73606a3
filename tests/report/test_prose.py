"""Hints, evidence lines, the roll-up's lines, a group's heading, callers and values sent, the
verdict, the old runtime's notes and the gate, baseline and budget lines are ``Prose``:
wording and data pieces that each renderer writes for its format (``auditor.report.prose``),
never Markdown parsed back.

The HTML and plain forms must be what the renderers showed when they parsed the Markdown
back (``tests.markdown_reader``, the reader they used): the reports stay the same for any
data, not only for the samples the goldens hold.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.aggregate.evidence import LISTED, evidence_line
from auditor.aggregate.hints import contradiction_hint, hint, observation_key, removed_tool_hint
from auditor.json_text import json_text
from auditor.models import (
    JSON,
    BaselineUse,
    Change,
    DecisionHint,
    Edit,
    Group,
    HintKind,
    LenientReading,
    Location,
    Observation,
    OffendingValue,
    Outcome,
    Prose,
    RollUp,
    RollUpEntry,
    RollUpKind,
    Rule,
    SchemaPatch,
    Span,
    SpanKind,
)
from auditor.report import Format, prose, render
from auditor.report.common import (
    CONTRADICTED_INTRO,
    baseline_line,
    budget_line,
    caller_suffix,
    callers_text,
    gate_line,
    group_heading,
    offending_text,
    rollup_lines,
    runtime_lines,
    verdict,
)
from auditor.report.escape import md_quoted, visible
from auditor.report.sarif import loosening_fixes
from auditor.schema.diffs import LineChange
from tests.markdown_reader import html_from_markdown, plain
from tests.reporting import make_report

HOSTILE = ["`", "``", " ", "|", "\\", "**", "*", "_", "@a", "#1", "&amp;", "&#8203;", "<b>"]
HOSTILE += ["deadbeef1", "www.x.io", "http://x", "\x1b[31m", "\u202e", "\n", "\udce9", "$ref"]
DATA = (
    st.text(st.characters(codec="utf-8"), max_size=20)
    | st.text(st.characters(categories=["Cs"]), max_size=2)
    | st.lists(st.sampled_from([*HOSTILE, "a", "b"]), max_size=5).map("".join)
)
VALUES: st.SearchStrategy[JSON] = st.one_of(
    st.none(), st.booleans(), st.integers(-1000, 1000), DATA, st.lists(DATA, max_size=2)
)


def _as_before(text: Prose) -> tuple[str, str]:
    """What the renderers showed when the hint was Markdown: HTML and plain text of it."""
    markdown = prose.markdown(text)
    return html_from_markdown(markdown), plain(markdown)


def _observed(draw: st.DrawFn) -> Counter[str]:
    kinds = st.sampled_from([*LISTED.values(), "a string", "an empty list"])
    entries = draw(st.lists(st.tuples(kinds, VALUES, st.booleans()), max_size=7))
    counts = draw(st.lists(st.integers(1, 3), min_size=len(entries), max_size=len(entries)))
    return Counter(
        {observation_key(Observation(*e)): n for e, n in zip(entries, counts, strict=True)}
    )


@st.composite
def hints_and_lines(draw: st.DrawFn) -> Prose:
    tool, pointer, problem = draw(DATA), draw(DATA), draw(DATA)
    keyword = draw(st.sampled_from(["minItems", "enum", "additionalProperties", "anyOf"]))
    count = draw(st.integers(1, 20))
    tool_calls = count + draw(st.integers(0, 40))
    observed = _observed(draw)
    made = [
        hint(Outcome.NEWLY_REJECTED, tool, keyword, pointer, count, tool_calls, observed, ""),
        hint(Outcome.SCHEMA_ERROR_AFTER, tool, "", "", count, tool_calls, Counter(), problem),
        hint(Outcome.SCHEMA_ERROR_BEFORE, tool, "", "", count, tool_calls, Counter(), problem),
        contradiction_hint(tool, keyword, pointer, count),
        removed_tool_hint(tool, count),
    ]
    lines = [evidence_line(keyword, draw(VALUES), draw(st.booleans()), None, observed)]
    return draw(st.sampled_from([h.text for h in made] + lines))


@settings(max_examples=300)
@given(hints_and_lines())
def test_html_and_plain_text_are_what_parsing_the_markdown_back_gave(text: Prose) -> None:
    assert (prose.html(text), prose.plain(text)) == _as_before(text)


def test_each_piece_is_escaped_for_its_format() -> None:
    text = Prose.of("1 of 2 calls of ", Span.code("<x>|`y`"), " fail (", Span.data("a*b @c"), ")")
    assert prose.markdown(text) == "1 of 2 calls of `` <x>|`y` `` fail (a\\*b @&#8203;c)"
    assert prose.html(text) == "1 of 2 calls of <code>&lt;x&gt;|`y`</code> fail (a*b @c)"
    assert prose.plain(text) == "1 of 2 calls of <x>|`y` fail (a*b @c)"


def test_plain_text_shows_control_characters_as_escapes_and_empty_code_as_a_space() -> None:
    text = Prose.of("tool ", Span.code("a\x1b[2Jb"), ", pointer ", Span.code(""))
    assert prose.plain(text) == "tool a\\x1b[2Jb, pointer  "
    assert prose.markdown(text) == "tool `a\\x1b[2Jb`, pointer ` `"


def test_wording_pieces_join_and_data_pieces_stay_apart() -> None:
    text = Prose.of("a", "", "b", Span.code("x"), Span.code("y"), Prose.of(" c", Span.data("d")))
    assert text.spans == (
        Span(SpanKind.WORDS, "ab"),
        Span(SpanKind.CODE, "x"),
        Span(SpanKind.CODE, "y"),
        Span(SpanKind.WORDS, " c"),
        Span(SpanKind.TEXT, "d"),
    )
    assert not Prose.of("", Prose()) and Prose.of("a") + Prose.of("b") == Prose.of("ab")


def test_the_hint_names_its_data_as_code_and_its_problem_as_text() -> None:
    made = hint(Outcome.SCHEMA_ERROR_AFTER, "t", "", "", 2, 2, Counter(), "bad `$ref`")
    assert Span(SpanKind.TEXT, "bad `$ref`") in made.text.spans
    removed = removed_tool_hint("old_tool", 3)
    assert removed.text.spans[0] == Span(SpanKind.CODE, "old_tool")
    assert prose.plain(removed.text).startswith("old_tool is not in the new catalogs, and the")


def test_values_sent_as_often_are_listed_in_the_order_the_reports_always_gave() -> None:
    # Ties were ordered by the line's Markdown, where a code span's closing backtick (0x60)
    # sorts after "_" (0x5f) and after digits: `currency_code` before `currency`, 12 before 1.
    extra = [Observation("extra property", name) for name in ("currency", "currency_code")]
    names = Counter({observation_key(observation): 1 for observation in extra})
    line = evidence_line("additionalProperties", False, True, None, names)
    assert prose.plain(line) == (
        "additionalProperties false; extra properties: currency_code (1 call), currency (1 call)"
    )
    outside = [Observation("a value outside the enum", value, True) for value in (1, 12)]
    values = Counter({observation_key(observation): 2 for observation in outside})
    line = evidence_line("enum", [3], True, None, values)
    assert prose.markdown(line) == "enum `[3]`; sent outside it: `12` (2 calls), `1` (2 calls)"


def test_json_text_writes_every_surrogate_as_visible_does() -> None:
    # The JSON writers and the human-readable formats show a byte that was not UTF-8 alike.
    for code in range(0xD800, 0xE000):
        char = chr(code)
        assert json_text(json.dumps("a", ensure_ascii=False) + char) == '"a"' + visible(
            char
        ).replace("\\", "\\\\")


@st.composite
def rollups(draw: st.DrawFn) -> RollUp:
    names = st.lists(DATA, max_size=7)
    callers = st.lists(st.tuples(DATA, st.integers(1, 5)), max_size=6)
    entries = tuple(
        RollUpEntry(
            kind,
            fingerprints=tuple(f"g{i}" for i in range(draw(st.integers(1, 3)))),
            calls=draw(st.integers(1, 9)),
            outcomes=((draw(st.sampled_from(list(Outcome))), 1),),
            tools=tuple(draw(names)),
            callers=tuple(draw(callers)),
            more_callers=draw(st.booleans()),
            patches=(patches := draw(st.integers(0, 2))),
            unwritable_patches=draw(st.integers(0, 1)),
            patch_command=draw(DATA) if patches else None,
            errors=tuple(draw(st.lists(st.tuples(DATA, DATA), max_size=5))),
        )
        for kind in RollUpKind
    )
    return RollUp(entries)


@settings(max_examples=150)
@given(rollups())
def test_the_roll_up_lines_render_as_parsing_their_markdown_back_did(rollup: RollUp) -> None:
    for line in rollup_lines(rollup):
        assert (line.html(), line.plain()) == (
            html_from_markdown(line.markdown()),
            plain(line.markdown()),
        )


@st.composite
def groups(draw: st.DrawFn) -> Group:
    removed = Change("", "t", "", Rule.EDIT, "", edit=Edit.REMOVE)
    offending = st.tuples(VALUES, st.integers(1, 4), DATA, DATA).map(lambda v: OffendingValue(*v))
    return Group(
        fingerprint="f",
        outcome=draw(st.sampled_from(list(Outcome))),
        tool=draw(DATA),
        causes=draw(st.sampled_from([(), (removed,)])),
        keyword=draw(st.sampled_from(["", "minItems", "$ref"])),
        schema_pointer=draw(DATA),
        count=draw(st.integers(1, 3)),
        tool_calls=3,
        first="a:1",
        last="a:2",
        error="",
        examples=(),
        hint=DecisionHint(HintKind.REVIEW, Prose()),
        callers=tuple(draw(st.lists(st.tuples(DATA, st.integers(1, 3)), max_size=3))),
        more_callers=draw(st.integers(0, 2)),
        caller=draw(st.none() | DATA),
        offending=tuple(draw(st.lists(offending, max_size=3))),
        contradicted=draw(st.booleans()),
    )


@settings(max_examples=150)
@given(groups())
def test_a_groups_heading_callers_and_values_render_as_parsing_their_markdown_did(
    group: Group,
) -> None:
    shown = [group_heading(group), callers_text(group), offending_text(group)]
    for text in [caller_suffix(group), *(t for t in shown if t is not None)]:
        assert (prose.html(text), prose.plain(text)) == _as_before(text)


@pytest.mark.parametrize("name", ["a`b", "**x**", "x\\*y", "@team &amp; #12", "t\x1b[2J", "<b>"])
def test_the_verdict_gate_baseline_and_budget_lines_render_as_parsing_their_markdown_did(
    tmp_path: Path, name: str
) -> None:
    catalog = json.dumps({name: {"type": "object", "properties": {"q": {"max_length": 1}}}})
    report = make_report(tmp_path, catalog, [(name, {"q": "long"})] * 6)
    read = LenientReading(name, name, "x")
    tool = replace(report.tools[0], lenient_readings=(read, read), contradictions=1)
    report = replace(
        report,
        baseline=BaselineUse(name, 1, 6, (name, "f")),
        calls_over_budget=2,
        tools=(tool,),
        new_schema_inputs=(name, "b"),
        added_tools=(name,),
    )
    lines = [verdict(report), gate_line(report), baseline_line(report), budget_line(report)]
    assert all(lines) and visible(name) in prose.plain(verdict(report))
    said = [*runtime_lines(report), *runtime_lines(replace(report, against=name))]
    # The old runtime, the change, the tools added, the lenient reading, the contradiction.
    assert len(said) == 2 * 5
    for text in [*(line for line in lines if line is not None), CONTRADICTED_INTRO, *said]:
        assert (prose.html(text), prose.plain(text)) == _as_before(text)


def test_strong_wording_is_bold_in_markdown_and_html_and_plain_in_a_terminal() -> None:
    text = Prose.of(Span.strong("3 calls"), Span.strong(" fail"), ": ", Span.code("t"))
    assert text.spans[0] == Span(SpanKind.STRONG, "3 calls fail")
    assert prose.markdown(text) == "**3 calls fail**: `t`"
    assert prose.html(text) == "<strong>3 calls fail</strong>: <code>t</code>"
    assert prose.plain(text) == "3 calls fail: t"


@given(DATA)
def test_a_quoting_message_is_code_where_it_quotes_and_text_elsewhere(message: str) -> None:
    text = prose.quoted(message)
    assert prose.markdown(text) == md_quoted(message)
    assert (prose.html(text), prose.plain(text)) == _as_before(text)


def test_html_and_sarif_show_plain_text_data_as_written_not_read_as_markdown(
    tmp_path: Path,
) -> None:
    # An old schema's problem and a patch's summary are plain text: a backslash, backticks and
    # asterisks in them are data, shown as they are (reading them as Markdown lost them).
    catalog = json.dumps({"t": {"type": "object", "properties": {"q": {"max_length": 1}}}})
    report = make_report(tmp_path, catalog, [("t", {"q": "long"})] * 6)
    problem = r"bad pattern `\*x` in **y**"
    tool = replace(
        report.tools[0],
        counts={**report.tools[0].counts, Outcome.SCHEMA_ERROR_BEFORE: 1},
        old_schema_problem=problem,
    )
    summary = r"drop `a\_b` from required"
    (group,) = report.groups
    group = replace(group, patch=SchemaPatch(summary, location=Location("tools.yaml", 1, 1)))
    report = replace(report, tools=(tool,), groups=(group,))
    page = render(report, Format.HTML)
    assert f"the schema as written {problem}</li>" in page
    change = LineChange("tools.yaml", 1, 1, 1, "{}")
    fixes = loosening_fixes(report, {group.fingerprint: change})
    assert fixes[group.fingerprint]["description"] == {"text": summary}
