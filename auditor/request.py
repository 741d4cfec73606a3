"""What one audit is asked to do: ``AuditRequest``, the record every door into the core builds.

Its parts mirror the panels of ``auditor audit --help``: the inputs, the change audited, what
the report keeps, the gating and the limits. Each field is an option: its flag, help and
bounds are the field's metadata (``option``), so an option is added in one place and the
command line (``auditor.cli.audit``), the configuration file, docs/options.md and the
Action's inputs follow from it; the Python API (``auditor.api``) builds the same record.

Only names and enums are imported here: ``--help`` and a notebook's ``import`` must not load
the validation stack.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, field, fields
from enum import Enum
from typing import Any, Final

from auditor.defaults import DEFAULT_CALL_TIMEOUT, DEFAULT_EXAMPLES, DEFAULT_MAX_CALLS
from auditor.errors import AuditorError
from auditor.inputs.calls_from import CallsFrom
from auditor.inputs.catalog_formats import CatalogFormat
from auditor.inputs.columns import Columns
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES, DEFAULT_MAX_RECORD_BYTES, byte_size
from auditor.inputs.links import FOLLOW_LINKS
from auditor.inputs.log_format_names import LogFormat
from auditor.inputs.uri import WEB_FLAG
from auditor.models import (
    DEFAULT_RULES,
    RULE_FAMILIES,
    Dialect,
    FailOn,
    FormatSides,
    GroupBy,
    NewRuntime,
    OldRuntime,
    RollUpKind,
    Rule,
    RuntimeValidator,
    Subject,
)

INPUTS: Final = "Inputs"
CHANGE: Final = "The change audited"
OUTPUTS: Final = "Outputs"
GATING: Final = "Gating"
LIMITS: Final = "Limits"
"""The panels of ``audit --help``, in the order it shows them."""

AUTO: Final = "auto"
DEFAULT_RULES_TEXT: Final = ",".join(rule.value for rule in Rule if rule in DEFAULT_RULES)
"""The default rule families as ``--rules`` spells them: ``keyword-case,type-case``."""


class RequestError(AuditorError):
    """A value no audit can be asked for (an unknown rule family); one line says which."""


def parse_rules(value: str | None) -> frozenset[Rule]:
    """``keyword-case,openapi`` -> the rule families; None gives the default families."""
    if value is None:
        return DEFAULT_RULES
    names = [name.strip().replace("_", "-") for name in value.split(",") if name.strip()]
    known = {rule.value: rule for rule in RULE_FAMILIES}
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise RequestError(
            f"unknown rule family {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(known)}"
        )
    return frozenset(known[name] for name in names)


class PatchKind(str, Enum):
    """Which groups' verified loosenings ``--suggest-patch`` writes (``--suggest-patch-kinds``):
    by the roll-up entry the group lands in."""

    LOOSEN_SCHEMA = "loosen-schema"
    """Most of the tool's calls fail the constraint: loosening it follows real use."""
    REVIEW = "review"
    """Neither rare nor the norm, or too few calls to tell: loosening it is a guess."""
    CONTRADICTION = "contradiction"
    """The log shows the calls ran although the old schema rejects them: no change explains
    their rejection, so no loosening of the change's keyword is the fix."""


DEFAULT_PATCH_KINDS: Final = frozenset({PatchKind.LOOSEN_SCHEMA})
PATCH_ENTRIES: Final[dict[PatchKind, RollUpKind]] = {
    PatchKind.LOOSEN_SCHEMA: RollUpKind.LOOSEN_SCHEMA,
    PatchKind.REVIEW: RollUpKind.REVIEW,
    PatchKind.CONTRADICTION: RollUpKind.CONTRADICTED,
}
"""The roll-up entry (``auditor.aggregate.rollup.kind_of``) of the groups of each kind."""


