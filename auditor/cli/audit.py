"""`auditor audit`: options (+ config) -> pipeline -> renderers -> files and stdout -> exit code.

Exit codes (``auditor.errors``): 0 nothing fails under ``--fail-on``; 1 a group fails
(``auditor.aggregate.gate``); 2 an input or output cannot be used (missing file, bad catalog,
bad baseline or config), never for what the logs show; 3 auditor itself failed (a ``--jobs``
worker was lost, a bug) and wrote no report.
"""

from __future__ import annotations

import inspect
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, get_args, get_origin, get_type_hints

import typer
from typer.models import OptionInfo

# Only what the options need is imported here: ``--help`` must not load the validation stack.
# The run imports the pipeline, the readers and the renderers where it uses them.
from auditor.aggregate.baseline import Baseline, parse_baseline, render_baseline
from auditor.aggregate.gate import exit_code
from auditor.aggregate.progress import Progress
from auditor.cli.common import (
    DEFAULT_RULES_TEXT,
    MaxCatalogBytesOption,
    UsageFailure,
    emit,
    parse_rules,
    write_pair,
    write_text,
)
from auditor.cli.config import CONFIG_FILE, Setting
from auditor.cli.from_config import CONFIG_URIS_FLAG, check_named_folder, check_named_inputs
from auditor.cli.output import check_confined, names_stdout
from auditor.defaults import DEFAULT_CALL_TIMEOUT, DEFAULT_EXAMPLES, DEFAULT_MAX_CALLS
from auditor.engines.names import Engine
from auditor.errors import EXIT_OK
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.catalog_formats import CatalogFormat
from auditor.inputs.columns import Columns
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES, DEFAULT_MAX_RECORD_BYTES, byte_size
from auditor.inputs.links import FOLLOW_LINKS
from auditor.inputs.log_files import (
    LogFormatError,
    LogProblem,
    TooFewCalls,
    check_logs,
    display_name,
    holds_no_log,
    traffic_problem,
)
from auditor.inputs.log_format_names import LogFormat
from auditor.inputs.paths import STDIN, shown
from auditor.inputs.sniff import catalog_given_as_log
from auditor.inputs.uri import WEB_FLAG, check_uri
from auditor.models import RULE_FAMILIES, FailOn, GroupBy, OldRuntime, Report, Rule
from auditor.report import Format, render
from auditor.report.escape import one_line, terminal
from auditor.schema.diff import NewCatalogs
from auditor.schema.normalize import DEFAULT_RULES

if TYPE_CHECKING:
    from auditor.inputs.catalogs import Catalogs
    from auditor.inputs.git_catalogs import GitRevision
    from auditor.schema.edit import CatalogEdits

MULTI_VALUE_OPTIONS = ("--schemas", "--logs", "--new-schemas")
"""Options of this command that take several values (`--logs a.jsonl b.jsonl`)."""


AUTO = "auto"


INPUTS: Final = "Inputs"
CHANGE: Final = "The change audited"
OUTPUTS: Final = "Outputs"
GATING: Final = "Gating"
LIMITS: Final = "Limits"
"""The panels of ``audit --help``; ``--max-catalog-bytes`` is in LIMITS (``cli.common``)."""

EXAMPLES: Final = """Examples:

  auditor audit --schemas tools.yaml --logs logs/
  auditor audit --schemas tools.yaml --logs calls.jsonl \\
      --format sarif --output audit.sarif --fail-on any-change
  auditor audit --schemas tools.yaml --against origin/main --logs logs/"""
"""The end of ``audit --help``, before the exit codes."""


class CatalogFormatChoice(str, Enum):
    """``--catalog-format``: every catalog format, or ``auto`` to detect each file's."""

    AUTO = AUTO
    OPENAI = CatalogFormat.OPENAI.value
    OPENAI_RESPONSES = CatalogFormat.OPENAI_RESPONSES.value
    ANTHROPIC = CatalogFormat.ANTHROPIC.value
    MCP = CatalogFormat.MCP.value
    GEMINI = CatalogFormat.GEMINI.value
    OTEL = CatalogFormat.OTEL.value
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


class ColorChoice(str, Enum):
    """``--color``: when the verdict on stdout is coloured."""

    AUTO = AUTO
    """On a terminal, unless ``NO_COLOR`` is set (to anything but the empty string)."""
    ALWAYS = "always"
    NEVER = "never"


