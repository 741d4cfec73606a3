"""Write a code-scanning category into a SARIF file: ``python sarif_category.py FILE CATEGORY``.

Used by action.yml when its ``sarif-category`` input is given. upload-sarif takes a run's own
``automationDetails.id`` over its ``category`` input, so the category is written into every
run, as upload-sarif writes it (``CATEGORY/``: the category, then an empty run id); the run's
other automation details are kept. Exits 1 with one line when the file is no SARIF log.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(path: str, category: str) -> int:
    """Rewrite ``path`` with ``category`` in each run; the exit code."""
    file = Path(path)
    try:
        log = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"sarif_category: {path}: {error}", file=sys.stderr)
        return 1
    runs = log.get("runs") if isinstance(log, dict) else None
    if not isinstance(runs, list) or not all(isinstance(run, dict) for run in runs):
        print(f"sarif_category: {path}: no SARIF runs", file=sys.stderr)
        return 1
    wanted = category if category.endswith("/") else f"{category}/"
    for run in runs:
        details = run.get("automationDetails")
        run["automationDetails"] = {**(details if isinstance(details, dict) else {}), "id": wanted}
    file.write_text(json.dumps(log, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: sarif_category.py FILE CATEGORY", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
