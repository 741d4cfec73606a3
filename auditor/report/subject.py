"""The results section every format shows when a report holds results (``Report.results``):
its heading and what was read but not validated, worded once for every format.

A report of arguments only has no results section at all, so its rendering is as before.
"""

from __future__ import annotations

from typing import Final

from auditor.models import Prose, Report, Span
from auditor.words import plural

RESULTS_HEADING: Final = "Results"
RESULTS_INTRO: Final = Prose.of(
    "Each tool's result (MCP ",
    Span.code("structuredContent"),
    ", OTel ",
    Span.code("gen_ai.tool.call.result"),
    ") replayed against its old and new output schema; counted and gated apart from the "
    "arguments, each result below as a call of its tool.",
)


def not_validated_line(results: Report) -> Prose:
    """``3 results read were not validated: 1 error result (isError: MCP does not validate
    it), …``, or that every result read was validated."""
    counted = results.not_validated
    if counted is None or not counted.total:
        return Prose.of("Every result read was validated.")
    parts = []
    if counted.error_results:
        parts.append(
            f"{plural(counted.error_results, 'error result')} (isError: not validated, as MCP says)"
        )
    if counted.unstructured:
        parts.append(f"{plural(counted.unstructured, 'result')} without structured content")
    if counted.without_output_schema:
        parts.append(
            f"{plural(counted.without_output_schema, 'result')} of tools that declare no "
            "output schema"
        )
    verb = "was" if counted.total == 1 else "were"
    return Prose.of(
        f"{plural(counted.total, 'result')} read {verb} not validated: {', '.join(parts)}."
    )