NO_COLOR: Final = "NO_COLOR"
"""The environment variable that turns colour off (https://no-color.org)."""
_BOLD_RED: Final = "\x1b[1;31m"
_BOLD_GREEN: Final = "\x1b[1;32m"
_RESET: Final = "\x1b[0m"


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
    color: ColorChoice = ColorChoice.AUTO
    verbose: bool = False
    """The terminal gets each group's detail, not only its line (report files always do)."""
    fail_on: FailOn = FailOn.NEWLY_REJECTED
    fail_min_calls: int = 1
    fail_min_share: float = 0.0
    min_calls: int = 1
    """Fewer calls read from the logs is unusable input."""
    allow_empty: bool = False
    """Logs holding no call are audited (and said), not unusable input."""
    baseline: str | None = None
    generate_baseline: str | None = None
    examples: int = DEFAULT_EXAMPLES
    group_by: GroupBy = GroupBy.CONSTRAINT
    redact: bool = False
    max_calls: int | None = None
    timestamp: bool = False
    rules: frozenset[Rule] = DEFAULT_RULES
    jobs: int = 1
    engine: Engine = Engine.LOCAL
    catalog_format: CatalogFormat | None = None
    log_format: LogFormat | None = None
    calls_from: CallsFrom = CallsFrom.ALL
    """Which calls of request/response history logs count: all, or the responses' only."""
    columns: Columns | None = None
    """The tool and arguments columns of Parquet and Arrow logs (None: found by name)."""
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT
    """Seconds one call may take to evaluate; None: unbounded."""
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
    max_catalog_bytes: int = DEFAULT_MAX_CATALOG_BYTES
    scratch: str | None = None
    """A folder where the parts' listed calls wait instead of travelling back to the driver."""
    outputs_within: Path | None = None
    """The folder ``outputs`` must stay in (link targets too): the working directory when
    the configuration file named them; None when the command line did."""
    reports_within: Path | None = None
    """The same for the report files, unless ``--report-dir`` was given."""
    old_runtime: OldRuntime = OldRuntime.LENIENT
    new_schemas: tuple[str, ...] = ()
    """The catalogs after the change; empty: ``schemas`` normalized by ``rules``."""
    against: str | None = None
    """A git revision: the old catalogs are ``schemas`` as it holds them."""
    repo: str | None = None
    """The work tree ``against`` is read in (``--repo``); None: the working directory's."""
    new_rules: frozenset[Rule] = frozenset()
    """Normalization of the new catalogs: only what ``--rules`` named explicitly."""
    suggest_patch: str | None = None
    """Where to write the suggested loosenings as a unified diff of the catalog files."""
    suggest_patch_within: Path | None = None
    """The folder ``suggest_patch`` must stay in when the configuration file named it."""
    follow_links: bool = False
    """Links in catalog and log folders whose target is outside the folder are read."""
    run_url: str | None = None
    """The CI run's page, where the pull-request comment says the full report is
    (``AUDITOR_RUN_URL``; read only for ``--format comment``)."""


