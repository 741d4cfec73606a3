"""How to call, on one tool's dict schema, the SDK function each upgrade profile follows.

One adapter per profile (``ADAPTERS``, by the profile's rule name): it imports the SDK only
when called (so ``--help`` and an audit without profiles never pay for it), copies the schema
(the SDK functions mutate their argument), calls the function the way the SDK's own request
path does, and returns the schema the API then evaluates, or raises what the SDK raises.

Most SDKs hand the API a JSON Schema, returned as it is. The Gemini SDK paths hand it the
API's OpenAPI ``Schema`` (upper-case type names, ``nullable``, ``defs``/``ref``): what is
returned for them is its JSON Schema reading (``gemini_reading``), the same convention the
built-in models of those profiles write:

- ``type`` lower-cased (``TYPE_UNSPECIFIED`` dropped); ``nullable: true`` beside a ``type``
  makes it ``[type, "null"]``, and alone it is ``type: "null"``, as the SDK's own
  ``Schema.json_schema`` reads it (handle_null_fields writes ``{"type": "null"}`` as a bare
  ``nullable: true``);
  ``nullable: false`` is dropped;
- ``defs`` is ``$defs`` and ``ref`` is ``$ref`` (a ``#/defs/`` prefix read as ``#/$defs/``);
- every other field under its wire (camelCase) name: ``minLength``, ``anyOf``,
  ``additionalProperties`` (its value as given: the SDK does not validate it),
  ``propertyOrdering`` and ``example`` (annotations JSON Schema ignores).
"""

from __future__ import annotations

import copy
import importlib
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Final

from auditor.models import JSON

_TOOL_NAME: Final = "tool"
"""The name a tool is given where the SDK function wants a whole tool: it never shows."""


@dataclass(frozen=True)
class Adapter:
    """How one profile's SDK function is run on a dict schema."""

    package: str
    """The distribution that must be installed (``importlib.metadata`` name)."""
    module: str
    """The module the adapter imports: importable means the SDK can run."""
    call: str
    """What is called, inside ``module``."""
    run: Callable[[dict[str, Any]], Any]
    """The schema the API evaluates after the SDK's transform; raises what the SDK raises."""
    environment: tuple[tuple[str, str], ...] = ()
    """Variables set (unless already set) before the SDK is imported."""

    def load(self) -> None:
        """Import the SDK's module (raises ``ImportError`` when it cannot be)."""
        for name, value in self.environment:
            os.environ.setdefault(name, value)
        with warnings.catch_warnings():  # an SDK's import-time deprecations are not ours
            warnings.simplefilter("ignore")
            importlib.import_module(self.module)

    @property
    def function(self) -> str:
        """The dotted path of what is called, as reports name it."""
        return f"{self.module}.{self.call}"


def gemini_reading(node: Any) -> JSON:
    """The JSON Schema reading of a Gemini API ``Schema`` (a ``types.Schema``, or its wire
    dict): see the module's docstring."""
    if hasattr(node, "model_dump"):
        node = node.model_dump(mode="json", exclude_none=True, by_alias=True)
    if not isinstance(node, dict):
        return node  # type: ignore[no-any-return]
    out: dict[str, JSON] = {}
    for key, value in node.items():
        if key == "type":
            if isinstance(value, str) and value.upper() != "TYPE_UNSPECIFIED":
                out["type"] = value.lower()
        elif key == "nullable":
            continue
        elif key in ("properties", "defs") and isinstance(value, dict):
            out["$defs" if key == "defs" else key] = {
                name: gemini_reading(sub) for name, sub in value.items()
            }
        elif key == "items":
            out[key] = gemini_reading(value)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [gemini_reading(sub) for sub in value]
        elif key == "ref" and isinstance(value, str):
            prefix = "#/defs/"
            out["$ref"] = "#/$defs/" + value[len(prefix) :] if value.startswith(prefix) else value
        else:
            out[key] = value
    kind = out.get("type")
    if node.get("nullable") is True:
        out["type"] = [kind, "null"] if isinstance(kind, str) and kind != "null" else "null"
    return out


def _genai_tool(schema: dict[str, Any]) -> Any:
    from google.genai import types as genai

    declaration = {"name": _TOOL_NAME, "parameters": schema}
    tool = genai.Tool.model_validate({"function_declarations": [declaration]})
    parameters = (tool.function_declarations or [])[0].parameters
    return {} if parameters is None else gemini_reading(parameters)


