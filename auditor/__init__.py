"""auditor: replay logged tool-call arguments against normalized tool schemas."""

__version__ = "0.1.0"
