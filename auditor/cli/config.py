"""Settings from ``auditor.toml`` or ``pyproject.toml`` ``[tool.auditor]``, under the CLI.

Only the current directory is searched (where CI runs the command), never its parents: a
setting that applies must be visible next to the command that uses it. ``auditor.toml`` wins
over ``pyproject.toml`` when both exist; a command-line option wins over either.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from auditor.errors import AuditorError
from auditor.inputs.limits import readable_value_error

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class ConfigProblem(AuditorError):
    """A configuration file that cannot be used; the message names it (exit 2)."""


@dataclass(frozen=True)
class Setting:
    """One option of ``audit`` as a configuration key: read off the option's definition."""

    key: str
    """The key in the file: the option's name in snake_case (``fail_on``)."""
    flag: str
    """The option on the command line (``--fail-on``)."""
    kind: type
    """What TOML value it takes: ``list`` (of strings; one string is a list of one),
    ``bool``, ``int``, ``float`` (an integer too) or ``str``."""
    least: float | None = None
    """The least number the option accepts, if it has one."""

    def tokens(self, value: Any) -> list[str]:
        """The command-line arguments that say ``value`` (to check it as the CLI would)."""
        if self.kind is bool:
            return [self.flag] if value else []
        values = [value] if isinstance(value, str) or self.kind is not list else value
        return [f"{self.flag}={item}" for item in values]


Validate = Callable[[Setting, Any], None]
"""Checks one value as the command line would check it; raises ``ValueError`` saying why."""


@dataclass(frozen=True)
class Config:
    """The settings found, and the file they came from (None when there was none)."""

    values: dict[str, Any]
    path: Path | None


def load_config(
    directory: Path, settings: Mapping[str, Setting], validate: Validate | None = None
) -> Config:
    """Read ``auditor.toml`` (whole file) or ``pyproject.toml`` (``[tool.auditor]``).

    ``settings`` are the keys accepted (``auditor.cli.audit.SETTINGS``, read off the options).
    Values are checked as the command line checks them: their TOML type, least values, finite
    numbers, then ``validate`` (the option's own parsing: choices, ranges). Lists are given
    as lists (one string is a list of one). Where the outputs it names may go is the CLI's
    business (``auditor.cli.audit``): inside the working directory.
    """
    own = directory / "auditor.toml"
    if own.is_file():
        return Config(_check(own, _read(own), settings, validate), own)
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file():
        table = _read(pyproject).get("tool", {}).get("auditor")
        if table is not None:
            if not isinstance(table, dict):
                raise ConfigProblem(f"{pyproject}: [tool.auditor] must be a table")
            return Config(_check(pyproject, table, settings, validate), pyproject)
    return Config({}, None)


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as stream:
            table: dict[str, Any] = tomllib.load(stream)
            return table
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


def _check(
    path: Path, table: dict[str, Any], settings: Mapping[str, Setting], validate: Validate | None
) -> dict[str, Any]:
    values = {}
    for key, value in table.items():
        setting = settings.get(key.replace("-", "_"))
        if setting is None:
            raise ConfigProblem(f"{path}: unknown setting '{key}' (known: {', '.join(settings)})")
        if not _has_type(value, setting.kind):
            raise ConfigProblem(f"{path}: setting '{key}' has the wrong type")
        _check_value(path, key, setting, value)
        if validate is not None:
            try:
                validate(setting, value)
            except ValueError as error:
                raise ConfigProblem(f"{path}: setting '{key}': {error}") from error
        values[setting.key] = [value] if setting.kind is list and isinstance(value, str) else value
    return values


def _has_type(value: Any, kind: type) -> bool:
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    if kind is list:
        return isinstance(value, (list, str))
    return isinstance(value, kind)


def _check_value(path: Path, key: str, setting: Setting, value: Any) -> None:
    """What the command line's options check (least values, finite numbers), and lists of
    strings."""
    if isinstance(value, list) and not all(isinstance(item, str) for item in value):
        raise ConfigProblem(f"{path}: setting '{key}' must be a list of strings")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigProblem(f"{path}: setting '{key}' must be a finite number")
    if setting.least is not None and value < setting.least:
        raise ConfigProblem(
            f"{path}: setting '{key}' must be at least {setting.least:g}, not {value}"
        )
