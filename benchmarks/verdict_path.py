"""CPU time of the verdict path per distinct payload, and the budget's clock reads per payload.

    PYTHONPATH=$PWD python3 benchmarks/verdict_path.py --workload /tmp/rw10k
    python3 benchmarks/verdict_path.py --workload /tmp/rw10k --tree /work/main --tree .

Each distinct (tool, arguments text) of the workload's log is replayed as an audit replays it
(``ToolReplay`` of the default normalization, lenient old runtime, the default budget):

- ``verdicts``: ``ToolReplay.verdicts``, what a payload costs until the listed calls are full
  (a rejection is described by python-jsonschema, messages and all), for the payloads the new
  schema accepts and for those it rejects;
- ``light``: ``ToolReplay.light_verdicts``, what a rejection the report will not show costs
  (the fast validator's errors, where they map exactly);
- ``evaluate``: ``ToolReplay.evaluate`` on a fresh memo, coverage, memo and outcome included;
- the budget's clock reads (``time.monotonic`` and ``time.thread_time`` in
  ``auditor.replay.budget``) per payload of each kind, counted in a pass of their own.

Figures are process CPU time per payload, the median of ``--passes`` passes in one process
(after a first pass that compiles the tools and warms their caches, as the first calls of an
audit do), and with ``--tree`` the median over ``--rounds`` processes per tree, the trees
taking turns round by round so that a change in the machine's load falls on all alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from counting_clock import CountingClock

ROOT = Path(__file__).resolve().parent.parent


def _median_seconds(work: Callable[[], object], passes: int) -> float:
    times = []
    for _ in range(passes):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return statistics.median(times)


def measure(workload: Path, passes: int) -> dict[str, float]:
    """The figures of one process: µs per payload, clock reads per payload, and counts."""
    from auditor.aggregate.pipeline import prepare
    from auditor.inputs.reader import LogReader
    from auditor.models import Call, Location, ToolSchema
    from auditor.replay import budget
    from auditor.replay.tool import Memo
    from auditor.schema.normalize import DEFAULT_RULES

    catalog = json.loads((workload / "tools.json").read_text())["tools"]
    tools = [ToolSchema(t["name"], t["inputSchema"], Location("x"), "", "mapping") for t in catalog]
    replays = prepare(tools, DEFAULT_RULES)
    distinct: dict[tuple[str, str | None], Call] = {}
    for call in LogReader([str(workload / "calls.jsonl")]):
        if call.tool not in replays or call.unparsed is not None:
            continue
        distinct.setdefault((call.tool, call.text), call)
    payloads = [(replays[tool], call) for (tool, _), call in distinct.items()]
    # The first pass compiles the tools and sorts the payloads by the new side's verdict.
    accepted = [(r, c.arguments) for r, c in payloads if r.verdicts(c.arguments)[1].accepts]
    rejected = [(r, c.arguments) for r, c in payloads if not r.verdicts(c.arguments)[1].accepts]

    def verdicts(pairs: list[tuple[Any, Any]]) -> Callable[[], object]:
        return lambda: [replay.verdicts(arguments) for replay, arguments in pairs]

    def light(pairs: list[tuple[Any, Any]]) -> Callable[[], object]:
        return lambda: [replay.light_verdicts(arguments) for replay, arguments in pairs]

    def evaluate() -> object:
        memos = {id(replay): Memo(len(payloads) + 1) for replay, _ in payloads}
        for replay, _ in payloads:
            replay._memo = memos[id(replay)]
        return [replay.evaluate(call) for replay, call in payloads]

    figures: dict[str, float] = {
        "accepted payloads": len(accepted),
        "rejected payloads": len(rejected),
    }
    for name, work, count in [
        ("verdicts, accepted", verdicts(accepted), len(accepted)),
        ("verdicts, rejected", verdicts(rejected), len(rejected)),
        ("light verdicts, rejected", light(rejected), len(rejected)),
        ("evaluate, every payload", evaluate, len(payloads)),
    ]:
        figures[f"{name} (µs)"] = _median_seconds(work, passes) / max(count, 1) * 1e6
    clock = CountingClock()
    real: Any = budget.time
    budget.time = clock  # type: ignore[assignment]
    try:
        for name, work, count in [
            ("verdicts, accepted", verdicts(accepted), len(accepted)),
            ("verdicts, rejected", verdicts(rejected), len(rejected)),
            ("light verdicts, rejected", light(rejected), len(rejected)),
        ]:
            clock.reads = 0
            work()
            figures[f"{name} (clock reads)"] = clock.reads / max(count, 1)
    finally:
        budget.time = real
    return figures


def _child(tree: Path, workload: Path, passes: int) -> dict[str, float]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    shown = subprocess.run(
        [sys.executable, __file__, "--workload", str(workload), "--passes", str(passes), "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, float] = json.loads(shown.stdout)
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", type=Path, required=True, help="tools.json, calls.jsonl")
    parser.add_argument("--passes", type=int, default=5, help="passes per process")
    parser.add_argument("--rounds", type=int, default=3, help="processes per tree")
    parser.add_argument("--tree", type=Path, action="append", help="a checkout to measure")
    parser.add_argument("--json", action="store_true", help="this process's figures as JSON")
    options = parser.parse_args(argv)
    if options.json:
        print(json.dumps(measure(options.workload, options.passes)))
        return
    trees = [tree.resolve() for tree in options.tree or [ROOT]]
    load = os.getloadavg()[0]
    runs: list[list[dict[str, float]]] = [[] for _ in trees]
    for _ in range(options.rounds):
        for tree, seen in zip(trees, runs, strict=True):
            seen.append(_child(tree, options.workload, options.passes))
    after = os.getloadavg()[0]
    print(
        f"verdict path per distinct payload, {options.workload}: medians of {options.rounds} "
        f"processes x {options.passes} passes (load {load:.1f} before, {after:.1f} after)"
    )
    for number, tree in enumerate(trees, 1):
        print(f"  [{number}] {tree}")
    print(f"  {'':<40}" + "".join(f" {f'[{n}]':>8}" for n in range(1, len(trees) + 1)))
    for name in runs[0][0]:
        figures = [statistics.median(run[name] for run in seen) for seen in runs]
        print(f"  {name:<40}" + "".join(f" {figure:8.2f}" for figure in figures))


if __name__ == "__main__":
    main()
