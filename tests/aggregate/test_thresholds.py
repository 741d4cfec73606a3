"""Usage thresholds of the gate: --fail-min-calls and --fail-min-share, at and around their
limits. Every expectation is worked out by hand from the documented meaning: a group of fewer
than N calls, or of a smaller share of its tool's logged calls than X, is reported but does not
fail the run; exactly N calls, or exactly the share X, fails."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.report.schema import report_schema
from tests.conftest import run_cli
from tests.reporting import write_inputs

CATALOG = """\
search:
  type: object
  properties:
    tags: {type: array, min_items: 1}
    query: {type: string, max_length: 5}
broken:
  type: object
  properties:
    ref: {$ref: "#/$defs/missing"}
"""

EMPTY_TAGS: tuple[str, dict[str, Any]] = ("search", {"tags": []})
"""Newly rejected by ``min_items -> minItems``: one group."""
LONG_QUERY = ("search", {"query": "toolong"})
"""Newly rejected by ``max_length -> maxLength``: another group of the same tool."""
FINE = ("search", {"tags": ["x"], "query": "ok"})
"""Accepted before and after: counts in the tool's calls, in no group."""


def _audit(tmp_path: Path, calls: list[Any], *extra: str) -> list[str]:
    catalog, log = write_inputs(tmp_path, CATALOG, calls)
    return [
        "audit",
        "--schemas",
        str(catalog),
        "--logs",
        str(log),
        "--no-report-files",
        "-q",
        "-j",
        "1",
        *extra,
    ]


def _json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: list[Any], *extra: str
) -> tuple[int, dict[str, Any], str]:
    """Exit code, the JSON report (checked against its schema) and stderr."""
    out = tmp_path / "audit.json"
    code, _, err = run_cli(
        _audit(tmp_path, calls, *extra, "--format", "json", "--output", str(out)), capsys
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(report, report_schema())
    return code, report, err


@pytest.mark.parametrize(
    ("rejected", "least", "code"),
    [
        (5, 5, 1),  # exactly N calls: fails
        (4, 5, 0),  # N - 1: below, and the only failing group, so the run passes
        (6, 5, 1),  # N + 1
        (1, 1, 1),  # the default: any group fails
        (1, 2, 0),
    ],
)
def test_min_calls_at_and_around_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rejected: int, least: int, code: int
) -> None:
    calls = [EMPTY_TAGS] * rejected + [FINE] * 3
    args = _audit(tmp_path, calls, "--fail-min-calls", str(least))
    assert run_cli(args, capsys)[0] == code


@pytest.mark.parametrize(
    ("rejected", "total", "share", "code"),
    [
        (7, 100, "0.07", 1),  # exactly the share (0.07 * 100 is 7.000000000000001 in floats)
        (7, 100, "0.0701", 0),  # just above the group's share: it is below
        (7, 100, "0.0699", 1),
        (1, 10, "0.1", 1),
        (1, 10, "0.10001", 0),
        (1, 3, "0.3333333333333333", 1),  # 1/3 is a little more than that decimal
        (1, 3, "0.33333333333333337", 0),  # ...and a little less than this one
        (3, 3, "1", 1),  # every call of the tool: a share of 1
        (2, 3, "1", 0),
        (1, 10_000, "0", 1),  # the default: any group fails
        (1, 1_000, "0.001", 1),
        (1, 1_001, "0.001", 0),  # one call in 1,001 is less than one in a thousand
    ],
)
def test_min_share_at_and_around_the_limit(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rejected: int,
    total: int,
    share: str,
    code: int,
) -> None:
    calls = [EMPTY_TAGS] * rejected + [FINE] * (total - rejected)
    args = _audit(tmp_path, calls, "--fail-min-share", share)
    assert run_cli(args, capsys)[0] == code


def test_the_share_is_of_the_tools_calls_not_of_all_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 2 of the 4 calls of `search` (0.5), but 2 of 20 calls read (0.1).
    calls = [EMPTY_TAGS] * 2 + [FINE] * 2 + [("broken", {})] * 16
    code, report, _ = _json(tmp_path, capsys, calls, "--fail-min-share", "0.5")
    assert code == 1
    (group,) = [g for g in report["groups"] if g["tool"] == "search"]
    assert (group["count"], group["tool_calls"], group["below_threshold"]) == (2, 4, None)
    code, report, _ = _json(tmp_path, capsys, calls, "--fail-min-share", "0.51")
    assert code == 0
    (group,) = [g for g in report["groups"] if g["tool"] == "search"]
    assert group["below_threshold"] == "below --fail-min-share 0.51"


# 20 calls of `search`: 5 with empty tags (share 0.25), 1 with a long query (share 0.05).
BOTH = [EMPTY_TAGS] * 5 + [LONG_QUERY] + [FINE] * 14


