"""The runtimes that validate each side: models of named code, and how they read a schema.

A runtime decides three things a schema does not say by itself: which draft a schema without
``$schema`` is read as (and what an unknown ``$schema`` does), whether ``format`` is asserted
(and by whose checks: ``auditor.replay.formats``), and, in drafts 4 to 7, whether keywords
beside ``$ref`` are evaluated. Each model names the code it follows (``RuntimeModel.follows``);
docs/runtimes.md explains each and its known differences from that code.

A change of runtime with an unchanged schema changes verdicts like a change of the schema, so
it is audited as one: ``runtime_changes`` lists, in the new schema, each keyword the two
runtimes evaluate differently, as a ``Change`` of ``Rule.RUNTIME`` whose text names the
difference ("`format: date-time` asserted by mcp-ts-v2"); the cause finder then names it as it
names a rewrite.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import Enum
from operator import methodcaller
from typing import Any, Final

from jsonschema import FormatChecker, validators

from auditor import pointers
from auditor.models import (
    JSON,
    Change,
    Edit,
    FormatSides,
    NewRuntime,
    OldRuntime,
    Rule,
    RuntimeSide,
)
from auditor.replay.ajv import AjvLocation
from auditor.replay.formats import ajv_format_checker, asserted_formats, python_format_checker
from auditor.schema.keywords import (
    ANNOTATIONS,
    DRAFT_AGNOSTIC_LOCATIONS,
    REF_OVERRIDES_SIBLINGS,
    REF_SIBLINGS_KEPT,
    VOCABULARY,
    Draft,
    draft_of,
    schema_objects,
)
from auditor.schema.normalize import Normalized


class Formats(str, Enum):
    """Whose checks assert ``format`` (``auditor.replay.formats``)."""

    AJV = "ajv-formats"
    PYTHON = "python-jsonschema"


class Dispatch(str, Enum):
    """What a runtime does with a schema's ``$schema``."""

    ANY_KNOWN = "any-known"
    """python-jsonschema's ``validator_for``: a known draft is read as such; any other
    ``$schema`` is read as the default dialect."""
    MCP_TS_V2 = "mcp-ts-v2"
    """``declaredDialect`` of the MCP TypeScript SDK v2: 2020-12, 2019-09, draft-07, draft-06
    (read as draft-07) are used; any other ``$schema`` is refused."""
    IGNORED = "ignored"
    """One engine for every schema: ``$schema`` changes nothing (the SDK v1's classic Ajv)."""


@dataclass(frozen=True)
class RuntimeModel:
    """A named runtime: how it reads a schema, after the code it follows."""

    name: str
    follows: str
    """The code modelled: package, module, callable."""
    default_dialect: Draft
    dispatch: Dispatch
    formats: Formats | None
    """Whose checks assert ``format`` by default; None: ``format`` is an annotation."""
    format_semantics: Formats
    """Whose checks ``--assert-formats`` turns on."""
    ajv_keywords: bool
    """Ajv's keywords: those beside ``$ref`` are evaluated in drafts 4 to 7 too, and
    ``dependencies`` in 2019-09 and 2020-12 too (Ajv keeps it in every draft)."""
    validates: bool = True
    """False: nothing is validated (every call passes)."""
    engine: str = "python-jsonschema"
    """The reference engine whose verdicts the model gives: a Python model of Ajv is still
    a model (``ajv`` runs Ajv itself: ``auditor.replay.ajv``)."""


STANDARD: Final = RuntimeModel(
    "standard",
    "python-jsonschema: validator_for($schema, default=Draft202012Validator), check_schema, "
    "no format checker",
    Draft.DRAFT2020,
    Dispatch.ANY_KNOWN,
    None,
    Formats.PYTHON,
    ajv_keywords=False,
)
MCP_TS_V2: Final = RuntimeModel(
    "mcp-ts-v2",
    "@modelcontextprotocol/core 2.x, validators/ajvProvider.ts AjvJsonSchemaValidator."
    "_engineFor: Ajv2020, Ajv2019 or Ajv (draft-07) by $schema, addFormats(ajv)",
    Draft.DRAFT2020,
    Dispatch.MCP_TS_V2,
    Formats.AJV,
    Formats.AJV,
    ajv_keywords=True,
    engine="ajv",
)
MCP_TS_V1: Final = RuntimeModel(
    "mcp-ts-v1",
    "@modelcontextprotocol/sdk 1.x, validation/ajv-provider.js AjvJsonSchemaValidator: one "
    "draft-07 Ajv (validateSchema: false), addFormats(ajv)",
    Draft.DRAFT7,
    Dispatch.IGNORED,
    Formats.AJV,
    Formats.AJV,
    ajv_keywords=True,
    engine="ajv",
)
MCP_PYTHON_1: Final = RuntimeModel(
    "mcp-python-1",
    "mcp 1.x (Python SDK), lowlevel server call_tool: jsonschema.validate(arguments, "
    "inputSchema): validator_for($schema), check_schema, no format checker",
    Draft.DRAFT2020,
    Dispatch.ANY_KNOWN,
    None,
    Formats.PYTHON,
    ajv_keywords=False,
)
NOTHING: Final = RuntimeModel(
    "none",
    "no validation: the arguments go to the tool as sent",
    Draft.DRAFT2020,
    Dispatch.ANY_KNOWN,
    None,
    Formats.PYTHON,
    ajv_keywords=False,
    validates=False,
)

