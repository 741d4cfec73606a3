"""The escaping layer, one context at a time (auditor/report/escape.py): exact forms for
ordinary and hostile text, and properties over any text read back by the consumer's parser."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from xml.etree import ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from auditor.json_text import json_text
from auditor.report.escape import (
    github_data,
    github_property,
    html_text,
    md_cell,
    md_code,
    md_html,
    md_quoted,
    md_text,
    visible,
)
from tests.markdown_reader import html_from_markdown, plain

_MD = MarkdownIt("commonmark").enable("table").enable("strikethrough")
LINKS = ["www.x.io/a", "(www.x.io", "HTTP://x.io", "ftp://x", "a@b.io", "@octo", "#12"]
LINKS += ["o/r#3", "gh-4", "u@deadbee", "deadbeefcafe1234", "1234567", "_@a_"]
TEXT = (
    st.text(st.characters(codec="utf-8"), max_size=40)
    | st.sampled_from(
        ["`", "``", " ` ", "|", "\\", "**", "@a", "\n#", "a_b", "_a_", "&amp;", "\\`", "x\\"]
    )
    | st.lists(st.sampled_from([*LINKS, " ", "x", "*", "_", "~", "\\", "`"]), max_size=6).map(
        "".join
    )
)

_GITHUB_LINKS = re.compile(
    r"(?:^|(?<=[\s*_~(]))www\.[a-z0-9_-]"  # GFM's extended www autolink
    r"|(?:https?|ftp)://[a-z0-9_-]"  # GFM's extended URL autolink
    r"|[a-z0-9.+_-]@[a-z0-9_-]+\.[a-z0-9]"  # GFM's extended e-mail autolink
    r"|@[a-z0-9]"  # a mention, user@sha
    r"|#[0-9]"  # an issue or pull request: #12, owner/repo#12
    r"|(?<![a-z0-9_])gh-[0-9]"  # GH-12
    r"|(?<![a-z0-9_])[0-9a-f]{7,40}(?![a-z0-9_])",  # a commit
    re.IGNORECASE,
)
"""What GitHub links, or turns into a notification, in text it renders from Markdown: the
autolinks GitHub-flavoured Markdown adds (cmark-gfm's autolink extension) and GitHub's own
references. Never inside a code span, a code block or a link."""


class _HTMLText(HTMLParser):
    """The text of an HTML fragment outside ``<code>`` and ``<pre>``, entities decoded."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside = 0
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.inside += tag in ("code", "pre")

    def handle_endtag(self, tag: str) -> None:
        self.inside -= tag in ("code", "pre")

    def handle_data(self, data: str) -> None:
        if not self.inside:
            self.text.append(data)


def github_links(markdown: str) -> list[str]:
    """What GitHub would link or mention in ``markdown`` as it renders it: in the text of
    every inline (outside code spans and links) and of every HTML block (outside code)."""
    found = []
    for token in _MD.parse(markdown):
        texts = []
        if token.type == "inline":
            link = 0
            for child in token.children or []:
                link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
                if child.type == "text" and not link:
                    texts.append(child.content)
        elif token.type == "html_block":
            parser = _HTMLText()
            parser.feed(token.content)
            texts = parser.text
        found += [m.group() for text in texts for m in _GITHUB_LINKS.finditer(text)]
    return found


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("search_docs", "search_docs"),
        ("é 🎉 👨‍👩‍👧", "é 🎉 👨‍👩‍👧"),  # a zero-width joiner in an emoji stays
        ("a\nb\r\tc", "a\\nb\\r\\tc"),
        ("\x00\x1b[31m\x7f\x85\x9b", "\\x00\\x1b[31m\\x7f\\x85\\x9b"),
        (
            "\u202eevil\u2066\u200f\u2028\ufeff\uffff",
            "\\u202eevil\\u2066\\u200f\\u2028\\ufeff\\uffff",
        ),
        ("caf\udce9", "caf\\xe9"),  # the byte a non-UTF-8 file name held
        ("\ud800", "\\ud800"),
    ],
)
def test_visible(text: str, shown: str) -> None:
    assert visible(text) == shown


@pytest.mark.parametrize(
    ("text", "markdown"),
    [
        ("search_docs", "search_docs"),
        ("_em_ *b* a_b", "\\_em\\_ \\*b\\* a_b"),
        ("## Verdict: SAFE", "\\## Verdict: SAFE"),
        ("x | y", "x \\| y"),
        ("![i](http://x)", "\\!\\[i\\](http:&#8203;//x)"),
        ("<script>&amp;", "&lt;script&gt;&amp;amp;"),
        ("@octocat and a@b.example", "@&#8203;octocat and a@&#8203;b.example"),
        ("see www.x.io or HTTPS://x.io", "see www&#8203;.x.io or HTTPS:&#8203;//x.io"),
        ("#12, o/r#3, GH-4", "\\#&#8203;12, o/r#&#8203;3, GH-&#8203;4"),
        ("deadbeefcafe1234 1234567", "deadbe&#8203;efcafe&#8203;1234 123456&#8203;7"),
        ("abcdef deadbeefz #x gh-x www", "abcdef deadbeefz #x gh-x www"),
        ("$x$ ~~s~~ `c`", "\\$x\\$ \\~\\~s\\~\\~ \\`c\\`"),
        ("a\nb", "a\\\\nb"),
    ],
)
def test_md_text(text: str, markdown: str) -> None:
    assert md_text(text) == markdown


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("search_docs", "`search_docs`"),
        ("a`b", "``a`b``"),
        ("`a``", "``` `a`` ```"),
        (" a", "` a`"),
        (" a ", "`  a  `"),
        ("  ", "`  `"),
        ("a|b", "`a|b`"),
    ],
)
def test_md_code(text: str, code: str) -> None:
    assert md_code(text) == code


