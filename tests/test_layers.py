"""The layer order of ``auditor``, checked from the code's own imports.

Every module of ``auditor/`` is parsed with ``ast``; every ``import`` counts, wherever it is
written (module level, inside a function, under ``if TYPE_CHECKING:``): a lazy import is still
a dependency. Three things must hold: no cycle between modules, no cycle between packages (a
package is a layer: ``auditor/<pkg>/``, or the top-level modules of one layer together), and
no import from a lower layer into a higher one (``LAYER_ORDER``). A failure lists each
offending import as ``importer -> imported (line N)``. A module named only in a string (the
renderers' lazy registry, ``report.lazy``) is not an import: those stay inside their package.

Imports that others are removing now are in ``NOT_YET``; an entry that no longer offends fails
the test, so the list only shrinks.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import pytest

from tests.conftest import ROOT

LAYER_ORDER: Final[tuple[tuple[str, str], ...]] = (
    ("base", "auditor/*.py: records, errors, defaults, JSON pointers: what every stage shares"),
    ("inputs", "the loaders at the edge: catalogs and logs in every shape -> ToolSchema, Call"),
    ("schema", "keyword vocabulary, normalize, lint, edits: pure functions over one schema"),
    ("replay", "one call against the old and new schema -> Outcome, using schema's vocabulary"),
    ("aggregate", "the mergeable tally of outcomes (groups, hints, gate), whatever runs it"),
    ("request", "auditor/request.py: the options record; the engines plan from it, so below them"),
    ("engines", "the ways of running replay and tally over a plan: inline, --jobs, Spark, Ray"),
    ("report", "the renderers: they format what the report holds and compute nothing upstream"),
    ("api", "auditor/api.py: the one door into the core, running an engine over a plan"),
    ("cli", "typer options -> an AuditRequest -> the api; the only writer"),
    ("main", "auditor/__main__.py: `python -m auditor` runs the cli"),
)
"""The layers, low to high, each with why it sits there. A module may import its own layer
and the layers below it, never one above."""

TOP_LEVEL_LAYERS: Final[Mapping[str, str]] = {
    "auditor.api": "api",
    # A user of the api, as the command line is: a pytest fixture over auditor.api.
    "auditor.pytest_plugin": "cli",
    "auditor.request": "request",
    "auditor.__main__": "main",
}
"""Top-level modules outside the base layer; every other ``auditor/*.py`` is base. A
subpackage ``auditor/<pkg>/`` is the layer ``<pkg>``, which must be in ``LAYER_ORDER``."""

NOT_YET: Final[frozenset[tuple[str, str]]] = frozenset()
"""``(importer, imported)``: imports against the order, or closing a cycle, that their owners
are removing now. Each must still offend, or the test fails: then remove the entry."""


@dataclass(frozen=True)
class Import:
    """One edge: ``importer`` imports ``imported`` at ``line``."""

    importer: str
    imported: str
    line: int

    def __str__(self) -> str:
        return f"{self.importer} -> {self.imported} (line {self.line})"


@dataclass(frozen=True)
class Graph:
    """The modules of one package and every import between them."""

    modules: frozenset[str]
    packages: frozenset[str]
    imports: tuple[Import, ...]


@dataclass(frozen=True)
class Layers:
    """A layer order over one package: ``order`` low to high, ``order[0]`` the base layer of
    the top-level modules, ``top_level`` the top-level modules placed elsewhere."""

    order: tuple[str, ...]
    top_level: Mapping[str, str]

    def of(self, module: str, graph: Graph) -> str:
        """The layer of ``module``: its subpackage's name, or its top-level placement."""
        if module in self.top_level:
            return self.top_level[module]
        parts = module.split(".")
        if len(parts) >= 2 and ".".join(parts[:2]) in graph.packages:
            return parts[1]
        return self.order[0]


@dataclass(frozen=True)
class Findings:
    """What breaks the order: cycles (the imports inside each strongly connected group),
    imports into a higher layer, layers outside the order, exemptions that no longer offend."""

    module_cycles: tuple[tuple[Import, ...], ...]
    package_cycles: tuple[tuple[Import, ...], ...]
    upward: tuple[Import, ...]
    unplaced: tuple[str, ...]
    stale: tuple[tuple[str, str], ...]


def read_graph(package_dir: Path) -> Graph:
    """Every import between the modules of ``package_dir``, read from their source."""
    files: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    modules = frozenset(files)
    packages = frozenset(name for name, path in files.items() if path.name == "__init__.py")
    imports: set[Import] = set()
    for importer, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for imported in _loaded(node, importer, importer in packages, modules):
                    if imported != importer:
                        imports.add(Import(importer, imported, node.lineno))
    return Graph(modules, packages, tuple(sorted(imports, key=_sort_key)))


def _sort_key(edge: Import) -> tuple[str, str, int]:
    return (edge.importer, edge.imported, edge.line)


def _loaded(
    node: ast.Import | ast.ImportFrom, importer: str, is_package: bool, modules: frozenset[str]
) -> list[str]:
    """The package's own modules that one import statement names."""
    if isinstance(node, ast.Import):
        return [m for m in (_longest_module(alias.name, modules) for alias in node.names) if m]
    base = _absolute(node, importer, is_package)
    found: list[str] = []
    for alias in node.names:
        # `from pkg import mod` names the module pkg.mod; `from mod import name` names mod.
        submodule = f"{base}.{alias.name}"
        target = submodule if submodule in modules else _longest_module(base, modules)
        if target:
            found.append(target)
    return found


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The absolute module name of a ``from ... import``, resolving a relative one."""
    if node.level == 0:
        return node.module or ""
    parts = importer.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def _longest_module(name: str, modules: frozenset[str]) -> str | None:
    """The longest prefix of ``name`` that is one of ``modules`` (``None`` outside them)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in modules:
            return ".".join(parts[:end])
    return None


def strongly_connected(edges: Iterable[tuple[str, str]]) -> list[frozenset[str]]:
    """The groups of two or more nodes that reach each other (Tarjan), i.e. the cycles."""
    successors: dict[str, set[str]] = defaultdict(set)
    nodes: set[str] = set()
    for source, target in edges:
        successors[source].add(target)
        nodes |= {source, target}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(successors[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(frozenset(group))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return sorted(groups, key=sorted)


def check(graph: Graph, layers: Layers, exempt: Collection[tuple[str, str]] = ()) -> Findings:
    """Everything in ``graph`` that breaks ``layers``, leaving out the ``exempt`` imports."""
    layer = {module: layers.of(module, graph) for module in graph.modules}
    unplaced = tuple(sorted({name for name in layer.values() if name not in layers.order}))
    kept = tuple(e for e in graph.imports if (e.importer, e.imported) not in exempt)
    found = _offences(kept, layer, layers.order)
    # An exemption is stale once its import is gone, or is neither upward nor in a cycle.
    everything = _offences(graph.imports, layer, layers.order)
    offending = {(e.importer, e.imported) for e in everything.upward}
    for group in (*everything.module_cycles, *everything.package_cycles):
        offending |= {(e.importer, e.imported) for e in group}
    stale = tuple(sorted(pair for pair in exempt if pair not in offending))
    return replace(found, unplaced=unplaced, stale=stale)


def _offences(
    imports: tuple[Import, ...], layer: Mapping[str, str], order: tuple[str, ...]
) -> Findings:
    """The cycles and upward imports among ``imports``; ``layer`` places each module."""
    crossing = [e for e in imports if layer[e.importer] != layer[e.imported]]
    modules = strongly_connected((e.importer, e.imported) for e in imports)
    packages = strongly_connected((layer[e.importer], layer[e.imported]) for e in crossing)
    # A layer outside the order is reported as such, not as an upward import.
    rank = {name: index for index, name in enumerate(order)}
    return Findings(
        module_cycles=tuple(
            tuple(e for e in imports if {e.importer, e.imported} <= group) for group in modules
        ),
        package_cycles=tuple(
            tuple(e for e in crossing if {layer[e.importer], layer[e.imported]} <= group)
            for group in packages
        ),
        upward=tuple(
            e
            for e in imports
            if rank.get(layer[e.imported], -1) > rank.get(layer[e.importer], len(order))
        ),
        unplaced=(),
        stale=(),
    )


def describe(findings: Findings) -> str:
    """The findings as a failure message: each offending import on its own line."""
    lines: list[str] = []
    for title, groups in (
        ("module cycle", findings.module_cycles),
        ("package cycle", findings.package_cycles),
    ):
        for group in groups:
            lines.append(f"{title}:")
            lines += [f"  {edge}" for edge in group]
    if findings.upward:
        lines.append("import into a higher layer:")
        lines += [f"  {edge}" for edge in findings.upward]
    lines += [f"layer not in the order: {name}" for name in findings.unplaced]
    lines += [f"NOT_YET entry no longer offends, remove it: {a} -> {b}" for a, b in findings.stale]
    return "\n".join(lines)


AUDITOR_LAYERS: Final = Layers(tuple(name for name, _ in LAYER_ORDER), TOP_LEVEL_LAYERS)


def test_auditor_imports_follow_the_layer_order() -> None:
    findings = check(read_graph(ROOT / "auditor"), AUDITOR_LAYERS, NOT_YET)
    if problems := describe(findings):
        pytest.fail(problems, pytrace=False)


def test_every_layer_of_the_order_is_a_package_or_placed_top_level_module() -> None:
    graph = read_graph(ROOT / "auditor")
    used = {AUDITOR_LAYERS.of(module, graph) for module in graph.modules}
    # A renamed package cannot leave its old name standing in the order.
    assert set(AUDITOR_LAYERS.order) - used == set()


def test_every_test_folder_follows_a_package_of_the_code() -> None:
    # tests/<name>/ holds the tests of auditor/<name>/ (or of benchmarks/); data folders hold
    # no test module. A test moved by hand to a folder no package has fails here.
    packages = {path.parent.name for path in (ROOT / "auditor").glob("*/__init__.py")}
    folders = {path.parent for path in (ROOT / "tests").rglob("test_*.py")} - {ROOT / "tests"}
    assert folders, "no test folder found"
    for folder in sorted(folders):
        relative = folder.relative_to(ROOT / "tests")
        assert len(relative.parts) == 1, f"tests/{relative}: one level, as the packages are"
        assert relative.name in packages | {"benchmarks"}, f"tests/{relative} names no package"
        assert (folder / "__init__.py").is_file(), f"tests/{relative} is not a package"


