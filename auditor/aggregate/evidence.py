"""What a group's calls sent, against what its keyword allows: the line a reviewer decides on.

"1 call fails maxLength" leaves the decision open; "maxLength 10; sent 12 to 28
characters (median 15)" settles it. The limit is read from the new schema at the group's
keyword; what was sent comes from the group's figures over every call
(``auditor.aggregate.loosen.Witness``) and its counted observations
(``auditor.replay.observed``), which the report's redaction has already applied to.
Lengths, counts and numeric ranges are shape, not content: they are shown under
``--redact`` too.

Markdown, like the hints: data is escaped here, where the wording is made.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Final

from auditor.aggregate.loosen import RANGED, SIZED, Witness
from auditor.aggregate.redact import compact_json
from auditor.models import JSON
from auditor.report.counts import plural
from auditor.report.escape import md_code

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
) -> str:
    """``maxLength `10`; sent 12 to 28 characters (median 15)``; empty without a keyword."""
    if not keyword or keyword == "false":  # a false schema (a removed tool) allows nothing
        return ""
    head = f"{keyword} {md_code(compact_json(limit, MAX_LIMIT))}" if has_limit else keyword
    sent = _sent(keyword, witness, observed)
    return f"{head}; {sent}" if sent else head


def _sent(keyword: str, witness: Witness | None, observed: Counter[str]) -> str:
    if keyword in SIZES and witness is not None and witness.longest is not None:
        shortest, longest = witness.shortest, witness.longest
        unit = SIZES[keyword]
        if shortest == longest:
            return f"sent {plural(longest, unit, _PLURALS[unit])}"
        median = witness.median()
        middle = "" if median is None else f" (median {_number(median)})"
        return f"sent {shortest:,} to {longest:,} {_PLURALS[unit]}{middle}"
    if keyword in RANGED and witness is not None and witness.largest is not None:
        low, high = witness.smallest, witness.largest
        if low is None or low == high:
            return f"sent {_number(high)}"
        return f"sent {_number(low)} to {_number(high)}"
    if keyword in LISTED:
        kind = LISTED[keyword]
        listed = _listed(observed, {kind})
        return f"{LISTED_WORDS[kind]}: {listed}" if listed else ""
    listed = _listed(observed, None)
    return f"sent {listed}" if listed else ""


def _listed(observed: Counter[str], kinds: set[str] | None) -> str:
    """``\\`a\\` (3 calls), \\`b\\` (1 call) and 2 more``, most calls first."""
    entries: list[tuple[str, int]] = []
    for key, calls in observed.items():
        kind, detail, is_value = json.loads(key)
        if kinds is not None and kind not in kinds:
            continue
        if kinds is None:
            shown = kind if detail is None else f"{kind} {md_code(_text(detail, is_value))}"
        else:
            shown = md_code(_text(detail, is_value))
        entries.append((shown, calls))
    entries.sort(key=lambda entry: (-entry[1], entry[0]))
    named = ", ".join(f"{shown} ({plural(n, 'call')})" for shown, n in entries[:MAX_LISTED])
    rest = len(entries) - MAX_LISTED
    return named + (f" and {rest:,} more" if rest > 0 else "")


def _text(detail: JSON, is_value: bool) -> str:
    # A name (a property) shows as itself; a value as JSON, like the examples beside it.
    if not is_value and isinstance(detail, str):
        return detail
    return json.dumps(detail, ensure_ascii=False)


def _number(value: float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
