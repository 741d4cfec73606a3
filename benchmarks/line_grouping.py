"""What it costs to group a JSON Lines log's identical lines or payloads before Python sees
them, against today's reader making a ``Call`` per line (issue 26, item 1).

    python3 benchmarks/generate.py --calls 1000000 --out /tmp/w   # or any JSON Lines log
    PYTHONPATH=$PWD python3 benchmarks/line_grouping.py /tmp/w/calls.jsonl [more logs]
    # polars and DuckDB are measured where importable: --site /tmp/venv/lib/python3.11/site-packages

The reader's methods hand on calls; the prototype's keep, per group, its count and its first
and last line number (what a weighted tally needs, and what recovers ``file:line`` for the
calls a report lists). Methods:

- ``reader``: ``auditor.inputs.reader.LogReader`` yielding its ``Call`` records line by line
  (the reader before the grouping); ``reader-known``: the same with distinct-first's
  ``known`` (a payload counted without a call from its third call on, every payload taken as
  accepted);
- ``grouped`` / ``grouped-known``: the reader as built, grouped by payload in buffers
  (``auditor.inputs.payload_groups``: the compiled function; set ``AUDITOR_PURE_PYTHON=1`` for
  its Python twin), without and with ``known``;
- ``grouping``: ``payload_groups.group_payloads`` alone over the reader's 4 MiB buffers;

The prototype's methods, measured before the grouping was built (``line_groups.c``):

- ``python-lines``: a dict of the lines' bytes, read 64 MiB at a time (a pure-Python fallback);
- ``c-lines``: ``benchmarks/line_groups.c``, built here with gcc and the Python headers into a
  temporary folder: one call per 64 MiB buffer splits it in lines and groups them by hash, with
  no Python object per line (its per-line group ids come back as one bytes object); the
  distinct lines of the buffers are merged in a dict;
- ``c-lines+parse``: the same, then one orjson parse of each distinct line, its (tool,
  arguments text) taken: what the reader would then hand the tally;
- ``c-payloads`` / ``c-payloads+parse``: ``group_payloads``, lines grouped by the raw bytes of
  their top-level ``tool`` and ``arguments`` members after a strict scan of the whole line;
  the buffers' groups are merged by their first line (so a payload met in several buffers
  under other ids counts once per buffer there), then, with ``+parse``, by payload;
- ``c-bounded``: what the design would hand the tally: each 16 MiB buffer's payload groups,
  each group's line and arguments text parsed once (as the reader decodes them), nothing kept
  across buffers (its groups: summed per buffer);
- ``arrow-lines``: pyarrow's CSV reader with a separator no line holds, one binary column,
  grouped by ``Table.group_by`` with a row index (count, min, max);
- ``arrow-json``: pyarrow's JSON reader, grouped by (tool, arguments);
- ``polars-lines`` / ``polars-json``, ``duckdb-lines`` / ``duckdb-json``: the same with those.

Each measurement runs in a fresh process: CPU seconds of that process (all its threads, from
``getrusage``), its peak RSS, medians of ``--rounds``. A method that cannot read a log (a JSON
reader on a log with a broken line) says why instead of a figure.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

CHUNK = 64 << 20
"""Bytes of log text grouped at a time: memory holds one buffer and its table."""
BOUNDED_CHUNK = 16 << 20
"""The buffer of ``c-bounded``: the table the design would hold at once."""
HERE = Path(__file__).resolve().parent

Groups = dict[bytes, list[int]]
"""Per distinct line (or payload): [count, first line, last line]."""


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def reader(log: Path, grouped: bool = False, known: bool = False) -> int:
    """``LogReader``'s calls: line by line (``grouped`` False, the reader before the grouping)
    or grouped by payload (``auditor.inputs.payload_groups``: compiled, unless
    ``AUDITOR_PURE_PYTHON=1``). ``known``: a payload counts from its third call on without a
    call, as distinct-first counts an accepted one (here every payload is taken as accepted:
    the most a reader can leave out)."""
    from collections import Counter

    from auditor.inputs.reader import LogReader

    if not grouped:
        LogReader._grouped_format = lambda *_: False  # type: ignore[method-assign]
    seen: Counter[object] = Counter()

    def counted(payload: object) -> bool:
        seen[payload] += 1
        return seen[payload] > 2

    calls = 0
    for _ in LogReader([str(log)], known=counted if known else None):
        calls += 1
    return calls


def grouping(log: Path) -> int:
    """``auditor.inputs.payload_groups.group_payloads`` alone over the reader's buffers
    (``line_buffers``): the grouping's own cost, no call made."""
    from auditor.inputs.line_buffers import line_buffers
    from auditor.inputs.payload_groups import group_payloads

    groups = 0
    with open(log, "rb") as stream:
        for buffer in line_buffers(stream, 64 << 20):
            if isinstance(buffer, bytes):
                groups += len(group_payloads(buffer, not buffer.endswith(b"\n"), 64 << 20)[1])
    return groups


