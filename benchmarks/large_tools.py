"""What one large tool costs the audit as it grows: its groups' loosening patches, and the
counterexample searches of the changes no call tested.

    python3 benchmarks/large_tools.py --rounds 3
    python3 benchmarks/large_tools.py --auditor-tree /path/to/other/tree --sizes 125 250 \
        --rounds 1 --timeout 600 --keep /tmp/large-tools-before

One catalog of one tool, ``wide``, of N properties, strings unless said otherwise, each
written ``max_length: 1`` (a dialect spelling the normalization wakes up: a rewrite per
property) with a description of about 300 characters (500 properties: about 200 KB, as a
generated API's tool can be). Three workloads per size:

- ``groups``: 9 calls, each sending 20 of the properties too long (a call's errors stop at
  ``replay.tool.MAX_ERRORS``, 20), a different 20 each: min(N, 180) groups, each failing 1
  of 9 calls (a share between the hints' thresholds: ``review``), each with a verified
  loosening patch located in the catalog. The rewrites no call failed (N - 180 of them) are
  searched for counterexamples too. More calls make no more patched groups: a group failing
  at most a tenth of its tool's calls is ``fix-callers``, which gets no patch, so a tool
  has at most about 200 of them.
- ``searches``: the properties are strings and integers in turn, each with ``max_length``,
  ``min_length`` and ``max_items``, and 5 calls send nothing too long: every rewrite is
  untested, 3N counterexample searches and no group. A keyword for another type than the
  property's is proved harmless (its ``type`` admits no value it applies to, and nothing
  changed the type); a string's length bounds are shown by a counterexample one edit away
  from a logged call.
- ``required``: string properties, all of them required, and the same calls (rejected for
  what they leave out, so none is edited): each search edits the argument built from the
  schema, which holds every property.

Each audit runs as ``auditor audit --format json`` in a subprocess of its own, under
``--timeout`` seconds of wall time (an audit past it is printed as such, and its size is
not measured again); the figures are the CPU seconds of that process (user and system) and
its wall time, medians of ``--rounds``, with the ratio of CPU seconds to the size before:
linear growth doubles with the size. ``--keep DIR`` keeps each workload's JSON report
(``groups-500.json``...), to compare two trees' with ``cmp``. ``--auditor-tree`` measures the
``auditor`` of another source tree (a ``git worktree`` of a commit): before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

ERRORS_PER_CALL = 20
"""``replay.tool.MAX_ERRORS``: the errors one call's replay reports."""
GROUP_CALLS = 9
"""Calls of the ``groups`` workload: each group fails 1 of 9, between the hints' thresholds
(``hints.CALLER_BUG_SHARE`` 0.1 and ``LOOSEN_SHARE`` 0.5), so each gets a patch."""
SEARCH_CALLS = 5
SEARCHED = ("max_length", "min_length", "max_items")
"""The dialect keywords of each property of the ``searches`` workload."""
DESCRIPTION = (
    "The {i}th field of a generated API: a value the service reads as written, documented at "
    "length as generated catalogs document every field, with what it means, where it comes "
    "from, which other fields it depends on, and an example of it that the model may copy. "
)


def catalog(
    size: int,
    kinds: tuple[str, ...] = ("string",),
    keywords: tuple[str, ...] = ("max_length",),
    required: bool = False,
) -> str:
    """One tool of ``size`` properties of the types ``kinds`` in turn, each with each of
    ``keywords`` (dialect spellings) at 1 and a long description; all of them ``required``
    when asked."""
    properties = {
        f"p{i}": {
            "type": kinds[i % len(kinds)],
            **dict.fromkeys(keywords, 1),
            "description": DESCRIPTION.format(i=i),
        }
        for i in range(size)
    }
    schema: dict[str, object] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(properties)
    return json.dumps({"tools": [{"name": "wide", "inputSchema": schema}]}, indent=1) + "\n"


def groups_log(size: int) -> str:
    """``GROUP_CALLS`` calls, each sending its own 20 properties too long."""
    lines = []
    for call in range(GROUP_CALLS):
        first = call * ERRORS_PER_CALL
        names = [f"p{i}" for i in range(first, min(first + ERRORS_PER_CALL, size))]
        lines.append(json.dumps({"tool": "wide", "arguments": dict.fromkeys(names, "xx")}))
    return "\n".join(lines) + "\n"


