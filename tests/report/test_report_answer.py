"""Every report answers first (issue 24, items 4 to 6): the verdict, then what to do (the
roll-up, whose counts add up to the report's groups), then the first groups; the old runtime's
notes and the gate at the end; the title and the columns name the change audited; sentences
count in the singular for one and with thousands separators; the coverage lines agree.

Expected counts are read from the report's groups (never from the roll-up under test) or
reasoned from the small catalogs written here."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from auditor.models import Report
from auditor.report import Format, render
from auditor.report.common import (
    constraint_line,
    counterexample_line,
    coverage_line,
    verdict,
)
from auditor.report.prose import markdown
from tests.conftest import ROOT, run_cli
from tests.markdown_reader import html_from_markdown, plain
from tests.reporting import make_report
from tests.samples import Scenario, run, scenarios

LABELS = (
    "Fix the callers",
    "Loosen the schema",
    "Review by hand",
    "Tools removed",
    "Fix the schema",
    "Contradicted by the log",
)
"""The roll-up's entries, in their order (README: what to do)."""
_COUNTED = re.compile(
    r"^(?P<label>[A-Z][a-z ]+): (?P<groups>[\d,]+) groups? \((?P<calls>[\d,]+) calls?\)"
)
SAMPLES = scenarios()
IDS = [s.name for s in SAMPLES]


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _add_up(lines: list[str], report: Report) -> None:
    """Each line of what to do (plain text) starts with its entry's label and its groups and
    calls; the labels come in the roll-up's order, and the groups add up to the report's."""
    found = [_COUNTED.match(line) for line in lines]
    assert all(found), lines
    labels = [m["label"] for m in found if m]
    assert labels == [label for label in LABELS if label in labels], labels
    assert sum(_number(m["groups"]) for m in found if m) == len(report.groups)
    assert sum(_number(m["calls"]) for m in found if m) == sum(g.count for g in report.groups)


def _bullets(lines: list[str], start: int) -> list[str]:
    """The list items from ``lines[start]`` on, as the text they show."""
    items = []
    for line in lines[start:]:
        if not line.startswith("- "):
            break
        items.append(plain(line[2:]))
    return items


@pytest.mark.parametrize("scenario", SAMPLES, ids=IDS)
def test_markdown_says_what_to_do_right_under_the_verdict(scenario: Scenario) -> None:
    report = run(scenario)
    lines = render(report, Format.MARKDOWN).splitlines()
    head = [
        "# auditor: normalization audit",
        "",
        markdown(verdict(report)),
        "",
        "## What to do",
        "",
    ]
    assert lines[:6] == head
    _add_up(_bullets(lines, 6), report)


@pytest.mark.parametrize("scenario", SAMPLES, ids=IDS)
def test_the_comment_says_what_to_do_right_under_the_verdict(scenario: Scenario) -> None:
    report = run(scenario)
    lines = render(report, Format.COMMENT).splitlines()
    assert lines[0].startswith("### auditor: normalization audit: **FAIL** (")
    assert lines[1:5] == ["", markdown(verdict(report)), "", "**What to do**"]
    _add_up(_bullets(lines, 6), report)


@pytest.mark.parametrize("scenario", SAMPLES, ids=IDS)
def test_html_says_what_to_do_right_under_the_verdict(scenario: Scenario) -> None:
    report = run(scenario)
    page = render(report, Format.HTML)
    body = page.partition("<body>\n")[2].splitlines()
    assert body[0] == "<h1>auditor: normalization audit</h1>"
    assert body[1].startswith('<p class="badge ')
    assert body[2:4] == [
        f"<p>{html_from_markdown(markdown(verdict(report)))}</p>",
        "<h2>What to do</h2>",
    ]
    items = re.findall(r"<li>(.*?)</li>", body[4].removeprefix('<ul class="todo">'))
    assert body[4].startswith('<ul class="todo">') and items
    _add_up([html.unescape(re.sub(r"<[^>]+>", "", item)) for item in items], report)


@pytest.mark.parametrize("scenario", SAMPLES, ids=IDS)
def test_the_github_summary_says_what_to_do_right_under_the_verdict(scenario: Scenario) -> None:
    report = run(scenario)
    summary = render(report, Format.GITHUB).splitlines()[-1]
    assert summary.startswith("::error title=auditor summary::")
    first, heading, *todo = summary.partition("::")[2].partition("::")[2].split("%0A")
    assert re.match(r"[\d,]+ of [\d,]+ logged calls? would be newly rejected", first)
    assert heading == "What to do:" and all(line.startswith("- ") for line in todo)
    _add_up([line.removeprefix("- ") for line in todo], report)


