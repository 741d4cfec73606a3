"""The catalog formats, apart from the reading (which needs YAML): ``--help`` lists them."""

from __future__ import annotations

from enum import Enum


class CatalogFormat(str, Enum):
    """The catalog shapes ``auditor`` reads, in the order detection tries them."""

    OPENAI = "openai"
    """Chat Completions tools: ``[{"type": "function", "function": {...}}]``."""
    OPENAI_RESPONSES = "openai-responses"
    """Responses API tools: ``[{"type": "function", "name": ..., "parameters": ...}]``."""
    ANTHROPIC = "anthropic"
    MCP = "mcp"
    GEMINI = "gemini"
    OTEL = "otel"
    """An OTLP JSON export: the ``gen_ai.tool.definitions`` / ``llm.tools`` its spans carry."""
    SCHEMA = "schema"
    """One JSON Schema; the tool is named after the file."""
    MAPPING = "mapping"
