"""Replay one call against a tool's old and new schema and decide its outcome.

Each schema is checked against its meta-schema and compiled once per tool. References resolve
against a registry holding only the schema itself and the JSON Schema meta-schemas, so nothing
is ever fetched: a remote ``$ref`` is unresolvable, found when a call reaches it.
"""

from __future__ import annotations

import functools
import json
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Final

import jsonschema_specifications
import orjson
import referencing.exceptions
from jsonschema import exceptions, validators
from jsonschema.protocols import Validator

from auditor import pointers
from auditor.inputs.limits import MAX_NESTING, MAX_SCHEMA_NODES, too_deep, too_large
from auditor.models import (
    ACCEPTS,
    JSON,
    REJECTS,
    Call,
    CallResult,
    Change,
    LenientReading,
    OldRuntime,
    Rule,
    ToolSchema,
    ValidationIssue,
    Verdict,
)
from auditor.replay.ajv import AjvVerdict
from auditor.replay.budget import CallBudget, CallTimeout, UnusablePattern, budgeted
from auditor.replay.causes import Accepts, CauseFinder
from auditor.replay.constraints import Site, constraint_sites
from auditor.replay.coverage import CoverageTracker
from auditor.replay.fast_errors import FastErrors, keyable
from auditor.replay.fast_validator import FastCheck, meta_valid
from auditor.replay.lenient_fast import compile_lenient
from auditor.replay.observed import observe
from auditor.replay.outcome import decide
from auditor.replay.runtimes import Reading, Runtime, Runtimes, format_checker, validator_class
from auditor.schema.keywords import Draft, draft_of
from auditor.schema.lenient import REFERENCE_READINGS, read_leniently, tolerant
from auditor.schema.normalize import Normalized

MAX_ERRORS: Final = 20
"""Errors kept per call: enough to explain it, bounded for pathological arguments."""
MAX_MESSAGE: Final = 300
MEMO_ENTRIES: Final = 200_000
"""Distinct (tool, arguments) remembered across all tools: most repeats are recent."""
MEMO_BYTES: Final = 32 << 20
"""Memory the remembered entries may take (their keys and what they hold), whatever their
number: 300 distinct 2 MB arguments took 600 MB when only entries were counted. 64 MiB
found 1% more repeats of issue 26's 1M-call workload (264,430 hits against 261,689 of
870,508 lookups) for 32 MiB more peak RSS (benchmarks/memory.py)."""
MAX_SHARED_REACHED: Final = 10_000
"""Distinct sets of reached keywords per tool that remembered entries share."""
MEMO_MAX_ARGUMENT: Final = 256 << 10
"""Arguments texts longer than this are replayed each time, never remembered."""

_LOCAL_ONLY: Final = jsonschema_specifications.REGISTRY
VALIDATORS: Final[dict[Draft, Any]] = {
    Draft.DRAFT4: validators.Draft4Validator,
    Draft.DRAFT6: validators.Draft6Validator,
    Draft.DRAFT7: validators.Draft7Validator,
    Draft.DRAFT2019: validators.Draft201909Validator,
    Draft.DRAFT2020: validators.Draft202012Validator,
}
_VALUE_FIXES: Final = frozenset({Rule.TYPE_CASE, Rule.TYPE_ALIAS, Rule.OPENAPI})

Detailed = Callable[[CallResult], bool]
"""Whether the report will show a call's result in detail (list it, or keep it as the first
call or an example of a group): only then must its errors be python-jsonschema's own, messages
and all (``Tally.detailed``)."""


@dataclass
class LightStats:
    """Calls whose rejection the fast validator alone described (``ToolReplay.evaluate``): the
    tests assert the fast path ran."""

    calls: int = 0


LIGHT: Final = LightStats()


@dataclass
class OldVerdictStats:
    """Old verdicts (``ToolReplay._old_verdict``) the compiled lenient reading gave, and those
    python-jsonschema gave (every fast acceptance of another kind aside): the tests assert the
    compiled path ran."""

    compiled: int = 0
    reference: int = 0


OLD_VERDICTS: Final = OldVerdictStats()


@dataclass(frozen=True)
class Compiled:
    """A schema ready to evaluate calls, or why it cannot be used for any call."""

    validator: Validator | None
    problem: str | None


def compile_schema(
    schema: JSON, budget: CallBudget | None = None, reading: Reading | None = None
) -> Compiled:
    """Check ``schema`` against its meta-schema and build its validator once; with a
    ``budget``, evaluating a call stops with ``CallTimeout`` when it runs out. ``reading``: how
    a runtime other than the default one reads it (``auditor.replay.runtimes``)."""
    if reading is not None and reading.refusal is not None:
        return Compiled(None, reading.refusal)
    if reading is not None and not reading.validates:  # nothing validated: all passes
        return Compiled(build_validator(True, budget), None)
    problem = schema_problem(schema, None if reading is None else reading.draft)
    if problem is not None:
        return Compiled(None, problem)
    return Compiled(build_validator(schema, budget, reading), None)


