r"""A fast path to the verdicts of python-jsonschema, used only where it provably agrees.

python-jsonschema is the reference: every outcome and error the report shows is its own.
jsonschema-rs validates the same drafts a hundred times faster, so it answers the one
question most calls ask — *do the old and the new schema both accept these arguments?* —
for schemas where the two validators cannot disagree. Anything else (a rejection, a schema
the fast validator is not trusted with, an argument it cannot take) goes to the reference.

Every rule below is applied at schema positions only: the root and whatever the keywords of
the vocabulary table (``auditor.schema.keywords``, every draft's applicators together) hold as
subschemas, as the normalizer walks them. Data (``enum``, ``const``, ``default``, ``examples``,
unknown keywords' values) and names (the keys of ``properties``, ``$defs``...) are never
evaluated as schemas, so a property named ``id`` or ``pattern``, or ``{"pattern": "\\w"}`` in
an ``enum``, does not keep a tool with the reference. A ``$ref`` is what could make data a
schema (both validators resolve a pointer wherever it lands): a local one must land on a schema
position, or the schema stays with the reference.

Where the validators differ, and how it is kept out:

- regex dialect (``pattern``, ``patternProperties``): Python's ``re`` and Rust's regex
  differ in Unicode classes (``\w``, ``\s``, ``\b``, ``\d`` by Unicode version), POSIX
  and set-operation classes (``[[:alpha:]]``, ``[a&&b]``), flags and look-around; only
  patterns in a plain ASCII subset both read alike are trusted (``_PLAIN_REGEX``). Python's
  ``$`` also matches before a final newline; the fast validator is given ``(?=\n?$)`` in its
  place (its own ``$`` is the end of the text), which means exactly that (under ``not`` or in
  ``patternProperties`` a looser match is a stricter verdict, so the difference must go, not
  be leaned on); data is given as it is (an ``enum`` member ``{"pattern": "a$"}`` is
  compared, not translated);
- ``multipleOf`` with a fractional divisor: float arithmetic differs, so it stays too;
- ``format`` and ``content*``: python-jsonschema does not assert them here, and the fast
  validator is built with format validation off; ``content*`` schemas stay with the reference;
- references: the fast validator resolves every ``$ref`` when it is built and refuses remote
  ones (offline); a recursive schema stays with the reference, whose recursion limit can turn
  a deep argument into a schema error the fast validator would not raise; so does a schema whose
  references fan out (``allOf`` of ``$ref``s to ``allOf`` of ``$ref``s...) into more
  evaluations than ``MAX_FAN_OUT``, which the fast validator would run without any budget;
- infinities cannot come from JSON, and anything the fast validator cannot take raises and falls
  back.

The differential tests (tests/replay/test_fast_validator.py) check agreement on generated
schemas and arguments and on the project's own cases.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any, Final

import jsonschema_rs
from jsonschema import validators

from auditor import pointers
from auditor.models import JSON
from auditor.replay.budget import MAX_PATTERN_EXPANSION, pattern_expansion
from auditor.schema.keywords import VOCABULARY, Draft, Kind, draft_of, schema_objects

_RS_CLASSES: Final[dict[Draft, Any]] = {
    Draft.DRAFT4: jsonschema_rs.Draft4Validator,
    Draft.DRAFT6: jsonschema_rs.Draft6Validator,
    Draft.DRAFT7: jsonschema_rs.Draft7Validator,
    Draft.DRAFT2019: jsonschema_rs.Draft201909Validator,
    Draft.DRAFT2020: jsonschema_rs.Draft202012Validator,
}
VALIDATORS_BY_DRAFT: Final[dict[Draft, Any]] = {
    Draft.DRAFT4: validators.Draft4Validator,
    Draft.DRAFT6: validators.Draft6Validator,
    Draft.DRAFT7: validators.Draft7Validator,
    Draft.DRAFT2019: validators.Draft201909Validator,
    Draft.DRAFT2020: validators.Draft202012Validator,
}
"""python-jsonschema's validator per draft, for its meta-schemas."""
_REFERENCE_ONLY: Final = frozenset(
    {
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "$dynamicRef",
        "$recursiveRef",
        "$id",
        "id",
    }
)
"""Keys whose presence in a schema (at a keyword position, in any draft) keeps it with the
reference validator."""