LENIENT: Final = replace(
    STANDARD,
    name="lenient",
    follows="python-jsonschema as standard reads the schema, with what it cannot evaluate "
    "set aside (auditor.schema.lenient)",
)

MODELS: Final[dict[str, RuntimeModel]] = {
    model.name: model for model in (STANDARD, MCP_TS_V2, MCP_TS_V1, MCP_PYTHON_1, NOTHING)
}
"""Every runtime model by name (``--new-runtime``; the named ones of ``--old-runtime``)."""

OLD_MODELS: Final[dict[OldRuntime, RuntimeModel]] = {
    OldRuntime.LENIENT: LENIENT,
    OldRuntime.STANDARD: STANDARD,
    OldRuntime.NONE: NOTHING,
    OldRuntime.MCP_TS_V1: MCP_TS_V1,
    OldRuntime.MCP_TS_V2: MCP_TS_V2,
    OldRuntime.MCP_PYTHON_1: MCP_PYTHON_1,
}
"""The model of each ``--old-runtime``: ``lenient`` reads the schema as ``standard`` does,
then sets aside what it cannot evaluate (``auditor.schema.lenient``); not a ``MODELS`` entry,
since ``--new-runtime`` has no lenient reading."""


def asserts_formats(sides: FormatSides, new_side: bool, model: RuntimeModel) -> bool:
    """Whether one side asserts ``format`` under ``--assert-formats sides``."""
    if sides is FormatSides.RUNTIME:
        return model.formats is not None
    return sides is FormatSides.BOTH or sides.value == ("new" if new_side else "old")


@dataclass(frozen=True)
class Reading:
    """How one runtime reads one schema: or why it refuses it (``refusal``)."""

    draft: Draft
    declared: bool
    """The schema's ``$schema`` chose the draft (else the runtime's default did)."""
    formats: Formats | None
    ajv_keywords: bool
    validates: bool = True
    refusal: str | None = None

    @property
    def plain(self) -> bool:
        """Read as the standard validator reads it by default: the fast validator and the
        shared validator of both sides stay valid."""
        return (
            self.validates
            and self.refusal is None
            and self.formats is None
            and (not self.ajv_keywords or self.draft not in REF_OVERRIDES_SIBLINGS)
        )

    @property
    def asserted(self) -> frozenset[str]:
        """The format names this reading checks."""
        return _ASSERTED[self.formats] if self.formats is not None else frozenset()


@dataclass(frozen=True)
class Runtime:
    """A runtime model with the options of the request for one side."""

    model: RuntimeModel
    assert_formats: bool
    default_dialect: Draft
    ajv: AjvLocation | None = None
    """Where Ajv runs, when it gives this side's verdicts (``--runtime-validator ajv``, a
    model that follows Ajv); None: the Python model does."""

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def is_default(self) -> bool:
        """Exactly today's standard reading (the default of both sides)."""
        return (
            self.model.validates
            and self.model.dispatch is Dispatch.ANY_KNOWN
            and not self.assert_formats
            and not self.model.ajv_keywords
            and self.default_dialect is Draft.DRAFT2020
        )

    def read(self, schema: JSON) -> Reading:
        """How this runtime reads ``schema``."""
        formats = self.model.format_semantics if self.assert_formats else None
        if not self.model.validates:
            return Reading(self.default_dialect, False, None, False, validates=False)
        declared = _declared(schema)
        siblings = self.model.ajv_keywords
        if self.model.dispatch is Dispatch.IGNORED or declared is None:
            return Reading(self.default_dialect, False, formats, siblings)
        if self.model.dispatch is Dispatch.MCP_TS_V2:
            draft = _MCP_TS_V2_DIALECTS.get(re.sub(r"#$", "", declared))
            if draft is None:
                return Reading(
                    self.default_dialect,
                    True,
                    formats,
                    siblings,
                    refusal=f"declares $schema '{declared[:200]}', which {self.name} refuses "
                    "(it supports 2020-12, 2019-09, draft-07 and draft-06 only)",
                )
            return Reading(draft, True, formats, siblings)
        found = draft_of(schema)
        known = found is not Draft.DRAFT2020 or _names_2020(declared)
        return Reading(found if known else self.default_dialect, known, formats, siblings)


