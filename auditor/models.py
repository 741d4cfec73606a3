"""The plain records that flow between the pipeline's stages.

Every record is a frozen dataclass over JSON-like data, so stages stay pure functions and a
report can be rendered, compared or serialized without knowing where it came from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Final, TypeAlias

JSON: TypeAlias = "dict[str, JSON] | list[JSON] | str | int | float | bool | None"
"""A decoded JSON value: dict, list, str, int, float, bool or None."""


class Outcome(str, Enum):
    """What replaying one call against the old and the new schema showed.

    The members are declared in the order they are checked (see docs/architecture.md): the
    first that applies is the call's outcome.
    """

    UNKNOWN_TOOL = "unknown_tool"
    UNPARSEABLE = "unparseable"
    SCHEMA_ERROR_AFTER = "schema_error_after"
    SCHEMA_ERROR_BEFORE = "schema_error_before"
    ACCEPTED = "accepted"
    NEWLY_REJECTED = "newly_rejected"
    STILL_REJECTED = "still_rejected"
    NEWLY_ACCEPTED = "newly_accepted"


class OldRuntime(str, Enum):
    """What enforced the old schema when the logs were written (``--old-runtime``).

    "Passed before" is a property of that runtime, not of a textbook validator: most agent
    runtimes never checked a tool schema against its meta-schema.
    """

    LENIENT = "lenient"
    """Unknown keywords, invalid type names and keywords that cannot be evaluated enforce
    nothing; the rest of the schema applies (what agent runtimes do in practice)."""
    STANDARD = "standard"
    """A conforming validator: a schema failing its meta-schema is unusable."""
    NONE = "none"
    """Nothing was validated: every call passed."""
    MCP_TS_V1 = "mcp-ts-v1"
    """The MCP TypeScript SDK 1.x (``auditor.replay.runtimes``): read as ``standard`` is,
    by that runtime's model (draft-07, formats asserted)."""
    MCP_TS_V2 = "mcp-ts-v2"
    """The MCP TypeScript SDK 2.x: by ``$schema``, formats asserted, other dialects refused."""
    MCP_PYTHON_1 = "mcp-python-1"
    """The MCP Python SDK 1.x: python-jsonschema by ``$schema``, formats not asserted."""

    @property
    def checks_schema(self) -> bool:
        """A schema this runtime cannot use is unusable for every call (``standard`` and the
        SDK models), rather than read leniently (``lenient``) or not read (``none``)."""
        return self not in (OldRuntime.LENIENT, OldRuntime.NONE)


class NewRuntime(str, Enum):
    """What validates the new schema (``--new-runtime``): ``auditor.replay.runtimes``."""

    STANDARD = "standard"
    """A conforming validator, formats annotations, 2020-12 by default (today's)."""
    MCP_TS_V2 = "mcp-ts-v2"
    MCP_TS_V1 = "mcp-ts-v1"
    MCP_PYTHON_1 = "mcp-python-1"
    NONE = "none"
    """Nothing is validated: no call is rejected after."""


class Subject(str, Enum):
    """What a replay judges (``--subject``): a call's arguments against the tool's input
    schema, or its result against the tool's output schema."""

    ARGUMENTS = "arguments"
    RESULTS = "results"
    BOTH = "both"
    """Arguments, and results where the logs hold results of tools with an output schema."""


class Dialect(str, Enum):
    """``--default-dialect``: the draft a schema without ``$schema`` is read as."""

    DRAFT7 = "draft-07"
    DRAFT2019 = "2019-09"
    DRAFT2020 = "2020-12"


class RuntimeValidator(str, Enum):
    """``--runtime-validator``: what gives the verdicts of a runtime that follows Ajv."""

    MODEL = "model"
    """auditor's Python model of Ajv (always available)."""
    AJV = "ajv"
    """Ajv and ajv-formats themselves, under node, where they are installed."""


class FormatSides(str, Enum):
    """``--assert-formats``: which sides assert ``format``."""

    RUNTIME = "runtime"
    """Each side as its runtime does (the default)."""
    BOTH = "both"
    NEW = "new"
    OLD = "old"
    NEITHER = "neither"


class Evidence(str, Enum):
    """What the log itself records about what became of a call."""

    RAN = "ran"
    """The tool ran (an MCP result, an OTel span without error, an Anthropic tool_result)."""
    REFUSED = "refused"
    """The server refused the arguments (an MCP JSON-RPC error -32602)."""
    ANSWERED = "answered"
    """Something answered the call, but a refusal and a run look alike there (weak)."""

    @property
    def strong(self) -> bool:
        """Whether it says for certain whether the old runtime let the call through."""
        return self is not Evidence.ANSWERED


Payload: TypeAlias = "tuple[str, str, Evidence | None]"
"""A call's tool, arguments text and logged evidence: all its verdicts and outcome depend on
(``auditor.aggregate.repeats`` counts the repeats of an accepted one without replaying them)."""