def build_validator(
    schema: JSON, budget: CallBudget | None = None, reading: Reading | None = None
) -> Validator:
    """The validator ``compile_schema`` builds, for a schema already shown to be usable
    (``schema_problem`` would say None)."""
    cls: Any = (
        VALIDATORS[draft_of(schema)]
        if reading is None
        else validator_class(reading.draft, reading.ajv_keywords)
    )
    evaluator = cls if budget is None else budgeted(cls, budget)
    if reading is not None and reading.formats is not None:
        checked: Validator = evaluator(
            schema, registry=_LOCAL_ONLY, format_checker=format_checker(reading.formats)
        )
        return checked
    validator: Validator = evaluator(schema, registry=_LOCAL_ONLY)
    return validator


def schema_problem(schema: JSON, draft: Draft | None = None) -> str | None:
    """Why ``schema`` cannot be used for any call (its meta-schema refuses it, or it nests too
    deeply), or None; what ``compile_schema`` says, without building anything. ``draft``: the
    draft a runtime reads it as, when not the one it declares."""
    if too_deep(schema):  # checked first: the meta-schema check itself recurses
        return f"nests more than {MAX_NESTING} levels deep (too deep to evaluate)"
    if too_large(schema):  # preparing it takes time and memory in proportion
        return f"holds more than {MAX_SCHEMA_NODES:,} values (too large to prepare)"
    # The draft is read the way the normalizer reads it (https and a missing "#" included),
    # so both stages always agree on the vocabulary.
    draft = draft or draft_of(schema)
    if meta_valid(draft, schema):  # the fast validator's word, where it is python-jsonschema's
        return None
    meta = _meta_validator(VALIDATORS[draft])
    try:
        # All errors, sorted: which one python-jsonschema meets first depends on set order,
        # which changes from run to run, and reports must not.
        problems = sorted(
            (pointers.from_segments(e.absolute_path), e.message) for e in meta.iter_errors(schema)
        )
    except RecursionError:
        return "is nested too deeply to check against its meta-schema"
    if problems:
        where, message = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return _clip(f"fails its meta-schema at '{where}': {message}{more}")
    return None


def _meta_validator(cls: Any) -> Any:
    meta_cls: Any = validators.validator_for(cls.META_SCHEMA, default=cls)
    return meta_cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)


def new_schema_problem(normalized: Normalized, runtimes: Runtimes | None = None) -> str | None:
    """Why no call can be evaluated against the new schema: the upgraded code refuses it, or
    it fails its meta-schema (as the new runtime reads it); None when it is usable."""
    if normalized.refusal is not None:
        return normalized.refusal
    if runtimes is not None:
        reading = runtimes.new.read(normalized.schema)
        if reading.refusal is not None or not reading.validates:
            return reading.refusal
        return schema_problem(normalized.schema, reading.draft)
    return schema_problem(normalized.schema)


@dataclass(frozen=True)
class SchemaSummary:
    """What the report says of a tool's schemas: ``ToolReplay``'s ``old_problem``,
    ``new.problem`` and ``readings``."""

    old_problem: str | None
    new_problem: str | None
    readings: tuple[LenientReading, ...]


def summarize(
    tool: ToolSchema,
    normalized: Normalized,
    old_runtime: OldRuntime,
    runtimes: Runtimes | None = None,
) -> SchemaSummary:
    """The ``SchemaSummary`` a ``ToolReplay`` of ``tool`` would give, without compiling it:
    for a tool no call reached (a catalog may hold far more tools than the logs call)."""
    new_problem = new_schema_problem(normalized, runtimes)
    if old_runtime is OldRuntime.LENIENT:
        return SchemaSummary(None, new_problem, _read_leniently(tool.schema)[1])
    if runtimes is not None and old_runtime.checks_schema:
        return SchemaSummary(_old_problem(tool.schema, runtimes), new_problem, ())
    if old_runtime.checks_schema and normalized.rewrites:
        return SchemaSummary(schema_problem(tool.schema), new_problem, ())
    return SchemaSummary(new_problem if old_runtime.checks_schema else None, new_problem, ())


def _old_problem(schema: JSON, runtimes: Runtimes) -> str | None:
    reading = runtimes.old.read(schema)
    if reading.refusal is not None:
        return reading.refusal
    return schema_problem(schema, reading.draft)