def trusted(schema: JSON) -> bool:
    """Whether the fast validator's verdicts on ``schema`` are python-jsonschema's.

    Only schema positions are looked at (``schema_positions``): a property named ``id`` or
    ``pattern``, or a keyword-like object in ``enum``, ``const`` or ``default`` data, is not a
    keyword and never keeps the schema with the reference. A local ``$ref`` must land on a
    schema position (``_at_schema_position``); one into data, an unknown keyword's value or a
    container (``#/properties``) does, since both validators would then read as a schema what
    this walk took for data.
    """
    for node in schema_positions(schema):
        if _REFERENCE_ONLY.intersection(node):
            return False
        named = node.get("patternProperties")
        regexes = [node.get("pattern"), *(named if isinstance(named, dict) else ())]
        if not all(r is None or (isinstance(r, str) and _plain_regex(r)) for r in regexes):
            return False
        divisor = node.get("multipleOf")
        if divisor is not None and not (isinstance(divisor, int) and not isinstance(divisor, bool)):
            return False
        ref = node.get("$ref")
        if isinstance(ref, str):
            pointer = pointers.ref_target(ref)
            if not isinstance(pointer, str) or not _at_schema_position(schema, pointer):
                return False
    weighed = fan_out(schema)
    return weighed is not None and weighed[0] <= MAX_FAN_OUT and weighed[1] <= MAX_EVALUATION_DEPTH


def _applicators() -> dict[str, Kind]:
    """Every keyword whose value holds subschemas in some draft, with what it holds (``items``:
    a schema or a list of them). The union over drafts, so that neither validator's reading of a
    keyword in a draft where the table says it is data can hold a subschema this walk skips:
    walking more as schemas only adds checks."""
    found: dict[str, Kind] = {}
    for vocabulary in VOCABULARY.values():
        for keyword, kind in vocabulary.items():
            if kind in (Kind.DATA, Kind.TYPE):
                continue
            known = found.setdefault(keyword, kind)
            if known is not kind:
                found[keyword] = Kind.SCHEMA_OR_LIST  # `items`, the only such keyword
    return found


_APPLICATORS: Final[dict[str, Kind]] = _applicators()
_LISTS: Final = (Kind.SCHEMA_LIST, Kind.SCHEMA_OR_LIST)
_MAPS: Final = (Kind.SCHEMA_MAP, Kind.DEPENDENCIES)


def _holds(kind: Kind, value: JSON) -> str | None:
    """What a keyword of ``kind`` holds with this value: one ``schema``, a ``list`` of schemas,
    a ``map`` of names to schemas, or None (a value of the wrong type: nothing evaluated)."""
    if kind is Kind.SCHEMA or (kind is Kind.SCHEMA_OR_LIST and not isinstance(value, list)):
        return "schema"
    if kind in _LISTS and isinstance(value, list):
        return "list"
    if kind in _MAPS and isinstance(value, dict):
        return "map"
    return None


def _members(holds: str, value: JSON) -> list[JSON]:
    """The subschemas in a keyword's value (a ``dependencies`` name list is data)."""
    if holds == "schema":
        return [value]
    if holds == "list" and isinstance(value, list):
        return list(value)
    if holds == "map" and isinstance(value, dict):
        return [member for member in value.values() if not isinstance(member, list)]
    return []


def schema_positions(schema: JSON) -> Iterator[dict[str, JSON]]:
    """Every object at a schema position: the root and, through the keywords' values, every
    subschema. Never data (``enum``, ``const``, ``default``, ``examples``, unknown keywords'
    values) and never a name (the keys of ``properties``, ``$defs``...)."""
    # Boolean schemas, and junk the meta-schema check refuses, are not objects: skipped.
    # schema_objects' walk in its order, without the pointers no caller here reads (each
    # tool is walked several times when it is compiled).
    stack: list[JSON] = [schema]
    while stack:
        current = stack.pop()
        if not isinstance(current, dict):
            continue
        yield current
        for key, value in current.items():
            kind = _APPLICATORS.get(key)
            if kind is None:
                continue
            if kind is Kind.SCHEMA:
                stack.append(value)
            elif kind in _LISTS and isinstance(value, list):
                stack.extend(value)
            elif kind is Kind.SCHEMA_OR_LIST:
                stack.append(value)
            elif kind in _MAPS and isinstance(value, dict):
                stack.extend(value.values())


