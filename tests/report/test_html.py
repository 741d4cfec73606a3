"""The HTML report: every Markdown section, the badge, hint boxes by kind, distinguishable
colours with labels, the change between catalogs, and logged strings kept inert."""

from __future__ import annotations

import dataclasses
import itertools
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from auditor.aggregate.baseline import Baseline
from auditor.aggregate.pipeline import ReportSettings
from auditor.models import HintKind, OldRuntime, Outcome
from auditor.report import Format, render
from auditor.report.common import OUTCOME_LABELS, SUMMARY_OUTCOMES, groups_of
from auditor.report.html import COLORS, HINT_COLORS, HINT_LABELS
from tests.conftest import ROOT, run_cli
from tests.reporting import make_report
from tests.samples import Scenario, run, scenarios

CHANGE = ROOT / "tests" / "fixtures" / "change"

# q: maxLength 3 by the normalizer (max_length enforced nothing before). Six calls of 7 send 5
# to 10 characters: loosen, raise to 10. s: minLength 1; one call of 7 sends "": fix callers.
DECIDED = (
    "t:\n  type: object\n  properties:\n    q: {type: string, max_length: 3}\n"
    "    s: {type: string, min_length: 1}\n"
)
DECIDED_CALLS: list[tuple[str, dict[str, object]]] = [
    ("t", {"q": "abcde" + "x" * i}) for i in range(6)
]
DECIDED_CALLS.append(("t", {"q": "a", "s": ""}))


