"""ajv-formats' long patterns are compiled on their first check, not when the module is
imported (most audits check no format), and a check compiled late answers as before."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

from auditor.replay import formats
from tests.conftest import ROOT


def _compiled(test: Callable[[str], bool]) -> object:
    """The pattern a ``formats._whole`` test holds: None until its first check."""
    cell = test.__closure__[test.__code__.co_freevars.index("compiled")]  # type: ignore[index]
    return cell.cell_contents


def test_a_whole_string_test_compiles_on_its_first_check_and_matches_to_the_very_end() -> None:
    test = formats._whole(r"[a-c]+")
    assert _compiled(test) is None
    # JavaScript's /^[a-c]+$/: the whole string, a final newline included, must match.
    assert test("abc")
    assert _compiled(test) is not None
    assert not test("abc\n")
    assert not test("abcd")
    assert not test("")


def test_the_flags_given_are_the_compiled_patterns() -> None:
    caseless = formats._whole("[a-c]+", formats._I)
    assert caseless("ABC")
    assert not formats._whole("[a-c]+")("ABC")


def test_the_ajv_checks_answer_after_a_late_compile() -> None:
    # Expected answers from ajv-formats' definitions (full mode), not from running them.
    uri, email = formats.AJV_FORMATS["uri"], formats.AJV_FORMATS["email"]
    assert uri("https://example.com/a?b=1#c") and not uri("no scheme here")
    assert email("someone@example.com") and not email("someone@")
    ipv6 = formats.AJV_FORMATS["ipv6"]
    assert ipv6("::1") and not ipv6("::1\n") and not ipv6("1:2:3")


_PROBE = """
from auditor.replay import formats
tests = [value for name, value in vars(formats).items()
         if callable(value) and getattr(value, "__name__", "") == "test"]
cells = [t.__closure__[t.__code__.co_freevars.index("compiled")].cell_contents for t in tests]
print(len(tests), sum(cell is not None for cell in cells))
"""


def test_importing_the_formats_compiles_none_of_the_long_patterns() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=True,
    )
    held, compiled = (int(word) for word in done.stdout.split())
    assert held >= 10  # uri-reference, url, email, hostname, ipv4, ipv6, uuid, pointers...
    assert compiled == 0
