"""What ``auditor audit`` does with a finished audit: the report files, the formats asked for,
the patch and the baseline, the answer on the terminal and the gate's line on stderr.

The options that say where things go are the command line's own (``Delivery``), declared
like the request's (``auditor.request.option``); ``Outputs`` is what they resolve to once
the command line has checked them.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Final

import typer

from auditor.cli.common import emit, write_pair, write_text
from auditor.cli.from_config import CONFIG_URIS_FLAG
from auditor.cli.output import names_stdout
from auditor.errors import EXIT_OK
from auditor.inputs.paths import shown
from auditor.report import Format
from auditor.report.escape import one_line, terminal
from auditor.request import AUTO, GATING, INPUTS, OUTPUTS, option

if TYPE_CHECKING:  # the audit's stack: not for --help
    from auditor.api import AuditResult


class ColorChoice(str, Enum):
    """``--color``: when the verdict on stdout is coloured."""

    AUTO = AUTO
    """On a terminal unless ``CLICOLOR=0``, or where ``FORCE_COLOR`` or ``CLICOLOR_FORCE``
    asks for it; never under ``NO_COLOR`` (``colour_wanted``)."""
    ALWAYS = "always"
    NEVER = "never"


@dataclass(frozen=True)
class Delivery:
    """The options of ``auditor audit`` about this run's outputs, not about the audit."""

    format: tuple[Format, ...] = option(
        (),
        "--format",
        panel=OUTPUTS,
        metavar="FORMAT",
        help=f"A format to render ({', '.join(f.value for f in Format)}); repeat, "
        "paired with --output.",
    )
    output: tuple[str, ...] = option(
        (),
        "--output",
        panel=OUTPUTS,
        metavar="PATH",
        help="Where the --format of the same rank goes; '-' is stdout.",
    )
    report_dir: Path = option(
        Path("reports"),
        "--report-dir",
        panel=OUTPUTS,
        metavar="DIR",
        show_default=True,
        help="Folder for audit.md and audit.json; when a --format goes to stdout, they "
        "are written only if this is given.",
    )
    no_report_files: bool = option(
        False,
        "--no-report-files",
        panel=OUTPUTS,
        help="Do not write audit.md, audit.json.",
    )
    suggest_patch: str | None = option(
        None,
        "--suggest-patch",
        panel=OUTPUTS,
        metavar="PATH",
        help="Write the verified loosening of each loosen-schema group (the kinds "
        "--suggest-patch-kinds names) as a unified diff of the catalog files (for git "
        "apply); '-' is stdout.",
    )
    quiet: bool = option(
        False,
        "--quiet",
        "-q",
        panel=OUTPUTS,
        cli_only=True,
        help="Print nothing but errors and the gate's one line (and the config file used).",
    )
    verbose: bool = option(
        False,
        "--verbose",
        "-v",
        panel=OUTPUTS,
        cli_only=True,
        help="Print every group with its detail (cause, evidence, hint, values sent, "
        "callers, patch, fingerprint), the old-runtime notes and coverage, as the report "
        "files hold them. Command line only.",
    )
    color: ColorChoice = option(
        ColorChoice.AUTO,
        "--color",
        panel=OUTPUTS,
        metavar="WHEN",
        show_default=True,
        help="Colour the verdict (the last lines on stdout): auto (on a terminal unless "
        "CLICOLOR=0, or under FORCE_COLOR / CLICOLOR_FORCE; never under NO_COLOR), always, "
        "never.",
    )
    generate_baseline: str | None = option(
        None,
        "--generate-baseline",
        panel=GATING,
        metavar="FILE",
        cli_only=True,
        help="Write the current groups to this file.",
    )
    allow_config_uris: bool = option(
        False,
        CONFIG_URIS_FLAG,
        panel=INPUTS,
        cli_only=True,
        help="Read the URIs the config file names in schemas, new_schemas and logs "
        "(refused by default: a pull request can change the file). On the command line "
        "only.",
    )


