"""Catalog files in every supported shape -> ToolSchema records.

Failures are values: a file that cannot be read, parsed or understood becomes a
``CatalogProblem`` naming it, and the caller decides to stop (exit 2).

The shape is detected from the content (``CatalogFormat``; the table ``_DETECTORS`` is
tried in order) unless the caller forces one. Wrappers are looked through first: a
JSON-RPC response around an MCP ``tools/list`` result, and any document whose ``tools`` is
a list (an OpenAI, Anthropic or Gemini request body, an MCP result).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final, Protocol, TypeGuard

import yaml

from auditor import pointers
from auditor.inputs import catalog_lines, otel_tools, shape_hints
from auditor.inputs.catalog_formats import CatalogFormat
from auditor.inputs.catalog_listing import CATALOG_SUFFIXES, Listing, list_files, suffixes_for
from auditor.inputs.limits import (
    DEFAULT_MAX_CATALOG_BYTES,
    MAX_PARSE_NESTING,
    MAX_YAML_NODES,
    byte_size,
    on_deep_stack,
    readable_value_error,
)
from auditor.inputs.lines import finite_float, lone_surrogate
from auditor.inputs.log_as_catalog import LOG_AS_CATALOG, looks_like_log
from auditor.inputs.paths import STDIN, STDIN_NAME, InputProblem, shown
from auditor.inputs.positions import key_positions
from auditor.inputs.uri import is_uri, read_uri
from auditor.models import JSON, Location, Override, SkippedInput, ToolSchema

_Loader: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
EMPTY_FILE: Final = (
    "an empty file is no catalog: a change that removes every tool of a file leaves [] in it, "
    "or deletes the file"
)
"""0 bytes (or blanks) is what a generator that failed leaves (``gen > tools.json`` empties
the file first), so it is not read as "every tool removed": ``[]`` or deleting the file says
that. Named, it is an error; in a folder or by a glob, it is skipped and named like any
other file that is no catalog (under ``--against``, its tools at the revision are then
removed by the change, the skip line saying why)."""


class CatalogProblem(InputProblem):
    """Why a catalog input cannot be used; ``str()`` is the one-line message for the user."""


@dataclass(frozen=True)
class NotACatalog(CatalogProblem):
    """A file that reads (JSON or YAML) but is no tool catalog: an error when the user named
    it, skipped when it was found in a folder (``skip`` says why, in a few words)."""

    skip: str = "not a tool catalog"


@dataclass(frozen=True)
class _Entry:
    name: JSON
    schema: JSON
    pointer: str
    """Pointer of the schema inside the document."""
    named_by_file: bool = False
    """A lone schema carries no name: the tool takes the file's."""
    strict: JSON = None
    """The declaration's ``strict`` flag (Responses API tools), as written."""
    output_pointer: str | None = None
    """Pointer of the declaration's output schema (MCP ``outputSchema``), where it has one."""
    output_schema: JSON = None

    def moved(self, prefix: str, lone: str) -> _Entry:
        """The entry with its pointers inside the whole document: ``prefix`` before them,
        ``lone`` (a list of one made of a lone tool) taken off their start."""
        output = self.output_pointer
        return replace(
            self,
            pointer=prefix + self.pointer[len(lone) :],
            output_pointer=None if output is None else prefix + output[len(lone) :],
        )


Skipped = SkippedInput
"""A file found in a folder (or by a glob) that is no tool catalog, left out."""


@dataclass(frozen=True)
class Catalogs:
    """The tools read from every input, with the overrides that were allowed."""

    tools: tuple[ToolSchema, ...]
    overrides: tuple[Override, ...]
    problems: tuple[CatalogProblem, ...]
    texts: Mapping[str, bytes] = field(default_factory=dict)
    """The bytes of each catalog file read from disk, by path, as the tools were parsed from
    them: the loosenings are written into these, never into a second read of the file."""
    skipped: tuple[Skipped, ...] = ()
    """Files of the folders that are no catalog, left out (``Skipped``)."""


@dataclass(frozen=True)
class CatalogFile:
    """One catalog file read: its tools, and its bytes when they are the file's on disk."""

    path: str
    tools: tuple[ToolSchema, ...]
    data: bytes | None
    within: str | None = None
    """The folder, prefix or glob it was found in (as given); None when named."""


