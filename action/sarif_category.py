"""Set a SARIF file's code-scanning category: ``python sarif_category.py FILE CATEGORY``.

Used by action.yml before the upload. upload-sarif takes a run's own ``automationDetails.id``
over its ``category`` input and over the category it derives (workflow, job, matrix values),
and auditor writes an id of its own (derived from the audit's inputs, for uploads outside the
Action). So a category given is written into every run, as upload-sarif writes it
(``CATEGORY/``: the category, then an empty run id); an empty one removes auditor's id, and
upload-sarif derives the category as it does for any tool. The run's other automation details
are kept. Exits 1 with one line when the file is no SARIF log.
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
    wanted = category if not category or category.endswith("/") else f"{category}/"
    for run in runs:
        details = run.pop("automationDetails", None)
        kept = {
            k: v for k, v in (details if isinstance(details, dict) else {}).items() if k != "id"
        }
        if wanted:
            kept["id"] = wanted
        if kept:
            run["automationDetails"] = kept
    file.write_text(json.dumps(log, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: sarif_category.py FILE CATEGORY", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
