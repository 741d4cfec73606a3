"""The loosening patch: the smallest schema change that makes a group's calls pass its keyword.

Per keyword family (``RULES``): raise ``maxLength``/``maxItems``/``maxProperties`` to the
longest logged value, lower the ``min`` ones to the shortest; raise ``maximum`` (and
``exclusiveMaximum``) to the largest logged number, lower ``minimum`` to the smallest; add the
values outside an ``enum``; add each extra property to ``properties`` with the JSON type its
logged values share (where ``additionalProperties`` is ``false``); drop the missing entries of
``required``. Every other keyword gets no patch, said as such.

A group keeps only a few example calls, so what the patch needs is counted while tallying, for
every call of the group: a ``Witness`` (the extreme length or number, the distinct values
outside the enum, the extra names and their types, the missing names). It is bounded (at most
``MAX_VALUES`` values or names, each at most ``MAX_VALUE_CHARS`` long; beyond, no patch is
proposed) and merges exactly, so ``--jobs`` gives the report one pass gives.

A patch is verified before it is shown: the patched new schema still passes its meta-schema,
and the patched keyword (with the siblings it reads) accepts every extreme the group logged —
the longest value for ``maxLength``, each value outside the enum, each extra property with a
value of each logged type, each object missing each dropped name. The extremes are what the
constraint bounds, so a keyword that accepts them accepts every call of the group. It rejects
nothing the unpatched schema accepted because every rule only loosens one keyword (a larger
bound, a superset of values, a new property where none was allowed, fewer required names),
and a schema that holds the keyword only in positive places (never under ``not``, ``if``,
``oneOf`` or ``contains``, nor reachable through a ``$ref`` standing under one of them)
accepts a superset when one of its keywords does.

The patch is then written into the catalog file and re-checked under the audit's own rules
(``recheck``): the edited file, normalized again as the audit normalizes (profiles and
runtimes included), must give the patched schema, or else a schema that still accepts the
group's extremes and newly rejects none of the tool's accepted calls the tally holds (its
samples, bounded: ``HeldCalls``). A patch whose place the rules write themselves (strict
mode's ``required``) or that would move the failure to another call is not offered, and
says so in words a user can act on: nothing of the JSON Patch application reaches a report.

Both searches stay within bounds in CPU time, whatever the patterns: the extra properties of
one call are found within ``PATTERN_TIMEOUT`` (all its ``patternProperties`` matches
together), and a patch is checked within one call's budget, under the ceiling the audit's
searches share (``auditor.replay.budget.SearchCeiling``). Either running out means no patch,
and says so: never one that a name not matched in time would make wrong.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final, Protocol

from auditor import pointers
from auditor.aggregate.hints import rules_option
from auditor.aggregate.json_keys import canonical_text
from auditor.aggregate.local_checks import (
    Usable,
    Whole,
    Written,
    alone_usable,
    normalizes_to,
    usable_after,
)
from auditor.inputs.limits import MAX_NESTING
from auditor.inputs.paths import STDIN, STDIN_NAME
from auditor.models import (
    JSON,
    Group,
    HintKind,
    Location,
    Outcome,
    PatchOp,
    PatchOperation,
    Rule,
    SchemaPatch,
    ToolSchema,
    ValidationIssue,
)
from auditor.replay.budget import (
    CallBudget,
    CallTimeout,
    SearchCeiling,
    UnusablePattern,
    compiled_pattern,
)
from auditor.replay.tool import Compiled, build_validator, compile_schema, schema_problem
from auditor.schema.jsonpatch import PatchError, apply_patch
from auditor.schema.normalize import normalize
from auditor.words import plural

MAX_VALUES: Final = 50
"""Distinct values outside an enum (or extra property names) a group remembers; beyond, no
patch is proposed: a value list that long is not a contract to write down."""
MAX_VALUE_CHARS: Final = 200
"""Longest value (as JSON text) or name remembered for a patch."""
PATTERN_TIMEOUT: Final = 0.1
"""CPU seconds the ``patternProperties`` matches of one call may take together while its
extra properties are found (an ordinary match takes microseconds); past it, no patch."""

SIZED: Final[dict[str, type]] = {
    "maxLength": str,
    "minLength": str,
    "maxItems": list,
    "minItems": list,
    "maxProperties": dict,
    "minProperties": dict,
}
BOUNDS: Final = frozenset({"maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"})
RANGED: Final = BOUNDS | {"multipleOf"}
"""Numeric keywords whose evidence is the range of numbers sent."""
_NEGATIVE: Final = frozenset({"not", "if", "oneOf", "contains"})
"""Keywords under which a looser subschema can make the whole schema reject more."""
_REFERENCES: Final = frozenset({"$ref", "$dynamicRef", "$recursiveRef"})
_NAMED: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)
_INDEXED: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_SAMPLES: Final[dict[str, JSON]] = {
    "string": "",
    "integer": 0,
    "number": 0.5,
    "boolean": False,
    "null": None,
    "array": [],
    "object": {},
}


def _canonical(value: JSON) -> str:
    return canonical_text(value)


def json_type(value: JSON) -> str:
    """The JSON type of a decoded value (``integer`` for whole numbers)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


