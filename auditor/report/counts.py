"""Counts in sentences: moved to ``auditor.words``, where the aggregation stage uses them too.

Kept so that ``auditor.cli.normalize`` (being rewritten) still finds ``plural`` here; new code
imports ``auditor.words``.
"""

from __future__ import annotations

from auditor.words import agree, plural

__all__ = ["agree", "plural"]
