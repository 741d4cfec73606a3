"""What a configuration file may name: local paths inside the working directory.

``auditor.toml`` and ``pyproject.toml`` are the repository's, and a pull request can change
them; the command line is the workflow's. So a path the file names, to read as to write,
must stay inside the working directory through its folders and links, and out of ``.git``
(``auditor.cli.output.check_confined``, the one check for both); a URI the file names is
refused unless the command line allows it (``--allow-config-uris``), since it could reach
the network or a file of the machine. The same path or URI given on the command line is the
user's choice.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Final

from auditor.cli.config import ConfigProblem
from auditor.cli.output import TO_READ, TO_WRITE, check_confined
from auditor.inputs.paths import STDIN, shown
from auditor.inputs.uri import is_uri

CONFIG_URIS_FLAG: Final = "--allow-config-uris"
"""The option that lets a configuration file name URIs."""


def check_named_inputs(
    config: Path, key: str, paths: Iterable[str], within: Path, allow_uris: bool
) -> None:
    """Refuse (``ConfigProblem``, naming the setting and the file) what setting ``key`` of
    ``config`` names to read that is a URI (unless ``allow_uris``), or a path that leads out
    of ``within`` or into a ``.git`` folder; standard input (``-``) is no path."""
    for path in paths:
        if is_uri(path):
            if not allow_uris:
                raise ConfigProblem(
                    f"{config}: setting '{key}' names a URI, {shown(path)}: a configuration "
                    f"file names local files only; give it on the command line, or "
                    f"{CONFIG_URIS_FLAG}"
                )
            continue
        if path != STDIN:
            _confine(config, key, path, within, TO_READ)


def check_named_folder(config: Path, key: str, path: str, within: Path) -> None:
    """Refuse a folder setting ``key`` names to write in (``scratch``) when it leads out of
    ``within`` or into a ``.git`` folder."""
    _confine(config, key, path, within, TO_WRITE)


def _confine(config: Path, key: str, path: str, within: Path, remedy: str) -> None:
    try:
        check_confined(Path(path), within, remedy)
    except OSError as error:
        raise ConfigProblem(
            f"{config}: setting '{key}': {shown(path)} {error.strerror or error}"
        ) from None