@dataclass(frozen=True)
class CatalogFiles:
    """Every catalog file under some paths, read, with what could not be used and what was
    skipped: the one rule ``audit``, ``lint`` and ``normalize`` follow for folders."""

    files: tuple[CatalogFile, ...]
    problems: tuple[CatalogProblem, ...]
    skipped: tuple[Skipped, ...]


class CatalogSource(Protocol):
    """Where catalog files are listed and read from."""

    def expand(self, paths: Sequence[str], suffixes: Sequence[str] = CATALOG_SUFFIXES) -> Listing:
        """The files under ``paths`` (a folder's ending in one of ``suffixes``)."""
        ...

    def read(
        self, path: str, fmt: CatalogFormat | None, max_bytes: int
    ) -> tuple[list[ToolSchema], CatalogProblem | None, bytes | None]:
        """The tools of one file, or its problem, and the bytes read when they are the
        file's on disk (a loosening is written into those: ``Catalogs.texts``)."""
        ...


@dataclass(frozen=True)
class FileSystem:
    """Catalog files as they are on disk (``-``: standard input); links out of a catalog
    folder are read only when ``follow_links``."""

    follow_links: bool = False

    def expand(self, paths: Sequence[str], suffixes: Sequence[str] = CATALOG_SUFFIXES) -> Listing:
        return list_files(paths, suffixes, self.follow_links)

    def read(
        self, path: str, fmt: CatalogFormat | None, max_bytes: int
    ) -> tuple[list[ToolSchema], CatalogProblem | None, bytes | None]:
        return read_catalog_file(path, fmt, max_bytes)


def catalog_files(path: str, follow_links: bool = False) -> tuple[list[str], list[CatalogProblem]]:
    """``path`` itself, or the catalog files below a directory in a stable order, with the
    entries there that cannot be read (a FIFO, a broken link, an unreadable folder, a link
    out of it unless ``follow_links``)."""
    listing = list_files([path], CATALOG_SUFFIXES, follow_links)
    return listing.files, [CatalogProblem(Location(entry), why) for entry, why in listing.problems]


def expand(
    paths: Sequence[str], follow_links: bool = False
) -> tuple[list[str], list[CatalogProblem]]:
    """The catalog files under ``paths`` in order, and the problems: paths that hold none,
    entries of a directory that cannot be read."""
    files: list[str] = []
    problems: list[CatalogProblem] = []
    for path in paths:
        found, unreadable = catalog_files(path, follow_links)
        files.extend(found)
        problems.extend(unreadable)
    return files, problems


def load_catalogs(
    paths: Sequence[str],
    allow_override: bool = False,
    fmt: CatalogFormat | None = None,
    max_bytes: int = DEFAULT_MAX_CATALOG_BYTES,
    source: CatalogSource | None = None,
) -> Catalogs:
    """Read every catalog; a tool defined twice is a problem unless ``allow_override``.

    ``fmt`` forces one shape for every file instead of detecting each one's; a file larger
    than ``max_bytes`` is a problem. ``source`` lists and reads the files (the default: the
    file system; ``auditor.inputs.git_catalogs``: a git revision).
    """
    by_name: dict[str, ToolSchema] = {}
    overrides: list[Override] = []
    found = read_catalog_files(paths, fmt, max_bytes, source)
    problems = list(found.problems)
    texts: dict[str, bytes] = {}
    for file in found.files:
        if file.data is not None and file.path != STDIN:
            texts[file.path] = file.data
        for tool in file.tools:
            earlier = by_name.get(tool.name)
            if earlier is not None and not allow_override:
                problems.append(
                    CatalogProblem(
                        tool.location,
                        f"tool '{tool.name}' is already defined at {earlier.location} "
                        "(use --allow-override to let the later one win)",
                    )
                )
                continue
            if earlier is not None:
                overrides.append(Override(tool.name, tool.location, earlier.location))
            by_name[tool.name] = tool
    ordered = tuple(sorted(by_name.values(), key=lambda t: t.name))
    return Catalogs(ordered, tuple(overrides), tuple(problems), texts, found.skipped)


