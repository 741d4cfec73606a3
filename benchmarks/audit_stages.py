"""CPU seconds of one ``auditor audit --jobs 1``'s stages, in one process.

    PYTHONPATH=$PWD python3 benchmarks/audit_stages.py /tmp/rw10k [--rounds 3]

Each round is a fresh interpreter (as a user's run is, with bytecode caching on): the imports
of the audit stack, then the audit of the workload folder (``tools.json``, ``calls.jsonl``),
with ``time.process_time`` summed around the stages that do not nest in one another: reading
the catalogs, normalizing and compiling each tool (``ToolReplay.__init__``), evaluating the
calls (``ToolReplay.evaluate``), the counterexample search, and delivering the report; what
is left (reading the log, tallying, building the report) is ``rest``. Medians of
``--rounds``. Run it with ``PYTHONPATH`` pointing at a tree to measure that tree's code.
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

_ROUND = r"""
import json, sys, time
started = time.process_time()
import auditor.cli, auditor.api, auditor.engines.choice
import auditor.report.table, auditor.report.json_report
from auditor.aggregate import pipeline
from auditor.cli import audit, main
from auditor.replay import tool
imports = time.process_time() - started
spent = {}

def timed(owner, name, label):
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        begun = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.process_time() - begun

    setattr(owner, name, wrapper)

timed(auditor.api, "_catalogs", "catalogs")
timed(pipeline.Replays, "_new_side", "normalize")
timed(tool.ToolReplay, "__init__", "compile")
timed(tool.ToolReplay, "evaluate", "evaluate")
timed(pipeline, "counterexample", "counterexamples")
timed(audit, "deliver", "deliver")
work = sys.argv[1]
try:
    main(["audit", "--schemas", f"{work}/tools.json", "--logs", f"{work}/calls.jsonl",
          "--jobs", "1", "--no-report-files", "--format", "json", "--output", "-", "-q"])
except SystemExit:
    pass
total = time.process_time() - started
stages = {"imports": imports, **spent}
stages["rest"] = total - sum(stages.values())
stages["total"] = total
print(json.dumps(stages), file=sys.stderr)
"""

ORDER = (
    *("imports", "catalogs", "normalize", "compile", "evaluate", "counterexamples"),
    *("deliver", "rest", "total"),
)


def one_round(workload: Path) -> dict[str, float]:
    """The stages' CPU seconds of one audit of ``workload`` in a fresh interpreter."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    with tempfile.TemporaryDirectory(prefix="auditor-stages-") as away:
        # Run elsewhere: ``python -c`` puts the working directory first on sys.path, where a
        # checkout's own ``auditor`` would win over the tree PYTHONPATH names.
        done = subprocess.run(
            [sys.executable, "-c", _ROUND, str(workload.resolve())],
            capture_output=True,
            text=True,
            env=env,
            cwd=away,
            check=False,
        )
    found: dict[str, float] = json.loads(done.stderr.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", type=Path, help="a folder with tools.json and calls.jsonl")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    one_round(options.workload)  # warm-up: writes the .pyc files
    rounds = [one_round(options.workload) for _ in range(options.rounds)]
    load = os.getloadavg()[0]
    print(f"CPU seconds, median of {options.rounds} (load {load:.1f}):")
    for stage in ORDER:
        print(f"  {stage:16} {statistics.median(r.get(stage, 0.0) for r in rounds):7.3f}")


if __name__ == "__main__":
    main()
