"""Renderers: one module per format, each turning a Report into a string.

Only the CLI writes; a renderer returns text, so tests compare strings and the same text can
go to stdout or a file.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Final

from auditor.gc_thresholds import fewer_collections
from auditor.models import Report
from auditor.report.lazy import LazyRenderers


class Format(str, Enum):
    """Every output format; ``RENDERERS`` must have one renderer for each (a test checks)."""

    TABLE = "table"
    MARKDOWN = "markdown"
    JSON = "json"
    SARIF = "sarif"
    JUNIT = "junit"
    GITHUB = "github"
    HTML = "html"
    COMMENT = "comment"
    GITLAB = "gitlab"


RENDERERS: Final[LazyRenderers[Format, Callable[[Report], str]]] = LazyRenderers(
    __name__,
    {
        Format.TABLE: "table",
        Format.MARKDOWN: "markdown",
        Format.JSON: "json_report",
        Format.SARIF: "sarif",
        Format.JUNIT: "junit",
        Format.GITHUB: "github",
        Format.HTML: "html",
        Format.COMMENT: "comment",
        Format.GITLAB: "gitlab",
    },
)
"""Each format's renderer, by module: imported when first used, not by ``--help``."""


@fewer_collections()
def render(report: Report, fmt: Format) -> str:
    """``report`` in format ``fmt``."""
    return RENDERERS[fmt](report)
