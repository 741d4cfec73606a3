"""`auditor schema`: print the JSON Schema of the JSON report."""

from __future__ import annotations

from typing import Final

import typer

from auditor.report.schema import schema_text

EXAMPLES: Final = """Examples:

  auditor schema > report.schema.json
  check-jsonschema --schemafile report.schema.json reports/audit.json"""
"""The end of ``schema --help``, before the exit codes."""


def schema() -> None:
    """Print the JSON Schema that every `--format json` report validates against."""
    typer.echo(schema_text(), nl=False)
