"""Apply a catalog file's rewrites to its text in place, changing nothing else.

The file is composed (not loaded) so every key and value keeps its exact span in the text;
each rewrite becomes a splice of one span, written in the style the file already uses
(quoting, flow or block). The result is parsed again and must give exactly the normalized
schemas: a file that cannot be edited that way is left alone and reported.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import yaml

from auditor.inputs.catalogs import parse_document, read_catalog, recognisable
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES
from auditor.inputs.positions import composable
from auditor.models import JSON, Change, Rewrite, Rule, ToolSchema
from auditor.schema import pointers
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
        return FileRewrite(path, "", "", (), problem.message)
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
    if isinstance(value, list) and not is_json:
        return "[" + ", ".join(_render(item, None, False) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


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
