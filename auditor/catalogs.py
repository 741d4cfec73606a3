"""Catalog files in every supported shape -> ToolSchema records.

Failures are values: a file that cannot be read, parsed or understood becomes a
``CatalogProblem`` naming it, and the caller decides to stop (exit 2).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import yaml

from auditor import pointers
from auditor.models import JSON, Location, Override, ToolSchema
from auditor.positions import key_positions

CATALOG_SUFFIXES: Final = (".json", ".yaml", ".yml")
_Loader: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class CatalogProblem:
    """Why a catalog input cannot be used; ``str()`` is the one-line message for the user."""

    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


@dataclass(frozen=True)
class _Entry:
    name: JSON
    schema: JSON
    pointer: str
    """Pointer of the schema inside the document."""


@dataclass(frozen=True)
class Catalogs:
    """The tools read from every input, with the overrides that were allowed."""

    tools: tuple[ToolSchema, ...]
    overrides: tuple[Override, ...]
    problems: tuple[CatalogProblem, ...]


def catalog_files(path: str) -> list[str]:
    """``path`` itself, or the catalog files below a directory in a stable order."""
    root = Path(path)
    if root.is_dir():
        return [
            str(p)
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix.lower() in CATALOG_SUFFIXES
        ]
    return [path]


def load_catalogs(paths: Sequence[str], allow_override: bool = False) -> Catalogs:
    """Read every catalog; a tool defined twice is a problem unless ``allow_override``."""
    by_name: dict[str, ToolSchema] = {}
    overrides: list[Override] = []
    problems: list[CatalogProblem] = []
    for path in paths:
        files = catalog_files(path)
        if not files:
            problems.append(CatalogProblem(Location(path), "no catalog files (.json, .yaml)"))
        for file in files:
            tools, problem = read_catalog(file)
            if problem is not None:
                problems.append(problem)
                continue
            for tool in tools:
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
    return Catalogs(ordered, tuple(overrides), tuple(problems))


def read_catalog(path: str) -> tuple[list[ToolSchema], CatalogProblem | None]:
    """The tools of one catalog file, or the problem that makes it unusable."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return [], CatalogProblem(Location(path), "no such file")
    except UnicodeDecodeError as error:
        return [], CatalogProblem(Location(path), f"not UTF-8 text ({error.reason})")
    except OSError as error:
        return [], CatalogProblem(Location(path), f"cannot read: {error.strerror or error}")
    document, problem = parse_document(path, text)
    if problem is not None:
        return [], problem
    found = detect_shape(document)
    if found is None:
        return [], CatalogProblem(
            Location(path),
            "not a catalog in a known shape (OpenAI tools list, MCP tools/list result, "
            "Anthropic tools list, or a mapping of tool names to schemas)",
        )
    shape, entries = found
    positions = key_positions(text, is_json=path.lower().endswith(".json"))
    tools: list[ToolSchema] = []
    for entry in entries:
        where = positions.get(entry.pointer, (None, None))
        location = Location(path, where[0], where[1])
        if not isinstance(entry.name, str) or not entry.name:
            return [], CatalogProblem(location, "a tool has no name (a non-empty string)")
        tools.append(
            ToolSchema(
                entry.name,
                entry.schema,
                location,
                entry.pointer,
                shape,
                _positions_within(positions, entry.pointer),
            )
        )
    return tools, None


def _positions_within(
    positions: dict[str, tuple[int, int]], root: str
) -> dict[str, tuple[int, int]]:
    """The positions below ``root``, keyed by pointers relative to it (for rewrite locations)."""
    return {
        pointer[len(root) :]: where
        for pointer, where in positions.items()
        if pointers.is_within(pointer, root) and pointer != root
    }


def parse_document(path: str, text: str) -> tuple[JSON, CatalogProblem | None]:
    """JSON for ``.json`` files, YAML (safe loading only) for everything else."""
    if path.lower().endswith(".json"):
        try:
            return json.loads(text), None
        except json.JSONDecodeError as error:
            return None, CatalogProblem(
                Location(path, error.lineno, error.colno), f"invalid JSON: {error.msg}"
            )
        except RecursionError:
            return None, CatalogProblem(Location(path), "invalid JSON: nested too deeply")
    try:
        return yaml.load(text, Loader=_Loader), None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (None, None)
        message = " ".join(str(error.problem or error.context or "").split())
        return None, CatalogProblem(Location(path, line, column), f"invalid YAML: {message}")
    except (yaml.YAMLError, RecursionError) as error:
        return None, CatalogProblem(Location(path), f"invalid YAML: {error}")


Shape = tuple[str, list[_Entry]]


def detect_shape(document: JSON) -> Shape | None:
    """Recognize a catalog from its content; None when no shape fits."""
    for detector in _DETECTORS:
        found = detector(document)
        if found is not None:
            return found
    return None


def _openai(document: JSON) -> Shape | None:
    if not _all_dicts(document) or not all(
        item.get("type") == "function" and isinstance(item.get("function"), dict)
        for item in document
    ):
        return None
    return "openai", [
        _Entry(
            item["function"].get("name"),
            item["function"].get("parameters", {}),
            pointers.join("", i, "function", "parameters"),
        )
        for i, item in enumerate(document)
    ]


def _anthropic(document: JSON) -> Shape | None:
    if not _all_dicts(document) or not all("input_schema" in item for item in document):
        return None
    return "anthropic", [
        _Entry(item.get("name"), item["input_schema"], pointers.join("", i, "input_schema"))
        for i, item in enumerate(document)
    ]


def _mcp(document: JSON) -> Shape | None:
    if not isinstance(document, dict) or not isinstance(document.get("tools"), list):
        return None
    tools = document["tools"]
    if not _all_dicts(tools) or not all("inputSchema" in item for item in tools):
        return None
    return "mcp", [
        _Entry(item.get("name"), item["inputSchema"], pointers.join("", "tools", i, "inputSchema"))
        for i, item in enumerate(tools)
    ]


def _mapping(document: JSON) -> Shape | None:
    if not isinstance(document, dict) or not document:
        return None
    if not all(isinstance(schema, (dict, bool)) for schema in document.values()):
        return None
    return "mapping", [
        _Entry(name, schema, pointers.join("", name)) for name, schema in document.items()
    ]


def _all_dicts(document: JSON) -> bool:
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(item, dict) for item in document)
    )


_DETECTORS: Final[tuple[Callable[[JSON], Shape | None], ...]] = (
    _openai,
    _anthropic,
    _mcp,
    _mapping,
)
