"""Apply a catalog file's rewrites, or the suggested loosenings, to its text in place,
changing nothing else.

The file is composed (not loaded) so every key and value keeps its exact span in the text;
each rewrite becomes a splice of one span, written in the style the file already uses
(quoting, flow or block). The result is parsed again and must give exactly the normalized
(or patched) schemas: a file that cannot be edited that way is left alone and reported.

The loosenings of a run (``catalog_edits``: the SARIF fixes and the ``--suggest-patch``
diff) read, parse and compose each file once, and each is made in the smallest node of the
file that holds it and can be taken alone (``_Catalog``), so that a thousand loosenings of
one large catalog cost a thousand small edits, not a thousand readings of the file.
"""

from __future__ import annotations

import bisect
import copy
import functools
import itertools
import json
import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import yaml

from auditor import pointers
from auditor.inputs.catalogs import parse_document, read_catalog, recognisable
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES, MAX_PARSE_NESTING, on_deep_stack
from auditor.inputs.positions import composable
from auditor.models import (
    JSON,
    Change,
    Edit,
    Group,
    Location,
    PatchOp,
    PatchOperation,
    Rule,
    SchemaPatch,
    ToolSchema,
)
from auditor.schema.diffs import LineChange, changed_lines, window_change
from auditor.schema.diffs import minimal_diff as minimal_diff  # where the CLI finds it
from auditor.schema.diffs import unified_diff as unified_diff
from auditor.schema.jsonpatch import PatchError, apply_patch
from auditor.schema.normalize import DEFAULT_RULES, Normalized, normalize

_BOM = "\ufeff"


@dataclass(frozen=True)
class FileRewrite:
    """What normalizing one catalog file changes: its text before and after, and why."""

    path: str
    before: str
    after: str
    rewrites: tuple[tuple[str, Change], ...]
    """(tool name, rewrite) for every rewrite applied."""
    problem: str | None = None
    skipped: str | None = None
    """Why a file found in a directory was left alone without being a problem."""
    where: Location | None = None
    """Where in the file ``problem`` is, when the reader knows (``tools.yaml:6:1``)."""

    @property
    def changed(self) -> bool:
        return self.problem is None and self.skipped is None and self.after != self.before


@dataclass(frozen=True)
class _Splice:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class _Entry:
    """A key/value pair of a mapping, or an item of a sequence, in the composed tree."""

    parent: yaml.Node
    index: int
    key: yaml.ScalarNode | None
    value: yaml.Node


class EditError(Exception):
    """A rewrite that cannot be applied to the text as written."""


def rewrite_file(
    path: str,
    rules: Collection[Rule] = DEFAULT_RULES,
    max_bytes: int = DEFAULT_MAX_CATALOG_BYTES,
    found_in_directory: bool = False,
    add_keys: bool = False,
) -> FileRewrite:
    """Normalize every tool schema of one catalog file, editing only what changes.

    A file ``found_in_directory`` (not named by the user) is left alone, as ``skipped``,
    unless it is recognisably a catalog (``auditor.inputs.catalogs.recognisable``). A key an
    upgrade profile adds is written after the last entry of its object only with
    ``add_keys`` (to show it: ``normalize --diff``); otherwise the file is a problem.
    """
    tools, problem = read_catalog(path, max_bytes=max_bytes)
    if problem is not None:
        return FileRewrite(path, "", "", (), problem.message, where=problem.location)
    if found_in_directory and not recognisable(tools):
        return FileRewrite(
            path,
            "",
            "",
            (),
            skipped="not recognisably a catalog (no tool schemas found), left alone",
        )
    try:
        with open(path, encoding="utf-8", newline="") as stream:
            before = stream.read()
    except (OSError, UnicodeDecodeError) as error:
        return FileRewrite(path, "", "", (), f"cannot read: {error}")
    targets = [(tool, normalize(tool.schema, rules)) for tool in tools]
    refused = next(((tool, r.refusal) for tool, r in targets if r.refusal is not None), None)
    if refused is not None:  # the profile's SDK produces no schema to write or show
        return FileRewrite(path, before, before, (), f"tool {refused[0].name}: {refused[1]}")
    applied = tuple((tool.name, r) for tool, result in targets for r in result.rewrites)
    if not applied:
        return FileRewrite(path, before, before, ())
    bom = _BOM if before.startswith(_BOM) else ""
    body = before[len(bom) :]
    try:
        after = bom + _apply(body, path.lower().endswith(".json"), targets, add_keys)
        _verify(path, body, after[len(bom) :], [(tool, result.schema) for tool, result in targets])
    except EditError as error:
        return FileRewrite(path, before, before, applied, f"cannot edit in place: {error}")
    return FileRewrite(path, before, after, applied)


