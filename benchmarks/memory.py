"""Peak memory of an audit, and who holds it: issue 26's "flat in log length" target.

    PYTHONPATH=$PWD python3 benchmarks/memory.py --workload /tmp/rw300k [--rounds 3]
    python3 benchmarks/memory.py --workload /tmp/rw300k --tree /work/main --tree .
    python3 benchmarks/memory.py --workload /tmp/rw300k --owners 25    # tracemalloc

``--workload`` is a folder with ``tools.json`` and ``calls.jsonl``
(benchmarks/realistic_workload.py writes one). For each ``--tree`` (default: this checkout),
rounds interleaved, it prints the peak RSS (``ru_maxrss`` of the child, MiB) and CPU seconds
(user + system) of an audit through ``auditor.api.audit`` (``--jobs 1``, the report built in
memory and dropped) and of ``auditor audit`` writing its JSON and Markdown reports; medians
of ``--rounds``, with the load average beside them: the machine may be shared.

``--owners N`` instead runs one API audit under tracemalloc (one frame per allocation) and
prints the N lines of code holding the most memory at the traced peak: a sampler thread takes
a snapshot each time the traced total grows past the last snapshot's by ``--step``. Traced
memory is what Python's allocators hand out: the C extension's own buffers and the
interpreter's fragmentation are not in it, so its total stays below the RSS.

Measured 2026-12-02 on issue 26's workload (benchmarks/realistic_workload.py), one round each,
a shared 2-core machine (load 2-5), peak RSS MiB / CPU s, before (b8d1a4d) -> after:

    calls   API audit                     CLI, JSON + Markdown written
    300k    258 / 17.3  ->  213 / 16.5    295 / 17.6  ->  255 / 16.9   (2 rounds, interleaved)
    1M      321 / 48.8  ->  243 / 46.6    361 / 43.2  ->  286 / 39.6
    3M      366 / 152.5 ->  265 / 128.8   411 / 169.2 ->  293 / 133.3

What is left growing (``--owners`` at 300k, counts at 1M): coverage's key sets
(``KEY_SETS``, 24,872 taken at 300k, all 50,000 by 1M) and zone values (``ZONE_VALUES``,
27,400 at 300k, 55,227 at 1M, of 150,000) are remembered until their allowance is used and
never let go; the verdict memo (32 MiB), distinct-first's hashes (200,000 at most) and the
tools' shared reached sets (10,401 at 1M, 12 MiB) are flat.
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

ROOT = Path(__file__).resolve().parent.parent

_API_AUDIT = """
import json, sys
from auditor.api import audit
from auditor.request import AuditRequest, Inputs, Limits

catalog, log = sys.argv[1], sys.argv[2]
request = AuditRequest(Inputs(schemas=(catalog,), logs=(log,)), limits=Limits(jobs=1))
report = audit(request).report
json.dump({"calls": report.call_count}, sys.stdout)
"""
"""One audit through the API in a fresh interpreter; the parent reads its rusage."""

_OWNERS = """
import json, sys, threading, time, tracemalloc
from auditor.api import audit
from auditor.request import AuditRequest, Inputs, Limits

catalog, log, step = sys.argv[1], sys.argv[2], float(sys.argv[3])
tracemalloc.start(1)
best = [0, None]
done = threading.Event()

def sample():
    while not done.wait(0.05):
        current = tracemalloc.get_traced_memory()[0]
        if current > best[0] * step:
            best[:] = [current, tracemalloc.take_snapshot()]

sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
request = AuditRequest(Inputs(schemas=(catalog,), logs=(log,)), limits=Limits(jobs=1))
report = audit(request).report
done.set()
sampler.join()
peak = tracemalloc.get_traced_memory()[1]
stats = best[1].statistics("lineno") if best[1] is not None else []
json.dump({
    "peak": peak,
    "at_snapshot": best[0],
    "owners": [
        [str(s.traceback[0].filename), s.traceback[0].lineno, s.size, s.count]
        for s in stats[:200]
    ],
}, sys.stdout)
"""
"""One audit under tracemalloc; the owners at the largest snapshot taken, as JSON."""


def _environment(tree: Path) -> dict[str, str]:
    """The tree's code first: each command runs with ``-P``, so that the current folder (a
    checkout too, often) does not come before ``PYTHONPATH``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    return env


