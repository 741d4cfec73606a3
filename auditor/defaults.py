"""Default values of ``audit`` options that belong to heavy stages (replay, aggregation).

They live here, in a module that imports nothing, so that the command line can show them in
``--help`` without importing the validation stack; the stages re-export them under their old
names.
"""

from __future__ import annotations

from typing import Final

DEFAULT_EXAMPLES: Final = 3
"""Example calls kept per group (``--examples``)."""
DEFAULT_MAX_CALLS: Final = 10_000
"""Changed calls listed one by one (``--max-calls``)."""
DEFAULT_CALL_TIMEOUT: Final = 2.0
"""Seconds one call may take to evaluate (``--call-timeout``)."""