class ToolReplay:
    """A tool's old and new schema, compiled, with what it takes to explain new errors."""

    def __init__(
        self,
        tool: ToolSchema,
        normalized: Normalized,
        fast: bool = True,
        memo: Memo | None = None,
        budget: CallBudget | None = None,
        old_runtime: OldRuntime = OldRuntime.LENIENT,
        runtimes: Runtimes | None = None,
    ) -> None:
        """``fast=False`` leaves every verdict to python-jsonschema (the differential tests
        compare the two); ``memo`` is shared by the tools of one audit to bound its size;
        ``budget`` bounds the time one call's evaluation may take; ``old_runtime`` is what
        enforced the old schema when the logs were written; ``runtimes``: how each side's
        runtime reads its schema, when not as today (``auditor.replay.runtimes``; the changes
        that makes are then among ``normalized.rewrites``)."""
        self.tool = tool
        self.normalized = normalized
        self.old_runtime = old_runtime
        self._budget = budget or CallBudget(None)
        # Error locations are found by the identity of schema nodes, so the new validator is
        # built over the very object the cause finder indexes.
        new_reading = None if runtimes is None else runtimes.new.read(normalized.schema)
        self.new = (
            Compiled(None, normalized.refusal)
            if normalized.refusal is not None
            else compile_schema(normalized.schema, self._budget, new_reading)
        )
        self.readings: tuple[LenientReading, ...] = ()
        old_schema: JSON = tool.schema
        if old_runtime is OldRuntime.LENIENT:
            old_schema, self.readings = _read_leniently(tool.schema)
        old_reading = None if runtimes is None else runtimes.old.read(old_schema)
        if evaluates_alike(normalized, self.readings) and old_reading == new_reading:
            # One validator serves both verdicts, which are then one verdict: a tool whose
            # schema and runtime model do not change has no newly rejected call.
            self.old = self.new
        elif old_runtime is OldRuntime.LENIENT:
            self.old = _compile_tolerant(old_schema, self._budget, old_reading)
        else:
            self.old = compile_schema(old_schema, self._budget, old_reading)
        self._ajv_new = (
            None if runtimes is None else _judge(runtimes.new, normalized.schema, self.new)
        )
        self._ajv_old = (
            _judge(runtimes.old, old_schema, self.old)
            if runtimes is not None and old_runtime.checks_schema
            else None
        )
        """Ajv's verdicts, where it gives them (``--runtime-validator ajv``): after the
        model's, which explain them (``_by_ajv``)."""
        draft = normalized.draft if new_reading is None else new_reading.draft
        # The fast validator reads a schema as the default runtime does, and only so.
        fast_new = fast and _plain(new_reading, normalized.schema)
        fast_old = fast and _plain(old_reading, old_schema)
        self.unblocking = self._unblocking()
        self._causes = CauseFinder(
            normalized.schema,
            normalized.rewrites,
            draft,
            self.unblocking,
            unblocking_in_reach=old_runtime is OldRuntime.LENIENT,
            old_accepts=_subschema_check(self.old, old_schema),
            new_accepts=_subschema_check(self.new, normalized.schema),
        )
        self._fast_new = FastCheck(normalized.schema if fast_new and self.new.validator else None)
        self.fast_errors = (
            FastErrors(normalized.schema, self._fast_new.validator, MAX_ERRORS)
            if self._fast_new.validator is not None and keyable(normalized.schema)
            else None
        )
        """The fast validator's errors, where they map exactly onto python-jsonschema's."""
        self._lenient_fast = (
            compile_lenient(old_schema)
            if fast_old and self.old is not self.new and old_runtime is OldRuntime.LENIENT
            else None
        )
        """The lenient old side compiled for the fast validator (``auditor.replay.lenient_fast``):
        its verdicts, rejections too, are the reference lenient model's; None where not asked."""
        compiled = self._lenient_fast is not None and self._lenient_fast.validator is not None
        self._fast_old = (
            self._fast_new
            if self.old is self.new
            else FastCheck(old_schema if fast_old and self.old.validator and not compiled else None)
        )
        self._memo = memo if memo is not None else Memo(MEMO_ENTRIES)
        self._shared: dict[frozenset[int], frozenset[int]] = {}
        self._removal = next((i for i, r in enumerate(normalized.rewrites) if r.removes_tool), None)
        self.constraints: tuple[Site, ...] = ()
        """The new schema's constraint keywords; coverage indices after the rewrites'."""
        self.coverage: CoverageTracker | None = None
        """What evaluating a call reaches (``reached_rewrites``); None: nothing to track."""
        if self.new.validator is not None:
            cls: Any = type(self.new.validator)
            self.constraints = constraint_sites(normalized.schema, draft, frozenset(cls.VALIDATORS))
            if normalized.rewrites or self.constraints:
                self.coverage = CoverageTracker(
                    cls,
                    normalized.schema,
                    normalized.rewrites,
                    _LOCAL_ONLY,
                    [(site.holder, site.keyword) for site in self.constraints],
                )

    @property
    def old_path(self) -> str:
        """How the old verdicts are reached: ``new side`` (one validator serves both), the
        old runtime's name where the schema decides nothing (``none``) or python-jsonschema
        decides (``standard``, ``lenient`` without the fast validator), else the lenient
        reading's path (``compiled``, or why it stays with the reference:
        ``auditor.replay.lenient_fast``)."""
        if self.old_runtime is OldRuntime.NONE:
            return str(OldRuntime.NONE.value)
        if self.old is self.new:
            return "new side"
        if self._lenient_fast is None:
            return str(self.old_runtime.value)
        return self._lenient_fast.path

    @property
    def old_problem(self) -> str | None:
        """Why the old runtime could not use the old schema for any call (``standard`` and the
        SDK models only)."""
        return self.old.problem if self.old_runtime.checks_schema else None

    def _unblocking(self) -> tuple[Change, ...]:
        """Value fixes (a type name, a bound) that made a part of the schema evaluable, named
        as causes where nothing nearer is: renames only add constraints."""
        fixes = [
            r
            for r in self.normalized.rewrites
            if r.rule in _VALUE_FIXES and not r.pointer.endswith("/$ref")
        ]
        if self.old_runtime.checks_schema:
            unblocked = self.old.problem is not None and self.new.problem is None
            return tuple(fixes) if unblocked else ()
        if self.old_runtime is OldRuntime.LENIENT:
            return tuple(
                r
                for r in fixes
                if any(pointers.is_within(r.pointer, place.pointer) for place in self.readings)
            )
        return ()

    def evaluate(
        self, call: Call, detailed: Detailed | None = None
    ) -> tuple[CallResult, frozenset[int]]:
        """The call's result and the rewrites its evaluation reached (for coverage).

        The verdicts depend on the arguments alone, so they are remembered by the arguments'
        JSON text: logs repeat the same arguments often, and a repeat costs a lookup. What the
        log says happened to this call is applied afterwards (``auditor.replay.outcome.decide``).

        ``detailed``: whether the report shows a result in detail; a rejection it will not show
        is described by the fast validator alone where that is exact (``_verdicts``), and
        remembered as such: a repeat the report must show is evaluated again. None: every
        result is python-jsonschema's.
        """
        text = call.text if call.text is not None else text_of(call.arguments)
        key = None if text is None else (self.tool.name, text)
        found = self._memo.found(key) if key is not None else None
        if found is not None:
            (old, new, reached), light = found
            result = decide(call, old, new)
            if not light:
                return result, reached
            if detailed is not None and not detailed(result):
                LIGHT.calls += 1
                return result, reached
        shown = None
        if detailed is not None and self.fast_errors is not None:
            shown = functools.partial(_shown, detailed, call)
        old, new, light = self._verdicts(call.arguments, shown)
        if found is None:
            reached = self.reached_rewrites(call)
            # Calls of one shape reach the same keywords: remembered entries share one set,
            # and a set no other entry shares is weighed with its entry.
            alone = 0
            if len(self._shared) < MAX_SHARED_REACHED:
                reached = self._shared.setdefault(reached, reached)
            elif reached not in self._shared:
                alone = sys.getsizeof(reached)
            if key is not None:
                self._memo.put(key, (old, new, reached), alone, light)
        elif key is not None:  # a light entry this call shows in detail: replaced
            self._memo.put(key, (old, new, reached), 0, light)
        LIGHT.calls += light
        return decide(call, old, new), reached

    def reached_rewrites(self, call: Call) -> frozenset[int]:
        """Indices of this tool's rewrites whose keyword evaluating the call reached, then of
        its constraints (``constraints``), counted from ``len(normalized.rewrites)``.

        A separate step from ``replay`` (a second evaluation): see ``auditor.replay.coverage``.
        """
        if call.unparsed is not None:
            return frozenset()
        if self._removal is not None:
            return frozenset({self._removal})  # the whole schema went: every call reaches it
        if self.coverage is None:
            return frozenset()
        return self.coverage.reached(call.arguments)

    def replay(self, call: Call) -> CallResult:
        """The outcome of a parsed call of this tool (see docs/architecture.md for the order)."""
        return decide(call, *self.verdicts(call.arguments))

    def surely_accepted(self, arguments: JSON) -> bool:
        """Whether the fast validator alone says the new schema accepts ``arguments``: a cheap
        first look for the counterexample search (False says nothing)."""
        self._budget.defer()  # the fast validator reads no clock; what follows may
        try:
            return self.new.validator is not None and self._fast_new.accepts(arguments)
        except Exception:  # the reference decides whatever raised here
            return False

    def verdicts(self, arguments: JSON) -> tuple[Verdict | None, Verdict]:
        """The old runtime's verdict (None when the new schema cannot be used, which decides
        the outcome alone) and the new schema's, with the new errors and their causes."""
        old, new, _ = self._verdicts(arguments, None)
        return old, new

    def light_verdicts(self, arguments: JSON) -> tuple[Verdict | None, Verdict]:
        """``verdicts`` without the messages: a rejection is described by the fast validator's
        errors where they map exactly (``fast_errors``), keys and causes the reference's, as
        for a call the report counts but does not show. What the counterexample search judges
        its candidates by: it keeps the arguments, never the errors."""
        old, new, _ = self._verdicts(arguments, _never_shown)
        return old, new

    def _verdicts(
        self, arguments: JSON, shown: Callable[[Verdict | None, Verdict], bool] | None
    ) -> tuple[Verdict | None, Verdict, bool]:
        """``verdicts``, and whether they are light: with ``shown`` (whether the report shows
        the call with these verdicts in detail), a rejection it will not show is described by
        the fast validator's errors (``auditor.replay.fast_errors``) where that is exact."""
        old, new, light = self._model_verdicts(arguments, shown)
        if self._ajv_new is None and self._ajv_old is None:
            return old, new, light
        return *self._by_ajv(arguments, old, new), light

    def _by_ajv(
        self, arguments: JSON, old: Verdict | None, new: Verdict
    ) -> tuple[Verdict | None, Verdict]:
        """The verdicts with Ajv's word on each side it judges. Whether a schema is usable
        stays the model's; where Ajv and the model agree the model's errors explain the
        rejection, where only Ajv rejects its own errors do, and where only the model rejects
        the call is accepted."""
        if self._ajv_new is not None and new.problem is None:
            theirs = self._ajv_new(arguments)
            if theirs.unusable is not None:
                return None, Verdict(False, problem=_clip(f"Ajv: {theirs.unusable}"))
            if theirs.valid:
                new = ACCEPTS
            elif new.accepts:
                new = Verdict(False, tuple(self._ajv_issues(theirs)))
        if old is not None and old.problem is None and self._ajv_old is not None:
            said = self._ajv_old(arguments)
            if said.unusable is None:
                old = ACCEPTS if said.valid else REJECTS
        return old, new

    def _ajv_issues(self, verdict: AjvVerdict) -> Iterator[ValidationIssue]:
        """Ajv's errors as issues; their causes are the changes at or above the failing
        keyword (the model, which finds them otherwise, saw no error there)."""
        for error in verdict.errors[:MAX_ERRORS]:
            pointer = str(error.get("schemaPath", "")).removeprefix("#")
            yield ValidationIssue(
                instance_pointer=str(error.get("instancePath", "")),
                keyword=str(error.get("keyword", "")),
                schema_pointer=pointer,
                message=_clip(f"{error.get('message', '')} (Ajv)"),
                causes=tuple(
                    r
                    for r in self.normalized.rewrites
                    if pointers.is_within(pointer, r.new_pointer)
                ),
            )

    def _model_verdicts(
        self, arguments: JSON, shown: Callable[[Verdict | None, Verdict], bool] | None
    ) -> tuple[Verdict | None, Verdict, bool]:
        """``_verdicts`` as the Python model gives them."""
        # Shared by both verdicts and the coverage pass that follows; its clocks are read by
        # the first budgeted evaluation (none where the fast validator decides alone).
        self._budget.defer()
        if self.new.validator is None:
            return None, Verdict(False, problem=self.new.problem), False
        if self._fast_new.accepts(arguments):
            # The fast validator only ever answers "accepted" for schemas where it agrees with
            # the reference; every other answer is the reference's (auditor.replay.fast_validator).
            return self._old_verdict(arguments, None), ACCEPTS, False
        fast = self.fast_errors(arguments) if shown and self.fast_errors else None
        if fast:  # [] would be an acceptance: the reference decides a disagreement
            new = Verdict(False, self._issues(_in_order(fast), arguments, light=True))
            detach(fast)
            old = self._old_verdict(arguments, new)
            if shown is not None and not shown(old, new):
                return old, new, True
        self._budget.ensure_started()
        try:
            errors = _errors(self.new.validator, arguments)
        except Exception as error:  # evaluation of user schemas may raise anything
            return None, _unusable_for(error), False
        new = Verdict(not errors, self._issues(errors, arguments))
        detach(errors)
        return self._old_verdict(arguments, new), new, False

    def old_accepts_rejected(self, arguments: JSON) -> bool:
        """Whether the old runtime accepts ``arguments``, given that the new schema rejects
        them: the old verdict ``verdicts`` would give (under the budget started last), without
        the new schema's errors."""
        return self._old_verdict(arguments, REJECTS).accepts

    def _old_verdict(self, arguments: JSON, new: Verdict | None) -> Verdict:
        """``new``: the new verdict, when the reference computed it (None: the fast validator
        accepted)."""
        if self.old_runtime is OldRuntime.NONE:
            return ACCEPTS
        if self.old.validator is None:
            return Verdict(False, problem=self.old.problem)
        if self.old is self.new:
            return ACCEPTS if new is None or new.accepts else REJECTS
        if self._lenient_fast is not None:
            known = self._lenient_fast.verdict(arguments)
            if known is not None and (known or self._lenient_fast.rejects_exactly):
                OLD_VERDICTS.compiled += 1
                return ACCEPTS if known else REJECTS
        if self._fast_old.accepts(arguments):
            return ACCEPTS
        OLD_VERDICTS.reference += 1
        self._budget.ensure_started()
        try:
            accepts = self.old.validator.is_valid(arguments)
        except Exception as error:  # only the standard reading raises (tolerant swallows)
            return _unusable_for(error)
        if self._budget.spent():  # a lenient reading: what could not finish enforced nothing
            return Verdict(accepts, over_budget=True)
        return ACCEPTS if accepts else REJECTS

    def _issues(
        self, errors: Sequence[exceptions.ValidationError], arguments: JSON, light: bool = False
    ) -> tuple[ValidationIssue, ...]:
        """``light``: errors of the fast validator, without messages (never shown)."""
        issues = []
        for error in errors:
            located = self._causes.locate(error)
            issues.append(
                ValidationIssue(
                    instance_pointer=pointers.from_segments(error.absolute_path),
                    keyword=located.keyword,
                    schema_pointer=located.pointer,
                    message="" if light else _clip(json_quoted(error.message, error.instance)),
                    causes=self._causes.causes(error, located, (arguments,)),
                    observed=observe(error),
                )
            )
        return tuple(issues)


