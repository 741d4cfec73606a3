"""Renderers: one module per format, each turning a Report into a string.

Only the CLI writes; a renderer returns text, so tests compare strings and the same text can
go to stdout or a file.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Final

from auditor.models import Report
from auditor.report import json_report, markdown, table


class Format(str, Enum):
    TABLE = "table"
    MARKDOWN = "markdown"
    JSON = "json"


RENDERERS: Final[dict[Format, Callable[[Report], str]]] = {
    Format.TABLE: table.render,
    Format.MARKDOWN: markdown.render,
    Format.JSON: json_report.render,
}


def render(report: Report, fmt: Format) -> str:
    return RENDERERS[fmt](report)
