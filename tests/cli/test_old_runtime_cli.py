"""No false all-clear: on a catalog whose only dialect is capitalised type names, every format
and the gate say that calls will break (lenient, the default), and --old-runtime changes it
the way its documentation says."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.reporting import write_inputs

CATALOG = "t:\n  type: Object\n  properties:\n    n: {type: Integer}\n  required: [n]\n"
CALLS = [("t", {"n": 1}), ("t", {"n": "x"}), ("t", {})]
# lenient: "Object" and "Integer" enforce nothing; required [n] does. {n: 1} passes both
# sides; {n: "x"} passed before and fails the new type: newly rejected; {} failed required
# before and after: still rejected.
# standard: the old schema fails its meta-schema: all three are schema_error_before.
# none: {n: "x"} and {} are newly rejected.


def _audit(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    catalog, log = write_inputs(tmp_path, CATALOG, CALLS)
    outputs = []
    for fmt in ("json", "markdown", "junit", "github", "sarif", "html", "table"):
        outputs += ["--format", fmt, "--output", str(tmp_path / f"out.{fmt}")]
    code, _, err = run_cli(
        [
            "audit",
            "--schemas",
            str(catalog),
            "--logs",
            str(log),
            "--no-report-files",
            *outputs,
            *extra,
        ],
        capsys,
    )
    # A run that goes through names every file it wrote on stderr, in one line; the rest is
    # what it has to say.
    lines = err.splitlines(keepends=True)
    if code != 2:
        lines.remove("auditor: wrote " + ", ".join(outputs[3::4]) + "\n")
    return code, "".join(lines)


def _read(tmp_path: Path, fmt: str) -> str:
    return (tmp_path / f"out.{fmt}").read_text(encoding="utf-8")


def test_the_default_audit_fails_and_every_format_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _audit(tmp_path, capsys)
    assert code == 1
    # Once, short, on stderr; the groups are named in the reports (here the Markdown).
    said = f"auditor: 1 group fails --fail-on newly-rejected; see {tmp_path / 'out.markdown'}"
    assert " ".join(err.split()) == said
    table = " ".join(_read(tmp_path, "table").split())
    assert "fails on 1 group: t: 1 call fails type at /properties/n/type" in table
    data = json.loads(_read(tmp_path, "json"))
    assert data["old_runtime"] == "lenient"
    assert data["totals"]["newly_rejected"] == 1 and data["totals"]["still_rejected"] == 1
    assert data["gate"]["failing_groups"]
    assert data["tools"][0]["old_runtime_note"].startswith(
        'the old schema is not valid JSON Schema at `/properties/n/type` (`"Integer"`)'
    )
    assert "**1 of 3 logged calls would be newly rejected**" in _read(tmp_path, "markdown")
    assert "Old runtime: lenient" in _read(tmp_path, "markdown")
    junit = ET.fromstring(_read(tmp_path, "junit"))
    assert len(junit.findall(".//failure")) == 1
    assert any(line.startswith("::error ") for line in _read(tmp_path, "github").splitlines())
    sarif = json.loads(_read(tmp_path, "sarif"))
    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["error"]
    assert sarif["runs"][0]["properties"]["oldRuntime"] == "lenient"
    assert "Newly rejected: 1 call in 1 group" in _read(tmp_path, "table")
    assert "Old runtime: lenient" in _read(tmp_path, "html")


def test_standard_reproduces_the_unusable_old_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _audit(tmp_path, capsys, "--old-runtime", "standard")
    assert code == 0 and err == ""
    data = json.loads(_read(tmp_path, "json"))
    assert data["totals"]["schema_error_before"] == 3
    assert data["totals"]["newly_rejected"] == 0
    assert data["tools"][0]["old_runtime_note"] is None
    assert "Old runtime: standard" in _read(tmp_path, "table")
    assert ET.fromstring(_read(tmp_path, "junit")).findall(".//failure") == []


def test_none_counts_everything_the_new_schema_rejects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = _audit(tmp_path, capsys, "--old-runtime", "none")
    assert code == 1
    data = json.loads(_read(tmp_path, "json"))
    assert data["totals"]["newly_rejected"] == 2 and data["totals"]["accepted"] == 1
    assert "Old runtime: none" in _read(tmp_path, "markdown")


def test_the_old_runtime_is_a_config_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "auditor.toml").write_text('old_runtime = "standard"\n')
    code, _ = _audit(tmp_path, capsys)
    assert code == 0
    assert json.loads(_read(tmp_path, "json"))["old_runtime"] == "standard"
    (tmp_path / "auditor.toml").write_text('old_runtime = "sloppy"\n')
    code, err = _audit(tmp_path, capsys)
    assert code == 2 and "sloppy" in err


def test_a_failing_gate_names_its_groups_on_stderr_whatever_the_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _audit(tmp_path, capsys, "--old-runtime", "standard", "--fail-on", "schema_error")
    assert code == 1
    # schema_error_before calls are grouped by what the new schema says of them: one passes
    # it, one fails type, one fails required.
    assert " ".join(err.split()).startswith("auditor: 3 groups fail --fail-on schema-error; see")
    table = " ".join(_read(tmp_path, "table").split())
    assert "--fail-on schema-error fails on 3 groups: t: 1 call schema error before" in table
    assert "t: 1 call fails required at /required" in table
    github = _read(tmp_path, "github")
    assert github.startswith("::error ")  # a failing group is an error, whatever its outcome
