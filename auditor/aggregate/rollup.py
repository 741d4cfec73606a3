"""What to do: the report's groups by the decision they ask for (the roll-up).

Computed once, when the report is finished (``roll_up``, stored as ``Report.rollup``); every
format renders that record and none regroups. Each group lands in exactly one entry: the
entry of its hint kind (``KIND_OF_HINT``), except a group of calls to a tool the change
removed, which asks the tool's callers to move whatever its hint (``TOOLS_REMOVED``), and a
group the log contradicts (``Group.contradicted``: no change explains its rejection), which
asks whether the old-runtime model is right (``CONTRADICTED``). So the entries' groups add up
to the report's groups.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from auditor.models import Group, HintKind, Outcome, RollUp, RollUpEntry, RollUpKind

KIND_OF_HINT: Final[dict[HintKind, RollUpKind]] = {
    HintKind.FIX_CALLERS: RollUpKind.FIX_CALLERS,
    HintKind.LOOSEN_SCHEMA: RollUpKind.LOOSEN_SCHEMA,
    HintKind.REVIEW: RollUpKind.REVIEW,
    HintKind.FIX_SCHEMA: RollUpKind.FIX_SCHEMA,
}
"""The entry of each hint kind: the extension point for a new kind of hint."""

ROLLUP_CALLERS: Final = 5
"""Callers named in one entry, most calls first; the rest are said to exist."""

PATCH_COMMAND: Final = "--suggest-patch PATH"
"""What writes the verified loosenings into the catalog files (as a diff for git apply)."""
PATCH_COMMANDS: Final[dict[RollUpKind, str]] = {
    RollUpKind.LOOSEN_SCHEMA: PATCH_COMMAND,
    RollUpKind.REVIEW: f"{PATCH_COMMAND} --suggest-patch-kinds review",
    RollUpKind.CONTRADICTED: f"{PATCH_COMMAND} --suggest-patch-kinds contradiction",
}
"""What writes an entry's patches: ``--suggest-patch`` writes those of loosen-schema groups
unless ``--suggest-patch-kinds`` (``auditor.request.PatchKind``) names the others."""


def kind_of(group: Group) -> RollUpKind:
    """The roll-up entry ``group`` lands in."""
    if any(cause.removes_tool for cause in group.causes):
        return RollUpKind.TOOLS_REMOVED
    if group.contradicted:
        return RollUpKind.CONTRADICTED
    return KIND_OF_HINT[group.hint.kind]


def roll_up(groups: Sequence[Group]) -> RollUp:
    """The roll-up of a finished report's ``groups``: one entry per ``RollUpKind``, in that
    order, each holding its groups in the report's order."""
    by_kind: dict[RollUpKind, list[Group]] = {kind: [] for kind in RollUpKind}
    for group in groups:
        by_kind[kind_of(group)].append(group)
    return RollUp(tuple(_entry(kind, members) for kind, members in by_kind.items()))


def _entry(kind: RollUpKind, groups: list[Group]) -> RollUpEntry:
    outcomes = Counter(group.outcome for group in groups)
    callers: Counter[str] = Counter()
    for group in groups:
        for name, calls in group.callers:
            callers[name] += calls
    ranked = sorted(callers.items(), key=lambda item: (-item[1], item[0]))
    verified = [g.patch for g in groups if g.patch is not None and g.patch.problem is None]
    patches = sum(1 for patch in verified if patch.location is not None)
    return RollUpEntry(
        kind=kind,
        fingerprints=tuple(group.fingerprint for group in groups),
        calls=sum(group.count for group in groups),
        outcomes=tuple((o, outcomes[o]) for o in Outcome if outcomes[o]),
        tools=tuple(dict.fromkeys(group.tool for group in groups)),
        callers=tuple(ranked[:ROLLUP_CALLERS]),
        more_callers=len(ranked) > ROLLUP_CALLERS or any(g.more_callers for g in groups),
        patches=patches,
        unwritable_patches=len(verified) - patches,
        patch_command=PATCH_COMMANDS.get(kind) if patches else None,
        errors=tuple(
            dict.fromkeys(
                (group.tool, group.error)
                for group in groups
                if group.outcome is Outcome.SCHEMA_ERROR_AFTER
            )
        ),
    )
