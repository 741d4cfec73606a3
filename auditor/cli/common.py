"""What every command shares: the usage failure, writes that name their path, shared options."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated

import typer

from auditor.cli.output import write_atomic, write_together
from auditor.errors import AuditorError
from auditor.inputs.limits import DEFAULT_MAX_CATALOG_BYTES, byte_size
from auditor.inputs.links import FOLLOW_LINKS
from auditor.inputs.paths import shown
from auditor.inputs.uri import WEB_FLAG, check_uri
from auditor.models import Rule
from auditor.request import DEFAULT_RULES_TEXT, parse_rules


class UsageFailure(AuditorError):
    """An input or output that cannot be used; the message names it in one line (exit 2)."""


def write_text(path: Path, text: str, within: Path | None = None) -> None:
    """Write a file (``auditor.cli.output``), turning an OS error into a UsageFailure naming the
    path; ``within`` confines it and its link targets to a folder."""
    try:
        write_atomic(path, text, within)
    except OSError as error:
        raise UsageFailure(f"{shown(path)}: cannot write: {error.strerror or error}") from error


def write_pair(files: list[tuple[Path, str]], folder: Path, within: Path | None = None) -> None:
    """Write files that belong together (a report in two formats) so that two runs writing
    the same ``folder`` never leave one file of each (``auditor.cli.output.write_together``)."""
    try:
        write_together(files, within, lock=folder)
    except OSError as error:
        name = error.filename if error.filename is not None else files[0][0]
        raise UsageFailure(f"{shown(name)}: cannot write: {error.strerror or error}") from error


def emit(
    text: str, output: str, to_path: Callable[[str], Path] = Path, within: Path | None = None
) -> None:
    """Send ``text`` to stdout (``-``) or write it to a file (``within`` that folder)."""
    if output == "-":
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except OSError as error:  # a full disk or a closed pipe behind a redirection
            raise UsageFailure(f"<stdout>: cannot write: {error.strerror or error}") from error
    else:
        write_text(to_path(output), text, within)


def split_codes(values: Iterable[str] | None) -> tuple[str, ...]:
    """``--select KW001,TY --select NE`` -> ``("KW001", "TY", "NE")``."""
    return tuple(
        code.strip().upper() for value in values or () for code in value.split(",") if code.strip()
    )


def _rules_option(value: str | frozenset[Rule] | None) -> frozenset[Rule]:
    if isinstance(value, frozenset):
        return value  # the default, already parsed
    try:
        return parse_rules(value)
    except AuditorError as failure:
        raise typer.BadParameter(str(failure)) from failure


RulesOption = Annotated[
    frozenset[Rule],
    typer.Option(
        "--rules",
        parser=_rules_option,
        metavar="FAMILIES",
        show_default=DEFAULT_RULES_TEXT,
        help="Comma-separated rule families: keyword-case, type-case (the default), "
        "type-alias, openapi, gemini.",
    ),
]
"""The ``--rules`` option, shared by the commands that normalize (exit 2 when unknown)."""


FollowLinksOption = Annotated[
    bool,
    typer.Option(
        FOLLOW_LINKS,
        metavar="",
        help="Read the symbolic links in catalog folders whose target is outside the folder "
        "(refused by default: a pull request can add such a link). Your choice.",
    ),
]
"""``--follow-links`` of the commands that read catalog folders but ``audit`` (whose help
names log folders too)."""

SkipNonCatalogsOption = Annotated[
    bool,
    typer.Option(
        "--skip-non-catalogs",
        metavar="",
        help="Skip the named files that are no tool catalog, each named on stderr, as a "
        "folder's are (pre-commit's hooks pass every JSON and YAML file).",
    ),
]
"""``--skip-non-catalogs`` of ``lint`` and ``normalize``: the folder rule for named files, so
that a hook given every JSON and YAML file of a commit checks the catalogs among them."""


def check_catalog_uris(paths: Iterable[str]) -> None:
    """Refuse the URIs among ``paths`` that auditor does not read; a command other than
    ``audit`` never reads the network's (``auditor.inputs.uri.check_uri``)."""
    for path in paths:
        check_uri(path, web=False, web_hint=f"only `auditor audit {WEB_FLAG}` reads it")


MaxCatalogBytesOption = Annotated[
    int,
    typer.Option(
        "--max-catalog-bytes",
        rich_help_panel="Limits",
        min=1,
        metavar="N",
        show_default=byte_size(DEFAULT_MAX_CATALOG_BYTES),
        help="Largest catalog file read; larger exits 2.",
    ),
]
"""``--max-catalog-bytes``, shared by every command that reads catalogs (default
``DEFAULT_MAX_CATALOG_BYTES``)."""
