"""Every way of running an audit: an engine over one plan (``auditor.engines.plan``), each
behind the same function, ``run(plan, workers, progress) -> Report``."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import Final

from auditor.aggregate.pipeline import ReportSettings
from auditor.aggregate.progress import Progress
from auditor.engines import inline
from auditor.engines.core import EngineUnusable
from auditor.engines.kept import PREFIX
from auditor.engines.plan import DEFAULT_REQUEST, AuditPlan, Cut, make_plan
from auditor.inputs.paths import STDIN
from auditor.models import Override, Report, ToolSchema
from auditor.request import AuditRequest, Engine
from auditor.schema.diff import NewCatalogs

__all__ = ["CLUSTER_ENGINES", "Engine", "audit_logs"]

Runner = Callable[[AuditPlan, int, Progress], Report]
"""An engine: the report of a plan, with about this many workers, telling progress."""


# The engines other than the inline one are imported when chosen: a --jobs 1 audit never
# needs multiprocessing, the cluster adapters or what they import.
def _local(plan: AuditPlan, workers: int, progress: Progress) -> Report:
    from auditor.engines import local

    return local.run(plan, workers, progress)


def _on_spark(plan: AuditPlan, workers: int, progress: Progress) -> Report:
    from auditor.engines import on_spark

    return on_spark.run(plan, workers, progress)


def _on_ray(plan: AuditPlan, workers: int, progress: Progress) -> Report:
    from auditor.engines import on_ray

    return on_ray.run(plan, workers, progress)


CLUSTER_ENGINES: Final[dict[Engine, Runner]] = {
    Engine.SPARK: _on_spark,
    Engine.RAY: _on_ray,
}
"""The engines that run the parts on a cluster (one they start, or one named to them)."""


def audit_logs(
    tools: Sequence[ToolSchema],
    files: Sequence[str],
    schema_inputs: Sequence[str],
    request: AuditRequest = DEFAULT_REQUEST,
    *,
    overrides: Sequence[Override] = (),
    settings: ReportSettings | None = None,
    new_catalogs: NewCatalogs | None = None,
    progress: Progress | None = None,
) -> Report:
    """The audit of the log ``files`` against ``tools`` (the old side; the new is
    ``new_catalogs``, else the tools normalized by the request's rules) on the request's
    engine. The report is the same whatever the engine and ``--jobs`` are: parts are merged
    in log order."""
    engine, workers = request.limits.engine, request.limits.workers
    if engine is not Engine.LOCAL and STDIN in files:
        raise EngineUnusable(
            f"--engine {engine.value} cannot read standard input: name the log files"
        )
    cut = Cut.FOR_CLUSTER if engine is not Engine.LOCAL else Cut.FOR_LOCAL
    if engine is Engine.LOCAL and workers == 1:
        cut = Cut.NONE
    progress = progress or Progress(0)
    with _aside_folder(request.limits.scratch if cut is not Cut.NONE else None) as aside_to:
        plan = make_plan(
            tools,
            files,
            schema_inputs,
            request,
            overrides=overrides,
            settings=settings,
            new_catalogs=new_catalogs,
            workers=workers,
            scratch=aside_to,
            # both cluster engines find repeats across files by a shuffle
            repeats_apart=cut is Cut.FOR_CLUSTER,
            cut=cut,
        )
        if cut is Cut.NONE:
            return inline.run(plan, workers, progress)
        return CLUSTER_ENGINES.get(engine, _local)(plan, workers, progress)


@contextlib.contextmanager
def _aside_folder(scratch: str | None) -> Iterator[str | None]:
    """A folder of this run's own inside ``scratch`` for the parts' kept calls, removed at
    the end (None without ``scratch``)."""
    if scratch is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix=PREFIX, dir=scratch) as folder:
        yield folder
