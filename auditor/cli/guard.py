"""The last line of defence around a command: signals and failing standard streams.

An interrupted run (Ctrl-C, SIGINT; ``kill``, SIGTERM) stops where it is, says so in one line
on stderr and exits 128 + the signal number (130, 143), as shells report a killed process.
Reports are written through a temporary file and a rename (``auditor.cli.output``), and the
temporary file is removed when the interruption lands mid-write, so a report file is either
the previous one or a complete new one, never a truncated one.

Click would turn Ctrl-C into "Aborted!" and exit 1, which ``audit`` uses for "something is
newly rejected"; the signal handlers here raise ``Interrupted`` instead, a BaseException
that neither click nor typer catches, and ``run`` turns it into the exit code.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import Final, NoReturn

from auditor.cli.common import EXIT_UNUSABLE

SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """A signal asked the run to stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, frame: FrameType | None) -> NoReturn:
    raise Interrupted(signum)


def run(command: Callable[[], object]) -> int:
    """Run ``command`` (a click app in standalone mode, which exits) under the handlers;
    return the exit code."""
    previous = {signum: signal.signal(signum, _interrupt) for signum in SIGNALS}
    try:
        command()
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except Interrupted as interruption:
        name = signal.Signals(interruption.signum).name
        _say(f"auditor: interrupted by {name}: the run did not finish and wrote no partial report")
        return 128 + interruption.signum
    except OSError as error:  # stdout or stderr gone: a full disk, a closed pipe
        _say(f"auditor: error: cannot write: {error.strerror or error}")
        return EXIT_UNUSABLE
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


def _say(line: str) -> None:
    with contextlib.suppress(OSError):  # nowhere left to say it; the exit code still does
        print(line, file=sys.stderr, flush=True)
