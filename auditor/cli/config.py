"""Settings from ``auditor.toml`` or ``pyproject.toml`` ``[tool.auditor]``, under the CLI.

Only the current directory is searched (where CI runs the command), never its parents: a
setting that applies must be visible next to the command that uses it. ``auditor.toml`` wins
over ``pyproject.toml`` when both exist; a command-line option wins over either.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from auditor.errors import AuditorError
from auditor.inputs.limits import readable_value_error

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

KEYS: Final[dict[str, type | tuple[type, ...]]] = {
    "schemas": list,
    "logs": list,
    "format": (list, str),
    "output": (list, str),
    "report_dir": str,
    "no_report_files": bool,
    "fail_on": str,
    "baseline": str,
    "examples": int,
    "redact": bool,
    "max_calls": int,
    "allow_override": bool,
    "call_timeout": (int, float),
    "max_record_bytes": int,
    "max_catalog_bytes": int,
    "jobs": int,
    "old_runtime": str,
}
"""Keys accepted in the table, with their TOML types; names are the CLI's, with underscores."""

MINIMUMS: Final[dict[str, int]] = {
    "examples": 0,
    "max_calls": 0,
    "call_timeout": 0,
    "max_record_bytes": 1,
    "max_catalog_bytes": 1,
    "jobs": 1,
}
"""The least value of each number, as the command line's options allow it."""


class ConfigProblem(AuditorError):
    """A configuration file that cannot be used; the message names it (exit 2)."""


@dataclass(frozen=True)
class Config:
    """The settings found, and the file they came from (None when there was none)."""

    values: dict[str, Any]
    path: Path | None


def load_config(directory: Path) -> Config:
    """Read ``auditor.toml`` (whole file) or ``pyproject.toml`` (``[tool.auditor]``).

    Values are checked as the command line checks them (types, least values, finite
    numbers, lists of strings). Where the outputs it names may go is the CLI's business
    (``auditor.cli.audit``): inside the working directory.
    """
    own = directory / "auditor.toml"
    if own.is_file():
        return Config(_check(own, _read(own)), own)
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file():
        table = _read(pyproject).get("tool", {}).get("auditor")
        if table is not None:
            if not isinstance(table, dict):
                raise ConfigProblem(f"{pyproject}: [tool.auditor] must be a table")
            return Config(_check(pyproject, table), pyproject)
    return Config({}, None)


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as stream:
            return tomllib.load(stream)
    except tomllib.TOMLDecodeError as error:
        raise ConfigProblem(f"{path}: invalid TOML: {error}") from error
    except UnicodeDecodeError as error:
        raise ConfigProblem(f"{path}: invalid TOML: not UTF-8 text ({error.reason})") from error
    except ValueError as error:  # an integer of more digits than Python converts
        raise ConfigProblem(f"{path}: invalid TOML: {readable_value_error(error)}") from error
    except RecursionError as error:
        raise ConfigProblem(f"{path}: invalid TOML: nested too deeply") from error
    except OSError as error:
        raise ConfigProblem(f"{path}: cannot read: {error.strerror or error}") from error


def _check(path: Path, table: dict[str, Any]) -> dict[str, Any]:
    values = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in KEYS:
            raise ConfigProblem(f"{path}: unknown setting '{key}' (known: {', '.join(KEYS)})")
        if not isinstance(value, KEYS[name]) or (isinstance(value, bool) and KEYS[name] is int):
            raise ConfigProblem(f"{path}: setting '{key}' has the wrong type")
        _check_value(path, key, name, value)
        values[name] = value
    return values


def _check_value(path: Path, key: str, name: str, value: Any) -> None:
    """What the command line's options check (least values, finite numbers), and lists of
    strings."""
    if isinstance(value, list) and not all(isinstance(item, str) for item in value):
        raise ConfigProblem(f"{path}: setting '{key}' must be a list of strings")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigProblem(f"{path}: setting '{key}' must be a finite number")
    least = MINIMUMS.get(name)
    if least is not None and value < least:
        raise ConfigProblem(f"{path}: setting '{key}' must be at least {least}, not {value}")