def parse_patch_kinds(value: str | None) -> frozenset[PatchKind]:
    """``loosen-schema,review`` -> the kinds; None gives the default (``loosen-schema``)."""
    if value is None:
        return DEFAULT_PATCH_KINDS
    names = [name.strip() for name in value.split(",") if name.strip()]
    known = {kind.value: kind for kind in PatchKind}
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise RequestError(
            f"unknown patch kind {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(known)}"
        )
    return frozenset(known[name] for name in names)


@dataclass(frozen=True)
class Option:
    """How a field of the request is an option of ``auditor audit``."""

    flags: tuple[str, ...]
    """The long flag first (``--jobs``), then any short one (``-j``)."""
    help: str
    panel: str
    metavar: str = ""
    least: float | None = None
    most: float | None = None
    """The bounds the command line checks (``--fail-min-share`` is at most 1)."""
    show_default: bool | str = False
    typed: tuple[type, Callable[[Any], Any]] | None = None
    """How the command line types it, when not as the field: the type it reads and the
    function that turns that into the field's value (``--rules`` is text)."""
    cli_only: bool = False
    """A configuration file cannot set it: it is about one run, or it widens what the run
    reads (the file is a pull request's to change)."""
    bound: bool = False
    """A safety bound on work or memory: a configuration file may set it at most to its
    default (it can lower the bound, never lift it; ``auditor.cli.config``)."""
    lifted_by: float | None = None
    """For a safety bound: the value that lifts it altogether (``0``: no limit), which only
    the command line may give."""
    names_inputs: bool = False
    """It names files to read (a configuration file's are confined to its folder)."""
    comma_list: bool = False
    """Its text is a comma-separated list (``--rules a,b``): a configuration file may give
    it as a TOML list of strings too (``rules = ["a", "b"]``)."""

    @property
    def flag(self) -> str:
        return self.flags[0]


def option(default: Any, *flags: str, help: str, panel: str, **more: Any) -> Any:
    """A field of the request that is the option ``flags``, with its default."""
    meta = {"option": Option(tuple(flags), help, panel, **more)}
    if isinstance(default, (list, dict, set)):
        raise TypeError("a request's defaults are immutable")
    return field(default=default, metadata=meta)


def option_of(spec: Field[Any]) -> Option:
    found = spec.metadata.get("option")
    if not isinstance(found, Option):
        raise TypeError(f"{spec.name} is not an option")
    return found


class Engine(str, Enum):
    """Where the parts of the logs are audited; every engine gives the same report."""

    LOCAL = "local"
    """Worker processes on this machine (``--jobs``; one pass in this process for one job):
    the default, with no extra."""
    SPARK = "spark"
    RAY = "ray"


class CatalogFormatChoice(str, Enum):
    """``--catalog-format``: every catalog format, or ``auto`` to detect each file's."""

    AUTO = AUTO
    OPENAI = CatalogFormat.OPENAI.value
    OPENAI_RESPONSES = CatalogFormat.OPENAI_RESPONSES.value
    ANTHROPIC = CatalogFormat.ANTHROPIC.value
    MCP = CatalogFormat.MCP.value
    GEMINI = CatalogFormat.GEMINI.value
    OTEL = CatalogFormat.OTEL.value
    SCHEMA = CatalogFormat.SCHEMA.value
    MAPPING = CatalogFormat.MAPPING.value

    def to_format(self) -> CatalogFormat | None:
        return None if self.value == AUTO else CatalogFormat(self.value)


class LogFormatChoice(str, Enum):
    """``--log-format``: every log format, or ``auto`` to detect each file's."""

    AUTO = AUTO
    JSONL = LogFormat.JSONL.value
    OPENAI = LogFormat.OPENAI.value
    OPENAI_RESPONSES = LogFormat.OPENAI_RESPONSES.value
    ANTHROPIC = LogFormat.ANTHROPIC.value
    MCP = LogFormat.MCP.value
    OTEL = LogFormat.OTEL.value
    GEMINI = LogFormat.GEMINI.value

    def to_format(self) -> LogFormat | None:
        return None if self.value == AUTO else LogFormat(self.value)


