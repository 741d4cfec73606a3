"""One error model: what stops a run, with its exit code and a one-line message.

Every failure a user can act on derives from ``AuditorError``: its ``str()`` is the message
(naming the file, the option or the setting), ``exit_code`` what the process exits with, and
``kind`` the word after ``auditor:`` on stderr. The command line handles them in one place
(``auditor.cli.guard``); anything else that escapes is an internal failure (exit 3), never
mistaken for a result (exit 1).
"""

from __future__ import annotations

from typing import ClassVar, Final

EXIT_OK: Final = 0
"""Nothing fails: no call newly rejected under ``--fail-on``, no finding, nothing to change."""
EXIT_FOUND: Final = 1
"""Something was found: a newly rejected call, a finding, a file that would change."""
EXIT_UNUSABLE: Final = 2
"""An input or output cannot be used (a missing file, a bad option, config or baseline)."""
EXIT_INTERNAL: Final = 3
"""auditor itself failed (a bug, a lost worker process): no report was written."""
EXIT_SIGINT: Final = 130
"""Interrupted by Ctrl-C (128 + SIGINT)."""
EXIT_SIGTERM: Final = 143
"""Stopped by ``kill`` (128 + SIGTERM)."""

EXIT_CODES: Final[dict[int, str]] = {
    EXIT_OK: "nothing fails (under audit's --fail-on)",
    EXIT_FOUND: "something was found: a call newly rejected, a finding, a file that would change",
    EXIT_UNUSABLE: "an input (logs holding no call too), option, config file or output cannot "
    "be used (one line says which)",
    EXIT_INTERNAL: "internal failure: auditor itself failed and wrote no report, please report it",
    EXIT_SIGINT: "interrupted (SIGINT, Ctrl-C)",
    EXIT_SIGTERM: "stopped (SIGTERM)",
}
"""Every exit code, for ``--help``, the README and docs/audit.md (a test keeps them in step)."""

REPORT_REQUEST: Final = "please report it with the command you ran and 'auditor --version'"
"""What an internal error asks of the user. The project publishes no issue tracker address,
so the line names what a report needs instead of a link that leads nowhere."""


class AuditorError(Exception):
    """A failure that stops the run; ``str()`` is its one-line message.

    Subclass it per stage (the way pip-audit's ``DependencySourceError`` is meant to be):
    ``exit_code`` and ``kind`` are class attributes, overridden where they differ.
    """

    exit_code: ClassVar[int] = EXIT_UNUSABLE
    kind: ClassVar[str] = "error"

    def line(self) -> str:
        """What stderr says, without the ``auditor: `` prefix (the caller makes it one line)."""
        return f"{self.kind}: {self}"
