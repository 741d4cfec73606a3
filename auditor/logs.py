"""Call logs -> a lazy stream of Call records, each with its ``path:line``.

Nothing is dropped: a blank line is counted as blank, every other line becomes a call, and a
line that does not give a usable call becomes one with an ``Unparsed`` reason.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final, cast

from auditor.models import JSON, Call, LogStats, Unparsed

LOG_SUFFIXES: Final = (".jsonl", ".ndjson", ".json", ".log", ".gz")
TOOL_KEYS: Final = ("tool", "name")
ARGUMENT_KEYS: Final = ("arguments", "args", "input")
MAX_RAW: Final = 500
"""Characters of an unparseable line kept for the report."""


@dataclass(frozen=True)
class LogProblem:
    """Why a log input cannot be used; ``str()`` is the one-line message for the user."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def log_files(path: str) -> list[str]:
    """``path`` itself, or the log files below a directory in a stable order."""
    root = Path(path)
    if root.is_dir():
        return [
            str(p)
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.name.lower().endswith(LOG_SUFFIXES)
        ]
    return [path]


def check_logs(paths: Sequence[str]) -> tuple[list[str], list[LogProblem]]:
    """Every log file to read, and the inputs that cannot be read at all."""
    files: list[str] = []
    problems: list[LogProblem] = []
    for path in paths:
        found = log_files(path)
        if not found:
            problems.append(LogProblem(path, "no log files (.jsonl, .ndjson, .json, .log, .gz)"))
        for file in found:
            try:
                with _open(file):
                    pass
            except FileNotFoundError:
                problems.append(LogProblem(file, "no such file"))
            except OSError as error:
                problems.append(LogProblem(file, f"cannot read: {error.strerror or error}"))
            else:
                files.append(file)
    return files, problems


class LogReader:
    """Iterates the calls of several log files in order, counting every line."""

    def __init__(self, files: Sequence[str]) -> None:
        self._files = tuple(files)
        self._stats = {file: _Counts() for file in self._files}

    def __iter__(self) -> Iterator[Call]:
        for file in self._files:
            yield from self._read(file)

    def stats(self) -> tuple[LogStats, ...]:
        """How each file's lines were accounted for (complete once iteration has ended)."""
        return tuple(
            LogStats(file, counts.lines, counts.blank, counts.calls)
            for file, counts in self._stats.items()
        )

    def _read(self, file: str) -> Iterator[Call]:
        counts = self._stats[file]
        with _open(file) as stream:
            for number, raw in enumerate(stream, start=1):
                counts.lines += 1
                line = raw[3:] if number == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
                if not line.strip():
                    counts.blank += 1
                    continue
                counts.calls += 1
                yield parse_line(line.rstrip(b"\r\n"), f"{file}:{number}")


@dataclass
class _Counts:
    lines: int = 0
    blank: int = 0
    calls: int = 0


def _open(file: str) -> IO[bytes]:
    if file.lower().endswith(".gz"):
        return cast(IO[bytes], gzip.open(file, "rb"))
    return open(file, "rb")


def parse_line(raw: bytes, source: str) -> Call:
    """One log line -> one call; anything unusable is kept as ``Unparsed`` with the reason."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return _unparsed(
            source, None, raw.decode("utf-8", "replace"), f"not UTF-8 ({error.reason})"
        )
    record, problem = _loads(text)
    if problem is not None:
        return _unparsed(source, None, text, f"not JSON: {problem}")
    if not isinstance(record, dict):
        return _unparsed(source, None, text, "not a JSON object")
    tool = next((record[k] for k in TOOL_KEYS if isinstance(record.get(k), str)), None)
    if tool is None:
        return _unparsed(source, None, text, "names no tool (no string 'tool' or 'name')")
    key = next((k for k in ARGUMENT_KEYS if k in record), None)
    if key is None:
        return _unparsed(source, tool, text, "has no 'arguments'")
    arguments = record[key]
    if isinstance(arguments, str):
        decoded, problem = _loads(arguments)
        if problem is not None:
            return _unparsed(source, tool, arguments, f"arguments are not valid JSON: {problem}")
        arguments = decoded
    return Call(source, tool, arguments)


def _unparsed(source: str, tool: str | None, raw: str, reason: str) -> Call:
    clipped = raw if len(raw) <= MAX_RAW else raw[: MAX_RAW - 1] + "…"
    return Call(source, tool, None, Unparsed(clipped, reason))


def _reject_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


def _loads(text: str) -> tuple[JSON, str | None]:
    """Strict JSON: ``NaN`` and ``Infinity`` are refused, as JSON itself refuses them."""
    try:
        return json.loads(text, parse_constant=_reject_constant), None
    except json.JSONDecodeError as error:
        return None, f"{error.msg} at column {error.colno}"
    except ValueError as error:
        return None, str(error)
    except RecursionError:
        return None, "nested too deeply"