MAX_SIZES: Final = 10_000
"""Distinct lengths counted per group for the median; beyond, the median is not given."""


@dataclass
class Witness:
    """What every call of one group sent at the failing keyword, in the figures a loosening
    needs. Merging two witnesses gives the witness of both parts' calls, in any order."""

    longest: int | None = None
    shortest: int | None = None
    largest: int | float | None = None
    smallest: int | float | None = None
    values: dict[str, JSON] | None = field(default_factory=dict)
    """Values outside the enum by canonical JSON text; None: too many, or one too long."""
    extras: dict[str, set[str]] | None = field(default_factory=dict)
    """Extra property name -> JSON types of its values; None: too many, or one too long."""
    missing: set[str] = field(default_factory=set)
    """Required names missing (bounded by the schema's own ``required`` list)."""
    sizes: Counter[int] | None = field(default_factory=Counter)
    """Calls per length sent (for the median); None: too many distinct lengths to keep."""
    undecided: bool = False
    """A logged name could not be matched against ``patternProperties`` within
    ``PATTERN_TIMEOUT``: whether it is an extra property is not known."""

    def add(self, issue: ValidationIssue, arguments: JSON, schema: JSON) -> None:
        """Count the value ``issue`` failed on; ``schema`` is the tool's new schema."""
        found, value = pointers.resolve(arguments, issue.instance_pointer)
        if not found:
            return
        keyword = issue.keyword
        if keyword in SIZED:
            if isinstance(value, (str, list, dict)) and isinstance(value, SIZED[keyword]):
                self._size(len(value))
                self._sizes(Counter({len(value): 1}))
        elif keyword in RANGED:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self._number(value)
        elif keyword == "enum":
            if self.values is not None:  # once too many, a huge value is not even written out
                too_long = isinstance(value, str) and len(value) > MAX_VALUE_CHARS
                self._values(
                    {"x" * (MAX_VALUE_CHARS + 1) if too_long else _canonical(value): value}
                )
        else:
            _, holder = pointers.resolve(schema, pointers.parent(issue.schema_pointer))
            if keyword == "additionalProperties" and isinstance(value, dict):
                extras = _extra_names(holder, value)
                if extras is None:
                    self.undecided = True
                else:
                    self._extras({name: {json_type(value[name])} for name in extras})
            elif keyword == "required" and isinstance(value, dict) and isinstance(holder, dict):
                wanted = holder.get("required")
                if isinstance(wanted, list):
                    self.missing.update(n for n in wanted if isinstance(n, str) and n not in value)

    def merge(self, other: Witness) -> None:
        """Add the figures of ``other``'s calls."""
        for size in (other.longest, other.shortest):
            if size is not None:
                self._size(size)
        for number in (other.largest, other.smallest):
            if number is not None:
                self._number(number)
        if other.values is None:
            self.values = None
        else:
            self._values(other.values)
        if other.extras is None:
            self.extras = None
        else:
            self._extras(other.extras)
        self.missing |= other.missing
        self.undecided |= other.undecided
        if other.sizes is None:
            self.sizes = None
        else:
            self._sizes(other.sizes)

    def _sizes(self, sizes: Counter[int]) -> None:
        if self.sizes is not None and len(self.sizes.keys() | sizes.keys()) <= MAX_SIZES:
            self.sizes.update(sizes)
        else:
            self.sizes = None

    def median(self) -> float | None:
        """The median length sent, when the lengths were all kept."""
        if not self.sizes:
            return None
        ordered = sorted(self.sizes.items())
        total = sum(self.sizes.values())
        middle = [(total - 1) // 2, total // 2]
        picked: list[int] = []
        seen = 0
        for size, count in ordered:
            while len(picked) < 2 and middle[len(picked)] < seen + count:
                picked.append(size)
            seen += count
        return sum(picked) / 2

    def _size(self, size: int) -> None:
        self.longest = size if self.longest is None else max(self.longest, size)
        self.shortest = size if self.shortest is None else min(self.shortest, size)

    def _number(self, number: int | float) -> None:
        self.largest = number if self.largest is None else max(self.largest, number)
        self.smallest = number if self.smallest is None else min(self.smallest, number)

    def _values(self, values: Mapping[str, JSON]) -> None:
        if self.values is not None and not _too_many(self.values, values):
            self.values.update(values)
        else:
            self.values = None

    def _extras(self, extras: Mapping[str, set[str]]) -> None:
        if self.extras is not None and not _too_many(self.extras, extras):
            for name, types in extras.items():
                self.extras.setdefault(name, set()).update(types)
        else:
            self.extras = None


def _too_many(mine: Mapping[str, object], theirs: Mapping[str, object]) -> bool:
    """Whether the union of two bounded key sets passes the bounds (one key too long, or more
    than ``MAX_VALUES`` keys): then it is None, whatever the order of merging."""
    if any(len(key) > MAX_VALUE_CHARS for key in theirs):
        return True
    return len(mine.keys() | theirs.keys()) > MAX_VALUES


def _extra_names(holder: JSON, value: dict[str, JSON]) -> list[str] | None:
    """The names of ``value`` that ``holder`` neither declares nor matches by a pattern, or
    None when the patterns' matches did not finish within ``PATTERN_TIMEOUT`` together."""
    schema = holder if isinstance(holder, dict) else {}
    declared = schema.get("properties")
    declared = declared if isinstance(declared, dict) else {}
    patterns = schema.get("patternProperties")
    patterns = patterns if isinstance(patterns, dict) else {}
    budget = CallBudget(PATTERN_TIMEOUT)
    budget.start()
    extras: list[str] = []
    for name in value:
        if name in declared:
            continue
        matched: bool | None = False
        for pattern in patterns:
            matched = _search(pattern, name, budget)
            if matched is not False:
                break
        if matched is None:
            return None
        if not matched:
            extras.append(name)
    return extras


def _search(pattern: str, text: str, budget: CallBudget) -> bool | None:
    """Whether a user's regex matches, on the budgeted engine; None: not within ``budget``.
    One that cannot be compiled counts as matching: the validators could not use it either."""
    try:
        compiled = compiled_pattern(pattern)
    except UnusablePattern:
        return True
    try:
        return compiled.search(text, timeout=budget.remaining()) is not None
    except (TimeoutError, CallTimeout):
        return None


@dataclass(frozen=True)
class FileSide:
    """Where a tool's new schema is written: the catalog file's tool (the old catalog for a
    normalization, the new catalog for a catalog change) and the rules that turn its schema
    into the new schema (none for a catalog change taken as written)."""

    tool: ToolSchema
    rules: Collection[Rule] = ()


class ToolPatches:
    """What the patches of one tool's groups share, worked out once for all of them: whether
    a reference stands under a negative keyword, what the checks ask of the new schema as a
    whole, the file's schema and the keys its normalization renames. Each group's patch is
    then checked on the schema object it edits (``auditor.aggregate.local_checks``): asking
    the whole schema for each group made the patches of a large tool cost its groups times
    its size."""

    def __init__(
        self, new_schema: JSON, side: FileSide | None = None, held: HeldCalls | None = None
    ) -> None:
        self.new_schema = new_schema
        self.side = side
        self.whole = Whole(new_schema)
        self.held = held
        """The tool's logged calls, to re-check a patch its rules change (``recheck``)."""

    @cached_property
    def refers_from_negative(self) -> bool:
        """``_refers_from_negative`` of the new schema."""
        return _refers_from_negative(self.new_schema)

    @cached_property
    def written(self) -> Written | None:
        """The schema written in ``side``'s file, with its normalization; None when it is too
        deep to normalize (or there is no file)."""
        if self.side is None:
            return None
        try:
            return Written(self.side.tool.schema, self.side.rules, self.new_schema)
        except RecursionError:
            return None


@dataclass(frozen=True)
class _Change:
    summary: str
    operations: tuple[PatchOperation, ...]
    carries_values: bool = False
    """Whether the operations hold logged values (``--redact`` hides them)."""


_Rule = Callable[[str, str, dict[str, JSON], Witness], "_Change | str"]

NO_SINGLE_CHANGE: Final = "no single change makes every call of the group pass"


def eligible(group: Group) -> bool:
    """Whether a group gets a patch (or a reason why not): newly rejected calls failing a
    keyword, hinted loosen-schema or review."""
    return (
        group.outcome is Outcome.NEWLY_REJECTED
        and bool(group.keyword)
        and group.hint.kind in (HintKind.LOOSEN_SCHEMA, HintKind.REVIEW)
        and not any(cause.removes_tool for cause in group.causes)
    )


def suggest(
    keyword: str,
    schema_pointer: str,
    new_schema: JSON,
    witness: Witness,
    redact: bool = False,
    side: FileSide | None = None,
    ceiling: SearchCeiling | None = None,
    shared: ToolPatches | None = None,
) -> SchemaPatch:
    """The verified loosening of ``keyword`` at ``schema_pointer`` in ``new_schema`` that
    accepts every call ``witness`` summarizes, located in ``side``'s catalog file; checked
    within a step of ``ceiling`` (the audit's searches share it). ``shared``: what the
    patches of the tool share, ``ToolPatches(new_schema, side)`` made once for its groups."""
    if shared is None or shared.new_schema is not new_schema or shared.side is not side:
        shared = ToolPatches(new_schema, side)
    rule = RULES.get(keyword)
    if rule is None:
        return SchemaPatch(problem=f"no loosening rule for {keyword}")
    holder_pointer = pointers.parent(schema_pointer)
    found, holder = pointers.resolve(new_schema, holder_pointer)
    if not found or not isinstance(holder, dict) or keyword not in holder:
        return SchemaPatch(problem=f"no {keyword} at {schema_pointer} in the new schema")
    if not _positive_place(schema_pointer) or shared.refers_from_negative:
        return SchemaPatch(
            problem=f"{schema_pointer} is under not, if, oneOf or contains (or a $ref under "
            "one of them could reach it): loosening it could reject more"
        )
    change = rule(keyword, holder_pointer, holder, witness)
    if isinstance(change, str):
        return SchemaPatch(problem=change)
    if redact and change.carries_values:
        return SchemaPatch(
            problem="the patch would hold logged values, which --redact hides: rerun without "
            "--redact to see it"
        )
    try:
        # Nothing edits either schema afterwards: the patched one shares what it leaves.
        patched = apply_patch(new_schema, change.operations, share=True)
    except PatchError:
        # The rules build their operations from the holder they edit: a failure here is no
        # reason a user can act on, and the operation's internals are not for the report.
        return SchemaPatch(problem=NO_SINGLE_CHANGE)
    problem = verify(keyword, holder_pointer, patched, witness, ceiling, shared, change.operations)
    if problem is not None:
        return SchemaPatch(problem=problem)
    located = _in_file(change.operations, patched, holder_pointer, shared)
    if isinstance(located, str):
        return SchemaPatch(change.summary, change.operations, file_problem=located)
    if isinstance(located, Undone):
        return _undone(change, located)
    location, file_operations, edited = located
    undone = recheck(keyword, holder_pointer, patched, edited, witness, ceiling, shared)
    if undone is not None:
        return _undone(change, undone)
    return SchemaPatch(
        change.summary,
        change.operations,
        location,
        "" if side is None else side.tool.pointer,
        file_operations,
    )


def _undone(change: _Change, undone: Undone) -> SchemaPatch:
    return SchemaPatch(problem=f"{change.summary}: not offered, {undone.reason}")


def positive(schema: JSON, pointer: str) -> bool:
    """Whether ``pointer`` (of a keyword) lies only in places where a looser subschema makes
    the whole schema looser: not under ``not``, ``if``, ``oneOf`` or ``contains``, in a schema
    where no reference stands under one of them (it could reach the keyword from there)."""
    return _positive_place(pointer) and not _refers_from_negative(schema)


def _positive_place(pointer: str) -> bool:
    """Whether no segment of ``pointer`` (of a keyword) is a negative keyword."""
    segments = pointers.split(pointer)[:-1]
    index = 0
    while index < len(segments):
        segment = segments[index]
        if segment in _NEGATIVE:
            return False
        if segment in _NAMED or (
            segment in _INDEXED and index + 1 < len(segments) and segments[index + 1].isdigit()
        ):
            index += 2
        else:
            index += 1
    return True


def _refers_from_negative(schema: JSON) -> bool:
    """Whether a ``$ref`` (or a dynamic or recursive one) stands under a negative keyword.
    Read conservatively: a property named ``not`` counts too (no patch rather than a wrong
    one)."""
    stack: list[tuple[JSON, bool]] = [(schema, False)]
    while stack:
        node, negative = stack.pop()
        if isinstance(node, dict):
            if negative and _REFERENCES & node.keys():
                return True
            stack.extend((value, negative or key in _NEGATIVE) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((item, negative) for item in node)
    return False


def _size_bound(keyword: str, at: str, holder: dict[str, JSON], witness: Witness) -> _Change | str:
    current = holder[keyword]
    raise_it = keyword.startswith("max")
    wanted = witness.longest if raise_it else witness.shortest
    if wanted is None or not isinstance(current, (int, float)) or isinstance(current, bool):
        return NO_SINGLE_CHANGE
    verb = "raise" if raise_it else "lower"
    return _Change(
        f"{verb} {keyword} {_number(current)} → {wanted}",
        (PatchOperation(PatchOp.REPLACE, pointers.join(at, keyword), wanted),),
    )


def _number_bound(
    keyword: str, at: str, holder: dict[str, JSON], witness: Witness
) -> _Change | str:
    current = holder[keyword]
    raise_it = keyword in ("maximum", "exclusiveMaximum")
    wanted = witness.largest if raise_it else witness.smallest
    if wanted is None or not isinstance(current, (int, float)) or isinstance(current, bool):
        return NO_SINGLE_CHANGE
    if keyword.startswith("exclusive"):
        # The bound excludes itself: the next whole number past the value, where it is whole.
        if json_type(wanted) != "integer":
            return f"{NO_SINGLE_CHANGE}: {keyword} would have to exceed a fractional value"
        wanted = int(wanted) + (1 if raise_it else -1)
    elif isinstance(wanted, float) and wanted.is_integer():
        wanted = int(wanted)
    verb = "raise" if raise_it else "lower"
    return _Change(
        f"{verb} {keyword} {_number(current)} → {_number(wanted)}",
        (PatchOperation(PatchOp.REPLACE, pointers.join(at, keyword), wanted),),
        carries_values=True,
    )


def _number(value: JSON) -> str:
    return json.dumps(value)


def _enum(keyword: str, at: str, holder: dict[str, JSON], witness: Witness) -> _Change | str:
    allowed = holder[keyword]
    if witness.values is None:
        return (
            f"more than {MAX_VALUES} distinct values outside the enum (or one longer than "
            f"{MAX_VALUE_CHARS} characters): no patch proposed"
        )
    if not isinstance(allowed, list):
        return NO_SINGLE_CHANGE
    present = {_canonical(value) for value in allowed}
    added = [witness.values[text] for text in sorted(witness.values) if text not in present]
    if not added:
        return NO_SINGLE_CHANGE
    shown = ", ".join(json.dumps(v, ensure_ascii=False) for v in added[:3])
    more = f" and {len(added) - 3} more" if len(added) > 3 else ""
    return _Change(
        f"add {shown}{more} to enum",
        tuple(PatchOperation(PatchOp.ADD, pointers.join(at, keyword, "-"), v) for v in added),
        carries_values=True,
    )


def _additional(keyword: str, at: str, holder: dict[str, JSON], witness: Witness) -> _Change | str:
    if holder[keyword] is not False:
        return f"{NO_SINGLE_CHANGE}: additionalProperties is a schema, not false"
    if witness.undecided:
        return (
            "a logged property name could not be matched against patternProperties within "
            f"{PATTERN_TIMEOUT:g} s of CPU time: whether it is an extra property is not "
            "known, no patch proposed"
        )
    if witness.extras is None:
        return (
            f"more than {MAX_VALUES} distinct extra properties (or a name longer than "
            f"{MAX_VALUE_CHARS} characters): no patch proposed"
        )
    if not witness.extras:
        return NO_SINGLE_CHANGE
    added = {name: _type_schema(witness.extras[name]) for name in sorted(witness.extras)}
    declared = holder.get("properties")
    if isinstance(declared, dict):
        operations = tuple(
            PatchOperation(PatchOp.ADD, pointers.join(at, "properties", name), schema)
            for name, schema in added.items()
        )
    elif "properties" in holder:
        return NO_SINGLE_CHANGE
    else:
        value: dict[str, JSON] = dict(added)
        operations = (PatchOperation(PatchOp.ADD, pointers.join(at, "properties"), value),)
    names = ", ".join(f"{name} ({_type_text(schema)})" for name, schema in list(added.items())[:3])
    more = f" and {len(added) - 3} more" if len(added) > 3 else ""
    noun = "property" if len(added) == 1 else "properties"
    return _Change(f"add {noun} {names}{more}", operations)


def _type_schema(types: set[str]) -> JSON:
    if "number" in types:
        types = types - {"integer"}
    ordered = sorted(types)
    return {"type": ordered[0] if len(ordered) == 1 else list(ordered)}


def _type_text(schema: JSON) -> str:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    return str(kind)


def _required(keyword: str, at: str, holder: dict[str, JSON], witness: Witness) -> _Change | str:
    wanted = holder[keyword]
    if not isinstance(wanted, list) or not witness.missing:
        return NO_SINGLE_CHANGE
    indices = [i for i, name in enumerate(wanted) if name in witness.missing]
    if not indices:
        return NO_SINGLE_CHANGE
    names = ", ".join(str(wanted[i]) for i in indices)
    summary = f"drop {names} from required"
    if len(indices) == len(wanted):
        return _Change(summary, (PatchOperation(PatchOp.REMOVE, pointers.join(at, keyword)),))
    return _Change(
        summary,
        tuple(
            PatchOperation(PatchOp.REMOVE, pointers.join(at, keyword, i)) for i in reversed(indices)
        ),
    )


RULES: Final[dict[str, _Rule]] = {
    **dict.fromkeys(SIZED, _size_bound),
    **dict.fromkeys(BOUNDS, _number_bound),
    "enum": _enum,
    "additionalProperties": _additional,
    "required": _required,
}
"""The loosening rule of each keyword family; a keyword not here gets no patch."""

_READS: Final[dict[str, tuple[str, ...]]] = {
    "additionalProperties": ("properties", "patternProperties", "additionalProperties"),
    "maximum": ("maximum", "exclusiveMaximum"),
    "minimum": ("minimum", "exclusiveMinimum"),
}
"""The keywords whose verdict a keyword's check depends on (draft 4 booleans included)."""


def verify(
    keyword: str,
    holder_pointer: str,
    patched: JSON,
    witness: Witness,
    ceiling: SearchCeiling | None = None,
    shared: ToolPatches | None = None,
    operations: tuple[PatchOperation, ...] = (),
) -> str | None:
    """None when the patched schema is usable and its keyword accepts every extreme value the
    group logged; else why not. The values are checked within one step of ``ceiling``.
    ``shared`` and ``operations`` (what made ``patched`` of its tool's new schema) let the
    schema's usability be shown from the holder alone (``local_checks``)."""
    shown = (
        None if shared is None else usable_after(shared.whole, patched, operations, holder_pointer)
    )
    if shown is None:
        problem = schema_problem(patched)
        if problem is not None:
            return f"{NO_SINGLE_CHANGE}: the patched schema {problem}"
    _, holder = pointers.resolve(patched, holder_pointer)
    holder = holder if isinstance(holder, dict) else {}
    alone: dict[str, JSON] = {
        name: holder[name] for name in _READS.get(keyword, (keyword,)) if name in holder
    }
    if isinstance(patched, dict):
        for name in ("$schema", "$defs", "definitions"):
            if name in patched:
                alone[name] = patched[name]
    ceiling = ceiling or SearchCeiling()
    # Evaluated on the budgeted engine: a pattern that backtracks on a logged name (the
    # regex engine answers ``^(a+)+$`` at once, Python's re took days) stops at the step.
    check = _compiled(alone, ceiling.step, shown, shared)
    if check.validator is None:
        return f"{NO_SINGLE_CHANGE}: {check.problem}"
    validator = check.validator
    instances = _instances(keyword, holder, witness)
    with ceiling.counting():
        if ceiling.start_step() is None:
            return f"not checked: the audit's searches had spent {ceiling.describe()}"
        try:
            accepted = all(validator.is_valid(instance) for instance in instances)
        except (CallTimeout, UnusablePattern) as error:
            return f"the patch could not be checked: {error}"
    return None if accepted else NO_SINGLE_CHANGE


def _compiled(
    alone: dict[str, JSON], budget: CallBudget, shown: Usable | None, shared: ToolPatches | None
) -> Compiled:
    """``compile_schema(alone, budget)``, without checking the definitions ``alone`` carries
    again where the patched schema was shown usable (``shown``): its meta-schema accepted them."""
    if shown is not None and shared is not None and alone_usable(alone, shown, shared.whole.draft):
        return Compiled(build_validator(alone, budget), None)
    return compile_schema(alone, budget)


def _instances(keyword: str, holder: dict[str, JSON], witness: Witness) -> list[JSON]:
    """The extreme values of the group, as instances of the keyword's schema object."""
    if keyword in SIZED:
        sizes = [s for s in (witness.longest, witness.shortest) if s is not None]
        kind = SIZED[keyword]
        if kind is str:
            return ["x" * size for size in sizes]
        if kind is list:
            return [[None] * size for size in sizes]
        return [{f"p{i}": None for i in range(size)} for size in sizes]
    if keyword in BOUNDS:
        return [n for n in (witness.largest, witness.smallest) if n is not None]
    if keyword == "enum":
        return list((witness.values or {}).values())
    if keyword == "additionalProperties":
        return [
            {name: _SAMPLES[kind]}
            for name, kinds in sorted((witness.extras or {}).items())
            for kind in sorted(kinds)
        ]
    if keyword == "required":
        listed = holder.get("required")
        wanted = [n for n in listed if isinstance(n, str)] if isinstance(listed, list) else []
        return [{n: None for n in wanted if n != missing} for missing in sorted(witness.missing)]
    return []


def _in_file(
    operations: tuple[PatchOperation, ...], patched: JSON, holder_pointer: str, shared: ToolPatches
) -> tuple[Location, tuple[PatchOperation, ...], JSON | None] | str | Undone:
    """Where the patch edits the catalog file, the operations on the schema as written there,
    and the edited schema when its normalization does not give ``patched`` exactly (None when
    it does); or why it cannot be written into the file (``str``: the patch still stands on
    the schema) or is no patch at all (``Undone``: the place it edits is the rules' own)."""
    side = shared.side
    if side is None:
        return "the tool's catalog is not known"
    tool = side.tool
    if tool.location.path in (STDIN, STDIN_NAME):
        return "the catalog was read from standard input"
    written = shared.written
    if written is None:
        return TOO_DEEP
    file_operations = tuple(
        PatchOperation(o.op, written.old_pointer(o.path), o.value) for o in operations
    )
    # Shared with the file's schema where it is not too deep to copy: copying one that is
    # ends in a RecursionError, said as the depth it is.
    shallow = written.depth <= MAX_NESTING
    try:
        edited = apply_patch(tool.schema, file_operations, share=shallow)
    except PatchError:
        if not side.rules:  # the file is not the schema patched: nothing the user wrote
            return f"the schema as written has nothing at {file_operations[0].path} to edit"
        return Undone(_not_written(operations[0].path, side.rules))
    except RecursionError:
        return TOO_DEEP
    try:
        same = None
        if shallow:
            same = normalizes_to(
                written, shared.whole, edited, file_operations, operations, holder_pointer, patched
            )
        if same is None:
            again = normalize(edited, side.rules).schema if side.rules else edited
            same = again == patched
    except RecursionError:
        return TOO_DEEP
    return _location(tool, file_operations[0]), file_operations, None if same else edited


TOO_DEEP: Final = "the catalog's schema is too deep to map"


@dataclass(frozen=True)
class Undone:
    """Why a patch verified on the new schema is not offered after all: the catalog file,
    edited and normalized again under the audit's rules, does not give a schema that passes
    the group's calls and newly rejects none of the tool's other logged calls."""

    reason: str


class HeldCalls(Protocol):
    """The audit again for one tool, with its catalog's schema edited: the rules (profiles
    included) and runtimes of the audit, replayed over the calls of the tool it holds."""

    def renormalized(self, edited: JSON) -> JSON:
        """The new schema the edited catalog schema gives, as the audit makes it."""

    def newly_rejected(self, edited: JSON) -> tuple[str, ...]:
        """The sources of the held calls the audit accepted that the edited catalog's audit
        does not."""


def recheck(
    keyword: str,
    holder_pointer: str,
    patched: JSON,
    edited: JSON | None,
    witness: Witness,
    ceiling: SearchCeiling | None,
    shared: ToolPatches,
) -> Undone | None:
    """None when the edited catalog gives ``patched`` (``edited`` is None: the loosening then
    rejects nothing the new schema accepted, by construction), or when it gives another
    schema that still passes the group's extremes and newly rejects none of the tool's held
    calls; else why the patch is not offered (the rules undo it, or it moves the failure)."""
    if edited is None:
        return None
    rules = _rules_text(shared.side.rules if shared.side is not None else ())
    held = shared.held
    if held is None:
        return Undone(
            f"the catalog edited so gives another schema once normalized with {rules}, and "
            "no logged call was at hand to check it against"
        )
    try:
        again = held.renormalized(edited)
    except RecursionError:
        return Undone(TOO_DEEP)
    if verify(keyword, holder_pointer, again, witness, ceiling) is not None:
        return Undone(
            f"{rules} undoes it: the catalog edited so, normalized again, still rejects the "
            "group's calls"
        )
    rejected = held.newly_rejected(edited)
    if rejected:
        first = ", ".join(rejected[:3]) + (", …" if len(rejected) > 3 else "")
        return Undone(
            f"the catalog edited so, normalized with {rules}, newly rejects "
            f"{plural(len(rejected), 'other logged call')} of the tool ({first}): the patch "
            "would move the failure to them"
        )
    return None


def _not_written(pointer: str, rules: Collection[Rule]) -> str:
    return (
        f"no edit of the catalog gives it: {_rules_text(rules)} writes {pointer} of the new "
        "schema itself, and the catalog has nothing there to edit"
    )


def _rules_text(rules: Collection[Rule]) -> str:
    return rules_option(rules) if rules else "no --rules (the catalog as written)"


def _location(tool: ToolSchema, operation: PatchOperation) -> Location:
    pointer = operation.path
    if operation.op is PatchOp.ADD:  # the added place is not in the file: its holder is
        pointer = pointers.parent(pointer)
    while pointer:
        position = tool.positions.get(pointer)
        if position is not None:
            return Location(tool.location.path, *position)
        pointer = pointers.parent(pointer)
    return tool.location
