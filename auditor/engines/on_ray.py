"""The audit on Ray: a task per part of the plan; the driver combines the partials as they
arrive (in any order: ``auditor.engines.core``), so it holds few of them at a time.

``audit_on_ray`` is for users connected to a Ray cluster (``ray.init(address=...)``, with a
``runtime_env`` that installs ``auditor``); ``run`` is ``--engine ray``. ray is the
``tool-schema-auditor[ray]`` extra, imported only here and only when used.
"""

from __future__ import annotations

import os

from auditor.engines.core import EngineUnusable, Partial, audit_part, combine, merge
from auditor.engines.plan import AuditPlan
from auditor.models import Report


def audit_on_ray(plan: AuditPlan, cpus_per_part: float = 1.0) -> Report:
    """The report of ``plan``, its parts audited as Ray tasks of ``cpus_per_part`` CPUs
    each (a fraction lets more tasks share a small machine): the same report as one pass
    over the logs on one machine."""
    import ray

    if not plan.parts:
        return merge(plan, [])
    shared = ray.put(plan)  # stored once, read by every task
    task = ray.remote(num_cpus=cpus_per_part)(audit_part)
    pending = [task.remote(shared, part) for part in range(len(plan.parts))]
    total = Partial()
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        total = combine(total, ray.get(done[0]))
    return merge(plan, [total])


def run(plan: AuditPlan, workers: int) -> Report:
    """``--engine ray``: the cluster ``RAY_ADDRESS`` names, or a local Ray of ``workers``
    CPUs; a Ray started here is shut down here."""
    try:
        import ray
    except ImportError:
        raise _unusable("needs ray: pip install 'tool-schema-auditor[ray]'") from None
    started = not ray.is_initialized()
    if started:
        if os.environ.get("RAY_ADDRESS"):
            ray.init(log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        return audit_on_ray(plan)
    finally:
        if started:
            ray.shutdown()


def _unusable(why: str) -> EngineUnusable:
    return EngineUnusable(f"--engine ray {why}")
