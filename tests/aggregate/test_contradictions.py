"""Calls the log contradicts form groups of their own, said so on the group and gated apart.

tests/fixtures/gate/contradiction_tools.yaml, normalized by the default rules: the one rewrite
is ``min_length`` -> ``minLength`` on ``path``; ``maximum`` on ``limit`` and ``required`` are
valid JSON Schema, which the lenient model enforced before and the normalization leaves alone.
Every call in contradiction_calls.jsonl was answered by an MCP ``result``: each ran.

- line 1 ``{"path": ""}``: the model accepts it (``min_length`` enforced nothing), it ran, and
  ``minLength`` rejects it: a proven regression caused by the rename.
- line 3 ``{"path": "a", "limit": 500}``: the model rejects it (``maximum`` 100), yet it ran:
  the log contradicts the model, and the new schema rejects it at the very ``maximum`` no
  change touched (no cause). A contradiction, not a regression.
- line 5 ``{"path": "", "limit": 500}``: both: a regression at ``minLength`` (proven: a change
  explains it) and a contradiction at ``maximum``.
- line 7 ``{"path": "a"}``: accepted.
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from tests.conftest import ROOT, run_cli

FIXTURES = ROOT / "tests" / "fixtures" / "gate"
CATALOG = str(FIXTURES / "contradiction_tools.yaml")
BOTH = str(FIXTURES / "contradiction_calls.jsonl")
ONLY = str(FIXTURES / "contradiction_only.jsonl")
"""Line 3 of the above alone (with its result)."""
FORMATS = {"json": "a.json", "markdown": "a.md", "junit": "a.xml", "sarif": "a.sarif"}


def _audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], log: str, *extra: str
) -> tuple[int, dict[str, str]]:
    outputs = [
        part
        for name, file in {**FORMATS, "github": "a.txt", "html": "a.html"}.items()
        for part in ("--format", name, "--output", str(tmp_path / file))
    ]
    args = ["audit", "--schemas", CATALOG, "--logs", log, "--no-report-files", "-q", *outputs]
    code, _, err = run_cli([*args, *extra], capsys)
    assert code in (0, 1), err
    names = {**FORMATS, "github": "a.txt", "html": "a.html"}
    return code, {name: (tmp_path / file).read_text() for name, file in names.items()}


def test_a_contradiction_is_a_group_apart_from_the_regression_at_its_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, texts = _audit(tmp_path, capsys, BOTH)
    assert code == 1  # the regression at minLength fails the run
    report = json.loads(texts["json"])
    groups = {(g["keyword"], g["contradicted"]): g for g in report["groups"]}
    assert set(groups) == {("minLength", False), ("maximum", True)}
    regression, contradiction = groups["minLength", False], groups["maximum", True]
    assert (regression["count"], regression["proven"]) == (2, 2)  # lines 1 and 5
    assert (contradiction["count"], contradiction["proven"]) == (2, 0)  # lines 3 and 5
    assert contradiction["causes"] == []
    assert report["proven_regressions"] == 2 and report["contradictions"] == 2
    assert report["gate"]["failing_groups"] == [regression["fingerprint"]]
    assert report["gate"]["contradicted_groups_fail"] is False
    # Said on the group: the contradiction, and what the upgrade must change to fail them.
    text = contradiction["hint"]["text"]
    assert "The log shows these 2 calls of `read_file` ran" in text
    assert "the old runtime did not enforce `maximum`" in text
    assert "fails them only if it starts enforcing `maximum`" in text
    # Last among the groups, in a section of its own.
    assert report["groups"][-1] is not None and report["groups"][-1]["contradicted"] is True
    markdown = texts["markdown"]
    assert markdown.index("## Newly rejected calls") < markdown.index("### 1. `")
    section = markdown.index("## Calls the log contradicts")
    assert section < markdown.index("`maximum` at `/properties/limit/maximum` (contradicted")
    assert "Of these, 1 group is contradicted by the log, not caused by the change" in markdown


def test_a_contradiction_alone_does_not_fail_the_default_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, texts = _audit(tmp_path, capsys, ONLY)
    assert code == 0
    report = json.loads(texts["json"])
    assert report["totals"]["newly_rejected"] == 1 and report["proven_regressions"] == 0
    [group] = report["groups"]
    assert group["contradicted"] and report["gate"]["failing_groups"] == []
    # Every format tells it apart: reported, not failing.
    assert '<p class="badge pass">PASS: 1 newly rejected call;' in texts["html"]
    [case] = ET.fromstring(texts["junit"]).iter("testcase")
    skipped = case.find("skipped")
    assert case.find("failure") is None and skipped is not None
    assert skipped.get("message") == "contradicted by the log: reported, does not fail the run"
    [result] = json.loads(texts["sarif"])["runs"][0]["results"]
    assert result["level"] == "warning" and result["properties"]["contradicted"] is True
    assert texts["github"].startswith("::warning ")
    assert "(contradicted by the log)" in texts["github"].splitlines()[0]
    assert "(contradicted by the log: reported, does not fail the run)" in texts["markdown"]


@pytest.mark.parametrize(("fail_on", "code"), [("schema-error", 0), ("any-change", 1)])
def test_only_any_change_fails_on_a_contradiction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fail_on: str, code: int
) -> None:
    got, texts = _audit(tmp_path, capsys, ONLY, "--fail-on", fail_on)
    assert got == code
    report = json.loads(texts["json"])
    assert report["gate"]["contradicted_groups_fail"] is (code == 1)
    [case] = ET.fromstring(texts["junit"]).iter("testcase")
    assert (case.find("failure") is not None) is (code == 1)
    [result] = json.loads(texts["sarif"])["runs"][0]["results"]
    assert result["level"] == ("error" if code else "warning")


def test_without_the_evidence_the_model_decides_and_nothing_is_contradicted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same call with no result answering it: the model rejects it before and after at an
    # unchanged maximum, so it is still rejected, no group at all.
    log = tmp_path / "calls.jsonl"
    log.write_text(Path(ONLY).read_text().splitlines()[0] + "\n")
    code, texts = _audit(tmp_path, capsys, str(log))
    assert code == 0
    report = json.loads(texts["json"])
    assert report["totals"]["still_rejected"] == 1 and report["groups"] == []