def audit(
    ctx: typer.Context,
    schemas: Annotated[
        list[str] | None,
        typer.Option(
            "--schemas",
            rich_help_panel=INPUTS,
            metavar="PATH...",
            help="Catalog files or directories (JSON or YAML); '-' is stdin. Required.",
        ),
    ] = None,
    new_schemas: Annotated[
        list[str] | None,
        typer.Option(
            "--new-schemas",
            rich_help_panel=CHANGE,
            metavar="PATH...",
            help="The catalogs after the change, taken as written (normalized only by an "
            "explicit --rules); tools are matched by name. Default: --schemas normalized.",
        ),
    ] = None,
    against: Annotated[
        str | None,
        typer.Option(
            "--against",
            rich_help_panel=CHANGE,
            metavar="REF",
            help="Audit the change from git revision REF to the work tree: the old catalogs "
            "are the --schemas files at REF (read with git, never checked out).",
        ),
    ] = None,
    repo: Annotated[
        str | None,
        typer.Option(
            "--repo",
            rich_help_panel=CHANGE,
            metavar="DIR",
            help="The git work tree --against reads. Default: the one around the working "
            "directory. Command line only.",
        ),
    ] = None,
    logs: Annotated[
        list[str] | None,
        typer.Option(
            "--logs",
            rich_help_panel=INPUTS,
            metavar="PATH...",
            help="Call logs or directories of them; '-' is stdin; .gz is read as is. Required.",
        ),
    ] = None,
    format: Annotated[  # the option's name, which is also its config key
        list[Format] | None,
        typer.Option(
            "--format",
            rich_help_panel=OUTPUTS,
            metavar="FORMAT",
            help=f"A format to render ({', '.join(f.value for f in Format)}); repeat, "
            "paired with --output.",
        ),
    ] = None,
    output: Annotated[
        list[str] | None,
        typer.Option(
            "--output",
            rich_help_panel=OUTPUTS,
            metavar="PATH",
            help="Where the --format of the same rank goes; '-' is stdout.",
        ),
    ] = None,
    report_dir: Annotated[
        Path,
        typer.Option(
            "--report-dir",
            rich_help_panel=OUTPUTS,
            metavar="DIR",
            show_default=True,
            help="Folder for audit.md and audit.json; when a --format goes to stdout, they "
            "are written only if this is given.",
        ),
    ] = Path("reports"),
    no_report_files: Annotated[
        bool,
        typer.Option(
            "--no-report-files",
            rich_help_panel=OUTPUTS,
            metavar="",
            help="Do not write audit.md, audit.json.",
        ),
    ] = False,
    suggest_patch: Annotated[
        str | None,
        typer.Option(
            "--suggest-patch",
            rich_help_panel=OUTPUTS,
            metavar="PATH",
            help="Write the verified loosening of each loosen-schema or review group as a "
            "unified diff of the catalog files (for git apply); '-' is stdout.",
        ),
    ] = None,
    fail_on: Annotated[
        FailOn,
        typer.Option(
            "--fail-on",
            rich_help_panel=GATING,
            metavar="WHEN",
            show_default="newly-rejected",
            help="What exits 1: newly-rejected (anything that breaks after the change: newly "
            "rejected calls, removed tools' calls, calls meeting an unusable new schema); "
            "schema-error (also old schemas that were unusable); any-change (also newly "
            "accepted calls and the log's contradictions); never.",
        ),
    ] = FailOn.NEWLY_REJECTED,
    fail_min_calls: Annotated[
        int,
        typer.Option(
            "--fail-min-calls",
            rich_help_panel=GATING,
            min=1,
            metavar="N",
            show_default=True,
            help="A group of fewer than N calls is reported but does not fail the run.",
        ),
    ] = 1,
    fail_min_share: Annotated[
        float,
        typer.Option(
            "--fail-min-share",
            rich_help_panel=GATING,
            min=0,
            max=1,
            metavar="FRACTION",
            show_default=True,
            help="A group of less than this fraction of its tool's logged calls (0.001: one "
            "in a thousand) is reported but does not fail the run.",
        ),
    ] = 0.0,
    min_calls: Annotated[
        int,
        typer.Option(
            "--min-calls",
            rich_help_panel=GATING,
            min=1,
            metavar="N",
            show_default=True,
            help="Fewer calls read from the logs exits 2: a gate that expects traffic.",
        ),
    ] = 1,
    allow_empty: Annotated[
        bool,
        typer.Option(
            "--allow-empty",
            rich_help_panel=GATING,
            metavar="",
            help="Logs holding no call at all (empty files, folders without logs) are "
            "said on stderr and audited, instead of exiting 2.",
        ),
    ] = False,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            rich_help_panel=GATING,
            metavar="FILE",
            help="Accept the groups listed in this file.",
        ),
    ] = None,
    generate_baseline: Annotated[
        str | None,
        typer.Option(
            "--generate-baseline",
            rich_help_panel=GATING,
            metavar="FILE",
            help="Write the current groups to this file.",
        ),
    ] = None,
    examples: Annotated[
        int,
        typer.Option(
            "--examples",
            rich_help_panel=OUTPUTS,
            min=0,
            metavar="N",
            show_default=True,
            help="Example calls per group.",
        ),
    ] = DEFAULT_EXAMPLES,
    group_by: Annotated[
        GroupBy,
        typer.Option(
            "--group-by",
            rich_help_panel=OUTPUTS,
            metavar="WHAT",
            show_default=True,
            help="constraint: one group per failing constraint, listing its callers; caller: "
            "one group per constraint and caller the log names.",
        ),
    ] = GroupBy.CONSTRAINT,
    redact: Annotated[
        bool,
        typer.Option(
            "--redact",
            rich_help_panel=OUTPUTS,
            metavar="",
            help="Show logged values only by their shape (type, length).",
        ),
    ] = False,
    max_calls: Annotated[
        int,
        typer.Option(
            "--max-calls",
            rich_help_panel=OUTPUTS,
            min=0,
            metavar="N",
            show_default=True,
            help="List at most N changed calls one by one (0: all). Groups and counts always "
            "cover every call.",
        ),
    ] = DEFAULT_MAX_CALLS,
    timestamp: Annotated[
        bool,
        typer.Option(
            "--timestamp",
            rich_help_panel=OUTPUTS,
            metavar="",
            help="Stamp the reports with the time of the run.",
        ),
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            rich_help_panel=LIMITS,
            min=1,
            metavar="N",
            show_default="one per core",
            help="Worker processes reading the logs. Reports do not depend on it.",
        ),
    ] = None,
    engine: Annotated[
        Engine,
        typer.Option(
            "--engine",
            rich_help_panel=LIMITS,
            metavar="ENGINE",
            show_default=True,
            help="Where the parts of the logs are audited: local (processes, --jobs), "
            "spark or ray (the extras spark and ray of tool-schema-auditor; a local one with "
            "--jobs cores unless spark-submit or RAY_ADDRESS names a cluster). Reports do not "
            "depend on it.",
        ),
    ] = Engine.LOCAL,
    allow_override: Annotated[
        bool,
        typer.Option(
            "--allow-override",
            rich_help_panel=INPUTS,
            metavar="",
            help="A tool defined twice: the later one wins.",
        ),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            rich_help_panel=OUTPUTS,
            metavar="",
            help="Print nothing but errors and the gate's one line (and the config file used).",
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            rich_help_panel=OUTPUTS,
            metavar="",
            help="Print every group with its detail (cause, evidence, hint, values sent, "
            "callers, patch, fingerprint), the old-runtime notes and coverage, as the report "
            "files hold them. Command line only.",
        ),
    ] = False,
    color: Annotated[
        ColorChoice,
        typer.Option(
            "--color",
            rich_help_panel=OUTPUTS,
            metavar="WHEN",
            show_default=True,
            help="Colour the verdict (the last lines on stdout): auto (on a terminal, unless "
            "NO_COLOR is set), always, never.",
        ),
    ] = ColorChoice.AUTO,
    catalog_format: Annotated[
        CatalogFormatChoice,
        typer.Option(
            "--catalog-format",
            rich_help_panel=INPUTS,
            metavar="FORMAT",
            show_default=True,
            help="Read every catalog in this format: "
            f"{', '.join(c.value for c in CatalogFormatChoice)}.",
        ),
    ] = CatalogFormatChoice.AUTO,
    log_format: Annotated[
        LogFormatChoice,
        typer.Option(
            "--log-format",
            rich_help_panel=INPUTS,
            metavar="FORMAT",
            show_default=True,
            help=f"Read every log in this format: {', '.join(c.value for c in LogFormatChoice)}.",
        ),
    ] = LogFormatChoice.AUTO,
    calls_from: Annotated[
        CallsFrom,
        typer.Option(
            "--calls-from",
            rich_help_panel=INPUTS,
            metavar="SIDE",
            show_default=True,
            help="Calls of OpenAI and Anthropic request/response logs to count: all (a call "
            "repeated in later request histories once, by its id; the logs are read in one "
            "pass), or responses (only where the model produced it; such logs are then cut "
            "in parts for --jobs and the engines, and replies are not paired with calls).",
        ),
    ] = CallsFrom.ALL,
    tool_column: Annotated[
        str | None,
        typer.Option(
            "--tool-column",
            rich_help_panel=INPUTS,
            metavar="NAME",
            show_default=False,
            help="The tool-name column of Parquet and Arrow logs (default: the first of "
            "tool_name, gen_ai.tool.name, tool, name).",
        ),
    ] = None,
    arguments_column: Annotated[
        str | None,
        typer.Option(
            "--arguments-column",
            rich_help_panel=INPUTS,
            metavar="NAME",
            show_default=False,
            help="The arguments column (JSON text or a struct) of Parquet and Arrow logs "
            "(default: the first of arguments, gen_ai.tool.call.arguments, args, input).",
        ),
    ] = None,
    rules: Annotated[
        str,
        typer.Option(
            "--rules",
            rich_help_panel=CHANGE,
            metavar="FAMILIES",
            show_default=True,
            help="Comma-separated rule families of the normalization to audit, as for "
            f"`auditor normalize`: {', '.join(rule.value for rule in RULE_FAMILIES)}.",
        ),
    ] = DEFAULT_RULES_TEXT,
    call_timeout: Annotated[
        float,
        typer.Option(
            "--call-timeout",
            rich_help_panel=LIMITS,
            min=0,
            metavar="SECONDS",
            show_default=True,
            help="CPU seconds one call may take to evaluate (0: no limit).",
        ),
    ] = DEFAULT_CALL_TIMEOUT,
    max_record_bytes: Annotated[
        int,
        typer.Option(
            "--max-record-bytes",
            rich_help_panel=LIMITS,
            min=1,
            metavar="N",
            show_default=byte_size(DEFAULT_MAX_RECORD_BYTES),
            help="Longest log line or JSON document parsed; longer is unparseable.",
        ),
    ] = DEFAULT_MAX_RECORD_BYTES,
    max_catalog_bytes: MaxCatalogBytesOption = DEFAULT_MAX_CATALOG_BYTES,
    scratch: Annotated[
        str | None,
        typer.Option(
            "--scratch",
            rich_help_panel=LIMITS,
            metavar="DIR",
            show_default="none",
            help="A folder where each part of the logs (--jobs, --engine) writes the calls it "
            "lists in the report, so that they do not travel back to the driver, which reads "
            "the first --max-calls back; on a cluster, one every worker can write. Reports do "
            "not depend on it.",
        ),
    ] = None,
    old_runtime: Annotated[
        OldRuntime,
        typer.Option(
            "--old-runtime",
            rich_help_panel=CHANGE,
            metavar="RUNTIME",
            show_default=True,
            help="What enforced the old schema when the logs were written: lenient (what it "
            "cannot evaluate enforces nothing), standard (a conforming validator), none "
            "(nothing was validated).",
        ),
    ] = OldRuntime.LENIENT,
    follow_links: Annotated[
        bool,
        typer.Option(
            FOLLOW_LINKS,
            rich_help_panel=INPUTS,
            metavar="",
            help="Read the symbolic links in catalog and log folders whose target is outside "
            "the folder (refused by default: a pull request can add such a link). Your "
            "choice, on the command line only.",
        ),
    ] = False,
    allow_config_uris: Annotated[
        bool,
        typer.Option(
            CONFIG_URIS_FLAG,
            rich_help_panel=INPUTS,
            metavar="",
            help="Read the URIs the config file names in schemas, new_schemas and logs "
            "(refused by default: a pull request can change the file). On the command line "
            "only.",
        ),
    ] = False,
    allow_web_uris: Annotated[
        bool,
        typer.Option(
            WEB_FLAG,
            rich_help_panel=INPUTS,
            metavar="",
            help="Read http://, https:// and ftp:// URIs (the network; refused by default). "
            "On the command line only.",
        ),
    ] = False,
) -> None:
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
    if not schemas or not logs:
        missing = "--schemas" if not schemas else "--logs"
        raise UsageFailure(f"{missing} is required (on the command line or in the config file)")

    def from_command_line(name: str) -> bool:
        source = ctx.get_parameter_source(name)
        return source is not None and source.name == "COMMANDLINE"

    if quiet and verbose:
        raise UsageFailure("--quiet prints no answer, --verbose all of it: give one")
    cwd = Path.cwd()
    _check_inputs(ctx, cwd, allow_config_uris, allow_web_uris)
    outputs = pair_outputs(list(format or []), list(output or []))
    # Outputs the command line did not name (the config file's, the default report folder)
    # stay inside the working directory.
    outputs_within = None if from_command_line("output") else cwd
    reports_within = None if from_command_line("report_dir") else cwd
    if outputs_within is not None:
        _confined([Path(path) for _, path in outputs if path != "-"], outputs_within)
    patch_within = None if from_command_line("suggest_patch") else cwd
    patch_to_stdout = suggest_patch is not None and names_stdout(suggest_patch)
    format_to_stdout = any(names_stdout(path) for _, path in outputs)
    if patch_to_stdout and format_to_stdout:
        raise UsageFailure("--suggest-patch and a --format both go to stdout ('-'): give one")
    # Output piped from stdout (`--format json | jq`) writes no file nobody asked for: the
    # default report files only when --report-dir was given (command line or config file).
    piped = patch_to_stdout or format_to_stdout
    skip_reports = no_report_files or (piped and not _given(ctx, "report_dir"))
    report_folder = None if skip_reports else report_dir
    if suggest_patch is not None and not patch_to_stdout and patch_within is not None:
        _confined([Path(suggest_patch)], patch_within)
    if reports_within is not None and report_folder is not None:
        _confined(
            [report_folder, report_folder / "audit.md", report_folder / "audit.json"],
            reports_within,
        )
    options = AuditOptions(
        schemas=tuple(schemas),
        logs=tuple(logs),
        outputs=outputs,
        report_dir=report_folder,
        allow_override=allow_override,
        quiet=quiet,
        verbose=verbose,
        color=color,
        fail_on=fail_on,
        fail_min_calls=fail_min_calls,
        fail_min_share=fail_min_share,
        min_calls=min_calls,
        allow_empty=allow_empty,
        baseline=baseline,
        generate_baseline=generate_baseline,
        examples=examples,
        group_by=group_by,
        redact=redact,
        max_calls=max_calls or None,
        timestamp=timestamp,
        rules=parse_rules(rules),
        jobs=jobs or os.cpu_count() or 1,
        engine=engine,
        catalog_format=catalog_format.to_format(),
        log_format=log_format.to_format(),
        calls_from=calls_from,
        columns=Columns(tool_column, arguments_column),
        call_timeout=call_timeout or None,
        max_record_bytes=max_record_bytes,
        max_catalog_bytes=max_catalog_bytes,
        scratch=scratch,
        outputs_within=outputs_within,
        reports_within=reports_within,
        old_runtime=old_runtime,
        new_schemas=tuple(new_schemas or ()),
        against=against,
        repo=repo,
        new_rules=parse_rules(rules) if _given(ctx, "rules") else frozenset(),
        suggest_patch=suggest_patch,
        suggest_patch_within=patch_within,
        follow_links=follow_links,
        run_url=_run_url(outputs),
    )
    raise typer.Exit(run(options))