def _chunks(log: Path, size: int = CHUNK) -> Callable[[], tuple[bytes, bool] | None]:
    """Buffers of whole lines (the last one holds the file's end)."""
    stream = open(log, "rb")  # noqa: SIM115 - closed when the last buffer is taken
    tail = b""

    def take() -> tuple[bytes, bool] | None:
        nonlocal tail
        if stream.closed:
            return None
        block = stream.read(size)
        if not block:
            stream.close()
            return tail, True
        cut = block.rfind(b"\n") + 1
        if not cut:
            tail += block
            return take()
        buffer, tail = tail + block[:cut], block[cut:]
        return buffer, False

    return take


def python_lines(log: Path) -> int:
    groups: Groups = {}
    number = 0
    take = _chunks(log)
    while (chunk := take()) is not None:
        buffer, _ = chunk
        for line in buffer.splitlines():
            number += 1
            if not line:
                continue
            found = groups.get(line)
            if found is None:
                groups[line] = [1, number, number]
            else:
                found[0] += 1
                found[2] = number
    return len(groups)


def _build_c() -> ModuleType:
    """``line_groups.c`` compiled with gcc and this Python's headers, in a temporary folder."""
    import importlib.util

    folder = Path(tempfile.mkdtemp(prefix="line-groups-"))
    target = folder / ("_line_groups" + sysconfig.get_config_var("EXT_SUFFIX"))
    include = sysconfig.get_paths()["include"]
    command = ["gcc", "-O2", "-shared", "-fPIC", f"-I{include}", str(HERE / "line_groups.c")]
    subprocess.run([*command, "-o", str(target)], check=True)
    spec = importlib.util.spec_from_file_location("_line_groups", target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def c_lines(
    log: Path, parse: bool = False, by: str = "group_lines", compiled: ModuleType | None = None
) -> int:
    group_lines = getattr(compiled or _C, by)
    groups: Groups = {}
    first = 1
    take = _chunks(log)
    while (chunk := take()) is not None:
        buffer, final = chunk
        lines, counts, firsts, lasts, ids, _, _ = group_lines(buffer, first, final)
        first += len(ids) // 4
        for line, count, low, high in zip(lines, counts, firsts, lasts, strict=True):
            found = groups.get(line)
            if found is None:
                groups[line] = [count, low, high]
            else:
                found[0] += count
                found[2] = high
    if not parse:
        return len(groups)
    import orjson

    payloads: dict[tuple[object, object], list[int]] = {}
    for line, (count, low, high) in groups.items():
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict):
            key = (record.get("tool"), record.get("arguments"))
            if not isinstance(key[1], str):
                key = (key[0], orjson.dumps(key[1]).decode())
            found = payloads.get(key)
            if found is None:
                payloads[key] = [count, low, high]
            else:
                found[0] += count
                found[1] = min(found[1], low)
                found[2] = max(found[2], high)
    return len(payloads)


