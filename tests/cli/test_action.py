"""The GitHub Action: its audit step's arguments, the sticky pull-request comment (one
comment, updated in place), and the whole Action run step by step (the SARIF upload that
cannot fail a passing audit, matrix categories, outputs, the working directory), with
stand-in `auditor`, `gh` and actions."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.composite import Job, StandIn
from tests.conftest import ROOT

MARKER = "<!-- tool-schema-auditor report -->"


def _step(step_id: str | None = None, name: str | None = None) -> dict[str, Any]:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    steps = action["runs"]["steps"]
    found = next(
        s for s in steps if (step_id and s.get("id") == step_id) or (name and s.get("name") == name)
    )
    assert isinstance(found, dict)
    return found


def _stand_in(bin_dir: Path, name: str, script: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    path = bin_dir / name
    path.write_text("#!/bin/bash\n" + script)
    path.chmod(0o755)


ECHO = 'printf "%s\\n" "$@"\n'
"""A stand-in auditor that prints its arguments, one a line."""
REAL = f'PYTHONPATH={ROOT} exec {sys.executable} -m auditor "$@"\n'
"""This checkout's auditor, as the Action installs it."""


def _run_audit_step(
    tmp_path: Path, auditor: str = ECHO, **given: str
) -> subprocess.CompletedProcess[str]:
    step = _step(step_id="audit")
    _stand_in(tmp_path / "bin", "auditor", auditor)
    # setup-python puts `python` on the runner's PATH (action/sarif_category.py runs with it).
    _stand_in(tmp_path / "bin", "python", f'exec {sys.executable} "$@"\n')
    env = {key: "" for key in step["env"]}
    env |= {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", "GITHUB_OUTPUT": str(tmp_path / "out")}
    env |= {"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    env |= given
    return subprocess.run(
        ["bash", "-c", step["run"]], env=env, cwd=tmp_path, capture_output=True, text=True
    )


def _outputs(tmp_path: Path) -> dict[str, str]:
    """The audit step's outputs (``GITHUB_OUTPUT``: one ``name=value`` a line)."""
    lines = (tmp_path / "out").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def test_extra_formats_are_written_into_the_reports_folder(tmp_path: Path) -> None:
    done = _run_audit_step(tmp_path, ACTION_FORMATS="html junit markdown")
    words = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert words[-8:] == [
        "--format", "html", "--output", "auditor-reports/audit.html",
        "--format", "junit", "--output", "auditor-reports/audit.junit.xml",
    ]  # fmt: skip
    # markdown is written already (the report folder): not asked for twice.
    assert words.count("markdown") == 0


def test_an_unknown_extra_format_stops_the_step(tmp_path: Path) -> None:
    done = _run_audit_step(tmp_path, ACTION_FORMATS="html pdf")
    assert done.returncode == 2
    assert "::error::formats: unknown format 'pdf'" in done.stdout
    assert "audit" not in done.stdout.splitlines()  # auditor never ran


def test_free_form_args_are_word_split_without_globbing(tmp_path: Path) -> None:
    (tmp_path / "match-me.json").write_text("{}")
    done = _run_audit_step(tmp_path, ACTION_ARGS="--examples 5  --timestamp *.json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-4:] == ["--examples", "5", "--timestamp", "*.json"]


def _given(done: subprocess.CompletedProcess[str], option: str) -> list[str]:
    """The values the stand-in auditor got after ``option``, up to the next option."""
    words = done.stdout.splitlines()
    assert words.count(option) == 1, words
    values = words[words.index(option) + 1 :]
    return values[: next((i for i, w in enumerate(values) if w.startswith("--")), len(values))]


def test_path_lists_expand_their_globs_and_pass_names_like_options_as_paths(
    tmp_path: Path,
) -> None:
    (tmp_path / "catalogs").mkdir()
    for name in ["b.json", "a b.json", ".hidden.json", "notes.txt"]:
        (tmp_path / "catalogs" / name).write_text("{}")
    (tmp_path / "--generate-baseline=x.json").write_text("{}")
    (tmp_path / "-").write_text("{}")
    done = _run_audit_step(
        tmp_path, AUDITOR_SCHEMAS="catalogs/*.json  *.json\ttools/ ./* missing/*.json"
    )
    assert done.returncode == 0, done.stderr
    # The glob expands as bash sorts (C locale here), without dotfiles; a name that starts
    # with "-" is a path; a glob that matches nothing is passed as written (auditor names
    # it, exit 2, rather than audit fewer catalogs); a name with a space stays one word.
    assert _given(done, "--schemas") == [
        "catalogs/a b.json",
        "catalogs/b.json",
        "./--generate-baseline=x.json",
        "tools/",
        "./-",
        "./--generate-baseline=x.json",
        "./bin",
        "./catalogs",
        "missing/*.json",
    ]


def test_every_path_list_input_is_read_the_same_way(tmp_path: Path) -> None:
    (tmp_path / "--allow-empty.jsonl").write_text("")
    # A URI is passed as written, never globbed, whatever the checkout holds.
    (tmp_path / "s3:" / "bucket").mkdir(parents=True)
    (tmp_path / "s3:" / "bucket" / "day=1").write_text("")
    done = _run_audit_step(
        tmp_path,
        AUDITOR_LOGS="*.jsonl s3://bucket/day=? -",
        AUDITOR_NEW_SCHEMAS="--x.json",
        AUDITOR_SCHEMAS=" \n ",  # only whitespace: not given, as an empty input
    )
    assert done.returncode == 0, done.stderr
    assert _given(done, "--logs") == ["./--allow-empty.jsonl", "s3://bucket/day=?", "./-"]
    assert _given(done, "--new-schemas") == ["./--x.json"]
    assert "--schemas" not in done.stdout.splitlines()


def test_a_file_named_like_an_option_is_audited_as_a_catalog(tmp_path: Path) -> None:
    # A pull request adds files whose names are options; `schemas: "*.json"` matches them.
    # As options, the first would be the catalog and the second would write a baseline of
    # the current groups and exit 0: the gate passes whatever the change breaks.
    scenario = ROOT / "sample_logs" / "mcp_files"
    (tmp_path / "--catalog.json").write_bytes((scenario / "tools.json").read_bytes())
    (tmp_path / "--generate-baseline=x.json").write_text('{"decoy": {"type": "object"}}')
    (tmp_path / "calls.jsonl").write_bytes((scenario / "calls.jsonl").read_bytes())
    done = _run_audit_step(tmp_path, REAL, AUDITOR_SCHEMAS="*.json", AUDITOR_LOGS="calls.jsonl")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "x.json").exists()
    # Both are catalogs: the sample's newly rejected calls fail the audit (exit 1).
    assert _outputs(tmp_path)["exit-code"] == "1", done.stderr
    audited = json.loads((tmp_path / "auditor-reports" / "audit.json").read_text())
    assert audited["inputs"]["schemas"] == ["./--catalog.json", "./--generate-baseline=x.json"]


def test_extra_formats_are_split_without_globbing(tmp_path: Path) -> None:
    (tmp_path / "match-me.json").write_text("{}")
    done = _run_audit_step(tmp_path, ACTION_FORMATS="html *")
    assert done.returncode == 2
    assert "::error::formats: unknown format '*'" in done.stdout


GH = """# A stand-in gh: records each call's arguments and, for -F body=@FILE, the body sent;
# answers from files (NAME.json, each JSON value one page, through the call's --jq filter
# run by jq as gh runs it on each page; NAME.fail: the call fails with that text on stderr).
echo "$*" >> "$GH_DIR/calls"
filter=""
previous=""
for arg in "$@"; do
    case "$arg" in body=@*) cat "${arg#body=@}" > "$GH_DIR/sent.md";; esac
    [ "$previous" = --jq ] && filter="$arg"
    previous="$arg"
done
case "$*" in
    "api user "*) answer=user ;;
    "api graphql "*) answer=viewer ;;
    "api --paginate "*) answer=comments ;;
    "api --method PATCH "*) answer=patch ;;
    "api --method POST "*) answer=post ;;
    *) echo "unexpected call: $*" >&2; exit 9 ;;
esac
if [ -f "$GH_DIR/$answer.fail" ]; then cat "$GH_DIR/$answer.fail" >&2; exit 1; fi
if [ -n "$filter" ]; then
    [ -f "$GH_DIR/$answer.json" ] || { echo "no answer for $answer" >&2; exit 8; }
    exec jq -r "$filter" "$GH_DIR/$answer.json"
fi
"""

INSTALLATION_TOKEN = {"user_fail": "HTTP 403: Resource not accessible by integration"}
"""What /user answers to the job's GITHUB_TOKEN and to a GitHub App's token."""
ACTIONS_VIEWER = {"data": {"viewer": {"__typename": "Bot", "login": "github-actions"}}}


def _comment(number: int, login: str, body: str) -> dict[str, Any]:
    kind = "Bot" if login.endswith("[bot]") else "User"
    return {"id": number, "user": {"login": login, "type": kind}, "body": body}


NO_BODY = {"id": 3, "user": {"login": "alice", "type": "User"}, "body": None}


def _run_comment(
    tmp_path: Path, *pages: list[dict[str, Any]], **answers: object
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run the comment script against a pull request whose comments are ``pages``, with
    ``answers`` (``user``, ``viewer``: JSON; ``NAME_fail``: that call fails)."""
    report = tmp_path / "audit.md"
    report.write_text("# auditor: 3 calls newly rejected\n\n| tool | calls |\n")
    answered = tmp_path / "gh"
    answered.mkdir()
    _stand_in(tmp_path / "bin", "gh", GH)
    (answered / "comments.json").write_text("\n".join(json.dumps(page) for page in pages))
    for name, answer in answers.items():
        if name.endswith("_fail"):
            (answered / f"{name.removesuffix('_fail')}.fail").write_text(str(answer))
        else:
            (answered / f"{name}.json").write_text(json.dumps(answer))
    env = {
        "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin",
        "GITHUB_REPOSITORY": "acme/tools",
        "PR_NUMBER": "17",
        "GH_TOKEN": "t",
        "GH_DIR": str(answered),
    }
    script = ROOT / "action" / "sticky-comment.sh"
    done = subprocess.run(
        ["bash", str(script), str(report)], env=env, capture_output=True, text=True
    )
    calls = answered / "calls"
    return done, calls.read_text().splitlines() if calls.exists() else []


def _sent(tmp_path: Path) -> str:
    return (tmp_path / "gh" / "sent.md").read_text()


def _patched(calls: list[str]) -> list[str]:
    """The comment ids PATCHed, and "new" for each comment POSTed."""
    edits = []
    for call in calls:
        if call.startswith("api --method PATCH repos/acme/tools/issues/comments/"):
            edits.append(call.split()[3].rsplit("/", 1)[1])
        elif call.startswith("api --method POST repos/acme/tools/issues/17/comments -F body=@"):
            edits.append("new")
    return edits


def test_the_first_push_posts_one_comment_with_the_marker(tmp_path: Path) -> None:
    # No comment carries the marker yet (a reviewer's does not): no need to know who we are.
    done, calls = _run_comment(tmp_path, [_comment(5, "alice", "LGTM")])
    assert done.returncode == 0, done.stderr
    assert calls[0].startswith("api --paginate repos/acme/tools/issues/17/comments --jq")
    assert _patched(calls) == ["new"] and len(calls) == 2
    assert _sent(tmp_path) == f"{MARKER}\n# auditor: 3 calls newly rejected\n\n| tool | calls |\n"


def test_a_marked_comment_by_someone_else_is_left_alone(tmp_path: Path) -> None:
    # Anyone may comment a fake "report" that starts with the marker: editing it would put
    # the real report in a comment its author can rewrite after the audit.
    spoofed = _comment(11, "mallory", f"{MARKER}\n# auditor: nothing newly rejected\n")
    done, calls = _run_comment(tmp_path, [spoofed], **INSTALLATION_TOKEN, viewer=ACTIONS_VIEWER)
    assert done.returncode == 0, done.stderr
    assert _patched(calls) == ["new"]
    assert _sent(tmp_path).startswith(f"{MARKER}\n# auditor: 3 calls newly rejected\n")
    assert (
        "::notice::auditor: 1 comment(s) by others start with the report's marker; left alone "
        "(the report is the comment by github-actions[bot])"
    ) in done.stdout


def test_a_later_push_updates_our_own_marked_comment_in_place(tmp_path: Path) -> None:
    # Over two pages: a spoofed report first, another action's comment by the same bot
    # (no marker), then ours, and a later one of ours (left by an older run): the first of
    # ours is updated, none is added. A comment without a body is none of them.
    bot = "github-actions[bot]"
    pages = [
        [_comment(11, "mallory", MARKER), _comment(40, bot, "Coverage: 93%"), NO_BODY],
        [_comment(42, bot, f"{MARKER}\nold report"), _comment(77, bot, MARKER)],
    ]
    done, calls = _run_comment(tmp_path, *pages, **INSTALLATION_TOKEN, viewer=ACTIONS_VIEWER)
    assert done.returncode == 0, done.stderr
    assert _patched(calls) == ["42"]
    assert _sent(tmp_path).startswith(MARKER + "\n# auditor: 3 calls newly rejected")


@pytest.mark.parametrize(
    ("answers", "ours"),
    [
        # A personal access token: its user, as REST names it.
        ({"user": {"login": "alice"}}, "21"),
        # A GitHub App's token: /user is refused; GraphQL names the bot by its App's slug,
        # which REST spells with "[bot]" (whether GraphQL adds it or not). A user who took
        # the slug as a name is someone else.
        (
            {
                **INSTALLATION_TOKEN,
                "viewer": {"data": {"viewer": {"__typename": "Bot", "login": "audit-app"}}},
            },
            "51",
        ),
        (
            {
                **INSTALLATION_TOKEN,
                "viewer": {"data": {"viewer": {"__typename": "Bot", "login": "audit-app[bot]"}}},
            },
            "51",
        ),
        # Neither says who we are: the default token's bot.
        ({**INSTALLATION_TOKEN, "viewer_fail": "HTTP 403"}, "31"),
    ],
    ids=["personal token", "App token", "App token, [bot] in GraphQL", "unknown: default"],
)
def test_the_comment_updated_is_the_one_the_token_wrote(
    tmp_path: Path, answers: dict[str, object], ours: str
) -> None:
    marked = [
        _comment(11, "mallory", MARKER),
        _comment(21, "alice", MARKER),
        _comment(31, "github-actions[bot]", MARKER),
        _comment(50, "audit-app", MARKER),
        _comment(51, "audit-app[bot]", MARKER),
    ]
    done, calls = _run_comment(tmp_path, marked, **answers)
    assert done.returncode == 0, done.stderr
    assert _patched(calls) == [ours]
    # Who we are is asked once there is a marked comment: /user first, then GraphQL.
    asked = [" ".join(call.split()[:2]) for call in calls[1:-1]]
    assert asked == (["api user"] if "user" in answers else ["api user", "api graphql"])
    assert "::notice::auditor: 4 comment(s) by others" in done.stdout


def test_a_token_that_may_not_comment_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    # A fork's pull request gets a read-only token: reading may fail, or posting may.
    done, calls = _run_comment(tmp_path, [], comments_fail="HTTP 403")
    assert done.returncode == 0
    assert "::warning::auditor: could not read the pull request's comments" in done.stdout
    assert len(calls) == 1  # no POST after the refused read
    (tmp_path / "posting").mkdir()
    done, calls = _run_comment(tmp_path / "posting", [], post_fail="HTTP 403")
    assert done.returncode == 0
    assert "::warning::auditor: could not post the report comment" in done.stdout
    assert _patched(calls) == ["new"]


def test_the_comment_step_runs_only_on_pull_requests_when_asked() -> None:
    step = _step(name="Comment on the pull request")
    condition = " ".join(step["if"].split())
    assert "inputs.pr-comment == 'true'" in condition
    assert "github.event_name == 'pull_request'" in condition
    assert step["env"]["PR_NUMBER"] == "${{ github.event.pull_request.number }}"


RUN = "https://github.com/acme/tools/actions/runs/42"
"""This run's page, as the audit step's env builds it from github.server_url, repository and
run_id."""


def test_the_audit_step_writes_a_short_comment_pointing_at_the_runs_reports(
    tmp_path: Path,
) -> None:
    step = _step(step_id="audit")
    assert step["env"]["AUDITOR_RUN_URL"] == (
        "${{ github.server_url }}/${{ github.repository }}/actions/runs/${{ github.run_id }}"
    )
    scenario = ROOT / "sample_logs" / "mcp_files"
    for name in ("tools.json", "calls.jsonl"):
        (tmp_path / name).write_bytes((scenario / name).read_bytes())
    done = _run_audit_step(
        tmp_path,
        REAL,
        AUDITOR_SCHEMAS="tools.json",
        AUDITOR_LOGS="calls.jsonl",
        AUDITOR_RUN_URL=RUN,
    )
    assert done.returncode == 0, done.stderr
    assert _outputs(tmp_path)["exit-code"] == "1"  # the sample breaks calls
    comment = (tmp_path / "auditor-reports" / "comment.md").read_text(encoding="utf-8")
    lines = comment.splitlines()
    assert lines[0].startswith("### auditor: normalization audit: **FAIL**")
    assert len(lines) <= 60
    assert lines[-1] == (
        f"**Full report:** the `auditor-reports` artifact of [this run]({RUN}) (`audit.md`, "
        "`audit.json`)."
    )
    # The full report is beside it, in the folder the artifact uploads; the job summary has it.
    assert (tmp_path / "auditor-reports" / "audit.md").exists()
    assert (tmp_path / "summary.md").read_text(encoding="utf-8").startswith("# auditor: ")


def test_the_reports_are_uploaded_and_the_comment_posted_is_the_short_one(
    tmp_path: Path,
) -> None:
    upload = _step(name="Upload the reports")
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert upload["with"] == {
        "name": "${{ inputs.artifact-name }}",
        "path": "${{ steps.audit.outputs.reports }}",
    }
    comment_step = _step(name="Comment on the pull request")
    assert "steps.audit.outputs.comment-file != ''" in comment_step["if"]
    assert comment_step["env"]["COMMENT_FILE"] == "${{ steps.audit.outputs.comment-file }}"
    steps = [
        s.get("name") for s in yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]
    ]
    assert steps.index("Upload the reports") < steps.index("Comment on the pull request")
    # The step's own command, run with a stand-in gh: what it posts is comment.md.
    (tmp_path / "auditor-reports").mkdir()
    comment = "### auditor: normalization audit: **PASS**\n\nshort\n"
    (tmp_path / "auditor-reports" / "comment.md").write_text(comment)
    (tmp_path / "auditor-reports" / "audit.md").write_text("# the long report\n")
    answered = tmp_path / "gh"
    answered.mkdir()
    _stand_in(tmp_path / "bin", "gh", GH)
    (answered / "comments.json").write_text("[]")
    env = {
        "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin",
        "GITHUB_REPOSITORY": "acme/tools",
        "PR_NUMBER": "17",
        "GH_TOKEN": "t",
        "GH_DIR": str(answered),
        "COMMENT_FILE": "auditor-reports/comment.md",
    }
    command = comment_step["run"].replace("${{ github.action_path }}", str(ROOT))
    done = subprocess.run(
        ["bash", "-c", command], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert _sent(tmp_path) == f"{MARKER}\n{comment}"


# The whole Action, step by step (tests.cli.composite), with stand-ins for the actions it
# uses and for pip; auditor is this checkout's. -----------------------------------------

PYTHON = f"""# A stand-in python: pip installs nothing (auditor is this checkout's); the rest runs,
# its script named in python-calls.
if [ "$1 $2" = "-m pip" ]; then exit 0; fi
echo "${{1##*/}}" >> python-calls
exec {sys.executable} "$@"
"""


def _catalog(length_keyword: str) -> str:
    """One tool whose ``q`` must not be empty: ``minLength`` is JSON Schema, so normalizing
    changes nothing; ``min_length`` is a dialect spelling no validator evaluates, which
    normalizing turns into ``minLength``."""
    schema = {"type": "object", "properties": {"q": {"type": "string", length_keyword: 1}}}
    return json.dumps([{"name": "search", "description": "Search.", "input_schema": schema}])


CALLS = "".join(
    json.dumps({"tool": "search", "arguments": {"q": q}}) + "\n" for q in ("invoices", "")
)
"""Two logged calls; the empty q passed before and breaks once minLength is evaluated."""


@dataclass
class Uploads:
    """What the stand-ins of upload-artifact and upload-sarif were given."""

    sarif_works: bool = True
    artifacts: list[dict[str, str]] = field(default_factory=list)
    sarif: list[dict[str, Any]] = field(default_factory=list)

    def stand_ins(self) -> dict[str, StandIn]:
        return {
            "actions/setup-python": lambda given, workspace: (0, {}),
            "actions/upload-artifact": self._artifact,
            "github/codeql-action/upload-sarif": self._sarif,
        }

    def _artifact(self, given: Mapping[str, str], workspace: Path) -> tuple[int, dict[str, str]]:
        assert Path(given["path"]).is_dir()
        self.artifacts.append(dict(given))
        return 0, {}

    def _sarif(self, given: Mapping[str, str], workspace: Path) -> tuple[int, dict[str, str]]:
        log = json.loads(Path(given["sarif_file"]).read_text(encoding="utf-8"))
        ids = [run.get("automationDetails", {}).get("id") for run in log["runs"]]
        self.sarif.append({"category": given.get("category"), "ids": ids})
        # Where code scanning is unavailable, upload-sarif fails (HTTP 403 or 404).
        return (0, {"sarif-id": "1"}) if self.sarif_works else (1, {})


def _workspace(root: Path, length_keyword: str, folder: str = ".") -> Path:
    where = root / folder
    (where / "tools").mkdir(parents=True)
    (where / "tools" / "tools.json").write_text(_catalog(length_keyword))
    (where / "calls.jsonl").write_text(CALLS)
    return root


def _job(workspace: Path, uploads: Uploads, **inputs: str) -> Job:
    _stand_in(workspace / "bin", "auditor", REAL)
    _stand_in(workspace / "bin", "python", PYTHON)
    given = {"schemas": "tools/", "logs": "calls.jsonl", **inputs}
    github = {"event_name": "push", "server_url": "https://github.com", "repository": "acme/t"}
    job = Job(
        workspace, given, uploads.stand_ins(), github, path=f"{workspace / 'bin'}:/usr/bin:/bin"
    )
    return job.run()


NOTICE = "::notice::auditor: the SARIF was not uploaded: code scanning is unavailable here"


def test_a_passing_audit_passes_the_job_where_code_scanning_is_unavailable(
    tmp_path: Path,
) -> None:
    uploads = Uploads(sarif_works=False)
    job = _job(_workspace(tmp_path, "minLength"), uploads)
    assert job.outputs["exit-code"] == "0", job.step("Audit").stderr
    assert len(uploads.sarif) == 1  # it was tried, and failed
    upload = job.step("Upload SARIF")
    assert (upload.outcome, upload.conclusion) == ("failure", "success")
    assert NOTICE in job.step("Say why the SARIF is not in code scanning").stdout
    assert job.step("Fail per fail-on").outcome == "success"
    assert job.status == "success"


def test_where_code_scanning_works_no_notice_is_given(tmp_path: Path) -> None:
    uploads = Uploads(sarif_works=True)
    job = _job(_workspace(tmp_path, "minLength"), uploads)
    assert job.step("Upload SARIF").outcome == "success"
    assert job.step("Say why the SARIF is not in code scanning").outcome == "skipped"
    assert job.status == "success"


def test_a_failing_audit_fails_the_job_whether_or_not_the_sarif_was_uploaded(
    tmp_path: Path,
) -> None:
    for works in (True, False):
        uploads = Uploads(sarif_works=works)
        job = _job(_workspace(tmp_path / str(works), "min_length"), uploads)
        assert job.outputs["exit-code"] == "1"  # the empty q is newly rejected
        assert job.step("Fail per fail-on").outcome == "failure"
        assert job.status == "failure"
        assert len(uploads.sarif) == 1  # the SARIF goes up all the same, to be looked at


def test_matrix_jobs_upload_their_sarif_under_distinct_categories(tmp_path: Path) -> None:
    uploads = Uploads()
    for leg in ("catalogs-a", "catalogs-b"):
        workspace = _workspace(tmp_path / leg, "min_length")
        _job(workspace, uploads, **{"sarif-category": leg, "artifact-name": f"reports-{leg}"})
    # Given to upload-sarif, and written into the runs, whose own id upload-sarif prefers.
    assert uploads.sarif == [
        {"category": "catalogs-a", "ids": ["catalogs-a/"]},
        {"category": "catalogs-b", "ids": ["catalogs-b/"]},
    ]
    assert [a["name"] for a in uploads.artifacts] == ["reports-catalogs-a", "reports-catalogs-b"]
    assert [Path(a["path"]).name for a in uploads.artifacts] == [
        "reports-catalogs-a",
        "reports-catalogs-b",
    ]


def test_without_a_category_upload_sarif_derives_its_own(tmp_path: Path) -> None:
    uploads = Uploads()
    job = _job(_workspace(tmp_path, "min_length"), uploads)
    # upload-sarif reads an empty input as not given (getOptionalInput) and derives the
    # category from the workflow, the job and the matrix values; the Action writes none.
    # auditor's own automationDetails.id would win over that derivation: it is removed.
    assert job.step("Upload SARIF").given["category"] == ""
    assert uploads.sarif == [{"category": "", "ids": [None]}]
    assert (tmp_path / "python-calls").read_text() == "sarif_category.py\n"
    report = json.loads((tmp_path / "auditor-reports" / "audit.sarif").read_text())
    assert all("id" not in run.get("automationDetails", {}) for run in report["runs"])
    assert uploads.artifacts[0]["name"] == "auditor-reports"
    # Given a category, the Action writes it into the SARIF (action/sarif_category.py).
    _job(_workspace(tmp_path / "given", "min_length"), uploads, **{"sarif-category": "x"})
    assert (tmp_path / "given" / "python-calls").read_text() == "sarif_category.py\n"


def test_the_outputs_name_the_reports_written_in_the_working_directory(tmp_path: Path) -> None:
    uploads = Uploads()
    job = _job(
        _workspace(tmp_path, "min_length", "service"), uploads, **{"working-directory": "service"}
    )
    reports = tmp_path / "service" / "auditor-reports"
    assert job.outputs == {
        "exit-code": "1",
        "json-file": str(reports / "audit.json"),
        "markdown-file": str(reports / "audit.md"),
        "sarif-file": str(reports / "audit.sarif"),
    }
    report = json.loads((reports / "audit.json").read_text(encoding="utf-8"))
    assert report["inputs"]["schemas"] == ["tools/"]  # read in the working directory
    assert (reports / "audit.md").read_text(encoding="utf-8").startswith("# auditor: ")
    assert "runs" in json.loads((reports / "audit.sarif").read_text(encoding="utf-8"))
    assert uploads.artifacts == [{"name": "auditor-reports", "path": str(reports)}]
    assert not (tmp_path / "auditor-reports").exists()


def test_unusable_input_writes_no_report_and_fails_the_job(tmp_path: Path) -> None:
    uploads = Uploads()
    job = _job(_workspace(tmp_path, "minLength"), uploads, schemas="missing.json")
    assert job.outputs == {"exit-code": "2", "json-file": "", "markdown-file": "", "sarif-file": ""}
    assert job.step("Upload the reports").outcome == "skipped"
    assert job.step("Upload SARIF").outcome == "skipped"
    assert uploads.artifacts == [] and uploads.sarif == []
    assert job.status == "failure"


def test_a_report_folder_must_be_one_folder_name(tmp_path: Path) -> None:
    done = _run_audit_step(tmp_path, ACTION_ARTIFACT="../elsewhere")
    assert done.returncode == 2
    assert "::error::artifact-name: '../elsewhere' is no folder name" in done.stdout
    assert "audit" not in done.stdout.splitlines()  # auditor never ran


def test_every_action_used_is_pinned_by_a_release_commit() -> None:
    steps = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]["steps"]
    used = {step["uses"] for step in steps if "uses" in step}
    # The commits of the release tags (read from the actions' repositories); a tag can be
    # moved, a commit cannot. The release is in action.yml's comment beside each.
    assert used == {
        "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97",
        "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f",
        "github/codeql-action/upload-sarif@8aad20d150bbac5944a9f9d289da16a4b0d87c1e",
    }
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    for pin, release in [("5fda3b95", "v7.0.0"), ("bbbca2dd", "v7.0.0"), ("8aad20d1", "v4.36.2")]:
        assert re.search(rf"@{pin}[0-9a-f]{{32}}  # {re.escape(release)}$", text, re.MULTILINE)


def test_the_category_script_keeps_the_other_automation_details_and_refuses_no_sarif(
    tmp_path: Path,
) -> None:
    script = ROOT / "action" / "sarif_category.py"
    sarif = tmp_path / "audit.sarif"
    runs = [{"tool": {}, "automationDetails": {"id": "auditor/1", "guid": "g"}}, {"tool": {}}]
    sarif.write_text(json.dumps({"version": "2.1.0", "runs": runs}))
    done = subprocess.run(
        [sys.executable, str(script), str(sarif), "tools"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    written = json.loads(sarif.read_text())
    assert [run["automationDetails"] for run in written["runs"]] == [
        {"id": "tools/", "guid": "g"},
        {"id": "tools/"},
    ]
    (tmp_path / "notes.json").write_text('{"runs": 3}')
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "notes.json"), "tools"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stderr == f"sarif_category: {tmp_path / 'notes.json'}: no SARIF runs\n"
    assert (tmp_path / "notes.json").read_text() == '{"runs": 3}'
    # No category: the id goes, the rest stays, and a run left with nothing has no details.
    sarif.write_text(json.dumps({"version": "2.1.0", "runs": runs}))
    done = subprocess.run(
        [sys.executable, str(script), str(sarif), ""], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert [run.get("automationDetails") for run in json.loads(sarif.read_text())["runs"]] == [
        {"guid": "g"},
        None,
    ]
