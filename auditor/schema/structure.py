"""The structural difference between two schemas: one change per JSON pointer, walked by
keyword position (the rules are in :mod:`auditor.schema.diff`, which records it as the changes
of one catalog into another). A module of its own so that the normalizer, whose profile
models' rewrites are such a difference, and ``diff``, which normalizes the new side, do not
import each other."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from auditor import pointers
from auditor.models import JSON, Change, Edit, Rule
from auditor.schema.keywords import ANY_DRAFT_SNAKE, VOCABULARY, Draft, Kind, draft_of

MAX_SHOWN: Final = 200
"""Characters of a value a change shows before and after (a whole added subschema can be long)."""

TEXT_KEYWORDS: Final[dict[str, type]] = {
    "description": str,
    "title": str,
    "$comment": str,
    "examples": list,
}
"""Annotation keywords no validator enforces, with the type of value the meta-schemas ask."""


@dataclass(frozen=True)
class Difference:
    """What differs between two schemas: the changes, and the text-only edits beside them."""

    changes: tuple[Change, ...]
    """In the order of the new schema's keys."""
    text_edits: int = 0


def difference(old: JSON, new: JSON) -> Difference:
    """The changes from ``old`` to ``new``, and how many text-only edits were set aside."""
    walk = _Diff(draft_of(old), draft_of(new))
    changes = tuple(walk.schema(old, new, "", ""))
    return Difference(changes, walk.text_edits)


def diff(old: JSON, new: JSON) -> tuple[Change, ...]:
    """Every change from ``old`` to ``new`` (text-only edits left out), in the order of the
    new schema's keys."""
    return difference(old, new).changes


def text_only(key: str, *values: JSON) -> bool:
    """Whether a keyword ``key`` holding ``values`` (one side's, or both sides') is an
    annotation no validator enforces: a ``TEXT_KEYWORDS`` member whose every value has the
    type the meta-schemas ask."""
    wanted = TEXT_KEYWORDS.get(key)
    return wanted is not None and all(isinstance(value, wanted) for value in values)


def same(a: JSON, b: JSON) -> bool:
    """JSON equality: ``true`` is not ``1``, and ``1`` is ``1.0`` (as JSON Schema compares)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def shown(value: JSON) -> str:
    """A value as compact JSON text, cut to ``MAX_SHOWN`` characters."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _spelling(key: str) -> str:
    """What a key spells whatever its case: ``min_length``, ``MinLength`` -> ``minlength``."""
    return ANY_DRAFT_SNAKE.get(key, key).replace("_", "").lower()


class _Diff:
    def __init__(self, old_draft: Draft, new_draft: Draft) -> None:
        self._old = VOCABULARY[old_draft]
        self._new = VOCABULARY[new_draft]
        self.text_edits = 0
        """Text-only edits met so far (``text_only``): counted, never yielded."""

    def _kind(self, old_key: str, new_key: str) -> Kind:
        return self._new.get(new_key) or self._old.get(old_key) or Kind.DATA

    def schema(self, old: JSON, new: JSON, at_old: str, at_new: str) -> Iterator[Change]:
        if not (isinstance(old, dict) and isinstance(new, dict)):
            if not same(old, new):  # a boolean schema, or junk the meta-schema check names
                yield _replace(at_old, at_new, old, new)
            return
        renamed = _renames(old, new)
        for key, value in new.items():
            old_key = key if key in old else renamed.get(key)
            there_old, there_new = pointers.join(at_old, old_key or key), pointers.join(at_new, key)
            if old_key is None:
                if text_only(key, value):
                    self.text_edits += 1
                    continue
                yield Change(there_old, "", shown(value), Rule.EDIT, there_new, Edit.ADD)
                continue
            if old_key == key and text_only(key, old[key], value):
                if not same(old[key], value):
                    self.text_edits += 1
                continue
            if old_key != key:
                yield Change(there_old, old_key, key, Rule.EDIT, there_new, Edit.RENAME)
            kind = self._kind(old_key, key)
            yield from self.value(kind, old[old_key], value, there_old, there_new)
        kept = set(new) | set(renamed.values())
        for key, value in old.items():
            if key not in kept and text_only(key, value):
                self.text_edits += 1
            elif key not in kept:
                there = pointers.join(at_old, key)
                yield Change(
                    there, shown(value), "", Rule.EDIT, pointers.join(at_new, key), Edit.REMOVE
                )

    def value(self, kind: Kind, old: JSON, new: JSON, at_old: str, at_new: str) -> Iterator[Change]:
        if same(old, new):
            return
        if kind is Kind.SCHEMA:
            yield from self.schema(old, new, at_old, at_new)
        elif kind in (Kind.SCHEMA_LIST, Kind.SCHEMA_OR_LIST) and isinstance(old, list):
            if isinstance(new, list) and len(old) == len(new):
                for i, (a, b) in enumerate(zip(old, new, strict=True)):
                    yield from self.schema(a, b, pointers.join(at_old, i), pointers.join(at_new, i))
            else:  # branches added or removed: which is which cannot be told by position
                yield _replace(at_old, at_new, old, new)
        elif kind is Kind.SCHEMA_OR_LIST and not isinstance(new, list):
            yield from self.schema(old, new, at_old, at_new)
        elif (
            kind in (Kind.SCHEMA_MAP, Kind.DEPENDENCIES)
            and isinstance(old, dict)
            and isinstance(new, dict)
        ):
            yield from self._entries(kind, old, new, at_old, at_new)
        else:
            yield _replace(at_old, at_new, old, new)

    def _entries(
        self, kind: Kind, old: dict[str, JSON], new: dict[str, JSON], at_old: str, at_new: str
    ) -> Iterator[Change]:
        """Entries of ``properties``, ``$defs`` and the like: names are data, never renamed."""
        keyword = pointers.split(at_new)[-1] if at_new else ""
        for name, value in new.items():
            there_old, there_new = pointers.join(at_old, name), pointers.join(at_new, name)
            if name not in old:
                yield Change(there_old, "", shown(value), Rule.EDIT, there_new, Edit.ADD, keyword)
            elif kind is Kind.DEPENDENCIES and not (
                isinstance(old[name], dict) and isinstance(value, dict)
            ):
                if not same(old[name], value):  # a list of property names: data
                    yield _replace(there_old, there_new, old[name], value)
            else:
                yield from self.schema(old[name], value, there_old, there_new)
        for name, value in old.items():
            if name not in new:
                there_old, there_new = pointers.join(at_old, name), pointers.join(at_new, name)
                yield Change(
                    there_old, shown(value), "", Rule.EDIT, there_new, Edit.REMOVE, keyword
                )


def _replace(at_old: str, at_new: str, old: JSON, new: JSON) -> Change:
    return Change(at_old, shown(old), shown(new), Rule.EDIT, at_new, Edit.REPLACE)


def _renames(old: dict[str, JSON], new: dict[str, JSON]) -> dict[str, str]:
    """New key -> the old key it respells, among keys only one side has: pairs that spell
    the same keyword, when exactly one key on each side does."""
    gone: dict[str, list[str]] = {}
    for key in old:
        if key not in new:
            gone.setdefault(_spelling(key), []).append(key)
    came: dict[str, list[str]] = {}
    for key in new:
        if key not in old:
            came.setdefault(_spelling(key), []).append(key)
    return {
        keys[0]: gone[spelling][0]
        for spelling, keys in came.items()
        if len(keys) == 1 and len(gone.get(spelling, ())) == 1
    }
