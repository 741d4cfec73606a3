"""``--engine``: where the parts of an audit run, each engine behind one function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from auditor.engines import on_ray, on_spark
from auditor.engines.core import EngineUnusable
from auditor.engines.names import Engine
from auditor.engines.plan import AuditPlan
from auditor.inputs.paths import STDIN
from auditor.models import Report

__all__ = ["CLUSTER_ENGINES", "Engine", "run_plan"]


CLUSTER_ENGINES: Final[dict[Engine, Callable[[AuditPlan, int], Report]]] = {
    Engine.SPARK: on_spark.run,
    Engine.RAY: on_ray.run,
}
"""Each engine but the local one, run with about ``workers`` workers where it starts them."""


def run_plan(engine: Engine, plan: AuditPlan, workers: int) -> Report:
    """The report of ``plan`` audited on ``engine`` (not the local one: ``--jobs`` is
    ``auditor.aggregate.parallel``)."""
    if STDIN in plan.files:
        raise EngineUnusable(
            f"--engine {engine.value} cannot read standard input: name the log files"
        )
    return CLUSTER_ENGINES[engine](plan, workers)