@dataclass(frozen=True)
class Inputs:
    """The catalogs and the logs, and how they are read."""

    schemas: tuple[str, ...] = option(
        (),
        "--schemas",
        panel=INPUTS,
        metavar="PATH...",
        names_inputs=True,
        help="Catalog files or directories (JSON or YAML); '-' is stdin. Required.",
    )
    logs: tuple[str, ...] = option(
        (),
        "--logs",
        panel=INPUTS,
        metavar="PATH...",
        names_inputs=True,
        help="Call logs or directories of them; '-' is stdin; .gz is read as is. Required.",
    )
    allow_override: bool = option(
        False,
        "--allow-override",
        panel=INPUTS,
        help="A tool defined twice: the later one wins.",
    )
    catalog_format: CatalogFormatChoice = option(
        CatalogFormatChoice.AUTO,
        "--catalog-format",
        panel=INPUTS,
        metavar="FORMAT",
        show_default=True,
        help="Read every catalog in this format: "
        f"{', '.join(c.value for c in CatalogFormatChoice)}.",
    )
    log_format: LogFormatChoice = option(
        LogFormatChoice.AUTO,
        "--log-format",
        panel=INPUTS,
        metavar="FORMAT",
        show_default=True,
        help=f"Read every log in this format: {', '.join(c.value for c in LogFormatChoice)}.",
    )
    calls_from: CallsFrom = option(
        CallsFrom.ALL,
        "--calls-from",
        panel=INPUTS,
        metavar="SIDE",
        show_default=True,
        help="Calls of OpenAI, Anthropic and Gemini request/response logs to count: all (a call "
        "repeated in later request histories once, by its id; the logs are read in one "
        "pass), or responses (only where the model produced it; such logs are then cut "
        "in parts for --jobs and the engines, and replies are not paired with calls).",
    )
    subject: Subject = option(
        Subject.BOTH,
        "--subject",
        panel=INPUTS,
        metavar="SUBJECT",
        show_default=True,
        help="What is replayed: arguments (against input schemas), results (MCP "
        "structuredContent, OTel gen_ai.tool.call.result, against output schemas), or both "
        "(results only where the logs hold results of tools that declare an output "
        "schema), each counted and gated apart (docs/mcp-upgrades.md).",
    )
    tool_column: str | None = option(
        None,
        "--tool-column",
        panel=INPUTS,
        metavar="NAME",
        help="The tool-name column of Parquet and Arrow logs (default: the first of "
        "tool_name, gen_ai.tool.name, tool, name).",
    )
    arguments_column: str | None = option(
        None,
        "--arguments-column",
        panel=INPUTS,
        metavar="NAME",
        help="The arguments column (JSON text or a struct) of Parquet and Arrow logs "
        "(default: the first of arguments, gen_ai.tool.call.arguments, args, input).",
    )
    follow_links: bool = option(
        False,
        FOLLOW_LINKS,
        panel=INPUTS,
        cli_only=True,
        help="Read the symbolic links in catalog and log folders whose target is outside "
        "the folder (refused by default: a pull request can add such a link). Your "
        "choice, on the command line only.",
    )
    allow_web_uris: bool = option(
        False,
        WEB_FLAG,
        panel=INPUTS,
        cli_only=True,
        help="Read http://, https:// and ftp:// URIs (the network; refused by default). "
        "On the command line only.",
    )

    @property
    def columns(self) -> Columns:
        """The tool and arguments columns of Parquet and Arrow logs (None: found by name)."""
        return Columns(self.tool_column, self.arguments_column)