def quiet_log(size: int) -> str:
    """``SEARCH_CALLS`` calls that break nothing: every rewrite is left to the search."""
    lines = [json.dumps({"tool": "wide", "arguments": {"p0": "x"}}) for _ in range(SEARCH_CALLS)]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Workload:
    catalog: Callable[[int], str]
    log: Callable[[int], str]


WORKLOADS: dict[str, Workload] = {
    "groups": Workload(catalog, groups_log),
    "searches": Workload(
        partial(catalog, kinds=("string", "integer"), keywords=SEARCHED), quiet_log
    ),
    "required": Workload(partial(catalog, required=True), quiet_log),
}


@dataclass(frozen=True)
class Round:
    cpu: float
    """User and system seconds of the audit process."""
    wall: float
    timed_out: bool = False


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def audit(folder: Path, log: str, report: Path, tree: Path, timeout: float) -> Round:
    """One ``auditor audit`` of ``folder``'s catalog and ``log`` by ``tree``'s auditor, its
    JSON report written to ``report``; stopped past ``timeout`` seconds."""
    command = [
        sys.executable, "-m", "auditor", "audit", "--schemas", "tools.json", "--logs", log,
        "--jobs", "1", "--quiet", "--format", "json", "--output", str(report),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cpu = _children_cpu()
    started = time.perf_counter()
    try:
        completed = subprocess.run(
            command, check=False, cwd=folder, env=env, stderr=subprocess.PIPE, timeout=timeout
        )
    except subprocess.TimeoutExpired:  # killed and waited for: its CPU is counted, not shown
        return Round(_children_cpu() - cpu, time.perf_counter() - started, timed_out=True)
    elapsed = time.perf_counter() - started
    if completed.returncode not in (0, 1):  # 1: newly rejected calls, as ``groups`` has
        sys.stderr.buffer.write(completed.stderr)
        raise SystemExit(f"audit failed with exit status {completed.returncode}")
    return Round(_children_cpu() - cpu, elapsed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[125, 250, 500, 1000])
    parser.add_argument("--workload", choices=sorted(WORKLOADS), action="append")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0, help="wall seconds per audit")
    parser.add_argument("--keep", type=Path, default=None, help="a folder for the JSON reports")
    parser.add_argument("--auditor-tree", type=Path, default=None)
    options = parser.parse_args()
    tree = (options.auditor_tree or Path(__file__).resolve().parent.parent).resolve()
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"auditor: {tree}; medians of {options.rounds} rounds, timeout {options.timeout:g} s")
    if options.keep is not None:
        options.keep.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="auditor-large-tools-") as scratch:
        folder = Path(scratch)
        for name in options.workload or list(WORKLOADS):
            before: float | None = None
            for size in options.sizes:
                workload = WORKLOADS[name]
                (folder / "tools.json").write_text(workload.catalog(size), encoding="utf-8")
                (folder / "calls.jsonl").write_text(workload.log(size), encoding="utf-8")
                kb = (folder / "tools.json").stat().st_size / 1000
                report = folder / f"{name}-{size}.json"
                rounds = []
                for _ in range(options.rounds):
                    rounds.append(audit(folder, "calls.jsonl", report, tree, options.timeout))
                    if rounds[-1].timed_out:
                        break
                label = f"{name:<9} {size:>6,} properties {kb:6.0f} KB"
                if rounds[-1].timed_out:
                    print(f"{label}  past the {options.timeout:g} s timeout", flush=True)
                    break  # a larger size would only take longer
                cpu = statistics.median(r.cpu for r in rounds)
                wall = statistics.median(r.wall for r in rounds)
                ratio = f"x{cpu / before:.2f}" if before else ""
                before = cpu
                print(f"{label}  {cpu:8.2f} s CPU  {wall:8.2f} s wall  {ratio}", flush=True)
                if options.keep is not None:
                    shutil.copyfile(report, options.keep / report.name)


if __name__ == "__main__":
    main()