def _run_url(outputs: Sequence[tuple[Format, str]]) -> str | None:
    """``AUDITOR_RUN_URL`` when a pull-request comment is rendered (checked before anything is
    read: a link the comment cannot hold is unusable input); None otherwise."""
    if all(fmt is not Format.COMMENT for fmt, _ in outputs):
        return None
    from auditor.report.comment import RUN_URL, run_url

    try:
        return run_url(os.environ.get(RUN_URL))
    except ValueError as error:
        raise UsageFailure(str(error)) from error


CLI_ONLY: Final = frozenset(
    {
        "quiet",
        "verbose",
        "timestamp",
        "generate_baseline",
        "follow_links",
        "allow_config_uris",
        "allow_web_uris",
        "repo",
    }
)
"""Options of ``audit`` a configuration file cannot set: they are about one run, or they
widen what the run reads (the file is a pull request's to change; ``repo``: the repository
git reads is the user's, never one the change chose)."""

SAFETY_BOUNDS: Final[dict[str, float | None]] = {
    "call_timeout": 0,
    "max_record_bytes": None,
    "max_catalog_bytes": None,
    "max_calls": 0,
}
"""The options that bound the work or memory of a run, with the value that lifts the bound
(``0``: no limit): a configuration file may set them at most to their default, never to
that value (``auditor.cli.config.Setting.most``)."""