@dataclass(frozen=True)
class Outputs:
    """Where this run's outputs go, checked before the audit runs."""

    formats: tuple[tuple[Format, str], ...] = ()
    """(format, path) pairs; ``-`` is stdout."""
    report_dir: Path | None = Path("reports")
    """The folder of audit.md and audit.json; None: not written."""
    quiet: bool = False
    verbose: bool = False
    color: ColorChoice = ColorChoice.AUTO
    suggest_patch: str | None = None
    generate_baseline: str | None = None
    formats_within: Path | None = None
    """The folder the ``formats`` files must stay in (link targets too): the working
    directory when the configuration file named them; None when the command line did."""
    reports_within: Path | None = None
    """The same for the report files, unless ``--report-dir`` was given."""
    suggest_patch_within: Path | None = None
    run_url: str | None = None
    """The CI run's page, where the pull-request comment says the full report is
    (``AUDITOR_RUN_URL``; read only for ``--format comment``)."""


NO_COLOR: Final = "NO_COLOR"
"""The environment variable that turns colour off (https://no-color.org), whatever asks
for it but ``--color always``."""
FORCE_COLOR: Final = "FORCE_COLOR"
"""Colour a pipe too (https://force-color.org): what CI systems set for their logs."""
CLICOLOR_FORCE: Final = "CLICOLOR_FORCE"
"""The same, in the older convention (https://bixense.com/clicolors): any value but 0."""
CLICOLOR: Final = "CLICOLOR"
"""That convention's switch for a terminal: ``0`` means no colour there either."""
_BOLD_RED: Final = "\x1b[1;31m"
_BOLD_GREEN: Final = "\x1b[1;32m"
_RESET: Final = "\x1b[0m"

DETAIL_FORMATS: Final = (Format.MARKDOWN, Format.HTML, Format.TABLE, Format.JSON)
"""The formats that list every group, in the order a reader would rather open them."""


def deliver(result: AuditResult, outputs: Outputs) -> int:
    """Write and print what ``outputs`` asks for; the exit code of the run."""
    report = result.report
    if not outputs.quiet:
        for skip in report.skipped_inputs:
            typer.echo(f"auditor: skipped: {terminal(one_line(str(skip)))}", err=True)
        for warning in result.warnings:
            typer.echo(f"auditor: warning: {terminal(one_line(warning))}", err=True)
    # Writing a baseline accepts the current state: that run does not fail.
    code = EXIT_OK if outputs.generate_baseline is not None else result.exit_code
    written = _write_reports(result, outputs)
    detail_in = _detail_file(outputs)
    for fmt, path in outputs.formats:
        text = _rendered(result, fmt, path, code, detail_in, outputs)
        emit(text, path, within=outputs.formats_within)
        if not names_stdout(path):
            written.append(Path(path))
    if outputs.generate_baseline is not None:
        from auditor.aggregate.baseline import render_baseline

        results = () if report.results is None else report.results.groups
        baseline = render_baseline((*report.groups, *results))
        write_text(Path(outputs.generate_baseline), baseline)
        written.append(Path(outputs.generate_baseline))
    if outputs.suggest_patch is not None:
        _write_patch(result, outputs.suggest_patch, outputs)
        if not names_stdout(outputs.suggest_patch):
            written.append(Path(outputs.suggest_patch))
    to_stdout = [path for _, path in outputs.formats] + [outputs.suggest_patch or ""]
    if not outputs.quiet and not any(names_stdout(path) for path in to_stdout):
        text = _rendered(result, Format.TABLE, "-", code, detail_in, outputs)
        coloured = colour_wanted(outputs.color, os.environ, sys.stdout.isatty())
        typer.echo(_colour_verdict(text, code) if coloured else text, nl=False, color=coloured)
    if written and not outputs.quiet:  # stderr: stdout may be a pipe that wants the data only
        typer.echo(f"auditor: wrote {terminal(', '.join(shown(p) for p in written))}", err=True)
    if outputs.generate_baseline is not None:
        return code
    from auditor.report.cells import wrap
    from auditor.report.common import gate_summary

    # A failing gate says so once, on stderr, even under --quiet: the fingerprints are in the
    # report files and under --verbose, where a baseline is made.
    summaries = [("", gate_summary(report, detail_in))]
    if report.results is not None:  # the results are gated apart: said apart
        summaries.append(("results: ", gate_summary(report.results, detail_in)))
    for subject, line in summaries:
        if line:
            for piece in wrap(f"auditor: {subject}{one_line(line)}", _terminal_width(), 4):
                typer.echo(piece, err=True)
    return code


