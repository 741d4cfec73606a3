"""The structural difference between two versions of a tool's schema, as rewrites.

When the new side of an audit is a second catalog (``--new-schemas``, ``--against``) rather
than the normalizer's output, the changes that explain new errors are the places where the
two schemas differ. Each is recorded like a normalizer rewrite, under the rule ``edit``, so
causes and coverage work unchanged:

- one change per JSON pointer: a keyword added, removed, or its value replaced;
- the walk descends through keyword positions only (subschemas, maps and lists of them, by
  the vocabulary of :mod:`auditor.schema.keywords`), so a changed ``maxLength`` is one change
  at ``.../maxLength`` and never a change of every schema above it; a data value (``enum``,
  ``required``, ``type``, ``$ref``) that differs is one replacement of the whole value;
- a keyword respelled (``min_length`` → ``minLength``, ``anyOf`` → ``any_of``) is one rename,
  not a removal and an addition, and its value is compared below the rename;
- ``$ref`` targets are followed by the cause finder itself: a change inside ``$defs`` is on
  the path of every error whose evaluation went through a reference to it.

A **text-only edit** is a difference in an annotation keyword alone (``TEXT_KEYWORDS``:
``description``, ``title``, ``examples``, ``$comment``), its value of the type the meta-schema
asks on both sides (a string; ``examples`` a list): no validator enforces it, so it cannot
change what a call gets. It is counted apart (``Difference.text_edits``), never a change: it
is no cause, no coverage gap and no counterexample's subject. Anything else in the same
schema (a ``title`` that is a number, a property added with its description) is a change.

Whole entries of a map of subschemas (a property added to or removed from ``properties``) are
changes at the entry (``/properties/email``) that belong to the map's keyword: an added
property explains errors below it, and a removed one explains the ``additionalProperties``
error its calls now meet (see ``Change.keyword``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Final

from auditor.models import Change, Edit, ProfileRun, Rule, ToolSchema
from auditor.schema.keywords import draft_of
from auditor.schema.normalize import Normalized
from auditor.schema.sdk_runs import upgrade
from auditor.schema.structure import (
    MAX_SHOWN,
    TEXT_KEYWORDS,
    Difference,
    diff,
    difference,
    same,
    shown,
    text_only,
)

__all__ = [
    "MAX_SHOWN",
    "TEXT_KEYWORDS",
    "Difference",
    "NewCatalogs",
    "compare",
    "diff",
    "difference",
    "removed_tool",
    "same",
    "shown",
    "text_only",
]

_TOOL_REMOVED: Final = "tool removed"


@dataclass(frozen=True)
class NewCatalogs:
    """The catalogs after the change (``--new-schemas``, or ``--schemas`` at ``--against``'s
    revision as the old side), compared with the old catalogs tool by tool, by name."""

    tools: tuple[ToolSchema, ...]
    inputs: tuple[str, ...]
    """The new catalogs as the user named them."""
    rules: frozenset[Rule] = frozenset()
    """Normalization applied to the new schemas: none unless ``--rules`` was given."""
    against: str | None = None
    """The git revision the old catalogs were read at (``--against``), if any."""


def compare(
    old: ToolSchema,
    new: ToolSchema | None,
    rules: Collection[Rule],
    runs: Sequence[ProfileRun] = (),
) -> Normalized:
    """The new side of ``old``: ``new``'s schema (normalized by ``rules``; as written when
    there are none) with the changes from the old one and its count of text-only edits, or
    a schema that refuses every call when the change removed the tool. A profile among
    ``rules`` transforms ``new`` as for a normalization (its SDK where ``runs`` says it is
    installed), and what it refuses is refused (``Normalized.refusal``)."""
    if new is None:
        return Normalized(False, (removed_tool(old.name),), (), draft_of(old.schema))
    try:
        normalized = upgrade(new.schema, rules, runs)
        found = difference(old.schema, normalized.schema)
    except RecursionError:  # too deep to walk: compiling it reports the same depth problem
        return Normalized(new.schema, (), (), draft_of(new.schema))
    return dataclasses.replace(normalized, rewrites=found.changes, text_edits=found.text_edits)


def removed_tool(name: str) -> Change:
    """The one change of a tool the new catalogs no longer define: its whole schema goes."""
    return Change("", name, _TOOL_REMOVED, Rule.EDIT, "", Edit.REMOVE)
