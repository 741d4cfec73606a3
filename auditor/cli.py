"""The command line: parse options, run the pipeline, render, write, return an exit code."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Final

import typer

from auditor import __version__
from auditor.catalogs import load_catalogs
from auditor.logs import LogReader, check_logs
from auditor.models import Outcome, Report
from auditor.output import write_atomic
from auditor.pipeline import audit as run_audit
from auditor.report import Format, render

EXIT_OK: Final = 0
EXIT_FOUND: Final = 1
EXIT_UNUSABLE: Final = 2

# Options that take several values (`--logs a.jsonl b.jsonl`, as a shell glob expands).
MULTI_VALUE_OPTIONS: Final = ("--schemas", "--logs")

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Find the logged tool-call arguments that a normalized tool schema would newly reject.",
)


class UsageFailure(Exception):
    """An input or output that cannot be used; the message names it in one line."""


@dataclass(frozen=True)
class AuditOptions:
    schemas: tuple[str, ...]
    logs: tuple[str, ...]
    fmt: Format | None
    output: str
    report_dir: Path | None
    allow_override: bool
    quiet: bool


def _version(value: bool) -> None:
    if value:
        typer.echo(f"auditor {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """auditor: a pre-upgrade check for tool schemas written in a JSON Schema dialect."""


@app.command()
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
        catalogs.tools, LogReader(files), options.schemas, overrides=catalogs.overrides
    )
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
        _write(path, render(report, fmt))
        written.append(path)
    return written


def _emit(text: str, output: str) -> None:
    if output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        _write(Path(output), text)


def _write(path: Path, text: str) -> None:
    try:
        write_atomic(path, text)
    except OSError as error:
        raise UsageFailure(f"{path}: cannot write: {error.strerror or error}") from error


def expand_multi_value_options(argv: Sequence[str], names: Sequence[str]) -> list[str]:
    """``--logs a b --x`` -> ``--logs a --logs b --x``: click options take one value each."""
    expanded: list[str] = []
    current: str | None = None
    for arg in argv:
        if arg in names:
            current = arg
            expanded.append(arg)
            continue
        if arg.startswith("-") and arg != "-":
            current = None
        elif current is not None and expanded[-1] != current:
            expanded.append(current)
        expanded.append(arg)
    return expanded


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    app(args=expand_multi_value_options(args, MULTI_VALUE_OPTIONS), prog_name="auditor")