class Rule(str, Enum):
    """The families of rewrites the normalizer can make; the first two are on by default.

    ``google-genai`` to ``close-objects`` are upgrade profiles (``auditor.schema.profiles``):
    what an SDK or an upgrade does to a schema at request time, rather than a dialect's
    spellings. ``edit`` is no family: it marks changes between two catalogs.
    """

    KEYWORD_CASE = "keyword-case"
    TYPE_CASE = "type-case"
    TYPE_ALIAS = "type-alias"
    OPENAPI = "openapi"
    GEMINI = "gemini"
    GOOGLE_GENAI = "google-genai"
    GOOGLE_GENAI_RESPONSE_SCHEMA = "google-genai-response-schema"
    GOOGLE_GENAI_MCP = "google-genai-mcp"
    OPENAI_STRICT = "openai-strict"
    OPENAI_AGENTS = "openai-agents"
    ANTHROPIC_STRICT = "anthropic-strict"
    LANGCHAIN_STRICT = "langchain-strict"
    LITELLM_GEMINI = "litellm-gemini"
    PYDANTIC_AI_GOOGLE = "pydantic-ai-google"
    CLOSE_OBJECTS = "close-objects"
    EDIT = "edit"
    """Not a family ``--rules`` selects: a change between two catalogs (``--new-schemas``,
    ``--against``), found by comparing them."""
    RUNTIME = "runtime"
    """Not a family either: a keyword the old and the new runtime evaluate differently
    (``--new-runtime``, ``--old-runtime``, ``--assert-formats``, ``--default-dialect``)."""


RULE_FAMILIES: Final[tuple[Rule, ...]] = tuple(
    rule for rule in Rule if rule not in (Rule.EDIT, Rule.RUNTIME)
)
"""The rule families ``--rules`` can select."""
DEFAULT_RULES: Final = frozenset({Rule.KEYWORD_CASE, Rule.TYPE_CASE})
"""The normalization audited when ``--rules`` names none: keyword and type-name case."""


class GroupBy(str, Enum):
    """What a group of calls is (``--group-by``)."""

    CONSTRAINT = "constraint"
    """One tool, outcome, failing keyword, schema pointer and causes."""
    CALLER = "caller"
    """The same, for one caller the log names (calls naming none form their own group)."""


class ChangeKind(str, Enum):
    """What the audited schema change is: where the new side of the replay comes from."""

    NORMALIZE = "normalize"
    """``--schemas`` normalized by ``--rules``."""
    CATALOGS = "catalogs"
    """The catalogs of ``--new-schemas``."""
    GIT = "git"
    """``--schemas`` at the ``--against`` revision (old) and in the work tree (new)."""


class Edit(str, Enum):
    """What a change does to the text at its pointer."""

    RENAME = "rename"
    """The key is renamed; its value stays."""
    REPLACE = "replace"
    """The value is replaced (a type name, a ``$ref``, a bound)."""
    REMOVE = "remove"
    """The entry is removed."""
    ADD = "add"
    """The entry is added (an upgrade profile's ``additionalProperties: false``, a keyword a
    new catalog has); its pointer in the old schema is where it would stand there."""


@dataclass(frozen=True)
class Location:
    """Where something stands in an input file: path as given, 1-based line and column."""

    path: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.line is None:
            return self.path
        if self.column is None:
            return f"{self.path}:{self.line}"
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True)
class ToolSchema:
    """One tool's parameter schema, with its name and where it came from."""

    name: str
    schema: JSON
    location: Location
    pointer: str
    """RFC 6901 pointer of the schema inside its catalog file."""
    shape: str
    """The catalog shape it was read from (``openai``, ``mcp``, ``anthropic``, ``mapping``)."""
    positions: Mapping[str, tuple[int, int]] = field(default_factory=dict, compare=False)
    """Pointer inside the schema -> 1-based (line, column) of that key in the catalog file."""
    strict: JSON = field(default=None, compare=False)
    """The tool's own ``strict`` flag beside its schema, where its shape has one (Responses
    API tools); None when it says none: which upgrade profile fits depends on it."""
    output: ToolSchema | None = field(default=None, compare=False)
    """The tool's output schema (MCP ``outputSchema``), as a tool schema of its own (its
    pointer and positions those of the output schema), where the catalog declares one: what
    the tool's results are replayed against (``Subject.RESULTS``)."""


@dataclass(frozen=True)
class Override:
    """A tool name defined twice; the later definition won (``--allow-override``)."""

    tool: str
    kept: Location
    replaced: Location


@dataclass(frozen=True)
class Change:
    """One difference between a tool's old and new schema, at a pointer: a **rewrite** when
    the normalizer (or an upgrade profile) made it (``rule`` names its family), an edit of
    one catalog into the other otherwise (``Rule.EDIT``). docs/architecture.md#vocabulary."""

    pointer: str
    """RFC 6901 pointer in the *old* schema: of the key for a keyword, of the value for a type."""
    old: str
    new: str
    rule: Rule
    new_pointer: str
    """The same place in the *new* schema."""
    edit: Edit = Edit.RENAME
    entry_of: str = ""
    """For an entry added to or removed from a map of subschemas (a property of
    ``properties``), the keyword holding it: the change belongs to that keyword's position."""

    def describe(self, value: Callable[[str], str] = str, name: Callable[[str], str] = str) -> str:
        """``/properties/a/min_items: min_items → minItems``; a change between catalogs that
        adds or removes says so (``/additionalProperties: added false``). ``value`` shows the
        old and new text, ``name`` the pointer and a removed tool's name (Markdown code
        spans, say; plain text by default)."""
        if self.removes_tool:
            return f"tool {name(self.old)} removed"
        if self.rule is Rule.RUNTIME:  # the keyword, then what the runtimes do with it
            return f"{name(self.pointer)}: {value(self.old)} {self.new}"
        if self.edit is Edit.ADD:
            return f"{name(self.pointer)}: added {value(self.new)}"
        if self.rule is Rule.EDIT and self.edit is Edit.REMOVE:
            return f"{name(self.pointer)}: removed {value(self.old)}"
        return f"{name(self.pointer)}: {value(self.old)} → {value(self.new)}"

    @property
    def removes_tool(self) -> bool:
        """Whether this is the change of a tool the new catalogs no longer define."""
        return self.rule is Rule.EDIT and self.edit is Edit.REMOVE and not self.new_pointer


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """A place in a schema that is not evaluated as written."""

    code: str
    name: str
    severity: Severity
    pointer: str
    message: str
    fix: str | None = None


