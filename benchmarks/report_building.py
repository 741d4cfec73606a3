"""What building the reports costs as the groups grow: SARIF with its loosening fixes and the
``--suggest-patch`` diff over one catalog, and every format with ``--group-by caller``.

    PYTHONPATH=$PWD python3 benchmarks/report_building.py --rounds 3
    PYTHONPATH=/path/to/other/tree python3 benchmarks/report_building.py --groups 1000 2000 \
        --callers 2500 5000 --rounds 1

Two workloads, audited once per size in this process (not timed: the audit is not what is
measured here), then reported ``--rounds`` times:

- ``fixes``: one YAML catalog (``--json``: JSON) of 200 tools of 20 string properties, each
  written ``max_length: 1`` (a dialect spelling the normalization wakes up), about 100 KB;
  each tool's calls send all 20 properties too long, and the calls name the first N / 20
  tools: N groups, each hinted loosen-schema with a verified patch in the catalog. Measured:
  the SARIF log with a fix per group (the edits and the rendering), and the diff
  ``--suggest-patch`` writes.
- ``callers``: one constraint of a one-tool catalog and M callers, each sending two values too
  long, audited ``--group-by caller``: M groups, each failing the run (each a small share of
  the tool's calls, hinted fix-callers: no patch). Measured: the SARIF log (as the CLI makes
  it, fixes looked for), and every other format.

Prints, per size, the CPU seconds of this process and the wall time (medians of
``--rounds``) and the ratio of CPU seconds to the size before: linear growth doubles with
the groups. It runs on the tree ``PYTHONPATH`` names, before or after the edits were made
once per file (``verified_fixes`` or ``loosening_edits``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Final

from auditor.aggregate.pipeline import ReportSettings
from auditor.engines.choice import audit_logs
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES
from auditor.inputs.log_files import check_logs
from auditor.models import GroupBy, OldRuntime, Report
from auditor.report import Format, render
from auditor.request import AuditRequest, Limits

TOOLS = 200
PROPERTIES = 20
"""Properties of a tool: a call fails at most ``replay.tool.MAX_ERRORS`` (20) of them."""
CALLS_PER_TOOL = 6
"""Enough calls of a tool for its share to decide the hint (``hints.MIN_CALLS``)."""


def fixes_catalog(as_json: bool) -> str:
    """``TOOLS`` tools of ``PROPERTIES`` properties, each ``max_length: 1``, one to a line."""
    out = []
    for t in range(TOOLS):
        if as_json:
            properties = ",\n".join(f'      "p{p}": {{"max_length": 1}}' for p in range(PROPERTIES))
            out.append(f'  "t{t}": {{\n    "properties": {{\n{properties}\n    }}\n  }}')
        else:
            out.append(f"t{t}:\n  type: object\n  properties:\n")
            out += [f"    p{p}: {{max_length: 1}}\n" for p in range(PROPERTIES)]
    return "{\n" + ",\n".join(out) + "\n}\n" if as_json else "".join(out)


def fixes_log(groups: int) -> str:
    """Calls of the first ``groups / PROPERTIES`` tools, each failing all their properties."""
    arguments = {f"p{p}": "too long" for p in range(PROPERTIES)}
    lines = [
        json.dumps({"tool": f"t{t}", "arguments": arguments})
        for t in range(groups // PROPERTIES)
        for _ in range(CALLS_PER_TOOL)
    ]
    return "\n".join(lines) + "\n"


def callers_log(callers: int) -> str:
    """Two too-long calls from each of ``callers`` callers, to one constraint."""
    lines = [
        json.dumps({"tool": "t", "caller": f"agent-{c}", "arguments": {"q": "x" * (2 + i)}})
        for c in range(callers)
        for i in range(2)
    ]
    return "\n".join(lines) + "\n"


ONE_JOB: Final = AuditRequest(limits=Limits(jobs=1))
"""As the benchmark has always run: one pass in this process."""


def audited(catalog: Path, log: Path, settings: ReportSettings) -> Report:
    """The report of one audit, as ``auditor audit`` builds it."""
    catalogs = load_catalogs([str(catalog)])
    files, problems = check_logs([str(log)])
    assert not catalogs.problems and not problems, (catalogs.problems, problems)
    return audit_logs(catalogs.tools, files, [str(catalog)], ONE_JOB, settings=settings)


def _edits(report: Report) -> Any:
    from auditor.schema import edit

    return edit.loosening_edits(report.groups, DEFAULT_MAX_CATALOG_BYTES)  # type: ignore[attr-defined]


def sarif_with_fixes(report: Report) -> str:
    """The SARIF log with a fix per loosening, as the CLI makes it on this tree."""
    from auditor.report import sarif

    if hasattr(sarif, "verified_fixes"):  # before: one composition of the file per group
        return str(sarif.render(report, sarif.verified_fixes(report, DEFAULT_MAX_CATALOG_BYTES)))
    return sarif.render(report, sarif.loosening_fixes(report, _edits(report).alone))  # type: ignore[attr-defined]


def patch_diff(report: Report) -> str:
    """The diff ``--suggest-patch`` writes, as the CLI makes it on this tree."""
    from auditor.schema import edit

    if hasattr(edit, "loosening_edits"):
        files = _edits(report).files
    else:
        pairs = [(g.tool, g.patch) for g in report.groups if g.patch is not None]
        files = edit.patch_catalogs(pairs, DEFAULT_MAX_CATALOG_BYTES)
    return "".join(edit.unified_diff(f.path, f.before, f.after) for f in files)


def every_format(report: Report) -> str:
    """Every format but SARIF, as the CLI renders them."""
    return "".join(render(report, fmt) for fmt in Format if fmt is not Format.SARIF)


def measure(work: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Median CPU seconds of this process and median wall seconds of ``work``."""
    cpu, wall = [], []
    for _ in range(rounds):
        started, clock = time.process_time(), time.perf_counter()
        work()
        cpu.append(time.process_time() - started)
        wall.append(time.perf_counter() - clock)
    return statistics.median(cpu), statistics.median(wall)


