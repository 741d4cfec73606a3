"""Where auditor is published: its home, its distribution name, and links into its README.

Reports link here (SARIF ``informationUri`` and each rule's ``helpUri``); the import package
and the command are ``auditor``, the distribution on the package index is ``DISTRIBUTION``.
"""

from __future__ import annotations

from typing import Final

HOME: Final = "https://github.com/tool-schema-auditor/auditor"
"""The project's published home."""
DISTRIBUTION: Final = "tool-schema-auditor"
"""The name ``pip install`` and ``pipx install`` take."""
README: Final = f"{HOME}/blob/main/README.md"


def readme_anchor(name: str) -> str:
    """The address of anchor ``name`` (an ``id`` in README.md, or a heading's slug)."""
    return f"{README}#{name}"
