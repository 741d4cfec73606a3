"""Calls that still send a property the change removed (issue #29, item 3).

The scenario is github-mcp-server's commit 7e79ae9a: its ``get_commit.snap`` before and
after, as the commit has them (tests/fixtures/github-mcp-server/), and three calls
(tests/fixtures/change_removed/). Reasoned from
the schemas:

- ``include_diff`` is removed and ``detail`` (an optional string enum) added; the object has
  no ``additionalProperties``, ``unevaluatedProperties``, ``propertyNames`` or
  ``patternProperties``: objects are open, so the new schema ignores ``include_diff``.
- Calls 1 (``release-bot``, ``include_diff: false``) and 3 (``copilot-review``,
  ``include_diff: true``) still send it: accepted before and after, and the finding lists
  them; call 2 (``release-bot``) sends neither and is not in it.
- The removal is harmless ("objects are open"); so is the added optional ``detail``, which
  only a call sending a property the old schema did not declare can meet. No counterexample.

Closed (``additionalProperties: false`` on both sides): calls 1 and 3 are newly rejected by
``additionalProperties``, caused by the removal (the property it no longer lets through);
call 2 is still accepted; the finding counts the 2 rejections.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.aggregate.pipeline import NewCatalogs, ReportSettings, Tally, count_calls, prepare
from auditor.aggregate.repeats import AcceptedRepeats, Known
from auditor.inputs.arguments import call_from
from auditor.inputs.catalog_formats import CatalogFormat
from auditor.inputs.catalogs import load_catalogs
from auditor.models import Call, Location, Outcome, Payload, ToolSchema
from auditor.replay.counterexamples import bites, harmless
from auditor.replay.tool import ToolReplay
from auditor.report.schema import report_schema
from auditor.schema.diff import compare
from tests.conftest import ROOT, run_cli

FIXTURES = ROOT / "tests" / "fixtures" / "change_removed"
SNAPS = ROOT / "tests" / "fixtures" / "github-mcp-server"
BEFORE, AFTER = SNAPS / "get_commit.before.snap", SNAPS / "get_commit.after.snap"
REMOVAL = {
    "pointer": "/properties/include_diff",
    "old": '{"default":true,"description":"Whether to include file diffs and stats in the '
    'response. Default is true.","type":"boolean"}',
    "new": "",
    "rule": "edit",
    "new_pointer": "/properties/include_diff",
    "change": "remove",
}
FORMATS = {"json": "audit.json", "markdown": "audit.md", "html": "audit.html"}
FORMATS |= {"sarif": "audit.sarif", "table": "audit.txt", "comment": "comment.md"}


def _audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], after: Path, before: Path | None = None
) -> tuple[int, dict[str, str]]:
    (tmp_path / "calls.jsonl").write_bytes((FIXTURES / "calls.jsonl").read_bytes())
    (tmp_path / "before.snap").write_bytes((before or BEFORE).read_bytes())
    outputs = [
        part
        for name, file in FORMATS.items()
        for part in ("--format", name, "--output", str(tmp_path / file))
    ]
    args = ["audit", "--schemas", str(tmp_path / "before.snap"), "--new-schemas", str(after)]
    args += ["--catalog-format", "mcp", "--logs", str(tmp_path / "calls.jsonl")]
    code, _, err = run_cli([*args, "--no-report-files", "-q", *outputs], capsys)
    assert code in (0, 1), err
    return code, {name: (tmp_path / file).read_text() for name, file in FORMATS.items()}


def _closed(tmp_path: Path, side: str) -> Path:
    """The fixture's ``side`` (``before``, ``after``) with its object closed."""
    tool = json.loads((SNAPS / f"get_commit.{side}.snap").read_text())
    tool["inputSchema"]["additionalProperties"] = False
    path = tmp_path / f"{side}-closed.snap"
    path.write_text(json.dumps(tool, indent=2))
    return path