def evaluates_alike(normalized: Normalized, readings: Sequence[LenientReading]) -> bool:
    """Whether the old runtime evaluates every call as the new side does, so that both
    verdicts come from one validator.

    So it is without rewrites (the schemas are equal) when the old runtime reads the schema as
    written (``standard``; ``none`` decides nothing by the schema), or when the lenient
    reading set aside only references the new side cannot resolve either (it resolves them
    with the same registry: ``auditor.schema.lenient``): a call that reaches one raises there,
    which makes it ``schema_error_after`` whatever the old side says, and one that does not
    meets the same keywords on both sides. Any other lenient reading (a type name, a keyword's
    value) is a schema the new side cannot use at all.
    """
    return not normalized.rewrites and all(r.reason in REFERENCE_READINGS for r in readings)


def _subschema_check(compiled: Compiled, schema: JSON) -> Accepts | None:
    """Whether the subschema of ``schema`` at a pointer accepts an instance, evaluated by
    ``compiled``'s validator (local references resolve from the root); None when it cannot
    say (no such subschema, or evaluating it raised)."""
    validator = compiled.validator
    if validator is None:
        return None

    def accepts(pointer: str, instance: JSON) -> bool | None:
        found, subschema = pointers.resolve(schema, pointer)
        if not found or not isinstance(subschema, (dict, bool)):
            return None
        try:
            return bool(validator.evolve(schema=subschema).is_valid(instance))
        except Exception:  # evaluation of user schemas may raise anything
            return None

    return accepts


