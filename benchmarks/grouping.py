"""What grouping identical payloads before replay can save: the floor of reading a log and
grouping its calls by (tool, arguments text), with orjson in a plain loop and with DuckDB.

    PYTHONPATH=$PWD python3 benchmarks/grouping.py /tmp/auditor-benchmark/repeats-300000-7
    pip install duckdb   # optional: without it only the orjson loop is measured

Both keep, per distinct payload, its count and its first and last line number: what a
weighted tally needs from the reader. Broken lines are skipped here (the audit names them):
the figures are a floor, not an audit. CPU seconds (this process, all threads), medians of
``--rounds``. Compare them with the audit's own µs per call (``benchmarks/run.py``): the gap
between the two is what the audit's reading and counting layers cost, and the gap between
the two floors is all a compiled reader could win.
"""

from __future__ import annotations

import argparse
import resource
import statistics
from collections.abc import Callable
from pathlib import Path

import orjson


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def orjson_groups(log: Path) -> int:
    """Distinct (tool, arguments text) payloads, each with its count and first and last line."""
    groups: dict[tuple[object, str], list[int]] = {}
    with open(log, "rb") as stream:
        for number, line in enumerate(stream, 1):
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(record, dict):
                continue
            arguments = record.get("arguments")
            text = arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
            key = (record.get("tool"), text)
            found = groups.get(key)
            if found is None:
                groups[key] = [1, number, number]
            else:
                found[0] += 1
                found[2] = number
    return len(groups)


def duckdb_groups(threads: int) -> Callable[[Path], int]:
    import duckdb  # optional: measured only where installed

    def groups(log: Path) -> int:
        connection = duckdb.connect()
        connection.execute(f"SET threads={threads}")
        connection.execute("SET preserve_insertion_order=true")  # row_number() is the line
        lines = (
            f"read_csv('{log}', columns={{'line': 'VARCHAR'}}, header=false, "
            "delim=E'\\x01', quote='', escape='', auto_detect=false)"
        )
        found = connection.execute(
            f"WITH numbered AS (SELECT row_number() OVER () AS n, line FROM {lines}) "
            "SELECT json_extract_string(line, '$.tool'), json_extract(line, '$.arguments'), "
            "count(*), min(n), max(n) FROM numbered WHERE json_valid(line) GROUP BY ALL"
        ).fetchall()
        connection.close()
        return len(found)

    return groups


def measure(name: str, group: Callable[[Path], int], log: Path, rounds: int, calls: int) -> None:
    seconds = []
    distinct = 0
    for _ in range(rounds):
        started = _cpu()
        distinct = group(log)
        seconds.append(_cpu() - started)
    median = statistics.median(seconds)
    print(
        f"{name:<20} {median:6.2f} s cpu (median of {rounds})  "
        f"{median / calls * 1e6:5.2f} µs/line  {distinct:,} distinct payloads"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", type=Path, help="a folder benchmarks/generate.py wrote")
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    log = arguments.workload / "calls.jsonl"
    with open(log, "rb") as stream:
        calls = sum(1 for _ in stream)
    print(f"{log}: {calls:,} lines")
    measure("orjson loop", orjson_groups, log, arguments.rounds, calls)
    try:
        for threads in (1, 2):
            measure(
                f"duckdb, {threads} thread(s)", duckdb_groups(threads), log, arguments.rounds, calls
            )
    except ImportError:
        print("duckdb is not installed: pip install duckdb to compare")


if __name__ == "__main__":
    main()
