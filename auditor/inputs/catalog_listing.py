"""Which files the catalog paths name: a file, standard input, a folder's catalog files, or
the files a glob matches.

A file named on the command line is the user's choice and is read whatever it is called. A
folder stands for its files ending in ``.json``, ``.yaml`` or ``.yml`` (and ``.snap`` under
``--catalog-format mcp``: github-mcp-server keeps one MCP tool per ``__toolsnaps__/*.snap``
file); a glob (``'tools/*.snap'``, quoted so that auditor expands it, on the revision of
``--against`` too) for the files it matches. Files found so are not the user's choice one by
one: the catalog reader skips those that are no catalog (``auditor.inputs.catalogs``), and
``found_in`` says which input each came from, so that an input whose every file was skipped
can be named.
"""

from __future__ import annotations

import glob
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from auditor.inputs.catalog_formats import CatalogFormat
from auditor.inputs.paths import STDIN, files_in, shown, walk
from auditor.inputs.uri import is_uri

CATALOG_SUFFIXES: Final = (".json", ".yaml", ".yml")
SNAPSHOT_SUFFIX: Final = ".snap"
"""A snapshot file of one MCP tool (github-mcp-server's ``__toolsnaps__``), listed in a
folder under ``--catalog-format mcp``."""
GLOB_CHARACTERS: Final = frozenset("*?[")


def suffixes_for(fmt: CatalogFormat | None) -> tuple[str, ...]:
    """The file endings a folder's catalog files have when ``fmt`` is forced (or None)."""
    return (*CATALOG_SUFFIXES, SNAPSHOT_SUFFIX) if fmt is CatalogFormat.MCP else CATALOG_SUFFIXES


def no_catalog_files(suffixes: Sequence[str]) -> str:
    """``no catalog files (.json, .yaml, .yml)``: what a folder without any is said to hold."""
    return f"no catalog files ({', '.join(suffixes)})"


def is_glob(path: str) -> bool:
    """A path auditor expands itself: it has ``*``, ``?`` or ``[`` and names no file."""
    return (
        path != STDIN
        and not is_uri(path)
        and bool(GLOB_CHARACTERS.intersection(path))
        and not os.path.lexists(path)
    )


@dataclass
class Listing:
    """The files under the catalog paths, in order, and what could not be listed."""

    files: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    """``(shown path, reason)`` of each entry that cannot be read, or input that names none."""
    found_in: dict[str, str] = field(default_factory=dict)
    """File -> the folder, prefix or glob (as given) it was found in; a named file is not
    here."""


def list_files(
    paths: Sequence[str], suffixes: Sequence[str] = CATALOG_SUFFIXES, follow_links: bool = False
) -> Listing:
    """The catalog files of ``paths`` (``auditor.inputs.paths.files_in`` for each, a glob's
    matches for a glob); a folder without any says what it holds instead."""
    listing = Listing()
    wanted = tuple(suffixes)
    for path in paths:
        if is_glob(path):
            matches = sorted(m for m in glob.glob(path, recursive=True) if os.path.isfile(m))
            if not matches:
                listing.problems.append((shown(path), "no file matches this pattern"))
            listing.files.extend(matches)
            listing.found_in.update((match, path) for match in matches)
            continue
        none = no_catalog_files(wanted)
        found, unreadable = files_in(path, wanted, none, follow_links)
        if unreadable == [(shown(path), none)]:
            unreadable = [(shown(path), f"{none}{held(path, wanted)}")]
        listing.files.extend(found)
        listing.problems.extend(unreadable)
        listing.found_in.update((file, path) for file in found if file != path)
    return listing


def held(folder: str, suffixes: Sequence[str]) -> str:
    """``: it holds 3 .snap files (read with --catalog-format mcp)``, what a folder without
    catalog files holds, by ending; nothing when it holds no file at all (or is no folder)."""
    if is_uri(folder) or not Path(folder).is_dir():
        return ""
    files, _ = walk(folder, lambda name: True)
    if not files:
        return ": it is empty"
    kinds = Counter(Path(file).suffix.lower() or "(no ending)" for file in files)
    listed = ", ".join(
        f"{count:,} {kind}"
        for kind, count in sorted(kinds.items(), key=lambda k: (-k[1], k[0]))[:4]
    )
    more = "" if len(kinds) <= 4 else " and more"
    total = sum(kinds.values())
    hint = ""
    if SNAPSHOT_SUFFIX in kinds and SNAPSHOT_SUFFIX not in suffixes:
        hint = " (MCP tool snapshots are read with --catalog-format mcp)"
    return f": it holds {total:,} {'file' if total == 1 else 'files'} ({listed}{more}){hint}"
