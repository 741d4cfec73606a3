"""The registry of finding rules: each rule's code, name, severity, and what it means.

The same metadata feeds lint output, SARIF ``rules[]`` and the documentation, so a rule is
described once, here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from auditor.models import Finding, Severity


@dataclass(frozen=True)
class FindingRule:
    """A kind of finding. ``doc`` names the anti-pattern and the fix."""

    code: str
    name: str
    severity: Severity
    summary: str
    doc: str

    def finding(self, pointer: str, message: str, fix: str | None = None) -> Finding:
        return Finding(self.code, self.name, self.severity, pointer, message, fix)


SNAKE_CASE_KEYWORD: Final = FindingRule(
    "KW001",
    "snake-case-keyword",
    Severity.ERROR,
    "A keyword spelled in snake_case is ignored.",
    "`min_items: 1` is not a JSON Schema keyword, so the constraint never runs; once a "
    "framework normalizes it to `minItems`, it does. Fix: spell it in camelCase "
    "(`auditor normalize --write`), after checking with `auditor audit` what it will reject.",
)
BOTH_SPELLINGS: Final = FindingRule(
    "KW002",
    "both-spellings",
    Severity.ERROR,
    "A keyword appears in snake_case and camelCase in one schema object.",
    "`any_of` beside `anyOf`: only `anyOf` is evaluated, and renaming would overwrite it. "
    "Fix: merge the two by hand and keep one spelling.",
)
UNKNOWN_KEYWORD: Final = FindingRule(
    "KW003",
    "unknown-keyword",
    Severity.WARNING,
    "A key that is not a JSON Schema keyword is ignored.",
    "`minimun: 1` or `maxlength: 10` are ignored without a word. Fix: the keyword it was "
    "meant to be (suggested where one is close), an `x-` prefix for an intended extension, "
    "or removal.",
)
KEYWORD_NOT_IN_DRAFT: Final = FindingRule(
    "KW004",
    "keyword-not-in-draft",
    Severity.WARNING,
    "A keyword of another draft is ignored in this one.",
    "`prefixItems` in a draft-07 schema, `dependencies` in a 2020-12 schema: the schema's "
    "`$schema` decides the vocabulary. Fix: use the keyword of the schema's draft, or change "
    "`$schema`.",
)
TUPLE_ITEMS: Final = FindingRule(
    "KW005",
    "tuple-items",
    Severity.ERROR,
    "`items` as a list is the draft-4 tuple form; 2020-12 rejects it.",
    "In 2020-12 `items` takes one schema and the tuple form is `prefixItems`. Fix: rename "
    "`items: [...]` to `prefixItems: [...]` (and `additionalItems` to `items`).",
)
TYPE_CASE: Final = FindingRule(
    "TY001",
    "type-case",
    Severity.ERROR,
    "A type name in the wrong case makes the schema fail its meta-schema.",
    "`type: String` is not a JSON type; validators refuse the schema or raise on it. Fix: "
    "the lowercase name (`auditor normalize --write`).",
)
UNKNOWN_TYPE: Final = FindingRule(
    "TY002",
    "unknown-type",
    Severity.ERROR,
    "A type name that is not a JSON type makes the schema fail its meta-schema.",
    "`dict`, `float`, `List[int]` are programming-language types, not JSON types. Fix: the "
    "JSON type it means (`object`, `number`, `array`); `--rules type-alias` rewrites the "
    "plain Python and Java names.",
)
ADDITIONAL_ITEMS_WITHOUT_TUPLE: Final = FindingRule(
    "NE001",
    "additional-items-without-tuple",
    Severity.WARNING,
    "`additionalItems` does nothing unless `items` is a list.",
    "`additionalItems` only constrains the elements after a tuple `items: [...]`. Fix: put the "
    "constraint in `items`, or remove it.",
)
KEYWORD_FOR_OTHER_TYPE: Final = FindingRule(
    "NE002",
    "keyword-for-other-type",
    Severity.WARNING,
    "A keyword for another type never applies to the declared type.",
    "`minimum` on `type: string` or `minLength` on `type: integer` constrain nothing. Fix: "
    "the keyword for the declared type (`minLength`, `minimum`), or fix `type`.",
)
REF_SIBLINGS_IGNORED: Final = FindingRule(
    "NE003",
    "ref-siblings-ignored",
    Severity.WARNING,
    "Before 2019-09, keywords beside `$ref` are ignored.",
    "In drafts 4, 6 and 7 an object with `$ref` is replaced by its target. Fix: wrap both in "
    "`allOf: [{$ref: ...}, {...}]`, or move to 2020-12.",
)
OPENAPI_NULLABLE: Final = FindingRule(
    "OA001",
    "openapi-nullable",
    Severity.WARNING,
    "`nullable` is OpenAPI 3.0, not JSON Schema.",
    "`nullable: true` is ignored by JSON Schema, so `null` is rejected by `type`. Fix: add "
    '`"null"` to `type` (`--rules openapi`).',
)
BOOLEAN_EXCLUSIVE_BOUND: Final = FindingRule(
    "OA002",
    "boolean-exclusive-bound",
    Severity.ERROR,
    "Boolean `exclusiveMinimum`/`exclusiveMaximum` is draft-4 only.",
    "Since draft 6 the exclusive bounds are numbers; `exclusiveMinimum: true` fails the "
    "meta-schema. Fix: `exclusiveMinimum: <the minimum>` (`--rules openapi`).",
)
GEMINI_KEYWORD: Final = FindingRule(
    "GM001",
    "gemini-keyword",
    Severity.WARNING,
    "`defs` and `ref` without `$` are Gemini's spelling.",
    "JSON Schema's are `$defs` and `$ref`; without the `$` the reference is never followed. "
    "Fix: `--rules gemini`.",
)

RULES: Final[dict[str, FindingRule]] = {
    rule.code: rule
    for rule in (
        SNAKE_CASE_KEYWORD,
        BOTH_SPELLINGS,
        UNKNOWN_KEYWORD,
        KEYWORD_NOT_IN_DRAFT,
        TUPLE_ITEMS,
        TYPE_CASE,
        UNKNOWN_TYPE,
        ADDITIONAL_ITEMS_WITHOUT_TUPLE,
        KEYWORD_FOR_OTHER_TYPE,
        REF_SIBLINGS_IGNORED,
        OPENAPI_NULLABLE,
        BOOLEAN_EXCLUSIVE_BOUND,
        GEMINI_KEYWORD,
    )
}