def _read_leniently(schema: JSON) -> tuple[JSON, tuple[LenientReading, ...]]:
    if too_deep(schema):  # the new side reports it: unusable, too deep to evaluate
        return schema, ()
    draft = draft_of(schema)
    try:
        return read_leniently(schema, draft, _FastFirstMeta(draft), _LOCAL_ONLY)
    except RecursionError:
        return {}, (LenientReading("", None, "is nested too deeply to read"),)


class _FastFirstMeta:
    """A draft's meta-schema validator that asks the fast validator first: a schema it passes
    has no errors to list (see ``auditor.replay.fast_validator.meta_valid``), which is most
    schemas."""

    def __init__(self, draft: Draft) -> None:
        self._draft = draft
        self._meta = _meta_validator(VALIDATORS[draft])

    def iter_errors(self, instance: JSON) -> Iterator[exceptions.ValidationError]:
        if meta_valid(self._draft, instance):
            return iter(())
        return iter(self._meta.iter_errors(instance))


def _compile_tolerant(schema: JSON, budget: CallBudget, reading: Reading | None = None) -> Compiled:
    """The old schema as a lenient runtime evaluates it: never unusable. ``reading``: how the
    runtime reads it, when not as today (the draft, the format checker)."""
    if reading is None:
        cls: Any = VALIDATORS[draft_of(schema)]
        tolerant_cls = _tolerant_class(budgeted(cls, budget))
        return Compiled(tolerant_cls(schema, registry=_LOCAL_ONLY), None)
    cls = validator_class(reading.draft, reading.ajv_keywords)
    checker = {} if reading.formats is None else {"format_checker": format_checker(reading.formats)}
    built = _tolerant_class(budgeted(cls, budget))(schema, registry=_LOCAL_ONLY, **checker)
    return Compiled(built, None)


