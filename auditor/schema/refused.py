"""What a profile's model raises where the SDK function it follows raises: a refusal."""

from __future__ import annotations

import re
from typing import Final

MAX_REASON: Final = 240
"""Characters of a refusal's reason a report shows: the reason, not the schema it may quote."""


def one_line(text: str) -> str:
    """``text`` on one printable line of at most ``MAX_REASON`` characters: how a refusal's
    reason is shown, whether the SDK's own run or a profile's model found it."""
    text = re.sub(r"\s+", " ", "".join(c if c.isprintable() else " " for c in text)).strip()
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


class Refused(Exception):
    """The SDK's function raises on this schema: no request is sent with it."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        """Where in the schema, as the SDK's own error names it (``properties.a.$schema``)."""

    def reason(self, package: str) -> str:
        """One line for the report: ``google-genai refuses the schema: ... (where)``."""
        where = f" ({self.where})" if self.where else ""
        return f"{package} refuses the schema: {one_line(self.message + where)}"
