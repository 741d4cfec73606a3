"""`auditor normalize`: the rewrites as a diff, as a CI check, or applied in place."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer

from auditor.catalogs import expand
from auditor.cli.common import (
    EXIT_FOUND,
    EXIT_OK,
    EXIT_UNUSABLE,
    RulesOption,
    write_text,
)
from auditor.edit import FileRewrite, rewrite_file
from auditor.models import Rule
from auditor.normalize import DEFAULT_RULES
from auditor.report.common import plural
from auditor.report.escape import one_line, terminal


def normalize(
    paths: Annotated[list[str], typer.Argument(help="Catalog files or directories.")],
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff.")] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Exit 1 when a file would change.")
    ] = False,
    write: Annotated[bool, typer.Option("--write", help="Rewrite the files in place.")] = False,
    rules: RulesOption = DEFAULT_RULES,
) -> None:
    """Rewrite dialect spellings into JSON Schema, changing nothing else in the files."""
    if sum((diff, check, write)) != 1:
        typer.echo("auditor: error: give exactly one of --diff, --check, --write", err=True)
        raise typer.Exit(EXIT_UNUSABLE)
    raise typer.Exit(run(paths, rules, diff=diff, write=write))


def run(paths: Iterable[str], rules: frozenset[Rule], diff: bool, write: bool) -> int:
    """Normalize every catalog file under ``paths``; returns the exit code."""
    files, problems = expand(list(paths))
    for problem in problems:
        typer.echo(f"auditor: error: {one_line(str(problem))}", err=True)
    results = [rewrite_file(file, rules) for file in files]
    changed = [r for r in results if r.changed]
    for result in results:
        if result.problem is not None:
            typer.echo(f"auditor: error: {one_line(f'{result.path}: {result.problem}')}", err=True)
    for result in changed:
        if diff:
            typer.echo(_unified_diff(result), nl=False)
        elif write:
            write_text(Path(result.path), result.after)
            rewrites = plural(len(result.rewrites), "rewrite")
            typer.echo(f"normalized {terminal(result.path)} ({rewrites})")
        else:
            rewrites = plural(len(result.rewrites), "rewrite")
            typer.echo(f"would normalize {terminal(result.path)} ({rewrites})")
    if problems or any(r.problem is not None for r in results):
        return EXIT_UNUSABLE
    if write or not changed:
        return EXIT_OK
    return EXIT_FOUND


def _unified_diff(result: FileRewrite) -> str:
    lines = difflib.unified_diff(
        result.before.splitlines(keepends=True),
        result.after.splitlines(keepends=True),
        fromfile=_side("a", result.path),
        tofile=_side("b", result.path),
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _side(prefix: str, path: str) -> str:
    """``a/tools.yaml`` as git writes it; an absolute path stays as it is. One visible line:
    a file name cannot end the header and start a line of its own."""
    return terminal(path) if Path(path).is_absolute() else f"{prefix}/{terminal(path)}"
