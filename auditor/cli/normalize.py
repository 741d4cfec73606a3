"""`auditor normalize`: the rewrites as a diff, as a CI check, or applied in place."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final

import typer

from auditor.cli.common import (
    FollowLinksOption,
    MaxCatalogBytesOption,
    RulesOption,
    SkipNonCatalogsOption,
    UsageFailure,
    check_catalog_uris,
    write_text,
)
from auditor.errors import EXIT_FOUND, EXIT_OK, EXIT_UNUSABLE
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES
from auditor.inputs.paths import shown
from auditor.models import DEFAULT_RULES, Rule
from auditor.report.escape import one_line, terminal

if TYPE_CHECKING:
    from auditor.schema.edit import FileRewrite

EXAMPLES: Final = """Examples:

  auditor normalize tools.yaml --diff
  auditor normalize catalogs/ --check
  auditor normalize tools.yaml --rules keyword-case,type-case,openapi --write"""
"""The end of ``normalize --help``, before the exit codes."""


def normalize(
    paths: Annotated[
        list[str], typer.Argument(metavar="PATH", help="Catalog files or directories.")
    ],
    diff: Annotated[bool, typer.Option("--diff", metavar="", help="Print a unified diff.")] = False,
    check: Annotated[
        bool, typer.Option("--check", metavar="", help="Exit 1 when a file would change.")
    ] = False,
    write: Annotated[
        bool,
        typer.Option(
            "--write", metavar="", help="Rewrite the files in place; each one is named on stderr."
        ),
    ] = False,
    rules: RulesOption = DEFAULT_RULES,
    max_catalog_bytes: MaxCatalogBytesOption = DEFAULT_MAX_CATALOG_BYTES,
    follow_links: FollowLinksOption = False,
    skip_non_catalogs: SkipNonCatalogsOption = False,
) -> None:
    """Rewrite dialect spellings into JSON Schema, changing nothing else in the files.

    In a directory, only files that are recognisably catalogs are considered; the others
    are named on stderr and left alone; with --skip-non-catalogs, named files too.

    With an upgrade profile (--rules openai-strict), --diff and --check show the keys it adds
    too; --write does not add keys to a file (audit with the profile instead).

    Exits 0 when nothing would change (--check, --diff) or every file was written (--write);
    1 when a file would change (--check, --diff); 2 when a file cannot be read, parsed,
    rewritten without touching anything else, or written (each is named on stderr).
    """
    if sum((diff, check, write)) != 1:
        raise UsageFailure("give exactly one of --diff, --check, --write")
    check_catalog_uris(paths)
    code = run(paths, rules, diff, write, max_catalog_bytes, follow_links, skip_non_catalogs)
    raise typer.Exit(code)


def run(
    paths: Iterable[str],
    rules: frozenset[Rule],
    diff: bool,
    write: bool,
    max_bytes: int = DEFAULT_MAX_CATALOG_BYTES,
    follow_links: bool = False,
    skip_named: bool = False,
) -> int:
    """Normalize every catalog file under ``paths``; returns the exit code. Links out of a
    catalog folder are read (and, with ``write``, still not written) when ``follow_links``;
    named files that are no catalog are skipped with ``skip_named``."""
    from auditor.api import normalize as normalize_paths
    from auditor.words import plural

    # --diff and --check show every change a profile makes, keys it adds included; --write
    # leaves a file that would need one alone (where a key stands in the text is the owner's).
    found = normalize_paths(
        paths, rules, max_bytes, follow_links, add_keys=not write, skip_named=skip_named
    )
    for skip in found.skipped:
        typer.echo(f"auditor: skipped: {one_line(str(skip))}", err=True)
    for problem in found.problems:
        typer.echo(f"auditor: error: {one_line(problem)}", err=True)
    failed = bool(found.problems)
    results, confined = found.files, found.confined
    changed = [r for r in results if r.changed]
    for result in results:
        if result.problem is not None:
            place = shown(result.path) if result.where is None else str(result.where)
            typer.echo(f"auditor: error: {one_line(f'{place}: {result.problem}')}", err=True)
        elif result.skipped is not None:
            typer.echo(
                f"auditor: skipped {one_line(f'{shown(result.path)}: {result.skipped}')}", err=True
            )
    for result in changed:
        count = plural(len(result.rewrites), "rewrite")
        if diff:
            typer.echo(_unified_diff(result), nl=False)
        elif write:
            try:
                write_text(Path(result.path), result.after, confined.get(result.path))
            except UsageFailure as failure:  # a read-only folder, a full disk: say, go on
                typer.echo(f"auditor: {one_line(failure.line())}", err=True)
                failed = True
                continue
            typer.echo(f"auditor: normalized {one_line(shown(result.path))} ({count})", err=True)
        else:
            typer.echo(f"would normalize {terminal(shown(result.path))} ({count})")
    if failed or any(r.problem is not None for r in results):
        return EXIT_UNUSABLE
    if write or not changed:
        return EXIT_OK
    return EXIT_FOUND


def _unified_diff(result: FileRewrite) -> str:
    from auditor.schema.edit import minimal_diff

    return minimal_diff(
        result.before, result.after, _side("a", result.path), _side("b", result.path)
    )


def _side(prefix: str, path: str) -> str:
    """``a/tools.yaml`` as git writes it; an absolute path stays as it is. One visible line:
    a file name cannot end the header and start a line of its own."""
    path = terminal(shown(path))
    return path if Path(path).is_absolute() else f"{prefix}/{path}"
