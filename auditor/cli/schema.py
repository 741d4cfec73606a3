"""`auditor schema`: print the JSON Schema of the JSON report."""

from __future__ import annotations

import typer

from auditor.report.schema import schema_text


def schema() -> None:
    """Print the JSON Schema that every `--format json` report validates against."""
    typer.echo(schema_text(), nl=False)