class _Page(HTMLParser):
    """The h2 headings, the hint boxes' classes and the tags of a page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.headings: list[str] = []
        self.hints: list[str] = []
        self.tags: set[str] = set()
        self._in_h2 = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        classes = (dict(attrs).get("class") or "").split()
        if "hint" in classes:
            self.hints += [c for c in classes if c != "hint"]
        if tag == "h2":
            self._in_h2 = True
            self.headings.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "h2":
            self._in_h2 = False

    def handle_data(self, data: str) -> None:
        if self._in_h2:
            self.headings[-1] += data


def _markdown_sections(markdown: str) -> list[str]:
    return [line[3:] for line in markdown.splitlines() if line.startswith("## ")]


def _change_report(capsys: pytest.CaptureFixture[str], fmt: Format) -> str:
    code, out, err = run_cli(
        [
            "audit",
            "--schemas",
            str(CHANGE / "base.json"),
            "--new-schemas",
            str(CHANGE / "head.json"),
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


@pytest.mark.parametrize("scenario", scenarios(), ids=[s.name for s in scenarios()])
def test_every_markdown_section_is_in_the_html(scenario: Scenario) -> None:
    report = run(scenario)
    page = _Page(render(report, Format.HTML))
    for section in _markdown_sections(render(report, Format.MARKDOWN)):
        if section.startswith("⚠️ "):  # the warning box at the top
            assert "Calls that will fail: unusable new schemas" in render(report, Format.HTML)
        else:
            assert section in page.headings, section
    assert "script" not in page.tags


def test_the_sections_of_a_report_with_every_kind_of_call() -> None:
    # openai_gateway has a broken $ref (unusable after), still rejected calls, unparseable
    # calls and unknown tools besides its newly rejected groups.
    report = run(next(s for s in scenarios() if s.name == "openai_gateway"))
    text = render(report, Format.HTML)
    # What to do and the first groups first; the old runtime's notes and the gate last.
    assert _Page(text).headings == [
        "What to do",
        "Groups",
        "Summary",
        "Newly rejected calls",
        "Still rejected",
        "Coverage",
        "Calls not replayed",
        "Rewrites and findings",
        "Notes",
    ]
    assert '<div class="alert"><strong>Calls that will fail: unusable new schemas' in text
    # An unknown tool's row counts its call under "unknown tool" (the last outcome column).
    assert "<tr><td>refund_order</td><td>1</td>" in text


def test_a_change_between_catalogs_says_what_changed(capsys: pytest.CaptureFixture[str]) -> None:
    text = _change_report(capsys, Format.HTML)
    page = _Page(text)
    for section in _markdown_sections(_change_report(capsys, Format.MARKDOWN)):
        assert section in page.headings, section
    assert "Changes and findings" in page.headings and "Rewrites and findings" not in text
    assert f"The change: <code>{CHANGE / 'base.json'}</code> → <code>" in text
    assert "Tools added: <code>send_email</code>." in text
    assert "Tools removed: <code>legacy_export</code>." in text
    # expected.yaml: no logged call sends labels, so its maxItems change is never reached.
    assert (
        "<details><summary>Changes not reached by any logged call</summary><ul><li><code>"
        "create_branch"
        "</code> <code>/properties/labels/maxItems</code>: <code>5</code> → <code>3</code>"
    ) in text


def test_the_badge_says_fail_with_the_headline_count(tmp_path: Path) -> None:
    text = render(make_report(tmp_path, DECIDED, DECIDED_CALLS), Format.HTML)
    assert (
        '<p class="badge fail">FAIL: 7 newly rejected calls; 2 groups fail --fail-on '
        "newly-rejected</p>"
    ) in text
    assert "badge pass" not in text


def test_the_badge_says_pass_when_nothing_fails(tmp_path: Path) -> None:
    # min_length 1 becomes minLength 1, and every call sends a non-empty string.
    catalog = "t:\n  type: object\n  properties:\n    s: {type: string, min_length: 1}\n"
    text = render(make_report(tmp_path, catalog, [("t", {"s": "x"})]), Format.HTML)
    assert '<p class="badge pass">PASS: 0 newly rejected calls; no group fails the run</p>' in text
    assert "badge fail" not in text


def test_hint_boxes_are_coloured_and_labelled_by_kind(tmp_path: Path) -> None:
    text = render(make_report(tmp_path, DECIDED, DECIDED_CALLS), Format.HTML)
    assert _Page(text).hints == ["hint-loosen-schema", "hint-fix-callers"]
    assert '<div class="hint hint-loosen-schema"><strong>Loosen the schema (loosen-schema):' in text
    assert '<div class="hint hint-fix-callers"><strong>Fix the callers (fix-callers):' in text
    for kind in HintKind:
        assert f".hint-{kind.value}{{--k:{HINT_COLORS[kind][0]}" in text
    assert len({c[0] for c in HINT_COLORS.values()}) == len(HintKind) == len(HINT_LABELS)


def test_groups_show_evidence_patch_and_values(tmp_path: Path) -> None:
    text = render(make_report(tmp_path, DECIDED, DECIDED_CALLS), Format.HTML)
    assert (
        "<li><strong>Evidence:</strong> maxLength <code>3</code>; sent 5 to 10 characters "
        "(median 7.5)</li>"
    ) in text
    assert "<p><strong>Patch:</strong> raise maxLength 3 → 10 at <code>" in text
    assert (
        "<pre>[{&quot;op&quot;: &quot;replace&quot;, &quot;path&quot;: "
        "&quot;/properties/q/maxLength&quot;, &quot;value&quot;: 10}]</pre>"
    ) in text
    assert "<li><strong>Values sent:</strong> <code>&quot;&quot;</code> (1 call, first " in text
    assert text.count("<strong>Patch:</strong>") == 1  # the caller bug gets none


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def test_outcome_colours_are_far_apart_and_every_one_is_labelled(tmp_path: Path) -> None:
    assert set(COLORS) == set(SUMMARY_OUTCOMES)
    for a, b in itertools.combinations(COLORS.values(), 2):
        # Euclidean RGB distance; the two golds this replaces (#9a6700, #bf8700) were 49 apart,
        # Okabe-Ito's orange and vermillion 67.
        distance = sum((x - y) ** 2 for x, y in zip(_rgb(a), _rgb(b), strict=True)) ** 0.5
        assert distance > 75, (a, b)
    text = render(make_report(tmp_path, DECIDED, DECIDED_CALLS), Format.HTML)
    legend = re.search(r'<ul class="legend">(.*?)</ul>', text)
    assert legend is not None
    for outcome in SUMMARY_OUTCOMES:
        assert f'<i class="sw o-{outcome.value}"></i>{OUTCOME_LABELS[outcome]}</li>' in legend[1]
    # The bar segment carries its count and a title naming the outcome, not colour alone.
    assert (
        '<i class="o-newly_rejected" style="width:100.00%" title="t: 7 newly rejected">7</i>'
        in text
    )
    assert Outcome.NEWLY_REJECTED in COLORS


def test_logged_strings_are_inert(tmp_path: Path) -> None:
    # additional_properties: false becomes additionalProperties: false; the one call sends a
    # key and a value that would be markup if they were not escaped.
    catalog = (
        "t:\n  type: object\n  properties:\n    q: {type: string}\n  additional_properties: false\n"
    )
    hostile = '</pre><script>alert(1)</script><img src=x onerror="a()">'
    text = render(make_report(tmp_path, catalog, [("t", {hostile: hostile})]), Format.HTML)
    assert hostile not in text and "<script" not in text and "<img" not in text
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "onerror=&quot;a()&quot;" in text
    assert {"script", "img"}.isdisjoint(_Page(text).tags)


STANDARD = """\
t:
  type: object
  properties:
    a: {type: STRING}