def _apply(
    text: str,
    is_json: bool,
    targets: Sequence[tuple[ToolSchema, Normalized]],
    add_keys: bool = False,
) -> str:
    try:
        root = yaml.compose(composable(text, is_json), Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise EditError(f"cannot compose the file: {error}") from error
    entries = _index(root)
    splices = []
    insertions: list[tuple[int, _Splice]] = []
    for tool, result in targets:
        added: dict[str, list[tuple[str, JSON]]] = {}
        for rewrite in result.rewrites:
            if rewrite.edit is Edit.ADD and add_keys:
                # Each object's added keys go in one splice, in the order the profile added
                # them: two insertions at one place would have no order of their own.
                _, new_value = pointers.resolve(result.schema, rewrite.new_pointer)
                key = pointers.split(rewrite.pointer)[-1]
                at = tool.pointer + pointers.parent(rewrite.pointer)
                added.setdefault(at, []).append((key, new_value))
                continue
            if rewrite.edit is Edit.ADD:
                # --write leaves a file alone rather than choose where a key stands in it.
                raise EditError(
                    f"--rules {rewrite.rule.value} adds `{pointers.split(rewrite.pointer)[-1]}` "
                    f"at {tool.pointer + rewrite.pointer}, and normalize does not add keys to "
                    f"a file; audit with --rules {rewrite.rule.value} instead"
                )
            entry = entries.get(tool.pointer + rewrite.pointer)
            if entry is None:
                raise EditError(f"no key at {tool.pointer + rewrite.pointer}")
            # A removed entry has no new value, and its splice needs none.
            _, new_value = pointers.resolve(result.schema, rewrite.new_pointer)
            splices.append(_splice(text, is_json, entry, rewrite, new_value))
        for holder_pointer, items in added.items():
            holder = root if not holder_pointer else _value_at(entries, holder_pointer)
            if not isinstance(holder, yaml.MappingNode):
                raise EditError(f"no object at {holder_pointer} to add keys to")
            depth = len(pointers.split(holder_pointer))
            insertions.append((depth, _add_entries(text, is_json, holder, items)))
    splices.extend(_merged(insertions))
    for splice in reversed(_outermost(splices)):
        text = text[: splice.start] + splice.text + text[splice.end :]
    return text


def _merged(insertions: Iterable[tuple[int, _Splice]]) -> list[_Splice]:
    """Insertions at one place as one splice, the deepest object's first: a block object and
    the one holding it end on the same line, and the inner one's keys go right after it."""
    by_place: dict[int, list[tuple[int, _Splice]]] = {}
    for depth, splice in insertions:
        by_place.setdefault(splice.start, []).append((depth, splice))
    merged = []
    for place, found in by_place.items():
        ordered = sorted(found, key=lambda pair: -pair[0])
        ends = {splice.end for _, splice in ordered}
        if len(ordered) > 1 and ends != {place}:
            raise EditError("two additions overlap")
        merged.append(_Splice(place, ordered[0][1].end, "".join(s.text for _, s in ordered)))
    return merged


def _outermost(splices: list[_Splice]) -> list[_Splice]:
    """Sorted splices without those inside another (a removed or replaced whole wins)."""
    ordered = sorted(set(splices), key=lambda s: (s.start, -s.end))
    kept: list[_Splice] = []
    for splice in ordered:
        if kept and splice.start < kept[-1].end:
            if splice.end <= kept[-1].end:
                continue
            raise EditError("two rewrites overlap")
        kept.append(splice)
    return kept


def _splice(text: str, is_json: bool, entry: _Entry, rewrite: Change, value: JSON) -> _Splice:
    if rewrite.edit is Edit.RENAME:
        if entry.key is None:
            raise EditError(f"{rewrite.pointer} is not a key")
        start, end = _span(entry.key)
        return _Splice(start, end, _scalar(rewrite.new, entry.key.style, is_json))
    if rewrite.edit is Edit.REPLACE:
        start, end = _span(entry.value)
        style = entry.value.style if isinstance(entry.value, yaml.ScalarNode) else None
        return _Splice(start, end, _render(value, style, is_json))
    return _removal(text, entry)


def _render(value: JSON, style: str | None, is_json: bool) -> str:
    if isinstance(value, str):
        return _scalar(value, style, is_json)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, list) and not is_json:
        return "[" + ", ".join(_render(item, None, False) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _float(value: float) -> str:
    """A float that JSON and YAML 1.1 both read back as itself: YAML needs a dot before the
    exponent (``1e-05`` is a string there, ``1.0e-05`` a number)."""
    text = repr(value)
    mantissa, marker, exponent = text.partition("e")
    if marker and "." not in mantissa:
        text = f"{mantissa}.0e{exponent}"
    return text


def _scalar(value: str, style: str | None, is_json: bool) -> str:
    """A string in the quoting style it replaces; plain only where YAML reads it back as is."""
    if is_json or style == '"':
        return json.dumps(value, ensure_ascii=False)
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    try:
        plain_ok = yaml.safe_load(value) == value and not any(c in value for c in ",[]{}#")
    except yaml.YAMLError:
        plain_ok = False
    return value if plain_ok else json.dumps(value, ensure_ascii=False)


def _removal(text: str, entry: _Entry) -> _Splice:
    """The span that removes a mapping entry, with its line (block) or its comma (flow)."""
    if entry.key is None or not isinstance(entry.parent, yaml.MappingNode):
        raise EditError("only mapping entries can be removed")
    pairs = entry.parent.value
    start = entry.key.start_mark.index
    end = _span(entry.value)[1]
    after = pairs[entry.index + 1][0] if entry.index + 1 < len(pairs) else None
    before = pairs[entry.index - 1][1] if entry.index > 0 else None
    if not entry.parent.flow_style:
        line_start = text.rfind("\n", 0, start) + 1
        if not text[line_start:start].strip():
            line_end = text.find("\n", end)
            return _Splice(line_start, len(text) if line_end < 0 else line_end + 1, "")
        if after is not None:  # the entry follows a "- " on its line: pull the next one up
            return _Splice(start, after.start_mark.index, "")
        return _Splice(start, end, "{}")
    if after is not None:
        return _Splice(start, after.start_mark.index, "")
    if before is not None:
        return _Splice(_span(before)[1], end, "")
    return _Splice(start, end, "")


def _span(node: yaml.Node) -> tuple[int, int]:
    """Start and end of a node's own text (a block collection ends with its last child)."""
    end_node = node
    while isinstance(end_node, (yaml.MappingNode, yaml.SequenceNode)) and not end_node.flow_style:
        if not end_node.value:
            break
        last = end_node.value[-1]
        end_node = last[1] if isinstance(end_node, yaml.MappingNode) else last
    return node.start_mark.index, end_node.end_mark.index


def _index(root: yaml.Node | None) -> dict[str, _Entry]:
    found: dict[str, _Entry] = {}
    stack: list[tuple[yaml.Node, str]] = [(root, "")] if root is not None else []
    while stack:
        node, at = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for i, (key, value) in enumerate(node.value):
                child = pointers.join(at, str(key.value))
                found.setdefault(child, _Entry(node, i, key, value))
                stack.append((value, child))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                child = pointers.join(at, i)
                found.setdefault(child, _Entry(node, i, None, item))
                stack.append((item, child))
    return found


def _verify(path: str, before: str, after: str, schemas: Sequence[tuple[ToolSchema, JSON]]) -> None:
    """The edited text must parse to the original document with the normalized schemas."""
    expected, _ = parse_document(path, before, path.lower().endswith(".json"))
    expected = copy.deepcopy(expected)
    for tool, schema in schemas:
        expected = _with_value(expected, pointers.split(tool.pointer), schema)
    document, problem = parse_document(path, after, path.lower().endswith(".json"))
    if problem is not None or document != expected:
        raise EditError("the edit would change more than the rewrites")


def _with_value(document: JSON, segments: list[str], value: JSON) -> JSON:
    if not segments:
        return value
    head, rest = segments[0], segments[1:]
    if isinstance(document, list):
        document[int(head)] = _with_value(document[int(head)], rest, value)
    elif isinstance(document, dict):
        document[head] = _with_value(document[head], rest, value)
    else:
        raise EditError(f"no container at /{'/'.join(segments)}")
    return document


@dataclass(frozen=True)
class FilePatch:
    """A catalog file before and after the suggested loosenings that could be written into it."""

    path: str
    before: str
    after: str
    problems: tuple[str, ...] = ()
    """Why a loosening was left out of the file (``tool: reason``), in the order given."""


def patch_text(
    path: str, text: str, tool_pointer: str, operations: Sequence[PatchOperation]
) -> str:
    """``text`` (a catalog file named ``path``) with RFC 6902 ``operations`` on the schema at
    ``tool_pointer`` applied in place: a replaced value keeps its span's quoting, an array item
    or a mapping entry is added after the last one in the style and indentation of its
    neighbours (flow or block, one line or several), a removed item takes its line (block) or
    its comma (flow) along. Nothing else changes; the result must parse to the document with
    the operations applied, else ``EditError``."""
    bom = _BOM if text.startswith(_BOM) else ""
    body = text[len(bom) :]
    is_json = path.lower().endswith(".json")
    document, problem = parse_document(path, body, is_json)
    if problem is not None:
        raise EditError(problem.message)
    located = [PatchOperation(op.op, tool_pointer + op.path, op.value) for op in operations]
    try:
        expected = apply_patch(document, located)
    except PatchError as error:
        raise EditError(NOT_THERE) from error
    for operation in located:
        body = _patch_one(body, is_json, operation)
    edited, problem = parse_document(path, body, is_json)
    if problem is not None or edited != expected:
        raise EditError("the edit would change more than the patch")
    return bom + body


class _Uncomposable(EditError):
    """The text could not be composed (its message names a line and column of that text)."""


def _patch_one(text: str, is_json: bool, operation: PatchOperation, base: str = "") -> str:
    """``text`` with one operation applied; ``base``: the pointer of ``text``'s root in the
    file, when ``text`` is one node of it (``operation.path`` is then relative to it)."""
    try:
        root = yaml.compose(composable(text, is_json), Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise _Uncomposable(f"cannot compose the file: {error}") from error
    if root is None:
        raise EditError("the file is empty")
    entries = _index(root)
    pointer = operation.path
    if operation.op is PatchOp.ADD:
        holder_pointer = pointers.parent(pointer)
        holder = root if not holder_pointer else _value_at(entries, holder_pointer, base)
        last = pointers.split(pointer)[-1]
        if isinstance(holder, yaml.SequenceNode) and last == "-":
            splice = _append_item(text, is_json, holder, operation.value)
        elif isinstance(holder, yaml.MappingNode) and pointer not in entries:
            splice = _add_entry(text, is_json, holder, last, operation.value)
        else:
            raise EditError(f"cannot add at {base + pointer}")
    else:
        entry = entries.get(pointer)
        if entry is None:
            raise EditError(f"nothing at {base + pointer}")
        if operation.op is PatchOp.REPLACE:
            start, end = _span(entry.value)
            style = entry.value.style if isinstance(entry.value, yaml.ScalarNode) else None
            splice = _Splice(start, end, _flow(operation.value, style, is_json))
        elif isinstance(entry.parent, yaml.SequenceNode):
            splice = _item_removal(text, entry)
        else:
            splice = _removal(text, entry)
    return text[: splice.start] + splice.text + text[splice.end :]


def _value_at(entries: dict[str, _Entry], pointer: str, base: str = "") -> yaml.Node:
    entry = entries.get(pointer)
    if entry is None:
        raise EditError(f"nothing at {base + pointer}")
    return entry.value


def _flow(value: JSON, style: str | None, is_json: bool) -> str:
    """``value`` on one line: JSON, or YAML flow style with plain scalars where they read back."""
    if is_json:
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        entries = (f"{_scalar(k, None, False)}: {_flow(v, None, False)}" for k, v in value.items())
        return "{" + ", ".join(entries) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item, None, False) for item in value) + "]"
    return _render(value, style, False)


