"""Apply a catalog file's rewrites to its text in place, changing nothing else.

The file is composed (not loaded) so every key and value keeps its exact span in the text;
each rewrite becomes a splice of one span, written in the style the file already uses
(quoting, flow or block). The result is parsed again and must give exactly the normalized
schemas: a file that cannot be edited that way is left alone and reported.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import yaml

from auditor.inputs.catalogs import parse_document, read_catalog, recognisable
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES
from auditor.inputs.positions import composable
from auditor.models import (
    JSON,
    Change,
    Location,
    PatchOp,
    PatchOperation,
    Rewrite,
    Rule,
    SchemaPatch,
    ToolSchema,
)
from auditor.schema import pointers
from auditor.schema.jsonpatch import PatchError, apply_patch
from auditor.schema.normalize import DEFAULT_RULES, Normalized, normalize

_BOM = "\ufeff"


@dataclass(frozen=True)
class FileRewrite:
    """What normalizing one catalog file changes: its text before and after, and why."""

    path: str
    before: str
    after: str
    rewrites: tuple[tuple[str, Rewrite], ...]
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
) -> FileRewrite:
    """Normalize every tool schema of one catalog file, editing only what changes.

    A file ``found_in_directory`` (not named by the user) is left alone, as ``skipped``,
    unless it is recognisably a catalog (``auditor.inputs.catalogs.recognisable``).
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
    applied = tuple((tool.name, r) for tool, result in targets for r in result.rewrites)
    if not applied:
        return FileRewrite(path, before, before, ())
    bom = _BOM if before.startswith(_BOM) else ""
    body = before[len(bom) :]
    try:
        after = bom + _apply(body, path.lower().endswith(".json"), targets)
        _verify(path, body, after[len(bom) :], [(tool, result.schema) for tool, result in targets])
    except EditError as error:
        return FileRewrite(path, before, before, applied, f"cannot edit in place: {error}")
    return FileRewrite(path, before, after, applied)


