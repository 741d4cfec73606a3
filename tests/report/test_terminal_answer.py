"""The terminal's answer: concise by default (the table, one line per group, what to do, the
verdict last), every line within the terminal's width measured in cells, the gate said once
on stderr, in one short line, and nothing else under --quiet; the detail under --verbose."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.cells import cell_len

from auditor.report.cells import cut, wrap
from auditor.words import plural
from tests.conftest import ROOT, run_cli
from tests.samples import Scenario, scenarios

SCENARIOS = scenarios()
FINGERPRINT = re.compile(r"\b[0-9a-f]{16}\b")
RED, RESET = "\x1b[1;31m", "\x1b[0m"


def _run(
    scenario: Scenario,
    width: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *extra: str,
) -> tuple[int, str, str]:
    """``auditor audit`` on a sample as a user runs it (the default reports written into
    ``tmp_path/reports``), at ``COLUMNS=width``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", str(width))
    args = ["audit", "--schemas", str(ROOT / scenario.catalog), "--logs", str(ROOT / scenario.log)]
    return run_cli([*args, *extra], capsys)


def _expected_verdict(scenario: Scenario) -> str:
    """The verdict from the hand-reasoned totals of the default audit (expected.yaml)."""
    expected: dict[str, Any] = yaml.safe_load(scenario.expected.read_text(encoding="utf-8"))
    totals = expected.get("evidence_totals") or expected["lenient_totals"]
    newly, after = totals["newly_rejected"], totals["schema_error_after"]
    text = f"{newly} calls would be newly rejected"
    if after:
        text += f" and {after} will fail on an unusable schema"
    if "results" in expected:  # the results' verdict follows, counted apart
        results = expected["results"]["totals"]
        text += f"; {plural(results['newly_rejected'], 'result')} would be newly rejected"
    return text + "; exit 1"


def _gate_lines(tmp_path: Path) -> list[str]:
    """The gate's lines on stderr: the arguments', then the results' where there are some."""
    report = json.loads((tmp_path / "reports" / "audit.json").read_text(encoding="utf-8"))
    lines = []
    for subject, part in (("", report), ("results: ", report.get("results"))):
        if part is not None and (failing := len(part["gate"]["failing_groups"])):
            groups = plural(failing, "group")
            fail = "fails" if failing == 1 else "fail"
            lines.append(
                f"auditor: {subject}{groups} {fail} --fail-on newly-rejected; see reports/audit.md"
            )
    return lines


