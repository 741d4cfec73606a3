"""What a group's calls sent, against what its keyword allows: the line a reviewer decides on.

"1 call fails maxLength" leaves the decision open; "maxLength 10; sent 12 to 28
characters (median 15)" settles it. The limit is read from the new schema at the group's
keyword; what was sent comes from the group's figures over every call
(``auditor.aggregate.loosen.Witness``) and its counted observations
(``auditor.replay.observed``), which the report's redaction has already applied to.
Lengths, counts and numeric ranges are shape, not content: they are shown under
``--redact`` too.

``Prose``, like the hints: the limit and the values sent are pieces of their own, which each
renderer writes for its format (``auditor.report.prose``).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Final

from auditor.aggregate.loosen import RANGED, SIZED, Witness
from auditor.json_text import compact_json
from auditor.models import JSON, Prose, Span, SpanKind
from auditor.words import plural

_UNITS: Final[dict[type, str]] = {str: "character", list: "item", dict: "property"}
SIZES: Final[dict[str, str]] = {keyword: _UNITS[kind] for keyword, kind in SIZED.items()}
"""Length limits, and what their lengths count (one of it: ``plural`` says how many)."""
_PLURALS: Final = {"character": "characters", "item": "items", "property": "properties"}
LISTED: Final[dict[str, str]] = {
    "additionalProperties": "extra property",
    "unevaluatedProperties": "extra property",
    "required": "missing property",
    "dependentRequired": "missing property",
    "enum": "a value outside the enum",
    "const": "a value other than const",
    "uniqueItems": "duplicate item",
    "anyOf": "nearest branch",
    "oneOf": "nearest branch",
}
"""Keywords whose evidence lists the observations of one kind, with their calls."""
LISTED_WORDS: Final[dict[str, str]] = {
    "extra property": "extra properties",
    "missing property": "missing",
    "a value outside the enum": "sent outside it",
    "a value other than const": "sent instead",
    "duplicate item": "duplicates",
    "nearest branch": "nearest",
}
MAX_LISTED: Final = 5
"""Observations a line names; the rest are counted."""
MAX_LIMIT: Final = 60
"""Characters of the limit shown (an enum can be long)."""


def evidence_line(
    keyword: str,
    limit: JSON,
    has_limit: bool,
    witness: Witness | None,
    observed: Counter[str],
) -> Prose:
    """``maxLength `10`; sent 12 to 28 characters (median 15)`` (the limit as code); empty
    without a keyword."""
    if not keyword or keyword == "false":  # a false schema (a removed tool) allows nothing
        return Prose()
    limit_text = Span.code(compact_json(limit, MAX_LIMIT))
    head = Prose.of(keyword, " ", limit_text) if has_limit else Prose.of(keyword)
    sent = _sent(keyword, witness, observed)
    return Prose.of(head, "; ", sent) if sent else head


def _sent(keyword: str, witness: Witness | None, observed: Counter[str]) -> Prose:
    if keyword in SIZES and witness is not None and witness.longest is not None:
        shortest, longest = witness.shortest, witness.longest
        unit = SIZES[keyword]
        if shortest == longest:
            return Prose.of(f"sent {plural(longest, unit, _PLURALS[unit])}")
        median = witness.median()
        middle = "" if median is None else f" (median {_number(median)})"
        return Prose.of(f"sent {shortest:,} to {longest:,} {_PLURALS[unit]}{middle}")
    if keyword in RANGED and witness is not None and witness.largest is not None:
        low, high = witness.smallest, witness.largest
        if low is None or low == high:
            return Prose.of(f"sent {_number(high)}")
        return Prose.of(f"sent {_number(low)} to {_number(high)}")
    if keyword in LISTED:
        kind = LISTED[keyword]
        listed = _listed(observed, {kind})
        return Prose.of(f"{LISTED_WORDS[kind]}: ", listed) if listed else Prose()
    listed = _listed(observed, None)
    return Prose.of("sent ", listed) if listed else Prose()


def _listed(observed: Counter[str], kinds: set[str] | None) -> Prose:
    """``\\`a\\` (3 calls), \\`b\\` (1 call) and 2 more``, most calls first (ties in
    ``_tie_order``)."""
    entries: list[tuple[str, Prose, int]] = []
    for key, calls in observed.items():
        kind, detail, is_value = json.loads(key)
        if kinds is not None and kind not in kinds:
            continue
        value = Span.code(_text(detail, is_value))
        if kinds is None:
            shown = Prose.of(kind) if detail is None else Prose.of(f"{kind} ", value)
        else:
            shown = Prose.of(value)
        entries.append((_tie_order(shown), shown, calls))
    entries.sort(key=lambda entry: (-entry[2], entry[0]))
    named: list[str | Prose] = []
    for index, (_, shown, n) in enumerate(entries[:MAX_LISTED]):
        named += [", " if index else "", shown, f" ({plural(n, 'call')})"]
    rest = len(entries) - MAX_LISTED
    return Prose.of(*named, f" and {rest:,} more" if rest > 0 else "")


def _tie_order(shown: Prose) -> str:
    """The order of entries with as many calls: their text with each value between
    backticks, as the line reads in Markdown (so `a_b` before `a`, and `12` before `1`, as
    the reports always listed them; values holding backticks or control characters aside)."""
    return "".join(
        f"`{span.text}`" if span.kind is SpanKind.CODE else span.text for span in shown.spans
    )


def _text(detail: JSON, is_value: bool) -> str:
    # A name (a property) shows as itself; a value as JSON, like the examples beside it.
    if not is_value and isinstance(detail, str):
        return detail
    return json.dumps(detail, ensure_ascii=False)


def _number(value: float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