def _judge(
    runtime: Runtime | None, schema: JSON, compiled: Compiled
) -> Callable[[JSON], AjvVerdict] | None:
    """Ajv's verdict on an instance against ``schema``, where Ajv gives ``runtime``'s
    verdicts and the model can use the schema."""
    if runtime is None or runtime.ajv is None or compiled.validator is None:
        return None
    return functools.partial(runtime.ajv.verdict, runtime.name, schema)


def _plain(reading: Reading | None, schema: JSON) -> bool:
    """Whether ``schema`` is read as the default runtime reads it (the fast validator's
    reading)."""
    return reading is None or (reading.plain and reading.draft is draft_of(schema))


@functools.lru_cache(maxsize=64)
def _tolerant_class(cls: Any) -> Any:
    return tolerant(cls)


Remembered = tuple[Verdict | None, Verdict, frozenset[int]]
"""What replaying an arguments text gave: the old and new verdicts, rewrites reached."""


class Memo:
    """A bounded map from (tool, arguments text) to what replaying gave; oldest out first.

    Bounded in entries and in bytes: an entry is weighed by its key text and the logged data
    its verdicts' errors hold (observed values), and a text above ``max_argument`` is not kept
    at all.
    """

    def __init__(
        self,
        capacity: int,
        max_bytes: int = MEMO_BYTES,
        max_argument: int = MEMO_MAX_ARGUMENT,
    ) -> None:
        self._capacity = capacity
        self._max_bytes = max_bytes
        self._max_argument = max_argument
        self._entries: dict[tuple[str, str], tuple[Remembered, int, bool]] = {}
        self._order: deque[tuple[str, str]] = deque()
        """The keys, oldest first (a replaced light entry leaves its old place behind, skipped
        when reached). ``next(iter(entries))`` would find the oldest too, but a dict's
        iteration skips every slot freed at its front since it was last resized: 4 µs an
        eviction at 200,000 entries (0.1 µs here), quadratic in the evictions between
        resizes."""
        self.bytes = 0
        """What the entries kept now weigh, by the measure above."""

    def get(self, key: tuple[str, str]) -> Remembered | None:
        found = self._entries.get(key)
        return None if found is None else found[0]

    def found(self, key: tuple[str, str]) -> tuple[Remembered, bool] | None:
        """What is remembered, and whether it is light (the fast validator's errors, without
        messages: ``ToolReplay.evaluate``)."""
        found = self._entries.get(key)
        return None if found is None else (found[0], found[2])

    def put(
        self, key: tuple[str, str], value: Remembered, more: int = 0, light: bool = False
    ) -> None:
        """Remember ``value``; ``more``: bytes it holds beside what ``_weight`` counts. A light
        entry is replaced by the next value put under its key."""
        if len(key[1]) > self._max_argument:
            return
        known = self._entries.get(key)
        if known is not None and not known[2]:
            return
        if known is not None:
            self.bytes -= self._entries.pop(key)[1]
        weight = _weight(key, value) + more
        if weight > self._max_bytes:
            return
        while self._entries and (
            len(self._entries) >= self._capacity or self.bytes + weight > self._max_bytes
        ):
            gone = self._entries.pop(self._order.popleft(), None)
            if gone is not None:
                self.bytes -= gone[1]
        self._entries[key] = (value, weight, light)
        self._order.append(key)
        self.bytes += weight

    def __len__(self) -> int:
        return len(self._entries)