@dataclass(frozen=True)
class TheChange:
    """What the new side of the replay is, and what enforced the old one."""

    new_schemas: tuple[str, ...] = option(
        (),
        "--new-schemas",
        panel=CHANGE,
        metavar="PATH...",
        names_inputs=True,
        help="The catalogs after the change, taken as written (normalized only by an "
        "explicit --rules); tools are matched by name. Default: --schemas normalized.",
    )
    against: str | None = option(
        None,
        "--against",
        panel=CHANGE,
        metavar="REF",
        help="Audit the change from git revision REF to the work tree: the old catalogs "
        "are the --schemas files at REF (read with git, never checked out).",
    )
    repo: str | None = option(
        None,
        "--repo",
        panel=CHANGE,
        metavar="DIR",
        cli_only=True,
        help="The git work tree --against reads. Default: the one around the working "
        "directory. Command line only.",
    )
    rules: frozenset[Rule] | None = option(
        None,
        "--rules",
        panel=CHANGE,
        metavar="FAMILIES",
        show_default=DEFAULT_RULES_TEXT,
        typed=(str, parse_rules),
        comma_list=True,
        help="Comma-separated rule families of the normalization to audit, as for "
        f"`auditor normalize`: {', '.join(rule.value for rule in RULE_FAMILIES)}.",
    )
    """None: not named. Then a normalization applies the default families and catalogs
    given as written (``--new-schemas``, ``--against``) are not normalized at all."""
    old_runtime: OldRuntime = option(
        OldRuntime.LENIENT,
        "--old-runtime",
        panel=CHANGE,
        metavar="RUNTIME",
        show_default=True,
        help="What enforced the old schema when the logs were written: lenient (what it "
        "cannot evaluate enforces nothing), standard (a conforming validator), none "
        "(nothing was validated), or an SDK's model: mcp-ts-v1, mcp-ts-v2, mcp-python-1 "
        "(docs/runtimes.md).",
    )
    new_runtime: NewRuntime = option(
        NewRuntime.STANDARD,
        "--new-runtime",
        panel=CHANGE,
        metavar="RUNTIME",
        show_default=True,
        help="What validates the new schema: standard (a conforming validator, format an "
        "annotation), mcp-ts-v2 (Ajv2020/Ajv2019/Ajv by $schema, ajv-formats, other "
        "dialects refused), mcp-ts-v1 (draft-07 Ajv, ajv-formats), mcp-python-1 "
        "(python-jsonschema by $schema), none (nothing is validated).",
    )
    assert_formats: FormatSides = option(
        FormatSides.RUNTIME,
        "--assert-formats",
        panel=CHANGE,
        metavar="SIDES",
        show_default=True,
        help="Which sides assert format (date-time needs an offset, email, uri, uuid, "
        "ipv4...), with their runtime's checks (ajv-formats for the mcp-ts runtimes, "
        "python-jsonschema's otherwise): runtime (as each runtime does), both, new, old, "
        "neither.",
    )
    default_dialect: Dialect | None = option(
        None,
        "--default-dialect",
        panel=CHANGE,
        metavar="DIALECT",
        show_default="none (the new runtime's)",
        help="The draft the new side reads a schema without $schema as: draft-07, "
        "2019-09, 2020-12.",
    )
    runtime_validator: RuntimeValidator = option(
        RuntimeValidator.MODEL,
        "--runtime-validator",
        panel=CHANGE,
        metavar="WHICH",
        show_default=True,
        help="What gives the verdicts of an mcp-ts runtime: model (auditor's Python model of "
        "Ajv) or ajv (Ajv and ajv-formats under node, from --node-modules; nothing is "
        "installed at run time, and their absence exits 2).",
    )
    node_modules: str | None = option(
        None,
        "--node-modules",
        panel=CHANGE,
        metavar="DIR",
        cli_only=True,
        show_default="none (AUDITOR_NODE_MODULES)",
        help="The node_modules folder holding ajv and ajv-formats for --runtime-validator "
        "ajv (code that runs: on the command line only).",
    )
    old_default_dialect: Dialect | None = option(
        None,
        "--old-default-dialect",
        panel=CHANGE,
        metavar="DIALECT",
        show_default="none (the old runtime's)",
        help="The same for the old side.",
    )

    @property
    def normalization(self) -> frozenset[Rule]:
        """The rule families a normalization applies: ``rules``, else the default ones."""
        return DEFAULT_RULES if self.rules is None else self.rules


