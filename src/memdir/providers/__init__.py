"""Providers: the outside models memdir can use, each behind one small interface.

``LLM`` (``llm.py``) is the chat interface; ``OpenAIChat`` and ``AnthropicMessages`` implement it
over HTTP (``endpoint.py`` holds the shared timeout/retry policy), and ``get_llm`` builds the one
the user configured. ``Embedder`` (``embeddings.py``) turns text into vectors for recall.
"""

import typing as _typing

from ..lazy import exports as _exports

if _typing.TYPE_CHECKING:
    from .anthropic import AnthropicMessages
    from .embeddings import Embedder, HashingEmbedder, get_embedder, register_embedder
    from .endpoint import Endpoint, RejectedRequest
    from .factory import get_llm, llm_configured, register_llm_provider
    from .llm import ARGUMENTS_ERROR, LLM, RAW_ARGUMENTS, LLMResponse, StreamEvent, ToolCall
    from .openai import OpenAIChat

# Where each name lives, imported on first use (PEP 562): recall needs ``embeddings`` only,
# not the HTTP clients (httpx) of the LLM providers.
_HOME = {
    "AnthropicMessages": "anthropic",
    "Embedder": "embeddings",
    "HashingEmbedder": "embeddings",
    "get_embedder": "embeddings",
    "register_embedder": "embeddings",
    "Endpoint": "endpoint",
    "RejectedRequest": "endpoint",
    "get_llm": "factory",
    "llm_configured": "factory",
    "register_llm_provider": "factory",
    "OpenAIChat": "openai",
}


__all__ = [
    "ARGUMENTS_ERROR",
    "LLM",
    "RAW_ARGUMENTS",
    "AnthropicMessages",
    "Embedder",
    "Endpoint",
    "HashingEmbedder",
    "LLMResponse",
    "OpenAIChat",
    "RejectedRequest",
    "StreamEvent",
    "ToolCall",
    "get_embedder",
    "get_llm",
    "llm_configured",
    "register_embedder",
    "register_llm_provider",
]

__getattr__ = _exports(__name__, __all__, _HOME, "llm")
