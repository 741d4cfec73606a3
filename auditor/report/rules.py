"""Every code auditor reports or takes, with what it means: one registry for ``auditor rule``
and the SARIF ``rules[]`` of both ``audit`` and ``lint``.

Three kinds: the outcomes an audit groups calls by (``AUD001``...), the lint findings
(``KW001``..., described in ``auditor.schema.findings``) and the rewrite families ``--rules``
selects (``keyword-case``...). Each has an anchor in docs/rules.md, which ``helpUri`` points
to (the page is generated from this registry, and a test holds them together).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from auditor.models import Outcome, Rule, Severity
from auditor.project import rules_anchor
from auditor.schema.findings import RULES as FINDING_RULES
from auditor.schema.normalize import DEFAULT_RULES
from auditor.schema.profiles import PROFILES, explain


class RuleKind(str, Enum):
    AUDIT = "audit outcome"
    LINT = "lint finding"
    REWRITE = "rewrite family"


@dataclass(frozen=True)
class RuleDoc:
    """One code: ``summary`` is one sentence; ``doc`` says what it means and the fix."""

    code: str
    name: str
    kind: RuleKind
    summary: str
    doc: str
    level: str | None = None
    """SARIF's default level (error, warning, note); None for a rewrite family."""
    profile: Rule | None = None
    """For an upgrade profile, its rule: ``follows`` reads the profile when asked."""

    @property
    def follows(self) -> str:
        """For an upgrade profile: the SDK function it follows and the releases checked."""
        return "" if self.profile is None else explain(PROFILES[self.profile])

    @property
    def anchor(self) -> str:
        """The ``id`` of this rule's row in docs/rules.md."""
        return f"rule-{self.code}" if self.kind is RuleKind.REWRITE else self.code.lower()

    @property
    def help_uri(self) -> str:
        return rules_anchor(self.anchor)

    def title(self) -> str:
        return self.code if self.code == self.name else f"{self.code} ({self.name})"

    def explain(self) -> str:
        """What ``auditor rule CODE`` prints."""
        level = f", {self.level}" if self.level else ""
        follows = f"{self.follows}\n\n" if self.follows else ""
        return (
            f"{self.title()}: {self.kind.value}{level}\n\n{self.summary}\n\n{self.doc}\n\n"
            f"{follows}More: {self.help_uri}\n"
        )

    def sarif(self) -> dict[str, Any]:
        """A SARIF ``reportingDescriptor``."""
        descriptor: dict[str, Any] = {
            "id": self.code,
            "name": self.name,
            "shortDescription": {"text": self.summary},
            "fullDescription": {"text": self.doc},
            "help": {
                "text": f"{self.summary} {self.doc}",
                "markdown": f"**{self.title()}**: {self.summary}\n\n{self.doc}\n\n"
                f"[Documentation]({self.help_uri})",
            },
            "helpUri": self.help_uri,
        }
        if self.level is not None:
            descriptor["defaultConfiguration"] = {"level": self.level}
        return descriptor


AUDIT_RULES: Final[dict[Outcome, RuleDoc]] = {
    Outcome.NEWLY_REJECTED: RuleDoc(
        "AUD001",
        "newly-rejected",
        RuleKind.AUDIT,
        "Logged calls the normalized schema would newly reject.",
        "The old schema, as `--old-runtime` enforced it, accepted these calls and the new one "
        "rejects them: after the upgrade they fail. The group names the failing keyword, its "
        "schema position and the rewrite or edit that causes it. Fix: what the group's hint "
        "says: loosen the new schema (`--suggest-patch` writes a verified loosening), fix the "
        "callers that send such arguments, or accept the group in a `--baseline`.",
        "error",
    ),
    Outcome.SCHEMA_ERROR_AFTER: RuleDoc(
        "AUD002",
        "schema-error-after",
        RuleKind.AUDIT,
        "Logged calls that will fail: the new schema cannot be used.",
        "After the change the schema fails its meta-schema or cannot be evaluated (an "
        "unresolvable `$ref`, an invalid pattern, a call over `--call-timeout`): every such "
        "call will fail, and fails the run by default (`--fail-on newly-rejected`). Fix: the "
        "schema at the position the error names; `auditor lint` finds most causes before any "
        "log exists.",
        "error",
    ),
    Outcome.SCHEMA_ERROR_BEFORE: RuleDoc(
        "AUD003",
        "schema-error-before",
        RuleKind.AUDIT,
        "The schema as written could not be used; what the normalized one makes of the calls.",
        "Nothing validated these calls before the change, so whatever the new schema rejects "
        "was never checked. Fix: check that the normalized schema means what the old one "
        "meant, and the rejected calls against it.",
        "warning",
    ),
    Outcome.NEWLY_ACCEPTED: RuleDoc(
        "AUD004",
        "newly-accepted",
        RuleKind.AUDIT,
        "Logged calls rejected before and accepted after normalization.",
        "The change loosens what the tool accepts: calls that failed before pass now. Usually "
        "intended (a constraint now means what it says); check that the new schema is not "
        "looser than meant. Fails the run only under `--fail-on any-change`.",
        "note",
    ),
}
"""The outcomes an audit reports as groups: its SARIF rules, in this order."""

