"""Settings from ``auditor.toml`` or ``pyproject.toml`` ``[tool.auditor]``, under the CLI.

Only the current directory is searched (where CI runs the command), never its parents: a
setting that applies must be visible next to the command that uses it. ``auditor.toml`` wins
over ``pyproject.toml`` when both exist; a command-line option wins over either.

The file is the repository's, which a pull request can change: it can tighten a safety bound
but never lift or widen one (``Setting.most``, ``Setting.unbounded``); what it names is kept
inside the working directory by the command (``auditor.cli.from_config``).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from auditor.errors import AuditorError
from auditor.inputs.limits import readable_value_error

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class ConfigProblem(AuditorError):
    """A configuration file that cannot be used; the message names it (exit 2)."""


CONFIG_FILE: Final = "auditor.config_file"
"""Where click's context ``meta`` (shared by a command and its group) holds the path of the
configuration file in use, for the command to name it when it refuses what the file says."""


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
    most: float | None = None
    """For a safety bound: the most a configuration file may set (the option's default);
    more comes from the command line only."""
    unbounded: float | None = None
    """For a safety bound: the value that lifts it (``0``: no limit), which only the
    command line may give."""
    comma_list: bool = False
    """The option's text is a comma-separated list (``--rules a,b``): the file may give a
    TOML list of strings instead, as users write it (ruff: ``select = ["E"]``)."""

    def tokens(self, value: Any) -> list[str]:
        """The command-line arguments that say ``value`` (to check it as the CLI would)."""
        if self.kind is bool:
            return [self.flag] if value else []
        if self.comma_list and isinstance(value, list):
            return [f"{self.flag}={','.join(value)}"]
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

    ``settings`` are the keys accepted (``auditor.cli.options.SETTINGS``, read off the options).
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
        tools = _read(pyproject).get("tool", {})
        if not isinstance(tools, dict):  # `tool = 1`: TOML, but no table of tools
            raise ConfigProblem(f"{pyproject}: [tool] must be a table")
        table = tools.get("auditor")
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
        if not _has_type(value, list if setting.comma_list else setting.kind):
            raise ConfigProblem(f"{path}: setting '{key}' has the wrong type")
        _check_value(path, key, setting, value)
        if setting.comma_list and isinstance(value, list):
            if not value:
                raise ConfigProblem(f"{path}: setting '{key}' is an empty list")
            value = ",".join(value)  # what the command line's text would be
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
    """What the command line's options check (least values, finite numbers), lists of
    strings, and that a safety bound is neither lifted nor widened."""
    if isinstance(value, list) and not all(isinstance(item, str) for item in value):
        raise ConfigProblem(f"{path}: setting '{key}' must be a list of strings")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigProblem(f"{path}: setting '{key}' must be a finite number")
    if setting.least is not None and value < setting.least:
        raise ConfigProblem(
            f"{path}: setting '{key}' must be at least {setting.least:g}, not {value}"
        )
    if setting.unbounded is not None and value == setting.unbounded:
        raise ConfigProblem(
            f"{path}: setting '{key}' = {_number(value)} lifts a safety bound, which a "
            f"configuration file cannot do: give {setting.flag} {_number(value)} on the "
            "command line"
        )
    if setting.most is not None and value > setting.most:
        raise ConfigProblem(
            f"{path}: setting '{key}' = {_number(value)} is above {_number(setting.most)}, the "
            "default and the most a configuration file may set for this safety bound: give "
            f"{setting.flag} on the command line"
        )


def _number(value: float) -> str:
    """``67,108,864`` for a whole number, ``0.5`` for a fraction."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"