def test_the_include_diff_scenario_reports_the_two_calls_and_the_removal_harmless(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _audit(tmp_path, capsys, AFTER)
    assert code == 0  # nothing is rejected: the calls are silently ignored, not refused
    report = json.loads(out["json"])
    jsonschema.validate(report, report_schema())
    assert report["totals"]["accepted"] == 3
    calls = str(tmp_path / "calls.jsonl")
    assert report["removed_properties"] == [
        {
            "tool": "get_commit",
            "property": "include_diff",
            "pointer": "/include_diff",
            "change": REMOVAL,
            "objects_open": True,
            "calls": 2,
            "newly_rejected": 0,
            "callers": [
                {"caller": "copilot-review", "calls": 1},
                {"caller": "release-bot", "calls": 1},
            ],
            "more_callers": 0,
            "examples": [f"{calls}:1", f"{calls}:3"],
        }
    ]
    found = {c["change"]: c for c in report["counterexamples"]}
    assert set(found) == {"/properties/include_diff", "/properties/detail"}
    removal, added = found["/properties/include_diff"], found["/properties/detail"]
    assert removal["status"] == "harmless"
    assert removal["reason"].startswith("objects are open: ")
    assert added["status"] == "harmless"  # never {"detail": null}
    assert added["reason"].startswith("an added optional property: ")
    assert "not a proof" not in out["markdown"]
    assert "**harmless**: objects are open" in out["markdown"]


def test_every_format_where_changes_are_shown_lists_the_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = _audit(tmp_path, capsys, AFTER)
    line = "2 calls still send include_diff, which the change removed; objects are open"
    assert "## Calls that still send a removed property" in out["markdown"]
    assert (
        "2 calls still send `include_diff`, which the change removed; **objects are open**"
        in (out["markdown"])
    )
    assert "<h2>Calls that still send a removed property</h2>" in out["html"]
    assert (
        "<code>include_diff</code>, which the change removed; <strong>objects are open"
        in (out["html"])
    )
    assert (
        "**Calls that still send a removed property**: `get_commit` `include_diff` (2 calls, "
        "ignored: objects are open)."
    ) in out["comment"]
    assert "Calls that still send a removed property:" in out["table"]
    assert line in " ".join(out["table"].split())  # wrapped at the terminal's width
    sarif = json.loads(out["sarif"])["runs"][0]
    assert sarif["tool"]["driver"]["rules"][-1]["id"] == "AUD005"
    [note] = [r for r in sarif["results"] if r["ruleId"] == "AUD005"]
    assert note["level"] == "note"
    assert line in note["message"]["text"]
    region = note["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 9  # the removed "include_diff" key of before.snap


def test_closed_objects_reject_the_calls_that_still_send_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _audit(tmp_path, capsys, _closed(tmp_path, "after"), _closed(tmp_path, "before"))
    assert code == 1
    report = json.loads(out["json"])
    jsonschema.validate(report, report_schema())
    assert report["totals"]["newly_rejected"] == 2 and report["totals"]["accepted"] == 1
    rejected = [c for c in report["calls"] if c["outcome"] == "newly_rejected"]
    calls = str(tmp_path / "calls.jsonl")
    assert [c["source"] for c in rejected] == [f"{calls}:1", f"{calls}:3"]
    for call in rejected:
        [error] = call["errors"]
        assert error["keyword"] == "additionalProperties"
        assert error["cause"] == [REMOVAL]
    [removed] = report["removed_properties"]
    assert (removed["objects_open"], removed["calls"], removed["newly_rejected"]) == (False, 2, 2)
    found = {c["change"]: c for c in report["counterexamples"]}
    assert found.get("/properties/include_diff", {}).get("status") != "harmless"
    assert (
        "**the new schema refuses it**: 2 of them newly rejected (cause: the removal)"
        in (out["markdown"])
    )


def test_counterexamples_are_objects(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The old root accepts null as well; the new one only objects. Tool arguments are always
    # an object: null as the whole argument is no counterexample, and `type: object` at the
    # root rejects no object.
    old = {"lookup": {"type": ["object", "null"], "properties": {"q": {"type": "string"}}}}
    new = {"lookup": {"type": "object", "properties": {"q": {"type": "string"}}}}
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    (tmp_path / "calls.jsonl").write_text('{"tool": "lookup", "arguments": {"q": "a"}}\n')
    args = ["audit", "--schemas", str(tmp_path / "old.json"), "--new-schemas"]
    args += [str(tmp_path / "new.json"), "--logs", str(tmp_path / "calls.jsonl"), "-q"]
    args += ["--no-report-files", "--format", "json", "--output", str(tmp_path / "a.json")]
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    [found] = json.loads((tmp_path / "a.json").read_text())["counterexamples"]
    assert (found["change"], found["status"]) == ("/type", "harmless")
    assert found["arguments"] is None
    assert found["reason"].startswith("tool arguments are always an object")


def test_a_root_type_that_judges_members_too_is_not_proved_harmless() -> None:
    # `"$ref": "#"` applies the root to the member `child`, which may be null: there the
    # root's type rejects a value the old one ({"type": ["object", "null"]}) accepted.
    old: dict[str, Any] = {"type": ["object", "null"], "properties": {"child": {"$ref": "#"}}}
    new: dict[str, Any] = {"type": "object", "properties": {"child": {"$ref": "#"}}}
    tool = ToolSchema("t", old, Location("old.json"), "", "mapping")
    replay = ToolReplay(tool, compare(tool, replace(tool, schema=new), frozenset()))
    [change] = replay.normalized.rewrites
    assert change.pointer == "/type"
    assert harmless(replay, change) is None
    assert bites(replay, change, {"child": None})
    flat = ToolReplay(tool, compare(tool, replace(tool, schema={"type": "object"}), frozenset()))
    [typed] = [r for r in flat.normalized.rewrites if r.pointer == "/type"]
    assert (harmless(flat, typed) or "").startswith("tool arguments are always an object")


def test_a_required_added_property_is_still_searched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `detail` added and required: a call without it is refused, caused by `required`; the
    # property's own subschema is not proved harmless then.
    old = {"t": {"type": "object", "properties": {"a": {"type": "string"}}}}
    new = {"t": {"type": "object", "properties": {"a": {}, "detail": {"enum": ["x"]}}}}
    new["t"]["required"] = ["detail"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    (tmp_path / "calls.jsonl").write_text('{"tool": "t", "arguments": {"detail": "x"}}\n')
    args = ["audit", "--schemas", str(tmp_path / "old.json"), "--new-schemas"]
    args += [str(tmp_path / "new.json"), "--logs", str(tmp_path / "calls.jsonl"), "-q"]
    args += ["--no-report-files", "--format", "json", "--output", str(tmp_path / "a.json")]
    run_cli(args, capsys)
    found = {
        c["change"]: c for c in json.loads((tmp_path / "a.json").read_text())["counterexamples"]
    }
    assert found["/properties/detail"]["status"] != "harmless"
    assert found["/required"]["status"] == "found"
    assert isinstance(found["/required"]["arguments"], dict)


def _calls(lines: list[dict[str, Any]]) -> list[Call]:
    return [
        call_from(
            f"calls.jsonl:{n}",
            line["tool"],
            json.dumps(line["arguments"]),
            None,
            line.get("caller"),
        )
        for n, line in enumerate(lines, start=1)
    ]


def _tally(calls: list[Call]) -> Tally:
    before = load_catalogs([str(BEFORE)], fmt=CatalogFormat.MCP).tools
    after = load_catalogs([str(AFTER)], fmt=CatalogFormat.MCP).tools
    replays = prepare(before, frozenset(), new_catalogs=NewCatalogs(after, ("after.snap",)))
    return count_calls(replays, calls, ReportSettings())


def test_repeats_of_one_payload_keep_each_caller_and_parts_merge_to_one_pass() -> None:
    # 30 calls of one payload sending include_diff, by three callers in turn, and 30 that do
    # not: an accepted payload's repeats are counted without their records, which would
    # lose the callers; these are counted one by one. Split anywhere, merged in log order,
    # the counts, callers and first lines are one pass's.
    sent = {"owner": "o", "repo": "r", "sha": "s", "include_diff": False}
    lines = []
    for n in range(30):
        lines.append({"tool": "get_commit", "arguments": sent, "caller": f"bot-{n % 3}"})
        lines.append({"tool": "get_commit", "arguments": {"owner": "o", "repo": "r", "sha": "s"}})
    calls = _calls(lines)
    [whole] = _tally(calls).removed_sent.findings()
    assert (whole.calls, whole.newly_rejected, whole.ignored) == (30, 0, True)
    assert whole.callers == (("bot-0", 10), ("bot-1", 10), ("bot-2", 10))
    assert whole.examples == tuple(f"calls.jsonl:{n}" for n in (1, 3, 5, 7, 9))
    for cut in (1, 7, 31, 59):
        first = _tally(calls[:cut])
        first.merge(_tally(calls[cut:]))
        assert first.removed_sent.findings() == (whole,), cut


def test_a_payload_preloaded_as_accepted_is_still_counted_by_caller() -> None:
    # The distinct-first engines preload the payloads the whole log repeats, known accepted,
    # and count their calls without replaying them: one that sends a removed property is
    # replayed anyway, so each call keeps its caller; the other payload is only counted.
    sent = {"owner": "o", "repo": "r", "sha": "s", "include_diff": True}
    plain = {"owner": "o", "repo": "r", "sha": "s"}
    lines = [
        {"tool": "get_commit", "arguments": args, "caller": caller}
        for args, caller in [(sent, "a"), (plain, "a"), (sent, "b"), (plain, "b"), (sent, "b")]
    ]
    calls = _calls(lines)
    payloads = {AcceptedRepeats.payload(call) for call in calls}
    preload: dict[Payload, Known] = {p: (False, frozenset()) for p in payloads if p is not None}
    before = load_catalogs([str(BEFORE)], fmt=CatalogFormat.MCP).tools
    after = load_catalogs([str(AFTER)], fmt=CatalogFormat.MCP).tools
    replays = prepare(before, frozenset(), new_catalogs=NewCatalogs(after, ("after.snap",)))
    repeats = AcceptedRepeats(preload=preload)
    tally = count_calls(replays, calls, ReportSettings(), repeats)
    [found] = tally.removed_sent.findings()
    assert (found.calls, found.callers) == (3, (("b", 2), ("a", 1)))
    assert found.examples == ("calls.jsonl:1", "calls.jsonl:3", "calls.jsonl:5")
    assert tally.totals[Outcome.ACCEPTED] == 5


def test_the_commit_as_a_pull_request_against_its_parent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The repository's own layout: a folder of .snap files, the parent commit's at HEAD and
    # the commit's in the work tree; the same finding as between the two files.
    repo = tmp_path / "repo"
    snaps = repo / "pkg" / "github" / "__toolsnaps__"
    snaps.mkdir(parents=True)
    git = ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True, capture_output=True)
    shutil.copy(BEFORE, snaps / "get_commit.snap")
    subprocess.run([*git, "add", "."], cwd=repo, check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", "parent"], cwd=repo, check=True, capture_output=True)
    shutil.copy(AFTER, snaps / "get_commit.snap")
    shutil.copy(FIXTURES / "calls.jsonl", repo / "calls.jsonl")
    monkeypatch.chdir(repo)
    args = ["audit", "--schemas", "pkg/github/__toolsnaps__", "--catalog-format", "mcp"]
    args += ["--against", "HEAD", "--logs", "calls.jsonl", "--no-report-files", "-q"]
    code, _, err = run_cli(
        [*args, "--format", "json", "--output", str(tmp_path / "a.json")], capsys
    )
    assert code == 0, err
    report = json.loads((tmp_path / "a.json").read_text())
    [removed] = report["removed_properties"]
    assert (removed["property"], removed["calls"], removed["objects_open"]) == (
        "include_diff",
        2,
        True,
    )
    assert removed["examples"] == ["calls.jsonl:1", "calls.jsonl:3"]