CONFIG_INPUTS: Final = ("schemas", "new_schemas", "logs", "baseline")
"""The options that name files to read."""

CHECKED_LATER: Final[dict[str, Callable[[Any], object]]] = {"rules": parse_rules}
"""Options whose value the command parses itself (to say what is wrong in one line); a
config file's value goes through the same function when it is read."""


def read_options(command: Callable[..., Any]) -> dict[str, Setting]:
    """The options of ``command`` by parameter name, read off its typer signature: the one
    table of options and defaults that the config keys (``SETTINGS``), docs/options.md
    and the Action's inputs (``action.yml``) follow; a test holds them together."""
    hints = get_type_hints(command, include_extras=True)
    defaults = inspect.signature(command).parameters
    settings = {}
    for name, hint in hints.items():
        if get_origin(hint) is not Annotated:
            continue
        base, *extras = get_args(hint)
        info = next(extra for extra in extras if isinstance(extra, OptionInfo))
        bound = name in SAFETY_BOUNDS
        settings[name] = Setting(
            key=name,
            flag=_long_flag(info),
            kind=_kind(base),
            least=getattr(info, "min", None),
            most=defaults[name].default if bound else None,
            unbounded=SAFETY_BOUNDS.get(name),
        )
    return settings


def _long_flag(info: OptionInfo) -> str:
    # Under Annotated, typer takes the first positional argument of Option() (its
    # ``default`` slot) as the first name.
    names = [info.default, *(info.param_decls or ())]
    return next(name for name in names if isinstance(name, str) and name.startswith("--"))


