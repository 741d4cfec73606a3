"""The inline engine: one pass over the logs in this process, as they come (``--jobs 1``, and
logs that must be read in one pass: standard input, a single document, request histories)."""

from __future__ import annotations

from auditor.aggregate.pipeline import Replays, count_calls
from auditor.aggregate.progress import Progress
from auditor.aggregate.repeats import AcceptedRepeats
from auditor.engines.core import prepared, report_of
from auditor.engines.plan import AuditPlan
from auditor.inputs.reader import LogReader
from auditor.models import Report


def run(
    plan: AuditPlan, workers: int, progress: Progress, replays: Replays | None = None
) -> Report:
    """The report of ``plan`` read in one pass (its parts, if any, are not used); ``replays``:
    the plan's, already compiled (the local engine's, when it finds nothing to split)."""
    if replays is None:
        replays = prepared(plan)
    repeats = AcceptedRepeats()  # the reader counts accepted repeats itself
    reader = LogReader(
        plan.files,
        plan.log_format,
        plan.max_record_bytes,
        plan.columns,
        plan.calls_from,
        known=repeats,
    )
    calls = progress.wrap(reader, lambda: reader.bytes_read, lambda: repeats.hits)
    tally = count_calls(replays, calls, plan.settings, repeats)
    return report_of(plan, replays, tally, reader.stats())
