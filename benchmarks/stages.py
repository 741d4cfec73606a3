"""CPU time of two stages of an audit, in one process: reading the log, and coverage.

    PYTHONPATH=$PWD python3 benchmarks/stages.py /tmp/auditor-benchmark/distinct-300000-7

Prints the process time (median of ``--rounds``) per call of reading the log (``LogReader``:
lines, framing, orjson, the format's fields, the ``Call``), and per call of the coverage walk
(``CoverageTracker.reached``, one pass, the tools compiled on the first 2,000 calls before),
and how many tracking evaluations coverage ran (of a value zone or a whole call), warm-up
included.
``--check N`` compares the walk's answer with real evaluation for the first N calls (must
print 0 differences).
Run it with ``PYTHONPATH`` pointing at a tree to measure that tree's code.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import cast

from auditor.aggregate.pipeline import prepare
from auditor.inputs.reader import LogReader
from auditor.models import Location, ToolSchema
from auditor.schema.normalize import DEFAULT_RULES


def _process_seconds(work: object, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.process_time()
        work()  # type: ignore[operator]
        times.append(time.process_time() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", type=Path, help="a folder with tools.json and calls.jsonl")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--check", type=int, default=0)
    options = parser.parse_args()
    log = str(options.workload / "calls.jsonl")
    calls = list(LogReader([log]))
    reading = _process_seconds(lambda: sum(1 for _ in LogReader([log])), options.rounds)
    print(f"reading:  {reading / len(calls) * 1e6:6.2f} µs per call ({len(calls):,} calls)")
    catalog = json.loads((options.workload / "tools.json").read_text())["tools"]
    tools = [ToolSchema(t["name"], t["inputSchema"], Location("x"), "", "mapping") for t in catalog]
    replays = prepare(tools, DEFAULT_RULES)
    walked = [
        (tracker, call.arguments)
        for call in calls
        if call.tool in replays and call.unparsed is None
        if (tracker := replays[call.tool].coverage) is not None
    ]
    for tracker, arguments in walked[:2000]:  # compile the tools most calls name
        tracker.reached(arguments)
    # One pass: what the tracker remembers (per key set) would flatter later rounds.
    coverage = _process_seconds(
        lambda: [tracker.reached(arguments) for tracker, arguments in walked], 1
    )
    print(f"coverage: {coverage / len(walked) * 1e6:6.2f} µs per call ({len(walked):,} calls)")
    trackers = {id(tracker): tracker for tracker, _ in walked}.values()
    counts = [getattr(tracker, "evaluations", None) for tracker in trackers]
    if None not in counts:  # a tree from before the count says nothing
        print(f"tracking evaluations (of a zone or a call): {sum(cast(list[int], counts)):,}")
    if options.check:
        differ = sum(
            tracker.reached(arguments) != tracker.reached(arguments, by_shape=False)
            for tracker, arguments in walked[: options.check]
        )
        print(f"coverage by shape vs evaluation: {differ} differences in {options.check:,}")


if __name__ == "__main__":
    main()
