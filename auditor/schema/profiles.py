"""Upgrade profiles: what a real SDK or upgrade does to a tool's schema at request time.

A profile is a rule family (``--rules google-genai``) whose rewrites reproduce a transform
someone else's code performs, so the audit answers "which of our logged calls does this SDK
upgrade reject, and which step of it is the cause". Each profile names the SDK function it
follows (``follows``: package, module, callable, and the releases it was checked against),
lists its steps, and says what its built-in model does not reproduce. Two kinds of model:

- a function of the whole schema (:mod:`auditor.schema.profile_models`), written from the
  SDK function step by step, its rewrites the structural difference between the schema it
  was given and the one it produced, and its refusals those of the SDK (``Normalized.refusal``):
  ``google-genai`` (the tool path, ``types.Tool.model_validate``),
  ``google-genai-response-schema`` (``t_schema``: ``process_schema``, then ``types.Schema``)
  and ``google-genai-mcp`` (``_mcp_utils.mcp_to_gemini_tool``, an MCP tool's schema);
- steps on the walk of :mod:`auditor.schema.normalize`, where a profile's transform reaches
  only some keywords: ``openai-strict`` (``_ensure_strict_json_schema`` of the openai release
  named) and ``close-objects`` (no SDK: the common "close all schemas" upgrade).

The steps are written from the installed wheels named in ``follows``, not guessed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Final

from auditor.models import JSON, Prose, Rule, Span, ToolSchema


@dataclass(frozen=True)
class SdkFunction:
    """The installable code a profile follows: where an audit can run it instead of the model.

    ``versions`` is a PEP 440 specifier of the releases the model was checked against (by the
    differential test); ``call`` is the dotted path of the callable inside ``module``.
    """

    package: str
    module: str
    call: str
    versions: str


@dataclass(frozen=True)
class Profile:
    """One upgrade profile: its rule family, what it follows, and what it does."""

    rule: Rule
    source: str
    version: str
    steps: tuple[str, ...]
    not_reproduced: tuple[str, ...]
    follows: SdkFunction | None = None
    """The SDK function the steps model, when there is one to run (``close-objects``: none)."""


GENAI_VERSIONS: Final = ">=2.34.0,<3.7"
"""The google-genai releases the google-genai models were written from (2.34.0) and checked
against by the differential corpus (2.34.0 and 3.6.1: no difference on either)."""

PROFILES: Final[dict[Rule, Profile]] = {
    Rule.GOOGLE_GENAI: Profile(
        Rule.GOOGLE_GENAI,
        "googleapis/python-genai google/genai/_transformers.py t_tool: a dict tool is "
        "types.Tool.model_validate, its parameters a types.Schema (google/genai/types.py)",
        "google-genai 2.34.0 and 3.6.1",
        (
            "every field of `types.Schema` is read under its snake_case name or its camelCase "
            "alias at every depth its fields reach (`min_items`, `max_length`, `any_of`, "
            "`additional_properties`, `property_ordering`...), and stands as the JSON Schema "
            "keyword in the new schema; `defs` and `ref` become `$defs` and `$ref`",
            "type names in any case (`String`, `STRING`) become the JSON type; "
            "`TYPE_UNSPECIFIED` removes `type`",
            '`nullable: true` becomes `"null"` in `type` (a bare `nullable` becomes `type: '
            '"null"`, as `Schema.json_schema` writes it); `nullable: false` is removed',
            'numbers and booleans read in pydantic\'s lax mode (`max_length: "5"` is 5)',
            "REFUSED (every call `schema_error_after`, with pydantic's reason): a key "
            "`types.Schema` does not know (`$schema`, `$ref`, `$defs`, `oneOf`, `allOf`, "
            "`not`, `const`, `uniqueItems`, `prefixItems`, `exclusiveMinimum`, `examples`...), "
            "an `enum` or `required` member that is not a string, a `type` list, a subschema "
            "that is not an object (`items: [...]`, `properties: {a: true}`), a snake_case "
            "field beside its camelCase alias (pydantic reads the alias: the other is extra)",
        ),
        (
            "`additional_properties` is `Any` in `types.Schema`: its value is sent as written, "
            "never validated nor converted (the model leaves it alone too)",
            "pydantic reports every error, the model the first in the order written",
            "an unknown type name (`any`) is kept with a warning by the SDK and by the model; "
            "what the API then does is not modelled",
        ),
        SdkFunction("google-genai", "google.genai.types", "Tool.model_validate", GENAI_VERSIONS),
    ),
    Rule.GOOGLE_GENAI_RESPONSE_SCHEMA: Profile(
        Rule.GOOGLE_GENAI_RESPONSE_SCHEMA,
        "googleapis/python-genai google/genai/_transformers.py t_schema "
        "(process_schema, handle_null_fields, then types.Schema.model_validate)",
        "google-genai 2.34.0 and 3.6.1",
        (
            "process_schema renames `additional_properties`, `any_of`, `prefix_items`, "
            "`property_ordering` to camelCase where it recurses (the root, its `$defs`, "
            "`anyOf` members, `properties`/`additionalProperties` of a `type` OBJECT, "
            "`items`/`prefixItems` of a `type` ARRAY, any case, without `anyOf`)",
            "the root's `$defs` are removed and every `$ref` process_schema meets is inlined "
            "(a `$ref` it does not meet, below `allOf` say, is then refused by types.Schema)",
            "handle_null_fields: `type: null` becomes `nullable: true`, and an `anyOf` member "
            '`{"type": "null"}` is removed into `nullable: true` (a single member left is '
            "merged into its parent)",
            "`const` of a `type` STRING becomes `enum: [const]`; `property_ordering` is added "
            "to objects of more than one property",
            "then every step of `google-genai` (types.Schema), refusals included",
        ),
        (
            "the Gemini Developer API check of `additionalProperties` (the client is not "
            "known: modelled as Vertex AI, where it is accepted)",
            "a `const` that is not a string outside a `type` STRING: refused by both",
        ),
        SdkFunction("google-genai", "google.genai._transformers", "t_schema", GENAI_VERSIONS),
    ),
    Rule.GOOGLE_GENAI_MCP: Profile(
        Rule.GOOGLE_GENAI_MCP,
        "googleapis/python-genai google/genai/_mcp_utils.py mcp_to_gemini_tool "
        "(_filter_to_supported_schema, types.JSONSchema, types.Schema.from_json_schema)",
        "google-genai 2.34.0",
        (
            "every key that is not a `types.JSONSchema` field name (snake_case: `min_length`, "
            "`max_items`, `any_of`...) nor `additionalProperties`, `anyOf`, `oneOf`, `$defs`, "
            "`$ref` is DROPPED at every depth: a camelCase `minLength`, `maxItems`, "
            "`exclusiveMinimum`, `multipleOf`, `uniqueItems`, `prefixItems`, `const`, `allOf`, "
            "`not`, `nullable` no longer constrains, while its snake spelling becomes the "
            "JSON Schema keyword (this profile loosens)",
            "`$ref` inlined from the root's `$defs` (its siblings dropped, a recursive one "
            "left empty); `additionalProperties`, `oneOf` and `unique_items` dropped after "
            "the filter; a `type` list of two types or more split into `anyOf` by type",
            '`"null"` in `type` read as `nullable`; an `anyOf` of a schema and a null is '
            "that schema, nullable",
            "REFUSED: a type name that is not lower-case JSON Schema (`STRING`, `String`), "
            "a boolean or a list where the filter expects a schema (`additionalProperties: "
            "false`, `items: [...]`), a `$ref` to what the filter dropped "
            "(`#/definitions/...`), a string field that is not a string",
        ),
        (
            "pydantic reports every error, the model the first in the order written",
            "the tool's name and description: the model takes the `inputSchema` itself",
        ),
        SdkFunction(
            "google-genai", "google.genai._mcp_utils", "mcp_to_gemini_tool", GENAI_VERSIONS
        ),
    ),
    Rule.OPENAI_STRICT: Profile(
        Rule.OPENAI_STRICT,
        "openai/openai-python src/openai/lib/_pydantic.py (_ensure_strict_json_schema); "
        "OpenAI Structured Outputs: supported schemas",
        "openai 3.57.0",
        (
            "`additionalProperties: false` added to every schema whose `type` is the string "
            "`object` and that has no `additionalProperties` (spelled so: a snake_case "
            "`additional_properties` is not one)",
            "`required` set to every name in `properties`, in their order (an empty "
            "`properties` gets `required: []`): an optional property becomes required, as the "
            "function does to a dict (a pydantic `Optional` already reads `anyOf: [..., "
            '{"type": "null"}]`; a hand-written catalog keeps a field optional that way)',
            "`default: null` removed",
            "only where the SDK recurses: `$defs`, `definitions`, `properties`, `items` "
            "(one schema), `anyOf`, `allOf` (no release recurses into `prefixItems`)",
            "REFUSED: a subschema where it recurses that is not an object (`properties: {a: "
            "true}`), with the SDK's TypeError",
        ),
        (
            "a one-member `allOf` merged into its parent, and a `$ref` with siblings inlined: "
            "both keep what the schema accepts, except where a sibling overrides a keyword of "
            "the target; the SDK refuses such a `$ref` whose pointer passes through a list "
            "(`#/$defs/a/anyOf/0`) or a key not there, the model keeps it",
            "the SDK applies the function to pydantic models only, never to a dict tool: the "
            "API judges strict mode, and its own refusals of keywords it does not support "
            "are not modelled",
        ),
        SdkFunction("openai", "openai.lib._pydantic", "_ensure_strict_json_schema", "==3.57.0"),
    ),
    Rule.OPENAI_AGENTS: Profile(
        Rule.OPENAI_AGENTS,
        "openai/openai-agents-python src/agents/strict_schema.py (ensure_strict_json_schema), "
        "which a FunctionTool with strict_json_schema=True applies to its params",
        "openai-agents 0.24.0",
        (
            "every object (`type` object, a `type` list with object, or `properties` without "
            "`type`, which gets `type: object`) gets `additionalProperties: false`; one that "
            "allows other properties (`additionalProperties` true or a schema) is REFUSED",
            "`required` set to every name in `properties`, in their order",
            "`oneOf` becomes `anyOf` (appended to an existing one); a one-member `allOf` is "
            "merged into its parent (REFUSED where a parent keyword conflicts)",
            "a `$ref` with siblings other than annotations is REFUSED; one with annotation "
            "siblings is inlined; `default: null` removed",
            "it recurses into `$defs`, `definitions`, `properties`, `items` (one schema), "
            "`anyOf`, `oneOf`, `allOf`; a root `anyOf` or a nullable root object is REFUSED",
        ),
        (
            "the SDK's node budget and depth limit are reproduced; its `UserError` class is "
            "not (the reason is its message)",
        ),
        SdkFunction(
            "openai-agents", "agents.strict_schema", "ensure_strict_json_schema", ">=0.24.0,<0.25"
        ),
    ),
    Rule.ANTHROPIC_STRICT: Profile(
        Rule.ANTHROPIC_STRICT,
        "anthropics/anthropic-sdk-python src/anthropic/lib/_parse/_transform.py (transform_schema)",
        "anthropic 2.15.0",
        (
            "the schema is rebuilt from what strict mode takes: `$defs`, `$ref` (alone), "
            "`type`, `enum`/`const` of primitives (which drop `type`), `anyOf` (`oneOf` "
            "becomes `anyOf`), `allOf`, `description`, `title`; for an object `properties`, "
            "`required` and `additionalProperties: false` (always); for a string a "
            "supported `format`; for an array `items` and a `minItems` of 0 or 1",
            "every other keyword (`minimum`, `maxLength`, `pattern`, `minItems: 2`, "
            "`format: text`...) is written into `description` as `{key: value}`: it no "
            "longer constrains (this profile loosens as well as tightens)",
            "REFUSED: a schema with none of `type`, `anyOf`, `oneOf`, `allOf`, `const`, a "
            "non-empty primitive `enum` (\"Schema must have a 'type'...\"), and a `type` "
            "that is not one of the seven names (a list, `String`)",
        ),
        ("the description text is Python's `str` of each value, as the SDK writes it",),
        SdkFunction(
            "anthropic", "anthropic.lib._parse._transform", "transform_schema", ">=2.15.0,<2.16"
        ),
    ),
    Rule.LANGCHAIN_STRICT: Profile(
        Rule.LANGCHAIN_STRICT,
        "langchain-ai/langchain libs/core/langchain_core/utils/function_calling.py "
        "(convert_to_openai_tool(strict=True) -> _recursive_set_additional_properties_false)",
        "langchain-core 1.8.3",
        (
            "`required` set to every name of a non-empty `properties`",
            "`additionalProperties: false` wherever `required` stands, `properties` is "
            "empty, or `additionalProperties` stands (true or a schema is overwritten)",
            "it recurses into `anyOf`, `allOf`, `properties`, `items`, `$defs`, "
            "`definitions` (not `oneOf`, `not`, `prefixItems`)",
        ),
        (
            "the tool's format (OpenAI, Anthropic `input_schema`, Bedrock `toolSpec`): the "
            "model takes the parameter schema itself",
        ),
        SdkFunction(
            "langchain-core",
            "langchain_core.utils.function_calling",
            "convert_to_openai_tool",
            ">=1.8.3,<1.9",
        ),
    ),
    Rule.LITELLM_GEMINI: Profile(
        Rule.LITELLM_GEMINI,
        "BerriAI/litellm litellm/llms/vertex_ai/common_utils.py _build_vertex_schema "
        "(build_vertex_schema), which litellm applies to a tool's parameters for Gemini and "
        "Vertex AI",
        "litellm 1.110.2",
        (
            "`$defs` removed and every `$ref` to one of them (or to a `definitions` around "
            "it) inlined, its siblings dropped; an unknown or circular one is left, then "
            "dropped with every key litellm's Vertex `Schema` does not have",
            "only `Schema`'s keys stay: `additionalProperties`, `allOf`, `oneOf`, `not`, "
            "`const`, `uniqueItems`, `prefixItems`, `exclusiveMinimum`, `multipleOf`, "
            "`patternProperties`... and the snake_case spellings are DROPPED (they no longer "
            "constrain); a schema with `anyOf` keeps nothing else; `format` only as `enum` "
            "or `date-time`",
            "a `type` list of two types or more becomes an `anyOf` by type; a "
            '`{"type": "null"}` member of `anyOf` is removed, the others made `nullable`',
            '`""` in an `enum` becomes null; an `enum` on anything but a string is removed',
            "an array without `items` gets `items: {type: object}`; a schema with none of "
            "`type`, `anyOf`, `oneOf`, `allOf` becomes `type: object`, as does every schema "
            "with `properties` (an empty one is removed)",
            "REFUSED: what litellm raises, a subschema that is no object where it reads one "
            '(`properties: {a: "string"}`, `items: [...]`)',
        ),
        (
            "the tool path's other steps (`remove_additional_properties`, "
            "`remove_strict_from_schema`, namespace members): the model takes the parameter "
            "schema itself; `send_integer_enums` and `add_property_ordering` are off, as "
            "litellm's defaults",
        ),
        SdkFunction(
            "litellm",
            "litellm.llms.vertex_ai.common_utils",
            "_build_vertex_schema",
            ">=1.110.2,<1.111",
        ),
    ),
    Rule.PYDANTIC_AI_GOOGLE: Profile(
        Rule.PYDANTIC_AI_GOOGLE,
        "pydantic/pydantic-ai pydantic_ai_slim/pydantic_ai/profiles/google.py "
        "(GoogleJsonSchemaTransformer.walk, on pydantic_ai/_json_schema.py "
        "JsonSchemaTransformer), which GoogleModel applies to a tool's parameters",
        "pydantic-ai-slim 2.68.0",
        (
            "`$schema`, `title`, `discriminator`, `examples`, `exclusiveMinimum` and "
            "`exclusiveMaximum` removed from every schema the walk reaches (an exclusive "
            "bound no longer constrains)",
            "`const` becomes `enum: [const]`, with the `type` its value implies where none "
            "is given; an `anyOf` of one-value enums becomes one `enum`, the options' "
            "descriptions appended to the parent's",
            "a string's `format` moves into `description` (`Format: date-time`): it no "
            "longer asserts",
            "the walk reaches an object's `properties`, `additionalProperties`, "
            "`patternProperties` and an array's `prefixItems`, `items` only where `type` is "
            "exactly `object` or `array`; without `type`, a one-member `allOf`/`anyOf`/"
            "`oneOf` is merged into its parent (the parent's keys win); `$defs` are walked "
            "and put back last, `$ref` kept",
            "REFUSED (`UserError`): a subschema that is neither an object nor a boolean, a "
            "container of the wrong kind (`properties: []`, `anyOf: {}`), a `type` that is no "
            "string or list of strings, a `required` or `enum` that is no list, a `minItems` "
            "that is no integer, a `$ref` that is no string",
        ),
        (
            "snake_case and capitalized spellings are sent as written, as the transformer "
            "reads only camelCase keywords and lower-case types: what the API then does "
            "with them is not modelled",
            "the `strict` flag and the Gemini `VALIDATED` mode: the model takes the "
            "parameter schema itself",
        ),
        SdkFunction(
            "pydantic-ai-slim",
            "pydantic_ai.profiles.google",
            "GoogleJsonSchemaTransformer",
            ">=2.68.0,<2.69",
        ),
    ),
    Rule.CLOSE_OBJECTS: Profile(
        Rule.CLOSE_OBJECTS,
        "the 'close all schemas' upgrade (no SDK)",
        "-",
        (
            "`additionalProperties: false` added to every schema object that has `properties` "
            "and neither `additionalProperties` nor `unevaluatedProperties`",
        ),
        (),
    ),
}
"""Every upgrade profile, by its rule family."""

_STRICT: Final = frozenset({"$defs", "definitions", "properties", "items", "anyOf", "allOf"})


def descends(
    rules: Collection[Rule], node: Mapping[str, JSON], keyword: str, value: JSON, root: bool
) -> frozenset[Rule]:
    """The walked profiles among ``rules`` whose transform goes on into ``keyword``'s
    subschemas of ``node`` (``root``: ``node`` is the whole schema)."""
    found = set()
    if Rule.CLOSE_OBJECTS in rules:
        found.add(Rule.CLOSE_OBJECTS)
    strict = keyword in _STRICT and (keyword != "items" or isinstance(value, dict))
    if Rule.OPENAI_STRICT in rules and strict:
        found.add(Rule.OPENAI_STRICT)
    return frozenset(found)


def explain(profile: Profile) -> str:
    """The function a profile follows and the releases its model was checked against, in one
    sentence (``auditor rule``, the reports)."""
    if profile.follows is None:
        return "Follows no SDK."
    follows = profile.follows
    return (
        f"Follows: {follows.module}.{follows.call} ({follows.package} {follows.versions}; "
        f"built-in model checked against {profile.version})."
    )


_SPELLINGS: Final = "keyword-case,type-case,"


def fitting_profile(tool: ToolSchema) -> tuple[Rule, str] | None:
    """The profile a tool's catalog shape implies, with why: a Gemini declaration's
    ``parameters`` go through google-genai's tool path (``types.Schema``; its
    ``parameters_json_schema`` does not), and a Responses API function tool without
    ``strict`` is strict (the API's default)."""
    if tool.shape == "gemini" and tool.pointer.endswith("/parameters"):
        return Rule.GOOGLE_GENAI, "Gemini `function_declarations` parameters"
    if tool.shape == "openai-responses" and tool.strict is None:
        return Rule.OPENAI_STRICT, "a Responses API tool without `strict` (strict by default)"
    return None


def profile_tip(tool: ToolSchema, rules: Collection[Rule]) -> Prose | None:
    """For a group's hint: the profile the catalog's shape implies, when the audit does not
    apply it (None otherwise)."""
    fitting = fitting_profile(tool)
    if fitting is None or fitting[0] in rules:
        return None
    rule, shape = fitting
    follows = PROFILES[rule].follows
    sdk = f"{follows.package}'s {follows.call}" if follows is not None else rule.value
    return Prose.of(
        f"The catalog is {shape}, which {sdk} transforms before the API sees it: audit with ",
        Span.code(f"--rules {_SPELLINGS}{rule.value}"),
        ".",
    )
