"""CI gating: which groups fail the run under ``--fail-on``, and the exit code.

Decided once, when the report is finished (``decide``, stored as ``Report.gate``); every
renderer and the CLI read that record (``Gate.fails``, ``Gate.below_threshold``,
``Report.failing_groups``), none decides again.

A group fails the run when ``--fail-on`` counts its outcome, no baseline accepts it, it is not
a group the log contradicts (``CONTRADICTED_FAIL``), and it is not below a usage threshold:
``--fail-min-calls N`` (fewer than N calls) or ``--fail-min-share X`` (fewer than X of its
tool's logged calls, as a fraction). A group below a threshold is still reported, marked
with the threshold it is below.

Exit codes: 0 nothing fails, 1 something fails (``EXIT_FOUND``), 2 only for unusable input or
the tool's own failure (raised elsewhere, never decided here).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from auditor.errors import EXIT_FOUND, EXIT_OK
from auditor.models import FailOn, Gate, Group, Outcome
from auditor.words import share_text

FAILING_OUTCOMES: Final[dict[FailOn, frozenset[Outcome]]] = {
    FailOn.NEVER: frozenset(),
    FailOn.NEWLY_REJECTED: frozenset({Outcome.NEWLY_REJECTED, Outcome.SCHEMA_ERROR_AFTER}),
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
"""Each level includes the one before: never < newly_rejected < schema_error < any-change.

The default, ``newly_rejected``, is anything that breaks after the change: calls rejected now
that passed before (a removed tool's calls among them, caused by the removal) and calls that
meet an unusable new schema (``schema_error_after``: it fails its meta-schema, or raises for
the call), which fail after the change just as surely. ``schema_error`` adds the old schema's
own problems (``schema_error_before``: those calls were never checked before); ``any-change``
adds what the change loosens (``newly_accepted``)."""


CONTRADICTED_FAIL: Final[dict[FailOn, bool]] = {
    FailOn.NEVER: False,
    FailOn.NEWLY_REJECTED: False,
    FailOn.SCHEMA_ERROR: False,
    FailOn.ANY_CHANGE: True,
}
"""Whether a group the log contradicts (``Group.contradicted``) fails the run: only under
``any-change``.

Its calls ran (the log says so), the old-runtime model rejects them, and no change made the
error possible (it has no cause): the schema asked for it before, and the old runtime did not
enforce it. They fail after the change only if the new runtime starts enforcing that
keyword, which the schema change does not decide and the log cannot show; failing the default
gate on them would blame the change for what it left alone (the report says so on the group,
and ``--old-runtime none`` makes them regressions where validation is being switched on).
``any-change`` fails on every difference between what passed and what the new schema accepts,
and this is one."""


def decide(
    groups: Sequence[Group], fail_on: FailOn, fail_min_calls: int = 1, fail_min_share: float = 0.0
) -> Gate:
    """The gate of a finished report's ``groups``: which fail the run (an outcome ``fail_on``
    counts, not in the baseline, not below a usage threshold), which a threshold keeps from
    failing and why, the exit code, and the policy of ``fail_on`` it was decided under (which
    the JSON report states). Decided once, here; the renderers read it."""
    failing = []
    below = {}
    for group in groups:
        if group.outcome not in FAILING_OUTCOMES[fail_on] or group.baselined:
            continue
        if group.contradicted and not CONTRADICTED_FAIL[fail_on]:
            continue
        reason = _below(group, fail_min_calls, fail_min_share)
        if reason is None:
            failing.append(group.fingerprint)
        else:
            below[group.fingerprint] = reason
    return Gate(
        frozenset(failing),
        below,
        EXIT_FOUND if failing else EXIT_OK,
        FAILING_OUTCOMES[fail_on],
        CONTRADICTED_FAIL[fail_on],
    )


def _below(group: Group, fail_min_calls: int, fail_min_share: float) -> str | None:
    """The thresholds a group that would fail is below, or None.

    Below means strictly fewer: a group of exactly ``fail_min_calls`` calls, or exactly
    ``fail_min_share`` of its tool's calls, fails. The share is compared exactly (as
    fractions), so 7 of 100 calls is not below ``0.07``.
    """
    reasons = []
    if group.count < fail_min_calls:
        reasons.append(f"--fail-min-calls {fail_min_calls}")
    if Fraction(group.count, max(group.tool_calls, 1)) < _exact(fail_min_share):
        reasons.append(f"--fail-min-share {share_text(fail_min_share)}")
    return f"below {' and '.join(reasons)}" if reasons else None


def _exact(share: float) -> Fraction:
    """The share as written (``0.07`` is 7/100, not the nearest binary fraction)."""
    return Fraction(repr(share))
