"""The registry of finding codes: each rule's code, name, severity and what it means."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from auditor.models import Finding, Severity


@dataclass(frozen=True)
class FindingRule:
    """A kind of finding. The docstring-like ``doc`` names the anti-pattern and the fix."""

    code: str
    name: str
    severity: Severity
    doc: str

    def finding(self, pointer: str, message: str, fix: str | None = None) -> Finding:
        return Finding(self.code, self.name, self.severity, pointer, message, fix)


BOTH_SPELLINGS: Final = FindingRule(
    "KW002",
    "both-spellings",
    Severity.ERROR,
    "A keyword appears in snake_case and camelCase in one schema object (`any_of` beside "
    "`anyOf`). Only the camelCase one is evaluated and renaming would overwrite it. Fix: merge "
    "the two by hand and keep one spelling.",
)

UNKNOWN_TYPE: Final = FindingRule(
    "TY002",
    "unknown-type",
    Severity.ERROR,
    "A `type` names something that is not one of the seven JSON types and not a case variant "
    "of one (`dict`, `float`, `List[int]`). The schema fails its meta-schema. Fix: use the "
    "JSON type it means (`object`, `number`, `array`).",
)

RULES: Final[dict[str, FindingRule]] = {rule.code: rule for rule in (BOTH_SPELLINGS, UNKNOWN_TYPE)}
