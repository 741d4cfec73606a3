"""`auditor audit`: options -> pipeline -> renderers -> files and stdout -> exit code."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from auditor.catalogs import STDIN, CatalogFormat, load_catalogs
from auditor.cli.common import EXIT_FOUND, EXIT_OK, EXIT_UNUSABLE, UsageFailure, write_text
from auditor.log_formats import LogFormat
from auditor.logs import LogFormatError, LogReader, check_logs
from auditor.models import Outcome, Report
from auditor.pipeline import audit as run_audit
from auditor.report import Format, render

MULTI_VALUE_OPTIONS = ("--schemas", "--logs")
"""Options of this command that take several values (`--logs a.jsonl b.jsonl`)."""


AUTO = "auto"


class CatalogFormatChoice(str, Enum):
    """``--catalog-format``: every catalog format, or ``auto`` to detect each file's."""

    AUTO = AUTO
    OPENAI = CatalogFormat.OPENAI.value
    OPENAI_RESPONSES = CatalogFormat.OPENAI_RESPONSES.value
    ANTHROPIC = CatalogFormat.ANTHROPIC.value
    MCP = CatalogFormat.MCP.value
    GEMINI = CatalogFormat.GEMINI.value
    SCHEMA = CatalogFormat.SCHEMA.value
    MAPPING = CatalogFormat.MAPPING.value

    def to_format(self) -> CatalogFormat | None:
        return None if self.value == AUTO else CatalogFormat(self.value)


class LogFormatChoice(str, Enum):
    """``--log-format``: every log format, or ``auto`` to detect each file's."""

    AUTO = AUTO
    JSONL = LogFormat.JSONL.value
    OPENAI = LogFormat.OPENAI.value
    OPENAI_RESPONSES = LogFormat.OPENAI_RESPONSES.value
    ANTHROPIC = LogFormat.ANTHROPIC.value
    MCP = LogFormat.MCP.value
    OTEL = LogFormat.OTEL.value

    def to_format(self) -> LogFormat | None:
        return None if self.value == AUTO else LogFormat(self.value)


@dataclass(frozen=True)
class AuditOptions:
    schemas: tuple[str, ...]
    logs: tuple[str, ...]
    fmt: Format | None
    output: str
    report_dir: Path | None
    allow_override: bool
    quiet: bool
    catalog_format: CatalogFormat | None = None
    log_format: LogFormat | None = None


def audit(
    schemas: Annotated[
        list[str],
        typer.Option(
            "--schemas", help="Catalog files or directories (JSON or YAML); '-' is stdin."
        ),
    ],
    logs: Annotated[
        list[str],
        typer.Option(
            "--logs", help="Call logs or directories of them; '-' is stdin; .gz is read as is."
        ),
    ],
    catalog_format: Annotated[
        CatalogFormatChoice,
        typer.Option("--catalog-format", help="Read every catalog in this format."),
    ] = CatalogFormatChoice.AUTO,
    log_format: Annotated[
        LogFormatChoice,
        typer.Option("--log-format", help="Read every log in this format."),
    ] = LogFormatChoice.AUTO,
    fmt: Annotated[
        Format | None,
        typer.Option("--format", help="Render one format to --output instead of the table."),
    ] = None,
    output: Annotated[
        str, typer.Option("--output", help="Where --format goes; '-' is stdout.")
    ] = "-",
    report_dir: Annotated[
        Path, typer.Option("--report-dir", help="Folder for audit.md and audit.json.")
    ] = Path("reports"),
    no_report_files: Annotated[
        bool, typer.Option("--no-report-files", help="Do not write audit.md and audit.json.")
    ] = False,
    allow_override: Annotated[
        bool,
        typer.Option("--allow-override", help="A tool defined twice: the later one wins."),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
) -> None:
    """Replay logged calls against old and normalized schemas; exit 1 if any is newly rejected."""
    options = AuditOptions(
        schemas=tuple(schemas),
        logs=tuple(logs),
        fmt=fmt,
        output=output,
        report_dir=None if no_report_files else report_dir,
        allow_override=allow_override,
        quiet=quiet,
        catalog_format=catalog_format.to_format(),
        log_format=log_format.to_format(),
    )
    try:
        code = run(options)
    except UsageFailure as failure:
        typer.echo(f"auditor: error: {failure}", err=True)
        code = EXIT_UNUSABLE
    raise typer.Exit(code)


def run(options: AuditOptions) -> int:
    """Execute an audit; raises UsageFailure for unusable input or output."""
    if STDIN in options.schemas and STDIN in options.logs:
        raise UsageFailure("standard input ('-') can feed the catalogs or the logs, not both")
    catalogs = load_catalogs(
        options.schemas, allow_override=options.allow_override, fmt=options.catalog_format
    )
    if catalogs.problems:
        raise UsageFailure(str(catalogs.problems[0]))
    files, problems = check_logs(options.logs)
    if problems:
        raise UsageFailure(str(problems[0]))
    try:
        report = run_audit(
            catalogs.tools,
            LogReader(files, options.log_format),
            options.schemas,
            overrides=catalogs.overrides,
        )
    except LogFormatError as error:
        raise UsageFailure(str(error.problem)) from error
    written = _write_reports(report, options)
    stdout_taken = options.fmt is not None and options.output == "-"
    if options.fmt is not None:
        _emit(render(report, options.fmt), options.output)
    if not options.quiet and not stdout_taken:
        typer.echo(render(report, Format.TABLE), nl=False)
        if written:
            typer.echo(f"\nReports written: {', '.join(str(p) for p in written)}")
    return EXIT_FOUND if report.totals[Outcome.NEWLY_REJECTED] else EXIT_OK


def _write_reports(report: Report, options: AuditOptions) -> list[Path]:
    if options.report_dir is None:
        return []
    written = []
    for fmt, name in ((Format.MARKDOWN, "audit.md"), (Format.JSON, "audit.json")):
        path = options.report_dir / name
        write_text(path, render(report, fmt))
        written.append(path)
    return written


def _emit(text: str, output: str) -> None:
    if output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_text(Path(output), text)
