"""`auditor lint`: every place in the catalogs that is not evaluated as written."""

from __future__ import annotations

from typing import Annotated, Final

import typer

from auditor.cli.common import (
    FollowLinksOption,
    MaxCatalogBytesOption,
    UsageFailure,
    check_catalog_uris,
    emit,
    split_codes,
)
from auditor.errors import EXIT_FOUND, EXIT_OK, EXIT_UNUSABLE
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES
from auditor.report.escape import one_line
from auditor.report.lint import LINT_RENDERERS, LintFormat
from auditor.schema.findings import RULES

EXAMPLES: Final = """Examples:

  auditor lint tools.yaml catalogs/
  auditor lint tools.yaml --select KW,TY001 --format sarif --output a.sarif
  auditor rule KW001"""
"""The end of ``lint --help``, before the exit codes."""


def lint(
    paths: Annotated[
        list[str], typer.Argument(metavar="PATH", help="Catalog files or directories.")
    ],
    fmt: Annotated[
        LintFormat,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help=f"Output format: {', '.join(f.value for f in LintFormat)}.",
            show_default=True,
        ),
    ] = LintFormat.TEXT,
    output: Annotated[
        str, typer.Option("--output", metavar="PATH", help="Where to write; '-' is stdout.")
    ] = "-",
    select: Annotated[
        list[str] | None,
        typer.Option(
            "--select", metavar="CODES", help="Only these codes or prefixes (KW001, KW, ...)."
        ),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", metavar="CODES", help="Leave out these codes or prefixes."),
    ] = None,
    max_catalog_bytes: MaxCatalogBytesOption = DEFAULT_MAX_CATALOG_BYTES,
    follow_links: FollowLinksOption = False,
) -> None:
    """Report keywords and type names that are not evaluated as written; exit 1 if any."""
    selected, ignored = split_codes(select), split_codes(ignore)
    unknown = sorted(c for c in (*selected, *ignored) if not any(r.startswith(c) for r in RULES))
    if unknown:
        raise UsageFailure(f"unknown finding code {', '.join(unknown)}")
    check_catalog_uris(paths)
    from auditor.schema.lint import lint_paths  # the reader and YAML: not for --help

    result = lint_paths(paths, selected, ignored, max_catalog_bytes, follow_links)
    for problem in result.problems:
        typer.echo(f"auditor: error: {one_line(str(problem))}", err=True)
    emit(LINT_RENDERERS[fmt](result.findings), output)  # a UsageFailure when it cannot write
    if result.problems:
        raise typer.Exit(EXIT_UNUSABLE)
    raise typer.Exit(EXIT_FOUND if result.findings else EXIT_OK)