_ENTRY_OVERHEAD: Final = 256
"""Bytes of an entry beside its texts: the tuples and records that hold them."""


def _weight(key: tuple[str, str], value: Remembered) -> int:
    weight = sys.getsizeof(key[0]) + sys.getsizeof(key[1]) + _ENTRY_OVERHEAD
    old, new, _ = value
    if not new.errors and (old is None or not old.errors):  # most entries: nothing more held
        return weight
    verdicts = (new,) if old is None or old is new else (old, new)
    issues = [issue for verdict in verdicts for issue in verdict.errors]
    for issue in issues:
        weight += _ENTRY_OVERHEAD + len(issue.message)
        for observation in issue.observed:
            detail = observation.detail
            weight += _ENTRY_OVERHEAD + (
                sys.getsizeof(detail) if isinstance(detail, str) else len(text_of(detail) or "")
            )
    return weight


def text_of(arguments: JSON) -> str | None:
    """The arguments as compact JSON text, the memo's key; None when they cannot be keyed."""
    try:
        return orjson.dumps(arguments).decode()
    except (TypeError, orjson.JSONEncodeError):  # an integer beyond 64 bits, say
        return None


def _errors(validator: Validator, instance: JSON) -> list[exceptions.ValidationError]:
    return _in_order(list(islice(validator.iter_errors(instance), MAX_ERRORS)))


