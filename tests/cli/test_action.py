"""The GitHub Action's own parts: extra formats, free-form arguments, and the sticky
pull-request comment (one comment, updated in place), run with stand-in `auditor` and `gh`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

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
    env = {key: "" for key in step["env"]}
    env |= {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", "GITHUB_OUTPUT": str(tmp_path / "out")}
    env |= {"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    env |= given
    return subprocess.run(
        ["bash", "-c", step["run"]], env=env, cwd=tmp_path, capture_output=True, text=True
    )


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
    assert (tmp_path / "out").read_text() == "exit-code=1\n", done.stderr
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
    assert (tmp_path / "out").read_text() == "exit-code=1\n"  # the sample breaks calls
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
    assert upload["uses"] == "actions/upload-artifact@v4"
    assert upload["with"] == {"name": "auditor-reports", "path": "auditor-reports/"}
    comment_step = _step(name="Comment on the pull request")
    assert "hashFiles('auditor-reports/comment.md')" in comment_step["if"]
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
    }
    command = comment_step["run"].replace("${{ github.action_path }}", str(ROOT))
    done = subprocess.run(
        ["bash", "-c", command], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert _sent(tmp_path) == f"{MARKER}\n{comment}"
