"""The Python API: the one door into the core, for the command line, the tests and notebooks.

>>> from auditor.api import audit
>>> from auditor.request import AuditRequest, Inputs
>>> result = audit(AuditRequest(Inputs(schemas=("tools.json",), logs=("calls.jsonl",))))
>>> result.exit_code, result.report.gate.failing  # doctest: +SKIP

``audit`` reads the catalogs and the logs a request names and returns an ``AuditResult``: the
report (its gate decided once, ``Report.gate``), the exit code ``auditor audit`` would give,
the warnings it would print, and the verified loosenings as edits of the catalog files.
``replay`` audits calls already in memory. Unusable input raises an ``AuditorError`` whose
``str()`` is the one-line message and whose ``exit_code`` is the documented one.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.errors import AuditorError
from auditor.inputs.log_files import (
    LogFormatError,
    LogProblem,
    TooFewCalls,
    check_logs,
    display_name,
    holds_no_log,
    traffic_problem,
)
from auditor.inputs.paths import STDIN, shown
from auditor.inputs.uri import check_uri
from auditor.models import (
    DEFAULT_RULES,
    Call,
    Report,
    Rule,
    SkippedInput,
    Subject,
    ToolSchema,
)
from auditor.request import AuditRequest, Inputs

if TYPE_CHECKING:
    from auditor.aggregate.baseline import Baseline
    from auditor.aggregate.pipeline import ReportSettings
    from auditor.aggregate.progress import Progress
    from auditor.inputs.catalogs import Catalogs
    from auditor.inputs.git_catalogs import GitRevision
    from auditor.replay.ajv import AjvLocation
    from auditor.replay.runtimes import Runtimes
    from auditor.schema.diff import NewCatalogs
    from auditor.schema.edit import CatalogEdits, FileRewrite
    from auditor.schema.lint import LintResult

__all__ = ["AuditRequest", "AuditResult", "InputError", "Inputs", "audit", "lint", "replay"]


class InputError(AuditorError):
    """An input the request names cannot be used (exit 2); the message says which and why."""


@dataclass(frozen=True)
class AuditResult:
    """What one audit found, and what ``auditor audit`` makes of it."""

    report: Report
    request: AuditRequest
    warnings: tuple[str, ...] = ()
    """What the run should tell its user besides the report (a folder holding no log)."""
    catalog_texts: Mapping[str, bytes] = field(default_factory=dict, repr=False)
    """The catalog files as the audit read them, by path: where the loosenings are written."""

    @property
    def exit_code(self) -> int:
        """0 when nothing fails under the request's ``--fail-on``, else 1 (the gate's): of
        the arguments and of the results, each gated apart."""
        return exit_code(self.report)

    @cached_property
    def loosenings(self) -> CatalogEdits:
        """The verified loosenings of the report's groups of the kinds asked for
        (``--suggest-patch-kinds``) written into their catalog files (for SARIF fixes and
        ``--suggest-patch``): built once, on first use."""
        from auditor.aggregate.rollup import kind_of
        from auditor.request import PATCH_ENTRIES
        from auditor.schema.edit import loosening_edits  # reads and edits YAML: only when asked

        limit = self.request.limits.max_catalog_bytes
        entries = {PATCH_ENTRIES[kind] for kind in self.request.keep.patch_kinds}
        results = self.report.results
        every = (*self.report.groups, *(() if results is None else results.groups))
        groups = [group for group in every if kind_of(group) in entries]
        return loosening_edits(groups, limit, self.catalog_texts)


def audit(request: AuditRequest, progress: Callable[[int], Progress] | None = None) -> AuditResult:
    """Audit the logs the request names against its change; ``progress``, given the bytes
    of the log files, makes what is told how far the reading is (the command line draws it
    on a terminal)."""
    inputs = request.inputs
    if not inputs.schemas or not inputs.logs:
        missing = "--schemas" if not inputs.schemas else "--logs"
        raise InputError(f"{missing} is required (on the command line or in the config file)")
    for path in (*inputs.schemas, *request.change.new_schemas, *inputs.logs):
        check_uri(path, inputs.allow_web_uris)
    if STDIN in inputs.schemas and STDIN in inputs.logs:
        raise InputError("standard input ('-') can feed the catalogs or the logs, not both")
    scratch = request.limits.scratch
    if scratch is not None and not os.path.isdir(scratch):
        raise InputError(f"--scratch {shown(scratch)}: not a folder")
    old, new, texts, skipped = _catalogs(request)
    files, problems = check_logs(inputs.logs, inputs.follow_links)
    # A folder without logs is as empty as an empty file: the count of calls decides.
    empty = [problem for problem in problems if holds_no_log(problem)]
    if unusable := [problem for problem in problems if not holds_no_log(problem)]:
        raise InputError(str(unusable[0]))
    from auditor.engines.choice import audit_logs  # the validation stack: not for --help

    try:
        report = audit_logs(
            old.tools,
            files,
            [shown(path) for path in inputs.schemas],
            request,
            overrides=old.overrides,
            settings=_settings(request),
            new_catalogs=new,
            progress=None if progress is None else progress(_size(files)),
        )
    except LogFormatError as error:
        from auditor.inputs.sniff import catalog_given_as_log

        failed = [f for f in files if display_name(f) == error.problem.location.path]
        raise InputError(catalog_given_as_log(failed) or str(error.problem)) from error
    report, unread = _with_results(report, old.tools, files, request, new)
    if skipped:  # counted in the inputs; the gate does not depend on them
        report = dataclasses.replace(report, skipped_inputs=skipped)
    warnings = (*_traffic(report.call_count, empty, request), *unread)
    return AuditResult(report, request, warnings, texts)


def exit_code(report: Report) -> int:
    """The exit code of a report's gates: its own, and its results' where it has them."""
    results = report.results
    return max(report.gate.exit_code, 0 if results is None else results.gate.exit_code)


def _with_results(
    report: Report,
    tools: Sequence[ToolSchema],
    files: Sequence[str],
    request: AuditRequest,
    new: NewCatalogs | None,
) -> tuple[Report, tuple[str, ...]]:
    """The arguments' report with the results' (``--subject``): under ``both``, where the
    logs hold results of tools that declare an output schema (nothing is added otherwise, so
    an arguments-only audit reports as before); under ``results``, the results' report is
    the report. The results are a second pass over the logs: standard input, read once, has
    none to give (a warning says so under ``both``; ``results`` refuses it)."""
    subject = request.inputs.subject
    declares = any(t.output is not None for t in (*tools, *(new.tools if new else ())))
    if subject is Subject.ARGUMENTS or (subject is Subject.BOTH and not declares):
        return report, ()
    if STDIN in files:
        if subject is Subject.RESULTS:
            raise InputError("--subject results cannot read standard input: name the log files")
        return report, ("the results were not read: standard input is read once, for the "
                        "arguments; name the log files to audit the results too",)  # fmt: skip
    from auditor.engines.results import audit_results

    schema_inputs = [shown(path) for path in request.inputs.schemas]
    results = audit_results(tools, files, schema_inputs, request, _settings(request), new)
    if subject is Subject.RESULTS:
        return results, ()
    counted = results.not_validated
    if results.call_count == 0 and (counted is None or not counted.total):
        return report, ()  # the logs hold no result of those tools
    return dataclasses.replace(report, results=results), ()


def replay(
    tools: Sequence[ToolSchema],
    calls: Iterable[Call],
    request: AuditRequest | None = None,
    schema_inputs: Sequence[str] = (),
    settings: ReportSettings | None = None,
) -> Report:
    """The report of ``calls`` (a notebook's list, a test's, or a ``LogReader`` over log
    files, whose accounting the report then carries) against ``tools`` and the request's
    change, in this process. The new side is the tools normalized by the request's rules;
    its inputs are not read. ``settings``: what the report keeps and how it gates, already
    resolved (a baseline in memory, say) instead of the request's."""
    from auditor.aggregate.pipeline import (
        CallList,
        CallSource,
        build_report,
        count_calls,
        prepare,
    )

    request = request or AuditRequest()
    replays = prepare(
        tools,
        request.change.normalization,
        call_timeout=request.limits.call_timeout or None,
        old_runtime=request.change.old_runtime if settings is None else settings.old_runtime,
        runtimes=_runtimes(request) if settings is None else settings.runtimes,
    )
    chosen = settings or _settings(request)
    source = calls if isinstance(calls, CallSource) else CallList(calls)
    tally = count_calls(replays, source, chosen)
    return build_report(replays, tally, source.stats(), schema_inputs, (), chosen)


