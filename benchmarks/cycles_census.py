"""Census of the cyclic garbage an audit's counting leaves: the collector is off while
``count_calls`` runs, then one collection with ``gc.DEBUG_SAVEALL`` counts the unreachable
objects by type. Usage: PYTHONPATH=. python benchmarks/cycles_census.py /tmp/rw10k
"""

import collections
import gc
import sys
from pathlib import Path

import auditor.engines.inline as inline
from auditor.engines.choice import audit_logs
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_files import check_logs
from auditor.request import AuditRequest, Limits

orig = inline.count_calls


def counted(*a, **k):
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        return orig(*a, **k)
    finally:
        n = gc.collect()
        gc.set_debug(0)
        types = collections.Counter(type(o).__qualname__ for o in gc.garbage)
        print("unreachable after count_calls:", n)
        print(types.most_common(12))
        gc.garbage.clear()
        gc.enable()


inline.count_calls = counted
folder = Path(sys.argv[1])
catalogs = load_catalogs([str(folder / "tools.json")])
files, _ = check_logs([str(folder / "calls.jsonl")])
audit_logs(catalogs.tools, files, [str(folder / "tools.json")], AuditRequest(limits=Limits(jobs=1)))