def _measured(
    command: list[str], tree: Path, accept: tuple[int, ...] = (0,)
) -> tuple[float, float]:
    """Peak RSS (MiB) and CPU seconds (user + system) of one child, from ``wait4``."""
    with tempfile.TemporaryFile() as err:
        pid = os.posix_spawn(
            command[0],
            command,
            _environment(tree),
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
            ],
        )
        _, status, usage = os.wait4(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code not in accept:
            err.seek(0)
            sys.stderr.buffer.write(err.read())
            raise SystemExit(f"{' '.join(command[:4])}... failed ({code})")
    return usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def api_command(workload: Path) -> list[str]:
    catalog, log = workload / "tools.json", workload / "calls.jsonl"
    return [sys.executable, "-P", "-c", _API_AUDIT, str(catalog), str(log)]


def cli_command(workload: Path, reports: Path) -> list[str]:
    return [
        sys.executable, "-P", "-m", "auditor", "audit",
        "--schemas", str(workload / "tools.json"), "--logs", str(workload / "calls.jsonl"),
        "--jobs", "1", "--quiet", "--report-dir", str(reports),
    ]  # fmt: skip


def _load() -> str:
    return "load " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def measure(workload: Path, trees: list[Path], rounds: int, cli: bool) -> None:
    rows: dict[tuple[str, Path], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="memory-reports-") as reports:
        for number in range(rounds):
            for tree in trees:
                kinds = [("api", api_command(workload), (0,))]
                if cli:
                    # exit 1: the workload has newly rejected calls, the gate fails
                    kinds.append(("cli", cli_command(workload, Path(reports)), (0, 1)))
                for kind, command, accept in kinds:
                    rss, cpu = _measured(command, tree, accept)
                    rows.setdefault((kind, tree), []).append((rss, cpu))
                    print(
                        f"round {number + 1} {kind} {tree}: {rss:,.0f} MiB, {cpu:.2f} CPU s "
                        f"({_load()})",
                        flush=True,
                    )
    print(f"{workload} ({_load()}), medians of {rounds}:")
    for (kind, tree), runs in rows.items():
        rss = statistics.median(run[0] for run in runs)
        cpu = statistics.median(run[1] for run in runs)
        print(f"  {kind:<3} {tree!s:<24} peak RSS {rss:7,.0f} MiB   CPU {cpu:7.2f} s")


def owners(workload: Path, tree: Path, count: int, step: float) -> None:
    catalog, log = workload / "tools.json", workload / "calls.jsonl"
    command = [sys.executable, "-P", "-c", _OWNERS, str(catalog), str(log), str(step)]
    done = subprocess.run(
        command, env=_environment(tree), cwd=tree, capture_output=True, check=False
    )
    if done.returncode != 0:
        sys.stderr.buffer.write(done.stderr)
        raise SystemExit(f"the traced audit failed ({done.returncode})")
    found = json.loads(done.stdout)
    mib = 1 << 20
    print(
        f"traced peak {found['peak'] / mib:,.1f} MiB; largest snapshot "
        f"{found['at_snapshot'] / mib:,.1f} MiB ({_load()}); its top owners:"
    )
    for filename, line, size, blocks in found["owners"][:count]:
        where = os.path.relpath(filename, tree) if filename.startswith(str(tree)) else filename
        print(f"  {size / mib:8.1f} MiB {blocks:9,} blocks  {where}:{line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", type=Path, required=True)
    parser.add_argument("--tree", type=Path, action="append", default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-cli", action="store_true", help="Only the audit through the API")
    parser.add_argument("--owners", type=int, default=0, help="tracemalloc's top N instead")
    parser.add_argument("--step", type=float, default=1.05)
    options = parser.parse_args()
    trees = [tree.resolve() for tree in options.tree or [ROOT]]
    if options.owners:
        owners(options.workload, trees[0], options.owners, options.step)
    else:
        measure(options.workload, trees, options.rounds, not options.no_cli)


if __name__ == "__main__":
    main()
