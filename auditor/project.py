"""Where auditor is published: its home, its distribution name, and links into its docs.

Reports link here (SARIF ``informationUri`` and each rule's ``helpUri``); the import package
and the command are ``auditor``, the distribution on the package index is ``DISTRIBUTION``.
"""

from __future__ import annotations

from typing import Final

HOME: Final = "https://github.com/tool-schema-auditor/auditor"
"""The project's published home."""
DISTRIBUTION: Final = "tool-schema-auditor"
"""The name ``pip install`` and ``pipx install`` take."""
RULES_PAGE: Final = f"{HOME}/blob/main/docs/rules.md"
"""The page that documents every code (generated from ``auditor.report.rules``)."""


def rules_anchor(name: str) -> str:
    """The address of anchor ``name`` (an ``id`` in docs/rules.md)."""
    return f"{RULES_PAGE}#{name}"
