"""Upgrade profiles: what a real SDK or upgrade does to a tool's schema at request time.

A profile is a rule family (``--rules google-genai``) whose rewrites reproduce a transform
someone else's code performs, so the audit answers "which of our logged calls does this SDK
upgrade reject, and which step of it is the cause". Each profile names the source and the
version it follows, lists its steps, and says what it does not reproduce; the walk in
:mod:`auditor.schema.normalize` applies the steps, and this module says where each profile's
transform reaches: an SDK that recurses only through some keywords leaves the rest alone.

The steps are written from the source, not guessed:

- ``google-genai``: ``process_schema`` and ``handle_null_fields`` in
  ``google/genai/_transformers.py`` of googleapis/python-genai, as stored at commit
  ``077a45fc763b3c42948017e34a99b336493e496d`` (a 1.x release; its tag was not checked).
  ``t_schema`` runs ``process_schema`` on a dict schema in place before
  ``types.Schema.model_validate``.
- ``openai-strict``: ``_ensure_strict_json_schema`` (``to_strict_json_schema``) in
  ``src/openai/lib/_pydantic.py`` of openai/openai-python at commit
  ``004723836654cc448dd5bbb5d88d51f14ec0fb02``, plus the Structured Outputs rule that an
  optional field is emulated by a union with ``null``.
- ``close-objects``: no SDK; the common "close all schemas" upgrade.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Final

from auditor.models import JSON, Rule


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


PROFILES: Final[dict[Rule, Profile]] = {
    Rule.GOOGLE_GENAI: Profile(
        Rule.GOOGLE_GENAI,
        "googleapis/python-genai google/genai/_transformers.py "
        "(process_schema, handle_null_fields)",
        "commit 077a45fc763b3c42948017e34a99b336493e496d (1.x; tag not checked)",
        (
            "`additional_properties`, `any_of`, `prefix_items`, `property_ordering` are "
            "renamed to camelCase (process_schema's 'Standardize spelling' list, and only it)",
            '`nullable: true` (which the Gemini API honours) becomes `"null"` in `type`, '
            "and `nullable` is removed; `nullable: false` is removed",
            "only where process_schema recurses: the root, its `$defs`, `anyOf` members, "
            "and `properties`/`additionalProperties` of a `type` OBJECT or "
            "`items`/`prefixItems` of a `type` ARRAY (any case) without `anyOf`",
        ),
        (
            "`$ref`/`$defs` inlining, `const` to `enum: [const]` and the `anyOf`-with-null "
            "to `nullable` folding: each keeps what the schema accepts",
            "`property_ordering` added to objects: an annotation, it accepts the same",
            "requests the SDK refuses (`additionalProperties` on the Gemini API, a non-string "
            "`const`, a `type` list): they fail at request time, not at validation",
            "a snake_case spelling beside its camelCase one: the SDK's overwrites it, here "
            "neither is renamed (finding KW002)",
            "the field names and type names `types.Schema` accepts beyond process_schema's "
            "list: use `keyword-case` and `type-case` with it",
        ),
    ),
    Rule.OPENAI_STRICT: Profile(
        Rule.OPENAI_STRICT,
        "openai/openai-python src/openai/lib/_pydantic.py (_ensure_strict_json_schema); "
        "OpenAI Structured Outputs: supported schemas",
        "commit 004723836654cc448dd5bbb5d88d51f14ec0fb02",
        (
            "`additionalProperties: false` added to every schema whose `type` is the string "
            "`object` and that has no `additionalProperties`",
            "`required` set to every name in `properties`, in their order",
            'a property that was not required made nullable: `"null"` added to its `type` '
            "(and `null` to its `enum`); the SDK leaves this to pydantic's `Optional`, which "
            'writes `anyOf: [..., {"type": "null"}]`',
            "`default: null` removed",
            "only where the SDK recurses: `$defs`, `definitions`, `properties`, `items` "
            "(one schema), `prefixItems`, `anyOf`, `allOf`",
        ),
        (
            "a one-member `allOf` merged into its parent, and a `$ref` with siblings inlined: "
            "both keep what the schema accepts, except where a sibling overrides a keyword of "
            "the target",
            "a property without `type` (only `$ref`, `anyOf`, `enum`...) is not made nullable",
            "the API's own refusals of keywords it does not support (the SDK sends them)",
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

_GENAI_OBJECT: Final = frozenset({"properties", "additionalProperties"})
_GENAI_ARRAY: Final = frozenset({"items", "prefixItems"})
_STRICT: Final = frozenset(
    {"$defs", "definitions", "properties", "items", "prefixItems", "anyOf", "allOf"}
)

GENAI_RENAMES: Final = frozenset(
    {"additional_properties", "any_of", "prefix_items", "property_ordering"}
)
"""The spellings process_schema renames, and no other."""


def descends(
    rules: Collection[Rule], node: Mapping[str, JSON], keyword: str, value: JSON, root: bool
) -> frozenset[Rule]:
    """The profiles among ``rules`` whose transform goes on into ``keyword``'s subschemas of
    ``node`` (``root``: ``node`` is the whole schema)."""
    found = set()
    if Rule.CLOSE_OBJECTS in rules:
        found.add(Rule.CLOSE_OBJECTS)
    strict = keyword in _STRICT and (keyword != "items" or isinstance(value, dict))
    if Rule.OPENAI_STRICT in rules and strict:
        found.add(Rule.OPENAI_STRICT)
    if Rule.GOOGLE_GENAI in rules and _genai_descends(node, keyword, root):
        found.add(Rule.GOOGLE_GENAI)
    return frozenset(found)


def _genai_descends(node: Mapping[str, JSON], keyword: str, root: bool) -> bool:
    if keyword == "$defs":
        return root  # process_schema pops the root's $defs only
    if keyword == "anyOf":
        return True
    if "anyOf" in node or "any_of" in node:
        return False  # process_schema returns after the anyOf members
    kind = node.get("type")
    kind = kind.upper() if isinstance(kind, str) else None
    return (kind == "OBJECT" and keyword in _GENAI_OBJECT) or (
        kind == "ARRAY" and keyword in _GENAI_ARRAY
    )