def lint(
    paths: Sequence[str],
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    max_catalog_bytes: int | None = None,
    follow_links: bool = False,
) -> LintResult:
    """Every place of the catalogs under ``paths`` that is not evaluated as written
    (``auditor lint``): findings, and the files that could not be read."""
    from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES
    from auditor.schema.lint import lint_paths

    limit = DEFAULT_MAX_CATALOG_BYTES if max_catalog_bytes is None else max_catalog_bytes
    return lint_paths(list(paths), list(select), list(ignore), limit, follow_links)


@dataclass(frozen=True)
class NormalizeResult:
    """What normalizing the catalogs under some paths changes (``auditor normalize``)."""

    files: tuple[FileRewrite, ...]
    """Every catalog file found, in order: its text before and after, or why it was not
    rewritten."""
    problems: tuple[str, ...]
    """What could not be read: a path, or a folder holding no catalog file."""
    confined: Mapping[str, Path]
    """The folder each file found in a folder must stay in when it is written back."""
    skipped: tuple[SkippedInput, ...] = ()
    """Files of the folders that are no tool catalog, left alone (as ``audit`` skips them)."""

    @property
    def changed(self) -> tuple[FileRewrite, ...]:
        return tuple(result for result in self.files if result.changed)


def normalize(
    paths: Iterable[str],
    rules: frozenset[Rule] = DEFAULT_RULES,
    max_catalog_bytes: int | None = None,
    follow_links: bool = False,
    add_keys: bool = False,
    skip_named: bool = False,
) -> NormalizeResult:
    """Normalize every catalog file under ``paths`` by ``rules``, in memory: nothing is
    written. Links out of a catalog folder are read only with ``follow_links``; the keys an
    upgrade profile adds are written into the text only with ``add_keys`` (a file that
    needs one is a problem otherwise); named files that are no catalog are skipped too with
    ``skip_named``, as a folder's are."""
    from auditor.inputs.catalogs import FileSystem, read_catalog_files
    from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES
    from auditor.schema.edit import rewrite_file

    limit = DEFAULT_MAX_CATALOG_BYTES if max_catalog_bytes is None else max_catalog_bytes
    # One rule for folders in every command: the files that are no catalog are skipped.
    found = read_catalog_files(list(paths), None, limit, FileSystem(follow_links), skip_named)
    results: list[FileRewrite] = []
    confined: dict[str, Path] = {}
    for file in found.files:
        results.append(rewrite_file(file.path, rules, limit, add_keys=add_keys))
        if file.within is not None and Path(file.within).is_dir():
            confined[file.path] = Path(file.within)
    # A file that cannot be parsed is the rewrite's problem, placed at its line.
    problems = tuple(str(p) for p in found.problems)
    return NormalizeResult(tuple(results), problems, confined, found.skipped)