def _package(root: Path, files: Mapping[str, str]) -> Path:
    """A package under ``root`` from ``{relative path: source}``; returns its directory."""
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return root / "pkg"


PKG_LAYERS: Final = Layers(("base", "low", "high", "main"), {"pkg.main": "main"})
LAYERED: Final = {
    "pkg/__init__.py": "",
    "pkg/models.py": "import json\n",
    "pkg/low/__init__.py": "from .a import A\n",
    "pkg/low/a.py": "from pkg import models\nfrom pkg.low import b\nA = 1\n",
    "pkg/low/b.py": "import pkg.models as m\n",
    "pkg/high/__init__.py": "",
    "pkg/high/d.py": "from ..low.a import A\nfrom pkg.models import JSON\n",
    "pkg/main.py": "def run():\n    from pkg.high import d\n",
}


def test_an_acyclic_layered_package_is_accepted_with_every_import_resolved(
    tmp_path: Path,
) -> None:
    graph = read_graph(_package(tmp_path, LAYERED))
    assert [str(edge) for edge in graph.imports] == [
        "pkg.high.d -> pkg.low.a (line 1)",  # relative, two levels up
        "pkg.high.d -> pkg.models (line 2)",  # a name from a module: the module
        "pkg.low -> pkg.low.a (line 1)",  # relative, from a package's __init__
        "pkg.low.a -> pkg.low.b (line 2)",  # a submodule from its package: the submodule
        "pkg.low.a -> pkg.models (line 1)",
        "pkg.low.b -> pkg.models (line 1)",  # `import x.y as z`
        "pkg.main -> pkg.high.d (line 2)",  # inside a function
    ]
    assert describe(check(graph, PKG_LAYERS)) == ""


