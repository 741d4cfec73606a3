"""A call log given as a catalog, and a catalog given as a log, are named for what they are."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from auditor.inputs.log_as_catalog import SNIFF_CHARS, looks_like_log
from auditor.inputs.sniff import looks_like_catalog
from tests.conftest import run_cli

CATALOG = {"lookup": {"type": "object", "properties": {"id": {"type": "string"}}}}
CALLS = [
    {"tool": "lookup", "arguments": {"id": "a"}},
    {"tool": "lookup", "arguments": {"id": "b"}},
    {"tool": "lookup", "arguments": {"id": 3}},
]
LOG_TEXT = "".join(json.dumps(call) + "\n" for call in CALLS)


def _audit(
    tmp_path: Path, schemas: Path, logs: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    return run_cli(
        ["audit", "--schemas", str(schemas), "--logs", str(logs), "--no-report-files", "-q"],
        capsys,
    )


@pytest.mark.parametrize("name", ["calls.jsonl", "calls.json", "calls.yaml"])
def test_a_log_given_to_schemas_says_did_you_mean_logs(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / name
    log.write_text(LOG_TEXT)
    code, out, err = _audit(tmp_path, log, log, capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"auditor: error: {log}: looks like a call log (JSON Lines), not a tool catalog; "
        "did you mean --logs?\n"
    )


def test_a_catalog_given_to_logs_says_did_you_mean_schemas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(CATALOG, indent=2))
    code, out, err = _audit(tmp_path, catalog, catalog, capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"auditor: error: {catalog}: looks like a tool catalog, not a call log; "
        "did you mean --schemas?\n"
    )


def test_the_right_way_round_audits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog, log = tmp_path / "tools.json", tmp_path / "calls.jsonl"
    catalog.write_text(json.dumps(CATALOG))
    log.write_text(LOG_TEXT)
    # `id: 3` fails `type: string` before and after: nothing newly rejected, exit 0.
    assert _audit(tmp_path, catalog, log, capsys)[0] == 0


def test_broken_yaml_that_is_no_log_keeps_its_own_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken, log = tmp_path / "tools.yaml", tmp_path / "calls.jsonl"
    broken.write_text("t:\n  enum: [a, b\n")
    log.write_text(LOG_TEXT)
    code, _, err = _audit(tmp_path, broken, log, capsys)
    assert code == 2 and err.startswith(f"auditor: error: {broken}:3:1: invalid YAML: ")


def test_json_lines_that_are_no_log_are_not_called_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines, log = tmp_path / "rows.jsonl", tmp_path / "calls.jsonl"
    lines.write_text('{"a": 1}\n{"b": 2}\n')  # JSON objects, but no log format's records
    log.write_text(LOG_TEXT)
    code, _, err = _audit(tmp_path, lines, log, capsys)
    assert code == 2 and "did you mean" not in err
    assert err.endswith(
        "not a catalog in a known format (tried: openai, openai-responses, anthropic, mcp, "
        "gemini, otel, schema, mapping): JSON Lines, a list of 2 objects with keys a, b\n"
    )


def test_an_empty_log_is_still_an_empty_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, log = tmp_path / "tools.json", tmp_path / "calls.jsonl"
    catalog.write_text(json.dumps(CATALOG))
    log.write_text("")
    code, _, err = _audit(tmp_path, catalog, log, capsys)
    assert code == 2 and "no call read from the logs" in err and "did you mean" not in err


def test_a_log_with_a_broken_line_is_still_a_log() -> None:
    assert looks_like_log(LOG_TEXT + "{not json\n" + LOG_TEXT)
    # Half the lines broken is not enough to say so.
    assert not looks_like_log(LOG_TEXT + "x\ny\nz\n")
    assert not looks_like_log("")


def test_only_complete_lines_are_sniffed() -> None:
    # A record cut by the window does not count against the log.
    line = json.dumps({"tool": "lookup", "arguments": {"id": "x" * 100}}) + "\n"
    text = line * (SNIFF_CHARS // len(line) + 5)
    assert looks_like_log(text)


def test_compressed_or_missing_files_are_not_sniffed_as_catalogs(tmp_path: Path) -> None:
    packed = tmp_path / "tools.json.gz"
    packed.write_bytes(gzip.compress(json.dumps(CATALOG).encode()))
    plain = tmp_path / "tools.json"
    plain.write_text(json.dumps(CATALOG))
    assert looks_like_catalog(str(plain))
    assert not looks_like_catalog(str(packed))
    assert not looks_like_catalog(str(tmp_path / "missing.json"))
    assert not looks_like_catalog(str(tmp_path))
    assert not looks_like_catalog("-")
