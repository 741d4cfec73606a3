"""Renderers for `auditor lint`: one module per format, each returning a string."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Final

from auditor.report.lazy import LazyRenderers

if TYPE_CHECKING:
    from auditor.schema.lint import LocatedFinding


class LintFormat(str, Enum):
    TEXT = "text"
    JSON = "json"
    GITHUB = "github"
    SARIF = "sarif"
    GITLAB = "gitlab"


LINT_RENDERERS: Final[LazyRenderers[LintFormat, Callable[[Sequence[LocatedFinding]], str]]] = (
    LazyRenderers(
        __name__,
        {
            LintFormat.TEXT: "text",
            LintFormat.JSON: "json_list",
            LintFormat.GITHUB: "github",
            LintFormat.SARIF: "sarif",
            LintFormat.GITLAB: "gitlab",
        },
    )
)
"""Each format's renderer, by module: imported when first used, not by ``--help``."""