def _indent(text: str, node: yaml.Node) -> str:
    """The text before ``node`` on its line when it is only blanks, else as many spaces."""
    start = node.start_mark.index
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    return before if not before.strip() else " " * node.start_mark.column


def _next_line(text: str, end: int) -> int:
    """Where the line after the one ``end`` stands on starts (``len(text)`` at the end)."""
    if end > 0 and text[end - 1] == "\n":  # a block scalar ends past its newline
        return end
    newline = text.find("\n", end)
    return len(text) if newline < 0 else newline + 1


def _insert_line(text: str, end: int, line: str) -> _Splice:
    at = _next_line(text, end)
    if at == len(text) and not text.endswith("\n"):
        return _Splice(at, at, "\n" + line)
    return _Splice(at, at, line + "\n")


def _after_last(
    text: str, container: yaml.Node, last_start: yaml.Node, last_end: yaml.Node, entry: str
) -> _Splice:
    """``entry`` added after the last entry of a flow collection, on its line or the next."""
    end = _span(last_end)[1]
    if last_start.start_mark.line == container.start_mark.line:
        return _Splice(end, end, ", " + entry)
    return _Splice(end, end, ",\n" + _indent(text, last_start) + entry)


def _append_item(text: str, is_json: bool, node: yaml.SequenceNode, value: JSON) -> _Splice:
    item = _flow(value, None, is_json)
    if node.flow_style:
        if not node.value:
            start, end = _span(node)
            return _Splice(start, end, "[" + item + "]")
        return _after_last(text, node, node.value[-1], node.value[-1], item)
    if not node.value:
        raise EditError("an empty block sequence")
    last = node.value[-1]
    start = last.start_mark.index
    line_start = text.rfind("\n", 0, start) + 1
    dash = text.rfind("-", line_start, start)
    if dash < 0 or text[line_start:dash].strip() or text[dash + 1 : start].strip():
        raise EditError("the last item does not start its line")
    return _insert_line(text, _span(last)[1], text[line_start:start] + item)