@dataclass(frozen=True)
class Keep:
    """What the report keeps of each group and call."""

    examples: int = option(
        DEFAULT_EXAMPLES,
        "--examples",
        panel=OUTPUTS,
        least=0,
        metavar="N",
        show_default=True,
        help="Example calls per group.",
    )
    group_by: GroupBy = option(
        GroupBy.CONSTRAINT,
        "--group-by",
        panel=OUTPUTS,
        metavar="WHAT",
        show_default=True,
        help="constraint: one group per failing constraint, listing its callers; caller: "
        "one group per constraint and caller the log names.",
    )
    redact: bool = option(
        False,
        "--redact",
        panel=OUTPUTS,
        help="Show logged values only by their shape (type, length).",
    )
    max_calls: int = option(
        DEFAULT_MAX_CALLS,
        "--max-calls",
        panel=OUTPUTS,
        least=0,
        metavar="N",
        show_default=True,
        bound=True,
        lifted_by=0,
        help="List at most N changed calls one by one (0: all). Groups and counts always "
        "cover every call.",
    )
    suggest_patch_kinds: frozenset[PatchKind] | None = option(
        None,
        "--suggest-patch-kinds",
        panel=OUTPUTS,
        metavar="KINDS",
        show_default=PatchKind.LOOSEN_SCHEMA.value,
        typed=(str, parse_patch_kinds),
        comma_list=True,
        help="Comma-separated kinds of groups whose verified loosening --suggest-patch "
        f"writes: {', '.join(kind.value for kind in PatchKind)} (a review group's loosening "
        "is a guess, a contradiction's no fix of the change).",
    )
    """None: not named, ``DEFAULT_PATCH_KINDS`` (``patch_kinds``)."""
    timestamp: bool = option(
        False,
        "--timestamp",
        panel=OUTPUTS,
        cli_only=True,
        help="Stamp the reports with the time of the run.",
    )

    @property
    def patch_kinds(self) -> frozenset[PatchKind]:
        """The kinds of groups ``--suggest-patch`` (and the SARIF fixes) write."""
        return DEFAULT_PATCH_KINDS if self.suggest_patch_kinds is None else self.suggest_patch_kinds


@dataclass(frozen=True)
class Gating:
    """What makes the run fail (exit 1), and what traffic it expects."""

    fail_on: FailOn = option(
        FailOn.NEWLY_REJECTED,
        "--fail-on",
        panel=GATING,
        metavar="WHEN",
        show_default="newly-rejected",
        help="What exits 1: newly-rejected (anything that breaks after the change: newly "
        "rejected calls, removed tools' calls, calls meeting an unusable new schema); "
        "schema-error (also old schemas that were unusable); any-change (also newly "
        "accepted calls and the log's contradictions); never.",
    )
    fail_min_calls: int = option(
        1,
        "--fail-min-calls",
        panel=GATING,
        least=1,
        metavar="N",
        show_default=True,
        help="A group of fewer than N calls is reported but does not fail the run.",
    )
    fail_min_share: float = option(
        0.0,
        "--fail-min-share",
        panel=GATING,
        least=0,
        most=1,
        metavar="FRACTION",
        show_default=True,
        help="A group of less than this fraction of its tool's logged calls (0.001: one "
        "in a thousand) is reported but does not fail the run.",
    )
    min_calls: int = option(
        1,
        "--min-calls",
        panel=GATING,
        least=1,
        metavar="N",
        show_default=True,
        help="Fewer calls read from the logs exits 2: a gate that expects traffic.",
    )
    allow_empty: bool = option(
        False,
        "--allow-empty",
        panel=GATING,
        help="Logs holding no call at all (empty files, folders without logs) are "
        "said on stderr and audited, instead of exiting 2.",
    )
    baseline: str | None = option(
        None,
        "--baseline",
        panel=GATING,
        metavar="FILE",
        names_inputs=True,
        help="Accept the groups listed in this file.",
    )