def read_catalog_files(
    paths: Sequence[str],
    fmt: CatalogFormat | None = None,
    max_bytes: int = DEFAULT_MAX_CATALOG_BYTES,
    source: CatalogSource | None = None,
    skip_named: bool = False,
) -> CatalogFiles:
    """Every catalog file under ``paths``, read (``fmt`` forced, or detected).

    A file named by a path is the user's choice: whatever it holds, it is read as a catalog
    or is a problem. A file found in a folder or by a glob that is no catalog (``skip_reason``)
    is skipped; an input whose every file was skipped is a problem naming what it held.
    ``skip_named`` skips named files that are no catalog too, each on its own (a hook's
    caller passes every JSON and YAML file it was given: none of them is a choice).
    """
    source = source or FileSystem()
    listing = source.expand(paths, suffixes_for(fmt))
    problems = [CatalogProblem(Location(entry), why) for entry, why in listing.problems]
    files: list[CatalogFile] = []
    skipped: list[Skipped] = []
    used: set[str] = set()
    skipped_in: dict[str, list[Skipped]] = {}
    for file in listing.files:
        tools, problem, data = source.read(file, fmt, max_bytes)
        within = listing.found_in.get(file)
        reason = None if within is None and not skip_named else skip_reason(tools, problem)
        if reason is not None:
            skip = Skipped(problem.location.path if problem else shown(file), reason)
            skipped.append(skip)
            if within is not None:
                skipped_in.setdefault(within, []).append(skip)
            continue
        if within is not None:
            used.add(within)
        if problem is not None:
            problems.append(problem)
            continue
        files.append(CatalogFile(file, tuple(tools), data, within))
    for within, left_out in skipped_in.items():
        if within not in used:
            problems.append(CatalogProblem(Location(shown(within)), _nothing_usable(left_out)))
    return CatalogFiles(tuple(files), tuple(problems), tuple(skipped))


def skip_reason(tools: Sequence[ToolSchema], problem: CatalogProblem | None) -> str | None:
    """Why a file found in a folder is no catalog and is skipped; None when it is one (an
    empty tool list too: a pull request that empties a file), or when it is broken (invalid
    JSON or YAML, unreadable, too large: its problem stands, a catalog may be broken)."""
    if problem is not None:
        return problem.skip if isinstance(problem, NotACatalog) else None
    if not tools or recognisable(tools):
        return None
    return NotACatalog.skip


def _nothing_usable(skipped: Sequence[Skipped]) -> str:
    named = ", ".join(str(skip) for skip in skipped[:3])
    more = f" and {len(skipped) - 3:,} more" if len(skipped) > 3 else ""
    count = f"{len(skipped):,} file{'' if len(skipped) == 1 else 's'}"
    return f"no tool catalog among its {count}: {named}{more}"


def read_catalog(
    path: str, fmt: CatalogFormat | None = None, max_bytes: int = DEFAULT_MAX_CATALOG_BYTES
) -> tuple[list[ToolSchema], CatalogProblem | None]:
    """The tools of one catalog file (``-``: standard input), or the problem that makes it
    unusable; ``fmt`` forces a shape instead of detecting it. A file of more than
    ``max_bytes`` is refused before it is read (a pipe: once that much has been read)."""
    tools, problem, _ = read_catalog_file(path, fmt, max_bytes)
    return tools, problem


def read_catalog_file(
    path: str, fmt: CatalogFormat | None = None, max_bytes: int = DEFAULT_MAX_CATALOG_BYTES
) -> tuple[list[ToolSchema], CatalogProblem | None, bytes | None]:
    """``read_catalog``, with the bytes read (None when none could be)."""
    name = STDIN_NAME if path == STDIN else shown(path)
    try:
        data = read_bounded(path, max_bytes)
        if data is None:
            return (
                [],
                CatalogProblem(
                    Location(name),
                    f"larger than the {byte_size(max_bytes)} a catalog may have "
                    "(--max-catalog-bytes)",
                ),
                None,
            )
    except FileNotFoundError:
        return [], CatalogProblem(Location(name), "no such file"), None
    except OSError as error:
        return [], CatalogProblem(Location(name), f"cannot read: {error.strerror or error}"), None
    stem = None if path == STDIN else shown(Path(path).stem)
    return (*parse_catalog(name, data, json_by_name(path), fmt, stem), data)