def _at_schema_position(root: JSON, pointer: str) -> bool:
    """Whether ``pointer`` names a schema position of ``root`` (as ``schema_positions`` walks
    them) holding a schema. A list index must be spelled canonically (``01`` is refused)."""
    node, holds = root, "schema"
    for segment in pointers.split(pointer):
        if holds == "schema":
            kind = _APPLICATORS.get(segment)
            if not isinstance(node, dict) or segment not in node or kind is None:
                return False
            node = node[segment]
            found = _holds(kind, node)
            if found is None:
                return False
            holds = found
        elif holds == "list":
            if not isinstance(node, list):
                return False
            index = pointers.array_index(segment, len(node))
            if index is None:
                return False
            node, holds = node[index], "schema"
        else:
            if not isinstance(node, dict) or segment not in node or isinstance(node[segment], list):
                return False
            node, holds = node[segment], "schema"
    return holds == "schema" and isinstance(node, (dict, bool))


_PLAIN = r"[\x20-\x5a\x5e-\x7e]"
"""Printable ASCII except backslash and square brackets."""
_ESCAPED = r"\\[.\-/+*?()\[\]{}|^$\\]"
"""An escaped metacharacter; never an escaped letter (a class or an assertion)."""
_PLAIN_REGEX: Final = re.compile(rf"(?:{_PLAIN}|{_ESCAPED}|\[\^?(?:{_PLAIN}|{_ESCAPED})+\])*")


def _plain_regex(pattern: str) -> bool:
    """A pattern both validators read alike: ASCII literals, escaped metacharacters, plain
    classes, groups without flags or look-around, and quantifiers."""
    if "(?" in pattern.replace("(?:", "") or any(op in pattern for op in ("&&", "--", "~~")):
        return False
    # A pattern too big for the reference to compile is refused there, per call; the fast
    # validator must not answer "accepted" in its place (nor spend its memory compiling it).
    return (
        _PLAIN_REGEX.fullmatch(pattern) is not None
        and pattern_expansion(pattern) <= MAX_PATTERN_EXPANSION
    )


MAX_FAN_OUT: Final = 100_000
"""Subschema evaluations one instance value may cause, following ``$ref`` with multiplicity,
above which the fast validator is not trusted: 40 nested ``allOf`` of two ``$ref``s to the next
(2.9 KB) cause 2^40, and the fast validator cannot be interrupted (it holds the interpreter, deaf
to the call budget and to signals). The reference validator checks the budget as it descends."""
MAX_EVALUATION_DEPTH: Final = 300
"""Steps (into a subschema or through a ``$ref``) on the longest evaluation path above which
the fast validator is not trusted: python-jsonschema's recursion limit turns a chain of ~500
references into a schema error, which the fast validator would not raise."""

_NOT_EVALUATED: Final = frozenset({"$defs", "definitions"})
"""Containers whose members run only where a ``$ref`` leads (then counted there)."""


def fan_out(schema: JSON) -> tuple[int, int] | None:
    """How many subschema evaluations one instance value can cause at most (saturating just
    above ``MAX_FAN_OUT``) and the longest evaluation path; None when following references
    can lead back into a subschema (or leaves the document, or lands off the schema
    positions: ``trusted`` refuses those anyway).

    Schema positions only (as ``schema_positions`` walks them): each subschema counts, and so
    does each list or map of subschemas on the way to it, so neither figure is less than the
    truth; data is never evaluated and never counted.
    Linear in the size of the schema: each node is weighed once, by identity and role.
    """
    weight: dict[tuple[int, str], tuple[int, int]] = {}
    on_path: set[tuple[int, str]] = set()
    stack: list[tuple[JSON, str, list[tuple[JSON, str, bool]] | None]] = [(schema, "schema", None)]
    while stack:
        node, holds, successors = stack[-1]
        key = (id(node), holds)
        if successors is None:  # first visit: note what this node leads to
            if key in weight:
                stack.pop()
                continue
            found = _successors(schema, node, holds)
            if found is None:
                return None
            on_path.add(key)
            stack[-1] = (node, holds, found)
            for successor, role, _ in found:
                if (id(successor), role) in on_path:
                    return None  # a reference back into a subschema being evaluated
                if (id(successor), role) not in weight:
                    stack.append((successor, role, None))
            continue
        stack.pop()
        on_path.discard(key)
        evaluated = [weight[(id(node), role)] for node, role, runs in successors if runs]
        total = 1 + sum(count for count, _ in evaluated)
        depth = 1 + max((steps for _, steps in evaluated), default=0)
        weight[key] = (min(total, MAX_FAN_OUT + 1), min(depth, MAX_EVALUATION_DEPTH + 1))
    return weight[(id(schema), "schema")]


