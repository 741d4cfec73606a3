"""A verified patch is re-checked under the audit's own rules and profile (issue #29, item 4):
the catalog file edited by it, normalized again, must pass the group's calls and newly reject
none of the tool's other logged calls; a patch the profile undoes, or one that moves the
failure, is not offered, and says why in words a user can act on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli


def _catalog(tool: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": tool, "parameters": parameters}}


def _audit(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    tools: list[dict[str, Any]],
    calls: list[tuple[str, dict[str, Any]]],
    rules: str,
) -> tuple[dict[str, Any], str]:
    """The JSON report and the --suggest-patch diff of an audit under ``rules``."""
    (tmp_path / "tools.json").write_text(json.dumps(tools, indent=1) + "\n", encoding="utf-8")
    lines = [json.dumps({"tool": tool, "arguments": arguments}) for tool, arguments in calls]
    (tmp_path / "calls.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["audit", "--schemas", "tools.json", "--logs", "calls.jsonl", "--rules", rules]
    args += ["--no-report-files", "-q", "--format", "json", "--output", "report.json"]
    code, _, err = run_cli([*args, "--suggest-patch", "patch.diff"], capsys)
    assert code == 1, err
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    return report, (tmp_path / "patch.diff").read_text(encoding="utf-8")


def _reaudit(tmp_path: Path, capsys: pytest.CaptureFixture[str], rules: str) -> dict[str, Any]:
    """The JSON report of the same audit once ``git apply`` has applied the diff; it passes."""
    subprocess.run(["git", "apply", "patch.diff"], cwd=tmp_path, check=True)
    args = ["audit", "--schemas", "tools.json", "--logs", "calls.jsonl", "--rules", rules]
    code, out, err = run_cli([*args, "--no-report-files", "--format", "json"], capsys)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def _group(report: dict[str, Any], tool: str) -> dict[str, Any]:
    [group] = [g for g in report["groups"] if g["tool"] == tool]
    found: dict[str, Any] = group
    return found


REFUND = _catalog(
    "refund",
    {
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "reason": {"type": "string"}},
        "required": ["order_id"],
    },
)


def test_strict_mode_makes_a_property_required_and_no_drop_from_required_is_offered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # openai-strict sets `required` to every property: ["order_id", "reason"]. Six of seven
    # calls leave `reason` out, so the loosening is "drop reason from required": but the
    # catalog lists only order_id, and the profile would add reason back whatever the file
    # says. No edit of the file gives the patch.
    calls = [("refund", {"order_id": f"o{i}"}) for i in range(6)]
    calls.append(("refund", {"order_id": "o9", "reason": "late"}))
    report, diff = _audit(tmp_path, capsys, [REFUND], calls, "openai-strict")
    group = _group(report, "refund")
    assert (group["keyword"], group["hint"]["kind"], group["count"]) == (
        "required",
        "loosen-schema",
        6,
    )
    assert group["patch"] is None
    assert group["patch_problem"] == (
        "drop reason from required: not offered, no edit of the catalog gives it: --rules "
        "openai-strict writes /required/1 of the new schema itself, and the catalog has "
        "nothing there to edit"
    )
    assert diff == ""
    text = json.dumps(report)
    assert "out of range" not in text and "PatchError" not in text


CONVERT = _catalog(
    "convert",
    {"type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"]},
)


def test_a_patch_the_profile_turns_into_a_new_rejection_of_another_call_is_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # Strict mode closes the object: 4 of 6 calls send `unit` and are newly rejected. Adding
    # `unit` to properties lets them through, but the profile then makes `unit` required,
    # and the 2 calls without it (lines 5 and 6), accepted today, would be rejected.
    calls = [("convert", {"amount": i, "unit": "usd"}) for i in range(4)]
    calls += [("convert", {"amount": 10}), ("convert", {"amount": 11})]
    report, diff = _audit(tmp_path, capsys, [CONVERT], calls, "openai-strict")
    group = _group(report, "convert")
    assert (group["keyword"], group["count"]) == ("additionalProperties", 4)
    assert group["patch"] is None
    assert group["patch_problem"] == (
        "add property unit (string): not offered, the catalog edited so, normalized with "
        "--rules openai-strict, newly rejects 2 other logged calls of the tool "
        "(calls.jsonl:5, calls.jsonl:6): the patch would move the failure to them"
    )
    assert diff == ""


def test_the_same_patch_stands_when_no_logged_call_lacks_what_the_profile_requires(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # Every logged call sends `unit`: making it required rejects none of them, and the edit
    # normalized again accepts every one.
    calls = [("convert", {"amount": i, "unit": "usd"}) for i in range(5)]
    report, diff = _audit(tmp_path, capsys, [CONVERT], calls, "openai-strict")
    patch = _group(report, "convert")["patch"]
    assert patch is not None and patch["summary"] == "add property unit (string)"
    assert patch["file_problem"] is None and patch["file"] == "tools.json"
    assert '\n-     }\n+     },\n+     "unit": {"type": "string"}\n' in diff
    # Applied and audited again with the same rules: every call passes.
    assert _reaudit(tmp_path, capsys, "openai-strict")["totals"]["accepted"] == 5


def test_a_patch_strict_mode_leaves_alone_is_offered_and_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # The dormant `max_length: 3` wakes up under keyword-case; strict mode changes nothing
    # of a bound, so raising it to the longest query sent (5) is written as it is.
    search = _catalog(
        "search",
        {"type": "object", "properties": {"q": {"type": "string", "max_length": 3}}},
    )
    calls = [("search", {"q": "abcde"})] * 4 + [("search", {"q": "ab"})]
    report, diff = _audit(tmp_path, capsys, [search], calls, "keyword-case,openai-strict")
    patch = _group(report, "search")["patch"]
    assert patch is not None and patch["summary"] == "raise maxLength 3 → 5"
    assert '\n-      "max_length": 3\n+      "max_length": 5\n' in diff
    assert _reaudit(tmp_path, capsys, "keyword-case,openai-strict")["totals"]["accepted"] == 5