def test_md_code_in_a_table_cell_escapes_the_pipe() -> None:
    assert md_code("a|b", cell=True) == "`a\\|b`"
    table = _MD.render(f"| h |\n|---|\n| {md_code('a|b', cell=True)} |\n")
    assert "<td><code>a|b</code></td>" in table


def test_md_quoted_keeps_quoted_names_as_code() -> None:
    assert md_quoted("`min_lenght` is not a keyword") == "`min_lenght` is not a keyword"
    assert md_quoted("`a`b` is *x*") == "`a`b\\` is \\*x\\*"


@given(TEXT)
@settings(max_examples=300, deadline=None)
def test_a_code_span_shows_the_text_exactly(text: str) -> None:
    [paragraph] = [t for t in _MD.parse("x " + md_code(text)) if t.type == "inline"]
    children = paragraph.children or []
    assert [c.type for c in children] == ["text", "code_inline"]
    shown = visible(text) or " "  # no code span is empty
    assert children[1].content == shown
    assert plain(md_code(text)) == shown


@given(TEXT)
@settings(max_examples=300, deadline=None)
def test_inline_text_shows_the_text_exactly_and_acts_as_nothing(text: str) -> None:
    tokens = _MD.parse(f"x {md_text(text)} y")
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"]
    children = tokens[1].children or []
    assert all(c.type in ("text", "softbreak") for c in children)
    shown = "".join(c.content for c in children)
    assert shown.replace("\u200b", "") == f"x {visible(text)} y".replace("\u200b", "")
    assert plain(md_text(text)) == visible(text)
    assert github_links(f"x {md_text(text)} y") == []


@given(TEXT)
@settings(max_examples=300, deadline=None)
def test_text_in_the_html_of_markdown_shows_the_text_and_acts_as_nothing(text: str) -> None:
    block = f"<details><summary><code>{md_html(text)}</code> ({md_html(text)})</summary>\n"
    [token] = _MD.parse(block)
    assert token.type == "html_block"
    parser = _HTMLText()
    parser.feed(token.content)
    shown = "".join(parser.text).rstrip("\n").replace("\u200b", "")
    assert shown == f" ({visible(text)})".replace("\u200b", "")
    assert github_links(block) == []


def test_the_link_check_finds_what_github_links() -> None:
    # The check itself: each of these is a link or a mention where it stands, and in a code
    # span or escaped by md_text it is none.
    for text in LINKS[:-1]:
        assert github_links(f"x {text} y"), text
        assert not github_links(f"x {md_code(text)} y"), text
        assert not github_links(f"x {md_text(text)} y"), text
    assert github_links("<details><summary>@octo</summary>") == ["@o"]
    assert github_links("x `@octo` [@octo](#a) y") == []


@given(TEXT, TEXT)
@settings(max_examples=200, deadline=None)
def test_html_from_the_report_markdown_escapes_the_data(code: str, text: str) -> None:
    markdown = f"**{md_text(text)}** in {md_code(code)}"
    rendered = html_from_markdown(markdown)
    shown = html_text(code) or " "
    assert rendered == f"<strong>{html_text(text)}</strong> in <code>{shown}</code>"


@given(TEXT)
@settings(max_examples=200, deadline=None)
def test_xml_text_always_parses(text: str) -> None:
    element = ET.Element("case", {"name": visible(text)})
    element.text = visible(text)
    parsed = ET.fromstring(ET.tostring(element, "unicode").encode("utf-8"))
    assert parsed.get("name") == (parsed.text or "") == visible(text)


@given(TEXT)
@settings(max_examples=200, deadline=None)
def test_workflow_commands_stay_on_one_line(text: str) -> None:
    for escaped in (github_data(text), github_property(text)):
        assert "\n" not in escaped and "\r" not in escaped
    assert ":" not in github_property(text) and "," not in github_property(text)


def test_json_text_writes_surrogates_as_their_escape_text() -> None:
    assert json_text('{"path": "caf\udce9"}') == '{"path": "caf\\\\xe9"}'
    assert json_text('{"a": "é"}') == '{"a": "é"}'


@given(TEXT)
@settings(max_examples=300, deadline=None)
def test_a_table_cell_shows_the_text_exactly_and_stays_one_cell(text: str) -> None:
    source = f"| h | i |\n|---|---|\n| {md_cell(text)} | {md_code(text, cell=True)} |\n"
    inline = [t for t in _MD.parse(source) if t.type == "inline"]
    assert len(inline) == 4  # two headers, two cells: no forged cell or row
    shown = "".join(c.content for c in inline[2].children or []).replace("\u200b", "")
    assert shown == visible(text).strip().replace("\u200b", "")  # outer white space: layout
    code = [c for c in inline[3].children or [] if c.type == "code_inline"]
    assert code and code[0].content == (visible(text) or " ")