def detach(errors: Iterable[exceptions.ValidationError]) -> None:
    """Clear the links from each error's ``context`` back to the error (``parent``), through
    every level, once the issues are built from them: python-jsonschema links both ways, and
    the cycle would leave every ``anyOf``/``oneOf`` error with its branches' errors and their
    path deques for the collector (rw10k: 4,092 unreachable objects after counting, 64 with
    this; ``benchmarks/cycles_census.py``). The errors then go by reference counting. Each
    keeps its paths relative to the error holding it; its ``absolute_path`` stops there."""
    stack = [sub for error in errors for sub in error.context]
    while stack:
        error = stack.pop()
        error.parent = None
        stack.extend(error.context)


def _in_order(found: list[exceptions.ValidationError]) -> list[exceptions.ValidationError]:
    """Errors in the order the report lists them: neither validator's own order is stable
    (python-jsonschema's follows set order). The fast validator's errors have no messages, so
    theirs is decided by the pointers alone: only errors that differ in nothing but the
    message tie there (``required``, one per missing name), and no light result is shown."""
    if len(found) < 2:  # most rejections have one error: nothing to order, no pointer to spell
        return found
    return sorted(
        found,
        key=lambda e: (
            pointers.from_segments(e.absolute_path),
            pointers.from_segments(e.absolute_schema_path),
            e.message,
        ),
    )


def _never_shown(old: Verdict | None, new: Verdict) -> bool:
    return False


def _shown(detailed: Detailed, call: Call, old: Verdict | None, new: Verdict) -> bool:
    return detailed(decide(call, old, new))


def _unusable_for(error: BaseException) -> Verdict:
    """The verdict of a schema whose evaluation of a call raised ``error``."""
    return Verdict(
        False, problem=_evaluation_problem(error), over_budget=isinstance(error, CallTimeout)
    )


def _evaluation_problem(error: BaseException) -> str:
    # The referencing errors' own text embeds the whole resource; the reference says enough.
    # python-jsonschema raises them wrapped, with the original as the cause.
    if isinstance(error, referencing.exceptions.Unresolvable) and isinstance(
        error.__cause__, referencing.exceptions.Unresolvable
    ):
        error = error.__cause__
    if isinstance(error, referencing.exceptions.PointerToNowhere):
        return _clip(f"$ref '#{error.ref}' points to nothing in the schema")
    if isinstance(error, referencing.exceptions.NoSuchAnchor):
        return _clip(f"$ref to anchor '{error.anchor}' which the schema does not define")
    if isinstance(error, referencing.exceptions.Unresolvable):
        return _clip(f"cannot resolve $ref '{error.ref}' (remote references are never fetched)")
    if isinstance(error, (CallTimeout, UnusablePattern)):
        return _clip(str(error))
    if isinstance(error, RecursionError):
        return "evaluation recursed too deeply (a $ref cycle or extreme nesting)"
    return _clip(f"evaluation failed: {type(error).__name__}: {error}")


def json_quoted(message: str, value: object) -> str:
    """python-jsonschema's message with the failing value quoted as JSON, as reports show
    values everywhere else (``"a" is too short``, not ``'a' is too short``)."""
    quoted = repr(value)
    text = json_value(value) if quoted in message else None
    return message if text is None else message.replace(quoted, text, 1)


def json_value(value: object) -> str | None:
    """A value as messages quote it (JSON text); None for what JSON cannot hold."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return None


def _clip(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"
