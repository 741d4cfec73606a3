"""What reading one record of a call log finds: the calls it holds and the answers it gives.

Every format's reader (``auditor.inputs.log_formats``, ``auditor.inputs.otel_calls``) yields
these; ``auditor.inputs.reader`` turns them into ``Call`` records.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from auditor.models import JSON, Evidence

At = tuple[str | int, ...]
"""Where a call stands inside its record: keys and indexes from the record's root."""


@dataclass(frozen=True)
class Found:
    """One tool call found in a record, before its arguments are decoded."""

    at: At
    tool: str | None
    arguments: JSON = None
    """The arguments value, or a string holding their JSON text."""
    call_id: str | None = None
    """The provider's id of the call, where a later record may repeat the same call."""
    problem: str | None = None
    """Why no usable call could be taken from this place (no name, no arguments)."""
    answer_key: str | None = None
    """What a later reply to this call names it by (a JSON-RPC id, a tool-call id)."""
    evidence: Evidence | None = None
    """What the record itself says became of the call (an OTel span's status)."""
    caller: str | None = None
    """Who made the call, where this place in the record says (an OTel agent or service)."""


@dataclass(frozen=True)
class Answer:
    """A reply to an earlier call, and what it shows became of that call."""

    key: str
    evidence: Evidence


MAX_CALLER: Final = 200
"""Characters of a caller's name kept: a name, not a payload."""


def caller_name(value: JSON) -> str | None:
    """A caller's name as logged, cut to ``MAX_CALLER``; None for anything but a name."""
    if not isinstance(value, str) or not value.strip():
        return None
    return value if len(value) <= MAX_CALLER else value[: MAX_CALLER - 1] + "…"


def object_items(holder: JSON, key: str) -> Iterator[tuple[int, dict[str, JSON]]]:
    """The object items of the list ``holder[key]``, with their indexes; nothing otherwise:
    how every log format walks a record's lists (messages, choices, parts, candidates)."""
    items = holder.get(key) if isinstance(holder, dict) else None
    if isinstance(items, list):
        for i, item in enumerate(items):
            if isinstance(item, dict):
                yield i, item
