"""`auditor audit`: the options -> an ``AuditRequest`` -> ``auditor.api.audit`` -> the outputs.

The command's options are the fields of the request's parts and of ``Delivery`` (the run's
outputs), read off their metadata (``auditor.request.option``): the typer signature, the
config keys (``SETTINGS``), docs/options.md and the Action's inputs all follow from them.

Exit codes (``auditor.errors``): 0 nothing fails under ``--fail-on``; 1 a group fails
(``Report.gate``); 2 an input or output cannot be used (missing file, bad catalog, bad
baseline or config), never for what the logs show; 3 auditor itself failed (a ``--jobs``
worker was lost, a bug) and wrote no report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, get_origin

import typer

from auditor.cli.common import UsageFailure
from auditor.cli.config import CONFIG_FILE
from auditor.cli.delivery import Delivery, Outputs, deliver
from auditor.cli.from_config import check_named_folder, check_named_inputs
from auditor.cli.options import FIELDS, SOURCES, signature
from auditor.cli.output import check_confined, names_stdout
from auditor.gc_thresholds import fewer_collections
from auditor.inputs.paths import shown
from auditor.report import Format
from auditor.request import PARTS, AuditRequest, option_of

EXAMPLES: Final = """Examples:

  auditor audit --schemas tools.yaml --logs logs/
  auditor audit --schemas tools.yaml --logs calls.jsonl \\
      --format sarif --output audit.sarif --fail-on any-change
  auditor audit --schemas tools.yaml --against origin/main --logs logs/"""
"""The end of ``audit --help``, before the exit codes."""


def audit(ctx: typer.Context, **values: Any) -> None:
    """Replay logged calls against old and normalized schemas; exit 1 per --fail-on.

    Every option but --quiet, --verbose, --timestamp, --generate-baseline, --follow-links,
    --allow-config-uris, --allow-web-uris and --repo can be set in auditor.toml, or in
    pyproject.toml's tool.auditor table, named in snake_case; the command line wins. Paths the
    file names stay inside the working directory, and it cannot lift a safety bound.
    """
    # The config file was read by the app's callback (auditor.cli.configure) into this
    # command's default_map: every value here is the command line's, else the file's, else
    # the default, each parsed and checked by its option. Failures are AuditorErrors, said
    # and turned into their exit code in one place: auditor.cli.guard.
    parts = _parts(values, lambda name: _given(ctx, name))
    request = AuditRequest(**{name: parts[name] for name, _ in PARTS})
    delivery = parts["delivery"]
    assert isinstance(delivery, Delivery)
    if not request.inputs.schemas or not request.inputs.logs:
        missing = "--schemas" if not request.inputs.schemas else "--logs"
        raise UsageFailure(f"{missing} is required (on the command line or in the config file)")
    if delivery.quiet and delivery.verbose:
        raise UsageFailure("--quiet prints no answer, --verbose all of it: give one")
    _check_config_inputs(ctx, Path.cwd(), delivery.allow_config_uris)
    raise typer.Exit(run(request, _outputs(ctx, delivery)))


audit.__signature__, audit.__annotations__ = signature()  # type: ignore[attr-defined]


def run(request: AuditRequest, outputs: Outputs) -> int:
    """Audit what ``request`` asks and deliver it to ``outputs``; the exit code."""
    from auditor.aggregate.progress import Progress
    from auditor.api import audit as audit_request

    # One scope from counting to the reports written: between scopes the thresholds were put
    # back and the owed full collection ran as counting ended (3% of a 300,000-call audit).
    with fewer_collections():
        result = audit_request(request, lambda total: Progress.for_terminal(total, outputs.quiet))
        return deliver(result, outputs)


def _parts(values: dict[str, Any], given: Callable[[str], bool]) -> dict[str, Any]:
    """The request's parts and the delivery, from the command's parsed values. An option
    read as text (``--rules``) that neither the command line nor the config file gave is
    None: the request says that it was not named."""
    chosen: dict[str, dict[str, Any]] = {name: {} for name, _ in SOURCES}
    for part, spec, kind in FIELDS:
        value = values[spec.name]
        meta = option_of(spec)
        if meta.typed is not None:
            value = meta.typed[1](value) if given(spec.name) else None
        elif get_origin(kind) is tuple:
            value = tuple(value or ())
        chosen[part][spec.name] = value
    return {name: kind(**chosen[name]) for name, kind in SOURCES}


def _outputs(ctx: typer.Context, delivery: Delivery) -> Outputs:
    """Where this run writes, checked now: the formats paired with their outputs, and every
    file the command line did not name confined to the working directory."""

    def from_command_line(name: str) -> bool:
        source = ctx.get_parameter_source(name)
        return source is not None and source.name == "COMMANDLINE"

    cwd = Path.cwd()
    formats = pair_outputs(list(delivery.format), list(delivery.output))
    # Outputs the command line did not name (the config file's, the default report folder)
    # stay inside the working directory.
    formats_within = None if from_command_line("output") else cwd
    reports_within = None if from_command_line("report_dir") else cwd
    patch_within = None if from_command_line("suggest_patch") else cwd
    if formats_within is not None:
        _confined([Path(path) for _, path in formats if path != "-"], formats_within)
    patch = delivery.suggest_patch
    patch_to_stdout = patch is not None and names_stdout(patch)
    format_to_stdout = any(names_stdout(path) for _, path in formats)
    if patch_to_stdout and format_to_stdout:
        raise UsageFailure("--suggest-patch and a --format both go to stdout ('-'): give one")
    # Output piped from stdout (`--format json | jq`) writes no file nobody asked for: the
    # default report files only when --report-dir was given (command line or config file).
    piped = patch_to_stdout or format_to_stdout
    skip_reports = delivery.no_report_files or (piped and not _given(ctx, "report_dir"))
    folder = None if skip_reports else delivery.report_dir
    if patch is not None and not patch_to_stdout and patch_within is not None:
        _confined([Path(patch)], patch_within)
    if reports_within is not None and folder is not None:
        _confined([folder, folder / "audit.md", folder / "audit.json"], reports_within)
    return Outputs(
        formats=formats,
        report_dir=folder,
        quiet=delivery.quiet,
        verbose=delivery.verbose,
        color=delivery.color,
        suggest_patch=patch,
        generate_baseline=delivery.generate_baseline,
        formats_within=formats_within,
        reports_within=reports_within,
        suggest_patch_within=patch_within,
        run_url=_run_url(formats),
    )


def _run_url(formats: Sequence[tuple[Format, str]]) -> str | None:
    """``AUDITOR_RUN_URL`` when a pull-request comment is rendered (checked before anything is
    read: a link the comment cannot hold is unusable input); None otherwise."""
    if all(fmt is not Format.COMMENT for fmt, _ in formats):
        return None
    from auditor.report.comment import RUN_URL, run_url

    try:
        return run_url(os.environ.get(RUN_URL))
    except ValueError as error:
        raise UsageFailure(str(error)) from error


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether the command line or the config file set option ``name``."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "DEFAULT_MAP")


def _check_config_inputs(ctx: typer.Context, cwd: Path, allow_config_uris: bool) -> None:
    """Refuse, before anything is read, what the config file names to read or write in that
    is not a local path inside ``cwd`` (``auditor.cli.from_config``)."""
    config = ctx.meta.get(CONFIG_FILE)
    if config is None:
        return
    for _, spec, _ in FIELDS:
        source = ctx.get_parameter_source(spec.name)
        if source is None or source.name != "DEFAULT_MAP":
            continue
        value = ctx.params.get(spec.name)
        if option_of(spec).names_inputs:
            paths = [value] if isinstance(value, str) else list(value or ())
            check_named_inputs(config, spec.name, paths, cwd, allow_config_uris)
        elif spec.name == "scratch" and value is not None:
            check_named_folder(config, "scratch", value, cwd)


def _confined(paths: list[Path], within: Path) -> None:
    """Refuse, before the audit runs, outputs the command line did not name (the config
    file's, the default report folder) that would be written outside ``within``."""
    for path in paths:
        try:
            check_confined(path, within)
        except OSError as error:
            raise UsageFailure(f"{shown(path)}: cannot write: {error.strerror}") from error


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
