"""README.md and docs/: what they show is what auditor does, and every link leads somewhere.

Every fenced block of README.md and docs/*.md is checked by its info string (the conventions
are also in docs/development.md, "Documentation"):

- ``console``: a line starting with ``$ `` is a command (a line ending in ``\\`` goes on to
  the next); the lines after it, up to the next ``$ ``, are what it prints, stdout and
  stderr as a terminal shows them, compared exactly but for trailing spaces; a line ``…``
  alone stands for any number of lines, none included.
- ``sh``: every line that is not blank or a ``#`` comment is a command, run for its exit
  status; ``python``: the block is run as a script.
- A command exits 0 or 1 (a finding, a failing gate), or 2 where the output shown has an
  ``auditor: error:`` line; never anything else.
- Each block runs in a fresh folder holding a copy of ``sample_logs/``, with ``auditor``
  and ``python3`` on the PATH, ``COLUMNS=80`` and no colour.
  ``<!-- doc-test: files NAME=PATH ... -->`` just before a block copies the repository's
  file or folder PATH there as NAME first, so that a recipe can use the names a reader has.
- ``<!-- doc-test: not-run REASON -->`` just before a block leaves it out (it needs the
  network, a cluster, or rewrites the repository); ``NOT_RUN`` counts them per page, so they
  cannot grow unseen.
- ``yaml``, ``toml`` and ``json`` blocks must parse; a workflow step using the Action may
  only give inputs ``action.yml`` declares, a pre-commit hook must be one
  ``.pre-commit-hooks.yaml`` defines, an ``auditor audit`` in a ``run:`` step and a
  configuration file may only name options and keys that exist. ``text`` blocks hold
  diagrams, never commands or what they print.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from auditor.cli.options import OPTIONS, SETTINGS
from tests.conftest import ROOT
from tests.regenerate_docs import COMMAND, rendered

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

PAGES: Final = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
README_LINES: Final = 250

NOT_RUN: Final[dict[str, int]] = {
    "README.md": 3,
    "docs/audit.md": 1,
    "docs/development.md": 3,
    "docs/inputs.md": 2,
    "docs/performance.md": 3,
    "docs/scale-out.md": 3,
}
"""Blocks left out of the run, per page: each needs what a test run lacks (the package
index, node, a cluster, pyarrow in the main suite) or rewrites the repository."""

KNOWN_INFO: Final = frozenset({"console", "sh", "python", "yaml", "toml", "json", "text"})
RUN_INFO: Final = frozenset({"console", "sh", "python"})
MARKER: Final = re.compile(r"<!-- doc-test: (files|not-run)\b(.*?)-->", re.S)
ANY_LINES: Final = "…"
TIMEOUT: Final = 120


@dataclass(frozen=True)
class Block:
    """A fenced block of a page, and what its marker says."""

    page: Path
    line: int
    """1-based line of the opening fence."""
    info: str
    text: str
    marker: str | None
    """``files`` or ``not-run``: the doc-test marker just before the block, if any."""
    argument: str

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def _tokens(page: Path) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(page.read_text(encoding="utf-8"))


def _blocks(page: Path) -> list[Block]:
    tokens = _tokens(page)
    blocks = []
    for index, token in enumerate(tokens):
        if token.type != "fence":
            continue
        marker, argument = None, ""
        before = tokens[index - 1] if index else None
        if before is not None and before.type == "html_block":
            found = MARKER.search(before.content)
            if found:
                marker, argument = found.group(1), " ".join(found.group(2).split())
        assert token.map is not None
        blocks.append(
            Block(page, token.map[0] + 1, token.info.strip(), token.content, marker, argument)
        )
    return blocks


ALL_BLOCKS: Final = [block for page in PAGES for block in _blocks(page)]
RUN_BLOCKS: Final = [b for b in ALL_BLOCKS if b.info in RUN_INFO and b.marker != "not-run"]


# What the pages are -----------------------------------------------------------------------


def test_the_readme_is_for_the_first_hour() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines"
    # ... and the rest is in docs/, each page listed in the README's index.
    readme = "\n".join(lines)
    for page in PAGES[1:]:
        assert f"](docs/{page.name})" in readme, f"the README's index lacks docs/{page.name}"


@pytest.mark.parametrize("path", sorted(rendered()), ids=lambda path: path.name)
def test_generated_pages_are_current(path: Path) -> None:
    committed = path.read_text(encoding="utf-8") if path.exists() else ""
    assert committed == rendered()[path], f"{path.relative_to(ROOT)} is stale: run {COMMAND}"


def test_every_block_has_a_known_kind_and_no_output_outside_console() -> None:
    for block in ALL_BLOCKS:
        assert block.info in KNOWN_INFO, f"{block.name}: a block of kind {block.info!r}"
        if block.info == "text":
            for line in block.text.splitlines():
                shown = line.lstrip()
                assert not shown.startswith(("$ ", "auditor:")), (block.name, line)


def test_the_blocks_left_out_are_counted() -> None:
    left_out: dict[str, int] = {}
    for block in ALL_BLOCKS:
        if block.marker == "not-run":
            assert block.info in RUN_INFO, f"{block.name}: only commands are run"
            assert block.argument, f"{block.name}: say why it is not run"
            page = str(block.page.relative_to(ROOT))
            left_out[page] = left_out.get(page, 0) + 1
    assert left_out == NOT_RUN


def table_problems(text: str) -> list[str]:
    """Rows with another number of cells than their table's header: GitHub splits a cell at
    every ``|`` not escaped as ``\\|``, inside a code span too, and drops what overflows."""
    problems = []
    width = None
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or not line.startswith("|"):
            width = None
            continue
        cells = len(re.split(r"(?<!\\)\|", line.strip())) - 2
        if width is None:
            width = cells
        elif cells != width:
            problems.append(f"line {number}: {cells} cells, the header has {width}")
    return problems


def test_the_table_check_counts_cells_as_github_does() -> None:
    table = "| a | b |\n| --- | --- |\n| `x\\|y` | z |\n| `x|y` | z |\n\n| c |\n| --- |\n"
    assert table_problems(table) == ["line 4: 3 cells, the header has 2"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_table_row_has_its_header_s_cells(page: Path) -> None:
    assert table_problems(page.read_text(encoding="utf-8")) == []


# Links ------------------------------------------------------------------------------------


def slug(text: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation but ``-`` and ``_`` gone,
    spaces to ``-``."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _plain(token: Token) -> str:
    return "".join(child.content for child in token.children or () if child.type != "image")


def anchors(page: Path) -> set[str]:
    """Every anchor of a page: its headings' slugs (repeats numbered as GitHub numbers
    them) and the ``id`` of its ``<a id="...">`` tags."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    tokens = _tokens(page)
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            base = slug(_plain(tokens[index + 1]))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    found.update(re.findall(r'<a id="([^"]+)"></a>', page.read_text(encoding="utf-8")))
    return found


