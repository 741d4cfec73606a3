"""The fixed cost of the command line: what a small audit pays whatever the log's length.

    PYTHONPATH=$PWD python3 benchmarks/fixed_cost.py [--workload DIR] [--rounds 5]
    python3 benchmarks/fixed_cost.py --tree /path/to/main --tree .    # before and after

Prints the CPU seconds (user + system of the child process, median of ``--rounds``) of
``auditor --version``, ``auditor audit --help``, the audit of sample_logs/mcp_files, and an
audit of ``--workload`` (a folder with ``tools.json`` and ``calls.jsonl``; by default 10,000
calls of benchmarks/generate.py's standard workload, written to a temporary folder), and the
CPU time of ``import auditor.cli``, for the code of each ``--tree`` (default: this checkout),
one column each. Each command runs in its own interpreter, as a user's does, with bytecode
caching on (a warm-up run writes the ``.pyc`` files, so the figures are not those of a first
run after a checkout), and ``--jobs 1``: one process.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_logs" / "mcp_files"
IMPORT_CLI = (
    "import time; started = time.process_time(); import auditor.cli; "
    "print(time.process_time() - started)"
)


def _environment(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    env["PYTHONPATH"] = str(tree)
    return env


def child_seconds(argv: Sequence[str], tree: Path, cwd: Path) -> float:
    """CPU seconds (user + system) of one run of ``argv`` in a child process. A run that
    exits otherwise than a finished audit does (0, or 1: calls newly rejected) stops the
    benchmark: a crash is quick, and measured it would read as a gain."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        argv,
        cwd=cwd,
        env=_environment(tree),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        last = done.stderr.strip().splitlines()[-1:] or ["(nothing on stderr)"]
        raise SystemExit(f"{' '.join(argv[1:4])} in {tree} exited {done.returncode}: {last[0]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_seconds(tree: Path, cwd: Path) -> float:
    """CPU seconds of ``import auditor.cli`` alone, inside a fresh interpreter."""
    shown = subprocess.run(
        [sys.executable, "-c", IMPORT_CLI],
        cwd=cwd,
        env=_environment(tree),
        capture_output=True,
        text=True,
        check=True,
    )
    return float(shown.stdout)


def audit_argv(folder: Path) -> list[str]:
    """The audit of one workload folder, one process, writing no report file."""
    return [
        *[sys.executable, "-m", "auditor", "audit"],
        *["--schemas", str(folder / "tools.json"), "--logs", str(folder / "calls.jsonl")],
        *["--jobs", "1", "--no-report-files", "--format", "json", "--output", os.devnull],
    ]


def measures(workload: Path) -> dict[str, list[str] | None]:
    """What is measured: a name and the command (None: the import)."""
    cli = [sys.executable, "-m", "auditor"]
    return {
        "auditor --version": [*cli, "--version"],
        "auditor audit --help": [*cli, "audit", "--help"],
        "import auditor.cli": None,
        "audit mcp_files (176 calls)": audit_argv(SAMPLE),
        f"audit {workload.name}": audit_argv(workload),
    }


def median_seconds(
    argv: list[str] | None, trees: Sequence[Path], cwd: Path, rounds: int
) -> list[float]:
    """The median CPU seconds of ``rounds`` runs in each tree, after one warm-up run each
    (which also writes the ``.pyc`` files); the trees take turns, round by round, so that a
    change in the machine's load falls on all of them alike."""

    def run(tree: Path) -> float:
        if argv is None:
            return import_seconds(tree, cwd)
        return child_seconds(argv, tree, cwd)

    for tree in trees:
        run(tree)
    times: list[list[float]] = [[] for _ in trees]
    for _ in range(rounds):
        for tree, seen in zip(trees, times, strict=True):
            seen.append(run(tree))
    return [statistics.median(seen) for seen in times]


def _standard_workload(calls: int, out: Path) -> Path:
    spec = importlib.util.spec_from_file_location("generate", ROOT / "benchmarks" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate"] = module
    spec.loader.exec_module(module)
    module.generate(calls, 7, out)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", type=Path, help="a folder with tools.json and calls.jsonl")
    parser.add_argument("--calls", type=int, default=10_000, help="without --workload")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--tree",
        type=Path,
        action="append",
        help="a checkout whose code is measured (repeat to compare; default: this one)",
    )
    options = parser.parse_args(argv)
    trees = [tree.resolve() for tree in options.tree or [ROOT]]
    with tempfile.TemporaryDirectory(prefix="auditor-fixed-cost-") as scratch:
        workload = options.workload
        if workload is None:
            folder = Path(scratch) / f"standard-{options.calls}"
            workload = _standard_workload(options.calls, folder)
        load = os.getloadavg()[0]
        print(f"CPU seconds, median of {options.rounds} (load {load:.1f}):")
        for number, tree in enumerate(trees, 1):
            print(f"  [{number}] {tree}")
        print(f"  {'':<36}" + "".join(f" {f'[{n}]':>7}" for n in range(1, len(trees) + 1)))
        # Not in a checkout: ``python -m`` would import the package in its working directory.
        for name, command in measures(workload).items():
            figures = median_seconds(command, trees, Path(scratch), options.rounds)
            print(f"  {name:<36}" + "".join(f" {figure:7.3f}" for figure in figures))


if __name__ == "__main__":
    main()