def _successors(root: JSON, node: JSON, holds: str) -> list[tuple[JSON, str, bool]] | None:
    """The subschemas, lists and maps of subschemas directly in ``node`` (held as ``holds``)
    and the target of its ``$ref``, each with its role and whether evaluating ``node``
    evaluates it; None for a reference not followed here."""
    if holds != "schema":
        return [
            (member, "schema", True) for member in _members(holds, node) if isinstance(member, dict)
        ]
    if not isinstance(node, dict):
        return []
    found: list[tuple[JSON, str, bool]] = []
    for key, value in node.items():
        kind = _APPLICATORS.get(key)
        role = None if kind is None else _holds(kind, value)
        if role == "schema" and not isinstance(value, dict):
            continue  # a boolean schema: nothing below it
        if role is not None:
            found.append((value, role, key not in _NOT_EVALUATED))
    ref = node.get("$ref")
    if isinstance(ref, str):
        pointer = pointers.ref_target(ref)
        if not isinstance(pointer, str) or not _at_schema_position(root, pointer):
            return None  # remote, an anchor, or off the schema positions: not followed here
        _, target = pointers.resolve(root, pointer)
        if isinstance(target, dict):
            found.append((target, "schema", True))
    return found


@functools.cache
def _meta_validator(draft: Draft) -> Any:
    meta_schema = VALIDATORS_BY_DRAFT[draft].META_SCHEMA
    return _RS_CLASSES[draft](meta_schema, validate_formats=False, offline=True)


def meta_valid(draft: Draft, schema: JSON) -> bool:
    """True only when ``schema`` certainly passes its draft's meta-schema as python-jsonschema
    checks it; False means *ask python-jsonschema*, which says why.

    The fast validator checks the meta-schema without formats; the one format python-jsonschema
    asserts there, ``regex``, is checked here with Python's ``re`` on every ``pattern`` and
    ``patternProperties`` key at a schema position (the meta-schema looks nowhere else; it
    does not follow ``$ref``).
    Checking the meta-schema is most of what preparing a tool costs.
    """
    for node in schema_positions(schema):
        regexes = [node.get("pattern")]
        if isinstance(named := node.get("patternProperties"), dict):
            regexes += list(named)
        for regex in regexes:
            if isinstance(regex, str) and not _python_regex(regex):
                return False
    try:
        return bool(_meta_validator(draft).is_valid(schema))
    except Exception:  # a schema the fast validator cannot take: python-jsonschema decides
        return False


