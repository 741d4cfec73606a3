"""A CPU-time profile of one ``auditor audit --jobs 1`` (cProfile on the process clock).

    PYTHONPATH=$PWD python3 benchmarks/profile_cpu.py /tmp/auditor-benchmark/repeats-300000-7

Wall-clock profilers blame whatever ran while the machine was busy with others (and the call
budget's clock reads); ``time.process_time`` counts only this process's CPU. cProfile's own
overhead inflates every Python call about fivefold: read the shares, not the seconds.
"""

from __future__ import annotations

import contextlib
import cProfile
import pstats
import sys
import tempfile
import time

import typer.main

from auditor.cli import app


def main() -> None:
    work = sys.argv[1]
    order = sys.argv[2] if len(sys.argv) > 2 else "cumulative"
    with tempfile.TemporaryDirectory(prefix="auditor-profile-") as out:
        arguments = [
            "audit", "--schemas", f"{work}/tools.json", "--logs", f"{work}/calls.jsonl",
            "--jobs", "1", "--quiet", "--report-dir", out,
        ]  # fmt: skip
        profile = cProfile.Profile(time.process_time)
        with contextlib.suppress(SystemExit):  # the exit status says what the audit found
            profile.runcall(typer.main.get_command(app).main, arguments, standalone_mode=False)
    pstats.Stats(profile).sort_stats(order).print_stats(40)


if __name__ == "__main__":
    main()
