"""Log and catalog data is inert in every output (issue 11, part 4).

Each hostile string is a tool name, a property key, an enum value, an argument value, an
unknown tool's name and an unknown keyword, and goes through every audit format (with and
without ``--redact``) and every lint format. Each output is read the way its consumer reads
it — Markdown by a CommonMark parser with GitHub's tables, XML by expat, JSON strictly, the
workflow-command stream line by line — and must show the data without acting on it. The
expected forms are written by hand: ``shown`` is the string on one visible line.
"""

from __future__ import annotations

import html
import json
import os
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from auditor.report import Format, json_report, render
from tests.conftest import run_cli
from tests.report.test_escape import github_links
from tests.reporting import make_report

# (the string, how it shows on one visible line)
HOSTILE: list[tuple[str, str]] = [
    ("x\n::error::forged", "x\\n::error::forged"),
    ("x\n::add-mask::secret", "x\\n::add-mask::secret"),
    ("x\r\n::stop-commands::tok", "x\\r\\n::stop-commands::tok"),
    ("x\n## Verdict: SAFE", "x\\n## Verdict: SAFE"),
    ("## Verdict: SAFE", "## Verdict: SAFE"),
    ("a | forged | 1 |\n| b | 2 |", "a | forged | 1 |\\n| b | 2 |"),
    ("![img](http://x.invalid/i.png)", "![img](http://x.invalid/i.png)"),
    ("@octocat", "@octocat"),
    ("<script>alert(1)</script>", "<script>alert(1)</script>"),
    ("]]><x/>", "]]><x/>"),
    ("nul\x00bel\x07del\x7f", "nul\\x00bel\\x07del\\x7f"),
    ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
    ("c1\x85\x9bcsi", "c1\\x85\\x9bcsi"),
    ("rtl\u202eevil\u2066", "rtl\\u202eevil\\u2066"),
    ("tick`s``3```", "tick`s``3```"),
    ("*bold* _em_ ~~s~~ $x$ &amp;", "*bold* _em_ ~~s~~ $x$ &amp;"),
    # What GitHub links or notifies in the Markdown it renders (the PR comment):
    ("see www.evil.example/login", "see www.evil.example/login"),
    ("go https://evil.example/x?y=1", "go https://evil.example/x?y=1"),
    ("fixes #12, GH-7 and owner/repo#3", "fixes #12, GH-7 and owner/repo#3"),
    ("mail ops@evil.example, ping @octocat", "mail ops@evil.example, ping @octocat"),
    ("octocat@deadbeef1 and cafebabe1234567", "octocat@deadbeef1 and cafebabe1234567"),
]
ORDINARY = ["search_docs", "é", "🎉 party", "1e5"]
"""Names that must read exactly as they are (a table once showed "1e5" as 100000)."""
IDS = [f"hostile{n}" for n in range(len(HOSTILE))]

_ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What must never be written raw to a human-readable output (\\t and \\n are layout)."""
FORMATS = ["table", "markdown", "json", "sarif", "junit", "github", "html", "comment"]


def _schema(name: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            name: {"type": "string"},
            "v": {"type": "string", "max_length": 3},
            "e": {"all_of": [{"enum": [name]}]},
        },
        "additional_properties": False,
        "kw " + name: 1,  # an unknown keyword: a lint finding, quoted in the Markdown report
    }


def _calls(name: str) -> list[dict[str, Any]]:
    return [
        {"tool": name, "arguments": {name: name}},  # accepted
        {"tool": name, "arguments": {"v": "long " + name}},  # maxLength
        {"tool": name, "arguments": {"e": "no"}},  # enum, quoting the value
        {"tool": name, "arguments": {"k " + name: 1}},  # an extra property, by its key
        {"tool": "unknown " + name, "arguments": {}},
    ]


def _inputs(folder: Path, names: list[str]) -> tuple[Path, Path]:
    catalog = folder / "tools.json"
    catalog.write_text(json.dumps({n: _schema(n) for n in names}), encoding="utf-8")
    log = folder / "calls.jsonl"
    log.write_text(
        "".join(json.dumps(c) + "\n" for n in names for c in _calls(n)), encoding="utf-8"
    )
    return catalog, log


def _audit(
    folder: Path, names: list[str], capsys: pytest.CaptureFixture[str], *extra: str
) -> dict[str, str]:
    catalog, log = _inputs(folder, names)
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files"]
    for fmt in FORMATS:
        args += ["--format", fmt, "--output", str(folder / f"out.{fmt}")]
    code, _, err = run_cli([*args, *extra], capsys)
    assert code == 1, err  # calls are newly rejected
    return {fmt: (folder / f"out.{fmt}").read_text(encoding="utf-8") for fmt in FORMATS}


# Markdown, read as GitHub reads it ------------------------------------------------------------

_MD = MarkdownIt("commonmark").enable("table").enable("strikethrough")


def _text(inline: Token) -> str:
    """What an inline token shows (text and code), markup removed."""
    return "".join(
        child.content for child in inline.children or [] if child.type in ("text", "code_inline")
    )


def _check_markdown(text: str, names: list[str], shown: list[str]) -> None:
    assert not _ACTIVE.search(text)
    assert not any(line.startswith("::") for line in text.splitlines())
    tokens = _MD.parse(text)
    headings = [_text(tokens[i + 1]) for i, t in enumerate(tokens) if t.type == "heading_open"]
    levels = [t.tag for t in tokens if t.type == "heading_open"]
    assert levels.count("h1") == 1 and headings[0] == "auditor: normalization audit"
    ours = {"Summary", "Newly rejected calls", "Coverage", "Calls not replayed"}
    ours |= {"Rewrites and findings", "Still rejected", "What to do", "Groups", "Notes"}
    for level, heading in zip(levels[1:], headings[1:], strict=True):
        if level == "h2":
            assert heading in ours, heading
        else:
            # a group: its tool's name whole, in one code span, then our wording
            number, _, rest = heading.replace("\u200b", "").partition(". ")
            assert level == "h3" and number.isdigit(), heading
            assert any(rest.startswith(f"{name}: ") for name in shown), heading
    for token in tokens:
        if token.type == "inline":
            for child in token.children or []:
                assert child.type not in ("image", "html_inline", "link_open"), child
        assert token.type != "html_block" or token.content.startswith(("<details", "</details"))
    # Nothing outside code links or mentions: not in the text, not in a <summary>.
    assert github_links(text) == []
    # The summary table: one row per tool, per unknown tool and the total, no forged row; the
    # first cells are the names, whole.
    summary = headings.index("Summary")
    after = [i for i, t in enumerate(tokens) if t.type == "heading_open"][summary]
    first = _first_cells(tokens, after)
    assert len(first) == 2 * len(names) + 1
    # A zero-width space, in a name that could link or mention, is what keeps it from it.
    assert sorted(first[:-1]) == sorted([*shown, *(f"unknown {s}" for s in shown)])
    _check_group_table(tokens, shown)
    rendered = _rendered_text(tokens).replace("\u200b", "")
    assert all(s in rendered for s in shown)


def _first_cells(tokens: list[Token], after: int = 0) -> list[str]:
    """The first cell of each body row of the first table after token ``after``."""
    start = next(i for i, t in enumerate(tokens) if i > after and t.type == "table_open")
    end = next(i for i, t in enumerate(tokens) if i > start and t.type == "table_close")
    rows = [i for i in range(start, end) if tokens[i].type == "tr_open"][1:]
    return [_text(tokens[i + 2]).replace("\u200b", "") for i in rows]


def _check_group_table(tokens: list[Token], shown: list[str]) -> None:
    """The groups table: a row per group, numbered, each naming its tool whole in the tool
    cell (the third): no forged row."""
    start = next(i for i, t in enumerate(tokens) if t.type == "table_open")
    end = next(i for i, t in enumerate(tokens) if i > start and t.type == "table_close")
    rows = [i for i in range(start, end) if tokens[i].type == "tr_open"][1:]
    assert rows
    for number, row in enumerate(rows, start=1):
        cells = [i for i in range(row, end) if tokens[i].type == "td_open"][:3]
        assert _text(tokens[cells[0] + 1]) == str(number)
        assert _text(tokens[cells[2] + 1]).replace("\u200b", "") in shown


def _check_comment(text: str, shown: list[str]) -> None:
    """The pull-request comment: inert as the Markdown report, on one screen, its groups
    table a row per group, nothing forged."""
    assert not _ACTIVE.search(text)
    assert not any(line.startswith("::") for line in text.splitlines())
    assert len(text.splitlines()) <= 60
    tokens = _MD.parse(text)
    for token in tokens:
        if token.type == "inline":
            for child in token.children or []:
                assert child.type not in ("image", "html_inline", "link_open"), child
        assert token.type != "html_block"
    assert github_links(text) == []
    _check_group_table(tokens, shown)


def _rendered_text(tokens: list[Token]) -> str:
    return "".join(_text(t) for t in tokens if t.type == "inline")


# The other formats ----------------------------------------------------------------------------


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)


def _check_html(text: str, shown: list[str]) -> None:
    assert not _ACTIVE.search(text)
    parser = _Tags()
    parser.feed(text)
    assert not parser.tags & {"script", "img", "a", "x", "iframe"}
    page = html.unescape(text)
    assert all(s in page for s in shown)


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _check_json(text: str, names: list[str], redacted: bool) -> None:
    document = _strict_json(text)
    assert {t["name"] for t in document["tools"]} == set(names)  # the data, exactly
    assert set(document["unknown_tools"]) == {"unknown " + n for n in names}
    if not redacted:
        sent = [e["arguments"] for g in document["groups"] for e in g["examples"]]
        assert all({"v": "long " + n} in sent for n in names)  # values
        assert all({"k " + n: 1} in sent for n in names)  # keys


def _check_sarif(text: str, names: list[str]) -> None:
    document = _strict_json(text)
    results = document["runs"][0]["results"]
    assert {r["properties"]["tool"] for r in results} == set(names)
    assert not any(_ACTIVE.search(r["message"]["text"]) for r in results)
    assert not any("\n" in r["message"]["text"] for r in results)


def _check_junit(text: str, shown: list[str]) -> None:
    root = ET.fromstring(text.encode("utf-8"))  # expat: strict XML 1.0
    assert sorted(s.get("name", "") for s in root.iter("testsuite")) == sorted(shown)
    assert not _ACTIVE.search(text)


def _check_github(text: str) -> None:
    for line in text.splitlines():
        assert re.match(r"::(error|warning|notice) [^\n]*?::", line), line
        assert not line.startswith(("::add-mask::", "::stop-commands::"))
    assert not _ACTIVE.search(text)
    assert "\r" not in text


def _check_table(text: str, names: list[str], shown: list[str]) -> None:
    assert not _ACTIVE.search(text)
    assert "\t" not in text
    assert not any(line.startswith("::") for line in text.splitlines())
    lines = text.splitlines()
    for name in shown:
        assert any(line.startswith(name + " ") for line in lines), name
    # header (one or two lines), rule, a row per tool and unknown tool, total: nothing
    # forged in between
    table = lines[: lines.index("")]
    rule = next(i for i, line in enumerate(table) if set(line) == {"-", " "})
    assert rule in (1, 2) and len(table) == rule + 1 + 2 * len(names) + 1


@pytest.mark.parametrize(("hostile", "shown"), HOSTILE, ids=IDS)
def test_hostile_data_is_inert_in_every_audit_format(
    hostile: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = [hostile, *ORDINARY]
    shown_names = [shown, *ORDINARY]
    for redact in (False, True):
        folder = tmp_path / ("redacted" if redact else "plain")
        folder.mkdir()
        out = _audit(folder, names, capsys, *(["--redact"] if redact else []))
        _check_markdown(out["markdown"], names, shown_names)
        _check_json(out["json"], names, redact)
        _check_sarif(out["sarif"], names)
        _check_junit(out["junit"], shown_names)
        _check_github(out["github"])
        _check_html(out["html"], shown_names)
        _check_table(out["table"], names, shown_names)
        _check_comment(out["comment"], shown_names)


@pytest.mark.parametrize(("hostile", "shown"), HOSTILE, ids=IDS)
def test_hostile_data_is_inert_in_every_lint_format(
    hostile: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, _ = _inputs(tmp_path, [hostile, "search_docs"])
    outputs = {}
    for fmt in ("text", "json", "github", "sarif"):
        code, out, err = run_cli(["lint", str(catalog), "--format", fmt], capsys)
        assert code == 1, err
        outputs[fmt] = out
    *lines, summary = outputs["text"].splitlines()
    assert all(line.startswith(f"{catalog}:") for line in lines)
    assert summary.startswith(f"{len(lines)} findings in 1 file")  # one catalog
    assert f"`kw {shown}` is not a JSON Schema keyword" in outputs["text"]
    assert "`kw search_docs` is not a JSON Schema keyword" in outputs["text"]
    assert not _ACTIVE.search(outputs["text"]) and "\t" not in outputs["text"]
    messages = [f["message"] for f in _strict_json(outputs["json"])]
    assert f"`kw {hostile}` is not a JSON Schema keyword and is ignored" in messages
    _check_github(outputs["github"])
    sarif = _strict_json(outputs["sarif"])
    assert any(hostile in r["message"]["text"] for r in sarif["runs"][0]["results"])


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("x\n::error::forged.jsonl", "x\\n::error::forged.jsonl"),
        ("\x1b[2Jx.jsonl", "\\x1b[2Jx.jsonl"),
    ],
)
def test_a_hostile_file_name_is_one_visible_line_on_stderr(
    name: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, _ = _inputs(tmp_path, ["search_docs"])
    logs = tmp_path / "logs"
    logs.mkdir()
    os.mkfifo(logs / name)  # named, not opened: "not a regular file"
    code, _, err = run_cli(["audit", "--schemas", str(catalog), "--logs", str(logs)], capsys)
    assert code == 2
    assert err == f"auditor: error: {logs}/{shown}: not a regular file (a FIFO, socket or device)\n"


def test_a_non_utf8_file_name_never_writes_invalid_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, _ = _inputs(tmp_path, ["search_docs"])
    logs = tmp_path / "logs"
    logs.mkdir()
    line = json.dumps({"tool": "search_docs", "arguments": {"v": "long"}}) + "\n"
    with open(os.fsencode(logs) + b"/caf\xe9.jsonl", "wb") as stream:
        stream.write(line.encode())
    shown = f"{logs}/caf\\xe9.jsonl"  # the byte that is not UTF-8, as its escape
    for fmt in FORMATS:
        output = tmp_path / f"out.{fmt}"
        args = ["audit", "--schemas", str(catalog), "--logs", str(logs), "--format", fmt]
        args += ["--output", str(output), "--report-dir", str(tmp_path / "reports")]
        code, stdout, err = run_cli([*args, "--verbose"], capsys)
        assert code == 1, err
        assert shown in "".join(stdout.split())  # the table's detail (wrapped where it falls)
        err.encode("utf-8")  # strict: the files written, named on stderr
        stdout.encode("utf-8")  # strict: what reaches the terminal is UTF-8
        text = output.read_bytes().decode("utf-8")  # strict: no surrogate, no stray byte
        if fmt == "json":
            assert _strict_json(text)["inputs"]["logs"][0]["path"] == shown
        elif fmt == "sarif":
            first = _strict_json(text)["runs"][0]["results"][0]["properties"]["firstCall"]
            assert first == f"{shown}:1"
        elif fmt == "table":  # 80 columns: a path longer than a line is cut into lines
            assert shown in "".join(text.split())
        elif fmt == "comment":  # one screen: it names the full report, not the inputs
            assert f"{tmp_path}/reports/audit.md" in text
        elif fmt != "github":  # annotations name the catalog, not the log
            assert shown in html.unescape(text)
    for name in ("audit.md", "audit.json"):
        assert shown in (tmp_path / "reports" / name).read_bytes().decode("utf-8").replace(
            "\\\\", "\\"
        )


def test_the_json_writers_refuse_a_non_finite_number(tmp_path: Path) -> None:
    # The readers never let one in (1e400 is unparseable); were one to get past them, the
    # writer fails rather than write the Infinity that strict JSON parsers reject.
    catalog = "search:\n  type: object\n  properties:\n    n: {type: number, max_length: 1}\n"
    report = make_report(tmp_path, catalog, [("search", {"n": "long"})])
    result = report.calls[0]
    infinite = replace(result, call=replace(result.call, arguments={"n": float("inf")}))
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        json_report.render(replace(report, calls=(infinite,)))


def test_normalize_names_a_hostile_file_on_one_visible_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "catalogs"
    folder.mkdir()
    (folder / "x\n::error::forged.json").write_text(
        '{"search": {"type": "object", "min_properties": 1}}\n', encoding="utf-8"
    )
    code, out, _ = run_cli(["normalize", str(folder), "--check"], capsys)
    assert code == 1
    assert out == f"would normalize {folder}/x\\n::error::forged.json (1 rewrite)\n"
    code, out, _ = run_cli(["normalize", str(folder), "--diff"], capsys)
    assert code == 1
    assert out.splitlines()[:2] == [
        f"--- {folder}/x\\n::error::forged.json",
        f"+++ {folder}/x\\n::error::forged.json",
    ]


_LINKING = "@octocat #12 GH-3 www.evil.example a@evil.example deadbeef1"


def test_a_catalog_file_name_neither_links_nor_mentions_in_the_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "https:" / "evil.example"
    folder.mkdir(parents=True)
    catalog, log = _inputs(folder, ["search_docs"])
    named = folder / f"{_LINKING}.json"
    catalog.rename(named)
    args = ["audit", "--schemas", str(named), "--logs", str(log), "--no-report-files"]
    code, markdown, err = run_cli([*args, "--format", "markdown", "--output", "-"], capsys)
    assert code == 1, err
    summaries = [line for line in markdown.splitlines() if "<summary><code>" in line]
    assert summaries and all(_LINKING.split()[0][1:] in line for line in summaries)
    assert github_links(markdown) == []
    # The name as it is, once the zero-width spaces that break the links are taken out.
    assert f"{named}:" in html.unescape(summaries[0]).replace("\u200b", "")


def test_a_revision_name_neither_links_nor_mentions_in_the_markdown(tmp_path: Path) -> None:
    catalog = "search:\n  type: object\n  properties:\n    q: {type: string, max_length: 1}\n"
    report = make_report(tmp_path, catalog, [("search", {"q": "long"})])
    for against in (_LINKING, "main"):
        changed = replace(report, against=against, new_schema_inputs=report.schema_inputs)
        markdown = render(changed, Format.MARKDOWN)
        assert against in markdown.replace("\u200b", "")
        assert github_links(markdown) == []