def _settings(request: AuditRequest) -> ReportSettings:
    """What the report keeps and how it gates, from the request."""
    from auditor.aggregate.pipeline import ReportSettings

    keep, gating = request.keep, request.gating
    return ReportSettings(
        examples=keep.examples,
        group_by=keep.group_by,
        redact=keep.redact,
        max_calls=keep.max_calls or None,
        baseline=_read_baseline(gating.baseline),
        generated_at=_now() if keep.timestamp else None,
        fail_on=gating.fail_on,
        old_runtime=request.change.old_runtime,
        runtimes=_runtimes(request),
        fail_min_calls=gating.fail_min_calls,
        fail_min_share=gating.fail_min_share,
    )


def _runtimes(request: AuditRequest) -> Runtimes | None:
    """Each side's runtime, from the request; None when both read schemas as today."""
    from auditor.replay.runtimes import runtimes_of
    from auditor.schema.keywords import Draft

    change = request.change
    new_dialect, old_dialect = change.default_dialect, change.old_default_dialect
    return runtimes_of(
        change.old_runtime,
        change.new_runtime,
        change.assert_formats,
        None if new_dialect is None else Draft(new_dialect.value),
        None if old_dialect is None else Draft(old_dialect.value),
        _ajv(request),
    )


class AjvUnavailable(AuditorError):
    """``--runtime-validator ajv`` where Ajv cannot run: never installed at run time."""