class UnparsedKind(str, Enum):
    """Why a call was not replayed, by kind: the JSON report's ``unparsed.kind``."""

    MALFORMED = "malformed"
    """The log holds the call but not usable arguments (not JSON, no name, cut short)."""
    CONTENT_NOT_CAPTURED = "content_not_captured"
    """The telemetry names the tool but records no arguments: the instrumentation was not
    asked to capture message content (an OpenTelemetry span or event, content capture off)."""


CONTENT_NOT_CAPTURED: Final = "content capture is off"
"""How the reason of a call whose telemetry records no arguments begins (``UnparsedKind``)."""


@dataclass(frozen=True)
class Unparsed:
    """Log text that did not give a usable call, and why."""

    raw: str
    reason: str

    @property
    def kind(self) -> UnparsedKind:
        """The kind of ``reason``: only the OTel reader words a reason this way."""
        if self.reason.startswith(CONTENT_NOT_CAPTURED):
            return UnparsedKind.CONTENT_NOT_CAPTURED
        return UnparsedKind.MALFORMED


@dataclass(frozen=True, slots=True)
class Call:
    """One logged tool call: the tool it names and its arguments, or the text that did not parse."""

    source: str
    """``path:line`` of the log record, plus ``#position`` where the record holds several
    calls (``calls.jsonl:12#choices[0].message.tool_calls[1]``)."""
    tool: str | None
    arguments: JSON = None
    unparsed: Unparsed | None = None
    text: str | None = None
    """The arguments as logged, when they were JSON text: what replay remembers them by."""
    evidence: Evidence | None = None
    """What the log records about what became of the call, where it does."""
    caller: str | None = None
    """Who made the call, where the log names it (an agent, a service, an MCP client)."""


@dataclass(frozen=True)
class Observation:
    """One fact about a failing value, in a form that can be counted across calls.

    ``kind`` never holds logged data (``"an empty list"``, ``"extra property"``); ``detail``
    may (a property name, a value outside an enum), and ``detail_is_value`` says whether it
    is a value (masked by redaction) or a key (kept).
    """

    kind: str
    detail: JSON = None
    detail_is_value: bool = False


@dataclass(frozen=True)
class ValidationIssue:
    """One error a schema reported for a call, with the rewrites that made it possible."""

    instance_pointer: str
    keyword: str
    schema_pointer: str
    """Where the failing keyword stands in the new schema, following ``$ref`` into its target."""
    message: str
    causes: tuple[Change, ...] = ()
    observed: tuple[Observation, ...] = ()
    """What the logged value at ``instance_pointer`` looked like, for decision hints."""


@dataclass(frozen=True)
class Verdict:
    """What one schema said of one call: it accepts, it rejects with errors, or it could not
    be used for this call (``problem``)."""

    accepts: bool
    errors: tuple[ValidationIssue, ...] = ()
    problem: str | None = None
    over_budget: bool = False
    """The call's CPU-time budget (``--call-timeout``) ran out while this schema evaluated it:
    a problem (the reference validator stopped), or, read leniently, keywords that enforced
    nothing because they could not finish."""

    @property
    def usable(self) -> bool:
        return self.problem is None


ACCEPTS = Verdict(True)
REJECTS = Verdict(False)


@dataclass(frozen=True)
class LenientReading:
    """A place of an old schema that a lenient runtime reads as enforcing nothing."""

    pointer: str
    """RFC 6901 pointer of the keyword (or schema) in the old schema."""
    value: JSON
    """What is written there."""
    reason: str
    """Why it cannot be evaluated (never holds logged data)."""


@dataclass(frozen=True, slots=True)
class CallResult:
    """The outcome of replaying one call, with what a reviewer needs to understand it."""

    call: Call
    outcome: Outcome
    errors: tuple[ValidationIssue, ...] = ()
    """Errors of the new schema (newly or still rejected; schema_error_before when it rejects)."""
    schema_problem: str | None = None
    """Why a schema could not be used for this call (schema_error_before/after)."""
    contradicts: bool = False
    """Strong evidence in the log says the opposite of the old-runtime model for this call."""
    over_budget: bool = False
    """Evaluating the call ran out of its CPU-time budget, on either side."""

    @property
    def proven(self) -> bool:
        """A newly rejected call that the log shows ran: a certain regression, unless the log
        contradicts the old-runtime model for it and no error has a cause (no change explains
        its rejection: ``auditor.replay.outcome.contradicted``)."""
        return (
            self.outcome is Outcome.NEWLY_REJECTED
            and self.call.evidence is Evidence.RAN
            and not (self.contradicts and not any(e.causes for e in self.errors))
        )


