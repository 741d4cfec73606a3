"""The audit on Ray: a task per part of the plan; the driver combines the partials as they
arrive (in any order: ``auditor.engines.core``), so it holds few of them at a time. Parts
whose calls repeat earlier files' first get the ids earlier parts hold, by a two-stage
map/reduce on the call-id digests (``call_ids`` in buckets, ``seen_before`` per bucket),
passed between tasks as object references: the ids never reach the driver.

Parquet and Arrow IPC logs are parts of consecutive row groups (``ColumnarPart``), each a
task that reads them with pyarrow. Not Ray Data's ``read_parquet`` + ``map_batches``: its
batches carry no row number (only a path column and a row hash), so calls could not be
named ``file#row`` nor the batches put in log order; and ``ray.data`` needs pandas.

With ``AuditPlan.distinct_first``, tasks first count the (tool, arguments text) pairs of a
sample of the JSON Lines logs' lines, by a map/reduce on the pairs' digests; tasks replay the
most frequent once, and the accepted ones, put in the object store, are preloaded in every
part (``auditor.engines.distinct``).

``audit_on_ray`` is for users connected to a Ray cluster (``ray.init(address=...)``, with a
``runtime_env`` that installs ``auditor``); ``run`` is ``--engine ray``. ray is the
``tool-schema-auditor[ray]`` extra, imported only here and only when used.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Final

from auditor.aggregate.progress import Progress
from auditor.aggregate.repeats import Known, Payload
from auditor.engines import distinct
from auditor.engines.core import (
    EngineUnusable,
    Partial,
    audit_part,
    call_ids,
    combine,
    merge,
    repeat_parts,
    seen_before,
)
from auditor.engines.plan import AuditPlan
from auditor.models import Report

MAX_BUCKETS: Final = 16
"""Reduce tasks of the shuffle of call ids, at most: each returns a list per part."""


def audit_on_ray(plan: AuditPlan, cpus_per_part: float = 1.0) -> Report:
    """The report of ``plan``, its parts audited as Ray tasks of ``cpus_per_part`` CPUs
    each (a fraction lets more tasks share a small machine): the same report as one pass
    over the logs on one machine."""
    import ray

    if not plan.parts:
        return merge(plan, [])
    shared = ray.put(plan)  # stored once, read by every task
    seen = _seen_before(shared, repeat_parts(plan), cpus_per_part)
    preload = _preload(plan, shared, cpus_per_part) if plan.distinct_first else None
    task = ray.remote(num_cpus=cpus_per_part)(_audit)
    pending = [
        task.remote(shared, part, preload, *seen.get(part, ())) for part in range(len(plan.parts))
    ]
    total = Partial()
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        total = combine(total, ray.get(done[0]))
    return merge(plan, [total])


def _seen_before(shared: Any, repeating: list[int], cpus: float) -> dict[int, list[Any]]:
    """For each part with repeats, references to the lists (one per bucket) of the call ids
    it holds that earlier parts hold too: map tasks bucket each part's ids by digest, one
    reduce task per bucket sorts out the earlier holders."""
    import ray

    if len(repeating) < 2:  # also: at least two returns, so that Ray returns lists of them
        return {}
    buckets = min(len(repeating), MAX_BUCKETS)
    mapper = ray.remote(num_cpus=cpus, num_returns=buckets)(call_ids)
    reducer = ray.remote(num_cpus=cpus, num_returns=len(repeating))(_bucket_seen_before)
    held = [mapper.remote(shared, part, buckets) for part in repeating]
    reduced = [
        reducer.remote(repeating, *[ids[bucket] for ids in held]) for bucket in range(buckets)
    ]
    return {part: [lists[i] for lists in reduced] for i, part in enumerate(repeating)}


def _bucket_seen_before(parts: Sequence[int], *held: list[int]) -> list[list[int]]:
    """One bucket's digests that each of ``parts`` holds and an earlier part holds too."""
    earlier = seen_before(zip(parts, held, strict=True))
    return [earlier.get(part, []) for part in parts]


def _audit(
    plan: AuditPlan, part: int, preload: dict[Payload, Known] | None, *seen: list[int]
) -> Partial:
    return audit_part(plan, part, frozenset(digest for ids in seen for digest in ids), preload)


REPLAYS_PER_TASK: Final = 5_000
"""Candidates one task replays: the tools are compiled once per worker process anyway."""


def _preload(plan: AuditPlan, shared: Any, cpus: float) -> Any:
    """A reference to the payloads the logs repeat most, replayed once by tasks: the accepted
    ones; None when no log can be counted so (or none repeats)."""
    import ray

    candidates = _candidates(plan, shared, cpus)
    if not candidates:
        return None
    replay = ray.remote(num_cpus=cpus)(distinct.replay_candidates)
    slices = range(0, len(candidates), REPLAYS_PER_TASK)
    pending = [replay.remote(shared, candidates[at : at + REPLAYS_PER_TASK]) for at in slices]
    known: dict[Payload, Known] = {}
    for some in ray.get(pending):
        known.update(some)
    return ray.put(known)


def _candidates(plan: AuditPlan, shared: Any, cpus: float) -> list[tuple[str, str]]:
    """The (tool, arguments text) pairs called at least twice in a sample of the lines of the
    parts ``distinct`` can count, most frequent first, within its bounds: map tasks count each
    part's pairs in buckets by digest, one reduce task per bucket keeps its most frequent, so
    the driver receives at most ``MAX_CANDIDATES`` pairs a bucket."""
    import ray

    parts = distinct.countable_parts(plan)
    if not parts:
        return []
    buckets = min(max(len(parts), 2), MAX_BUCKETS)  # two at least: Ray then returns a list
    mapper = ray.remote(num_cpus=cpus, num_returns=buckets)(distinct.count_pairs)
    reducer = ray.remote(num_cpus=cpus)(distinct.most_called)
    fraction = distinct.SAMPLE_FRACTION  # read here: the driver decides
    counted = [mapper.remote(shared, part, buckets, fraction) for part in parts]
    tops = ray.get([reducer.remote(*[each[b] for each in counted]) for b in range(buckets)])
    return distinct.take(distinct.most_called(*tops))


def run(plan: AuditPlan, workers: int, progress: Progress | None = None) -> Report:
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
