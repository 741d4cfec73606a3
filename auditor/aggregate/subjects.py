"""Results as a second subject: the hints of a results report worded for results.

A result that a new output schema rejects is the server's to fix (it returned what its own
schema does not allow) or the output schema's to loosen; the hints are found by the same
shares and observations as for arguments (``auditor.aggregate.hints``), then reworded here,
in auditor's wording only: the pieces that hold data are never touched.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from auditor.models import DecisionHint, Group, Prose, Report, Span, SpanKind, Subject

RESULT_WORDING: Final[tuple[tuple[str, str], ...]] = (
    ("likely caller bugs; keep ", "likely server bugs; keep "),
    (" and fix the callers.", " and fix the server."),
    (
        ": the constraint contradicts real use; consider removing or loosening ",
        ": the constraint contradicts what the server returns; loosen the output schema: "
        "remove or loosen ",
    ),
    ("while most calls meet it", "while most results meet it"),
    ("from caller bugs", "from server bugs"),
    ("; it sent ", "; it returned "),
    ("; all sent ", "; all returned "),
    (" of them sent ", " of them returned "),
    ("too few calls of the tool were logged", "too few results of the tool were logged"),
    (" calls of ", " results of "),
    (" call of ", " result of "),
    ("These calls will fail after the change", "These results will fail after the change"),
    ("accepts these calls", "accepts these results"),
)
"""auditor's wording of an argument hint -> the same hint for a result, in order."""


def reworded(text: Prose) -> Prose:
    """``text`` with its wording (never its data) said of results."""
    spans = []
    for span in text.spans:
        if span.kind in (SpanKind.WORDS, SpanKind.STRONG):
            words = span.text
            for said, instead in RESULT_WORDING:
                words = words.replace(said, instead)
            span = Span(span.kind, words)
        spans.append(span)
    return Prose(tuple(spans))


def as_results(report: Report) -> Report:
    """The report of results replayed as calls, labelled as such, its hints reworded."""
    groups = tuple(_group(group) for group in report.groups)
    return dataclasses.replace(report, subject=Subject.RESULTS, groups=groups)


def _group(group: Group) -> Group:
    hint = DecisionHint(group.hint.kind, reworded(group.hint.text))
    return dataclasses.replace(group, hint=hint)