@pytest.mark.parametrize("scenario", SAMPLES, ids=IDS)
def test_sarif_carries_the_verdict_and_what_to_do_in_the_runs_summary(
    scenario: Scenario,
) -> None:
    report = run(scenario)
    document = json.loads(render(report, Format.SARIF))
    [run_] = document["runs"]
    properties = run_["properties"]
    assert list(properties)[:2] == ["verdict", "whatToDo"]
    assert properties["verdict"] == plain(markdown(verdict(report)))
    todo = properties["whatToDo"]
    assert sum(entry["groups"] for entry in todo) == len(run_["results"]) == len(report.groups)
    _add_up([f"{entry['text']}" for entry in todo], report)


@pytest.mark.parametrize("scenario", SAMPLES, ids=IDS)
def test_the_terminal_says_what_to_do_right_above_its_verdict(scenario: Scenario) -> None:
    # The terminal ends with its verdict (linters' habit): what to do is the paragraph above.
    report = run(scenario)
    *_, todo, last = render(report, Format.TABLE).rstrip("\n").split("\n\n")
    assert "would be newly rejected" in last and last.endswith("; exit 1")
    lines = todo.splitlines()
    assert lines[0] == "What to do:"
    joined = " ".join(line.strip() for line in lines[1:])  # wrapped lines joined again
    entries = re.split(r" (?=(?:" + "|".join(LABELS) + r"): )", joined)
    _add_up(entries, report)


def _headings(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("#")]


@pytest.mark.parametrize("scenario", SAMPLES, ids=IDS)
def test_markdown_puts_the_groups_before_the_notes_and_the_gate_last(scenario: Scenario) -> None:
    report = run(scenario)
    text = render(report, Format.MARKDOWN)
    headings = _headings(text)
    h2 = [h for h in headings if h.startswith("## ")]
    assert h2[:2] == ["## What to do", "## Groups"] and h2[-1] == "## Notes"
    lines = text.splitlines()
    notes = lines.index("## Notes")
    # Every group's section comes before the notes; the old runtime and the gate after.
    assert all(lines.index(h) < notes for h in headings if h.startswith("### "))
    assert lines.index(next(line for line in lines if line.startswith("Old runtime: "))) > notes
    assert lines.index(next(line for line in lines if line.startswith("--fail-on "))) > notes
    # The groups table: the report's first ten groups, numbered, and how many more below.
    start = lines.index("## Groups") + 2
    rows = [line for line in lines[start:] if line.startswith("|")][2:]
    shown = min(len(report.groups), 10)
    assert [row.split("|")[1].strip() for row in rows[:shown]] == [
        str(n) for n in range(1, shown + 1)
    ]
    more = len(report.groups) - shown
    if more:
        assert f"… and {more} more groups (details below)" in lines


@pytest.mark.parametrize("scenario", SAMPLES, ids=IDS)
def test_html_puts_the_groups_before_the_notes_and_the_gate_last(scenario: Scenario) -> None:
    report = run(scenario)
    page = render(report, Format.HTML)
    h2 = re.findall(r"<h2>(.*?)</h2>", page)
    assert h2[:3] == ["What to do", "Groups", "Summary"] and h2[-1] == "Notes"
    notes = page.index("<h2>Notes</h2>")
    assert page.rindex('<details class="group"') < notes
    assert page.index("<p>Old runtime: ") > notes and page.index("<p>--fail-on ") > notes


def test_a_report_without_groups_says_there_is_nothing_to_do(tmp_path: Path) -> None:
    # min_length 1 becomes minLength 1, and the one call sends a non-empty string.
    catalog = "t:\n  type: object\n  properties:\n    s: {type: string, min_length: 1}\n"
    report = make_report(tmp_path, catalog, [("t", {"s": "x"})])
    assert report.groups == ()
    said = "What to do: nothing (no call changes its outcome)."
    for fmt in (Format.MARKDOWN, Format.COMMENT):
        lines = render(report, fmt).splitlines()
        nothing = "**What to do:** nothing (no call changes its outcome)."
        assert lines[2:5] == [markdown(verdict(report)), "", nothing], fmt
    assert "<p><strong>What to do:</strong> nothing (no call changes its outcome).</p>" in render(
        report, Format.HTML
    )
    assert render(report, Format.COMMENT).splitlines()[0] == (
        "### auditor: normalization audit: **PASS**"
    )
    github = render(report, Format.GITHUB).splitlines()[-1]
    assert github.startswith("::notice title=auditor summary::") and github.endswith("%0A" + said)


