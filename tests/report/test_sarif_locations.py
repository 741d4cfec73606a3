"""SARIF for code scanning: paths from the source root, remote catalogs at a logical location,
at most 25,000 results most severe first, and an automation id per set of inputs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path, PurePosixPath
from typing import Any

import jsonschema
import pytest

from auditor.models import Location, Outcome, Report
from auditor.report import sarif
from auditor.report.lint import sarif as lint_sarif
from auditor.report.sarif_log import MAX_RESULTS, artifact_location
from auditor.report.source_root import SourceRoot
from auditor.schema.lint import lint_paths
from tests.conftest import ROOT
from tests.reporting import make_report

SARIF_SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-2.1.0.json").read_text())
REPO = SourceRoot(PurePosixPath("/repo/sub"), PurePosixPath("/repo"))
"""Run from ``/repo/sub`` in a repository at ``/repo``."""
CATALOG = "t:\n  type: object\n  properties:\n    q: {type: string, min_length: 3}\n"


def _validate(document: dict[str, Any]) -> None:
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(document)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tools.json", {"uri": "sub/tools.json", "uriBaseId": "%SRCROOT%"}),
        ("./a/../tools.json", {"uri": "sub/tools.json", "uriBaseId": "%SRCROOT%"}),
        ("../top.yaml", {"uri": "top.yaml", "uriBaseId": "%SRCROOT%"}),
        ("/repo/x/my tools.json", {"uri": "x/my%20tools.json", "uriBaseId": "%SRCROOT%"}),
        ("file:///repo/x/t.json", {"uri": "x/t.json", "uriBaseId": "%SRCROOT%"}),
        # Outside the root: an absolute file URI; a base id would make it another file.
        ("/etc/tools.json", {"uri": "file:///etc/tools.json"}),
        ("../../out/t.json", {"uri": "file:///out/t.json"}),
        ("/repository/t.json", {"uri": "file:///repository/t.json"}),  # not below /repo
    ],
)
def test_local_paths_are_relative_to_the_source_root(path: str, expected: dict[str, str]) -> None:
    assert artifact_location(path, REPO) == expected


@pytest.mark.parametrize(
    "uri", ["s3://bucket/tools.json", "gs://b/t.yaml", "https://example.com/tools.json"]
)
def test_a_remote_uri_is_no_artifact_location(uri: str) -> None:
    assert artifact_location(uri, REPO) is None


def test_the_source_root_is_the_repository_around_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    deep = tmp_path / "repo" / "a" / "b"
    deep.mkdir(parents=True)
    assert SourceRoot.find(deep) == SourceRoot(deep, tmp_path / "repo")
    (tmp_path / "repo" / "a" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's
    assert SourceRoot.find(deep).root == tmp_path / "repo" / "a"
    outside = tmp_path / "plain"
    outside.mkdir()
    # No repository around it (the temporary folder is in none): the working directory.
    assert SourceRoot.find(outside) == SourceRoot(outside, outside)


def _remote(report: Report, tool: str, uri: str) -> Report:
    """``report`` as if ``tool`` had been read from ``uri``: its catalog positions there."""
    tools = []
    for summary in report.tools:
        if summary.name == tool:
            where = [
                None if r is None else dataclasses.replace(r, path=uri)
                for r in summary.rewrite_locations
            ]
            summary = dataclasses.replace(
                summary,
                location=dataclasses.replace(summary.location, path=uri),
                rewrite_locations=tuple(where),
            )
        tools.append(summary)
    return dataclasses.replace(report, tools=tuple(tools), schema_inputs=(uri,))


def test_sarif_over_s3_and_absolute_paths_validates(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    inside, outside = repo / "cat", tmp_path / "elsewhere"
    inside.mkdir()
    outside.mkdir()
    calls = [("t", {"q": "ab"})]
    local = make_report(inside, CATALOG, calls)  # an absolute path inside the repository
    far = make_report(outside, CATALOG, calls)  # an absolute path outside it
    remote = _remote(far, "t", "s3://bucket/tools.json")
    where = SourceRoot(repo / "cat", repo)
    documents = [json.loads(sarif.render(r, root=where)) for r in (local, far, remote)]
    for document in documents:
        _validate(document)
    located = [d["runs"][0]["results"][0]["locations"][0] for d in documents]
    assert located[0]["physicalLocation"]["artifactLocation"] == {
        "uri": "cat/tools.yaml",
        "uriBaseId": "%SRCROOT%",
    }
    assert located[0]["physicalLocation"]["region"] == {"startLine": 4, "startColumn": 23}
    assert located[1]["physicalLocation"]["artifactLocation"] == {
        "uri": (outside / "tools.yaml").as_uri()
    }
    # The remote catalog: no physical location, the URI intact beside a logical location.
    (result,) = documents[2]["runs"][0]["results"]
    assert located[2] == {
        "logicalLocations": [
            {"name": "t", "fullyQualifiedName": "t#/properties/q/minLength", "kind": "object"}
        ]
    }
    assert result["properties"]["catalogUri"] == "s3://bucket/tools.json"
    assert "%3A" not in json.dumps(documents[2])


def test_the_automation_id_follows_the_catalogs_not_the_logs(tmp_path: Path) -> None:
    where = SourceRoot(tmp_path, tmp_path)
    one = make_report(tmp_path, CATALOG, [("t", {"q": "ab"})])
    ids = {
        json.loads(sarif.render(r, root=where))["runs"][0]["automationDetails"]["id"]
        for r in (one, dataclasses.replace(one, log_inputs=()))
    }
    (same,) = ids  # other logs, same catalogs: one category
    assert same.startswith("auditor-audit/") and same.endswith("/")
    assert len(same.split("/")) == 3
    other = dataclasses.replace(one, schema_inputs=("s3://bucket/tools.json",))
    assert json.loads(sarif.render(other, root=where))["runs"][0]["automationDetails"]["id"] != same
    # From a subfolder, the same catalog named by another relative path: the same category.
    (tmp_path / "sub").mkdir()
    from_sub = dataclasses.replace(one, schema_inputs=("../tools.yaml",))
    moved = SourceRoot(tmp_path / "sub", tmp_path)
    relative = dataclasses.replace(one, schema_inputs=("tools.yaml",))
    assert (
        json.loads(sarif.render(from_sub, root=moved))["runs"][0]["automationDetails"]
        == json.loads(sarif.render(relative, root=where))["runs"][0]["automationDetails"]
    )


def _many_groups(tmp_path: Path, count: int) -> Report:
    """A report of ``count`` groups built from one real group: in the report's order a note
    (newly accepted), a warning (schema error before) and an error (newly rejected), again
    and again, each its own fingerprint."""
    report = make_report(tmp_path, CATALOG, [("t", {"q": "ab"})])
    (group,) = report.groups
    outcomes = [Outcome.NEWLY_ACCEPTED, Outcome.SCHEMA_ERROR_BEFORE, Outcome.NEWLY_REJECTED]
    groups = tuple(
        dataclasses.replace(group, fingerprint=f"{i:016x}", outcome=outcomes[i % 3])
        for i in range(count)
    )
    failing = frozenset(g.fingerprint for g in groups if g.outcome is Outcome.NEWLY_REJECTED)
    return dataclasses.replace(
        report, groups=groups, gate=dataclasses.replace(report.gate, failing=failing)
    )


def test_30000_groups_give_25000_results_most_severe_first(tmp_path: Path) -> None:
    report = _many_groups(tmp_path, 30_000)
    document = json.loads(sarif.render(report, root=SourceRoot(tmp_path, tmp_path)))
    run = document["runs"][0]
    results = run["results"]
    # GitHub refuses a run of more than 25,000: 24,999 groups and the summary.
    assert len(results) == MAX_RESULTS
    kept, summary = results[:-1], results[-1]
    levels = [r["level"] for r in kept]
    assert levels == ["error"] * 10_000 + ["warning"] * 10_000 + ["note"] * 4_999
    # Within a level, the report's order: errors are groups 2, 5, 8, ...; notes 0, 3, 6, ...
    fingerprints = [r["partialFingerprints"]["auditorGroup/v1"] for r in kept]
    assert fingerprints[:2] == [f"{2:016x}", f"{5:016x}"]
    assert fingerprints[20_000:20_002] == [f"{0:016x}", f"{3:016x}"]
    assert fingerprints[-1] == f"{3 * 4_998:016x}"
    # The summary names what was cut: the last 5,001 notes.
    assert summary["ruleId"] == "AUD000" and summary["level"] == "note"
    assert summary["properties"] == {"cut": {"note": 5_001}, "cutTotal": 5_001}
    assert "5,001 more groups left out (5,001 note)" in summary["message"]["text"]
    rules = run["tool"]["driver"]["rules"]
    assert rules[summary["ruleIndex"]]["id"] == "AUD000"
    # Valid SARIF, checked on a slice (the results are all alike but for their fingerprint
    # and level; 25,000 of them would take the validator half a minute).
    run["results"] = [*kept[:: len(kept) // 50], summary]
    _validate(document)


def test_a_report_under_the_cap_is_whole_and_has_no_summary(tmp_path: Path) -> None:
    report = _many_groups(tmp_path, 7)
    run = json.loads(sarif.render(report, root=SourceRoot(tmp_path, tmp_path)))["runs"][0]
    assert [r["level"] for r in run["results"]] == ["error"] * 2 + ["warning"] * 2 + ["note"] * 3
    assert all(r["ruleId"] != "AUD000" for r in run["results"])
    assert all(rule["id"] != "AUD000" for rule in run["tool"]["driver"]["rules"])


def test_lint_sarif_takes_the_same_paths(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "tools.yaml").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "out.yaml").write_text(CATALOG, encoding="utf-8")
    paths = [str(repo / "tools.yaml"), str(tmp_path / "out.yaml")]
    result = lint_paths(paths, (), (), 1_000_000, False)
    assert len(result.findings) == 2  # min_length in each
    where = SourceRoot(repo, repo)
    document = json.loads(lint_sarif.render(result.findings, paths, root=where))
    _validate(document)
    run = document["runs"][0]
    artifacts = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert sorted(artifacts, key=str) == [
        {"uri": (tmp_path / "out.yaml").as_uri()},
        {"uri": "tools.yaml", "uriBaseId": "%SRCROOT%"},
    ]
    assert run["automationDetails"]["id"].startswith("auditor-lint/")
    # A remote catalog's finding: its logical location, the URI kept as given.
    finding = dataclasses.replace(result.findings[0], location=Location("gs://b/tools.yaml", 4, 26))
    (remote,) = json.loads(lint_sarif.render([finding], root=where))["runs"][0]["results"]
    assert "physicalLocation" not in remote["locations"][0]
    assert remote["properties"]["catalogUri"] == "gs://b/tools.yaml"
