"""The plain records that flow between the pipeline's stages.

Every record is a frozen dataclass over JSON-like data, so stages stay pure functions and a
report can be rendered, compared or serialized without knowing where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

JSON = Any
"""A decoded JSON value: dict, list, str, int, float, bool or None."""


class Outcome(str, Enum):
    """What replaying one call against the old and the new schema showed.

    The members are declared in the order they are checked (see DESIGN.md): the first that
    applies is the call's outcome.
    """

    UNKNOWN_TOOL = "unknown_tool"
    UNPARSEABLE = "unparseable"
    SCHEMA_ERROR_AFTER = "schema_error_after"
    SCHEMA_ERROR_BEFORE = "schema_error_before"
    ACCEPTED = "accepted"
    NEWLY_REJECTED = "newly_rejected"
    STILL_REJECTED = "still_rejected"
    NEWLY_ACCEPTED = "newly_accepted"


class Rule(str, Enum):
    """The families of rewrites the normalizer can make."""

    KEYWORD_CASE = "keyword-case"
    TYPE_CASE = "type-case"


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


@dataclass(frozen=True)
class Override:
    """A tool name defined twice; the later definition won (``--allow-override``)."""

    tool: str
    kept: Location
    replaced: Location


@dataclass(frozen=True)
class Rewrite:
    """One change the normalizer made to a schema."""

    pointer: str
    """RFC 6901 pointer in the *old* schema: of the key for a keyword, of the value for a type."""
    old: str
    new: str
    rule: Rule
    new_pointer: str
    """The same place in the *new* schema."""

    def describe(self) -> str:
        return f"{self.pointer}: {self.old} → {self.new}"


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


@dataclass(frozen=True)
class Unparsed:
    """Log text that did not give a usable call, and why."""

    raw: str
    reason: str


@dataclass(frozen=True)
class Call:
    """One logged tool call: the tool it names and its arguments, or the text that did not parse."""

    source: str
    """``path:line`` of the log record, plus ``#position`` where the record holds several
    calls (``calls.jsonl:12#choices[0].message.tool_calls[1]``)."""
    tool: str | None
    arguments: JSON = None
    unparsed: Unparsed | None = None


@dataclass(frozen=True)
class ValidationIssue:
    """One error a schema reported for a call, with the rewrites that made it possible."""

    instance_pointer: str
    keyword: str
    schema_pointer: str
    """Where the failing keyword stands in the new schema, following ``$ref`` into its target."""
    message: str
    causes: tuple[Rewrite, ...] = ()


@dataclass(frozen=True)
class CallResult:
    """The outcome of replaying one call, with what a reviewer needs to understand it."""

    call: Call
    outcome: Outcome
    errors: tuple[ValidationIssue, ...] = ()
    """Errors of the new schema (newly or still rejected; schema_error_before when it rejects)."""
    schema_problem: str | None = None
    """Why a schema could not be used for this call (schema_error_before/after)."""


@dataclass(frozen=True)
class ToolSummary:
    """Per-tool facts for the report: provenance, rewrites, findings, outcome counts."""

    name: str
    location: Location
    pointer: str
    shape: str
    rewrites: tuple[Rewrite, ...]
    findings: tuple[Finding, ...]
    counts: dict[Outcome, int]
    old_schema_problem: str | None
    new_schema_problem: str | None


@dataclass(frozen=True)
class LogStats:
    """How every line of one log file was accounted for."""

    path: str
    lines: int = 0
    blank: int = 0
    calls: int = 0
    """Calls read (repeats excluded): what the outcome totals add up to."""
    format: str = ""
    """The log format the file was read as (detected or forced)."""
    records: int = 0
    """Non-blank lines, or 1 for a file that is one JSON document."""
    records_without_calls: int = 0
    """Records that parse and hold no tool call (a chat turn without tools, an MCP reply)."""
    repeated_calls: int = 0
    """Calls skipped because their tool-call id was read before (a request's history)."""


@dataclass(frozen=True)
class Report:
    """Everything the renderers need; built by the pipeline, never by a renderer."""

    version: str
    schema_inputs: tuple[str, ...]
    log_inputs: tuple[LogStats, ...]
    totals: dict[Outcome, int]
    tools: tuple[ToolSummary, ...]
    calls: tuple[CallResult, ...]
    """Every call whose outcome is not ``accepted``, in log order."""
    unknown_tools: dict[str, int] = field(default_factory=dict)
    nameless_calls: int = 0
    """Unparseable calls that name no tool (a line that is not JSON, or has no tool name)."""
    overrides: tuple[Override, ...] = ()

    @property
    def call_count(self) -> int:
        return sum(self.totals.values())