def json_by_name(path: str) -> bool | None:
    """Whether a catalog file is JSON by its name: ``.json`` is, ``.yaml`` and ``.yml`` are
    not; any other name (``.snap``, ``.jsonl``, standard input) is told by its text: JSON
    starts with a bracket, YAML rarely does."""
    lowered = path.lower()
    if path == STDIN or not lowered.endswith(CATALOG_SUFFIXES):
        return None
    return lowered.endswith(".json")


def parse_catalog(
    name: str, data: bytes, as_json: bool | None, fmt: CatalogFormat | None, stem: str | None
) -> tuple[list[ToolSchema], CatalogProblem | None]:
    """The tools of one catalog's bytes, read from ``name``: JSON when ``as_json`` (None:
    when the text starts with a bracket); ``stem`` names a lone schema's tool (None: such a
    schema is a problem, as on standard input)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return [], CatalogProblem(Location(name), f"not UTF-8 text ({error.reason})")
    if not text.strip():
        return [], NotACatalog(Location(name), EMPTY_FILE, "an empty file")
    if as_json is None:
        as_json = text.lstrip().startswith(("{", "["))
    document, problem = parse_document(name, text, as_json)
    found = None if problem is not None else detect_shape(document, fmt)
    lines = None
    if problem is not None and (lines := catalog_lines.records(text)) is not None:
        # Not one document: perhaps JSON Lines of tool definitions (BFCL's functions.jsonl).
        found = None if lone_surrogate(text, lines) else detect_shape(lines, fmt)
    if found is None and looks_like_log(text):  # a log given as a catalog: say which option
        return [], NotACatalog(Location(name), LOG_AS_CATALOG, "a call log, not a tool catalog")
    if found is None and problem is not None and lines is None:
        return [], problem
    if found is None:
        tried = ", ".join(f.value for f in ((fmt,) if fmt else CatalogFormat))
        wanted = f"not a {fmt.value} catalog" if fmt else "not a catalog in a known format"
        seen = shape_hints.describe(lines if lines is not None else document)
        if lines is not None:
            seen = f"JSON Lines, {seen}"
        return [], NotACatalog(Location(name), f"{wanted} (tried: {tried}): {seen}")
    shape, entries = found
    if lines is not None:
        positions = catalog_lines.positions(text)
    else:
        positions = key_positions(text, is_json=as_json)
    roots = [entry.pointer for entry in entries]
    roots += [entry.output_pointer for entry in entries if entry.output_pointer is not None]
    within = _positions_within(positions, roots)
    tools: list[ToolSchema] = []
    for entry in entries:
        where = positions.get(entry.pointer, (None, None))
        location = Location(name, where[0], where[1])
        tool = entry.name
        if entry.named_by_file:
            if stem is None:
                return [], CatalogProblem(
                    location, "a lone schema on standard input has no tool name: use a file"
                )
            tool = stem
        if not isinstance(tool, str) or not tool:
            return [], CatalogProblem(location, "a tool has no name (a non-empty string)")
        output = None
        if entry.output_pointer is not None:
            at = positions.get(entry.output_pointer, (None, None))
            # Inside JSON text (an OTel attribute) the keys have no place of their own.
            inside = entry.output_pointer == entry.pointer
            output = ToolSchema(
                tool,
                entry.output_schema,
                Location(name, at[0], at[1]),
                entry.output_pointer,
                shape.value,
                {} if inside else within.get(entry.output_pointer, {}),
            )
        tools.append(
            ToolSchema(
                tool,
                entry.schema,
                location,
                entry.pointer,
                shape.value,
                within.get(entry.pointer, {}),
                entry.strict,
                output,
            )
        )
    return tools, None


def read_bounded(path: str, max_bytes: int) -> bytes | None:
    """The bytes of ``path`` (``-``: standard input), or None when there are more than
    ``max_bytes``; a regular file's size is checked before anything is read."""
    if path == STDIN:
        data = sys.stdin.buffer.read(max_bytes + 1)
        return None if len(data) > max_bytes else data
    if is_uri(path):
        return read_uri(path, max_bytes)
    with open(path, "rb") as stream:
        if os.fstat(stream.fileno()).st_size > max_bytes:
            return None
        data = stream.read(max_bytes + 1)
    return None if len(data) > max_bytes else data


