"""`auditor rule CODE`: what a code means and how to fix it, as `ruff rule` does."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Annotated, Final

import typer

from auditor.cli.common import UsageFailure
from auditor.report.escape import one_line, terminal

if TYPE_CHECKING:  # the rules' texts (and the normalizer they name): not for --help
    from auditor.report.rules import RuleDoc

EXAMPLES: Final = """Examples:

  auditor rule KW001
  auditor rule newly-rejected
  auditor rule --all"""
"""The end of ``rule --help``, before the exit codes."""

WIDTH = 80
"""Paragraphs are wrapped to this many columns."""


def rule(
    code: Annotated[
        str | None,
        typer.Argument(
            metavar="CODE",
            help="A lint code (KW001), an audit outcome (AUD001, newly-rejected) or a rewrite "
            "family (keyword-case).",
            show_default=False,
        ),
    ] = None,
    all_rules: Annotated[
        bool, typer.Option("--all", metavar="", help="List every code with its summary.")
    ] = False,
) -> None:
    """Explain a lint finding, an audit outcome or a rewrite family."""
    from auditor.report.rules import ALL_RULES, find_rule

    if all_rules == (code is not None):
        raise UsageFailure("give one CODE, or --all")
    if all_rules:
        typer.echo("".join(_listed(found) for found in ALL_RULES), nl=False)
        return
    assert code is not None
    found = find_rule(code)
    if found is None:
        raise UsageFailure(
            f"unknown rule {terminal(one_line(code))}; `auditor rule --all` lists them"
        )
    typer.echo(_wrapped(found.explain()), nl=False)


def _listed(found: RuleDoc) -> str:
    head = f"{found.code:<14} {found.kind.value:<15} "
    return (
        textwrap.fill(found.summary, WIDTH, initial_indent=head, subsequent_indent=" " * len(head))
        + "\n"
    )


def _wrapped(text: str) -> str:
    """Each paragraph wrapped; a line too long to break (the address) stays whole."""
    paragraphs = text.rstrip("\n").split("\n\n")
    filled = (
        textwrap.fill(p, WIDTH, break_long_words=False, break_on_hyphens=False) for p in paragraphs
    )
    return "\n\n".join(filled) + "\n"
