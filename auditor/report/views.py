"""Views over a Report that several renderers share: groups of calls with the same cause."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from auditor.models import CallResult, Outcome, Report, Rewrite, ToolSummary

EXAMPLES = 2


@dataclass
class Group:
    """Calls of one tool that fail the same keywords for the same causes."""

    tool: str
    causes: tuple[Rewrite, ...]
    keywords: tuple[str, ...]
    count: int = 0
    examples: list[CallResult] = field(default_factory=list)
    first: str = ""
    last: str = ""

    @property
    def cause_text(self) -> str:
        if not self.causes:
            return "no rewrite found on the error's path"
        return ", ".join(f"`{r.pointer}` {r.old} → {r.new}" for r in self.causes)


def group_calls(results: Iterable[CallResult], outcome: Outcome) -> list[Group]:
    """Group the calls with ``outcome`` by tool, cause rewrites and failing keywords."""
    groups: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Group] = {}
    for result in results:
        if result.outcome is not outcome or not result.errors:
            continue
        causes = tuple(dict.fromkeys(c for e in result.errors for c in e.causes))
        keywords = tuple(sorted({e.keyword for e in result.errors}))
        tool = result.call.tool or ""
        key = (tool, tuple(sorted(c.pointer for c in causes)), keywords)
        group = groups.get(key)
        if group is None:
            group = groups[key] = Group(tool, causes, keywords, first=result.call.source)
        group.count += 1
        group.last = result.call.source
        if len(group.examples) < EXAMPLES:
            group.examples.append(result)
    return sorted(groups.values(), key=lambda g: (-g.count, g.tool, g.keywords, g.first))


def tools_with(report: Report, outcome: Outcome) -> list[ToolSummary]:
    return [tool for tool in report.tools if tool.counts.get(outcome)]


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