# The comment ------------------------------------------------------------------------------


def _sample(name: str) -> Scenario:
    return next(s for s in SAMPLES if s.name == name)


def test_the_mcp_files_comment_fits_one_screen_with_ten_groups_and_a_count_of_the_rest() -> None:
    report = run(_sample("mcp_files"))
    assert len(report.groups) > 10  # the sample has more groups than the table shows
    lines = render(report, Format.COMMENT).splitlines()
    assert len(lines) <= 60
    rows = [line for line in lines if line.startswith("|")]
    assert len(rows) == 2 + 10  # the header, its rule, ten groups
    assert [row.split("|")[1].strip() for row in rows[2:]] == [str(n) for n in range(1, 11)]
    assert f"… and {len(report.groups) - 10} more groups (in the full report)" in lines
    assert lines[-1] == (
        "**Full report:** not written by this run (`--report-dir DIR` writes `audit.md`)."
    )


@pytest.mark.parametrize("scenario", SAMPLES, ids=IDS)
def test_every_samples_comment_is_short_whatever_it_holds(scenario: Scenario) -> None:
    report = run(scenario)
    comment = render(report, Format.COMMENT)
    assert len(comment.splitlines()) <= 60
    assert len(comment) < render(report, Format.MARKDOWN).__len__() // 3


# The change audited -----------------------------------------------------------------------

CHANGE = ROOT / "tests" / "fixtures" / "change"


def _change(capsys: pytest.CaptureFixture[str], fmt: Format, *old_new: str) -> str:
    base, head = old_new or (str(CHANGE / "base.json"), str(CHANGE / "head.json"))
    code, out, err = run_cli(
        [
            "audit",
            "--schemas",
            base,
            "--new-schemas",
            head,
            "--logs",
            str(CHANGE / "calls.jsonl"),
            "--no-report-files",
            "--fail-on",
            "never",
            "--format",
            fmt.value,
        ],
        capsys,
    )
    assert code == 0, err
    return out


def test_a_change_between_catalogs_is_a_schema_change_audit_counted_in_changes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    markdown = _change(capsys, Format.MARKDOWN)
    assert markdown.startswith("# auditor: schema change audit\n")
    assert "normalization" not in markdown and "rewrite" not in markdown.lower()
    summary = markdown.partition("## Summary\n\n")[2].splitlines()[0]
    assert summary.rstrip("| ").endswith("changes") and "rewrites" not in summary
    page = _change(capsys, Format.HTML)
    assert "<title>auditor: schema change audit</title>" in page
    assert "<h1>auditor: schema change audit</h1>" in page
    assert '<th scope="col">changes</th>' in page and ">rewrites<" not in page
    comment = _change(capsys, Format.COMMENT)
    assert comment.startswith("### auditor: schema change audit: **PASS**")
    monkeypatch.setenv("COLUMNS", "200")  # wide enough for whole column names
    table = _change(capsys, Format.TABLE)
    assert table.splitlines()[0].endswith("  changes") and "rewrites" not in table
    # The normalization of --schemas keeps its own words.
    sample = render(run(_sample("mcp_files")), Format.MARKDOWN)
    assert sample.startswith("# auditor: normalization audit\n")
    assert sample.partition("## Summary\n\n")[2].splitlines()[0].rstrip("| ").endswith("rewrites")


TEXT_OLD = {
    "lookup": {
        "type": "object",
        "description": "Look a word up.",
        "properties": {"q": {"type": "string", "maxLength": 5}},
    }
}