@dataclass(frozen=True)
class Limits:
    """How the work is split and bounded; no limit changes a report but by what it bounds."""

    jobs: int | None = option(
        None,
        "--jobs",
        "-j",
        panel=LIMITS,
        least=1,
        metavar="N",
        show_default="one per core",
        help="Worker processes reading the logs. Reports do not depend on it.",
    )
    """None: one per core (``workers``)."""
    engine: Engine = option(
        Engine.LOCAL,
        "--engine",
        panel=LIMITS,
        metavar="ENGINE",
        show_default=True,
        help="Where the parts of the logs are audited: local (processes, --jobs), "
        "spark or ray (the extras spark and ray of tool-schema-auditor; a local one with "
        "--jobs cores unless spark-submit or RAY_ADDRESS names a cluster). Reports do not "
        "depend on it.",
    )
    call_timeout: float = option(
        DEFAULT_CALL_TIMEOUT,
        "--call-timeout",
        panel=LIMITS,
        least=0,
        metavar="SECONDS",
        show_default=True,
        bound=True,
        lifted_by=0,
        help="CPU seconds one call may take to evaluate (0: no limit).",
    )
    max_record_bytes: int = option(
        DEFAULT_MAX_RECORD_BYTES,
        "--max-record-bytes",
        panel=LIMITS,
        least=1,
        metavar="N",
        show_default=byte_size(DEFAULT_MAX_RECORD_BYTES),
        bound=True,
        help="Longest log line or JSON document parsed; longer is unparseable.",
    )
    max_catalog_bytes: int = option(
        DEFAULT_MAX_CATALOG_BYTES,
        "--max-catalog-bytes",
        panel=LIMITS,
        least=1,
        metavar="N",
        show_default=byte_size(DEFAULT_MAX_CATALOG_BYTES),
        bound=True,
        help="Largest catalog file read; larger exits 2.",
    )
    scratch: str | None = option(
        None,
        "--scratch",
        panel=LIMITS,
        metavar="DIR",
        show_default="none",
        help="A folder where each part of the logs (--jobs, --engine) writes the calls it "
        "lists in the report, so that they do not travel back to the driver, which reads "
        "the first --max-calls back; on a cluster, one every worker can write. Reports do "
        "not depend on it.",
    )

    @property
    def workers(self) -> int:
        """The worker processes asked for: ``jobs``, else one per core."""
        return self.jobs or os.cpu_count() or 1


_PART_TYPES: Final = {
    "inputs": Inputs,
    "change": TheChange,
    "keep": Keep,
    "gating": Gating,
    "limits": Limits,
}


@dataclass(frozen=True)
class AuditRequest:
    """One audit: every part has the defaults ``auditor audit`` has."""

    inputs: Inputs = field(default_factory=Inputs)
    change: TheChange = field(default_factory=TheChange)
    keep: Keep = field(default_factory=Keep)
    gating: Gating = field(default_factory=Gating)
    limits: Limits = field(default_factory=Limits)


PARTS: Final[tuple[tuple[str, type], ...]] = tuple(
    (spec.name, spec.type if isinstance(spec.type, type) else _PART_TYPES[spec.name])
    for spec in fields(AuditRequest)
)
"""The request's parts by field name, in ``--help`` order."""


def option_fields(part: type) -> list[Field[Any]]:
    """The fields of a part of the request (or of the command line's own options)."""
    return [spec for spec in fields(part) if "option" in spec.metadata]


def field_default(spec: Field[Any]) -> Any:
    if spec.default is MISSING:
        raise TypeError(f"option {spec.name} has no default")
    return spec.default
