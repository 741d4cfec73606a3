"""Findings for every tool of a catalog file, placed at file:line:column.

The findings come from the normalizer's own walk (:func:`auditor.schema.normalize.normalize`), so
lint and normalize can never disagree about what a keyword is.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from auditor.inputs.catalogs import CatalogProblem, expand, read_catalog
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES
from auditor.inputs.paths import shown
from auditor.models import Finding, Location
from auditor.schema.normalize import normalize


@dataclass(frozen=True)
class LocatedFinding:
    """A finding with the tool it is in and where its key stands in the catalog file."""

    finding: Finding
    tool: str
    location: Location

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


def lint_file(
    path: str, max_bytes: int = DEFAULT_MAX_CATALOG_BYTES
) -> tuple[list[LocatedFinding], CatalogProblem | None]:
    """Every finding in one catalog file, or the problem that makes the file unusable."""
    tools, problem = read_catalog(path, max_bytes=max_bytes)
    if problem is not None:
        return [], problem
    located = []
    for tool in tools:
        for finding in normalize(tool.schema).findings:
            # The catalog reader placed every key below the tool's schema already.
            line, column = tool.positions.get(finding.pointer, (None, None))
            place = Location(shown(path), line, column)
            located.append(LocatedFinding(finding, tool.name, place))
    return located, None


def lint_paths(
    paths: Iterable[str],
    select: Collection[str] = (),
    ignore: Collection[str] = (),
    max_bytes: int = DEFAULT_MAX_CATALOG_BYTES,
    follow_links: bool = False,
) -> LintResult:
    """Lint every catalog file under ``paths``; ``select``/``ignore`` filter by code prefix;
    links out of a catalog folder are read only when ``follow_links``."""
    found: list[LocatedFinding] = []
    files, problems = expand(list(paths), follow_links)
    for file in files:
        located, problem = lint_file(file, max_bytes)
        if problem is not None:
            problems.append(problem)
        found.extend(f for f in located if _wanted(f.finding.code, select, ignore))
    return LintResult(tuple(sorted(found, key=lambda f: f.sort_key)), tuple(problems))


def _wanted(code: str, select: Collection[str], ignore: Collection[str]) -> bool:
    if select and not any(code.startswith(prefix) for prefix in select):
        return False
    return not any(code.startswith(prefix) for prefix in ignore)
