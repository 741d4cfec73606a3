"""Any schema change against real traffic: two catalogs (``--new-schemas``) and a git
revision against the work tree (``--against``).

``tests/fixtures/change`` holds a base and a head catalog written by hand and a log; its
``expected.yaml`` gives every call's outcome and the change that causes it, reasoned from the
two catalogs. Both ways of naming the change must give exactly that.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from auditor.report import Format
from auditor.report.schema import report_schema
from tests.conftest import ROOT, run_cli, small_parts

FIXTURE = ROOT / "tests" / "fixtures" / "change"
EXPECTED: dict[str, Any] = yaml.safe_load((FIXTURE / "expected.yaml").read_text("utf-8"))
LOG = str(FIXTURE / "calls.jsonl")
NO_FILES = ["--no-report-files", "--max-calls", "0", "--fail-on", "never"]


def _report(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run_cli([*args, *NO_FILES, "--format", "json"], capsys)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    jsonschema.Draft202012Validator(report_schema()).validate(report)
    return report


def _outcomes(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each listed call by line: its outcome, and for rejected calls the failing keyword,
    where it stands and the changes named as its cause."""
    found: dict[str, dict[str, Any]] = {}
    for call in report["calls"]:
        line = call["source"].rpartition(":")[2]
        entry: dict[str, Any] = {"outcome": call["outcome"]}
        errors = call.get("errors") or []
        if call["outcome"] == "newly_rejected":
            (error,) = errors
            if error["keyword"] != "false":  # the removed tool's schema refuses everything
                entry["keyword"], entry["at"] = error["keyword"], error["schema_pointer"]
            entry["causes"] = [cause["pointer"] for cause in error["cause"]]
        found[line] = entry
    return found


def _check(report: dict[str, Any]) -> None:
    expected = {line: spec for line, spec in EXPECTED["calls"].items()}
    listed = _outcomes(report)
    # Accepted calls are not listed; every other expectation must be met exactly.
    assert {k: v for k, v in expected.items() if v["outcome"] != "accepted"} == listed
    accepted = sum(1 for spec in expected.values() if spec["outcome"] == "accepted")
    assert report["totals"]["accepted"] == accepted
    assert report["totals"]["calls"] == len(expected)
    never = {
        tool["name"]: [r["pointer"] for r in tool["rewrites"] if r["reached"] == 0]
        for tool in report["tools"]
    }
    assert {name: ps for name, ps in never.items() if ps} == EXPECTED["never_reached"]
    assert report["change"]["added_tools"] == EXPECTED["added_tools"]
    assert report["change"]["removed_tools"] == EXPECTED["removed_tools"]
    assert all(r["rule"] == "edit" for tool in report["tools"] for r in tool["rewrites"])


def test_two_catalogs_give_every_reasoned_outcome_and_cause(
    capsys: pytest.CaptureFixture[str],
) -> None:
    base, head = str(FIXTURE / "base.json"), str(FIXTURE / "head.json")
    report = _report(["audit", "--schemas", base, "--new-schemas", head, "--logs", LOG], capsys)
    _check(report)
    assert report["change"] == {
        "kind": "catalogs",
        "new_schemas": [head],
        "against": None,
        "added_tools": ["send_email"],
        "removed_tools": ["legacy_export"],
        "text_only_edits": 0,
    }


def test_the_same_catalog_on_both_sides_changes_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = str(FIXTURE / "base.json")
    report = _report(["audit", "--schemas", base, "--new-schemas", base, "--logs", LOG], capsys)
    assert report["coverage"]["rewrites"] == 0
    totals = report["totals"]
    assert totals["newly_rejected"] == totals["newly_accepted"] == 0
    # Rejected before (line 5 misses project_id, line 10's path is too short) and still.
    assert totals["still_rejected"] == 2


