"""Shell completion: `auditor completion bash|zsh|fish` prints a script that the shell takes,
the script's calls back into auditor answer with the commands and options, and both orders
of the instruction work (`bash_source`, click 8's; `source_bash`, typer's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.cli.completion import typer_instruction
from tests.cli.test_cli_help import _PROBE, HEAVY
from tests.conftest import ROOT

COMMAND_NAMES = ["audit", "lint", "normalize", "schema", "rule", "completion"]
"""The app's commands, in the order they are registered (and completed)."""


@pytest.fixture
def on_path(tmp_path: Path) -> dict[str, str]:
    """An environment with an ``auditor`` on the PATH that runs this worktree's package, as
    the installed console script would (the script calls ``auditor`` by name)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "auditor"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m auditor "$@"\n')
    script.chmod(0o755)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("_AUDITOR")}
    return {**environ, "PATH": f"{bin_dir}:{environ['PATH']}", "PYTHONPATH": str(ROOT)}


def _run(command: list[str], env: dict[str, str], **more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, capture_output=True, text=True, env={**env, **more}, timeout=60, check=False
    )


def test_the_bash_script_sources_in_bash_and_completes_commands_and_options(
    on_path: dict[str, str],
) -> None:
    # What bash does on Tab: the words so far, the index of the one completed.
    tab = 'COMP_CWORD={} && _auditor_completion auditor && echo "${{COMPREPLY[@]}}"'
    script = " && ".join(
        [
            "source <(auditor completion bash)",
            "complete -p auditor",
            "COMP_WORDS=(auditor au) " + tab.format(1),
            'COMP_WORDS=(auditor "") ' + tab.format(1),
            "COMP_WORDS=(auditor audit --fail-o) " + tab.format(2),
        ]
    )
    done = _run(["bash", "--norc", "--noprofile", "-c", script], on_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [
        "complete -o default -F _auditor_completion auditor",
        "audit",  # `au`: audit only, not the others
        " ".join(COMMAND_NAMES),
        "--fail-on",  # not --fail-min-calls nor --fail-min-share
    ]


def test_a_script_that_does_not_source_fails_in_bash(on_path: dict[str, str]) -> None:
    # The check above can fail: a script with a syntax error does not define the completion.
    done = _run(["bash", "--norc", "-c", "source <(echo 'f() {') && complete -p auditor"], on_path)
    assert done.returncode != 0


@pytest.mark.parametrize("instruction", ["bash_source", "source_bash"])
def test_the_environment_variable_prints_the_same_script_in_either_order(
    instruction: str, on_path: dict[str, str]
) -> None:
    printed = _run(["auditor", "completion", "bash"], on_path)
    asked = _run(["auditor"], on_path, _AUDITOR_COMPLETE=instruction)
    assert (asked.returncode, asked.stderr) == (0, "")
    assert asked.stdout.strip() == printed.stdout.strip()
    assert "Shell source not supported" not in asked.stdout + asked.stderr
    assert printed.stdout.endswith("complete -o default -F _auditor_completion auditor\n")


def test_zsh_and_fish_get_their_script_and_their_answers(on_path: dict[str, str]) -> None:
    zsh = _run(["auditor", "completion", "zsh"], on_path)
    assert zsh.returncode == 0
    assert zsh.stdout.startswith("#compdef auditor\n")
    assert "_AUDITOR_COMPLETE=complete_zsh auditor" in zsh.stdout
    assert zsh.stdout.endswith("compdef _auditor_completion auditor\n")
    fish = _run(["auditor", "completion", "fish"], on_path)
    assert fish.returncode == 0
    assert fish.stdout.startswith("complete --command auditor ")
    assert "_AUDITOR_COMPLETE=complete_fish" in fish.stdout
    # What the scripts run on Tab, the words so far in _TYPER_COMPLETE_ARGS.
    words = {"_TYPER_COMPLETE_ARGS": "auditor li"}
    zsh_answer = _run(["auditor"], on_path, _AUDITOR_COMPLETE="zsh_complete", **words)
    assert zsh_answer.stdout.startswith('_arguments \'*: :(("lint":'), zsh_answer
    assert zsh_answer.stdout.count('"lint"') == 1 and '"audit"' not in zsh_answer.stdout
    fish_answer = _run(
        ["auditor"],
        on_path,
        _AUDITOR_COMPLETE="complete_fish",
        _TYPER_COMPLETE_FISH_ACTION="get-args",
        **words,
    )
    assert [line.split("\t")[0] for line in fish_answer.stdout.splitlines()] == ["lint"]


def test_an_unknown_shell_is_one_line_and_exit_2(on_path: dict[str, str]) -> None:
    done = _run(["auditor", "completion", "tcsh"], on_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("auditor: error: Invalid value for 'SHELL': 'tcsh'")
    asked = _run(["auditor"], on_path, _AUDITOR_COMPLETE="tcsh_source")
    assert (asked.returncode, asked.stdout) == (2, "")
    assert asked.stderr == (
        "auditor: error: _AUDITOR_COMPLETE: no completion for tcsh_source "
        "(the shells: bash, zsh, fish)\n"
    )


def test_both_orders_of_the_instruction_become_typer_s() -> None:
    assert typer_instruction("bash_source") == "source_bash"
    assert typer_instruction("zsh_complete") == "complete_zsh"
    assert typer_instruction("source_fish") == "source_fish"  # typer's own order, kept
    assert typer_instruction("complete_bash") == "complete_bash"
    assert typer_instruction("tcsh_source") is None
    assert typer_instruction("source") is None


def test_a_completion_answer_does_not_import_the_validation_stack() -> None:
    # Every Tab runs auditor: it must not pay for jsonschema and the engines.
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=json.dumps(HEAVY))],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "_AUDITOR_COMPLETE": "bash_complete",
            "COMP_WORDS": "auditor audit --fail-on ",
            "COMP_CWORD": "3",
        },
        timeout=60,
        check=False,
    )
    assert done.stderr.splitlines()[-1] == "LOADED ", done.stderr
    assert "never" in done.stdout.split()  # a --fail-on value was completed
