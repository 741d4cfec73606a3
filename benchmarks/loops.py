"""What an audit is measured against: the loops a user would write instead, and the parse floor.

- ``parse_floor``: read every line and ``orjson.loads`` it and its arguments text — what any
  audit of a JSON Lines log pays;
- ``jsonschema_rs_loop``: that parse, then the old and the new verdict of every call with
  jsonschema-rs validators compiled once per tool (verdicts only: no errors, causes or groups);
- ``python_jsonschema_loop``: the same with python-jsonschema validators built once per tool,
  listing every error (``iter_errors``), as a report of what broke needs — ``is_valid`` stops
  at the first error and says nothing about it, so it would flatter the loop;
- ``naive_loop``: ``jsonschema.validate`` per call and side, as tutorials show it.

The old schema is read as the lenient runtime reads it (``auditor.schema.lenient``: what a
runtime that never checked its schemas enforced), the new one is auditor's normalization of
it (``auditor.schema.normalize``): the two sides the audit compares. Each loop returns the CPU
seconds of this process (``time.process_time``: what to compare on a shared machine) and the
wall seconds; building the two schemas of every tool is left out (the audit does it too, and
it is not what the loops are about), compiling the validators is in.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import orjson
from jsonschema import validators


@dataclass(frozen=True)
class Timing:
    """One loop over (a prefix of) a log."""

    cpu: float
    wall: float
    lines: int
    rejected: int = 0
    """Calls the old or the new side rejects (the loops that give verdicts)."""

    def per_line_us(self) -> float:
        return self.cpu / self.lines * 1e6 if self.lines else 0.0


@contextlib.contextmanager
def _clock() -> Iterator[list[float]]:
    """Yields a list that holds (cpu, wall) seconds once the block ends."""
    spent: list[float] = []
    cpu, wall = time.process_time(), time.perf_counter()
    yield spent
    spent += [time.process_time() - cpu, time.perf_counter() - wall]


def log_lines(log: Path, limit: int | None = None) -> Iterator[bytes]:
    """The lines of a JSON Lines log: a file, a gzip file, or a folder of ``*.jsonl`` files
    read in name order."""
    if log.is_dir():
        lines: Iterator[bytes] = itertools.chain.from_iterable(
            _file_lines(path) for path in sorted(log.glob("*.jsonl"))
        )
    else:
        lines = _file_lines(log)
    return itertools.islice(lines, limit)


def _file_lines(path: Path) -> Iterator[bytes]:
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as stream:
        yield from stream


def tool_schemas(catalog: Path) -> dict[str, tuple[Any, Any]]:
    """The old (as the lenient runtime reads it) and the new (normalized) schema of every
    tool of a ``{"tools": [{"name", "inputSchema"}]}`` catalog."""
    from auditor.schema.keywords import draft_of
    from auditor.schema.lenient import read_leniently
    from auditor.schema.normalize import normalize

    out = {}
    for tool in json.loads(catalog.read_text(encoding="utf-8"))["tools"]:
        schema = tool["inputSchema"]
        meta_class = validators.validator_for(schema, default=validators.Draft202012Validator)
        old, _ = read_leniently(schema, draft_of(schema), meta_class(meta_class.META_SCHEMA))
        out[tool["name"]] = (old, normalize(schema).schema)
    return out


def _call(line: bytes) -> tuple[Any, Any] | None:
    """(tool name, decoded arguments) of a log line, None for a line that is not one."""
    try:
        record = orjson.loads(line)
        return record["tool"], orjson.loads(record["arguments"])
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return None


def parse_floor(log: Path, limit: int | None = None) -> Timing:
    """Read every line and parse it and its arguments text with orjson."""
    lines = 0
    with _clock() as spent:
        for line in log_lines(log, limit):
            lines += 1
            _call(line)
    return Timing(*spent, lines)


def jsonschema_rs_loop(
    log: Path, schemas: dict[str, tuple[Any, Any]], limit: int | None = None
) -> Timing:
    """orjson parse, then the old and the new verdict of every call by jsonschema-rs."""
    lines = rejected = 0
    with _clock() as spent:
        compiled = {
            name: (jsonschema_rs.validator_for(old), jsonschema_rs.validator_for(new))
            for name, (old, new) in schemas.items()
        }
        for line in log_lines(log, limit):
            lines += 1
            call = _call(line)
            if call is None or call[0] not in compiled:
                continue
            old, new = compiled[call[0]]
            rejected += not (old.is_valid(call[1]) & new.is_valid(call[1]))
    return Timing(*spent, lines, rejected)


def python_jsonschema_loop(
    log: Path, schemas: dict[str, tuple[Any, Any]], limit: int | None = None
) -> Timing:
    """orjson parse, then every error of the old and the new side by python-jsonschema
    validators built once per tool."""
    lines = rejected = 0
    with _clock() as spent:
        compiled = {
            name: tuple(
                validators.validator_for(s, default=validators.Draft202012Validator)(s)
                for s in (old, new)
            )
            for name, (old, new) in schemas.items()
        }
        for line in log_lines(log, limit):
            lines += 1
            call = _call(line)
            if call is None or call[0] not in compiled:
                continue
            errors = [list(validator.iter_errors(call[1])) for validator in compiled[call[0]]]
            rejected += any(errors)
    return Timing(*spent, lines, rejected)


def naive_loop(log: Path, schemas: dict[str, tuple[Any, Any]], limit: int) -> Timing:
    """``json.loads`` and ``jsonschema.validate`` per call and side (the schema checked and
    the validator built again every time)."""
    lines = rejected = 0
    with _clock() as spent:
        for line in log_lines(log, limit):
            lines += 1
            try:
                record = json.loads(line)
                arguments = json.loads(record["arguments"])
                sides = schemas[record["tool"]]
            except (ValueError, KeyError, TypeError):
                continue
            valid = True
            for schema in sides:
                try:
                    jsonschema.validate(arguments, schema)
                except jsonschema.ValidationError:
                    valid = False
            rejected += not valid
    return Timing(*spent, lines, rejected)
