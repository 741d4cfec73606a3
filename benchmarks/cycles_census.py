"""Census of the cyclic garbage an audit's counting leaves: the collector is off while
``count_calls`` runs, then one collection with ``gc.DEBUG_SAVEALL`` counts the unreachable
objects by type.

    PYTHONPATH=$PWD python benchmarks/cycles_census.py --workload /tmp/rw10k
"""

from __future__ import annotations

import argparse
import collections
import gc
from pathlib import Path
from typing import Any

import auditor.engines.inline as inline
from auditor.engines.choice import audit_logs
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_files import check_logs
from auditor.request import AuditRequest, Limits

_count_calls = inline.count_calls


def _counted(*args: Any, **kwargs: Any) -> Any:
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        return _count_calls(*args, **kwargs)
    finally:
        n = gc.collect()
        gc.set_debug(0)
        types = collections.Counter(type(o).__qualname__ for o in gc.garbage)
        print("unreachable after count_calls:", n)
        print(types.most_common(12))
        gc.garbage.clear()
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--workload", type=Path, required=True, help="a folder with tools.json and calls.jsonl"
    )
    folder = parser.parse_args().workload
    inline.count_calls = _counted
    catalogs = load_catalogs([str(folder / "tools.json")])
    files, _ = check_logs([str(folder / "calls.jsonl")])
    audit_logs(
        catalogs.tools, files, [str(folder / "tools.json")], AuditRequest(limits=Limits(jobs=1))
    )


if __name__ == "__main__":
    main()