@dataclass(frozen=True)
class ToolSummary:
    """Per-tool facts for the report: provenance, rewrites, findings, outcome counts."""

    name: str
    location: Location
    pointer: str
    shape: str
    rewrites: tuple[Change, ...]
    findings: tuple[Finding, ...]
    counts: dict[Outcome, int]
    old_schema_problem: str | None
    new_schema_problem: str | None
    reached: tuple[int, ...] = ()
    """Per rewrite (same order): how many calls evaluated the rewritten keyword."""
    rewrite_locations: tuple[Location | None, ...] = ()
    """Per rewrite (same order): where its key stands in the catalog file, when known."""
    lenient_readings: tuple[LenientReading, ...] = ()
    """Under ``--old-runtime lenient``: where the old schema was read as enforcing nothing."""
    proven: int = 0
    """Newly rejected calls that the log shows ran."""
    contradictions: int = 0
    """Calls whose strong evidence contradicts the old-runtime model."""
    constraints: tuple[ConstraintUse, ...] = ()
    """Every constraint keyword of the new schema, with the calls that reached and failed it."""
    text_edits: int = 0
    """Between two catalogs: edits of annotations only (``description``, ``title``,
    ``examples``, ``$comment``), counted apart from ``rewrites`` (no validator enforces them)."""

    @property
    def call_count(self) -> int:
        return sum(self.counts.values())


class FailOn(str, Enum):
    """What makes ``auditor audit`` exit 1 (see ``auditor.aggregate.gate``)."""

    NEWLY_REJECTED = "newly_rejected"
    SCHEMA_ERROR = "schema_error"
    ANY_CHANGE = "any-change"
    NEVER = "never"


class HintKind(str, Enum):
    """What a group of rejected calls suggests doing."""

    LOOSEN_SCHEMA = "loosen-schema"
    FIX_CALLERS = "fix-callers"
    REVIEW = "review"
    FIX_SCHEMA = "fix-schema"


class SpanKind(str, Enum):
    """What a piece of ``Prose`` holds, and so how each format writes it."""

    WORDS = "words"
    """auditor's own wording (numbers and keyword names among it): never logged data, no
    markup; written as it is, escaped only as the format's text."""
    STRONG = "strong"
    """Wording as ``WORDS``, shown strong (bold) where the format has emphasis."""
    TEXT = "text"
    """Data shown as inline text (a schema problem that quotes a catalog)."""
    CODE = "code"
    """Data shown as code: a tool name, a keyword, a pointer, a value sent."""


@dataclass(frozen=True)
class Span:
    """One piece of ``Prose``: its kind and its literal text (unescaped)."""

    kind: SpanKind
    text: str

    @classmethod
    def code(cls, text: str) -> Span:
        """Data shown as code (``SpanKind.CODE``)."""
        return cls(SpanKind.CODE, text)

    @classmethod
    def data(cls, text: str) -> Span:
        """Data shown as inline text (``SpanKind.TEXT``)."""
        return cls(SpanKind.TEXT, text)

    @classmethod
    def strong(cls, text: str) -> Span:
        """Wording shown strong (``SpanKind.STRONG``)."""
        return cls(SpanKind.STRONG, text)


@dataclass(frozen=True)
class Prose:
    """Wording with data in it, as pieces: a sentence is worded once (a hint or an evidence
    line by the aggregation stage, the verdict and the notes by the renderers' shared
    wording), and each renderer writes the pieces its own way (Markdown code spans, HTML
    ``<code>``, plain terminal text; ``auditor.report.prose``), never parsing text back."""

    spans: tuple[Span, ...] = ()

    @classmethod
    def of(cls, *parts: str | Span | Prose) -> Prose:
        """The pieces in order: a ``str`` is wording (``SpanKind.WORDS``), a ``Span`` is
        itself, a ``Prose`` its pieces. Empty wording is dropped and neighbouring wording of
        one kind joined; data pieces stay apart (two values are two code spans)."""
        spans: list[Span] = []
        for part in parts:
            pieces = part.spans if isinstance(part, Prose) else (part,)
            for piece in pieces:
                span = Span(SpanKind.WORDS, piece) if isinstance(piece, str) else piece
                wording = span.kind in (SpanKind.WORDS, SpanKind.STRONG)
                if wording and not span.text:
                    continue
                if wording and spans and spans[-1].kind is span.kind:
                    spans[-1] = Span(span.kind, spans[-1].text + span.text)
                else:
                    spans.append(span)
        return cls(tuple(spans))

    def __bool__(self) -> bool:
        return bool(self.spans)

    def __add__(self, other: Prose) -> Prose:
        return Prose.of(self, other)


@dataclass(frozen=True)
class DecisionHint:
    """Loosen the schema or fix the caller, and the logged evidence behind it."""

    kind: HintKind
    text: Prose


@dataclass(frozen=True)
class Example:
    """One call of a group, with its arguments already redacted or truncated for reports."""

    source: str
    arguments: JSON
    instance_pointer: str
    evidence: Evidence | None = None
    """What the log says became of the call."""


class PatchOp(str, Enum):
    """The RFC 6902 operations a suggested loosening uses."""

    ADD = "add"
    REPLACE = "replace"
    REMOVE = "remove"