def _add_entry(text: str, is_json: bool, node: yaml.MappingNode, key: str, value: JSON) -> _Splice:
    return _add_entries(text, is_json, node, [(key, value)])


def _add_entries(
    text: str, is_json: bool, node: yaml.MappingNode, items: Sequence[tuple[str, JSON]]
) -> _Splice:
    """``items`` added after the last entry of a mapping, in the style of its neighbours."""
    pairs = node.value
    style = pairs[-1][0].style if pairs else None
    entries = [
        f"{_scalar(key, style, is_json)}: {_flow(value, None, is_json)}" for key, value in items
    ]
    if node.flow_style:
        if not pairs:
            start, end = _span(node)
            return _Splice(start, end, "{" + ", ".join(entries) + "}")
        first = _after_last(text, node, pairs[-1][0], pairs[-1][1], entries[0])
        separator = first.text[: len(first.text) - len(entries[0])]
        rest = "".join(separator + entry for entry in entries[1:])
        return _Splice(first.start, first.end, first.text + rest)
    last_key, last_value = pairs[-1]
    line_start = text.rfind("\n", 0, last_key.start_mark.index) + 1
    before = text[line_start : last_key.start_mark.index]
    indent = before if not before.strip() else " " * last_key.start_mark.column
    return _insert_line(text, _span(last_value)[1], "\n".join(indent + entry for entry in entries))