def _kind(hint: Any) -> type:
    """``list[str] | None`` -> list; ``int | None`` -> int; an enum or a path -> str."""
    if get_origin(hint) is list:
        return list
    present = [arg for arg in get_args(hint) if arg is not type(None)]
    if len(present) == 1:  # an optional value
        return _kind(present[0])
    return hint if hint in (bool, int, float) else str


OPTIONS: Final = read_options(audit)
"""Every option of ``audit``."""
SETTINGS: Final = {name: option for name, option in OPTIONS.items() if name not in CLI_ONLY}
"""Every configuration key of ``audit``, with its option."""


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether the command line or the config file set option ``name``."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "DEFAULT_MAP")


def _check_inputs(ctx: typer.Context, cwd: Path, allow_config_uris: bool, web: bool) -> None:
    """Refuse, before anything is read, what the config file names to read or write in that
    is not a local path inside ``cwd`` (``auditor.cli.from_config``), and URIs of a scheme
    auditor does not read, or of the network's unless ``web`` (``auditor.inputs.uri``)."""
    config = ctx.meta.get(CONFIG_FILE)
    for name in CONFIG_INPUTS:
        value = ctx.params.get(name)
        paths = [value] if isinstance(value, str) else list(value or ())
        if config is not None and _from_config(ctx, name):
            check_named_inputs(config, name, paths, cwd, allow_config_uris)
        for path in paths if name != "baseline" else ():
            check_uri(path, web)
    scratch = ctx.params.get("scratch")
    if config is not None and scratch is not None and _from_config(ctx, "scratch"):
        check_named_folder(config, "scratch", scratch, cwd)