def test_an_edit_of_a_description_alone_is_a_text_only_edit_not_a_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = json.loads(json.dumps(TEXT_OLD))
    new["lookup"]["description"] = "Look up a word in the dictionary."
    old_path, new_path = tmp_path / "old.json", tmp_path / "new.json"
    old_path.write_text(json.dumps(TEXT_OLD), encoding="utf-8")
    new_path.write_text(json.dumps(new), encoding="utf-8")
    log = tmp_path / "calls.jsonl"
    calls = [{"q": "abc"}, {"q": "abcdefgh"}]  # accepted; rejected on both sides (maxLength 5)
    log.write_text("".join(json.dumps({"tool": "lookup", "arguments": a}) + "\n" for a in calls))
    args = ["audit", "--schemas", str(old_path), "--new-schemas", str(new_path)]
    args += ["--logs", str(log), "--no-report-files"]
    code, out, err = run_cli([*args, "--format", "json"], capsys)
    assert code == 0, err  # nothing breaks: the gate passes
    document: dict[str, Any] = json.loads(out)
    assert document["change"]["text_only_edits"] == 1
    [tool] = document["tools"]
    assert (tool["rewrites"], tool["text_only_edits"]) == ([], 1)
    assert document["coverage"] == {"rewrites": 0, "never_exercised": 0}
    totals = document["totals"]
    assert (totals["newly_rejected"], totals["still_rejected"], totals["accepted"]) == (0, 1, 1)
    assert document["counterexamples"] == [] and document["groups"] == []
    code, markdown, _ = run_cli([*args, "--format", "markdown"], capsys)
    said = "The catalogs differ only by 1 text-only edit (description, title, examples, $comment)."
    assert said in plain(markdown)
    assert "<code>lookup</code>: 0 changes, 1 text-only edit, 0 findings (" in markdown
    code, page, _ = run_cli([*args, "--format", "html"], capsys)
    assert "<code>lookup</code>: 0 changes, 1 text-only edit, 0 findings (" in page
    assert f"<p>{said}</p>" in page


# Counts in sentences ----------------------------------------------------------------------

CATALOG = "t:\n  type: object\n  properties:\n    s: {type: string, min_length: 2}\n"
"""min_length is no keyword before normalization and minLength 2 after: "x" breaks."""


def _texts(report: Report, folder: Path) -> dict[Format, str]:
    """Every format's text as a reader sees it, without the folder the inputs are in."""
    texts = {fmt: render(report, fmt).replace(str(folder), "") for fmt in Format}
    texts[Format.MARKDOWN] = plain(texts[Format.MARKDOWN])
    texts[Format.COMMENT] = plain(texts[Format.COMMENT])
    texts[Format.HTML] = html.unescape(re.sub(r"<[^>]+>", "", texts[Format.HTML]))
    return texts


def test_one_call_is_said_in_the_singular_in_every_format(tmp_path: Path) -> None:
    report = make_report(tmp_path, CATALOG, [("t", {"s": "x"})])
    texts = _texts(report, tmp_path)
    for fmt in (Format.MARKDOWN, Format.HTML, Format.COMMENT):
        text = texts[fmt]
        assert "1 of 1 logged call would be newly rejected after normalization, in 1 tool" in text
        assert "1 group (1 call)" in text, fmt
        assert "The 1 rewrite was reached by a logged call." in text, fmt
    for fmt in (Format.MARKDOWN, Format.HTML):
        assert "1 of 1 call of t fails minLength" in texts[fmt], fmt
        assert "minLength 2; sent 1 character" in texts[fmt], fmt
        assert "1 of 1 call of the tool (100%)" in texts[fmt], fmt
    assert (
        "FAIL: 1 newly rejected call; 1 group fails --fail-on newly-rejected" in texts[Format.HTML]
    )
    assert "(1 group fails --fail-on newly-rejected)" in texts[Format.COMMENT]
    assert (
        "1 of 1 logged call would be newly rejected (0 proven by the log; old runtime: "
        "lenient); 1 group fails --fail-on newly-rejected and is not accepted by a baseline."
    ) in texts[Format.GITHUB]
    assert "1 call would be newly rejected; exit 1" in texts[Format.TABLE]
    for text in texts.values():
        assert not re.search(r"\b1 (calls|groups|rewrites|tools|characters)\b", text)


def test_counts_past_a_thousand_have_separators_in_every_format(tmp_path: Path) -> None:
    report = make_report(tmp_path, CATALOG, [("t", {"s": "x"})] * 1_234)
    texts = _texts(report, tmp_path)
    for fmt in (Format.MARKDOWN, Format.HTML, Format.COMMENT):
        text = texts[fmt]
        assert "1,234 of 1,234 logged calls would be newly rejected" in text, fmt
        assert "1 group (1,234 calls)" in text, fmt
    for fmt in (Format.MARKDOWN, Format.HTML):
        assert "1,234 of 1,234 calls of t fail minLength" in texts[fmt], fmt
        assert "1,234 of 1,234 calls of the tool (100%)" in texts[fmt], fmt
    assert "FAIL: 1,234 newly rejected calls" in texts[Format.HTML]
    assert "1,234 of 1,234 logged calls would be newly rejected (" in texts[Format.GITHUB]
    assert "1,234 calls would be newly rejected; exit 1" in texts[Format.TABLE]
    # Counts a table shows are separated too (the summary's calls, the group's calls).
    assert re.search(r"\| +1,234 +\|", render(report, Format.MARKDOWN))
    assert "<td>1,234</td>" in render(report, Format.HTML)
    for fmt, text in texts.items():  # (calls.jsonl:1234 is a line number, not a count)
        if fmt not in (Format.JSON, Format.SARIF, Format.JUNIT):
            assert not re.search(r"(?<![:\d,])1234", text), fmt