@dataclass(frozen=True)
class Runtimes:
    """The runtime of each side of the audit."""

    old: Runtime
    new: Runtime

    @property
    def is_default(self) -> bool:
        return self.old.is_default and self.new.is_default


def runtimes_of(
    old: OldRuntime,
    new: NewRuntime,
    assert_formats: FormatSides = FormatSides.RUNTIME,
    default_dialect: Draft | None = None,
    old_default_dialect: Draft | None = None,
    ajv: AjvLocation | None = None,
) -> Runtimes | None:
    """The request's runtimes; None when both sides read schemas as today (the default).
    ``ajv``: where Ajv runs, to give the verdicts of the sides whose model follows it."""
    # Under ``--old-runtime none`` the old side decides nothing whatever reads it
    # (``ToolReplay``): its reading is left as today's.
    old_model = STANDARD if old is OldRuntime.NONE else OLD_MODELS[old]
    new_model = MODELS[new.value]
    pair = Runtimes(
        Runtime(
            old_model,
            asserts_formats(assert_formats, False, old_model),
            old_default_dialect or old_model.default_dialect,
            ajv if old_model.engine == "ajv" else None,
        ),
        Runtime(
            new_model,
            asserts_formats(assert_formats, True, new_model),
            default_dialect or new_model.default_dialect,
            ajv if new_model.engine == "ajv" else None,
        ),
    )
    return None if pair.is_default else pair


def sides(runtimes: Runtimes | None) -> tuple[RuntimeSide, RuntimeSide] | None:
    """What the report says of each side's runtime (None: both are today's)."""
    if runtimes is None:
        return None
    return (_side(runtimes.old), _side(runtimes.new))


def _side(runtime: Runtime) -> RuntimeSide:
    model = runtime.model
    formats = model.format_semantics.value if runtime.assert_formats else None
    if runtime.ajv is not None:
        verdicts = f"Ajv ({runtime.ajv.versions})"
    elif model.engine == "ajv":
        verdicts = "auditor's Python model of Ajv"
    else:
        verdicts = "python-jsonschema" if model.validates else "none (nothing validated)"
    return RuntimeSide(model.name, model.follows, runtime.default_dialect.value, formats, verdicts)


_MCP_TS_V2_DIALECTS: Final[dict[str, Draft]] = {
    f"{scheme}://json-schema.org/{path}": draft
    for scheme in ("http", "https")
    for path, draft in (
        ("draft/2020-12/schema", Draft.DRAFT2020),
        ("draft/2019-09/schema", Draft.DRAFT2019),
        ("draft-07/schema", Draft.DRAFT7),
        ("draft-06/schema", Draft.DRAFT7),  # draft-06 -> the classic (draft-07) engine
    )
}
"""``declaredDialect`` (packages/core-internal/src/validators/dialects.ts): a trailing ``#`` is
dropped, http and https both name the draft; draft-06 is read by the draft-07 engine."""


def _declared(schema: JSON) -> str | None:
    if isinstance(schema, dict):
        found = schema.get("$schema")
        if isinstance(found, str):
            return found
    return None


def _names_2020(declared: str) -> bool:
    return re.sub(r"^https?://", "", declared).rstrip("#") == "json-schema.org/draft/2020-12/schema"


_ASSERTED: Final[dict[Formats, frozenset[str]]] = {
    Formats.AJV: asserted_formats(ajv_format_checker()),
    Formats.PYTHON: asserted_formats(python_format_checker()),
}


@functools.lru_cache(maxsize=8)
def format_checker(formats: Formats) -> FormatChecker:
    """The checker of ``formats`` (built once: it holds only functions)."""
    return ajv_format_checker() if formats is Formats.AJV else python_format_checker()


_BASE: Final[dict[Draft, Any]] = {
    Draft.DRAFT4: validators.Draft4Validator,
    Draft.DRAFT6: validators.Draft6Validator,
    Draft.DRAFT7: validators.Draft7Validator,
    Draft.DRAFT2019: validators.Draft201909Validator,
    Draft.DRAFT2020: validators.Draft202012Validator,
}


