"""The GitHub Action's own parts: extra formats, free-form arguments, and the sticky
pull-request comment (one comment, updated in place), run with stand-in `auditor` and `gh`."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

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


def _run_audit_step(tmp_path: Path, **given: str) -> subprocess.CompletedProcess[str]:
    step = _step(step_id="audit")
    _stand_in(tmp_path / "bin", "auditor", 'printf "%s\\n" "$@"\n')
    env = {key: "" for key in step["env"]}
    env |= {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", "GITHUB_OUTPUT": str(tmp_path / "out")}
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


def _run_comment(tmp_path: Path, gh_script: str) -> tuple[subprocess.CompletedProcess[str], str]:
    report = tmp_path / "audit.md"
    report.write_text("# auditor: 3 calls newly rejected\n\n| tool | calls |\n")
    log = tmp_path / "gh.log"
    # The stand-in gh records each call's arguments and, for -F body=@FILE, the body sent.
    _stand_in(
        tmp_path / "bin",
        "gh",
        f'echo "$*" >> {log}\n'
        'for arg in "$@"; do case "$arg" in body=@*) '
        f'cat "${{arg#body=@}}" > {tmp_path / "sent.md"};; esac; done\n' + gh_script,
    )
    script = ROOT / "action" / "sticky-comment.sh"
    env = {
        "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin",
        "GITHUB_REPOSITORY": "acme/tools",
        "PR_NUMBER": "17",
        "GH_TOKEN": "t",
    }
    done = subprocess.run(
        ["bash", str(script), str(report)], env=env, capture_output=True, text=True
    )
    return done, log.read_text() if log.exists() else ""


def test_the_first_push_posts_one_comment_with_the_marker(tmp_path: Path) -> None:
    done, calls = _run_comment(tmp_path, "exit 0\n")  # no comment carries the marker yet
    assert done.returncode == 0, done.stderr
    lines = calls.splitlines()
    assert lines[0].startswith("api --paginate repos/acme/tools/issues/17/comments --jq")
    assert lines[1].startswith("api --method POST repos/acme/tools/issues/17/comments -F body=@")
    assert len(lines) == 2
    sent = (tmp_path / "sent.md").read_text()
    assert sent == f"{MARKER}\n# auditor: 3 calls newly rejected\n\n| tool | calls |\n"


def test_a_later_push_updates_the_marked_comment_in_place(tmp_path: Path) -> None:
    # Two marked comments (say, one left by an older run): the first is updated, none added.
    answer = 'case "$*" in *--paginate*) printf "4242\\n7777\\n";; esac\n'
    done, calls = _run_comment(tmp_path, answer)
    assert done.returncode == 0, done.stderr
    lines = calls.splitlines()
    assert lines[1].startswith("api --method PATCH repos/acme/tools/issues/comments/4242 -F body=@")
    assert not any("POST" in line for line in lines)
    assert (tmp_path / "sent.md").read_text().startswith(MARKER + "\n")


def test_a_token_that_may_not_comment_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    done, calls = _run_comment(tmp_path, 'echo "HTTP 403" >&2; exit 1\n')
    assert done.returncode == 0
    assert "::warning::auditor: could not read the pull request's comments" in done.stdout
    assert len(calls.splitlines()) == 1  # no POST after the refused read


def test_the_comment_step_runs_only_on_pull_requests_when_asked() -> None:
    step = _step(name="Comment on the pull request")
    condition = " ".join(step["if"].split())
    assert "inputs.pr-comment == 'true'" in condition
    assert "github.event_name == 'pull_request'" in condition
    assert step["env"]["PR_NUMBER"] == "${{ github.event.pull_request.number }}"
