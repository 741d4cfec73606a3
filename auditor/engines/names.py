"""The engines by name, apart from the engines themselves: ``--help`` lists them without
importing the validation stack."""

from __future__ import annotations

import enum


class Engine(str, enum.Enum):
    """Where the parts of the logs are audited; every engine gives the same report."""

    LOCAL = "local"
    """Worker processes on this machine (``--jobs``): the default, with no extra."""
    SPARK = "spark"
    RAY = "ray"
