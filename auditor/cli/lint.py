"""`auditor lint`: every place in the catalogs that is not evaluated as written."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Final

import typer

from auditor.cli.common import (
    FollowLinksOption,
    MaxCatalogBytesOption,
    RulesOption,
    SkipNonCatalogsOption,
    UsageFailure,
    check_catalog_uris,
    emit,
    split_codes,
)
from auditor.cli.config import CONFIG_FILE
from auditor.cli.from_config import check_named_inputs
from auditor.errors import EXIT_FOUND, EXIT_OK, EXIT_UNUSABLE
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES
from auditor.models import DEFAULT_RULES
from auditor.report.escape import one_line, terminal
from auditor.report.lint import LINT_RENDERERS, LintFormat
from auditor.request import CatalogFormatChoice
from auditor.schema.findings import RULES

EXAMPLES: Final = """Examples:

  auditor lint tools.yaml catalogs/
  auditor lint tools.yaml --select KW,TY001 --format sarif --output a.sarif
  auditor lint --rules keyword-case,type-case,type-alias
  auditor rule KW001"""
"""The end of ``lint --help``, before the exit codes."""

FROM_CONFIG: Final = {
    "schemas": "paths",
    "catalog_format": "catalog_format",
    "rules": "rules",
    "max_catalog_bytes": "max_catalog_bytes",
}
"""The settings of ``auditor.toml`` / ``[tool.auditor]`` that ``lint`` takes, by the
parameter they set: the catalogs ``audit`` reads, read the same way."""


def lint(
    ctx: typer.Context,
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PATH",
            help="Catalog files, directories or quoted globs. Default: the config file's schemas.",
            show_default=False,
        ),
    ] = None,
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
    catalog_format: Annotated[
        CatalogFormatChoice,
        typer.Option(
            "--catalog-format",
            metavar="FORMAT",
            show_default=True,
            help="Read every catalog in this format: "
            f"{', '.join(c.value for c in CatalogFormatChoice)}.",
        ),
    ] = CatalogFormatChoice.AUTO,
    rules: RulesOption = DEFAULT_RULES,
    max_catalog_bytes: MaxCatalogBytesOption = DEFAULT_MAX_CATALOG_BYTES,
    follow_links: FollowLinksOption = False,
    skip_non_catalogs: SkipNonCatalogsOption = False,
) -> None:
    """Report keywords and type names that are not evaluated as written; exit 1 if any.

    The summary counts the findings that `auditor normalize --write` with the same --rules
    rewrites away. In a directory, files that are no tool catalog are skipped and named on
    stderr, as `audit` skips them; with --skip-non-catalogs, named files too.
    """
    selected, ignored = split_codes(select), split_codes(ignore)
    unknown = sorted(c for c in (*selected, *ignored) if not any(r.startswith(c) for r in RULES))
    if unknown:
        raise UsageFailure(f"unknown finding code {', '.join(unknown)}")
    if not paths:
        raise UsageFailure("give the catalogs to lint (PATH...), or schemas in the config file")
    config = ctx.meta.get(CONFIG_FILE)
    source = ctx.get_parameter_source("paths")
    if config is not None and source is not None and source.name == "DEFAULT_MAP":
        check_named_inputs(config, "schemas", paths, Path.cwd(), allow_uris=False)
    check_catalog_uris(paths)
    from auditor.schema.lint import lint_paths  # the reader and YAML: not for --help

    result = lint_paths(
        paths,
        selected,
        ignored,
        max_catalog_bytes,
        follow_links,
        rules,
        catalog_format.to_format(),
        skip_non_catalogs,
    )
    for skip in result.skipped:
        typer.echo(f"auditor: skipped: {terminal(one_line(str(skip)))}", err=True)
    for problem in result.problems:
        typer.echo(f"auditor: error: {one_line(str(problem))}", err=True)
    if fmt is LintFormat.TEXT:
        from auditor.report.lint.text import render

        # Problems are on stderr: "no findings" would then say too much.
        files = None if result.problems else result.files
        text = render(result.findings, rules, files)
    elif fmt is LintFormat.SARIF:
        from auditor.report.lint import sarif

        text = sarif.render(result.findings, paths)  # the paths make its automation id
    else:
        text = LINT_RENDERERS[fmt](result.findings)
    emit(text, output)  # a UsageFailure when it cannot write
    if result.problems:
        raise typer.Exit(EXIT_UNUSABLE)
    raise typer.Exit(EXIT_FOUND if result.findings else EXIT_OK)
