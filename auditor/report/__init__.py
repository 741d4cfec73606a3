"""Renderers: one module per format, each turning a Report into a string.

Only the CLI writes; a renderer returns text, so tests compare strings and the same text can
go to stdout or a file.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Final

from auditor.models import Report
from auditor.report import github, html, json_report, junit, markdown, sarif, table


class Format(str, Enum):
    """Every output format; ``RENDERERS`` must have one renderer for each (a test checks)."""

    TABLE = "table"
    MARKDOWN = "markdown"
    JSON = "json"
    SARIF = "sarif"
    JUNIT = "junit"
    GITHUB = "github"
    HTML = "html"


RENDERERS: Final[dict[Format, Callable[[Report], str]]] = {
    Format.TABLE: table.render,
    Format.MARKDOWN: markdown.render,
    Format.JSON: json_report.render,
    Format.SARIF: sarif.render,
    Format.JUNIT: junit.render,
    Format.GITHUB: github.render,
    Format.HTML: html.render,
}


def render(report: Report, fmt: Format) -> str:
    """``report`` in format ``fmt``."""
    return RENDERERS[fmt](report)