# The coverage lines ------------------------------------------------------------------------

_COVERAGE = re.compile(
    r"^(?:(?P<reached>[\d,]+) of (?P<total>[\d,]+) (?P<unit>rewrites|changes) were reached by a "
    r"logged call; (?P<never>[\d,]+) (?:was|were) not reached by any, so the log says nothing "
    r"about what (?:it|they) will reject\.|Every one of the (?P<all>[\d,]+) (?P<all_unit>rewrites"
    r"|changes) was reached by a logged call\.)$"
)
_COUNTEREXAMPLES = re.compile(
    r"^(?P<untested>[\d,]+) of (?P<total>[\d,]+) (?P<unit>rewrites|changes) caused no logged "
    r"call's rejection \((?:(?P<never>[\d,]+) not reached by any)?(?:, )?(?:(?P<rest>[\d,]+) "
    r"reached without being the cause of a rejection)?\): (?P<statuses>.*?)\. Counterexamples"
)
_CONSTRAINTS = re.compile(
    r"^Constraint coverage: (?:(?P<reached>[\d,]+) of (?P<total>[\d,]+) constraint keywords of "
    r"the called tools' new schemas were reached by a logged call, (?P<failed>[\d,]+) of them "
    r"rejecting at least one; (?P<blind>[\d,]+) (?:was|were) not reached by any \(blind spots\)"
    r"|every one of the (?P<all>[\d,]+) constraint keywords of the called tools' new schemas was "
    r"reached by a logged call, [\d,]+ of them rejecting at least one)\.$"
)


@pytest.mark.parametrize("scenario", SAMPLES, ids=IDS)
def test_the_coverage_lines_count_the_same_things_in_the_same_words(scenario: Scenario) -> None:
    report = run(scenario)
    coverage = _COVERAGE.match(coverage_line(report))
    assert coverage, coverage_line(report)
    total = _number(coverage["total"] or coverage["all"])
    unit = coverage["unit"] or coverage["all_unit"]
    never = _number(coverage["never"] or "0")
    assert (total, unit, never) == (report.rewrite_count, "rewrites", report.unexercised_count)
    assert _number(coverage["reached"] or coverage["all"]) + never == total
    said = [coverage_line(report), constraint_line(report)]
    if (line := counterexample_line(report)) is not None:
        said.append(line)
        tested = _COUNTEREXAMPLES.match(line)
        assert tested, line
        # The same total, the same unit, the same unreached changes; the split adds up.
        assert (_number(tested["total"]), tested["unit"]) == (total, unit)
        assert _number(tested["never"] or "0") == never
        split = _number(tested["never"] or "0") + _number(tested["rest"] or "0")
        assert split == _number(tested["untested"]) == len(report.counterexamples)
        statuses = [_number(n) for n in re.findall(r"([\d,]+) [a-z]", tested["statuses"])]
        assert sum(statuses) == len(report.counterexamples)
    else:  # every change caused a rejection: every one was reached too
        assert report.counterexamples == () and never == 0
    constraints = _CONSTRAINTS.match(constraint_line(report))
    assert constraints, constraint_line(report)
    uses = [c for t in report.tools for c in t.constraints]
    blind = sum(1 for c in uses if not c.reached)
    if constraints["all"]:
        assert (_number(constraints["all"]), blind) == (len(uses), 0)
    else:
        assert (_number(constraints["total"]), _number(constraints["blind"])) == (len(uses), blind)
        assert _number(constraints["reached"]) + blind == len(uses)
    # Every format says them in the same words, and none says "by no" or "no … reached".
    for fmt in (Format.MARKDOWN, Format.HTML, Format.TABLE):
        text = render(report, fmt)
        shown = " ".join(plain(html.unescape(re.sub(r"<[^>]+>", " ", text))).split())
        for sentence in said:
            assert " ".join(plain(sentence).split()) in shown, (fmt, sentence)
        assert " by no " not in shown and "no logged call reached" not in shown, fmt
