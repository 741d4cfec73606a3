"""CI gating end to end: --fail-on, baselines, format/output pairs, config, `auditor schema`."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest

from auditor.aggregate import gate
from auditor.aggregate.pipeline import ReportSettings
from auditor.errors import EXIT_FOUND
from auditor.models import FailOn, Gate, Group, Outcome
from auditor.report import Format, render
from auditor.report.schema import report_schema
from tests.conftest import run_cli
from tests.markdown_reader import plain
from tests.reporting import make_report, write_inputs

CATALOG = """\
search:
  type: object
  properties:
    tags: {type: array, min_items: 1}
    query: {type: string, max_length: 5}
  additional_properties: false
broken:
  type: object
  properties:
    ref: {$ref: "#/$defs/missing"}
"""


def _audit(catalog: Path, log: Path, *extra: str) -> list[str]:
    return [
        "audit",
        "--schemas",
        str(catalog),
        "--logs",
        str(log),
        "--no-report-files",
        "-q",
        *extra,
    ]


def test_baseline_generate_pass_new_rejection_fails_stale_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, log = write_inputs(tmp_path, CATALOG, [("search", {"tags": []})])
    baseline = tmp_path / "baseline.json"
    code, _, err = run_cli(_audit(catalog, log, "--generate-baseline", str(baseline)), capsys)
    assert code == 0, err
    entries = json.loads(baseline.read_text())["groups"]
    assert [e["keyword"] for e in entries] == ["minItems"]
    # Same log: the baseline accepts everything.
    code, _, _ = run_cli(_audit(catalog, log, "--baseline", str(baseline)), capsys)
    assert code == 0
    # A new rejection fails; the accepted one is counted; nothing is stale yet.
    write_inputs(tmp_path, CATALOG, [("search", {"tags": []}), ("search", {"query": "toolong"})])
    out_json = tmp_path / "r.json"
    code, _, _ = run_cli(
        _audit(
            catalog, log, "--baseline", str(baseline), "--format", "json", "--output", str(out_json)
        ),
        capsys,
    )
    assert code == 1
    report = json.loads(out_json.read_text())
    assert report["baseline"] == {
        "path": str(baseline),
        "accepted_groups": 1,
        "accepted_calls": 1,
        "stale": [],
    }
    assert len(report["gate"]["failing_groups"]) == 1
    # The baselined rejection goes away: its entry is stale.
    write_inputs(tmp_path, CATALOG, [("search", {"tags": ["x"]})])
    out_md = tmp_path / "r.md"
    code, _, _ = run_cli(
        _audit(
            catalog,
            log,
            "--baseline",
            str(baseline),
            "--format",
            "json",
            "--output",
            str(out_json),
            "--format",
            "markdown",
            "--output",
            str(out_md),
        ),
        capsys,
    )
    assert code == 0
    stale = json.loads(out_json.read_text())["baseline"]["stale"]
    assert stale == [entries[0]["fingerprint"]]
    assert "1 stale entry" in out_md.read_text()


def test_baseline_output_is_deterministic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, log = write_inputs(
        tmp_path, CATALOG, [("search", {"tags": [], "query": "toolong", "x": 1})]
    )
    texts = set()
    for name in ("a.json", "b.json"):
        run_cli(_audit(catalog, log, "--generate-baseline", str(tmp_path / name)), capsys)
        texts.add((tmp_path / name).read_text())
    assert len(texts) == 1


@pytest.mark.parametrize(
    ("fail_on", "calls", "code"),
    [
        ("newly_rejected", [("search", {"tags": []})], 1),
        ("never", [("search", {"tags": []})], 0),
        # A $ref to nothing: the lenient old reading enforced nothing there, and the new
        # schema cannot evaluate the call (schema_error_after): it fails after the change.
        ("newly_rejected", [("broken", {"ref": 1})], 1),
        ("never", [("broken", {"ref": 1})], 0),
        ("schema_error", [("broken", {"ref": 1})], 1),
        ("any-change", [("broken", {"ref": 1})], 1),
        ("schema_error", [("search", {"tags": ["x"]})], 0),
    ],
)
def test_fail_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fail_on: str, calls: list[object], code: int
) -> None:
    catalog, log = write_inputs(tmp_path, CATALOG, calls)
    assert run_cli(_audit(catalog, log, "--fail-on", fail_on), capsys)[0] == code


LEGACY = """\
legacy:
  type: Object
  properties:
    q: {type: String}
