"""CI gating: which groups fail the run under ``--fail-on``, and the exit code.

Exit codes: 0 nothing fails, 1 something fails (``EXIT_FOUND``), 2 only for unusable input or
the tool's own failure (raised elsewhere, never decided here).
"""

from __future__ import annotations

from typing import Final

from auditor.models import FailOn, Group, Outcome, Report

FAILING_OUTCOMES: Final[dict[FailOn, frozenset[Outcome]]] = {
    FailOn.NEVER: frozenset(),
    FailOn.NEWLY_REJECTED: frozenset({Outcome.NEWLY_REJECTED}),
    FailOn.SCHEMA_ERROR: frozenset(
        {Outcome.NEWLY_REJECTED, Outcome.SCHEMA_ERROR_AFTER, Outcome.SCHEMA_ERROR_BEFORE}
    ),
    FailOn.ANY_CHANGE: frozenset(
        {
            Outcome.NEWLY_REJECTED,
            Outcome.SCHEMA_ERROR_AFTER,
            Outcome.SCHEMA_ERROR_BEFORE,
            Outcome.NEWLY_ACCEPTED,
        }
    ),
}
"""Each level includes the one before: never < newly_rejected < schema_error < any-change."""


def failing_groups(report: Report) -> list[Group]:
    """Groups that fail the run: an outcome ``report.fail_on`` counts, not in the baseline."""
    outcomes = FAILING_OUTCOMES[report.fail_on]
    return [g for g in report.groups if g.outcome in outcomes and not g.baselined]


def exit_code(report: Report) -> int:
    """0 when no group fails the run, 1 when one does."""
    return 1 if failing_groups(report) else 0
