"""Providers: the outside models memdir can use, each behind one small interface.

``LLM`` (``llm.py``) is the chat interface; ``OpenAIChat`` and ``AnthropicMessages`` implement it
over HTTP (``endpoint.py`` holds the shared timeout/retry policy), and ``get_llm`` builds the one
the user configured. ``Embedder`` (``embeddings.py``) turns text into vectors for recall.
"""

from .anthropic import AnthropicMessages
from .embeddings import Embedder, HashingEmbedder, get_embedder
from .endpoint import Endpoint, RejectedRequest
from .factory import get_llm, llm_configured
from .llm import ARGUMENTS_ERROR, LLM, RAW_ARGUMENTS, LLMResponse, StreamEvent, ToolCall
from .openai import OpenAIChat

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
]