def links(page: Path) -> list[str]:
    hrefs = []
    for token in _tokens(page):
        for child in token.children or ():
            if child.type == "link_open":
                hrefs.append(str(child.attrs["href"]))
    return hrefs


def test_the_link_checker_finds_what_is_there_and_only_that(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Auditing any schema change: `--new-schemas` and `--against`\n\n## Exit codes\n\n"
        '## Exit codes\n\n<a id="kw001"></a>\n\n[a](other.md#x) [b](#exit-codes-1)\n'
    )
    assert anchors(page) == {
        "auditing-any-schema-change---new-schemas-and---against",
        "exit-codes",
        "exit-codes-1",
        "kw001",
    }
    assert links(page) == ["other.md#x", "#exit-codes-1"]
    assert _broken(page) == ["other.md#x: no such file"]


def _broken(page: Path) -> list[str]:
    broken = []
    for href in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", href):  # https:, mailto: -- not followed (no network)
            continue
        target, _, anchor = href.partition("#")
        path = (page.parent / target).resolve() if target else page
        if not path.exists():
            broken.append(f"{href}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{href}: no such anchor in {path.name}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_link_and_anchor_resolves(page: Path) -> None:
    assert _broken(page) == []


# Running the commands ---------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    text: str
    shown: tuple[str, ...] | None
    """What the page shows it printing; None when it shows nothing (an ``sh`` block)."""


def commands(block: Block) -> list[Command]:
    """The commands of a ``console`` or ``sh`` block, with their output where shown."""
    found: list[Command] = []
    lines = block.text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if block.info == "sh" and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if block.info == "console":
            assert line.startswith("$ "), f"{block.name}: output before any command: {line!r}"
            line = line[2:]
        while line.endswith("\\"):
            line = f"{line}\n{lines[index]}"
            index += 1
        shown: list[str] = []
        while block.info == "console" and index < len(lines) and not lines[index].startswith("$ "):
            shown.append(lines[index])
            index += 1
        found.append(Command(line, tuple(shown) if block.info == "console" else None))
    return found


def matches(shown: tuple[str, ...], printed: list[str]) -> bool:
    """Whether ``printed`` is what ``shown`` shows, a line ``…`` standing for any lines."""
    if not shown:
        return not printed
    head, *rest = shown
    if head == ANY_LINES:
        return any(matches(tuple(rest), printed[start:]) for start in range(len(printed) + 1))
    return bool(printed) and printed[0] == head and matches(tuple(rest), printed[1:])


def test_commands_and_matching_read_the_conventions() -> None:
    block = Block(ROOT, 1, "console", "$ a \\\n  b\nx\n…\n$ c\n", None, "")
    assert commands(block) == [Command("a \\\n  b", ("x", ANY_LINES)), Command("c", ())]
    sh = Block(ROOT, 1, "sh", "# a comment\n\nd --x \\\n  y\n", None, "")
    assert commands(sh) == [Command("d --x \\\n  y", None)]
    assert matches(("x", ANY_LINES), ["x", "y", "z"]) and matches(("x", ANY_LINES), ["x"])
    assert matches((ANY_LINES, "z"), ["x", "y", "z"])
    assert not matches(("x", ANY_LINES), ["y"]) and not matches(("x",), ["x", "y"])
    assert not matches((ANY_LINES, "z"), ["z", "y"]) and not matches((), ["x"])


def _sandbox(block: Block, folder: Path) -> dict[str, str]:
    """The folder a block runs in, and its environment."""
    shutil.copytree(ROOT / "sample_logs", folder / "sample_logs")
    for pair in block.argument.split() if block.marker == "files" else ():
        name, _, source = pair.partition("=")
        assert name and source, f"{block.name}: files NAME=PATH, not {pair!r}"
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        copy = shutil.copytree if (ROOT / source).is_dir() else shutil.copyfile
        copy(ROOT / source, folder / name)
    bin_dir = folder / ".bin"
    bin_dir.mkdir()
    for name, run in (("auditor", f'"{sys.executable}" -m auditor'), ("python3", sys.executable)):
        (bin_dir / name).write_text(f'#!/bin/sh\nexec {run} "$@"\n')
        (bin_dir / name).chmod(0o755)
    return {
        "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(folder),
        "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1",  # stdout and stderr interleaved as a terminal shows them
        "COLUMNS": "80",
        "LC_ALL": "C.UTF-8",
        "GIT_AUTHOR_NAME": "docs",
        "GIT_AUTHOR_EMAIL": "docs@example.com",
        "GIT_COMMITTER_NAME": "docs",
        "GIT_COMMITTER_EMAIL": "docs@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def _run(command: str, folder: Path, env: dict[str, str]) -> tuple[int, list[str]]:
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    return done.returncode, [line.rstrip() for line in done.stdout.splitlines()]


def _allowed(shown: tuple[str, ...] | None) -> set[int]:
    errors = shown is not None and any(line.startswith("auditor: error:") for line in shown)
    return {2} if errors else {0, 1}


@pytest.mark.parametrize("block", RUN_BLOCKS, ids=lambda block: block.name)
def test_every_command_shown_runs_and_prints_what_is_shown(block: Block, tmp_path: Path) -> None:
    env = _sandbox(block, tmp_path)
    if block.info == "python":
        (tmp_path / "example.py").write_text(block.text)
        code, printed = _run("python3 example.py", tmp_path, env)
        assert code == 0, (block.name, printed)
        return
    found = commands(block)
    assert found, f"{block.name}: no command"
    for command in found:
        code, printed = _run(command.text, tmp_path, env)
        assert code in _allowed(command.shown), (block.name, command.text, code, printed)
        if command.shown is not None:
            assert matches(command.shown, printed), (
                f"{block.name}: `{command.text}` printed:\n" + "\n".join(printed)
            )


# Blocks that are not commands -------------------------------------------------------------


def _action_inputs() -> set[str]:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return set(action["inputs"])


def _hook_ids() -> set[str]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return {hook["id"] for hook in hooks}


def _steps(document: Any) -> list[dict[str, Any]]:
    if isinstance(document, list):
        return [step for item in document for step in _steps(item)]
    if not isinstance(document, dict):
        return []
    steps = [document] if "uses" in document or "run" in document else []
    return steps + [step for value in document.values() for step in _steps(value)]


def _audit_flags(run: str) -> list[str]:
    flags = []
    for line in run.replace("\\\n", " ").splitlines():
        words = shlex.split(line)
        for start in (i for i, word in enumerate(words) if word == "auditor"):
            if words[start + 1 : start + 2] == ["audit"]:
                flags += [w.partition("=")[0] for w in words[start + 2 :] if w.startswith("--")]
    return flags


AUDIT_FLAGS: Final = {option.flag for option in OPTIONS.values()}


def check_yaml(text: str) -> list[str]:
    """What is wrong with a workflow or pre-commit example (nothing: an empty list)."""
    problems = []
    document = yaml.safe_load(text)
    for step in _steps(document):
        uses = str(step.get("uses", ""))
        if uses.startswith("tool-schema-auditor/auditor@"):
            given = step.get("with") or {}
            problems += [f"no input {name}" for name in given if name not in _action_inputs()]
        problems += [
            f"no option {flag}" for flag in _audit_flags(str(step.get("run", "")))
            if flag not in AUDIT_FLAGS
        ]  # fmt: skip
    for repo in document.get("repos", []) if isinstance(document, dict) else []:
        problems += [f"no hook {h['id']}" for h in repo["hooks"] if h["id"] not in _hook_ids()]
    return problems


def check_toml(text: str) -> list[str]:
    """What is wrong with a configuration-file example."""
    document = tomllib.loads(text)
    table = document.get("tool", {}).get("auditor", document)
    problems = []
    for key, value in table.items():
        setting = SETTINGS.get(key)
        if setting is None:
            problems.append(f"no setting {key}")
        elif setting.kind is list:
            if not isinstance(value, str | list):
                problems.append(f"{key}: a string or a list of strings")
        elif not isinstance(value, setting.kind):
            problems.append(f"{key}: a {setting.kind.__name__}")
    return problems


def test_the_example_checkers_refuse_what_is_wrong() -> None:
    good = (
        "steps:\n  - uses: tool-schema-auditor/auditor@v1\n    with: {schemas: tools/}\n"
        "  - run: pip install x && auditor audit --schemas=t.json --logs l.jsonl\n"
    )
    assert check_yaml(good) == []
    bad = good.replace("schemas: tools/", "schemaz: tools/").replace("--logs", "--log")
    assert check_yaml(bad) == ["no input schemaz", "no option --log"]
    hooks = "repos:\n  - repo: x\n    hooks:\n      - id: auditor-lint\n      - id: auditor-fix\n"
    assert check_yaml(hooks) == ["no hook auditor-fix"]
    assert check_toml('[tool.auditor]\nschemas = ["t/"]\nredact = true\njobs = 2\n') == []
    assert check_toml('fail_onn = "never"\nredact = "yes"\nlogs = 3\n') == [
        "no setting fail_onn",
        "redact: a bool",
        "logs: a string or a list of strings",
    ]


@pytest.mark.parametrize(
    "block",
    [b for b in ALL_BLOCKS if b.info in ("yaml", "toml", "json")],
    ids=lambda block: block.name,
)
def test_every_example_file_parses_and_names_what_exists(block: Block) -> None:
    if block.info == "json":
        json.loads(block.text)
    elif block.info == "yaml":
        assert check_yaml(block.text) == []
    else:
        assert check_toml(block.text) == []


def test_the_pages_run_commands_at_all() -> None:
    # A page whose blocks all went unseen would pass every test above.
    assert len(RUN_BLOCKS) >= 20
    assert sum(len(commands(b)) for b in RUN_BLOCKS if b.info != "python") >= 25
    assert os.path.isdir(ROOT / "docs")