u:
  type: object
  properties:
    q: {type: string, max_length: 3}
    b: {type: string, min_length: 2}
"""
"""Under the standard old runtime ``t`` failed its meta-schema (``STRING``): its call is a
schema error before, and the normalized schema rejects 5 for ``type: string``. ``u``'s two
calls send 5 characters against the new ``maxLength 3``; none sends ``b``, so its new
``minLength 2`` is reached by no call and gets a counterexample, built from the schema (no
call of ``u`` is accepted to edit one from)."""
STANDARD_CALLS: list[tuple[str, dict[str, object]]] = [
    ("t", {"a": 5}),
    ("u", {"q": "abcde"}),
    ("u", {"q": "vwxyz"}),
]


def test_baseline_runtime_stamp_and_unusable_before_sections(tmp_path: Path) -> None:
    settings = ReportSettings(old_runtime=OldRuntime.STANDARD, examples=0, max_calls=0)
    first = make_report(tmp_path, STANDARD, STANDARD_CALLS, settings)
    newly = groups_of(first, Outcome.NEWLY_REJECTED)
    assert [(g.tool, g.keyword, g.count) for g in newly] == [("u", "maxLength", 2)]
    baseline = Baseline("baseline.json", frozenset({newly[0].fingerprint, "0" * 16}))
    settings = dataclasses.replace(settings, baseline=baseline, generated_at="2026-12-01T03:30:00Z")
    text = render(make_report(tmp_path, STANDARD, STANDARD_CALLS, settings), Format.HTML)
    headings = _Page(text).headings
    assert "Schemas that were unusable before normalization" in headings
    assert "<li><code>t</code> (1 call): the schema as written " in text
    # The baseline accepts the only newly rejected group: it is folded and the badge passes.
    assert '<p class="badge pass">PASS: 2 newly rejected calls; no group fails the run</p>' in text
    assert (
        "2 calls failing <code>maxLength</code> at <code>/properties/q/maxLength</code> "
        "(accepted by the baseline)</summary>" in text
    )
    assert "Baseline <code>baseline.json</code> accepted 1 group (2 calls); 1 stale entry" in text
    assert "Example arguments" not in text  # --examples 0
    assert "left out of the call list by --max-calls." in text
    assert "Generated 2026-12-01T03:30:00Z." in text
    assert "Counterexamples: what the logs never tried" in headings
    assert "<code>/properties/b/minLength</code>" in text
    assert "(generated from the schema):<pre>" in text


def test_a_catalog_the_normalizer_leaves_alone_has_no_rewrites_section(tmp_path: Path) -> None:
    catalog = "t:\n  type: object\n  properties:\n    s: {type: string, minLength: 1}\n"
    text = render(make_report(tmp_path, catalog, [("t", {"s": ""})]), Format.HTML)
    assert "<p>The normalizer rewrote nothing.</p>" in text
    assert "Rewrites and findings" not in _Page(text).headings
    assert "Newly rejected calls" not in _Page(text).headings
