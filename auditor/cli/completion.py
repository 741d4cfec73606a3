"""Shell completion: ``auditor completion bash|zsh|fish`` prints the script, and the script's
calls back into auditor (``_AUDITOR_COMPLETE=...``) are answered before any command runs.

typer has both halves (``typer.completion``), but the app is built with
``add_completion=False``: typer's ``--install-completion`` and ``--show-completion`` would
sit among every command's options and write into the user's shell files. Without them typer
never registers its shell classes (``completion_init``), so ``_AUDITOR_COMPLETE=bash_source``
found no shell; and typer reads the instruction in the order of click 7 (``source_bash``),
where click 8 documents ``bash_source``, which typer read as the shell ``source``. Here both
orders are taken, and the classes are registered when a script asks.
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from enum import Enum
from typing import Annotated, Any, Final

import typer

from auditor.errors import EXIT_UNUSABLE
from auditor.report.escape import one_line, terminal

PROG_NAME: Final = "auditor"
COMPLETE_VAR: Final = "_AUDITOR_COMPLETE"
"""The variable the scripts set when they ask auditor for completions (click's name)."""

EXAMPLES: Final = """Examples:

  source <(auditor completion bash)    # in ~/.bashrc
  eval "$(auditor completion zsh)"     # in ~/.zshrc, after compinit
  auditor completion fish > ~/.config/fish/completions/auditor.fish"""
"""The end of ``completion --help``, before the exit codes."""


class Shell(str, Enum):
    """The shells a completion script is printed for."""

    BASH = "bash"
    ZSH = "zsh"
    FISH = "fish"


SHELL_NAMES: Final = frozenset(shell.value for shell in Shell) | {"powershell", "pwsh"}
"""The shells typer answers for (PowerShell too, though no script is printed for it here)."""


def completion(
    shell: Annotated[
        Shell,
        typer.Argument(
            metavar="SHELL", help="bash, zsh or fish.", show_default=False, case_sensitive=False
        ),
    ],
) -> None:
    """Print the completion script of a shell: commands, options and their values then
    complete on Tab."""
    from typer.completion import get_completion_script

    script = get_completion_script(
        prog_name=PROG_NAME, complete_var=COMPLETE_VAR, shell=shell.value
    )
    typer.echo(script)


def typer_instruction(instruction: str) -> str | None:
    """``bash_source`` (click 8's order: shell first) as typer reads it, ``source_bash``;
    an instruction already in typer's order is kept. None: it names no shell typer knows."""
    first, _, rest = instruction.partition("_")
    if first in SHELL_NAMES and rest:
        return f"{rest}_{first}"
    return instruction if instruction.rpartition("_")[2] in SHELL_NAMES else None


def answer_completion(
    command: Any, ctx_args: MutableMapping[str, Any], prog_name: str, complete_var: str | None
) -> None:
    """Answer a completion script's call (``COMPLETE_VAR`` set) and exit; otherwise return,
    and the command line runs."""
    variable = complete_var or COMPLETE_VAR
    instruction = os.environ.get(variable)
    if not instruction:
        return
    typer_order = typer_instruction(instruction)
    if typer_order is None:
        shells = ", ".join(shell.value for shell in Shell)
        typer.echo(
            f"auditor: error: {variable}: no completion for {terminal(one_line(instruction))} "
            f"(the shells: {shells})",
            err=True,
        )
        sys.exit(EXIT_UNUSABLE)
    from typer.completion import completion_init, shell_complete

    completion_init()  # what add_completion=True would have done: typer's shell classes
    sys.exit(shell_complete(command, ctx_args, prog_name, variable, typer_order))
