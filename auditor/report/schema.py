"""The JSON Schema of the JSON report, shipped with the package."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def schema_text() -> str:
    """The schema exactly as shipped (what ``auditor schema`` prints)."""
    return resources.files("auditor.report").joinpath("report.schema.json").read_text("utf-8")


def report_schema() -> dict[str, Any]:
    """The schema, decoded."""
    loaded: dict[str, Any] = json.loads(schema_text())
    return loaded
