"""LLMs: the one interface memdir talks to a chat model through.

``LLM.complete(messages, ...)`` sends a conversation and returns one ``LLMResponse``. Messages are
plain dicts in a provider-neutral shape — ``{"role": "user" | "assistant", "content": str}`` — and
each provider translates them to its own wire format (OpenAI chat completions, Anthropic
messages). ``json_schema`` asks for output that matches a JSON schema: providers that support
structured output send it on the wire (``response_format`` / a forced tool), others put it in the
prompt, and the caller still parses tolerantly. Concrete providers live beside this module; tests
use a real subclass with scripted answers, never a mock.

Failures are ``ProviderError`` with a message that says what to fix (which setting, which URL).

Tool calls whose arguments did not decode (a small model writes broken JSON) are not errors: the
call's ``arguments`` are ``{RAW_ARGUMENTS: "<the text>", ARGUMENTS_ERROR: "<why>"}``, so the agent
loop can hand the reason back to the model instead of crashing.

**Streaming.** ``LLM.stream(...)`` takes ``complete``'s arguments except ``json_schema`` (a
structured answer is parsed whole, so it is never streamed) and yields ``StreamEvent``s as the
answer arrives: ``text`` fragments in order, a ``tool_call`` event when a call's name is known
(its arguments are still arriving), and exactly one ``done`` event last, carrying the whole
``LLMResponse`` — the same one ``complete`` would have returned, so a caller can stream to a
person and still store the complete message. The base class falls back to ``complete`` (one
``text`` event, then ``done``), so a provider without a streaming wire still streams; OpenAI and
Anthropic parse their server-sent events (``openai.py``, ``anthropic.py``).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "ARGUMENTS_ERROR",
    "LLM",
    "RAW_ARGUMENTS",
    "LLMResponse",
    "StreamEvent",
    "ToolCall",
    "schema_instruction",
]

RAW_ARGUMENTS = "_raw_arguments"
ARGUMENTS_ERROR = "_arguments_error"


def schema_instruction(json_schema: Mapping[str, Any]) -> str:
    """The prompt text that asks for ``json_schema`` where the wire cannot enforce it."""
    schema = json.dumps(json_schema, ensure_ascii=False, sort_keys=True)
    return (
        "Answer with one JSON object and nothing else (no prose, no code fence). "
        f"It must match this JSON schema: {schema}"
    )


@dataclass(frozen=True)
class ToolCall:
    """A tool the model asked to call: provider id, tool name, decoded arguments."""

    id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class LLMResponse:
    """One model answer: its text, any tool calls, why it stopped, and the raw wire body."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamEvent:
    """One piece of a streamed answer.

    ``kind`` is ``text`` (``text`` is the next fragment), ``tool_call`` (``tool_call`` names a
    call the model started; its ``arguments`` are empty until ``done``) or ``done`` (``response``
    is the whole answer; always the last event)."""

    kind: Literal["text", "tool_call", "done"]
    text: str = ""
    tool_call: ToolCall | None = None
    response: LLMResponse | None = None


class LLM(ABC):
    """A chat model endpoint. ``model_id`` names it in logs and in extraction records;
    ``wire_format`` is the message shape its tool calls take (``openai`` or ``anthropic``), which
    is the shape an agent loop stores and asks ``Memory.context`` for."""

    model_id: str
    wire_format: Literal["openai", "anthropic"] = "openai"

    @abstractmethod
    def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        system: str | None = None,
        json_schema: Mapping[str, Any] | None = None,
        schema_name: str = "output",
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> LLMResponse:
        """Send ``messages`` (after ``system``) and return the model's answer."""

    def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        system: str | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> Iterator[StreamEvent]:
        """Send ``messages`` and yield the answer as it arrives (see the module docstring).
        This default calls ``complete`` and yields its text in one piece."""
        response = self.complete(
            messages, system=system, tools=tools, max_tokens=max_tokens, temperature=temperature
        )
        if response.text:
            yield StreamEvent("text", text=response.text)
        for call in response.tool_calls:
            yield StreamEvent("tool_call", tool_call=call)
        yield StreamEvent("done", response=response)