def _python_regex(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return False
    return True


class FastCheck:
    """The fast validator's validator for one schema, where trusted; None-like otherwise."""

    def __init__(self, schema: JSON) -> None:
        """``schema`` None: nothing is fast, the reference decides everything."""
        self._validator = None if schema is None else _compile(schema)

    @property
    def validator(self) -> Any:
        """The fast validator's validator; None where the schema is not trusted with it."""
        return self._validator

    def accepts(self, arguments: JSON) -> bool:
        """True only when the schema certainly accepts ``arguments``; False means *ask the
        reference*, never *rejected*."""
        if self._validator is None:
            return False
        try:
            return bool(self._validator.is_valid(arguments))
        except Exception:  # an argument the fast validator cannot take: the reference decides
            return False


def python_dollar(pattern: str) -> str:
    r"""A plain pattern with each end-of-line ``$`` spelled the way Python's ``re`` reads it.

    ``(?=\n?$)``: an optional final newline, then the end of the text (jsonschema-rs reads a
    ``$`` without the multiline flag as the end of the text only). Not ``\z``, which says the
    same: jsonschema-rs checks a draft 4, 6 or 7 schema's regexes as ECMA 262 ones
    (``format: regex`` in those meta-schemas), which have no ``\z``, and refused every such
    schema with a ``$`` in a pattern."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[":
            end = i + 1
            while end < len(pattern) and pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            out.append(pattern[i : end + 1])
            i = end + 1
            continue
        out.append("(?=\n?$)" if char == "$" else char)
        i += 1
    return "".join(out)


def _for_fast_validator(node: JSON) -> JSON:
    """The schema with every regex at a schema position translated by ``python_dollar``; the
    rest (data, names) as it is: an ``enum`` member ``{"pattern": "a$"}`` or a property
    named ``patternProperties`` is not a regex and must reach the fast validator unchanged."""
    return rewritten_at_schema_positions(node, _python_dollars)


def _python_dollars(node: dict[str, JSON], out: dict[str, JSON]) -> dict[str, JSON]:
    if isinstance(pattern := node.get("pattern"), str):
        out["pattern"] = python_dollar(pattern)
    if isinstance(named := out.get("patternProperties"), dict):
        out["patternProperties"] = {python_dollar(regex): value for regex, value in named.items()}
    return out


def rewritten_at_schema_positions(
    node: JSON, edit: Callable[[dict[str, JSON], dict[str, JSON]], dict[str, JSON]]
) -> JSON:
    """A copy of ``node`` in which every object at a schema position (as ``schema_positions``
    walks them) is ``edit(original, copy)``: the copy holds the object's members, its
    subschemas already edited. Data and names are copied as they are."""
    if not isinstance(node, dict):
        return node
    out: dict[str, JSON] = {}
    for key, value in node.items():
        kind = _APPLICATORS.get(key)
        holds = None if kind is None else _holds(kind, value)
        if holds == "schema":
            out[key] = rewritten_at_schema_positions(value, edit)
        elif holds == "list" and isinstance(value, list):
            out[key] = [rewritten_at_schema_positions(item, edit) for item in value]
        elif holds == "map" and isinstance(value, dict):
            out[key] = {
                name: member
                if isinstance(member, list)
                else rewritten_at_schema_positions(member, edit)
                for name, member in value.items()
            }
        else:
            out[key] = value
    return edit(node, out)


def _compile(schema: JSON) -> Any:
    if not trusted(schema):
        return None
    try:
        return _RS_CLASSES[draft_of(schema)](
            _for_fast_validator(schema), validate_formats=False, offline=True
        )
    except Exception:  # refused (an unresolvable reference, say): the reference decides
        return None


_ROOT_URI: Final = "urn:auditor:tool"
"""Where the subschemas' validators find the schema they are part of."""


class FastSubschemas:
    """The fast validator's validators for subschemas of one schema, each resolving its
    references in that schema as the whole schema's validator does."""

    def __init__(self, schema: JSON) -> None:
        """``schema`` must be one ``trusted`` says the fast validator is trusted with."""
        self._draft = draft_of(schema)
        self._registry: Any = None
        self._schema = schema

    def at(self, pointer: str) -> Any:
        """The validator of the subschema at ``pointer`` (a JSON pointer written as a URI
        fragment needs no escape); None where the fast validator refuses it."""
        try:
            if self._registry is None:
                self._registry = jsonschema_rs.Registry(
                    [(_ROOT_URI, _for_fast_validator(self._schema))],
                    draft=_RS_DRAFTS[self._draft],
                )
            return _RS_CLASSES[self._draft](
                {"$ref": f"{_ROOT_URI}#{pointer}"},
                registry=self._registry,
                validate_formats=False,
                offline=True,
            )
        except Exception:  # refused: the reference decides
            return None


_RS_DRAFTS: Final[dict[Draft, int]] = {
    Draft.DRAFT4: jsonschema_rs.Draft4,
    Draft.DRAFT6: jsonschema_rs.Draft6,
    Draft.DRAFT7: jsonschema_rs.Draft7,
    Draft.DRAFT2019: jsonschema_rs.Draft201909,
    Draft.DRAFT2020: jsonschema_rs.Draft202012,
}


def schema_places(schema: JSON) -> dict[int, str]:
    """The pointer of every object at a schema position (``schema_positions``), by identity."""
    return {id(node): where for node, where in schema_objects(schema, "", _APPLICATORS)}