def _detail_file(outputs: Outputs) -> str | None:
    """The file a reader goes to for every group (escaped for the terminal): the default
    ``audit.md``, else the first ``--output`` file of a ``DETAIL_FORMATS`` format; None when
    the run writes none."""
    if outputs.report_dir is not None:
        return terminal(shown(outputs.report_dir / "audit.md"))
    files = [(fmt, path) for fmt, path in outputs.formats if not names_stdout(path)]
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
    result: AuditResult, fmt: Format, path: str, code: int, detail_in: str | None, out: Outputs
) -> str:
    """``fmt`` for ``path``; SARIF carries the verified loosenings as fixes. The table names
    the exit code of the run: on stdout it is the concise answer (every group's detail with
    ``--verbose``; ``detail_in``: the report listing the groups it leaves out) in the
    terminal's width; in a file, the detail in ``table.DEFAULT_WIDTH``. The pull-request
    comment says where the full report is: the report folder, and the CI run's page."""
    report = result.report
    if fmt is Format.SARIF:
        from auditor.report import sarif

        return sarif.render(report, sarif.loosening_fixes(report, result.loosenings.alone))
    if fmt is Format.COMMENT:
        from auditor.report import comment

        folder = None if out.report_dir is None else shown(out.report_dir)
        return comment.render(report, comment.FullReport(folder, out.run_url))
    if fmt is not Format.TABLE:
        from auditor.report import render

        return render(report, fmt)
    from auditor.report import table

    if not names_stdout(path):
        return table.render(report, table.DEFAULT_WIDTH, code)
    if out.verbose:
        return table.render(report, _terminal_width(), code)
    return table.concise(report, _terminal_width(), code, detail_in)


def colour_wanted(choice: ColorChoice, environ: Mapping[str, str], terminal: bool) -> bool:
    """Whether stdout gets colour. ``--color always`` or ``never`` is the user's word and
    wins; ``auto`` never colours under ``NO_COLOR``, colours under ``FORCE_COLOR`` or
    ``CLICOLOR_FORCE``, else only a ``terminal``, and not one under ``CLICOLOR=0``. A variable
    set to the empty string counts as unset (both conventions say so), and ``CLICOLOR_FORCE=0``
    does not force."""
    if choice is not ColorChoice.AUTO:
        return choice is ColorChoice.ALWAYS
    if environ.get(NO_COLOR):
        return False
    if environ.get(FORCE_COLOR) or environ.get(CLICOLOR_FORCE, "0") not in ("", "0"):
        return True
    return terminal and environ.get(CLICOLOR) != "0"


def _colour_verdict(text: str, code: int) -> str:
    """The answer with its verdict (the last paragraph, on one line or wrapped on several) in
    bold red (the run fails) or green, each line on its own. The text has been through
    ``escape.terminal``: these are the only escape sequences in it."""
    head, _, last = text.rstrip("\n").rpartition("\n\n")
    colour = _BOLD_RED if code else _BOLD_GREEN
    verdict = "\n".join(f"{colour}{line}{_RESET}" for line in last.split("\n"))
    return f"{head}\n\n{verdict}\n"


def _write_patch(result: AuditResult, path: str, outputs: Outputs) -> None:
    """The suggested loosenings as one unified diff of the catalog files; a loosening that
    cannot be written into its file is said on stderr (the report says why)."""
    from auditor.schema.diffs import unified_diff

    edits = result.loosenings
    diff = "".join(
        unified_diff(_diff_path(f.path), f.before, f.after)
        for f in edits.files
        if f.after != f.before
    )
    emit(diff, path, within=outputs.suggest_patch_within)
    if not outputs.quiet:
        for problem in (problem for f in edits.files for problem in f.problems):
            typer.echo(f"auditor: not in the patch: {terminal(one_line(problem))}", err=True)


def _diff_path(path: str) -> str:
    """A catalog's path as a diff names it: relative to the working directory, with ``/``
    (``unified_diff`` quotes it as git does where it holds a line break or a control)."""
    relative = os.path.relpath(path) if os.path.isabs(path) else os.path.normpath(path)
    return Path(relative).as_posix()


def _write_reports(result: AuditResult, outputs: Outputs) -> list[Path]:
    if outputs.report_dir is None:
        return []
    from auditor.report import render

    files = [
        (outputs.report_dir / name, render(result.report, fmt))
        for fmt, name in ((Format.MARKDOWN, "audit.md"), (Format.JSON, "audit.json"))
    ]
    write_pair(files, outputs.report_dir, within=outputs.reports_within)
    return [path for path, _ in files]