@pytest.mark.parametrize(
    ("extra", "failing", "below", "gate"),
    [
        # Both at their limit for the tags group; the query group is below both.
        (
            ["--fail-min-calls", "5", "--fail-min-share", "0.25"],
            ["minItems"],
            {"maxLength": "below --fail-min-calls 5 and --fail-min-share 0.25"},
            "1 group fails --fail-on newly-rejected, 1 more is below --fail-min-calls 5 and "
            "--fail-min-share 0.25",
        ),
        # Below the share only: it does not fail.
        (
            ["--fail-min-calls", "5", "--fail-min-share", "0.26"],
            [],
            {
                "minItems": "below --fail-min-share 0.26",
                "maxLength": "below --fail-min-calls 5 and --fail-min-share 0.26",
            },
            "no group fails --fail-on newly-rejected, 2 groups are below --fail-min-calls 5 or "
            "--fail-min-share 0.26",
        ),
        # Below the count only: it does not fail.
        (
            ["--fail-min-calls", "6", "--fail-min-share", "0.25"],
            [],
            {
                "minItems": "below --fail-min-calls 6",
                "maxLength": "below --fail-min-calls 6 and --fail-min-share 0.25",
            },
            "no group fails --fail-on newly-rejected, 2 groups are below --fail-min-calls 6 or "
            "--fail-min-share 0.25",
        ),
        # Both groups clear both thresholds.
        (
            ["--fail-min-calls", "1", "--fail-min-share", "0.05"],
            ["minItems", "maxLength"],
            {},
            "2 groups fail --fail-on newly-rejected",
        ),
        # The query group is below the share only (1 call: no count threshold in effect).
        (
            ["--fail-min-calls", "1", "--fail-min-share", "0.050001"],
            ["minItems"],
            {"maxLength": "below --fail-min-share 0.050001"},
            "1 group fails --fail-on newly-rejected, 1 more is below --fail-min-share 0.050001",
        ),
    ],
)
def test_both_thresholds_a_group_below_either_does_not_fail(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    failing: list[str],
    below: dict[str, str],
    gate: str,
) -> None:
    code, report, err = _json(tmp_path, capsys, BOTH, *extra)
    assert code == (1 if failing else 0)
    by_keyword = {g["keyword"]: g for g in report["groups"]}
    assert report["gate"]["failing_groups"] == [by_keyword[k]["fingerprint"] for k in failing]
    assert {k: g["below_threshold"] for k, g in by_keyword.items() if g["below_threshold"]} == (
        below
    )
    # The gate on stderr, once (under -q, all that is printed): how many groups fail, how many
    # a threshold let through, and the report that lists them; their fingerprints are there.
    assert err.count("auditor:") == 1
    assert " ".join(err.split()) == f"auditor: {gate}; see {tmp_path / 'audit.json'}"
    assert not any(g["fingerprint"] in err for g in report["groups"])


def test_the_thresholds_are_in_the_json_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, report, err = _json(tmp_path, capsys, BOTH)
    assert report["gate"]["fail_min_calls"] == 1 and report["gate"]["fail_min_share"] == 0
    assert all(g["below_threshold"] is None for g in report["groups"])
    assert "below" not in err
    _, report, _ = _json(tmp_path, capsys, BOTH, "--fail-min-calls", "3", "--fail-min-share", "1")
    assert (report["gate"]["fail_min_calls"], report["gate"]["fail_min_share"]) == (3, 1.0)


def test_a_baselined_group_or_one_fail_on_ignores_is_not_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = tmp_path / "baseline.json"
    code, _, _ = run_cli(
        _audit(tmp_path, [EMPTY_TAGS], "--generate-baseline", str(baseline)), capsys
    )
    assert code == 0
    calls = [EMPTY_TAGS, LONG_QUERY]
    # The baseline accepts the tags group: it is not "below a threshold" but accepted.
    code, report, _ = _json(
        tmp_path, capsys, calls, "--baseline", str(baseline), "--fail-min-calls", "2"
    )
    assert code == 0
    marks = {g["keyword"]: (g["baselined"], g["below_threshold"]) for g in report["groups"]}
    assert marks == {"minItems": (True, None), "maxLength": (False, "below --fail-min-calls 2")}
    # --fail-on never fails nothing: no threshold is needed to keep a group from failing.
    code, report, err = _json(
        tmp_path, capsys, calls, "--fail-on", "never", "--fail-min-calls", "2"
    )
    assert code == 0 and err == ""
    assert all(g["below_threshold"] is None for g in report["groups"])