REMOVED_PROPERTY_RULE: Final = RuleDoc(
    "AUD005",
    "removed-property-sent",
    RuleKind.AUDIT,
    "Logged calls that still send a property the change removed.",
    "The new schema no longer declares the property. Where objects are open it ignores it: "
    "the calls are accepted, and the tool no longer does what they ask (the removal is "
    "harmless to validation, not to the callers). Where objects are closed it refuses it: the "
    "calls are newly rejected, caused by the removal. Fix: move the callers to what replaced "
    "the property, or keep it until they have moved. A note: it fails no run by itself.",
    "note",
)
"""Each removed property logged calls still send (``Report.removed_properties``): a SARIF
rule after the outcomes'."""

_FAMILIES: Final[dict[Rule, tuple[str, str]]] = {
    Rule.KEYWORD_CASE: (
        "snake_case keywords become camelCase, with the local `$ref`s through them.",
        "`min_items` -> `minItems`, `any_of` -> `anyOf`, for the keywords of the schema's "
        "draft. On by default.",
    ),
    Rule.TYPE_CASE: (
        "Type names in the wrong case become lowercase.",
        "`String`, `STRING` -> `string`. On by default.",
    ),
    Rule.TYPE_ALIAS: (
        "Python and Java type names become JSON types.",
        "`str`, `int`, `float`, `bool`, `dict`, `list`, `tuple` -> their JSON types; "
        "`type: any` is removed.",
    ),
    Rule.OPENAPI: (
        "OpenAPI 3.0 spellings become JSON Schema.",
        '`nullable: true` adds `"null"` to `type`; a boolean `exclusiveMinimum` or '
        "`exclusiveMaximum` takes the numeric form.",
    ),
    Rule.GEMINI: (
        "Gemini's spellings become JSON Schema's.",
        "`defs` -> `$defs`, `ref` -> `$ref`, `property_ordering` -> `propertyOrdering`.",
    ),
    Rule.GOOGLE_GENAI: (
        "Upgrade profile: google-genai's tool path, `types.Tool.model_validate` of a dict tool.",
        "Every `types.Schema` field read in snake_case or camelCase at every depth, type names "
        "in any case, `nullable` as a `null` type; a schema with a key it does not know "
        "(`$schema`, `oneOf`, `const`, `$ref`...), an integer enum or a `type` list is refused: "
        "its calls are unusable after the upgrade. See docs/profiles.md.",
    ),
    Rule.GOOGLE_GENAI_RESPONSE_SCHEMA: (
        "Upgrade profile: google-genai's `response_schema` path, `t_schema`.",
        "`process_schema` and `handle_null_fields` (snake spellings renamed where it recurses, "
        "`$defs` inlined, null unions folded into `nullable`), then `types.Schema` as "
        "`google-genai` reads it, refusals included. See docs/profiles.md.",
    ),
    Rule.GOOGLE_GENAI_MCP: (
        "Upgrade profile: google-genai's MCP tools, `mcp_to_gemini_tool`.",
        "Keys that are not `types.JSONSchema` field names are dropped (camelCase `minLength`, "
        "`maxItems`, `const`, `allOf`...: the constraint goes) while snake ones become the "
        "keyword; `$ref` inlined, `additionalProperties` and `oneOf` dropped; an upper-case "
        "type name or `additionalProperties: false` is refused. See docs/profiles.md.",
    ),
    Rule.OPENAI_STRICT: (
        "Upgrade profile: OpenAI strict function calling.",
        "Every object closed (`additionalProperties: false`) and every property required, "
        "as openai-python's `_ensure_strict_json_schema` does to a dict; a subschema that is "
        "not an object is refused.",
    ),
    Rule.OPENAI_AGENTS: (
        "Upgrade profile: the OpenAI Agents SDK's strict function tools.",
        "`ensure_strict_json_schema`: every object closed and every property required, "
        "`oneOf` read as `anyOf`, a one-member `allOf` merged; an object that allows other "
        "properties, or a `$ref` with constraining siblings, is refused. See docs/profiles.md.",
    ),
    Rule.ANTHROPIC_STRICT: (
        "Upgrade profile: the Anthropic SDK's strict schema, `transform_schema`.",
        "The schema rebuilt from what strict mode takes, objects closed; every other "
        "constraint (`minimum`, `maxLength`, `pattern`...) moved into `description`, where "
        "it no longer holds; a schema without a type it knows is refused. See "
        "docs/profiles.md.",
    ),
    Rule.LANGCHAIN_STRICT: (
        "Upgrade profile: LangChain's `convert_to_openai_tool(strict=True)`.",
        "Every property required and `additionalProperties: false` where `required` or "
        "`additionalProperties` stands, through `anyOf`, `allOf`, `properties`, `items` and "
        "`$defs`. See docs/profiles.md.",
    ),
    Rule.LITELLM_GEMINI: (
        "Upgrade profile: litellm's Gemini and Vertex AI tools, `_build_vertex_schema`.",
        "`$defs` inlined, then only the keys of litellm's Vertex `Schema` kept (snake "
        "spellings, `additionalProperties`, `allOf`, `const`... dropped), null unions read "
        "as `nullable`, non-string enums removed, untyped schemas made objects. See "
        "docs/profiles.md.",
    ),
    Rule.PYDANTIC_AI_GOOGLE: (
        "Upgrade profile: pydantic-ai's Gemini tools, `GoogleJsonSchemaTransformer`.",
        "`title`, `examples`, `exclusiveMinimum`/`exclusiveMaximum` removed, `const` read as a "
        "one-value `enum`, a string's `format` moved into `description`, one-member unions "
        "merged; a malformed schema is refused. See docs/profiles.md.",
    ),
    Rule.CLOSE_OBJECTS: (
        "Upgrade profile: `additionalProperties: false` on every object schema with `properties`.",
        "The 'close all schemas' upgrade; an object that already says what other properties "
        "may be is left alone.",
    ),
    Rule.EDIT: (
        "Not a family: a change between two catalogs.",
        "The cause of a group when `--new-schemas` or `--against` names the new catalogs: "
        "the keyword that differs between them.",
    ),
    Rule.RUNTIME: (
        "Not a family: a keyword the old and the new runtime evaluate differently.",
        "The cause of a group when `--new-runtime`, an SDK `--old-runtime`, "
        "`--assert-formats` or `--default-dialect` change how a schema is read: a `format` "
        "now asserted, a keyword of the draft the new runtime reads the schema as. See "
        "docs/runtimes.md.",
    ),
}

