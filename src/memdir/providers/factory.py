"""Build the configured LLM: ``get_llm()`` turns the user's settings into a provider.

The settings (``memdir.settings``: ``$MEMDIR_HOME/config.yaml`` under ``MEMDIR_LLM_*``
variables) say which wire format, where and which model; this is the one place that maps them to
a class, so the CLI, the extractor and the agent loop all get the same model. Callers that can
work without a model (offline extraction, deterministic compaction) ask ``llm_configured()``
first; everything else calls ``get_llm()`` and lets its ``ProviderError`` tell the person what to
set.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import ProviderError
from ..registry import Registry
from ..settings import DEFAULT_BASE_URLS, LLMSettings, add_provider, env_var, load_settings
from .llm import LLM

__all__ = ["LLM_PROVIDERS", "get_llm", "llm_configured", "register_llm_provider"]

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
    settings = settings or load_settings(home)
    if not settings.configured or settings.model is None:
        raise _not_configured(settings)
    return LLM_PROVIDERS.get(settings.provider)(settings)


def _openai(settings: LLMSettings) -> LLM:
    from .openai import OpenAIChat  # httpx: only when a model is called for

    assert settings.model is not None
    return OpenAIChat(
        settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
    )


def _anthropic(settings: LLMSettings) -> LLM:
    from .anthropic import AnthropicMessages

    assert settings.model is not None
    return AnthropicMessages(
        settings.model,
        api_key=settings.api_key,
        base_url=settings.base_url,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
    )


# the wire formats by ``llm.provider``; the built-ins register through the same door as a plugin
LLM_PROVIDERS: Registry[Callable[[LLMSettings], LLM]] = Registry(
    "LLM provider", "memdir config set llm.provider NAME", first="openai", article="an"
)


def register_llm_provider(
    name: str, factory: Callable[[LLMSettings], LLM], *, default_base_url: str
) -> None:
    """Make ``llm.provider: name`` build ``factory(settings)``; ``default_base_url`` is where it
    sends requests when ``llm.base_url`` is not set."""
    LLM_PROVIDERS.register(name, factory)
    add_provider(name, default_base_url)


register_llm_provider("openai", _openai, default_base_url=DEFAULT_BASE_URLS["openai"])
register_llm_provider("anthropic", _anthropic, default_base_url=DEFAULT_BASE_URLS["anthropic"])