class Table:
    """Rows of figures, each with its ratio to the row before of the same measure."""

    def __init__(self) -> None:
        self.last: dict[str, float] = {}

    def row(self, what: str, size: int, figures: tuple[float, float]) -> None:
        cpu, wall = figures
        before = self.last.get(what)
        ratio = f"x{cpu / before:.2f}" if before else ""
        self.last[what] = cpu
        print(f"{what:<36} {size:>7,}  {cpu:8.2f} s CPU  {wall:8.2f} s wall  {ratio}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--groups", type=int, nargs="*", default=[1000, 2000, 4000], help="multiples of 20"
    )
    parser.add_argument("--callers", type=int, nargs="*", default=[2500, 5000, 10000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="the fixes catalog as JSON")
    options = parser.parse_args()
    table = Table()
    with tempfile.TemporaryDirectory(prefix="auditor-report-building-") as folder:
        here = Path(folder)
        os.chdir(here)  # catalogs are named relative to it, as from a repository's root
        catalog = Path("tools.json" if options.json else "tools.yaml")
        catalog.write_text(fixes_catalog(options.json), encoding="utf-8")
        print(
            f"fixes catalog: {catalog}, {catalog.stat().st_size / 1000:.0f} KB, "
            f"{TOOLS * PROPERTIES:,} constraints; medians of {options.rounds} rounds"
        )
        settings = ReportSettings(old_runtime=OldRuntime.NONE)
        for groups in options.groups:
            log = Path("calls.jsonl")
            log.write_text(fixes_log(groups), encoding="utf-8")
            report = audited(catalog, log, settings)
            fixed = sum(g.patch is not None for g in report.groups)
            assert fixed == groups, f"{fixed} groups with a patch, not {groups}"
            for what, work in (
                ("SARIF with fixes", sarif_with_fixes),
                ("--suggest-patch diff", patch_diff),
            ):
                table.row(f"{what}, groups", groups, measure(partial(work, report), options.rounds))
        one = Path("one.yaml")
        one.write_text("t:\n  type: object\n  properties:\n    q: {max_length: 1}\n")
        by_caller = ReportSettings(old_runtime=OldRuntime.NONE, group_by=GroupBy.CALLER)
        for callers in options.callers:
            log = Path("callers.jsonl")
            log.write_text(callers_log(callers), encoding="utf-8")
            report = audited(one, log, by_caller)
            assert len(report.groups) == callers, len(report.groups)
            for what, work in (("SARIF", sarif_with_fixes), ("every other format", every_format)):
                table.row(
                    f"{what}, callers", callers, measure(partial(work, report), options.rounds)
                )


if __name__ == "__main__":
    main()
