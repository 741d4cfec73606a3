"""The wording of the calls that still send a property the change removed, for every format.

One sentence per removal (``Report.removed_properties``), worded once as ``Prose`` so that
each renderer escapes its pieces for its own context: the property, the calls, whether the
new schema ignores it (objects open: accepted, and the tool no longer does what they ask) or
refuses it (closed: newly rejected, caused by the removal), the callers and the first calls.
"""

from __future__ import annotations

from typing import Final

from auditor.models import Location, Prose, RemovedPropertyCalls, Report, Span
from auditor.words import agree, plural

HEADING: Final = "Calls that still send a removed property"
SUMMED_UP: Final = 3
"""Removals the one-line summary names (``removed_summary``); it counts the others."""


def removed_summary(report: Report) -> Prose | None:
    """One line for the pull-request comment: the first removals calls still send, each with
    its calls and what the new schema does with them."""
    found = report.removed_properties
    if not found:
        return None
    parts: list[str | Span | Prose] = [Span.strong(HEADING), ": "]
    for index, removed in enumerate(found[:SUMMED_UP]):
        does = (
            "ignored: objects are open"
            if removed.ignored
            else (f"{removed.newly_rejected:,} newly rejected")
        )
        parts += ["; " if index else "", Span.code(removed.tool), " ", Span.code(removed.name)]
        parts.append(f" ({plural(removed.calls, 'call')}, {does})")
    if len(found) > SUMMED_UP:
        parts.append(f"; and {plural(len(found) - SUMMED_UP, 'more property', 'more properties')}")
    parts.append(".")
    return Prose.of(*parts)


def removal_location(report: Report, removed: RemovedPropertyCalls) -> Location | None:
    """Where the removal is in the catalogs (the removed key in the old catalog)."""
    for tool in report.tools:
        if tool.name == removed.tool:
            for change, location in zip(tool.rewrites, tool.rewrite_locations, strict=False):
                if change == removed.change:
                    return location
    return None


def removed_prose(removed: RemovedPropertyCalls) -> Prose:
    """``get_commit``: 2 calls still send ``include_diff``, which the change removed; ..."""
    calls = removed.calls
    place: Prose = Prose()
    if removed.pointer != "/" + removed.name.replace("~", "~0").replace("/", "~1"):
        place = Prose.of(" (at ", Span.code(removed.pointer), ")")
    parts: list[str | Span | Prose] = [
        Span.code(removed.tool),
        f": {plural(calls, 'call')} still {agree(calls, 'sends', 'send')} ",
        Span.code(removed.name),
        place,
        ", which the change removed; ",
    ]
    if removed.ignored:
        parts.append(
            Prose.of(
                Span.strong("objects are open"),
                ": the new schema ignores it, so ",
                agree(
                    calls,
                    "the call is accepted and no longer gets what it asks",
                    "they are accepted and no longer get what they ask",
                ),
                ": fix the callers",
            )
        )
    elif removed.newly_rejected:
        parts.append(
            Prose.of(
                Span.strong("the new schema refuses it"),
                f": {removed.newly_rejected:,} of them newly rejected (cause: the removal)",
            )
        )
    else:
        parts.append(Prose.of(Span.strong("the new schema may refuse it"), ": none newly rejected"))
    if removed.callers:
        parts.append(". Callers: ")
        for index, (caller, count) in enumerate(removed.callers):
            parts += [", " if index else "", Span.code(caller), f" ({plural(count, 'call')})"]
        if removed.more_callers:
            parts.append(f", and {plural(removed.more_callers, 'more caller')}")
    if removed.examples:
        shown = "Calls" if len(removed.examples) == calls else "First calls"
        parts.append(f". {shown if calls > 1 else 'Call'}: ")
        for index, example in enumerate(removed.examples):
            parts += [", " if index else "", Span.code(example)]
    parts.append(".")
    return Prose.of(*parts)