def _positions_within(
    positions: dict[str, tuple[int, int]], roots: list[str]
) -> dict[str, dict[str, tuple[int, int]]]:
    """For each root, the positions below it keyed by pointers relative to it (for rewrite
    locations); one pass over the positions, each pointer checked against its own prefixes."""
    found: dict[str, dict[str, tuple[int, int]]] = {root: {} for root in roots}
    whole = found.get("")  # a lone schema: the document is the tool's schema
    for pointer, where in positions.items():
        if whole is not None:
            whole[pointer] = where
            continue
        cut = pointer.find("/", 1)
        while cut != -1:
            root = pointer[:cut]
            if root in found:
                found[root][pointer[cut:]] = where
                break
            cut = pointer.find("/", cut + 1)
    return found


def parse_document(path: str, text: str, as_json: bool) -> tuple[JSON, CatalogProblem | None]:
    """JSON when ``as_json``, else YAML (safe loading only); ``path`` names it in problems.

    JSON is strict (``NaN`` and ``Infinity`` are refused) and parsed on a deep stack, so a
    schema nested thousands of levels loads and is then reported as unusable, not as a crash.
    YAML is composed first and refused when its aliases expand beyond ``MAX_YAML_NODES`` or
    refer to themselves. Duplicate keys: the last one wins, in both (as ``JSON.parse`` does).
    """
    kind = "JSON" if as_json else "YAML"
    document, problem = _parse(path, text, as_json)
    if problem is None and lone_surrogate(text, document):
        # JSON's grammar lets "\ud800" through, but it is not a character: no report, table
        # or terminal could write the name or key it is in.
        line, column = _first_lone_surrogate(text)
        return None, CatalogProblem(
            Location(path, line, column),
            f"invalid {kind}: a \\ud800-style escape without its pair is not Unicode text",
        )
    return document, problem


_LONE_SURROGATE: Final = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def _first_lone_surrogate(text: str) -> tuple[int | None, int | None]:
    found = _LONE_SURROGATE.search(text)
    if found is None:
        return None, None
    line = text.count("\n", 0, found.start()) + 1
    return line, found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1


def _parse(path: str, text: str, as_json: bool) -> tuple[JSON, CatalogProblem | None]:
    if as_json:
        try:
            return on_deep_stack(
                lambda: json.loads(text, parse_constant=_not_json, parse_float=finite_float)
            ), None
        except json.JSONDecodeError as error:
            return None, CatalogProblem(
                Location(path, error.lineno, error.colno), f"invalid JSON: {error.msg}"
            )
        except ValueError as error:
            return None, CatalogProblem(
                Location(path), f"invalid JSON: {readable_value_error(error)}"
            )
        except RecursionError:
            return None, CatalogProblem(
                Location(path), f"invalid JSON: nested more than {MAX_PARSE_NESTING:,} levels"
            )
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None, None
            bomb = _alias_problem(node)
            if bomb is not None:
                mark = node.start_mark
                return None, CatalogProblem(Location(path, mark.line + 1, mark.column + 1), bomb)
            odd = _non_finite(node)
            if odd is not None:  # refused as JSON refuses NaN: no report could write it
                mark = odd.start_mark
                return None, CatalogProblem(
                    Location(path, mark.line + 1, mark.column + 1),
                    f"invalid YAML: {odd.value} is not a JSON number (JSON has no NaN or "
                    "infinity, and a schema is JSON)",
                )
            return loader.construct_document(node), None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (None, None)
        message = " ".join(str(error.problem or error.context or "").split())
        return None, CatalogProblem(Location(path, line, column), f"invalid YAML: {message}")
    except (yaml.YAMLError, RecursionError) as error:
        message = " ".join(str(error).split()) or type(error).__name__
        return None, CatalogProblem(Location(path), f"invalid YAML: {message}")
    except ValueError as error:  # an integer too long to convert, an invalid timestamp
        return None, CatalogProblem(Location(path), f"invalid YAML: {readable_value_error(error)}")