def _ajv(request: AuditRequest) -> AjvLocation | None:
    """Where Ajv runs for ``--runtime-validator ajv`` (None: the models give the verdicts)."""
    from auditor.models import RuntimeValidator
    from auditor.replay.ajv import locate_ajv

    if request.change.runtime_validator is not RuntimeValidator.AJV:
        return None
    found = locate_ajv(request.change.node_modules)
    if isinstance(found, str):
        raise AjvUnavailable(
            f"--runtime-validator ajv: {found} (install ajv and ajv-formats with npm "
            "beforehand and name the folder with --node-modules; auditor never installs "
            "them)"
        )
    return found


def _traffic(calls: int, empty: Sequence[LogProblem], request: AuditRequest) -> tuple[str, ...]:
    """Refuse logs with fewer calls than ``--min-calls`` (none, unless ``--allow-empty``);
    the warnings for what held no call: never a silent pass."""
    gating = request.gating
    if problem := traffic_problem(calls, request.inputs.logs, gating.min_calls, gating.allow_empty):
        raise TooFewCalls(problem)
    warnings = [str(folder) for folder in empty]
    if calls == 0:
        warnings.append("no call read from the logs: nothing was audited (--allow-empty)")
    return tuple(warnings)


def _catalogs(
    request: AuditRequest,
) -> tuple[Catalogs, NewCatalogs | None, Mapping[str, bytes], tuple[SkippedInput, ...]]:
    """The old catalogs and, when the change is not a normalization, the new ones; the
    bytes of every catalog file read from disk (``Catalogs.texts``); and the files of the
    catalog folders that are no catalog, once each (``--against`` reads a folder twice)."""
    inputs, change = request.inputs, request.change
    if change.against is not None and change.new_schemas:
        raise InputError("--against and --new-schemas both name the new catalogs: give one")
    if change.repo is not None and change.against is None:
        raise InputError("--repo names the repository --against reads: give --against too")
    revision = None
    if change.against is not None:
        from auditor.inputs.git_catalogs import GitRevision  # git: for --against only

        revision = GitRevision.resolve(change.against, change.repo)
    old = _load(request, inputs.schemas, revision)
    if revision is not None:
        new_inputs = inputs.schemas
    elif change.new_schemas:
        new_inputs = change.new_schemas
    else:
        return old, None, old.texts, old.skipped
    if STDIN in new_inputs and (STDIN in inputs.schemas or STDIN in inputs.logs):
        raise InputError("standard input ('-') can feed one of the inputs, not two")
    new = _load(request, new_inputs, None)
    from auditor.schema.diff import NewCatalogs  # two catalogs compared: not a normalization

    sides = NewCatalogs(
        new.tools,
        tuple(shown(path) for path in new_inputs),
        change.rules or frozenset(),
        None if revision is None else revision.ref,
    )
    seen = {skip.path for skip in new.skipped}
    prefix = "" if revision is None else f"{revision.ref}:"
    again = tuple(s for s in old.skipped if s.path.removeprefix(prefix) not in seen)
    return old, sides, {**old.texts, **new.texts}, (*new.skipped, *again)


def _load(request: AuditRequest, paths: Sequence[str], revision: GitRevision | None) -> Catalogs:
    from auditor.inputs.catalogs import FileSystem, load_catalogs

    inputs = request.inputs
    catalogs = load_catalogs(
        paths,
        allow_override=inputs.allow_override,
        fmt=inputs.catalog_format.to_format(),
        max_bytes=request.limits.max_catalog_bytes,
        source=revision if revision is not None else FileSystem(inputs.follow_links),
    )
    if catalogs.problems:
        raise InputError(str(catalogs.problems[0]))
    return catalogs


def _read_baseline(path: str | None) -> Baseline | None:
    from auditor.aggregate.baseline import parse_baseline

    if path is None:
        return None
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(
            f"{shown(path)}: cannot read baseline: {error.strerror or error}"
        ) from error
    except UnicodeDecodeError as error:
        raise InputError(f"{shown(path)}: not an auditor baseline: not UTF-8 text") from error
    return parse_baseline(shown(path), text)


def _size(files: Sequence[str]) -> int:
    return sum(os.path.getsize(file) for file in files if os.path.isfile(file))


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