def _from_config(ctx: typer.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "DEFAULT_MAP"


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


def run(options: AuditOptions) -> int:
    """Execute an audit; raises UsageFailure for unusable input or output."""
    if STDIN in options.schemas and STDIN in options.logs:
        raise UsageFailure("standard input ('-') can feed the catalogs or the logs, not both")
    if options.scratch is not None and not os.path.isdir(options.scratch):
        raise UsageFailure(f"--scratch {shown(options.scratch)}: not a folder")
    catalogs, new_catalogs = _catalogs(options)
    files, problems = check_logs(options.logs, options.follow_links)
    # A folder without logs is as empty as an empty file: the count of calls decides.
    empty = [problem for problem in problems if holds_no_log(problem)]
    if unusable := [problem for problem in problems if not holds_no_log(problem)]:
        raise UsageFailure(str(unusable[0]))
    from auditor.aggregate.parallel import audit_logs
    from auditor.aggregate.pipeline import ReportSettings

    settings = ReportSettings(
        examples=options.examples,
        group_by=options.group_by,
        redact=options.redact,
        max_calls=options.max_calls,
        baseline=_read_baseline(options.baseline),
        generated_at=_now() if options.timestamp else None,
        fail_on=options.fail_on,
        old_runtime=options.old_runtime,
        fail_min_calls=options.fail_min_calls,
        fail_min_share=options.fail_min_share,
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
            engine=options.engine,
            progress=Progress.for_terminal(total, options.quiet),
            call_timeout=options.call_timeout,
            max_record_bytes=options.max_record_bytes,
            new_catalogs=new_catalogs,
            columns=options.columns,
            calls_from=options.calls_from,
            scratch=options.scratch,
        )
    except LogFormatError as error:
        failed = [f for f in files if display_name(f) == error.problem.location.path]
        raise UsageFailure(catalog_given_as_log(failed) or str(error.problem)) from error
    _check_traffic(report.call_count, empty, options)
    # Writing a baseline accepts the current state: that run does not fail.
    code = EXIT_OK if options.generate_baseline is not None else exit_code(report)
    written = _write_reports(report, options)
    edits = _loosenings(report, options)
    detail_in = _detail_file(options)
    for fmt, path in options.outputs:
        text = _rendered(report, fmt, path, code, edits, options.verbose, detail_in, options)
        emit(text, path, within=options.outputs_within)
        if not names_stdout(path):
            written.append(Path(path))
    if options.generate_baseline is not None:
        write_text(Path(options.generate_baseline), render_baseline(report.groups))
        written.append(Path(options.generate_baseline))
    if edits is not None and options.suggest_patch is not None:
        _write_patch(edits, options.suggest_patch, options)
        if not names_stdout(options.suggest_patch):
            written.append(Path(options.suggest_patch))
    to_stdout = [path for _, path in options.outputs] + [options.suggest_patch or ""]
    if not options.quiet and not any(names_stdout(path) for path in to_stdout):
        text = _rendered(report, Format.TABLE, "-", code, None, options.verbose, detail_in)
        coloured = _coloured(options.color)
        typer.echo(_colour_verdict(text, code) if coloured else text, nl=False, color=coloured)
    if written and not options.quiet:  # stderr: stdout may be a pipe that wants the data only
        typer.echo(f"auditor: wrote {terminal(', '.join(shown(p) for p in written))}", err=True)
    if options.generate_baseline is not None:
        return code
    from auditor.report.cells import wrap
    from auditor.report.common import gate_summary

    # A failing gate says so once, on stderr, even under --quiet: the fingerprints are in the
    # report files and under --verbose, where a baseline is made.
    if line := gate_summary(report, detail_in):
        for piece in wrap(f"auditor: {one_line(line)}", _terminal_width(), 4):
            typer.echo(piece, err=True)
    return code


DETAIL_FORMATS: Final = (Format.MARKDOWN, Format.HTML, Format.TABLE, Format.JSON)
"""The formats that list every group, in the order a reader would rather open them."""


def _detail_file(options: AuditOptions) -> str | None:
    """The file a reader goes to for every group (escaped for the terminal): the default
    ``audit.md``, else the first ``--output`` file of a ``DETAIL_FORMATS`` format; None when
    the run writes none."""
    if options.report_dir is not None:
        return terminal(shown(options.report_dir / "audit.md"))
    files = [(fmt, path) for fmt, path in options.outputs if not names_stdout(path)]
    for wanted in DETAIL_FORMATS:
        for fmt, path in files:
            if fmt is wanted:
                return terminal(shown(path))
    return None


def _terminal_width() -> int:
    """``COLUMNS``, else the terminal's width, else ``table.DEFAULT_WIDTH``."""
    from auditor.report.table import DEFAULT_WIDTH

    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def _rendered(
    report: Report,
    fmt: Format,
    path: str,
    code: int,
    edits: CatalogEdits | None = None,
    verbose: bool = False,
    detail_in: str | None = None,
    options: AuditOptions | None = None,
) -> str:
    """``fmt`` for ``path``; SARIF carries the loosenings ``edits`` wrote into the catalogs as
    fixes. The table names the exit code of the run: on stdout it is the concise answer
    (every group's detail with ``verbose``; ``detail_in``: the report listing the groups it
    leaves out) in the terminal's width; in a file, the detail in ``table.DEFAULT_WIDTH``.
    The pull-request comment says where the full report is: the report folder of
    ``options``, and the CI run's page that keeps it."""
    if fmt is Format.SARIF:
        from auditor.report import sarif

        return sarif.render(report, sarif.loosening_fixes(report, edits.alone if edits else {}))
    if fmt is Format.COMMENT:
        from auditor.report import comment

        folder = run_url = None
        if options is not None:
            folder = None if options.report_dir is None else shown(options.report_dir)
            run_url = options.run_url
        return comment.render(report, comment.FullReport(folder, run_url))
    if fmt is not Format.TABLE:
        return render(report, fmt)
    from auditor.report import table

    if not names_stdout(path):
        return table.render(report, table.DEFAULT_WIDTH, code)
    if verbose:
        return table.render(report, _terminal_width(), code)
    return table.concise(report, _terminal_width(), code, detail_in)


def _loosenings(report: Report, options: AuditOptions) -> CatalogEdits | None:
    """The suggested loosenings written into their catalog files, once for the run: when a
    SARIF report (its fixes) or ``--suggest-patch`` asks for them."""
    if options.suggest_patch is None and all(f is not Format.SARIF for f, _ in options.outputs):
        return None
    from auditor.schema.edit import loosening_edits  # reads and edits YAML: only when asked

    return loosening_edits(report.groups, options.max_catalog_bytes)


def _coloured(choice: ColorChoice) -> bool:
    """Whether stdout gets colour: ``always``, or ``auto`` on a terminal without NO_COLOR."""
    if choice is not ColorChoice.AUTO:
        return choice is ColorChoice.ALWAYS
    return not os.environ.get(NO_COLOR) and sys.stdout.isatty()


def _colour_verdict(text: str, code: int) -> str:
    """The answer with its verdict (the last paragraph, on one line or wrapped on several) in
    bold red (the run fails) or green, each line on its own. The text has been through
    ``escape.terminal``: these are the only escape sequences in it."""
    head, _, last = text.rstrip("\n").rpartition("\n\n")
    colour = _BOLD_RED if code else _BOLD_GREEN
    verdict = "\n".join(f"{colour}{line}{_RESET}" for line in last.split("\n"))
    return f"{head}\n\n{verdict}\n"


def _check_traffic(calls: int, empty: Sequence[LogProblem], options: AuditOptions) -> None:
    """Refuse logs with fewer calls than ``--min-calls`` (none, unless ``--allow-empty``),
    before anything is written; say on stderr what held no call, never a silent pass."""
    if problem := traffic_problem(calls, options.logs, options.min_calls, options.allow_empty):
        raise TooFewCalls(problem)
    if options.quiet:
        return
    for folder in empty:
        typer.echo(f"auditor: warning: {terminal(one_line(str(folder)))}", err=True)
    if calls == 0:
        typer.echo(
            "auditor: warning: no call read from the logs: nothing was audited (--allow-empty)",
            err=True,
        )


def _write_patch(edits: CatalogEdits, path: str, options: AuditOptions) -> None:
    """The suggested loosenings as one unified diff of the catalog files; a loosening that
    cannot be written into its file is said on stderr (the report says why)."""
    from auditor.schema.diffs import unified_diff

    diff = "".join(
        unified_diff(_diff_path(f.path), f.before, f.after)
        for f in edits.files
        if f.after != f.before
    )
    emit(diff, path, within=options.suggest_patch_within)
    if not options.quiet:
        for problem in (problem for f in edits.files for problem in f.problems):
            typer.echo(f"auditor: not in the patch: {terminal(one_line(problem))}", err=True)


def _diff_path(path: str) -> str:
    """A catalog's path as a diff names it: relative to the working directory, with ``/``
    (``unified_diff`` quotes it as git does where it holds a line break or a control)."""
    relative = os.path.relpath(path) if os.path.isabs(path) else os.path.normpath(path)
    return Path(relative).as_posix()


def _catalogs(options: AuditOptions) -> tuple[Catalogs, NewCatalogs | None]:
    """The old catalogs and, when the change is not a normalization, the new ones."""
    from auditor.inputs.git_catalogs import GitRevision

    if options.against is not None and options.new_schemas:
        raise UsageFailure("--against and --new-schemas both name the new catalogs: give one")
    if options.repo is not None and options.against is None:
        raise UsageFailure("--repo names the repository --against reads: give --against too")
    revision = (
        None if options.against is None else GitRevision.resolve(options.against, options.repo)
    )
    old = _load(options, options.schemas, revision)
    if revision is not None:
        new_inputs = options.schemas
    elif options.new_schemas:
        new_inputs = options.new_schemas
    else:
        return old, None
    if STDIN in new_inputs and (STDIN in options.schemas or STDIN in options.logs):
        raise UsageFailure("standard input ('-') can feed one of the inputs, not two")
    new = _load(options, new_inputs, None)
    return old, NewCatalogs(
        new.tools,
        tuple(shown(path) for path in new_inputs),
        options.new_rules,
        None if revision is None else revision.ref,
    )


def _load(options: AuditOptions, paths: Sequence[str], revision: GitRevision | None) -> Catalogs:
    from auditor.inputs.catalogs import FileSystem, load_catalogs

    catalogs = load_catalogs(
        paths,
        allow_override=options.allow_override,
        fmt=options.catalog_format,
        max_bytes=options.max_catalog_bytes,
        source=revision if revision is not None else FileSystem(options.follow_links),
    )
    if catalogs.problems:
        raise UsageFailure(str(catalogs.problems[0]))
    return catalogs


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