def _not_json(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


def _alias_problem(root: yaml.Node) -> str | None:
    """Why a composed YAML document must not be constructed: its aliases expand beyond
    ``MAX_YAML_NODES`` nodes, or a node contains itself. None when it is safe.

    Aliases share one node, so sizes are counted once per node (memoized, iteratively):
    the check costs no more than the text, whatever the expansion.
    """
    size: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        key = id(node)
        children = _children(node)
        if expanded:
            open_.discard(key)
            size[key] = 1 + sum(size[id(child)] for child in children)
            if size[key] > MAX_YAML_NODES:
                return (
                    f"YAML aliases expand to more than {MAX_YAML_NODES:,} nodes "
                    "(an alias bomb?); refusing to load it"
                )
            continue
        if key in size:
            continue
        if key in open_:
            return "a YAML alias refers to a node that contains it (a cycle); refusing to load it"
        open_.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in size)
    return None


_FLOAT_TAG: Final = "tag:yaml.org,2002:float"
_NON_FINITE: Final = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")
"""YAML 1.1's spellings of infinity and NaN (what PyYAML resolves them from)."""


def _non_finite(root: yaml.Node) -> yaml.ScalarNode | None:
    """The first ``.nan`` or ``.inf`` in a composed YAML document (after the alias check:
    each node is visited once), None when there is none."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _FLOAT_TAG and not _finite(node.value):
                return node
            continue
        stack.extend(reversed(_children(node)))
    return None


def _finite(text: str) -> bool:
    """Whether a YAML float's text is a finite number (``1e999`` overflows to infinity)."""
    if _NON_FINITE.fullmatch(text):
        return False
    try:
        return math.isfinite(float(text.replace("_", "")))
    except ValueError:  # YAML 1.1's sexagesimal floats (190:20:30.15): finite
        return True


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


Shape = tuple[CatalogFormat, list[_Entry]]
_Detector = Callable[[JSON], "list[_Entry] | None"]


def detect_shape(document: JSON, fmt: CatalogFormat | None = None) -> Shape | None:
    """Recognize a catalog from its content (or read it as ``fmt``); None when no shape fits.

    Entry pointers are relative to the whole document, wrappers included.
    """
    prefix, tools = _unwrap(document)
    if tools == [] and (fmt is None or fmt in _LISTED_SHAPES):
        # An empty tool list (a pull request that empties a file): a catalog of no tools,
        # so the tools it held are removed by the change, not an unreadable file.
        return fmt or CatalogFormat.OPENAI, []
    if prefix.endswith("/functions") and _all_dicts(tools):
        # A Chat Completions request with the legacy ``functions`` (before ``tools``): each
        # is what ``tools[].function`` holds now.
        if fmt not in (None, CatalogFormat.OPENAI):
            return None
        declared = (_declared(function, ("parameters",), i) for i, function in enumerate(tools))
        return CatalogFormat.OPENAI, [
            _Entry(e.name, e.schema, prefix + e.pointer) for e in declared
        ]
    for shape, detector in _DETECTORS.items():
        if fmt is not None and shape is not fmt:
            continue
        entries = detector(tools)
        lone = ""
        if entries is None and shape in _LONE_SHAPES and isinstance(tools, dict):
            # One tool object alone in its file: github-mcp-server keeps each MCP tool so
            # (``__toolsnaps__/*.snap``). Read as a list of one, its pointers without ``/0``.
            entries, lone = detector([tools]), "/0"
        if entries is not None:
            return shape, [entry.moved(prefix, lone) for entry in entries]
    return None


def _functions(document: dict[str, JSON]) -> bool:
    """Whether ``document`` is a request body whose tools are legacy ``functions``: a list
    of objects, each named, and no ``tools``."""
    functions = document.get("functions")
    return (
        "tools" not in document
        and _all_dicts(functions)
        and all(isinstance(f.get("name"), str) and "type" not in f for f in functions)
    )


def _unwrap(document: JSON) -> tuple[str, JSON]:
    """The tool list inside a JSON-RPC response and/or a body with a ``tools`` list."""
    pointer = ""
    if (
        isinstance(document, dict)
        and "jsonrpc" in document
        and isinstance(document.get("result"), dict)
    ):
        pointer, document = "/result", document["result"]
    if isinstance(document, dict) and isinstance(document.get("tools"), list):
        pointer, document = pointers.join(pointer, "tools"), document["tools"]
    elif isinstance(document, dict) and _functions(document):
        pointer, document = pointers.join(pointer, "functions"), document["functions"]
    return pointer, document