REWRITE_RULES: Final[dict[Rule, RuleDoc]] = {
    rule: RuleDoc(
        rule.value,
        rule.value,
        RuleKind.REWRITE,
        summary,
        doc,
        profile=rule if rule in PROFILES else None,
    )
    for rule, (summary, doc) in _FAMILIES.items()
}
"""The rewrite families; a profile's says the SDK function it follows and the releases."""

LINT_RULES: Final[dict[str, RuleDoc]] = {
    code: RuleDoc(
        code,
        rule.name,
        RuleKind.LINT,
        rule.summary,
        rule.doc,
        "error" if rule.severity is Severity.ERROR else "warning",
    )
    for code, rule in sorted(FINDING_RULES.items())
}
"""The lint findings, sorted by code: the SARIF rules of ``auditor lint``."""

FIXED_BY: Final[dict[str, Rule]] = {
    "KW001": Rule.KEYWORD_CASE,
    "TY001": Rule.TYPE_CASE,
    "OA001": Rule.OPENAPI,
    "OA002": Rule.OPENAPI,
    "GM001": Rule.GEMINI,
}
"""The lint findings a rewrite family rewrites away, every time (``type-alias`` fixes only
some TY002 findings: it is not here)."""


def fixable(code: str, rules: frozenset[Rule] = DEFAULT_RULES) -> bool:
    """Whether ``auditor normalize --write`` with ``rules`` fixes a finding with ``code``."""
    return FIXED_BY.get(code) in rules


ALL_RULES: Final[tuple[RuleDoc, ...]] = (
    *AUDIT_RULES.values(),
    REMOVED_PROPERTY_RULE,
    *LINT_RULES.values(),
    *REWRITE_RULES.values(),
)


def find_rule(code: str) -> RuleDoc | None:
    """The rule a user names: by code or name, any case, ``-`` or ``_`` (``kw001``,
    ``snake-case-keyword``, ``newly_rejected``, ``keyword-case``)."""
    wanted = code.strip().lower().replace("_", "-")
    return next(
        (rule for rule in ALL_RULES if wanted in (rule.code.lower(), rule.name.lower())), None
    )