def _paragraphs(out: str) -> list[str]:
    return out.rstrip("\n").split("\n\n")


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_every_sample_fits_the_width_ends_with_its_verdict_and_says_the_gate_once(
    scenario: Scenario,
    width: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = _run(scenario, width, tmp_path, capsys, monkeypatch)
    assert code == 1
    for line in [*out.splitlines(), *err.splitlines()]:
        assert cell_len(line) <= width, line
    # The verdict is the last paragraph; at 80 columns and more, the last line.
    verdict = _expected_verdict(scenario)
    assert " ".join(_paragraphs(out)[-1].split()) == verdict
    if width >= 80:
        assert out.splitlines()[-1] == verdict
    # The gate, once a subject, on stderr only, short and in the option's spelling; no
    # fingerprint.
    gates = _gate_lines(tmp_path)
    assert "--fail-on" not in out and err.count("--fail-on") == len(gates)
    assert " ".join(err.split()).endswith(" ".join(gates))
    if width >= 80:
        assert err.splitlines()[-len(gates) :] == gates
    assert not FINGERPRINT.search(out + err)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_under_quiet_the_gate_line_is_all_that_is_printed(
    scenario: Scenario,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = _run(scenario, 80, tmp_path, capsys, monkeypatch, "-q")
    assert code == 1
    assert out == ""
    assert err == "".join(f"{line}\n" for line in _gate_lines(tmp_path))


def test_the_mcp_files_answer_is_at_most_40_lines_and_lists_the_first_10_groups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (scenario,) = [s for s in SCENARIOS if s.name == "mcp_files"]
    _, out, _ = _run(scenario, 80, tmp_path, capsys, monkeypatch)
    assert len(out.splitlines()) <= 40
    _, groups, todo, _ = _paragraphs(out)
    report = json.loads((tmp_path / "reports" / "audit.json").read_text(encoding="utf-8"))
    # Every group but the first 10 is counted on one line that says where they are.
    more = len(report["groups"]) - 10
    assert groups.splitlines()[-1] == (
        f"… and {more} more groups (see reports/audit.md, or --verbose)"
    )
    starts = [line for line in groups.splitlines() if re.match(r"\d+ calls? ", line)]
    assert len(starts) == 10
    # The first: edit_file's normalized schema is unusable (a $ref to nothing): its 5 calls.
    assert starts[0] == "5 calls  edit_file: normalized schema unusable, will fail; fix-schema"
    assert todo.splitlines()[0] == "What to do:"


def test_verbose_shows_every_group_with_its_detail_and_the_verdict_last(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (scenario,) = [s for s in SCENARIOS if s.name == "mcp_files"]
    code, out, err = _run(scenario, 80, tmp_path, capsys, monkeypatch, "--verbose")
    assert code == 1
    report = json.loads((tmp_path / "reports" / "audit.json").read_text(encoding="utf-8"))
    # Each group's fingerprint (what a baseline names), cause and hint.
    for group in report["groups"]:
        assert f"fingerprint: {group['fingerprint']}" in out
    assert out.count("hint: ") == len(report["groups"])
    assert "caused by /properties/edits/min_items: min_items → minItems" in out
    assert "Old runtime: lenient" in out
    assert out.splitlines()[-1] == _expected_verdict(scenario)
    assert max(cell_len(line) for line in out.splitlines()) <= 80
    assert err.count("--fail-on") == 1
    # -v is --verbose; --quiet with it is a contradiction, refused before anything runs.
    assert _run(scenario, 80, tmp_path, capsys, monkeypatch, "-v")[1] == out
    code, out, err = _run(scenario, 80, tmp_path, capsys, monkeypatch, "-v", "-q")
    assert (code, out) == (2, "")
    assert err == "auditor: error: --quiet prints no answer, --verbose all of it: give one\n"


def _catalog(tmp_path: Path, tools: dict[str, int], calls: list[tuple[str, Any]]) -> list[str]:
    """Each tool with ``n`` string properties ``p0``… of ``min_length: 2``, and a log."""
    catalog = {
        name: {
            "type": "object",
            "properties": {f"p{i}": {"type": "string", "min_length": 2} for i in range(n)},
        }
        for name, n in tools.items()
    }
    (tmp_path / "tools.json").write_text(json.dumps(catalog, ensure_ascii=False), "utf-8")
    log = "".join(
        json.dumps({"tool": t, "arguments": a}, ensure_ascii=False) + "\n" for t, a in calls
    )
    (tmp_path / "calls.jsonl").write_text(log, encoding="utf-8")
    return ["audit", "--schemas", "tools.json", "--logs", "calls.jsonl"]


def test_a_hundred_groups_show_the_ten_largest_and_count_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    # Each call sends "x" (too short) to one property: p0..p9 get 21 down to 12 calls, the 90
    # others one each; 255 calls, logged smallest groups first. One group per property.
    sizes = [21 - i if i < 10 else 1 for i in range(100)]
    calls = [("t", {f"p{i}": "x"}) for i in reversed(range(100)) for _ in range(sizes[i])]
    args = _catalog(tmp_path, {"t": 100}, calls)
    code, out, _ = run_cli(args, capsys)
    assert code == 1
    _, groups, todo, verdict = _paragraphs(out)
    lines = groups.splitlines()
    assert len(lines) == 11
    for i, line in enumerate(lines[:10]):
        # Largest first, counts right-aligned; at most 21 of 255 calls each: caller bugs.
        assert line == f"{21 - i} calls  t: minLength at /properties/p{i}/minLength; fix-callers"
    assert lines[10] == "… and 90 more groups (see reports/audit.md, or --verbose)"
    assert todo.splitlines() == [
        "What to do:",
        "  Fix the callers: 100 groups (255 calls); the log names no caller.",
    ]
    assert verdict == "255 calls would be newly rejected; exit 1"
    # --verbose lists every one of them.
    _, out, _ = run_cli([*args, "--verbose"], capsys)
    assert len(re.findall(r"^  +\d+ calls? +t: minLength at ", out, re.MULTILINE)) == 100


CJK = "検索ツール"
"""Five characters, ten cells."""


def test_a_cjk_tool_name_takes_two_cells_a_character(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "60")
    calls = [(CJK, {"p0": "x"}), (CJK, {"p0": "ok"}), ("search", {"p0": "ok"})]
    code, out, _ = run_cli(_catalog(tmp_path, {CJK: 1, "search": 1}, calls), capsys)
    assert code == 1
    table = _paragraphs(out)[0].splitlines()
    # Every row ends in the right-aligned rewrites column: as many cells as the header's.
    assert len({cell_len(line) for line in table}) == 1, table
    assert table[2].startswith("search" + " " * 6)  # padded to 10 cells, then 2
    assert table[3].startswith(CJK + "  ")  # 10 cells, the widest name: two spaces after
    assert all(cell_len(line) <= 60 for line in out.splitlines())
    # A name wider than the terminal is cut to fit, in cells, and wrapped in the group line.
    long_name = CJK * 8  # 80 cells
    calls = [(long_name, {"p0": "x"})]
    monkeypatch.setenv("COLUMNS", "50")
    code, out, _ = run_cli(_catalog(tmp_path, {long_name: 1}, calls), capsys)
    assert code == 1
    lines = out.splitlines()
    assert all(cell_len(line) <= 50 for line in lines), lines
    # Abbreviated headers on two lines, the rule, then the tool: 14 characters (28 cells) and
    # "…", as wide as 50 cells leave beside calls, "newly rej." and "rewr.".
    row = _paragraphs(out)[0].splitlines()[3]
    assert row.split()[0] == CJK * 2 + CJK[:4] + "…"


def test_wrapping_and_cutting_measure_cells() -> None:
    # 40 CJK characters are 80 cells: 30 cells a line is 15 characters, the rest indented.
    lines = wrap("検" * 40, 30, 4)
    assert lines == ["検" * 15, "    " + "検" * 13, "    " + "検" * 12]
    # Words break at spaces; the continuation lines hang under the text...
    text = "3 calls  abc: def ghi jkl mno pqr"
    assert wrap(text, 30, 9) == ["3 calls  abc: def ghi jkl mno", "         pqr"]
    # ... unless the hang would leave fewer than 20 cells for the text.
    assert wrap("3 calls  abc: def ghi jkl", 20, 9) == ["3 calls  abc: def", "ghi jkl"]
    # The default hang is the line's own indent and two more.
    text = "  " + "word " * 10
    assert wrap(text.rstrip(), 24) == [
        "  word word word word",
        "    word word word word",
        "    word word",
    ]
    # A cut keeps whole characters: "検索" is 4 cells and "…" one, within 6.
    assert cut("検索ツール", 6) == "検索…"
    assert cut("検索ツール", 10) == "検索ツール"
    assert cut("abcdefgh", 5) == "abcd…"


def test_a_wrapped_verdict_is_coloured_line_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "30")
    args = _catalog(tmp_path, {"t": 1}, [("t", {"p0": "x"})])
    code, out, err = run_cli([*args, "--color", "always"], capsys)
    assert code == 1
    head, _, verdict = out.rstrip("\n").rpartition("\n\n")
    # "1 call would be newly rejected; exit 1": 38 characters, wrapped at 30 ("rejected;"
    # would end in the 31st).
    assert verdict.splitlines() == [
        f"{RED}1 call would be newly{RESET}",
        f"{RED}  rejected; exit 1{RESET}",
    ]
    assert "\x1b" not in head + err


SARIF_AND_HTML = (
    "--format",
    "sarif",
    "--output",
    "a.sarif",
    "--format",
    "html",
    "--output",
    "a.html",
)


def test_the_gate_line_wraps_a_long_report_path_and_names_no_file_when_none_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "60")
    args = _catalog(tmp_path, {"t": 1}, [("t", {"p0": "x"})])
    folder = "reports-of-this-rather-long-run/of-today"  # the line: 102 characters
    code, _, err = run_cli([*args, "--report-dir", folder, "-q"], capsys)
    assert code == 1
    assert err.splitlines() == [
        "auditor: 1 group fails --fail-on newly-rejected; see",
        f"    {folder}/audit.md",
    ]
    code, out, err = run_cli([*args, "--no-report-files"], capsys)
    assert err == "auditor: 1 group fails --fail-on newly-rejected\n"
    assert "(--verbose lists them)" not in out  # one group: nothing left out
    # The first --output of a format that lists the groups is where they are.
    code, _, err = run_cli(
        [*args, "--no-report-files", "-q", *SARIF_AND_HTML],
        capsys,
    )
    assert err == "auditor: 1 group fails --fail-on newly-rejected; see a.html\n"


def test_a_name_is_escaped_before_it_is_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "40")
    # 30 characters that show as 120 (each control written as its \x.. escape).
    name = "\x1b" * 30
    code, out, err = run_cli(_catalog(tmp_path, {name: 1}, [(name, {"p0": "x"})]), capsys)
    assert code == 1
    assert "\x1b" not in out + err
    assert all(cell_len(line) <= 40 for line in out.splitlines()), out
    # Shown, not acted on; in the table, cut to the 19 cells 40 leave it, "…" the last.
    assert "\n" + "\\x1b" * 4 + "\\x…  " in out