def _declared(declaration: dict[str, JSON], schema_keys: Sequence[str], *at: str | int) -> _Entry:
    """A tool's name and the first of ``schema_keys`` it has; a tool that declares no
    parameters accepts any arguments (``{}``) and is located at the declaration itself."""
    key = next((k for k in schema_keys if k in declaration), None)
    if key is None:
        return _Entry(declaration.get("name"), {}, pointers.join("", *at))
    return _Entry(declaration.get("name"), declaration[key], pointers.join("", *at, key))


def _openai(tools: JSON) -> list[_Entry] | None:
    if not _all_dicts(tools):
        return None
    functions = [item.get("function") for item in tools if item.get("type") == "function"]
    if len(functions) < len(tools) or not _all_dicts(functions):
        return None
    return [
        _declared(function, ("parameters",), i, "function") for i, function in enumerate(functions)
    ]


def _openai_responses(tools: JSON) -> list[_Entry] | None:
    if not _all_dicts(tools) or not all(
        item.get("type") == "function" and "name" in item and "function" not in item
        for item in tools
    ):
        return None
    return [
        replace(_declared(item, ("parameters",), i), strict=item.get("strict"))
        for i, item in enumerate(tools)
    ]


def _anthropic(tools: JSON) -> list[_Entry] | None:
    if not _all_dicts(tools) or not all("input_schema" in item for item in tools):
        return None
    return [_declared(item, ("input_schema",), i) for i, item in enumerate(tools)]


def _mcp(tools: JSON) -> list[_Entry] | None:
    if not _all_dicts(tools) or not all("inputSchema" in item for item in tools):
        return None
    return [
        _with_output(_declared(item, ("inputSchema",), i), item, i) for i, item in enumerate(tools)
    ]


def _with_output(entry: _Entry, tool: dict[str, JSON], *at: str | int) -> _Entry:
    """The entry with the tool's ``outputSchema`` (MCP 2025-06-18), where it declares one
    as an object: what its ``structuredContent`` results are validated against."""
    output = tool.get("outputSchema")
    if not isinstance(output, dict):
        return entry
    return replace(
        entry, output_pointer=pointers.join("", *at, "outputSchema"), output_schema=output
    )


_GEMINI_GROUPS: Final = ("function_declarations", "functionDeclarations")
# The SDK dumps snake_case, the REST API camelCase; a declaration has one schema or the other.
_GEMINI_SCHEMAS: Final = ("parameters_json_schema", "parametersJsonSchema", "parameters")


def _gemini(tools: JSON) -> list[_Entry] | None:
    """A Gemini ``Tool`` (``{"function_declarations": [...]}``), a list of them, or a bare
    list of declarations (each a ``name`` with one of the schema keys, and no ``type``)."""
    if isinstance(tools, dict):
        return _gemini_group(tools)
    if not _all_dicts(tools):
        return None
    if all(any(k in item for k in _GEMINI_SCHEMAS) and "type" not in item for item in tools):
        return [_declared(item, _GEMINI_SCHEMAS, i) for i, item in enumerate(tools)]
    groups = [_gemini_group(item, i) for i, item in enumerate(tools)]
    if any(group is None for group in groups):
        return None
    return [entry for group in groups if group is not None for entry in group]


def _gemini_group(tool: dict[str, JSON], *at: int) -> list[_Entry] | None:
    key = next((k for k in _GEMINI_GROUPS if k in tool), None)
    declarations = None if key is None else tool[key]
    if key is None or not _all_dicts(declarations):
        return None
    return [
        _declared(declaration, _GEMINI_SCHEMAS, *at, key, j)
        for j, declaration in enumerate(declarations)
    ]


def _otel(document: JSON) -> list[_Entry] | None:
    found = otel_tools.definitions(document)
    if found is None:
        return None
    entries = [_Entry(d.name, d.schema, pointers.join("", *d.at)) for d in found]
    # An output schema stands in the same attribute's JSON text as the input schema.
    return [
        entry
        if d.output is None
        else replace(entry, output_pointer=entry.pointer, output_schema=d.output)
        for entry, d in zip(entries, found, strict=True)
    ]