@dataclass(frozen=True)
class PatchOperation:
    """One RFC 6902 JSON Patch operation (``add``, ``replace`` or ``remove``)."""

    op: PatchOp
    path: str
    """RFC 6901 pointer; an ``add`` ending in ``/-`` appends to an array."""
    value: JSON = None
    """The value added or put in place; None for ``remove``."""

    def as_json(self) -> dict[str, JSON]:
        """The operation as RFC 6902 writes it (``remove`` has no value)."""
        if self.op is PatchOp.REMOVE:
            return {"op": self.op.value, "path": self.path}
        return {"op": self.op.value, "path": self.path, "value": self.value}


@dataclass(frozen=True)
class SchemaPatch:
    """The smallest loosening of a group's keyword that makes every logged call of the group
    pass it, verified; or, with ``problem``, why none is suggested.

    ``operations`` apply to the tool's *new* schema; ``file_operations`` to the tool's schema
    as its catalog file holds it (``tool_pointer`` in ``location.path``): the same edit, at the
    spelling the file uses (see ``auditor.aggregate.loosen``)."""

    summary: str = ""
    """``raise maxLength 10 → 28``: plain text, logged data only where ``operations`` has it."""
    operations: tuple[PatchOperation, ...] = ()
    location: Location | None = None
    """The position in the catalog file that the edit touches."""
    tool_pointer: str = ""
    """RFC 6901 pointer of the tool's schema inside the catalog file."""
    file_operations: tuple[PatchOperation, ...] = ()
    problem: str | None = None
    """Why no patch is suggested (no single change makes every call pass, ...)."""
    file_problem: str | None = None
    """Why the patch, verified on the schema, cannot be written into the catalog file."""


@dataclass(frozen=True)
class Group:
    """Calls of one tool with one outcome that fail one keyword for the same causes.

    A call failing two keywords belongs to two groups: each group is one constraint, and one
    decision (loosen it or fix the callers).
    """

    fingerprint: str
    """Stable across runs and logs: tool, outcome, causes, keyword, schema pointer (see
    ``auditor.aggregate.groups.fingerprint``); never instance pointers or values."""
    outcome: Outcome
    tool: str
    causes: tuple[Change, ...]
    keyword: str
    """The failing keyword; empty for calls that no schema error explains (schema errors)."""
    schema_pointer: str
    count: int
    tool_calls: int
    """All calls of the tool, for the share."""
    first: str
    last: str
    error: str
    """The error message of the first call, or the schema problem."""
    examples: tuple[Example, ...]
    hint: DecisionHint
    baselined: bool = False
    proven: int = 0
    """Calls of the group that the log shows ran: certain regressions (newly rejected)."""
    callers: tuple[tuple[str, int], ...] = ()
    """The callers the log names for the group's calls, with their calls, most first (at
    most ``MAX_SHOWN_CALLERS``); calls whose record names no caller are not counted."""
    more_callers: int = 0
    """Distinct callers beyond those listed."""
    caller: str | None = None
    """With ``--group-by caller``: the one caller this group's calls came from."""
    patch: SchemaPatch | None = None
    """For a newly rejected group hinted ``loosen-schema`` or ``review``: the suggested
    loosening, or why there is none (``auditor.aggregate.loosen``)."""
    evidence: Prose = Prose()
    """The keyword's limit against what the group's calls sent: lengths, numbers, extra or
    missing names, values outside an enum, the nearest branch (empty without a keyword)."""
    offending: tuple[OffendingValue, ...] = ()
    """For groups hinted ``fix-callers`` or ``review``: the distinct values sent where the
    calls fail, most calls first, with the first and last source of each."""
    contradicted: bool = False
    """Newly rejected calls that the log contradicts, not regressions: the log shows each ran,
    the old-runtime model rejects it, and no change made the error possible (it has no cause:
    the path to the keyword is unchanged, or changed only in ways that do not explain it). A
    group of its own (``auditor.replay.outcome.contradicted``), failing the run only under
    ``--fail-on any-change`` (``auditor.aggregate.gate.CONTRADICTED_FAIL``)."""

    @property
    def share(self) -> float:
        return self.count / self.tool_calls if self.tool_calls else 0.0


@dataclass(frozen=True)
class OffendingValue:
    """A distinct value a group's calls sent where they fail, as the report shows it."""

    value: JSON
    calls: int
    first: str
    last: str


class ProfileCode(str, Enum):
    """What made an upgrade profile's new schemas (``ProfileRun.ran``)."""

    SDK = "sdk"
    """The SDK function the profile follows, installed where the audit ran."""
    MODEL = "model"
    """The profile's built-in model of it."""


@dataclass(frozen=True)
class ProfileRun:
    """Which code made an upgrade profile's new schemas in an audit: the SDK function the
    profile follows, where it is installed, or the profile's built-in model."""

    profile: str
    """The profile's rule family (``google-genai``)."""
    function: str = ""
    """The SDK function followed (``google.genai.types.Tool.model_validate``); empty for a
    profile that follows none (``close-objects``)."""
    package: str = ""
    """The distribution that holds it (``google-genai``)."""
    versions: str = ""
    """The releases the built-in model was checked against (a PEP 440 specifier)."""
    installed: str | None = None
    """The version of ``package`` whose own code ran; None: the built-in model ran."""
    in_range: bool = True
    """Whether ``installed`` is within ``versions`` (it runs either way)."""

    @property
    def sdk(self) -> bool:
        """Whether the SDK's own code made the new schemas."""
        return self.installed is not None

    @property
    def ran(self) -> ProfileCode:
        """What made the new schemas."""
        return ProfileCode.SDK if self.sdk else ProfileCode.MODEL