def test_a_cycle_and_an_upward_import_are_refused_each_by_its_line(tmp_path: Path) -> None:
    refused = {
        **LAYERED,
        # a <-> b, b's half under TYPE_CHECKING: a type-only import is still a dependency.
        "pkg/low/b.py": "import typing\nif typing.TYPE_CHECKING:\n    from .a import A\n",
        # low imports high in a function: upward, and a package cycle with d -> a.
        "pkg/low/c.py": "def f():\n    import pkg.high.d\n",
        "pkg/high/d.py": "from ..low.a import A\nfrom pkg.low import c\n",
        "pkg/extra/__init__.py": "",
    }
    findings = check(read_graph(_package(tmp_path, refused)), PKG_LAYERS)
    assert [[str(edge) for edge in group] for group in findings.module_cycles] == [
        ["pkg.high.d -> pkg.low.c (line 2)", "pkg.low.c -> pkg.high.d (line 2)"],
        ["pkg.low.a -> pkg.low.b (line 2)", "pkg.low.b -> pkg.low.a (line 3)"],
    ]
    assert [[str(edge) for edge in group] for group in findings.package_cycles] == [
        [
            "pkg.high.d -> pkg.low.a (line 1)",
            "pkg.high.d -> pkg.low.c (line 2)",
            "pkg.low.c -> pkg.high.d (line 2)",
        ]
    ]
    assert [str(edge) for edge in findings.upward] == ["pkg.low.c -> pkg.high.d (line 2)"]
    assert findings.unplaced == ("extra",)
    message = describe(findings)
    assert "import into a higher layer:\n  pkg.low.c -> pkg.high.d (line 2)" in message
    assert "layer not in the order: extra" in message


def test_an_exemption_hides_its_import_until_the_import_no_longer_offends(
    tmp_path: Path,
) -> None:
    upward = {**LAYERED, "pkg/low/c.py": "import pkg.high.d\n"}
    graph = read_graph(_package(tmp_path, upward))
    exempt = {("pkg.low.c", "pkg.high.d")}
    assert describe(check(graph, PKG_LAYERS)) != ""
    assert describe(check(graph, PKG_LAYERS, exempt)) == ""
    # Gone, or allowed by the order: either way the entry must be removed.
    gone = {("pkg.low.c", "pkg.models")}
    allowed = {("pkg.high.d", "pkg.models")}
    assert check(graph, PKG_LAYERS, exempt | gone | allowed).stale == (
        ("pkg.high.d", "pkg.models"),
        ("pkg.low.c", "pkg.models"),
    )
    assert "NOT_YET entry no longer offends, remove it: pkg.low.c -> pkg.models" in describe(
        check(graph, PKG_LAYERS, exempt | gone)
    )
