"""Findings for every tool of a catalog file, placed at file:line:column.

The findings come from the normalizer's own walk (:func:`auditor.schema.normalize.normalize`), so
lint and normalize can never disagree about what a keyword is.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from typing import Final

from auditor import pointers
from auditor.inputs.catalog_formats import CatalogFormat
from auditor.inputs.catalogs import (
    CatalogProblem,
    FileSystem,
    NotACatalog,
    Skipped,
    read_catalog,
    read_catalog_files,
)
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES
from auditor.inputs.log_as_catalog import LOG_AS_CATALOG
from auditor.inputs.paths import shown
from auditor.models import DEFAULT_RULES, Change, Edit, Finding, Location, Rule, ToolSchema
from auditor.schema.normalize import normalize

LOG_GIVEN_TO_LINT: Final = (
    "looks like a call log (JSON Lines), not a tool catalog: lint reads catalogs (a log is "
    "audited: auditor audit --schemas CATALOG --logs LOG)"
)


@dataclass(frozen=True)
class LocatedFinding:
    """A finding with the tool it is in and where its key stands in the catalog file."""

    finding: Finding
    tool: str
    location: Location
    fixable: bool = False
    """Whether ``auditor normalize --write`` with the lint's rule families rewrites it away."""

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (
            self.location.path,
            self.location.line or 0,
            self.location.column or 0,
            self.finding.code,
            self.finding.pointer,
        )


@dataclass(frozen=True)
class LintResult:
    findings: tuple[LocatedFinding, ...]
    problems: tuple[CatalogProblem, ...]
    skipped: tuple[Skipped, ...] = ()
    """Files of the folders that are no tool catalog, left out (as ``audit`` leaves them)."""
    files: int = 0
    """Catalog files linted."""


def lint_file(
    path: str, max_bytes: int = DEFAULT_MAX_CATALOG_BYTES, rules: Collection[Rule] = DEFAULT_RULES
) -> tuple[list[LocatedFinding], CatalogProblem | None]:
    """Every finding in one catalog file, or the problem that makes the file unusable."""
    tools, problem = read_catalog(path, max_bytes=max_bytes)
    if problem is not None:
        return [], problem
    return tool_findings(tools, shown(path), rules), None


def tool_findings(
    tools: Iterable[ToolSchema], path: str, rules: Collection[Rule] = DEFAULT_RULES
) -> list[LocatedFinding]:
    """The findings of the tools of one file (shown as ``path``), each marked fixable when
    normalizing by ``rules`` rewrites its place."""
    located = []
    for tool in tools:
        result = normalize(tool.schema, rules)
        for finding in result.findings:
            # The catalog reader placed every key below the tool's schema already.
            line, column = tool.positions.get(finding.pointer, (None, None))
            place = Location(path, line, column)
            fixed = finding.code in REWRITTEN and _rewritten(finding.pointer, result.rewrites)
            located.append(LocatedFinding(finding, tool.name, place, fixed))
    return located


REWRITTEN: Final = frozenset({"KW001", "TY001", "TY002", "OA001", "OA002", "GM001"})
"""The findings about a spelling, which a rewrite at their place removes; the others (a
keyword on the wrong type, NE002) stand at a renamed key but are not fixed by the rename."""


def _rewritten(pointer: str, rewrites: Iterable[Change]) -> bool:
    """Whether a rewrite changes the key or type name at ``pointer`` (a rename, a new type
    name), or removes the entry that holds it (``type: any`` under ``type-alias``)."""
    return any(
        change.pointer == pointer
        or (change.edit is Edit.REMOVE and pointers.is_within(pointer, change.pointer))
        for change in rewrites
    )


def lint_paths(
    paths: Iterable[str],
    select: Collection[str] = (),
    ignore: Collection[str] = (),
    max_bytes: int = DEFAULT_MAX_CATALOG_BYTES,
    follow_links: bool = False,
    rules: Collection[Rule] = DEFAULT_RULES,
    fmt: CatalogFormat | None = None,
    skip_named: bool = False,
) -> LintResult:
    """Lint every catalog file under ``paths`` (``fmt`` forced, or detected), the files of a
    folder that are no catalog skipped as ``audit`` skips them; ``select``/``ignore`` filter
    by code prefix; a finding is fixable when ``rules`` rewrite it away; links out of a
    catalog folder are read only when ``follow_links``; named files that are no catalog are
    skipped too with ``skip_named`` (``auditor.inputs.catalogs.read_catalog_files``)."""
    found = read_catalog_files(list(paths), fmt, max_bytes, FileSystem(follow_links), skip_named)
    located: list[LocatedFinding] = []
    for file in found.files:
        for finding in tool_findings(file.tools, shown(file.path), rules):
            if _wanted(finding.finding.code, select, ignore):
                located.append(finding)
    problems = tuple(_for_lint(problem) for problem in found.problems)
    ordered = tuple(sorted(located, key=lambda f: f.sort_key))
    return LintResult(ordered, problems, found.skipped, len(found.files))


def _for_lint(problem: CatalogProblem) -> CatalogProblem:
    """A log named to ``lint``: ``did you mean --logs?`` names an option lint lacks."""
    if isinstance(problem, NotACatalog) and problem.message == LOG_AS_CATALOG:
        return replace(problem, message=LOG_GIVEN_TO_LINT)
    return problem


def _wanted(code: str, select: Collection[str], ignore: Collection[str]) -> bool:
    if select and not any(code.startswith(prefix) for prefix in select):
        return False
    return not any(code.startswith(prefix) for prefix in ignore)