_SCHEMA_MARKERS: Final = frozenset(
    {"$schema", "$id", "$ref", "$defs", "definitions", "type", "properties", "required",
     "anyOf", "oneOf", "allOf", "any_of", "one_of", "all_of", "enum", "const"}
)  # fmt: skip
"""Keys that make a mapping a schema rather than a table of tool names."""


def _schema(document: JSON) -> list[_Entry] | None:
    if not isinstance(document, dict) or not _SCHEMA_MARKERS.intersection(document):
        return None
    return [_Entry(None, document, "", named_by_file=True)]


def _mapping(document: JSON) -> list[_Entry] | None:
    if not isinstance(document, dict) or not document:
        return None
    if not all(isinstance(schema, (dict, bool)) for schema in document.values()):
        return None
    return [_Entry(name, schema, pointers.join("", name)) for name, schema in document.items()]


_NAMED_SHAPES: Final = frozenset(
    {
        CatalogFormat.OPENAI.value,
        CatalogFormat.OPENAI_RESPONSES.value,
        CatalogFormat.ANTHROPIC.value,
        CatalogFormat.MCP.value,
        CatalogFormat.GEMINI.value,
    }
)


def recognisable(tools: Sequence[ToolSchema]) -> bool:
    """Whether a file's tools look like a catalog on their own, not only because some shape
    fits: a shape that names its tools (``openai``, ``anthropic``, ``mcp``, ...); a lone
    schema that is an object schema (``type: object`` in any case, or ``properties`` holding
    schemas); a mapping whose every value is a schema (a boolean, or an object with a schema
    keyword such as ``type`` or ``properties``) and one at least an object schema.

    Any YAML of nested mappings fits the ``mapping`` shape — an ML config's
    ``{"tokenizer": {"max_length": 512}}`` too — so a file found in a directory is rewritten
    only when this holds.
    """
    if not tools:
        return False
    if all(tool.shape in _NAMED_SHAPES for tool in tools):
        return True
    schemas = [tool.schema for tool in tools]
    return any(_object_schema(schema) for schema in schemas) and all(
        isinstance(schema, bool)
        or (isinstance(schema, dict) and bool(_SCHEMA_MARKERS.intersection(schema)))
        for schema in schemas
    )


def _object_schema(schema: JSON) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if any(isinstance(k, str) and k.lower() == "object" for k in kinds):
        return True
    found = schema.get("properties")
    return (
        isinstance(found, dict)
        and bool(found)
        and all(isinstance(value, (dict, bool)) for value in found.values())
    )


def _all_dicts(document: JSON) -> TypeGuard[list[dict[str, JSON]]]:
    """A non-empty list of objects: the shape every catalog format's tool list has."""
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(item, dict) for item in document)
    )


_LONE_SHAPES: Final = frozenset(
    {
        CatalogFormat.OPENAI,
        CatalogFormat.OPENAI_RESPONSES,
        CatalogFormat.ANTHROPIC,
        CatalogFormat.MCP,
    }
)
"""The shapes whose one tool object, alone in a file, is a catalog of one tool: each has a
key no other document has (``function``, ``input_schema``, ``inputSchema``). A Gemini
declaration (``name`` and ``parameters``) alone is not taken: too many files look so."""
_LISTED_SHAPES: Final = _LONE_SHAPES | {CatalogFormat.GEMINI}
"""The shapes that hold their tools in a list, which may be empty."""

_DETECTORS: Final[dict[CatalogFormat, _Detector]] = {
    CatalogFormat.OPENAI: _openai,
    CatalogFormat.OPENAI_RESPONSES: _openai_responses,
    CatalogFormat.ANTHROPIC: _anthropic,
    CatalogFormat.MCP: _mcp,
    CatalogFormat.GEMINI: _gemini,
    CatalogFormat.OTEL: _otel,
    # A lone schema before the mapping: ``{"properties": {...}}`` is a schema, not one tool.
    CatalogFormat.SCHEMA: _schema,
    CatalogFormat.MAPPING: _mapping,
}
