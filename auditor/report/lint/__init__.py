"""Renderers for `auditor lint`: one module per format, each returning a string."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import Final

from auditor.report.lint import github, json_list, sarif, text
from auditor.schema.lint import LocatedFinding


class LintFormat(str, Enum):
    TEXT = "text"
    JSON = "json"
    GITHUB = "github"
    SARIF = "sarif"


LINT_RENDERERS: Final[dict[LintFormat, Callable[[Sequence[LocatedFinding]], str]]] = {
    LintFormat.TEXT: text.render,
    LintFormat.JSON: json_list.render,
    LintFormat.GITHUB: github.render,
    LintFormat.SARIF: sarif.render,
}
