"""What a profile's model raises where the SDK function it follows raises: a refusal."""

from __future__ import annotations


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
        return f"{package} refuses the schema: {' '.join(self.message.split())}{where}"
