"""`auditor schema`: print the JSON Schema of the JSON report, or of lint's JSON output."""

from __future__ import annotations

from typing import Annotated, Final

import typer

EXAMPLES: Final = """Examples:

  auditor schema > report.schema.json
  check-jsonschema --schemafile report.schema.json reports/audit.json
  auditor schema --lint > lint.schema.json"""
"""The end of ``schema --help``, before the exit codes."""


def schema(
    lint: Annotated[
        bool,
        typer.Option(
            "--lint",
            metavar="",
            help="The schema of `auditor lint --format json` instead.",
            show_default=False,
        ),
    ] = False,
) -> None:
    """Print the JSON Schema that every `--format json` report validates against (with
    --lint: the one `auditor lint --format json` output validates against)."""
    if lint:
        from auditor.report.lint.schema import lint_schema_text

        typer.echo(lint_schema_text(), nl=False)
        return
    from auditor.report.schema import schema_text

    typer.echo(schema_text(), nl=False)