def test_every_format_marks_a_group_below_a_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = {fmt: tmp_path / f"audit.{fmt}" for fmt in ("markdown", "html", "sarif", "junit")}
    pairs = [arg for fmt, path in outputs.items() for arg in ("--format", fmt, "--output", path)]
    args = _audit(tmp_path, BOTH, "--fail-min-calls", "2", *map(str, pairs))
    args += ["--format", "github", "--output", "-"]
    code, github, _ = run_cli(args, capsys)
    assert code == 1  # the tags group (5 calls) still fails
    reason = "below --fail-min-calls 2"
    markdown = outputs["markdown"].read_text(encoding="utf-8")
    assert f"({reason}: reported, does not fail the run)" in markdown
    assert (
        "fails on 1 group: " in markdown and "1 group below a usage threshold does not" in markdown
    )
    html = outputs["html"].read_text(encoding="utf-8")
    assert f"({reason}: reported, does not fail the run)</summary>" in html
    results = json.loads(outputs["sarif"].read_text(encoding="utf-8"))["runs"][0]["results"]
    levels = {r["properties"]["keyword"]: r["level"] for r in results}
    assert levels == {"minItems": "error", "maxLength": "warning"}
    below = [r for r in results if r["properties"]["keyword"] == "maxLength"]
    assert below[0]["properties"]["belowThreshold"] == reason
    suite = ET.parse(outputs["junit"]).getroot().find("testsuite[@name='search']")
    assert suite is not None
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "1")
    skipped = suite.findall("testcase/skipped")
    assert [s.get("message") for s in skipped] == [f"{reason}: reported, does not fail the run"]
    levels_github = [line.split(" ", 1)[0] for line in github.splitlines()]
    assert levels_github == ["::error", "::warning", "::error"]  # the summary last
    assert f"Reported, does not fail the run: {reason}." in github.splitlines()[1]
    assert "1 group below --fail-min-calls or --fail-min-share does not fail" in github


def test_the_table_marks_a_group_below_a_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [a for a in _audit(tmp_path, BOTH, "--fail-min-calls", "2") if a != "-q"]
    code, out, err = run_cli(args, capsys)
    assert code == 1
    assert "(below --fail-min-calls 2)" in " ".join(out.split())  # wrapped where it falls
    assert " ".join(err.split()) == (
        "auditor: 1 group fails --fail-on newly-rejected, 1 more is below --fail-min-calls 2"
    )


def test_a_schema_error_group_below_a_threshold_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = [("broken", {"ref": 1})]
    sarif = tmp_path / "a.sarif"
    args = _audit(tmp_path, calls, "--fail-on", "schema_error", "--format", "sarif")
    args += ["--output", str(sarif)]
    assert run_cli(args, capsys)[0] == 1
    assert run_cli([*args, "--fail-min-calls", "2"], capsys)[0] == 0
    (result,) = json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]
    assert result["level"] == "warning"


def test_thresholds_from_the_config_file_under_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog, log = write_inputs(tmp_path, CATALOG, [EMPTY_TAGS] * 3 + [FINE])
    monkeypatch.chdir(tmp_path)
    base = f'schemas = ["{catalog}"]\nlogs = ["{log}"]\nno_report_files = true\n'
    (tmp_path / "auditor.toml").write_text(base + "fail_min_calls = 4\n")
    assert run_cli(["audit", "-q", "-j", "1"], capsys)[0] == 0
    assert run_cli(["audit", "-q", "-j", "1", "--fail-min-calls", "3"], capsys)[0] == 1
    # A share of 3/4: a float and an integer both read as a fraction.
    (tmp_path / "auditor.toml").write_text(base + "fail_min_share = 0.75\n")
    assert run_cli(["audit", "-q", "-j", "1"], capsys)[0] == 1
    (tmp_path / "auditor.toml").write_text(base + "fail_min_share = 1\n")
    assert run_cli(["audit", "-q", "-j", "1"], capsys)[0] == 0
    (tmp_path / "auditor.toml").unlink()
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.auditor]\n{base}fail_min_share = 0.76\nfail_min_calls = 3\n"
    )
    code, _, err = run_cli(["audit", "-q", "-j", "1"], capsys)
    assert code == 0 and "is below --fail-min-share 0.76" in " ".join(err.split())


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--fail-min-calls", "0", "greater than or equal to 1"),
        ("--fail-min-calls", "-3", "greater than or equal to 1"),
        ("--fail-min-calls", "2.5", "--fail-min-calls"),
        ("--fail-min-calls", "many", "--fail-min-calls"),
        ("--fail-min-share", "1.01", "less than or equal to 1"),
        ("--fail-min-share", "-0.5", "greater than or equal to 0"),
        ("--fail-min-share", "5%", "--fail-min-share"),
        ("--fail-min-share", "inf", "less than or equal to 1"),
    ],
)
def test_an_out_of_range_threshold_exits_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, said: str
) -> None:
    code, out, err = run_cli(_audit(tmp_path, [EMPTY_TAGS], f"{option}={value}"), capsys)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and err.startswith("auditor: error: "), err
    assert option in err and said in err