@functools.lru_cache(maxsize=16)
def validator_class(draft: Draft, ajv_keywords: bool) -> Any:
    """python-jsonschema's validator of ``draft``; with ``ajv_keywords``, one that also
    evaluates what Ajv evaluates: the keywords beside ``$ref`` in drafts 4 to 7
    (python-jsonschema ignores them there, as those drafts say), ``dependencies`` in 2019-09
    and 2020-12."""
    base = _BASE[draft]
    if not ajv_keywords:
        return base
    if draft not in REF_OVERRIDES_SIBLINGS:
        legacy = validators.Draft7Validator.VALIDATORS["dependencies"]
        return validators.extend(base, {"dependencies": legacy})
    # No ``version``: registering it would make this class python-jsonschema's choice for
    # every schema declaring the draft.
    return validators.create(
        meta_schema=base.META_SCHEMA,
        validators=base.VALIDATORS,
        type_checker=base.TYPE_CHECKER,
        format_checker=base.FORMAT_CHECKER,
        id_of=base.ID_OF,
        applicable_validators=methodcaller("items"),
    )


def with_runtime_changes(normalized: Normalized, runtimes: Runtimes | None) -> Normalized:
    """``normalized`` with the changes the change of runtime makes added to its rewrites."""
    if runtimes is None or normalized.refusal is not None:
        return normalized
    found = runtime_changes(normalized.schema, runtimes)
    if not found:
        return normalized
    return replace(normalized, rewrites=normalized.rewrites + found)


def runtime_changes(schema: JSON, runtimes: Runtimes) -> tuple[Change, ...]:
    """The keywords of ``schema`` (the new schema) that the old and the new runtime evaluate
    differently, each a ``Change`` at its pointer in the new schema."""
    old, new = runtimes.old.read(schema), runtimes.new.read(schema)
    if not (old.validates and new.validates) or new.refusal or old.refusal:
        return ()  # no keyword-by-keyword difference: one side decides nothing, or refuses
    return tuple(_differences(schema, old, new, runtimes.new.name))


def _vocabulary(reading: Reading) -> dict[str, Any]:
    words = VOCABULARY[reading.draft]
    if reading.ajv_keywords and "dependencies" not in words:
        return {**words, "dependencies": VOCABULARY[Draft.DRAFT7]["dependencies"]}
    return words


def _differences(schema: JSON, old: Reading, new: Reading, name: str) -> Iterator[Change]:
    old_words, new_words = _vocabulary(old), _vocabulary(new)
    read_as = f"draft {new.draft.value} {'in' if new.declared else 'by default in'} {name}"
    for node, at in schema_objects(schema, "", new_words):
        yield from _at_node(node, at, old, new, name, old_words, new_words, read_as)


def _at_node(
    node: dict[str, JSON],
    at: str,
    old: Reading,
    new: Reading,
    name: str,
    old_words: dict[str, Any],
    new_words: dict[str, Any],
    read_as: str,
) -> Iterator[Change]:
    old_ignores = _ignores_siblings(old) and "$ref" in node
    new_ignores = _ignores_siblings(new) and "$ref" in node
    for key in sorted(node):
        where = pointers.join(at, key)
        if key.startswith("$") or key in ANNOTATIONS or key in DRAFT_AGNOSTIC_LOCATIONS:
            continue
        in_old = key in old_words and not (old_ignores and key not in REF_SIBLINGS_KEPT)
        in_new = key in new_words and not (new_ignores and key not in REF_SIBLINGS_KEPT)
        if in_new and not in_old:
            why = f"enforced beside $ref by {name}" if key in old_words else f"enforced: {read_as}"
            yield _change(where, f"{key}", why)
        elif in_old and not in_new:
            why = f"ignored beside $ref by {name}" if key in new_words else f"ignored: {read_as}"
            yield _change(where, f"{key}", why)
        elif in_new and key == "format" and isinstance(node[key], str):
            value = node[key]
            before, after = value in old.asserted, value in new.asserted
            if after and (not before or old.formats is not new.formats):
                yield _change(where, f"format: {value}", f"asserted by {name}")
            elif before and not after:
                yield _change(where, f"format: {value}", f"not asserted by {name}")


def _ignores_siblings(reading: Reading) -> bool:
    return reading.draft in REF_OVERRIDES_SIBLINGS and not reading.ajv_keywords


def _change(pointer: str, what: str, why: str) -> Change:
    return Change(pointer, what, why, Rule.RUNTIME, pointer, Edit.REPLACE)