def _item_removal(text: str, entry: _Entry) -> _Splice:
    """The span that removes a sequence item, with its line (block) or its comma (flow)."""
    parent = entry.parent
    if not isinstance(parent, yaml.SequenceNode):
        raise EditError("not a sequence item")
    items = parent.value
    start, end = _span(entry.value)
    if not parent.flow_style:
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip() != "-":
            raise EditError("the item does not start its line")
        return _Splice(line_start, _next_line(text, end), "")
    if entry.index + 1 < len(items):
        return _Splice(start, items[entry.index + 1].start_mark.index, "")
    if entry.index > 0:
        return _Splice(_span(items[entry.index - 1])[1], end, "")
    return _Splice(start, end, "")


@dataclass(frozen=True)
class CatalogEdits:
    """The suggested loosenings of a run written into their catalog files as the files are
    now, each file read, parsed and composed once (``catalog_edits``)."""

    files: tuple[FilePatch, ...] = ()
    """Each file with every loosening that applies, one after the other (``--suggest-patch``)."""
    alone: Mapping[str, LineChange] = field(default_factory=dict)
    """Each loosening applied by itself to its file as it is, by key (a group's fingerprint):
    the lines it changes (a SARIF fix). One that does not apply, or changes nothing, has none."""


def loosening_edits(
    groups: Sequence[Group],
    max_bytes: int = DEFAULT_MAX_CATALOG_BYTES,
    texts: Mapping[str, bytes] | None = None,
) -> CatalogEdits:
    """The suggested loosening of every group that has one written into its catalog file
    (``catalog_edits``), each by itself keyed by the group's fingerprint. ``texts``: the
    catalog files as the audit read them (``Catalogs.texts``), by path."""
    return catalog_edits(
        [(g.fingerprint, g.tool, g.patch) for g in groups if g.patch is not None],
        max_bytes,
        texts,
    )


def catalog_edits(
    patches: Sequence[tuple[str, str, SchemaPatch]],
    max_bytes: int = DEFAULT_MAX_CATALOG_BYTES,
    texts: Mapping[str, bytes] | None = None,
) -> CatalogEdits:
    """The ``(key, tool, patch)`` loosenings written into their catalog files: all of them
    together, file by file (each applied to the text the previous ones left), and each by
    itself on the file as it is (``CatalogEdits.alone``, by ``key``). Each file is parsed
    and composed once, from ``texts`` when it holds it (the bytes the audit read: the file
    is not read again, and cannot have changed in between), else read now."""
    files, alone = _edit_files(patches, max_bytes, texts or {})
    return CatalogEdits(files, alone)


def patch_catalogs(
    patches: Sequence[tuple[str, SchemaPatch]], max_bytes: int = DEFAULT_MAX_CATALOG_BYTES
) -> tuple[FilePatch, ...]:
    """Every catalog file the ``(tool, patch)`` pairs edit, before and after all of them that
    apply (in order: each is applied to the text the previous ones left)."""
    keyed = [(str(i), tool, patch) for i, (tool, patch) in enumerate(patches)]
    return catalog_edits(keyed, max_bytes).files


def _edit_files(
    patches: Sequence[tuple[str, str, SchemaPatch]], max_bytes: int, texts: Mapping[str, bytes]
) -> tuple[tuple[FilePatch, ...], dict[str, LineChange]]:
    by_file: dict[str, list[tuple[str, str, SchemaPatch]]] = {}
    for key, tool, patch in patches:
        if patch.location is not None and patch.file_operations:
            by_file.setdefault(patch.location.path, []).append((key, tool, patch))
    results = []
    alone: dict[str, LineChange] = {}
    for path, edits in by_file.items():
        try:
            before = _text_of(path, max_bytes, texts)
        except (OSError, UnicodeDecodeError) as error:
            results.append(FilePatch(path, "", "", (f"{path}: cannot read: {error}",)))
            continue
        # Composing, copying and comparing recurse once per level: a tool nested thousands
        # of levels deep (unusable, but loaded) must not end the run beside one that is not.
        work = functools.partial(_edit_file, path, before, edits)
        result, changes = on_deep_stack(work, _EDIT_DEPTH)
        results.append(result)
        alone.update(changes)
    return tuple(results), alone


def _text_of(path: str, max_bytes: int, texts: Mapping[str, bytes]) -> str:
    """A catalog file's text, line endings as written: the bytes the audit read, else the
    file's now."""
    read = texts.get(path)
    if read is not None:
        return read.decode("utf-8")
    if os.path.getsize(path) > max_bytes:
        raise OSError(f"larger than {max_bytes} bytes")
    with open(path, encoding="utf-8", newline="") as stream:
        return stream.read()


_EDIT_DEPTH: Final = 4 * MAX_PARSE_NESTING
"""Frames an edit may take: a few per level of the deepest document a catalog can hold."""


def _edit_file(
    path: str, text: str, edits: Sequence[tuple[str, str, SchemaPatch]]
) -> tuple[FilePatch, dict[str, LineChange]]:
    catalog = _Catalog(path, text)
    after, problems = catalog.all_of([(tool, patch) for _, tool, patch in edits])
    alone = {}
    for key, _, patch in edits:
        change = catalog.alone(patch.tool_pointer, patch.file_operations)
        if change is not None:
            alone[key] = change
    return FilePatch(path, text, after, problems), alone