def _apply(text: str, is_json: bool, targets: Sequence[tuple[ToolSchema, Normalized]]) -> str:
    try:
        root = yaml.compose(composable(text, is_json), Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise EditError(f"cannot compose the file: {error}") from error
    entries = _index(root)
    splices = []
    for tool, result in targets:
        for rewrite in result.rewrites:
            if rewrite.change is Change.ADD:
                # Adding a key means choosing its place, indentation and style in the text:
                # not done yet, so the file is left alone rather than half upgraded.
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
    for splice in reversed(_outermost(splices)):
        text = text[: splice.start] + splice.text + text[splice.end :]
    return text


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


def _splice(text: str, is_json: bool, entry: _Entry, rewrite: Rewrite, value: JSON) -> _Splice:
    if rewrite.change is Change.RENAME:
        if entry.key is None:
            raise EditError(f"{rewrite.pointer} is not a key")
        start, end = _span(entry.key)
        return _Splice(start, end, _scalar(rewrite.new, entry.key.style, is_json))
    if rewrite.change is Change.REPLACE:
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
        raise EditError(str(error)) from error
    for operation in located:
        body = _patch_one(body, is_json, operation)
    edited, problem = parse_document(path, body, is_json)
    if problem is not None or edited != expected:
        raise EditError("the edit would change more than the patch")
    return bom + body


def _patch_one(text: str, is_json: bool, operation: PatchOperation) -> str:
    try:
        root = yaml.compose(composable(text, is_json), Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise EditError(f"cannot compose the file: {error}") from error
    if root is None:
        raise EditError("the file is empty")
    entries = _index(root)
    pointer = operation.path
    if operation.op is PatchOp.ADD:
        holder_pointer = pointers.parent(pointer)
        holder = root if not holder_pointer else _value_at(entries, holder_pointer)
        last = pointers.split(pointer)[-1]
        if isinstance(holder, yaml.SequenceNode) and last == "-":
            splice = _append_item(text, is_json, holder, operation.value)
        elif isinstance(holder, yaml.MappingNode) and pointer not in entries:
            splice = _add_entry(text, is_json, holder, last, operation.value)
        else:
            raise EditError(f"cannot add at {pointer}")
    else:
        entry = entries.get(pointer)
        if entry is None:
            raise EditError(f"nothing at {pointer}")
        if operation.op is PatchOp.REPLACE:
            start, end = _span(entry.value)
            style = entry.value.style if isinstance(entry.value, yaml.ScalarNode) else None
            splice = _Splice(start, end, _flow(operation.value, style, is_json))
        elif isinstance(entry.parent, yaml.SequenceNode):
            splice = _item_removal(text, entry)
        else:
            splice = _removal(text, entry)
    return text[: splice.start] + splice.text + text[splice.end :]


def _value_at(entries: dict[str, _Entry], pointer: str) -> yaml.Node:
    entry = entries.get(pointer)
    if entry is None:
        raise EditError(f"nothing at {pointer}")
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
    pairs = node.value
    style = pairs[-1][0].style if pairs else None
    entry = f"{_scalar(key, style, is_json)}: {_flow(value, None, is_json)}"
    if node.flow_style:
        if not pairs:
            start, end = _span(node)
            return _Splice(start, end, "{" + entry + "}")
        return _after_last(text, node, pairs[-1][0], pairs[-1][1], entry)
    last_key, last_value = pairs[-1]
    line_start = text.rfind("\n", 0, last_key.start_mark.index) + 1
    before = text[line_start : last_key.start_mark.index]
    indent = before if not before.strip() else " " * last_key.start_mark.column
    return _insert_line(text, _span(last_value)[1], indent + entry)


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


def unified_diff(path: str, before: str, after: str) -> str:
    """A unified diff of one file, ``a/PATH`` to ``b/PATH`` as ``git apply`` reads it."""
    return minimal_diff(before, after, f"a/{path}", f"b/{path}")


def minimal_diff(before: str, after: str, fromfile: str, tofile: str, context: int = 3) -> str:
    """A unified diff that shows only lines that changed.

    ``difflib.unified_diff`` matches with ``autojunk``: in a file of 200 lines or more, a
    line that makes up more than 1% of it (``type: string``) is junk to the matcher, and
    unchanged copies of it come out removed and added again. This is the same format, from
    a matcher without that heuristic.
    """
    a, b = _lines(before), _lines(after)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(context):
        if not out:
            out += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        first, last = group[0], group[-1]
        old = _hunk_range(first[1], last[2])
        new = _hunk_range(first[3], last[4])
        out.append(f"@@ -{old} +{new} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            out += ["-" + line for line in a[i1:i2]]
            out += ["+" + line for line in b[j1:j2]]
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out
    )


def _hunk_range(start: int, stop: int) -> str:
    """``start,length`` as a hunk header writes it (difflib's ``_format_range_unified``)."""
    length = stop - start
    beginning = start + 1 if length else start
    return str(beginning) if length == 1 else f"{beginning},{length}"


def _lines(text: str) -> list[str]:
    return [line for line in re.split(r"(?<=\n)", text) if line]


def patch_catalogs(
    patches: Sequence[tuple[str, SchemaPatch]], max_bytes: int = DEFAULT_MAX_CATALOG_BYTES
) -> tuple[FilePatch, ...]:
    """Every catalog file the ``(tool, patch)`` pairs edit, before and after all of them that
    apply (in order: each is applied to the text the previous ones left)."""
    by_file: dict[str, list[tuple[str, SchemaPatch]]] = {}
    for tool, patch in patches:
        if patch.location is not None and patch.file_operations:
            by_file.setdefault(patch.location.path, []).append((tool, patch))
    results = []
    for path, edits in by_file.items():
        try:
            if os.path.getsize(path) > max_bytes:
                raise OSError(f"larger than {max_bytes} bytes")
            with open(path, encoding="utf-8", newline="") as stream:
                before = stream.read()
        except (OSError, UnicodeDecodeError) as error:
            results.append(FilePatch(path, "", "", (f"{path}: cannot read: {error}",)))
            continue
        after = before
        problems = []
        for tool, patch in edits:
            try:
                after = patch_text(path, after, patch.tool_pointer, patch.file_operations)
            except EditError as error:
                problems.append(f"{tool}: {patch.summary}: {error}")
        results.append(FilePatch(path, before, after, tuple(problems)))
    return tuple(results)