@dataclass(frozen=True)
class BaselineUse:
    """What a baseline file did to this run."""

    path: str
    accepted_groups: int
    accepted_calls: int
    stale: tuple[str, ...]
    """Fingerprints in the baseline that no group of this run has."""


@dataclass(frozen=True)
class SkippedInput:
    """A file found in a catalog folder (or by a glob) that is no tool catalog: left out,
    named on stderr and in the report's inputs (``inputs.skipped``)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path} ({self.reason})"


@dataclass(frozen=True)
class LogStats:
    """How every line of one log file was accounted for.

    The fields are in the order the JSON report lists them (``inputs.logs``); every ``int``
    field is a count, which adds up across parts of the file (``merge``).
    """

    path: str
    format: str = ""
    """The log format the file was read as (detected or forced)."""
    lines: int = 0
    blank: int = 0
    records: int = 0
    """Non-blank lines, or 1 for a file that is one JSON document."""
    records_without_calls: int = 0
    """Records that parse and hold no tool call (a chat turn without tools, an MCP reply)."""
    repeated_calls: int = 0
    """Calls skipped because their tool-call id was read before (a request's history)."""
    calls: int = 0
    """Calls read (repeats excluded): what the outcome totals add up to."""

    def merge(self, other: LogStats) -> LogStats:
        """The accounting of this part of a file and of ``other``, read apart: the counts
        add up; the path and format are this part's (every part of a file shares them)."""
        return replace(
            self, **{name: getattr(self, name) + getattr(other, name) for name in LOG_COUNTS}
        )


LOG_COUNTS: tuple[str, ...] = tuple(f.name for f in fields(LogStats) if f.type in ("int", int))
"""The names of ``LogStats``' counts: every field but the path and the format."""


@dataclass(frozen=True)
class Gate:
    """What fails the run, decided once when the report is finished
    (``auditor.aggregate.gate.decide``): every format and the exit code read it (through the
    methods below and ``Report.failing_groups``), none decides again."""

    failing: frozenset[str] = frozenset()
    """Fingerprints of the groups that fail the run."""
    below: Mapping[str, str] = field(default_factory=dict)
    """Groups that would fail the run but for a usage threshold: fingerprint -> the
    thresholds it is below (``below --fail-min-calls 5``)."""
    exit_code: int = 0
    """1 when a group fails the run, else 0."""
    failing_outcomes: frozenset[Outcome] = frozenset()
    """The outcomes ``--fail-on`` counts (``auditor.aggregate.gate.FAILING_OUTCOMES``)."""
    contradicted_fail: bool = False
    """Whether a group the log contradicts fails the run at this ``--fail-on`` level
    (``auditor.aggregate.gate.CONTRADICTED_FAIL``)."""

    def fails(self, group: Group) -> bool:
        """Whether ``group`` fails the run."""
        return group.fingerprint in self.failing

    def below_threshold(self, group: Group) -> str | None:
        """Why ``group`` does not fail the run although ``--fail-on`` counts it and no
        baseline accepts it: the thresholds it is below (``below --fail-min-calls 5``); None
        when it is not such a group (it fails, or it would not fail anyway)."""
        return self.below.get(group.fingerprint)


class RollUpKind(str, Enum):
    """An entry of the roll-up (what to do): one per hint kind, the groups of a tool the
    change removed (whatever their hint), which ask the tool's callers to move, and the groups
    the log contradicts (``Group.contradicted``), which ask to check the old-runtime model. A
    new hint kind gets an entry here and in ``auditor.aggregate.rollup.KIND_OF_HINT`` (a test
    checks that every hint kind lands in one)."""

    FIX_CALLERS = "fix-callers"
    LOOSEN_SCHEMA = "loosen-schema"
    REVIEW = "review"
    TOOLS_REMOVED = "tools-removed"
    FIX_SCHEMA = "fix-schema"
    CONTRADICTED = "contradicted"


@dataclass(frozen=True)
class RollUpEntry:
    """The report's groups of one kind of decision, and what a reader acts on: the callers
    to fix, the verified patches to apply, the schema errors to fix."""

    kind: RollUpKind
    fingerprints: tuple[str, ...] = ()
    """The entry's groups, in the report's order."""
    calls: int = 0
    """The groups' calls added up (a call failing two constraints is in two groups)."""
    outcomes: tuple[tuple[Outcome, int], ...] = ()
    """Groups per outcome, in the order of ``Outcome``; only outcomes with a group."""
    tools: tuple[str, ...] = ()
    """The groups' tools, each once, in the report's order."""
    callers: tuple[tuple[str, int], ...] = ()
    """The callers the groups name, with the groups' calls of each, most first (at most
    ``auditor.aggregate.rollup.ROLLUP_CALLERS``)."""
    more_callers: bool = False
    """Callers beyond those listed exist (past that bound, or past a group's own)."""
    patches: int = 0
    """Groups with a verified loosening that ``--suggest-patch`` writes into a catalog file."""
    unwritable_patches: int = 0
    """Groups with a loosening verified on the schema that cannot be written into its file."""
    patch_command: str | None = None
    """The option that writes the patches (``--suggest-patch PATH``, with the
    ``--suggest-patch-kinds`` that names the entry's kind when it is not the default); None
    without one."""
    errors: tuple[tuple[str, str], ...] = ()
    """(tool, problem) of each unusable new schema, each pair once, in the report's order."""

    @property
    def groups(self) -> int:
        return len(self.fingerprints)


@dataclass(frozen=True)
class RollUp:
    """What to do, computed once when the report is finished
    (``auditor.aggregate.rollup.roll_up``): every group of the report in exactly one entry,
    one entry per ``RollUpKind`` in that order (empty ones included)."""

    entries: tuple[RollUpEntry, ...] = ()

    def entry(self, kind: RollUpKind) -> RollUpEntry:
        """The entry of ``kind`` (an empty one when the roll-up has none)."""
        return next((e for e in self.entries if e.kind is kind), RollUpEntry(kind))

    @property
    def groups(self) -> int:
        """Every group of the entries: the report's groups."""
        return sum(entry.groups for entry in self.entries)


@dataclass(frozen=True)
class RuntimeSide:
    """What validated one side, when not today's default reading (``--new-runtime``, an SDK
    ``--old-runtime``, ``--assert-formats``, ``--default-dialect``)."""

    name: str
    follows: str
    """The code the model follows."""
    default_dialect: str
    """The draft a schema without ``$schema`` is read as."""
    formats: str | None
    """Whose checks assert ``format`` (``ajv-formats``, ``python-jsonschema``); None: none."""
    verdicts: str
    """What gave the verdicts: auditor's Python model (of Ajv, or python-jsonschema itself)."""


@dataclass(frozen=True)
class Report:
    """Everything the renderers need; built by the pipeline, never by a renderer."""

    version: str
    schema_inputs: tuple[str, ...]
    log_inputs: tuple[LogStats, ...]
    totals: dict[Outcome, int]
    tools: tuple[ToolSummary, ...]
    calls: tuple[CallResult, ...]
    """Every call whose outcome is not ``accepted``, in log order (up to ``max_calls``), with
    arguments redacted or truncated as the report's settings say."""
    unknown_tools: dict[str, int] = field(default_factory=dict)
    """Calls by unknown tool name, for the first names in sorted order (a bounded number)."""
    unknown_tools_other: int = 0
    """Calls of the unknown tools beyond those named in ``unknown_tools``."""
    nameless_calls: int = 0
    """Unparseable calls that name no tool (a line that is not JSON, or has no tool name)."""
    calls_over_budget: int = 0
    """Calls whose evaluation ran out of the CPU-time budget of a call (``--call-timeout``)."""
    overrides: tuple[Override, ...] = ()
    groups: tuple[Group, ...] = ()
    """Largest first; see ``auditor.aggregate.groups``."""
    calls_omitted: int = 0
    """Non-accepted calls not kept in ``calls`` because of ``max_calls``."""
    redacted: bool = False
    baseline: BaselineUse | None = None
    generated_at: str | None = None
    fail_on: FailOn = FailOn.NEWLY_REJECTED
    old_runtime: OldRuntime = OldRuntime.LENIENT
    runtimes: tuple[RuntimeSide, RuntimeSide] | None = None
    """The old and the new side's runtime, when either is not today's default reading."""
    new_schema_inputs: tuple[str, ...] = ()
    """The catalogs after the change (``--new-schemas``); empty when the new side is the
    normalized ``schema_inputs``."""
    against: str | None = None
    """The git revision the old catalogs were read at (``--against``)."""
    profile_runs: tuple[ProfileRun, ...] = ()
    """For each upgrade profile ``--rules`` names: which code made its new schemas."""
    added_tools: tuple[str, ...] = ()
    """Tools only the new catalogs define."""
    group_by: GroupBy = GroupBy.CONSTRAINT
    fail_min_calls: int = 1
    """A group of fewer calls does not fail the run (``--fail-min-calls``; 1: any group)."""
    fail_min_share: float = 0.0
    """A group of a smaller fraction of its tool's logged calls does not fail the run
    (``--fail-min-share``; 0: any group)."""
    counterexamples: tuple[Counterexample, ...] = ()
    """For each change no logged call reached, or none failed: an argument that shows it bites,
    or why none exists. Never counted among the logged calls."""
    removed_properties: tuple[RemovedPropertyCalls, ...] = ()
    """For each property the change removed (by tool, in the tools' order), the logged calls
    that still send it; only removals some call still sends."""
    skipped_inputs: tuple[SkippedInput, ...] = ()
    """Files of the catalog folders (both sides) that are no tool catalog, left out."""
    subject: Subject = Subject.ARGUMENTS
    """What this report's calls are: arguments (the default), or results (``results``, or
    the whole report under ``--subject results``); renderers label a results report so."""
    results: Report | None = None
    """The logged results replayed against the tools' output schemas (``--subject both``),
    where the logs hold results of tools that declare one: a report of its own (its calls
    are results: ``Call.arguments`` holds the structured content, ``source`` the place of
    the result), counted and gated apart, never in ``totals``."""
    not_validated: NotValidated | None = None
    """Of a results report: the results read and not replayed (error results, ...)."""
    gate: Gate = field(kw_only=True)
    """What fails the run under ``fail_on`` and the thresholds, decided from ``groups`` when the
    report was finished."""
    rollup: RollUp = field(kw_only=True)
    """What to do: the groups by the decision they ask for, computed from ``groups`` when the
    report was finished."""

    def failing_groups(self) -> list[Group]:
        """Groups that fail the run, in the report's order (``gate``)."""
        return [g for g in self.groups if g.fingerprint in self.gate.failing]

    def below_threshold_groups(self) -> list[Group]:
        """Groups that would fail the run but for a usage threshold (``gate``; the reports
        still show them, marked with the threshold)."""
        return [g for g in self.groups if g.fingerprint in self.gate.below]

    @property
    def proven_count(self) -> int:
        """Newly rejected calls that the log shows ran."""
        return sum(t.proven for t in self.tools)

    @property
    def contradiction_count(self) -> int:
        return sum(t.contradictions for t in self.tools)

    @property
    def call_count(self) -> int:
        return sum(self.totals.values())

    @property
    def rewrite_count(self) -> int:
        return sum(len(t.rewrites) for t in self.tools)

    @property
    def change_kind(self) -> ChangeKind:
        if self.against is not None:
            return ChangeKind.GIT
        return ChangeKind.CATALOGS if self.new_schema_inputs else ChangeKind.NORMALIZE

    @property
    def removed_tools(self) -> tuple[str, ...]:
        """Tools the new catalogs no longer define."""
        return tuple(t.name for t in self.tools if any(r.removes_tool for r in t.rewrites))

    @property
    def text_edit_count(self) -> int:
        """Text-only edits of every tool: differences no validator enforces, not changes."""
        return sum(t.text_edits for t in self.tools)

    @property
    def unexercised_count(self) -> int:
        """Rewrites whose keyword no logged call reached."""
        return sum(1 for t in self.tools for n in t.reached if n == 0)


@dataclass(frozen=True)
class NotValidated:
    """Results read from the logs and not replayed against an output schema, by reason."""

    error_results: int = 0
    """Results marked as errors (MCP ``isError: true``, an OTel span with an error status):
    not validated, as MCP says."""
    unstructured: int = 0
    """Results without structured content (MCP ``content`` only; OTel text that is not a
    JSON object): nothing to validate."""
    without_output_schema: int = 0
    """Results of tools the catalogs know but that declare no output schema."""

    @property
    def total(self) -> int:
        return self.error_results + self.unstructured + self.without_output_schema


@dataclass(frozen=True)
class ConstraintUse:
    """One constraint keyword of a tool's new schema and what the logs did to it."""

    pointer: str
    """RFC 6901 pointer of the keyword in the new schema."""
    keyword: str
    reached: int
    """Calls whose evaluation ran the keyword."""
    failed: int
    """Calls the new schema rejected with an error at the keyword."""


class CounterexampleStatus(str, Enum):
    """What the search for a counterexample to one change ended with."""

    FOUND = "found"
    """An argument the old runtime accepts and the new schema rejects because of the change."""
    HARMLESS = "harmless"
    """Proved: no argument can be rejected because of the change (``reason`` says why)."""
    NOT_FOUND = "not_found"
    """No counterexample among the candidates tried; not a proof."""
    UNUSABLE = "unusable"
    """Proved: every argument the change would reject makes the new schema fail to evaluate
    (``reason`` names the cause): those calls are counted as schema errors after, not as
    rejections, until the schema is fixed."""


@dataclass(frozen=True)
class Counterexample:
    """An argument that shows a change bites, verified on both sides, or why there is none."""

    tool: str
    change: Change
    status: CounterexampleStatus
    arguments: JSON = None
    """The argument (FOUND only), as reports may show it when derived from a logged call."""
    derived_from: str | None = None
    """The source of the logged call it was edited from; None when generated from the schema."""
    patch: tuple[JSON, ...] = ()
    """The JSON Patch (RFC 6902) that turns the logged call into ``arguments``."""
    reason: str = ""
    """For HARMLESS and NOT_FOUND: why (never holds logged data)."""
    candidates: int = 0
    """Candidate arguments checked with the validators."""


@dataclass(frozen=True)
class RemovedPropertyCalls:
    """The logged calls that send a property the change removed from the tool's schema: the
    new schema ignores it where objects are open (``ignored``: the call is accepted, and the
    tool no longer does what it asked), or refuses it where they are closed (the calls are
    then newly rejected, caused by the removal). docs/changes.md#removed-properties."""

    tool: str
    name: str
    """The property's name."""
    pointer: str
    """Its place in the arguments, as a JSON pointer (``*``: every member of an array)."""
    change: Change
    """The removal, as the changes list it."""
    ignored: bool
    """Proved: the new schema accepts the property wherever it is sent (objects are open)."""
    calls: int
    """Calls that send it."""
    newly_rejected: int
    """Of them, calls the old runtime accepted and the new schema rejects."""
    callers: tuple[tuple[str, int], ...] = ()
    """The callers the log names for those calls, with their calls, most first (at most
    ``MAX_SHOWN_CALLERS``); calls whose record names no caller are not counted."""
    more_callers: int = 0
    """Further callers counted, not shown."""
    examples: tuple[str, ...] = ()
    """Where the first of those calls are (``path:line``), in log order."""
