"""Which columns of a Parquet or Arrow log hold the calls (``--tool-column``,
``--arguments-column``), apart from the reading: the command line builds it before anything
heavy is imported."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Columns:
    """The columns a columnar log's calls are read from; None: found by name."""

    tool: str | None = None
    arguments: str | None = None
