"""The counterexample search's cost in an audit: candidates replayed and CPU seconds.

    python3 benchmarks/counterexample_search.py --workload /tmp/rw10k --tree /work/main --tree .

For each ``--tree`` (default: this checkout), runs ``auditor audit --jobs 1`` on the workload
(a folder with ``tools.json`` and ``calls.jsonl``) in a fresh interpreter with the search
(``pipeline._counterexamples``) wrapped, and prints the process time spent inside it (median
of ``--rounds``, the trees' rounds interleaved: the machine may be shared), the candidates the
searches replayed, and the counterexamples by status. The load average is printed beside the
figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# Run in the child: the search timed where the report is built, the rest of the audit as is.
CHILD = """
import json, sys, time
from collections import Counter
from auditor.aggregate import pipeline
from auditor.cli import main

searched = []
original = pipeline._counterexamples

def timed(*args, **kwargs):
    started = time.process_time()
    found = list(original(*args, **kwargs))
    searched.append((time.process_time() - started, found))
    return iter(found)

pipeline._counterexamples = timed
sys.argv = ["auditor", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
seconds, found = searched[0]
statuses = Counter(c.status.value for c in found)
print(json.dumps({
    "seconds": seconds,
    "candidates": sum(c.candidates for c in found),
    "statuses": dict(sorted(statuses.items())),
}))
"""


def search_figures(tree: Path, workload: Path, out: Path) -> dict[str, object]:
    """One audit's search figures, with ``tree``'s code."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    argv = [
        sys.executable,
        "-c",
        CHILD,
        "audit",
        "--schemas",
        str(workload / "tools.json"),
        "--logs",
        str(workload / "calls.jsonl"),
        "--report-dir",
        str(out),
        "--jobs",
        "1",
    ]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd=tree)
    figures: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", type=Path, required=True)
    parser.add_argument("--tree", type=Path, action="append")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    trees = [t.resolve() for t in options.tree or [Path(__file__).resolve().parent.parent]]
    seconds: dict[Path, list[float]] = {tree: [] for tree in trees}
    last: dict[Path, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="counterexample-search-") as scratch:
        for _ in range(options.rounds):
            for index, tree in enumerate(trees):
                figures = search_figures(tree, options.workload, Path(scratch) / str(index))
                seconds[tree].append(float(str(figures["seconds"])))
                last[tree] = figures
    load = os.getloadavg()[0]
    print(f"workload {options.workload}, {options.rounds} rounds, load average {load:.2f}")
    for tree in trees:
        figures = last[tree]
        print(
            f"{tree}: search {statistics.median(seconds[tree]):.3f} CPU s "
            f"(min {min(seconds[tree]):.3f}), {figures['candidates']} candidates, "
            f"{figures['statuses']}"
        )


if __name__ == "__main__":
    main()
