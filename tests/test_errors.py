"""One error model: every failure a user can act on is one line and exit 2; a bug is exit 3."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from auditor.aggregate.baseline import BaselineProblem
from auditor.aggregate.pipeline import Tally
from auditor.cli import EPILOG
from auditor.cli.common import UsageFailure
from auditor.cli.config import ConfigProblem
from auditor.engines.local import WorkerLost
from auditor.errors import EXIT_CODES, REPORT_REQUEST, AuditorError
from auditor.models import CallResult
from tests.conftest import ROOT, run_cli

CATALOG = '{"search": {"type": "object", "properties": {"q": {"type": "string"}}}}\n'
SECRET = "sk-live-7c1d9e0b4a"
"""A logged argument that no output of a crashed run may show."""


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    catalog = tmp_path / "tools.json"
    catalog.write_text(CATALOG)
    log = tmp_path / "calls.jsonl"
    log.write_text(f'{{"tool": "search", "arguments": {{"q": "{SECRET}"}}}}\n')
    return catalog, log


def _audit(inputs: tuple[Path, Path], *extra: str) -> list[str]:
    catalog, log = inputs
    return ["audit", "--schemas", str(catalog), "--logs", str(log), "--jobs", "1", *extra]


def _crash(self: Tally, result: CallResult, reached: frozenset[int]) -> None:
    arguments = result  # a local holding the logged argument, as a real frame would
    assert arguments is not None
    raise RuntimeError("tally out of step")


@pytest.mark.parametrize("debug", ["", "1"])
def test_a_crash_deep_in_the_pipeline_exits_3_in_one_line_without_logged_data(
    debug: str,
    inputs: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setattr(Tally, "add", _crash)
    monkeypatch.setenv("AUDITOR_DEBUG", debug)
    code, out, err = run_cli(_audit(inputs, "--report-dir", str(tmp_path / "r")), capsys)
    assert code == 3  # never 1: CI would read "calls would be newly rejected"
    line = f"auditor: internal error: RuntimeError: tally out of step; {REPORT_REQUEST}"
    assert SECRET not in out + err
    assert not (tmp_path / "r").exists()  # no report from a crashed run
    if debug:
        # The traceback follows the line, and names the frames but not their locals.
        assert err.startswith(line + "\nTraceback (most recent call last):\n")
        assert 'in _crash\n    raise RuntimeError("tally out of step")\n' in err
    else:
        assert err == line + "\n"


def test_an_internal_error_message_is_cut_to_one_short_line() -> None:
    from auditor.cli.guard import internal_error_line

    said = internal_error_line(ValueError("a\nb" + "x" * 500))
    assert "\n" not in said
    assert said.startswith("auditor: internal error: ValueError: a")
    # The line break shows as the two characters \n; 4 + 195 characters and "…" make 200.
    assert "a\\nb" + "x" * 195 + "…;" in said and "x" * 196 not in said
    assert internal_error_line(KeyError()) == (
        f"auditor: internal error: KeyError; {REPORT_REQUEST}"
    )


def test_every_stage_error_is_an_auditor_error_with_its_exit_code() -> None:
    for kind in (UsageFailure, ConfigProblem, BaselineProblem):
        assert issubclass(kind, AuditorError) and kind.exit_code == 2
    assert issubclass(WorkerLost, AuditorError) and WorkerLost.exit_code == 3
    assert WorkerLost("a worker process was killed").line() == (
        "internal error: a worker process was killed; no report was written"
    )


USAGE_ERRORS = {
    "a missing catalog": (
        lambda tmp, inputs: _audit((tmp / "nope.json", inputs[1])),
        "nope.json: no such file",
    ),
    "a bad baseline": (
        lambda tmp, inputs: _audit(inputs, "--baseline", str(tmp / "calls.jsonl")),
        "not an auditor baseline",
    ),
    "outputs that do not pair": (
        lambda tmp, inputs: _audit(inputs, "--format", "json", "--format", "sarif"),
        "2 --format but 0 --output",
    ),
    "an unknown rule family": (
        lambda tmp, inputs: _audit(inputs, "--rules", "camel"),
        "unknown rule family camel",
    ),
    "an unknown finding code": (
        lambda tmp, inputs: ["lint", str(inputs[0]), "--select", "ZZ9"],
        "unknown finding code ZZ9",
    ),
    "an option value out of range": (
        lambda tmp, inputs: [*_audit(inputs), "--jobs", "0"],
        "Invalid value for '--jobs' / '-j'",
    ),
    "a value that is no choice": (
        lambda tmp, inputs: [*_audit(inputs), "--fail-on", "sometimes"],
        "Invalid value for '--fail-on': 'sometimes' is not one of 'newly-rejected', "
        "'schema-error', 'any-change', 'never'. (see 'auditor audit --help')",
    ),
    "a value that is no number": (
        lambda tmp, inputs: [*_audit(inputs), "--examples", "many"],
        "Invalid value for '--examples': must be a valid integer",
    ),
    "a value above its maximum": (
        lambda tmp, inputs: [*_audit(inputs), "--fail-min-share", "2"],
        "Invalid value for '--fail-min-share': must be less than or equal to 1 "
        "(see 'auditor audit --help')",
    ),
    "an unknown option": (
        lambda tmp, inputs: [*_audit(inputs), "--colour"],
        "No such option: --colour",
    ),
    "a missing argument": (lambda tmp, inputs: ["normalize", "--diff"], "Missing argument"),
    "lint without catalogs": (
        lambda tmp, inputs: ["lint"],
        "give the catalogs to lint (PATH...), or schemas in the config file",
    ),
    "normalize without a mode": (
        lambda tmp, inputs: ["normalize", str(inputs[0])],
        "give exactly one of --diff, --check, --write",
    ),
}


@pytest.mark.parametrize("case", list(USAGE_ERRORS))
def test_every_usage_error_is_one_line_and_exit_2(
    case: str,
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    args, said = USAGE_ERRORS[case]
    code, _, err = run_cli(args(tmp_path, inputs), capsys)
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith("auditor: error: "), err
    assert said in err
    # Nothing of the libraries underneath: no panel, no validator's own prefixes.
    for leak in ("Value error", "Input should", "│", "╭", "Usage:", "Traceback"):
        assert leak not in err, leak


def test_a_config_error_is_one_line_and_exit_2(
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "auditor.toml").write_text("jobs = [\n")
    code, _, err = run_cli(_audit(inputs), capsys)
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"auditor: error: {tmp_path / 'auditor.toml'}: invalid TOML")


def test_every_exit_code_is_in_the_docs_and_in_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert sorted(EXIT_CODES) == [0, 1, 2, 3, 130, 143]
    for page in ("README.md", "docs/audit.md"):  # the short table and the full one
        text = (ROOT / page).read_text(encoding="utf-8")
        table = text.partition("## Exit codes\n\n")[2].partition("\n\n")[0]
        codes = sorted(int(code) for code in re.findall(r"^\| (\d+) \|", table, re.M))
        assert codes == sorted(EXIT_CODES), page
    for command in ([], ["audit"], ["lint"], ["normalize"]):
        code, out, _ = run_cli([*command, "--help"], capsys)
        assert code == 0
        flat = " ".join(out.replace("│", " ").split())
        for number, meaning in EXIT_CODES.items():
            assert f"{number} {meaning}" in flat, (command, number)
    assert EPILOG.startswith("Exit codes: 0 ")
