"""`auditor audit`: options (+ config) -> pipeline -> renderers -> files and stdout -> exit code.

Exit codes (``auditor.errors``): 0 nothing fails under ``--fail-on``; 1 a group fails
(``auditor.aggregate.gate``); 2 an input or output cannot be used (missing file, bad catalog,
bad baseline or config), never for what the logs show; 3 auditor itself failed (a ``--jobs``
worker was lost, a bug) and wrote no report.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from auditor.aggregate.baseline import Baseline, parse_baseline, render_baseline
from auditor.aggregate.gate import exit_code
from auditor.aggregate.groups import DEFAULT_EXAMPLES
from auditor.aggregate.parallel import audit_logs
from auditor.aggregate.pipeline import DEFAULT_MAX_CALLS, ReportSettings
from auditor.aggregate.progress import Progress
from auditor.cli.common import (
    MaxCatalogBytesOption,
    UsageFailure,
    emit,
    parse_rules,
    write_pair,
    write_text,
)
from auditor.cli.config import load_config
from auditor.cli.output import check_confined, names_stdout
from auditor.errors import EXIT_OK
from auditor.inputs.catalogs import STDIN, CatalogFormat, load_catalogs
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES, DEFAULT_MAX_RECORD_BYTES
from auditor.inputs.log_formats import LogFormat
from auditor.inputs.logs import LogFormatError, check_logs
from auditor.inputs.paths import shown
from auditor.models import FailOn, OldRuntime, Report, Rule
from auditor.replay.budget import DEFAULT_CALL_TIMEOUT
from auditor.report import Format, render
from auditor.report.common import gate_line, plain
from auditor.report.escape import one_line, terminal
from auditor.schema.normalize import DEFAULT_RULES

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
    """Everything one audit run needs, after the config file and the CLI are merged."""

    schemas: tuple[str, ...]
    logs: tuple[str, ...]
    outputs: tuple[tuple[Format, str], ...]
    """(format, path) pairs; ``-`` is stdout."""
    report_dir: Path | None
    allow_override: bool
    quiet: bool
    fail_on: FailOn = FailOn.NEWLY_REJECTED
    baseline: str | None = None
    generate_baseline: str | None = None
    examples: int = DEFAULT_EXAMPLES
    redact: bool = False
    max_calls: int | None = None
    timestamp: bool = False
    rules: frozenset[Rule] = DEFAULT_RULES
    jobs: int = 1
    catalog_format: CatalogFormat | None = None
    log_format: LogFormat | None = None
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT
    """Seconds one call may take to evaluate; None: unbounded."""
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
    max_catalog_bytes: int = DEFAULT_MAX_CATALOG_BYTES
    outputs_within: Path | None = None
    """The folder ``outputs`` must stay in (link targets too): the working directory when
    the configuration file named them; None when the command line did."""
    reports_within: Path | None = None
    """The same for the report files, unless ``--report-dir`` was given."""
    old_runtime: OldRuntime = OldRuntime.LENIENT


def audit(
    schemas: Annotated[
        list[str] | None,
        typer.Option(
            "--schemas", help="Catalog files or directories (JSON or YAML); '-' is stdin."
        ),
    ] = None,
    logs: Annotated[
        list[str] | None,
        typer.Option(
            "--logs", help="Call logs or directories of them; '-' is stdin; .gz is read as is."
        ),
    ] = None,
    fmt: Annotated[
        list[Format] | None,
        typer.Option("--format", help="A format to render; repeat, paired with --output."),
    ] = None,
    output: Annotated[
        list[str] | None,
        typer.Option("--output", help="Where the --format of the same rank goes; '-' is stdout."),
    ] = None,
    report_dir: Annotated[
        Path | None, typer.Option("--report-dir", help="Folder for audit.md and audit.json.")
    ] = None,
    no_report_files: Annotated[
        bool | None, typer.Option("--no-report-files", help="Do not write audit.md, audit.json.")
    ] = None,
    fail_on: Annotated[
        FailOn | None,
        typer.Option("--fail-on", help="What exits 1 (default newly_rejected)."),
    ] = None,
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="Accept the groups listed in this file.")
    ] = None,
    generate_baseline: Annotated[
        str | None,
        typer.Option("--generate-baseline", help="Write the current groups to this file."),
    ] = None,
    examples: Annotated[
        int | None, typer.Option("--examples", min=0, help="Example calls per group (3).")
    ] = None,
    redact: Annotated[
        bool | None,
        typer.Option("--redact", help="Show logged values only by their shape (type, length)."),
    ] = None,
    max_calls: Annotated[
        int | None,
        typer.Option(
            "--max-calls",
            min=0,
            help="List at most N changed calls one by one (default 10,000; 0: all). Groups and "
            "counts always cover every call.",
        ),
    ] = None,
    timestamp: Annotated[
        bool, typer.Option("--timestamp", help="Stamp the reports with the time of the run.")
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Worker processes reading the logs (default: one per core). Reports do not "
            "depend on it.",
        ),
    ] = None,
    allow_override: Annotated[
        bool | None,
        typer.Option("--allow-override", help="A tool defined twice: the later one wins."),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print nothing but errors (and the config file used)."),
    ] = False,
    catalog_format: Annotated[
        CatalogFormatChoice,
        typer.Option("--catalog-format", help="Read every catalog in this format."),
    ] = CatalogFormatChoice.AUTO,
    log_format: Annotated[
        LogFormatChoice,
        typer.Option("--log-format", help="Read every log in this format."),
    ] = LogFormatChoice.AUTO,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            metavar="FAMILIES",
            help="Rule families of the normalization to audit, as for `auditor normalize` "
            "(default: keyword-case,type-case).",
        ),
    ] = None,
    call_timeout: Annotated[
        float | None,
        typer.Option(
            "--call-timeout",
            min=0,
            help=f"Seconds one call may take to evaluate ({DEFAULT_CALL_TIMEOUT:g}; 0: no limit).",
        ),
    ] = None,
    max_record_bytes: Annotated[
        int | None,
        typer.Option(
            "--max-record-bytes",
            min=1,
            help="Longest log line or JSON document parsed; longer is unparseable (64 MiB).",
        ),
    ] = None,
    max_catalog_bytes: MaxCatalogBytesOption = None,
    old_runtime: Annotated[
        OldRuntime | None,
        typer.Option(
            "--old-runtime",
            help="What enforced the old schema when the logs were written: lenient (default; "
            "what it cannot evaluate enforces nothing), standard (a conforming validator), "
            "none (nothing was validated).",
        ),
    ] = None,
) -> None:
    """Replay logged calls against old and normalized schemas; exit 1 per --fail-on."""
    given = {
        "schemas": schemas,
        "logs": logs,
        "format": fmt,
        "output": output,
        "report_dir": report_dir,
        "no_report_files": no_report_files,
        "fail_on": fail_on,
        "baseline": baseline,
        "examples": examples,
        "redact": redact,
        "max_calls": max_calls,
        "jobs": jobs,
        "allow_override": allow_override,
        "rules": rules,
        "call_timeout": call_timeout,
        "max_record_bytes": max_record_bytes,
        "max_catalog_bytes": max_catalog_bytes,
        "old_runtime": old_runtime,
    }
    # Failures (UsageFailure, ConfigProblem, BaselineProblem, WorkerLost) are AuditorErrors,
    # said and turned into their exit code in one place: auditor.cli.guard.
    config = load_config(Path.cwd())
    if config.path is not None:
        # Settings nobody typed change what runs and where it writes: say where they are.
        table = " [tool.auditor]" if config.path.name == "pyproject.toml" else ""
        typer.echo(f"auditor: using {config.path.name}{table}", err=True)
    options = replace(
        merge_options(given, config.values, quiet, timestamp, Path.cwd()),
        generate_baseline=generate_baseline,
        catalog_format=catalog_format.to_format(),
        log_format=log_format.to_format(),
    )
    raise typer.Exit(run(options))


def merge_options(
    given: dict[str, Any],
    config: dict[str, Any],
    quiet: bool,
    timestamp: bool,
    cwd: Path | None = None,
) -> AuditOptions:
    """The CLI's values where given, else the config file's, else the defaults.

    Outputs the command line did not name (from the config file, or the default report
    folder) are confined to ``cwd`` when it is given.
    """

    def pick(name: str, default: Any = None) -> Any:
        value = given.get(name)
        if value is None or value == []:
            value = config.get(name, default)
        return default if value is None else value

    schemas, logs = _listed(pick("schemas", [])), _listed(pick("logs", []))
    if not schemas or not logs:
        missing = "--schemas" if not schemas else "--logs"
        raise UsageFailure(f"{missing} is required (on the command line or in the config file)")
    try:
        formats = [Format(f) for f in _listed(pick("format", []))]
        fail_on = FailOn(pick("fail_on", FailOn.NEWLY_REJECTED))
        old_runtime = OldRuntime(pick("old_runtime", OldRuntime.LENIENT))
    except ValueError as error:
        raise UsageFailure(f"config: {error}") from error
    outputs = pair_outputs(formats, _listed(pick("output", [])))
    report_dir = None if pick("no_report_files", False) else Path(pick("report_dir", "reports"))
    outputs_within = None if given.get("output") else cwd
    reports_within = None if given.get("report_dir") is not None else cwd
    if outputs_within is not None:
        _confined([Path(path) for _, path in outputs if path != "-"], outputs_within)
    if reports_within is not None and report_dir is not None:
        _confined([report_dir, report_dir / "audit.md", report_dir / "audit.json"], reports_within)
    return AuditOptions(
        schemas=tuple(schemas),
        logs=tuple(logs),
        outputs=outputs,
        report_dir=report_dir,
        allow_override=bool(pick("allow_override", False)),
        quiet=quiet,
        fail_on=fail_on,
        baseline=pick("baseline"),
        examples=int(pick("examples", DEFAULT_EXAMPLES)),
        redact=bool(pick("redact", False)),
        max_calls=_call_limit(pick("max_calls", DEFAULT_MAX_CALLS)),
        jobs=int(pick("jobs", os.cpu_count() or 1)),
        timestamp=timestamp,
        rules=parse_rules(",".join(map(str, _listed(pick("rules", [])))) or None),
        call_timeout=float(pick("call_timeout", DEFAULT_CALL_TIMEOUT)) or None,
        max_record_bytes=int(pick("max_record_bytes", DEFAULT_MAX_RECORD_BYTES)),
        max_catalog_bytes=int(pick("max_catalog_bytes", DEFAULT_MAX_CATALOG_BYTES)),
        outputs_within=outputs_within,
        reports_within=reports_within,
        old_runtime=old_runtime,
    )


def _confined(paths: list[Path], within: Path) -> None:
    """Refuse, before the audit runs, outputs the command line did not name (the config
    file's, the default report folder) that would be written outside ``within``."""
    for path in paths:
        try:
            check_confined(path, within)
        except OSError as error:
            raise UsageFailure(f"{shown(path)}: cannot write: {error.strerror}") from error


def _call_limit(value: Any) -> int | None:
    """``--max-calls``: 0 lifts the limit."""
    return None if int(value) == 0 else int(value)


def _listed(value: Any) -> list[Any]:
    return [value] if isinstance(value, str) else list(value)


def pair_outputs(formats: list[Format], outputs: list[str]) -> tuple[tuple[Format, str], ...]:
    """Pair ``--format`` and ``--output`` by rank; one format alone goes to stdout."""
    if len(formats) == 1 and not outputs:
        outputs = ["-"]
    if len(formats) != len(outputs):
        raise UsageFailure(
            f"{len(formats)} --format but {len(outputs)} --output: give one --output per --format"
        )
    if outputs.count("-") > 1:
        raise UsageFailure("only one --format can go to stdout ('-')")
    return tuple(zip(formats, outputs, strict=True))


def run(options: AuditOptions) -> int:
    """Execute an audit; raises UsageFailure for unusable input or output."""
    if STDIN in options.schemas and STDIN in options.logs:
        raise UsageFailure("standard input ('-') can feed the catalogs or the logs, not both")
    catalogs = load_catalogs(
        options.schemas,
        allow_override=options.allow_override,
        fmt=options.catalog_format,
        max_bytes=options.max_catalog_bytes,
    )
    if catalogs.problems:
        raise UsageFailure(str(catalogs.problems[0]))
    files, problems = check_logs(options.logs)
    if problems:
        raise UsageFailure(str(problems[0]))
    settings = ReportSettings(
        examples=options.examples,
        redact=options.redact,
        max_calls=options.max_calls,
        baseline=_read_baseline(options.baseline),
        generated_at=_now() if options.timestamp else None,
        fail_on=options.fail_on,
        old_runtime=options.old_runtime,
    )
    total = sum(os.path.getsize(f) for f in files if os.path.isfile(f))
    try:
        report = audit_logs(
            catalogs.tools,
            files,
            [shown(path) for path in options.schemas],
            catalogs.overrides,
            rules=options.rules,
            settings=settings,
            fmt=options.log_format,
            jobs=options.jobs,
            progress=Progress.for_terminal(total, options.quiet),
            call_timeout=options.call_timeout,
            max_record_bytes=options.max_record_bytes,
        )
    except LogFormatError as error:
        raise UsageFailure(str(error.problem)) from error
    written = _write_reports(report, options)
    for fmt, path in options.outputs:
        emit(render(report, fmt), path, within=options.outputs_within)
    if options.generate_baseline is not None:
        write_text(Path(options.generate_baseline), render_baseline(report.groups))
        written.append(Path(options.generate_baseline))
    if not options.quiet and not any(names_stdout(path) for _, path in options.outputs):
        typer.echo(render(report, Format.TABLE), nl=False)
        if written:
            typer.echo(f"\nReports written: {terminal(', '.join(shown(p) for p in written))}")
    # Writing a baseline accepts the current state: that run does not fail.
    if options.generate_baseline is not None:
        return EXIT_OK
    code = exit_code(report)
    if line := gate_line(report):
        typer.echo(f"auditor: {one_line(plain(line))}", err=True)  # a failing gate says why
    return code


def _read_baseline(path: str | None) -> Baseline | None:
    if path is None:
        return None
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageFailure(
            f"{shown(path)}: cannot read baseline: {error.strerror or error}"
        ) from error
    except UnicodeDecodeError as error:
        raise UsageFailure(f"{shown(path)}: not an auditor baseline: not UTF-8 text") from error
    return parse_baseline(shown(path), text)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _write_reports(report: Report, options: AuditOptions) -> list[Path]:
    if options.report_dir is None:
        return []
    files = [
        (options.report_dir / name, render(report, fmt))
        for fmt, name in ((Format.MARKDOWN, "audit.md"), (Format.JSON, "audit.json"))
    ]
    write_pair(files, options.report_dir, within=options.reports_within)
    return [path for path, _ in files]