@dataclass(frozen=True)
class _Done:
    """One loosening made in one node of a file: the node's region of the text (``start`` to
    ``end``, offsets in the text without its byte-order mark) becomes ``text``, and the value
    at ``pointer`` in the document becomes ``value``."""

    start: int
    end: int
    node: yaml.CollectionNode
    text: str
    pointer: str
    value: JSON


class _Edited:
    """A file as the loosenings made so far left it: the text with some nodes' regions
    replaced (disjoint, by start), and the document it must parse to."""

    def __init__(self, document: JSON) -> None:
        self.document = document
        self.regions: dict[int, _Done] = {}
        self.starts: list[int] = []
        self.by_node: dict[int, int] = {}
        """id(node) -> the start of its region, for the nodes whose region was replaced."""

    def inside(self, start: int, end: int) -> list[_Done]:
        """The replaced regions within ``start`` to ``end``, in order."""
        first = bisect.bisect_left(self.starts, start)
        last = bisect.bisect_left(self.starts, end)
        return [self.regions[at] for at in self.starts[first:last]]

    def record(self, done: _Done) -> None:
        """``done`` replaces every region within its own, and the document changes with it."""
        for inner in self.inside(done.start, done.end):
            del self.regions[inner.start]
            del self.by_node[id(inner.node)]
        first = bisect.bisect_left(self.starts, done.start)
        last = bisect.bisect_left(self.starts, done.end)
        self.starts[first:last] = [done.start]
        self.regions[done.start] = done
        self.by_node[id(done.node)] = done.start
        self.document = _with_value(self.document, pointers.split(done.pointer), done.value)

    def text(self, body: str, start: int = 0, end: int | None = None) -> str:
        """``body[start:end]`` as the replaced regions within it read now."""
        end = len(body) if end is None else end
        out = []
        for done in self.inside(start, end):
            out += [body[start : done.start], done.text]
            start = done.end
        out.append(body[start:end])
        return "".join(out)


