"""The call-log formats by name, apart from their readers: ``--help`` lists them without
importing the readers (and orjson)."""

from __future__ import annotations

from enum import Enum


class LogFormat(str, Enum):
    """The call-log formats ``auditor`` reads, in the order detection tries them."""

    OTEL = "otel"
    MCP = "mcp"
    OPENAI_RESPONSES = "openai-responses"
    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    """Chat Completions requests and/or responses."""
    GEMINI = "gemini"
    """``generateContent`` requests and/or responses."""
    JSONL = "jsonl"
    """One call per line: ``{"tool": ..., "arguments": ...}``."""