def _genai_response_schema(schema: dict[str, Any]) -> Any:
    from google.genai import _transformers

    produced = _transformers.t_schema(None, schema)
    return {} if produced is None else gemini_reading(produced)  # None: an empty schema


def _genai_mcp(schema: dict[str, Any]) -> Any:
    from google.genai import _mcp_utils

    # mcp_to_gemini_tool reads the tool's name, description and inputSchema by attribute,
    # as an mcp.types.Tool has them.
    tool = SimpleNamespace(name=_TOOL_NAME, description=None, inputSchema=schema)
    parameters = (_mcp_utils.mcp_to_gemini_tool(tool).function_declarations or [])[0].parameters
    return {} if parameters is None else gemini_reading(parameters)


def _openai_strict(schema: dict[str, Any]) -> Any:
    from openai.lib._pydantic import _ensure_strict_json_schema

    return _ensure_strict_json_schema(schema, path=(), root=schema)


def _openai_agents(schema: dict[str, Any]) -> Any:
    from agents.strict_schema import ensure_strict_json_schema

    return ensure_strict_json_schema(schema)


def _anthropic_strict(schema: dict[str, Any]) -> Any:
    from anthropic.lib._parse._transform import transform_schema

    return transform_schema(schema)


def _langchain_strict(schema: dict[str, Any]) -> Any:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    tool = convert_to_openai_tool({"name": _TOOL_NAME, "parameters": schema}, strict=True)
    return tool["function"]["parameters"]


def _litellm_gemini(schema: dict[str, Any]) -> Any:
    from litellm.llms.vertex_ai.common_utils import _build_vertex_schema

    return gemini_reading(_build_vertex_schema(schema))


def _pydantic_ai_google(schema: dict[str, Any]) -> Any:
    from pydantic_ai.profiles.google import GoogleJsonSchemaTransformer

    return GoogleJsonSchemaTransformer(schema).walk()


_GENAI: Final = "google-genai"

ADAPTERS: Final[dict[str, Adapter]] = {
    "google-genai": Adapter(_GENAI, "google.genai.types", "Tool.model_validate", _genai_tool),
    "google-genai-response-schema": Adapter(
        _GENAI, "google.genai._transformers", "t_schema", _genai_response_schema
    ),
    "google-genai-mcp": Adapter(
        _GENAI, "google.genai._mcp_utils", "mcp_to_gemini_tool", _genai_mcp
    ),
    "openai-strict": Adapter(
        "openai", "openai.lib._pydantic", "_ensure_strict_json_schema", _openai_strict
    ),
    "openai-agents": Adapter(
        "openai-agents", "agents.strict_schema", "ensure_strict_json_schema", _openai_agents
    ),
    "anthropic-strict": Adapter(
        "anthropic", "anthropic.lib._parse._transform", "transform_schema", _anthropic_strict
    ),
    "langchain-strict": Adapter(
        "langchain-core",
        "langchain_core.utils.function_calling",
        "convert_to_openai_tool",
        _langchain_strict,
    ),
    "litellm-gemini": Adapter(
        "litellm",
        "litellm.llms.vertex_ai.common_utils",
        "_build_vertex_schema",
        _litellm_gemini,
        # Importing litellm fetches its model cost map over the network unless told not to.
        (("LITELLM_LOCAL_MODEL_COST_MAP", "True"),),
    ),
    "pydantic-ai-google": Adapter(
        "pydantic-ai-slim",
        "pydantic_ai.profiles.google",
        "GoogleJsonSchemaTransformer",
        _pydantic_ai_google,
    ),
}
"""Every profile that follows an SDK function, by its rule name."""


def call(adapter: Adapter, schema: JSON) -> JSON:
    """What ``adapter``'s SDK makes of ``schema`` (never modified); raises what it raises.
    A schema that is not an object is refused as the SDKs refuse it."""
    if not isinstance(schema, dict):
        raise TypeError(f"the schema is a {type(schema).__name__}, not an object")
    with warnings.catch_warnings():
        # The SDKs warn (pydantic serializer warnings, deprecations) where they do not raise:
        # what they return is the answer, and an audit's warnings filter must not turn it.
        warnings.simplefilter("ignore")
        adapter.load()
        produced: JSON = adapter.run(copy.deepcopy(schema))
    return produced