class _Catalog:
    """One catalog file: read, parsed and (when an edit needs it) composed once; each
    loosening is made in the smallest node of the file that holds it.

    A node's text, taken alone, is composed, edited by ``_patch_one`` and parsed again as the
    whole text would be: the edits of a node never reach outside its region, and what the
    region parses to must be what the document holds at the node, before and after. A node
    cannot be taken alone where the file's text means more than the node's (a YAML anchor
    or alias inside it or around it, a mapping with a repeated or merge key around it): the
    edit is then made on the whole text, as ``patch_text`` does. The edits of all loosenings
    of a file, put together, are checked against the whole document once; should they not
    agree, every edit of the file is made on the whole text again.
    """

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.bom = _BOM if text.startswith(_BOM) else ""
        self.body = text[len(self.bom) :]
        self.is_json = path.lower().endswith(".json")
        document, problem = parse_document(path, self.body, self.is_json)
        self.document = document
        self.problem = None if problem is None else problem.message
        self.in_nodes = True
        """False once the edits made node by node did not check out against the document."""
        self._tree: _Tree | None = None
        self._whole_problem: str | None = None
        """Why no edit can be made in the text at all (it cannot be composed), once known."""
        self._lines: tuple[list[str], list[int]] | None = None

    def all_of(self, edits: Sequence[tuple[str, SchemaPatch]]) -> tuple[str, tuple[str, ...]]:
        """The text with every loosening that applies, in order, and why each other one was
        left out (``tool: summary: reason``)."""
        if self.problem is not None:
            return self.text, tuple(f"{tool}: {p.summary}: {self.problem}" for tool, p in edits)
        state = _Edited(copy.deepcopy(self.document))
        problems = []
        whole: str | None = None  # the text, once an edit could not be made in a node
        for tool, patch in edits:
            try:
                if whole is None:
                    done = self._in_node(state, patch.tool_pointer, patch.file_operations)
                    if done is not None:
                        state.record(done)
                        continue
                    whole = self.bom + state.text(self.body)
                whole = patch_text(self.path, whole, patch.tool_pointer, patch.file_operations)
            except EditError as error:
                problems.append(f"{tool}: {patch.summary}: {error}")
        if whole is not None:
            return whole, tuple(problems)
        body = state.text(self.body)
        if state.regions and parse_document(self.path, body, self.is_json) != (
            state.document,
            None,
        ):
            self.in_nodes = False
            return self._one_after_another(edits)
        return self.bom + body, tuple(problems)

    def alone(self, tool_pointer: str, operations: Sequence[PatchOperation]) -> LineChange | None:
        """The lines one loosening changes, applied by itself to the text as read; None when
        it cannot be applied, or changes nothing."""
        if self.problem is not None:
            return None
        try:
            if self.in_nodes:
                done = self._in_node(_Edited(self.document), tool_pointer, operations)
                if done is not None:
                    return self._change(done.start, done.end, done.text)
            after = patch_text(self.path, self.text, tool_pointer, operations)
        except EditError:
            return None
        return None if after == self.text else changed_lines(self.path, self.text, after)

    def _one_after_another(
        self, edits: Sequence[tuple[str, SchemaPatch]]
    ) -> tuple[str, tuple[str, ...]]:
        after = self.text
        problems = []
        for tool, patch in edits:
            try:
                after = patch_text(self.path, after, patch.tool_pointer, patch.file_operations)
            except EditError as error:
                problems.append(f"{tool}: {patch.summary}: {error}")
        return after, tuple(problems)

    def _tree_or_problem(self) -> _Tree | None:
        if self._tree is None and self._whole_problem is None:
            try:
                root = yaml.compose(composable(self.body, self.is_json), Loader=yaml.SafeLoader)
            except yaml.YAMLError as error:
                self._whole_problem = f"cannot compose the file: {error}"
                return None
            if root is None:
                self._whole_problem = "the file is empty"
                return None
            self._tree = _Tree(self.body, root)
        return self._tree

    def _in_node(
        self, state: _Edited, tool_pointer: str, operations: Sequence[PatchOperation]
    ) -> _Done | None:
        """The loosening made in the smallest node that holds it and can be taken alone, on
        the text as ``state`` has it; None when it must be made on the whole text instead.
        ``EditError`` when it cannot be made at all, saying why as ``patch_text`` would."""
        located = [PatchOperation(op.op, tool_pointer + op.path, op.value) for op in operations]
        if any(not op.path for op in located):
            return None
        holder = _common(pointers.parent(op.path) for op in located)
        tree = self._tree_or_problem()
        if tree is None:
            # The text as read cannot be composed, and no edit changed it: ``patch_text``
            # fails on the first operation, after checking the patch against the document.
            _expected(state.document, _deepest(state.document, holder), located)
            raise EditError(self._whole_problem)
        node = tree.editable(tree.node_at(holder))
        if node is None:
            return None
        outer = [state.by_node[id(a)] for a in tree.ancestors(node) if id(a) in state.by_node]
        if outer:  # a region around it was edited already: edit that one again
            node = state.regions[outer[-1]].node
        base = tree.pointer[id(node)]  # one path leads to it: every operation is below it
        start, end, blanks = tree.region(node)
        found, before = pointers.resolve(state.document, base)
        local = " " * blanks + state.text(self.body, start, end)
        if not found or parse_document(self.path, local, self.is_json) != (before, None):
            return None
        value = _expected(state.document, base, located)
        edited = local
        try:
            for operation in located:
                relative = PatchOperation(
                    operation.op, operation.path[len(base) :], operation.value
                )
                edited = _patch_one(edited, self.is_json, relative, base)
        except _Uncomposable:
            return None  # its message would name a line of the node's text, not the file's
        except EditError:
            # After an earlier operation the node's text is not what the whole file holds
            # there (a sequence emptied in a node is no text at all; in the file, a null):
            # the whole text says why the loosening cannot be made, as ``patch_text`` would.
            patch_text(self.path, self.bom + state.text(self.body), tool_pointer, operations)
            return None  # it can be made on the whole text: make it there
        document, problem = parse_document(self.path, edited, self.is_json)
        if problem is not None or not edited.startswith(" " * blanks):
            return None
        if document != value:
            raise EditError("the edit would change more than the patch")
        return _Done(start, end, node, edited[blanks:], base, value)

    def _change(self, start: int, end: int, text: str) -> LineChange | None:
        """The lines that change when ``start`` to ``end`` of the text (without its byte-order
        mark) becomes ``text``: found in those lines and their neighbours only."""
        start, end = start + len(self.bom), end + len(self.bom)
        if self.text[start:end] == text:
            return None
        if self._lines is None:
            lines = self.text.split("\n")
            offsets = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
            self._lines = lines, offsets
        lines, offsets = self._lines
        first = bisect.bisect_right(offsets, start) - 1
        stop = bisect.bisect_right(offsets, end)  # past the line ``end`` is on
        line_end = offsets[stop - 1] + len(lines[stop - 1])
        window = self.text[offsets[first] : start] + text + self.text[end:line_end]
        return window_change(self.path, lines, first, stop, window.split("\n"))


