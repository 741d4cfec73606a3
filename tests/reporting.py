"""Build reports from small inline catalogs and logs, as the CLI would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from auditor.aggregate.pipeline import ReportSettings
from auditor.api import replay
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_files import check_logs
from auditor.inputs.reader import LogReader
from auditor.models import Report


def write_inputs(folder: Path, catalog: str, calls: list[Any]) -> tuple[Path, Path]:
    """``tools.yaml`` and ``calls.jsonl`` in ``folder``; calls are (tool, arguments) pairs."""
    catalog_path = folder / "tools.yaml"
    catalog_path.write_text(catalog, encoding="utf-8")
    log_path = folder / "calls.jsonl"
    log_path.write_text(
        "".join(json.dumps({"tool": t, "arguments": a}) + "\n" for t, a in calls),
        encoding="utf-8",
    )
    return catalog_path, log_path


def make_report(
    folder: Path, catalog: str, calls: list[Any], settings: ReportSettings | None = None
) -> Report:
    catalog_path, log_path = write_inputs(folder, catalog, calls)
    catalogs = load_catalogs([str(catalog_path)])
    assert not catalogs.problems, catalogs.problems
    files, problems = check_logs([str(log_path)])
    assert not problems
    return replay(
        catalogs.tools,
        LogReader(files),
        None,
        [str(catalog_path)],
        settings=settings or ReportSettings(),
    )
