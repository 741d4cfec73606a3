"""The progress line: drawn only where asked, and never in the way of the calls."""

from __future__ import annotations

import io

import pytest

from auditor.aggregate import progress
from auditor.aggregate.progress import Progress


def test_items_pass_through_unchanged_without_a_terminal() -> None:
    shown = Progress(100, None)
    assert list(shown.wrap(iter(range(10_000)), lambda: 50)) == list(range(10_000))


def test_the_line_counts_calls_and_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 10.0, 10.0, 20.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    stream = io.StringIO()
    shown = Progress(1000, stream)  # started at t=0
    shown.update(5000, 250)  # t=10: a quarter of the bytes in 10 s
    assert stream.getvalue() == "\r5,000 calls read, 500 calls/s, about 30 s left   "
    shown.done()
    assert stream.getvalue().endswith("\r\033[K")


class _Stderr(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize(
    ("terminal", "quiet", "drawn"),
    [(True, False, True), (True, True, False), (False, False, False)],
)
def test_quiet_and_pipes_show_nothing(
    monkeypatch: pytest.MonkeyPatch, terminal: bool, quiet: bool, drawn: bool
) -> None:
    stderr = _Stderr(terminal)
    monkeypatch.setattr(progress.sys, "stderr", stderr)
    clock = iter([0.0])  # started at t=0, read again at t=100
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock, 100.0))
    shown = Progress.for_terminal(10, quiet=quiet)
    assert list(shown.wrap(iter(range(progress._CHECK)), lambda: 5)) == list(range(progress._CHECK))
    assert stderr.getvalue() == (
        "\r2,048 calls read, 20 calls/s, about 100 s left   \r\033[K" if drawn else ""
    )


def test_the_line_counts_the_calls_the_reader_counted_aside(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Repeats of accepted payloads never leave the reader; the line still counts them."""
    monkeypatch.setattr(progress.time, "monotonic", lambda: 100.0)  # always time to redraw
    stream = io.StringIO()
    shown = Progress(0, stream)
    passed = list(shown.wrap(iter(range(progress._CHECK)), lambda: 0, lambda: 20_480))
    assert passed == list(range(progress._CHECK))
    assert f"\r{progress._CHECK + 20_480:,} calls read" in stream.getvalue()
