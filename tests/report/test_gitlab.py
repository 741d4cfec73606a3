"""`--format gitlab`: a GitLab Code Quality report, one issue per group."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from auditor.report.gitlab import MAX_DESCRIPTION, render
from auditor.report.source_root import SourceRoot
from tests.conftest import run_cli
from tests.reporting import make_report

CATALOG = "t:\n  type: object\n  properties:\n    q: {type: string, min_length: 3}\n"
KEYS = {"description", "check_name", "fingerprint", "severity", "location"}


def _issues(text: str) -> list[dict[str, Any]]:
    issues = json.loads(text)
    assert isinstance(issues, list)
    for issue in issues:
        assert set(issue) == KEYS
        assert set(issue["location"]) == {"path", "lines"}
        assert set(issue["location"]["lines"]) == {"begin"}
        assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
    return issues


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    return tmp_path / "repo"


def test_a_group_is_an_issue_at_its_key(repo: Path) -> None:
    report = make_report(repo, CATALOG, [("t", {"q": "ab"})])
    (issue,) = _issues(render(report, SourceRoot(repo, repo)))
    assert issue["check_name"] == "AUD001"
    assert issue["severity"] == "major"  # newly rejected: it fails the run
    # min_length, line 4 of tools.yaml at the repository's root
    assert issue["location"] == {"path": "tools.yaml", "lines": {"begin": 4}}
    assert issue["description"].startswith("t: 1 call fails minLength at /properties/q/minLength.")
    assert len(issue["fingerprint"]) == 64


def test_fingerprints_are_stable_across_logs_and_distinct_across_groups(repo: Path) -> None:
    where = SourceRoot(repo, repo)
    one = _issues(render(make_report(repo, CATALOG, [("t", {"q": "ab"})]), where))
    more = [("t", {"q": "a"}), ("t", {"q": ""}), ("t", {"q": "abcd"})]
    other = _issues(render(make_report(repo, CATALOG, more), where))
    assert [i["fingerprint"] for i in one] == [i["fingerprint"] for i in other]
    two = CATALOG + "u:\n  type: object\n  properties:\n    q: {type: string, min_length: 3}\n"
    both = _issues(render(make_report(repo, two, [("t", {"q": "a"}), ("u", {"q": "a"})]), where))
    assert len({i["fingerprint"] for i in both}) == 2


def test_a_hostile_logged_name_stays_one_short_line(repo: Path) -> None:
    # additional_properties: false is enforced once normalized; the calls send a property
    # whose name (logged text) holds a line break, an escape sequence and 2,000 characters.
    catalog = "t:\n  type: object\n  properties: {q: {type: string}}\n"
    catalog += "  additional_properties: false\n"
    name = "evil\n\x1b[31m" + "x" * 2_000
    report = make_report(repo, catalog, [("t", {"q": "a", name: 1})] * 3)
    (issue,) = _issues(render(report, SourceRoot(repo, repo)))
    text = issue["description"]
    assert "evil" in text  # the name is said, escaped
    assert "\n" not in text and "\x1b" not in text
    assert len(text) <= MAX_DESCRIPTION
    assert issue["location"] == {"path": "tools.yaml", "lines": {"begin": 4}}


def test_a_long_description_is_cut(repo: Path) -> None:
    tool = "t" * 600
    report = make_report(repo, CATALOG.replace("t:", f"{tool}:", 1), [(tool, {"q": "ab"})])
    (issue,) = _issues(render(report, SourceRoot(repo, repo)))
    assert len(issue["description"]) == MAX_DESCRIPTION
    assert issue["description"].endswith("…")


def test_paths_outside_the_root_and_remote_catalogs_are_kept(tmp_path: Path, repo: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    report = make_report(outside, CATALOG, [("t", {"q": "ab"})])
    where = SourceRoot(repo, repo)
    (issue,) = _issues(render(report, where))
    assert issue["location"]["path"] == (outside / "tools.yaml").as_posix()
    (summary,) = report.tools
    uri = "s3://bucket/tools.json"
    remote = dataclasses.replace(
        report,
        tools=(
            dataclasses.replace(
                summary,
                location=dataclasses.replace(summary.location, path=uri),
                rewrite_locations=tuple(
                    None if r is None else dataclasses.replace(r, path=uri)
                    for r in summary.rewrite_locations
                ),
            ),
        ),
    )
    (issue,) = _issues(render(remote, where))
    assert issue["location"] == {"path": uri, "lines": {"begin": 4}}


def test_audit_writes_gitlab(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = make_report(repo, CATALOG, [("t", {"q": "ab"})])
    assert report.groups
    args = ["audit", "--schemas", str(repo / "tools.yaml"), "--logs", str(repo / "calls.jsonl")]
    code, out, _ = run_cli([*args, "--format", "gitlab", "--output", "-", "-q"], capsys)
    assert code == 1
    (issue,) = _issues(out)
    assert issue["check_name"] == "AUD001"
