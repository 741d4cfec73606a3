"""What an audit is, as plain picklable data an engine ships to its workers: the one plan
every engine runs (``make_plan``), built from the request.

A plan holds the catalogs (as loaded, never compiled), the rules and report settings, and
the logs cut into work items (``auditor.inputs.parts``). Compiled validators never travel:
each worker process compiles the catalog once, on its first part, and keeps it by the plan's
``catalog_key`` (``auditor.engines.core``).
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from auditor.aggregate.pipeline import ReportSettings
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.columns import Columns
from auditor.inputs.limits import DEFAULT_MAX_RECORD_BYTES
from auditor.inputs.log_format_names import LogFormat
from auditor.inputs.parts import WorkItem, work_items
from auditor.models import DEFAULT_RULES, Override, ProfileRun, Rule, ToolSchema
from auditor.replay.budget import DEFAULT_CALL_TIMEOUT
from auditor.request import AuditRequest
from auditor.schema.diff import NewCatalogs
from auditor.schema.sdk_runs import choose

DEFAULT_REQUEST: Final = AuditRequest()

MIN_PART_BYTES: Final = 4 << 20
"""Below this a part costs more to hand out than to read in place."""
PARTS_PER_JOB: Final = 4
"""More parts than workers, so a slow part does not leave the others idle."""


@dataclass(frozen=True)
class AuditPlan:
    """Everything a worker needs to audit any one of ``parts``, and the driver to merge."""

    tools: tuple[ToolSchema, ...]
    files: tuple[str, ...]
    """The log files, in the order the report lists them."""
    parts: tuple[WorkItem, ...]
    """The logs in work items, in log order: part ``i`` comes before part ``i + 1``."""
    schema_inputs: tuple[str, ...]
    overrides: tuple[Override, ...] = ()
    rules: frozenset[Rule] = DEFAULT_RULES
    settings: ReportSettings = field(default_factory=ReportSettings)
    new_catalogs: NewCatalogs | None = None
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
    catalog_key: str = ""
    """What identifies the compiled catalog in a cluster worker's cache: a digest of
    everything the replays are built from, taken once by the driver (``make_plan``); empty
    for a plan run on this machine, whose forked workers share the driver's."""
    scratch: str | None = None
    """A folder of this run's own where each part writes its kept calls, shipping counts
    only (``auditor.engines.kept``); None: the kept calls travel in the partials."""
    distinct_first: bool = False
    """Replay the payloads the whole log repeats most once, before the parts, which then only
    count their calls (``auditor.engines.distinct``); the report is the same either way."""
    log_format: LogFormat | None = None
    """Every log's format (None: each file's detected), for an engine that reads them whole."""
    calls_from: CallsFrom = CallsFrom.ALL
    columns: Columns = field(default_factory=Columns)
    """The tool and arguments columns of Parquet and Arrow logs (None in it: found by name)."""
    profile_runs: tuple[ProfileRun, ...] | None = None
    """Which code makes each upgrade profile's schemas, decided by the driver where the plan
    was made (``auditor.schema.sdk_runs.choose``): a worker without the SDK fails rather than
    run the model in its place. None: each process decides (a plan made by hand)."""


class Cut(Enum):
    """How the logs are cut in parts: for the local workers, for a cluster, or not at all
    (one pass in this process reads them as they come)."""

    NONE = "none"
    FOR_LOCAL = "local"
    FOR_CLUSTER = "cluster"


def make_plan(
    tools: Sequence[ToolSchema],
    files: Sequence[str],
    schema_inputs: Sequence[str],
    request: AuditRequest = DEFAULT_REQUEST,
    *,
    overrides: Sequence[Override] = (),
    settings: ReportSettings | None = None,
    new_catalogs: NewCatalogs | None = None,
    workers: int = 2,
    min_part_bytes: int | None = None,
    scratch: str | None = None,
    repeats_apart: bool = False,
    distinct_first: bool = False,
    cut: Cut = Cut.FOR_CLUSTER,
) -> AuditPlan:
    """The plan of the audit ``request`` asks for, of the logs ``files`` against ``tools``
    (the old side; the new is ``new_catalogs``, else the tools normalized by the request's
    rules), cut for about ``workers`` workers as ``cut`` says. ``settings``: what the report
    keeps and how it gates (``auditor.api.settings``). ``scratch``: a folder of this run's
    own, readable here and writable by every worker, that keeps the listed calls off the
    driver. ``min_part_bytes``: the least a part holds (``MIN_PART_BYTES``, read when the
    plan is made). ``repeats_apart``: a log whose calls repeat those of other files is a part of its
    own, for an engine that finds the repeats by a shuffle (``auditor.engines.core.seen_before``);
    otherwise such logs are all one part. ``distinct_first``: see ``AuditPlan.distinct_first``."""
    settings = settings or ReportSettings()
    inputs, limits = request.inputs, request.limits
    rules = request.change.normalization
    columns = inputs.columns
    fmt = inputs.log_format.to_format()
    call_timeout = limits.call_timeout or None
    parts: list[WorkItem] = []
    if cut is not Cut.NONE:
        parts = work_items(
            files,
            fmt,
            workers,
            MIN_PART_BYTES if min_part_bytes is None else min_part_bytes,
            PARTS_PER_JOB,
            limits.max_record_bytes,
            inputs.calls_from,
            repeats_apart,
            # Local workers read a Parquet or Arrow file whole; a cluster, in row groups.
            columns if cut is Cut.FOR_CLUSTER else None,
        )
    runs = choose(rules if new_catalogs is None else new_catalogs.rules)
    key = ""
    if cut is Cut.FOR_CLUSTER:  # a worker of a cluster keeps the compiled catalog by it
        compiled_from = (
            tuple(tools),
            sorted(rule.value for rule in rules),
            new_catalogs,
            call_timeout,
            settings.old_runtime,
            runs,
            settings.runtimes,
        )
        # Taken here, once: pickling a frozenset gives different bytes in another process.
        key = hashlib.blake2b(pickle.dumps(compiled_from), digest_size=16).hexdigest()
    return AuditPlan(
        tools=tuple(tools),
        files=tuple(files),
        parts=tuple(parts),
        schema_inputs=tuple(schema_inputs),
        overrides=tuple(overrides),
        rules=frozenset(rules),
        settings=settings,
        new_catalogs=new_catalogs,
        call_timeout=call_timeout,
        max_record_bytes=limits.max_record_bytes,
        catalog_key=key,
        scratch=scratch,
        distinct_first=distinct_first,
        log_format=fmt,
        calls_from=inputs.calls_from,
        columns=columns,
        profile_runs=runs,
    )
