"""The README's two commands are what a newcomer types and what CI runs: keep them honest."""

from __future__ import annotations

import re
import shlex

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _two_commands() -> list[str]:
    section = README.partition("## Two commands")[2].partition("\n## ")[0]
    commands = re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)
    assert len(commands) == 2, commands
    return commands


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    test_command = _two_commands()[1]
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci_lines
    assert "pytest --cov" in test_command


def test_both_commands_install_into_a_fresh_virtual_environment() -> None:
    # PEP 668 systems refuse installs into the system Python: never `python3 -m pip install`.
    for command in _two_commands():
        assert command.startswith("python3 -m venv .venv && .venv/bin/pip install")
        assert "python3 -m pip" not in command


def test_the_first_command_audits_bundled_sample_files() -> None:
    words = shlex.split(_two_commands()[0].rpartition("&&")[2])
    assert words[:2] == [".venv/bin/auditor", "audit"]
    for flag in ("--schemas", "--logs"):
        path = ROOT / words[words.index(flag) + 1]
        assert path.is_file(), path
