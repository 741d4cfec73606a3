"""A logged call's arguments -> a ``Call``: JSON text decoded, nesting bounded, and what
cannot be used kept, with its reason, as an ``Unparsed`` call.

Every reader of calls builds them here (the line reader, the Parquet and Arrow reader, the
distinct-first engines), so a call decodes the same whatever file it came from.
"""

from __future__ import annotations

from auditor.inputs.limits import MAX_NESTING, too_deep
from auditor.inputs.records import MAX_RAW, loads
from auditor.models import JSON, Call, Evidence, Unparsed


def call_from(
    source: str,
    tool: str | None,
    arguments: JSON,
    evidence: Evidence | None = None,
    caller: str | None = None,
) -> Call:
    """A call whose arguments, when a string, are JSON text to decode (as OpenAI logs them);
    text that does not decode is kept, with the reason, as an ``Unparsed`` call."""
    if isinstance(arguments, str):
        decoded, problem = loads(arguments)
        if problem is not None:
            reason = f"arguments are not valid JSON: {problem}"
            return unparsed(source, tool, arguments, reason, caller)
        text, arguments = arguments, decoded
    else:
        text = None
    if too_deep(arguments, text=text):  # later stages recurse into arguments: bound it here
        raw = text if text is not None else "<not shown: nested too deeply>"
        reason = f"arguments nest more than {MAX_NESTING} levels deep"
        return unparsed(source, tool, raw, reason, caller)
    return Call(source, tool, arguments, text=text, evidence=evidence, caller=caller)


def unparsed(
    source: str, tool: str | None, raw: str, reason: str, caller: str | None = None
) -> Call:
    """An ``unparseable`` call: ``raw`` (cut to ``MAX_RAW`` characters) and why."""
    clipped = raw if len(raw) <= MAX_RAW else raw[: MAX_RAW - 1] + "…"
    return Call(source, tool, None, Unparsed(clipped, reason), caller=caller)