"""


@pytest.mark.parametrize(("fail_on", "code"), [("newly_rejected", 0), ("schema_error", 1)])
def test_schema_error_before_fails_only_from_schema_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fail_on: str, code: int
) -> None:
    """Under --old-runtime standard, `type: Object` made the old schema unusable: its calls
    were never checked before (schema_error_before), and the normalized one accepts this
    call. Nothing breaks after the change, so the default passes; schema-error adds them."""
    catalog, log = write_inputs(tmp_path, LEGACY, [("legacy", {"q": "x"})])
    out = tmp_path / "r.json"
    args = [*_audit(catalog, log, "--fail-on", fail_on, "--old-runtime", "standard")]
    assert run_cli([*args, "--format", "json", "--output", str(out)], capsys)[0] == code
    report = json.loads(out.read_text())
    assert report["totals"]["schema_error_before"] == 1
    assert len(report["gate"]["failing_groups"]) == code
    assert ("schema_error_before" in report["gate"]["failing_outcomes"]) is (code == 1)


def test_unusable_baseline_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog, log = write_inputs(tmp_path, CATALOG, [("search", {"tags": []})])
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    code, _, err = run_cli(_audit(catalog, log, "--baseline", str(bad)), capsys)
    assert code == 2 and "not an auditor baseline" in err


def test_format_output_pairs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog, log = write_inputs(tmp_path, CATALOG, [("search", {"tags": []})])
    sarif, junit = tmp_path / "a.sarif", tmp_path / "a.xml"
    code, out, _ = run_cli(
        _audit(
            catalog,
            log,
            "--format",
            "sarif",
            "--output",
            str(sarif),
            "--format",
            "junit",
            "--output",
            str(junit),
            "--format",
            "github",
            "--output",
            "-",
        ),
        capsys,
    )
    assert code == 1
    assert json.loads(sarif.read_text())["version"] == "2.1.0"
    assert junit.read_text().startswith("<?xml")
    assert out.startswith("::error ")
    code, _, err = run_cli(
        _audit(catalog, log, "--format", "sarif", "--format", "json", "--output", "x"), capsys
    )
    assert code == 2 and "2 --format but 1 --output" in err


def test_config_file_with_cli_precedence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog, log = write_inputs(tmp_path, CATALOG, [("search", {"tags": []})])
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.auditor]\nschemas = ["{catalog}"]\nlogs = ["{log}"]\nfail_on = "never"\n'
        "no_report_files = true\n"
    )
    monkeypatch.chdir(tmp_path)
    assert run_cli(["audit", "-q"], capsys)[0] == 0
    assert run_cli(["audit", "-q", "--fail-on", "newly_rejected"], capsys)[0] == 1
    # auditor.toml wins over pyproject.toml.
    (tmp_path / "auditor.toml").write_text(
        f'schemas = ["{catalog}"]\nlogs = ["{log}"]\nno_report_files = true\n'
    )
    assert run_cli(["audit", "-q"], capsys)[0] == 1
    (tmp_path / "auditor.toml").write_text("colour = 'red'\n")
    code, _, err = run_cli(["audit", "-q"], capsys)
    assert code == 2 and "unknown setting 'colour'" in err


def test_schema_command_prints_the_report_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["schema"], capsys)
    assert code == 0
    printed = json.loads(out)
    assert printed == report_schema()
    jsonschema.Draft202012Validator.check_schema(printed)


def test_the_gate_is_decided_once_per_run_whatever_the_formats_and_groups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 40 callers each break one constraint: 40 groups with --group-by caller, and 7 formats.
    calls = [{"tool": "search", "caller": f"c{i}", "arguments": {"tags": []}} for i in range(40)]
    catalog, log = write_inputs(tmp_path, CATALOG, [])
    log.write_text("".join(json.dumps(call) + "\n" for call in calls))
    asked: list[str] = []
    below = gate._below

    def counted(group: Group, fail_min_calls: int, fail_min_share: float) -> str | None:
        asked.append(group.fingerprint)
        return below(group, fail_min_calls, fail_min_share)

    monkeypatch.setattr(gate, "_below", counted)
    args = _audit(catalog, log, "--group-by", "caller", "--fail-min-calls", "1")
    for fmt in ("table", "markdown", "json", "sarif", "junit", "github", "html"):
        args += ["--format", fmt, "--output", str(tmp_path / f"out.{fmt}")]
    code, _, err = run_cli(args, capsys)
    assert code == 1, err
    assert len(asked) == len(set(asked)) == 40  # each group once, by gate.decide alone


def test_every_format_and_the_exit_code_read_the_gate_the_report_holds(tmp_path: Path) -> None:
    calls = [("search", {"tags": []}), ("broken", {"ref": 1})]
    report = make_report(tmp_path, CATALOG, calls, ReportSettings(fail_on=FailOn.SCHEMA_ERROR))
    rejected, unusable = sorted(
        report.groups, key=lambda g: g.outcome is Outcome.SCHEMA_ERROR_AFTER
    )
    assert report.gate == Gate(
        frozenset({rejected.fingerprint, unusable.fingerprint}),
        {},
        EXIT_FOUND,
        frozenset(
            {Outcome.NEWLY_REJECTED, Outcome.SCHEMA_ERROR_AFTER, Outcome.SCHEMA_ERROR_BEFORE}
        ),
        contradicted_fail=False,
    )
    # A record that says otherwise (the rejection below a threshold, only the unusable schema
    # failing) is what every format shows: none decides again.
    said = Gate(
        frozenset({unusable.fingerprint}),
        {rejected.fingerprint: "below x"},
        EXIT_FOUND,
        frozenset({Outcome.SCHEMA_ERROR_AFTER}),
        contradicted_fail=True,
    )
    report = replace(report, gate=said)
    document = json.loads(render(report, Format.JSON))
    assert document["gate"]["failing_groups"] == [unusable.fingerprint]
    assert document["gate"]["failing_outcomes"] == ["schema_error_after"]
    assert document["gate"]["contradicted_groups_fail"] is True
    assert {g["fingerprint"]: g["below_threshold"] for g in document["groups"]} == {
        rejected.fingerprint: "below x",
        unusable.fingerprint: None,
    }
    results = json.loads(render(report, Format.SARIF))["runs"][0]["results"]
    levels = {r["partialFingerprints"]["auditorGroup/v1"]: r["level"] for r in results}
    assert levels == {rejected.fingerprint: "warning", unusable.fingerprint: "error"}
    github = render(report, Format.GITHUB).splitlines()
    assert github[0].startswith("::error ") and unusable.fingerprint in github[0]
    assert github[1].startswith("::warning ") and rejected.fingerprint in github[1]
    suites = ET.fromstring(render(report, Format.JUNIT))
    failing = {s.get("name"): s.get("failures") for s in suites.iter("testsuite")}
    assert failing == {"broken": "1", "search": "0"}
    for fmt in (Format.MARKDOWN, Format.TABLE):
        text = plain(render(report, fmt))
        assert "fails on 1 group: broken" in text and "below x" in text, fmt
    page = render(report, Format.HTML)
    badge = "FAIL: 1 newly rejected call, 1 call that will fail on an unusable new schema; 1 group"
    assert f"{badge} fails" in page and "below x" in page
    # The run fails (exit 1), but the terminal's last line names the record's exit code.
    assert render(replace(report, gate=Gate()), Format.TABLE).rstrip().endswith("; exit 0")