def test_every_format_says_what_the_change_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = str(FIXTURE / "base.json"), str(FIXTURE / "head.json")
    args = ["audit", "--schemas", base, "--new-schemas", head, "--logs", LOG, *NO_FILES]
    for fmt in Format:
        # The terminal says what the change is with the detail (--verbose), as files do.
        detail = ["--verbose"] if fmt is Format.TABLE else []
        code, out, err = run_cli([*args, "--format", fmt.value, *detail], capsys)
        assert code == 0, err
        if fmt in (Format.TABLE, Format.MARKDOWN, Format.HTML):
            assert "The change:" in out and "legacy_export" in out and "send_email" in out, fmt
        if fmt is not Format.JSON:  # JSON lists removed_tools (checked above)
            assert "to a tool the change removed" in out, fmt
    code, out, _ = run_cli([*args, "--format", "table", "--verbose"], capsys)
    assert "caused by /additionalProperties: added false" in out
    assert "caused by tool legacy_export removed" in out
    assert "11 of 12 changes were reached by a logged call; 1 was not reached by any" in out


def test_the_new_catalogs_are_normalized_only_when_rules_are_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.json"
    new = tmp_path / "new.json"
    log = tmp_path / "calls.jsonl"
    old.write_text(json.dumps({"t": {"type": "object"}}))
    new.write_text(json.dumps({"t": {"type": "object", "min_properties": 1}}))
    log.write_text(json.dumps({"tool": "t", "arguments": {}}) + "\n")
    args = ["audit", "--schemas", str(old), "--new-schemas", str(new), "--logs", str(log)]
    # As written, min_properties is not a keyword: the call passes on both sides.
    assert _report(args, capsys)["totals"]["accepted"] == 1
    # Normalized, it is minProperties, which {} fails.
    normalized = _report([*args, "--rules", "keyword-case"], capsys)
    assert normalized["totals"]["newly_rejected"] == 1
    (change,) = normalized["tools"][0]["rewrites"]
    assert (change["new_pointer"], change["change"]) == ("/minProperties", "add")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A repository whose commit holds base.json as tools/catalog.json, and whose work tree
    holds head.json there instead."""
    if shutil.which("git") is None:
        pytest.fail("git is needed for --against (and is on every CI runner)")
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "ci@example.com")
    _git(repo, "config", "user.name", "ci")
    shutil.copy(FIXTURE / "base.json", repo / "tools" / "catalog.json")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    shutil.copy(FIXTURE / "head.json", repo / "tools" / "catalog.json")
    return repo


def test_against_a_revision_gives_the_same_outcomes(
    repository: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repository)
    for schemas in ("tools/catalog.json", "tools", str(repository / "tools")):
        report = _report(
            ["audit", "--schemas", schemas, "--against", "main", "--logs", LOG], capsys
        )
        _check(report)
        assert report["change"]["kind"] == "git" and report["change"]["against"] == "main"
    # The work tree, the index and HEAD are as they were: nothing was checked out.
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repository, capture_output=True, text=True
    )
    assert status.stdout == " M tools/catalog.json\n"
    assert json.loads((repository / "tools" / "catalog.json").read_text()) == json.loads(
        (FIXTURE / "head.json").read_text()
    )


def test_against_from_outside_the_repository_reads_the_one_repo_names(
    repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    args = ["audit", "--schemas", str(repository / "tools"), "--against", "main", "--logs", LOG]
    # The repository is the one the user is in, never the one around a catalog's folder.
    code, out, err = run_cli([*args, *NO_FILES], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("auditor: error: --against needs a git work tree: run auditor in one, "
                          "or name it with --repo (not a git repository")  # fmt: skip
    _check(_report([*args, "--repo", str(repository)], capsys))
    _check(_report([*args, "--repo", str(repository / "tools")], capsys))


def test_a_catalog_the_revision_does_not_have_only_adds_tools(
    repository: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repository)
    (repository / "tools" / "more.json").write_text(json.dumps({"extra": {"type": "object"}}))
    report = _report(["audit", "--schemas", "tools", "--against", "main", "--logs", LOG], capsys)
    assert report["change"]["added_tools"] == ["extra", "send_email"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--against", "nope"], "--against nope: no such revision in this repository"),
        (["--against", "-x"], "--against '-x': not a git revision"),
        (["--against", "main", "--new-schemas", "x.json"],
         "--against and --new-schemas both name the new catalogs: give one"),
        (["--repo", "."], "--repo names the repository --against reads: give --against too"),
    ],
)  # fmt: skip
def test_an_unusable_revision_is_one_line_and_exit_2(
    repository: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(repository)
    code, out, err = run_cli(["audit", "--schemas", "tools", *args, "--logs", LOG], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"auditor: error: {message}") and err.count("\n") == 1, err


def test_against_outside_a_work_tree_or_the_repository_is_refused(
    repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(FIXTURE / "base.json", plain / "tools.json")
    args = ["--against", "main", "--logs", LOG]
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # whatever holds tmp_path
    monkeypatch.chdir(plain)
    code, _, err = run_cli(["audit", "--schemas", "tools.json", *args], capsys)
    assert code == 2 and err.startswith("auditor: error: --against needs a git work tree")
    code, _, err = run_cli(["audit", "--schemas", "tools.json", *args, "--repo", "."], capsys)
    assert code == 2 and err.startswith("auditor: error: --repo .: not a git work tree")
    monkeypatch.chdir(repository)
    mixed = ["audit", "--schemas", "tools", str(plain / "tools.json"), *args]
    code, _, err = run_cli(mixed, capsys)
    assert code == 2 and "outside the git work tree" in err and err.count("\n") == 1


def test_an_added_key_is_located_at_the_object_it_is_added_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text('{"t": {"type": "object",\n "properties": {"a": {"type": "object",\n'
                       ' "properties": {}}}}}\n')  # fmt: skip
    log = tmp_path / "calls.jsonl"
    log.write_text(json.dumps({"tool": "t", "arguments": {"a": {}}}) + "\n")
    args = ["audit", "--schemas", str(catalog), "--logs", str(log), "--rules", "close-objects"]
    (tool,) = _report(args, capsys)["tools"]
    located = {r["pointer"]: r["location"] for r in tool["rewrites"]}
    # The root object is the tool's (line 1, its key "t"); properties.a's key is on line 2.
    assert located == {
        "/properties/a/additionalProperties": f"{catalog}:2:17",
        "/additionalProperties": f"{catalog}:1:2",
    }


def test_jobs_do_not_change_a_catalog_change_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from auditor.engines import local as parallel

    small_parts(monkeypatch, 1024)
    in_parallel = parallel.tally_in_parallel
    taken: list[bool] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        counted = in_parallel(*args, **kwargs)
        taken.append(counted is not None)
        return counted

    monkeypatch.setattr(parallel, "tally_in_parallel", spy)
    log = tmp_path / "calls.jsonl"
    lines = (FIXTURE / "calls.jsonl").read_text("utf-8").splitlines()
    complete = [line for line in lines if line.endswith("}")]  # the cut line only once
    log.write_text("\n".join(complete * 40) + "\n")
    base, head = str(FIXTURE / "base.json"), str(FIXTURE / "head.json")
    args = ["audit", "--schemas", base, "--new-schemas", head, "--logs", str(log)]
    reports = [
        run_cli([*args, *NO_FILES, "--format", "json", "--jobs", jobs], capsys)[1]
        for jobs in ("1", "2")
    ]
    assert taken == [True]  # --jobs 2 read the log in parts
    assert reports[0] == reports[1]
    totals = json.loads(reports[0])["totals"]
    # 8 newly rejected calls among the 15 complete lines, 40 times over.
    assert (totals["calls"], totals["newly_rejected"]) == (15 * 40, 8 * 40)