class _Tree:
    """A file's composed nodes: where each is, its parent, and which can be taken alone."""

    def __init__(self, body: str, root: yaml.Node) -> None:
        self.body = body
        self.root = root
        self.entries = _index(root)
        self.pointer: dict[int, str] = {id(root): ""}
        self.parent: dict[int, yaml.Node] = {}
        parents: dict[int, list[yaml.Node]] = {}
        nodes: dict[int, yaml.Node] = {id(root): root}
        shared: list[yaml.Node] = []
        irregular: list[yaml.Node] = []
        stack = [root]
        while stack:
            node = stack.pop()
            for name, child in _children(node):
                parents.setdefault(id(child), []).append(node)
                if id(child) in nodes:  # an alias: the node is in two places
                    shared.append(child)
                    continue
                nodes[id(child)] = child
                self.parent[id(child)] = node
                if name is not None:
                    self.pointer[id(child)] = pointers.join(self.pointer[id(node)], name)
                stack.append(child)
            if isinstance(node, yaml.MappingNode) and not _regular(node):
                irregular.append(node)
        self.holding = _reach(shared, lambda node: parents.get(id(node), []))
        """Nodes that are, or hold, a node that is in two places."""
        self.within = _reach([*shared, *irregular], lambda node: [c for _, c in _children(node)])
        """Nodes that are, or are within, a node that is in two places or a mapping whose
        keys do not each name one entry: their pointer may not be the document's."""

    def node_at(self, pointer: str) -> yaml.Node:
        """The node at ``pointer``, else at the longest part of it that names one."""
        while pointer:
            entry = self.entries.get(pointer)
            if entry is not None:
                return entry.value
            pointer = pointers.parent(pointer)
        return self.root

    def ancestors(self, node: yaml.Node) -> list[yaml.Node]:
        """``node`` and the nodes around it, innermost first."""
        found = [node]
        while id(found[-1]) in self.parent:
            found.append(self.parent[id(found[-1])])
        return found

    def editable(self, node: yaml.Node | None) -> yaml.CollectionNode | None:
        """The innermost collection at or around ``node`` whose text can be taken alone."""
        while node is not None:
            if id(node) in self.holding:
                return None
            if id(node) not in self.within and isinstance(
                node, (yaml.MappingNode, yaml.SequenceNode)
            ):
                start = node.start_mark.index
                if (
                    node.flow_style
                    or not self.body[self.body.rfind("\n", 0, start) + 1 : start].strip()
                ):
                    return node
            node = self.parent.get(id(node))
        return None

    def region(self, node: yaml.CollectionNode) -> tuple[int, int, int]:
        """Where ``node``'s text starts and ends, and how many blanks stand for what its first
        line holds before it. A block collection takes its lines whole (from the indentation
        of its first to the line break of its last: an entry added after the last one goes
        after that line's comment); a flow collection is its brackets and what is between."""
        start, end = _span(node)
        line_start = self.body.rfind("\n", 0, start) + 1
        if node.flow_style:
            return start, end, start - line_start
        return line_start, _next_line(self.body, end), 0


def _children(node: yaml.Node) -> list[tuple[str | None, yaml.Node]]:
    """A collection's nodes with the pointer segment of each value (None for a key)."""
    if isinstance(node, yaml.MappingNode):
        return [
            item for key, value in node.value for item in ((None, key), (str(key.value), value))
        ]
    if isinstance(node, yaml.SequenceNode):
        return [(str(i), item) for i, item in enumerate(node.value)]
    return []


def _regular(node: yaml.MappingNode) -> bool:
    """Whether each key of a mapping names its entry alone (no repeated key, no merge key)."""
    keys = [key for key, _ in node.value]  # a collection as a key does not load: never here
    if any(key.tag == "tag:yaml.org,2002:merge" for key in keys):
        return False
    return len({str(key.value) for key in keys}) == len(keys)


def _reach(
    starts: Sequence[yaml.Node], step: Callable[[yaml.Node], Sequence[yaml.Node]]
) -> set[int]:
    """The ids of ``starts`` and of every node ``step`` leads to from them, step by step."""
    reached: set[int] = set()
    stack = list(starts)
    while stack:
        node = stack.pop()
        if id(node) not in reached:
            reached.add(id(node))
            stack.extend(step(node))
    return reached


def _common(pointers_: Iterable[str]) -> str:
    """The longest pointer that every one of ``pointers_`` is or is below."""
    common: list[str] | None = None
    for pointer in pointers_:
        segments = pointer.split("/")
        if common is None:
            common = segments
            continue
        same = 0
        while same < min(len(common), len(segments)) and common[same] == segments[same]:
            same += 1
        common = common[:same]
    return "/".join(common or [""])


def _deepest(document: JSON, pointer: str) -> str:
    """The longest part of ``pointer`` that names a value in ``document``."""
    segments = pointers.split(pointer)
    while segments and not pointers.resolve(document, pointers.from_segments(segments))[0]:
        segments.pop()
    return pointers.from_segments(segments)


NOT_THERE: Final = (
    "the file holds nothing at the place the patch edits (a patch before it in the diff may "
    "have edited that place already)"
)
"""Why a loosening does not apply to a file's text, in the user's words: a JSON Patch's own
message (an index out of range at a pointer) is no reason a reader can act on."""


def _expected(document: JSON, at: str, operations: Sequence[PatchOperation]) -> JSON:
    """The value at ``at`` (which holds every operation) once ``operations`` are applied to
    ``document``, or ``EditError`` (``NOT_THERE``) where they do not apply: found from a copy
    of that value alone, set in containers that hold nothing else on the way to it."""
    path = pointers.split(at)
    holders: list[JSON] = []
    value = document
    for segment in path:
        holders.append(value)
        value = pointers.resolve(value, pointers.join("", segment))[1]
    for holder, segment in zip(reversed(holders), reversed(path), strict=True):
        value = [None] * int(segment) + [value] if isinstance(holder, list) else {segment: value}
    try:
        return pointers.resolve(apply_patch(value, operations), at)[1]
    except PatchError as error:
        raise EditError(NOT_THERE) from error
