"""The terminal table: fitted to the width it is given (in cells), zero columns left out,
unknown tools counted only under "unknown tool", thousands separators, and a last summary
line: the verdict."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

GATEWAY = ["--schemas", "sample_logs/openai_gateway/tools.json"]
GATEWAY += ["--logs", "sample_logs/openai_gateway/calls.jsonl", "--no-report-files"]
# sample_logs/openai_gateway: 62 calls; no call is newly accepted or a schema error before,
# so those two columns are left out; 2 calls name unknown tools, 1 names none.
LAST = "10 calls would be newly rejected and 2 will fail on an unusable schema; exit 1"


def verdict(out: str) -> str:
    """The last paragraph of the terminal answer, its wrapped lines joined again."""
    return " ".join(line.strip() for line in out.rstrip("\n").rpartition("\n\n")[2].splitlines())


def _table(
    columns: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = run_cli(["audit", *GATEWAY], capsys)
    assert code == 1
    assert verdict(out) == LAST
    return out.partition("\n\n")[0].splitlines()


def test_a_wide_terminal_gets_the_full_labels_in_a_meaningful_order(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _table(200, capsys, monkeypatch)
    # The tool column is as wide as "cancel_subscription" (19); columns are 2 apart.
    labels = "calls  newly rejected  schema error after  still rejected  accepted  unparseable"
    assert table[0] == "tool".ljust(19) + "  " + labels + "  unknown tool  rewrites"
    assert table[2].split() == ["escalate", "6", "1", "0", "1", "4", "0", "0", "1"]
    # An unknown tool: its calls under "unknown tool", nothing under the other outcomes.
    unknown = table[-3]
    assert unknown.split() == ["refund_order", "1", "1"]
    assert len(unknown) == table[0].index("unknown tool") + len("unknown tool")
    assert table[-2].split() == ["(no", "tool", "named)", "1", "1"]
    assert len(table[-2]) == table[0].index("unparseable") + len("unparseable")
    assert table[-1].split() == ["total", "62", "10", "2", "10", "35", "3", "2", "7"]


def test_an_80_column_terminal_gets_abbreviated_labels_within_80(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _table(80, capsys, monkeypatch)
    assert table[0].split() == ["newly", "error", "still", "unpar-", "unkn."]
    assert table[1].split() == [
        "tool",
        "calls",
        "rej.",
        "after",
        "rej.",
        "acc.",
        "seable",
        "tool",
        "rewr.",
    ]
    assert max(map(len, table)) <= 80
    assert table[-1].split() == ["total", "62", "10", "2", "10", "35", "3", "2", "7"]


def test_a_narrow_terminal_gets_one_line_per_tool_wrapped_at_its_width(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _table(40, capsys, monkeypatch)
    # Broken at the last space that keeps 40 cells; the rest indented by two.
    assert table[:2] == [
        "escalate: 6 calls: 1 newly rejected, 1",
        "  still rejected, 4 accepted; 1 rewrite",
    ]
    assert table[-8:] == [
        "cancel_subscription: 1 call: 1 unknown",
        "  tool",
        "refund_order: 1 call: 1 unknown tool",
        "(no tool named): 1 call: 1 unparseable",
        "total: 62 calls: 10 newly rejected, 2",
        "  schema error after, 10 still rejected,",
        "  35 accepted, 3 unparseable, 2 unknown",
        "  tool; 7 rewrites",
    ]
    assert max(map(len, table)) <= 40


def test_a_table_in_a_file_has_the_fixed_width_whatever_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "200")
    out = tmp_path / "audit.txt"
    run_cli(["audit", *GATEWAY, "--format", "table", "--output", str(out)], capsys)
    assert out.read_text(encoding="utf-8") == (
        ROOT / "reports" / "openai_gateway" / "audit.txt"
    ).read_text(encoding="utf-8")


def _inputs(tmp_path: Path, tool: str, calls: list[object]) -> list[str]:
    catalog = tmp_path / "tools.json"
    schema = {"type": "object", "properties": {"tags": {"type": "array", "min_items": 1}}}
    catalog.write_text(json.dumps({tool: schema}))
    log = tmp_path / "calls.jsonl"
    log.write_text("".join(json.dumps({"tool": tool, "arguments": a}) + "\n" for a in calls))
    return ["audit", "--schemas", str(catalog), "--logs", str(log), "--no-report-files"]


def test_long_tool_names_are_cut_to_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "search_documents_in_the_knowledge_base_v2"  # 41 characters
    args = _inputs(tmp_path, name, [{"tags": ["a"]}])
    # Abbreviated: tool 41, calls 5, "newly rej." 5, "acc." 4, "rewr." 5, 4 gaps of 2: 68
    # columns; in 50 the name keeps 41 - 18 = 23 characters, the last one "…".
    monkeypatch.setenv("COLUMNS", "50")
    code, out, _ = run_cli(args, capsys)
    assert code == 0
    table = out.partition("\n\n")[0].splitlines()
    assert table[3].split() == [name[:22] + "…", "1", "0", "1", "1"]
    assert max(map(len, table)) == 50
    # 52 characters: the verdict too is wrapped at 50.
    assert out.splitlines()[-2:] == ["no call would be newly rejected (1 call read);", "  exit 0"]


def test_thousands_separators_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = _inputs(tmp_path, "search", [{"tags": []}] * 1200)
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_cli(args, capsys)
    assert code == 1
    table, groups, todo, verdict = out.split("\n\n")
    assert table.splitlines()[2].split() == ["search", "1,200", "1,200", "1"]
    # Every call fails minItems: the constraint contradicts real use, and lowering it to the
    # shortest list sent (0 items) is a patch.
    assert (
        groups == "1,200 calls  search: minItems at /properties/tags/minItems; loosen-schema, patch"
    )
    assert todo.splitlines()[1] == (
        "  Loosen the schema: 1 group (1,200 calls); 1 with a verified patch: --suggest-patch PATH."
    )
    assert verdict == "1,200 calls would be newly rejected; exit 1\n"
    # The detail: every group with its cause, under --verbose.
    code, out, _ = run_cli([*args, "--verbose"], capsys)
    assert "Newly rejected: 1,200 calls in 1 group" in out
    assert "  1,200 calls  search: minItems at /properties/tags/minItems; loosen-schema" in out


def test_a_run_writing_a_baseline_says_it_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _inputs(tmp_path, "search", [{"tags": []}])
    code, out, _ = run_cli([*args, "--generate-baseline", str(tmp_path / "b.json")], capsys)
    assert code == 0
    assert out.splitlines()[-1] == "1 call would be newly rejected; exit 0"


RED, GREEN, RESET = "\x1b[1;31m", "\x1b[1;32m", "\x1b[0m"


COLOUR_VARIABLES = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")


@pytest.mark.parametrize(
    ("tty", "environ", "option", "coloured"),
    [
        (False, {}, [], False),  # a pipe: never in auto
        (True, {}, [], True),
        (True, {"NO_COLOR": "1"}, [], False),  # NO_COLOR set
        (True, {"NO_COLOR": ""}, [], True),  # NO_COLOR empty counts as unset
        (False, {"FORCE_COLOR": "1"}, [], True),  # a CI log asks for colour
        (False, {"CLICOLOR_FORCE": "1"}, [], True),
        (False, {"CLICOLOR_FORCE": "0"}, [], False),  # 0 does not force
        (False, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, [], False),  # NO_COLOR wins
        (False, {}, ["--color", "always"], True),
        (False, {"NO_COLOR": "1"}, ["--color", "always"], True),  # asked for explicitly
        (True, {}, ["--color", "never"], False),
        (True, {"FORCE_COLOR": "1"}, ["--color", "never"], False),  # the flag wins
    ],
)
def test_colour_only_on_a_terminal_unless_asked(
    tty: bool,
    environ: dict[str, str],
    option: list[str],
    coloured: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = _inputs(tmp_path, "search", [{"tags": []}, {"tags": ["a"]}])
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    for name in COLOUR_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    code, out, err = run_cli([*args, *option], capsys)
    assert code == 1
    last = "1 call would be newly rejected; exit 1"
    *rest, end = out.splitlines()
    assert end == (f"{RED}{last}{RESET}" if coloured else last)
    assert "\x1b" not in "\n".join(rest) + err  # the summary line only, stdout only


def test_a_passing_run_is_green_and_a_file_never_coloured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _inputs(tmp_path, "search", [{"tags": ["a"]}])
    out_file = tmp_path / "t.txt"
    code, out, _ = run_cli([*args, "--color", "always"], capsys)
    assert code == 0
    assert (
        out.splitlines()[-1]
        == f"{GREEN}no call would be newly rejected (1 call read); exit 0{RESET}"
    )
    run_cli([*args, "--color", "always", "--format", "table", "--output", str(out_file)], capsys)
    assert "\x1b" not in out_file.read_text(encoding="utf-8")