def test_unusable_schemas_alone_and_a_baselined_group_are_said_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    catalog = {"broken": {"type": "object", "properties": {"r": {"$ref": "#/$defs/none"}}}}
    (tmp_path / "tools.json").write_text(json.dumps(catalog), encoding="utf-8")
    log = json.dumps({"tool": "broken", "arguments": {"r": 1}}) + "\n"
    (tmp_path / "calls.jsonl").write_text(log * 2, encoding="utf-8")
    args = ["audit", "--schemas", "tools.json", "--logs", "calls.jsonl", "--no-report-files"]
    # Whatever the gate makes of them (here it fails on nothing), the verdict says they fail.
    code, out, err = run_cli([*args, "--fail-on", "never"], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == (
        "no call would be newly rejected (2 calls read), but 2 calls will fail on an unusable "
        "schema; exit 0"
    )
    # A group the baseline accepts is marked, and does not fail the run.
    args = [*_catalog(tmp_path, {"t": 1}, [("t", {"p0": "x"})]), "--no-report-files"]
    assert run_cli([*args, "--generate-baseline", "baseline.json"], capsys)[0] == 0
    code, out, err = run_cli([*args, "--baseline", "baseline.json"], capsys)
    assert (code, err) == (0, "")
    assert "1 call   t: minLength at /properties/p0/minLength; review, patch (baseline)" in out
