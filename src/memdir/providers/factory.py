"""Build the configured LLM: ``get_llm()`` turns the user's settings into a provider.

The settings (``memdir.settings``: ``$MEMDIR_HOME/config.yaml`` under ``MEMDIR_LLM_*``
variables) say which wire format, where and which model; this is the one place that maps them to
a class, so the CLI, the extractor and the agent loop all get the same model. Callers that can
work without a model (offline extraction, deterministic compaction) ask ``llm_configured()``
first; everything else calls ``get_llm()`` and lets its ``ProviderError`` tell the person what to
set.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ProviderError
from ..settings import LLMSettings, env_var, load_settings
from .llm import LLM

__all__ = ["get_llm", "llm_configured"]

OLLAMA_EXAMPLE = "memdir config set llm.base_url http://localhost:11434/v1 llm.model qwen2.5:3b"


def llm_configured(settings: LLMSettings | None = None, *, home: Path | None = None) -> bool:
    """Whether ``get_llm`` would build a model (a model name and somewhere to send it)."""
    return (settings or load_settings(home)).configured


def _not_configured(settings: LLMSettings) -> ProviderError:
    steps = ", ".join(f"{key} (or {env_var(key)})" for key in settings.missing)
    return ProviderError(
        f"no LLM is configured: set {steps}. For a local Ollama: {OLLAMA_EXAMPLE}; for "
        "OpenAI: memdir config set llm.api_key sk-... llm.model gpt-4o-mini; for Anthropic: "
        "memdir config set llm.provider anthropic llm.api_key sk-ant-... llm.model "
        "claude-sonnet-4-5 (docs/llm.md lists more servers)"
    )


def get_llm(settings: LLMSettings | None = None, *, home: Path | None = None) -> LLM:
    """The configured provider; ``ProviderError`` saying what to set when there is none."""
    from .anthropic import AnthropicMessages  # httpx: only when a model is called for
    from .openai import OpenAIChat

    settings = settings or load_settings(home)
    if not settings.configured or settings.model is None:
        raise _not_configured(settings)
    if settings.provider == "anthropic":
        return AnthropicMessages(
            settings.model,
            api_key=settings.api_key,
            base_url=settings.base_url,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        )
    return OpenAIChat(
        settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
    )