def c_bounded(log: Path, compiled: ModuleType | None = None) -> int:
    """What the design hands the tally: each 16 MiB buffer's payload groups, each group's line
    and arguments text parsed once, nothing kept across buffers (memory flat in log length)."""
    import orjson

    group_payloads = (compiled or _C).group_payloads
    handed = 0
    first = 1
    take = _chunks(log, BOUNDED_CHUNK)
    while (chunk := take()) is not None:
        buffer, final = chunk
        lines, _, _, _, ids, _, _ = group_payloads(buffer, first, final)
        first += len(ids) // 4
        for line in lines:
            with contextlib.suppress(orjson.JSONDecodeError):
                record = orjson.loads(line)
                # The arguments text decoded too, as the reader's call_from does.
                if isinstance(record, dict) and isinstance(record.get("arguments"), str):
                    orjson.loads(record["arguments"])
        handed += len(lines)
    return handed


def _arrow_lines_table(log: Path):  # type: ignore[no-untyped-def]
    import pyarrow as pa
    from pyarrow import csv

    return csv.read_csv(
        log,
        read_options=csv.ReadOptions(column_names=["line"], block_size=CHUNK),
        parse_options=csv.ParseOptions(
            delimiter="\x01", quote_char=False, escape_char=False, ignore_empty_lines=True
        ),
        convert_options=csv.ConvertOptions(column_types={"line": pa.binary()}),
    )


def _arrow_grouped(table, keys: list[str]) -> int:  # type: ignore[no-untyped-def]
    import pyarrow as pa

    table = table.append_column("n", pa.array(range(1, table.num_rows + 1), pa.int64()))
    grouped = table.group_by(keys, use_threads=True).aggregate(
        [("n", "count"), ("n", "min"), ("n", "max")]
    )
    return int(grouped.num_rows)


def arrow_lines(log: Path) -> int:
    # Row numbers: a blank line is dropped by the reader, so they are not the file's lines.
    return _arrow_grouped(_arrow_lines_table(log), ["line"])


def arrow_json(log: Path) -> int:
    import pyarrow as pa
    from pyarrow import json as pjson

    schema = pa.schema([("tool", pa.string()), ("arguments", pa.string())])
    table = pjson.read_json(
        log,
        read_options=pjson.ReadOptions(block_size=CHUNK),
        parse_options=pjson.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="ignore"
        ),
    )
    return _arrow_grouped(table, ["tool", "arguments"])


def polars_lines(log: Path) -> int:
    import polars as pl

    frame = pl.read_csv(
        log,
        has_header=False,
        separator="\x01",
        quote_char=None,
        new_columns=["line"],
        schema_overrides={"line": pl.String},
        encoding="utf8-lossy",
    )
    grouped = (
        frame.with_row_index("n", 1)
        .group_by("line")
        .agg(pl.len(), pl.col("n").min().alias("first"), pl.col("n").max().alias("last"))
    )
    return grouped.height


def polars_json(log: Path) -> int:
    import polars as pl

    frame = pl.read_ndjson(
        log, schema={"tool": pl.String, "arguments": pl.String}, ignore_errors=True
    )
    grouped = (
        frame.with_row_index("n", 1)
        .group_by("tool", "arguments")
        .agg(pl.len(), pl.col("n").min().alias("first"), pl.col("n").max().alias("last"))
    )
    return grouped.height


def _duckdb(query: str) -> int:
    import duckdb

    connection = duckdb.connect()
    connection.execute("SET preserve_insertion_order=true")  # row_number() is the line
    found = connection.execute(query).fetchall()
    connection.close()
    return len(found)


