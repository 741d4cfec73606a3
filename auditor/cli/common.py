"""What every command shares: exit codes, the one-line failure, atomic writes."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from auditor.output import write_atomic

EXIT_OK: Final = 0
EXIT_FOUND: Final = 1
"""Something was found: a newly rejected call, a finding, a file that would change."""
EXIT_UNUSABLE: Final = 2


class UsageFailure(Exception):
    """An input or output that cannot be used; the message names it in one line."""


def write_text(path: Path, text: str) -> None:
    """Write a report atomically, turning an OS error into a UsageFailure naming the path."""
    try:
        write_atomic(path, text)
    except OSError as error:
        raise UsageFailure(f"{path}: cannot write: {error.strerror or error}") from error
