"""CI gating: which groups fail the run under ``--fail-on``, and the exit code.

A group fails the run when ``--fail-on`` counts its outcome, no baseline accepts it, and it is
not below a usage threshold: ``--fail-min-calls N`` (fewer than N calls) or
``--fail-min-share X`` (fewer than X of its tool's logged calls, as a fraction). A group
below a threshold is still reported, marked with the threshold it is below.

Exit codes: 0 nothing fails, 1 something fails (``EXIT_FOUND``), 2 only for unusable input or
the tool's own failure (raised elsewhere, never decided here).
"""

from __future__ import annotations

from fractions import Fraction
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
    """Groups that fail the run: an outcome ``report.fail_on`` counts, not in the baseline,
    not below a usage threshold."""
    return [g for g in _gated(report) if below_threshold(report, g) is None]


def below_threshold_groups(report: Report) -> list[Group]:
    """Groups that would fail the run but for a usage threshold (the gate still reports them)."""
    return [g for g in _gated(report) if below_threshold(report, g) is not None]


def below_threshold(report: Report, group: Group) -> str | None:
    """Why ``group`` does not fail the run although ``--fail-on`` counts it and no baseline
    accepts it: the thresholds it is below (``below --fail-min-calls 5``); None when it is not
    such a group (it fails, or it would not fail anyway).

    Below means strictly fewer: a group of exactly ``fail_min_calls`` calls, or exactly
    ``fail_min_share`` of its tool's calls, fails. The share is compared exactly (as
    fractions), so 7 of 100 calls is not below ``0.07``.
    """
    if group.outcome not in FAILING_OUTCOMES[report.fail_on] or group.baselined:
        return None
    reasons = []
    if group.count < report.fail_min_calls:
        reasons.append(f"--fail-min-calls {report.fail_min_calls}")
    if Fraction(group.count, max(group.tool_calls, 1)) < _exact(report.fail_min_share):
        reasons.append(f"--fail-min-share {share_text(report.fail_min_share)}")
    return f"below {' and '.join(reasons)}" if reasons else None


def share_text(share: float) -> str:
    """A ``--fail-min-share`` value as the user would write it: ``0.001``, ``0.5``, ``1``."""
    short = f"{share:g}"
    return short if float(short) == share else repr(share)


def _exact(share: float) -> Fraction:
    """The share as written (``0.07`` is 7/100, not the nearest binary fraction)."""
    return Fraction(repr(share))


def exit_code(report: Report) -> int:
    """0 when no group fails the run, 1 when one does."""
    return 1 if failing_groups(report) else 0


def _gated(report: Report) -> list[Group]:
    """Groups of an outcome ``--fail-on`` counts that no baseline accepts."""
    outcomes = FAILING_OUTCOMES[report.fail_on]
    return [g for g in report.groups if g.outcome in outcomes and not g.baselined]