def duckdb_lines(log: Path) -> int:
    lines = (
        f"read_csv('{log}', columns={{'line': 'VARCHAR'}}, header=false, "
        "delim=E'\\x01', quote='', escape='', auto_detect=false)"
    )
    return _duckdb(
        f"WITH numbered AS (SELECT row_number() OVER () AS n, line FROM {lines}) "
        "SELECT line, count(*), min(n), max(n) FROM numbered GROUP BY line"
    )


def duckdb_json(log: Path) -> int:
    rows = (
        f"read_json('{log}', format='newline_delimited', ignore_errors=true, "
        "columns={'tool': 'VARCHAR', 'arguments': 'VARCHAR'})"
    )
    return _duckdb(
        f"WITH numbered AS (SELECT row_number() OVER () AS n, tool, arguments FROM {rows}) "
        "SELECT tool, arguments, count(*), min(n), max(n) FROM numbered GROUP BY ALL"
    )


METHODS: dict[str, Callable[[Path], int]] = {
    "reader": reader,
    "reader-known": lambda log: reader(log, known=True),
    "grouped": lambda log: reader(log, grouped=True),
    "grouped-known": lambda log: reader(log, grouped=True, known=True),
    "grouping": grouping,
    "python-lines": python_lines,
    "c-lines": c_lines,
    "c-lines+parse": lambda log: c_lines(log, parse=True),
    "c-payloads": lambda log: c_lines(log, by="group_payloads"),
    "c-payloads+parse": lambda log: c_lines(log, parse=True, by="group_payloads"),
    "c-bounded": c_bounded,
    "arrow-lines": arrow_lines,
    "arrow-json": arrow_json,
    "polars-lines": polars_lines,
    "polars-json": polars_json,
    "duckdb-lines": duckdb_lines,
    "duckdb-json": duckdb_json,
}
_C: ModuleType


def _one(method: str, log: Path) -> None:
    """Measure one method once, in this process; print a JSON line."""
    global _C
    if method.startswith("c-"):
        _C = _build_c()
    started, wall = _cpu(), time.perf_counter()
    try:
        groups = METHODS[method](log)
    except ImportError as error:
        print(json.dumps({"error": f"not installed ({error.name})"}))
        return
    except Exception as error:  # a reader refusing the log is a finding, not a crash
        print(json.dumps({"error": f"{type(error).__name__}: {str(error)[:80]}"}))
        return
    cpu, wall = _cpu() - started, time.perf_counter() - wall
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"cpu": cpu, "wall": wall, "rss": rss, "groups": groups}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--site", default="", help="a folder of packages (polars, DuckDB) to add")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.one:
        if options.site:
            sys.path.append(options.site)
        _one(options.one, options.logs[0])
        return
    from auditor.inputs.payload_groups import COMPILED

    print(f"auditor.inputs.payload_groups: {'compiled' if COMPILED else 'Python twin'}")
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"| log | lines | method | groups | CPU s (median of {options.rounds}) | µs/line "
        "| wall s | peak RSS MiB |"
    )
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for log in options.logs:
        with open(log, "rb") as stream:
            lines = sum(block.count(b"\n") for block in iter(lambda: stream.read(CHUNK), b""))
        for method in options.methods.split(","):
            runs = []
            for _ in range(options.rounds):
                command = [
                    sys.executable,
                    __file__,
                    str(log),
                    "--one",
                    method,
                    "--site",
                    options.site,
                ]
                out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
                runs.append(json.loads(out.strip().splitlines()[-1]))
                if "error" in runs[-1]:
                    break
            if "error" in runs[-1]:
                print(f"| {log.name} | {lines:,} | {method} | — | {runs[-1]['error']} | | | |")
                continue
            cpu = statistics.median(r["cpu"] for r in runs)
            wall = statistics.median(r["wall"] for r in runs)
            rss = max(r["rss"] for r in runs)
            print(
                f"| {log.name} | {lines:,} | {method} | {runs[0]['groups']:,} | {cpu:.2f} | "
                f"{cpu / lines * 1e6:.2f} | {wall:.2f} | {rss:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
