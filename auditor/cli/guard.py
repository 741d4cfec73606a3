"""The last line of defence around a command: the one place failures become exit codes.

- An ``AuditorError`` (``auditor.errors``: a usage, config, baseline or input problem, a lost
  worker) prints ``auditor: <kind>: <message>`` in one line and exits with its code.
- Any other exception is a bug: one line, ``auditor: internal error: <type>: <message>; please
  report it ...``, and exit 3, never 1 (which CI reads as "calls would be newly rejected").
  No traceback unless ``AUDITOR_DEBUG=1``, and even then without local variables: a frame's
  locals hold logged arguments, which ``--redact`` promises not to show.

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
import os
import signal
import sys
import traceback
from collections.abc import Callable
from types import FrameType
from typing import Final, NoReturn

from auditor.errors import EXIT_INTERNAL, EXIT_UNUSABLE, REPORT_REQUEST, AuditorError
from auditor.report.escape import one_line

SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)
DEBUG_VARIABLE: Final = "AUDITOR_DEBUG"
"""Set to 1 to print the traceback of an internal error (never with local variables)."""
MAX_MESSAGE: Final = 200
"""Characters of an unexpected exception's message shown, at most."""


class Interrupted(BaseException):
    """A signal asked the run to stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, frame: FrameType | None) -> NoReturn:
    raise Interrupted(signum)


def run(command: Callable[[], object]) -> int:
    """Run ``command`` (a click app, standalone or not) under the handlers; return the exit
    code. Not standalone, the app returns its exit code and raises click's usage errors,
    which are said here in one line like every other failure."""
    previous = {signum: signal.signal(signum, _interrupt) for signum in SIGNALS}
    try:
        code = command()
        return code if isinstance(code, int) else 0
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except AuditorError as failure:
        _say(f"auditor: {one_line(failure.line())}")
        return failure.exit_code
    except Interrupted as interruption:
        name = signal.Signals(interruption.signum).name
        _say(f"auditor: interrupted by {name}: the run did not finish and wrote no partial report")
        return 128 + interruption.signum
    except OSError as error:  # stdout or stderr gone: a full disk, a closed pipe
        _say(f"auditor: error: cannot write: {error.strerror or error}")
        return EXIT_UNUSABLE
    except Exception as error:
        usage = _usage_error(error)
        if usage is not None:
            if usage[0]:  # no message: the help was shown (``auditor`` alone)
                _say(f"auditor: error: {one_line(usage[0])}")
            return usage[1]
        # Anything else is a bug: say so in one line, never exit 1.
        _say(internal_error_line(error))
        if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
            with contextlib.suppress(OSError):
                # traceback prints no locals (rich's and typer's pretty tracebacks would)
                traceback.print_exception(type(error), error, error.__traceback__)
        return EXIT_INTERNAL
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _usage_error(error: Exception) -> tuple[str, int] | None:
    """Click's message and exit code for its usage errors (an unknown option, a value out of
    range), whichever click typer runs on; None for any other exception."""
    said = getattr(error, "format_message", None)
    code = getattr(error, "exit_code", None)
    if not callable(said) or not isinstance(code, int):
        return None
    context = getattr(error, "ctx", None)
    command = getattr(context, "command_path", None)
    hint = f" (see '{command} --help')" if isinstance(command, str) and command else ""
    message = plain_usage(said())
    return (f"{message}{hint}" if message else ""), code


def plain_usage(message: str) -> str:
    """A usage message in the words of the rest of auditor: typer validates option values
    with pydantic, whose messages leak its own prefixes ("Value error, 'x' is not one of";
    "Input should be greater than or equal to 1")."""
    return message.replace("Value error, ", "").replace("Input should be ", "must be ")


def internal_error_line(error: BaseException) -> str:
    """The one line an unexpected exception gets: its type and the start of its message."""
    said = one_line(str(error))
    said = said if len(said) <= MAX_MESSAGE else said[: MAX_MESSAGE - 1] + "…"
    what = f"{type(error).__name__}: {said}" if said else type(error).__name__
    return f"auditor: internal error: {what}; {REPORT_REQUEST}"


def _say(line: str) -> None:
    with contextlib.suppress(OSError):  # nowhere left to say it; the exit code still does
        print(line, file=sys.stderr, flush=True)
