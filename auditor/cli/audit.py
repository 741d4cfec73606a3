"""`auditor audit`: options -> pipeline -> renderers -> files and stdout -> exit code."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from auditor.catalogs import load_catalogs
from auditor.cli.common import (
    EXIT_FOUND,
    EXIT_OK,
    EXIT_UNUSABLE,
    RulesOption,
    UsageFailure,
    emit,
    write_text,
)
from auditor.logs import LogReader, check_logs
from auditor.models import Outcome, Report, Rule
from auditor.normalize import DEFAULT_RULES
from auditor.pipeline import audit as run_audit
from auditor.report import Format, render

MULTI_VALUE_OPTIONS = ("--schemas", "--logs")
"""Options of this command that take several values (`--logs a.jsonl b.jsonl`)."""


@dataclass(frozen=True)
class AuditOptions:
    schemas: tuple[str, ...]
    logs: tuple[str, ...]
    fmt: Format | None
    output: str
    report_dir: Path | None
    allow_override: bool
    quiet: bool
    rules: frozenset[Rule] = DEFAULT_RULES


def audit(
    schemas: Annotated[
        list[str],
        typer.Option("--schemas", help="Catalog files or directories (JSON or YAML)."),
    ],
    logs: Annotated[
        list[str],
        typer.Option("--logs", help="Call logs (JSON Lines) or directories of them."),
    ],
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
    rules: RulesOption = DEFAULT_RULES,
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
        rules=rules,
    )
    try:
        code = run(options)
    except UsageFailure as failure:
        typer.echo(f"auditor: error: {failure}", err=True)
        code = EXIT_UNUSABLE
    raise typer.Exit(code)


def run(options: AuditOptions) -> int:
    """Execute an audit; raises UsageFailure for unusable input or output."""
    catalogs = load_catalogs(options.schemas, allow_override=options.allow_override)
    if catalogs.problems:
        raise UsageFailure(str(catalogs.problems[0]))
    files, problems = check_logs(options.logs)
    if problems:
        raise UsageFailure(str(problems[0]))
    report = run_audit(
        catalogs.tools,
        LogReader(files),
        options.schemas,
        overrides=catalogs.overrides,
        rules=options.rules,
    )
    written = _write_reports(report, options)
    stdout_taken = options.fmt is not None and options.output == "-"
    if options.fmt is not None:
        emit(render(report, options.fmt), options.output)
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
