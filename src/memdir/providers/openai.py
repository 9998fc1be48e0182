"""``OpenAIChat``: any OpenAI-compatible ``/chat/completions`` endpoint.

OpenAI itself, Ollama, vLLM, the llama.cpp server, LM Studio, DeepSeek and most hosted
open-model APIs speak this wire format; ``base_url`` is the part before ``/chat/completions``
(``https://api.openai.com/v1``, ``http://localhost:11434/v1``).

**Messages.** Neutral messages are nearly OpenAI's already. An assistant message's
``tool_calls`` may be neutral (``{"id", "name", "arguments": {...}}``, or ``ToolCall`` objects)
and are sent as ``{"id", "type": "function", "function": {"name", "arguments": "<json>"}}``;
``{"role": "tool", "tool_call_id", "content"}`` results pass through. Tools may be neutral
(``{"name", "description", "input_schema"}``) or already OpenAI-shaped.

**Structured output.** ``json_schema`` is sent as ``response_format: {"type": "json_schema",
...strict}``. Not every server accepts that: when one rejects it (a 400 that mentions
``response_format`` or ``json_schema``), the same request is sent again with ``{"type":
"json_object"}``, then with no ``response_format`` at all, and the level that worked is
remembered for this instance, so only the first call pays. Below the first level the schema is
also put in the system message (``json_object`` mode requires the prompt to mention JSON, and a
server with neither still needs to know the shape). The caller parses the text tolerantly either
way.

**Newer OpenAI models** (the o-series, gpt-5) refuse ``max_tokens`` ("use
``max_completion_tokens``") and any ``temperature`` but the default; such a 400 is answered the
same way — resend with ``max_completion_tokens`` / without ``temperature``, and remember it.
Every adaptation only moves one way, so a request is sent at most a handful of times.

**Streaming** (``stream``) sends the same body with ``"stream": true`` and reads the chunks:
``choices[0].delta.content`` fragments are text; ``delta.tool_calls`` fragments carry an
``index``, the call's ``id`` and ``function.name`` once, and pieces of ``function.arguments``
to be joined in order. The chunks are put back together into the body a non-streamed request
would have returned (``choices[0].message``), so ``done``'s response — ``raw`` included — is the
same as ``complete``'s.

**Tool-call arguments** arrive as a JSON string. A string that is not a JSON object is not an
exception (a small local model produces them): the call keeps it under ``RAW_ARGUMENTS`` with
the reason under ``ARGUMENTS_ERROR``, so the agent loop can answer the model with the error.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import httpx

from ..errors import ProviderError, ValidationError
from .endpoint import Endpoint, RejectedRequest
from .llm import (
    ARGUMENTS_ERROR,
    LLM,
    RAW_ARGUMENTS,
    LLMResponse,
    StreamEvent,
    ToolCall,
    schema_instruction,
)

__all__ = ["OpenAIChat"]

# response_format levels, best first; the instance moves down on a rejection and stays there
_FORMATS = ("json_schema", "json_object", "none")


def _call_fields(call: ToolCall | Mapping[str, Any]) -> tuple[str, str, Any]:
    if isinstance(call, ToolCall):
        return call.id, call.name, dict(call.arguments)
    if isinstance(call.get("function"), Mapping):  # already OpenAI-shaped
        function = call["function"]
        return str(call.get("id", "")), str(function.get("name", "")), function.get("arguments")
    return str(call.get("id", "")), str(call.get("name", "")), call.get("arguments", {})


def _wire_tool_call(call: ToolCall | Mapping[str, Any]) -> dict[str, Any]:
    call_id, name, arguments = _call_fields(call)
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def wire_messages(
    messages: Sequence[Mapping[str, Any]], system: str | None
) -> list[dict[str, Any]]:
    """Neutral messages (after ``system``) in the chat completions shape."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": str(message.get("tool_call_id", "")),
                    "content": _text_content(message.get("content")),
                }
            )
        elif role == "assistant" and message.get("tool_calls"):
            out.append(
                {
                    "role": "assistant",
                    "content": message.get("content") or None,
                    "tool_calls": [_wire_tool_call(call) for call in message["tool_calls"]],
                }
            )
        elif role in ("user", "assistant", "system"):
            out.append({"role": role, "content": message.get("content", "")})
        else:
            raise ValidationError(
                f"message role {role!r} is not one of user, assistant, tool, system"
            )
    return out


def _text_content(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def wire_tools(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Neutral ``{"name", "description", "input_schema"}`` tools as OpenAI function tools."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        if tool.get("type") == "function" and isinstance(tool.get("function"), Mapping):
            out.append(dict(tool))
        elif isinstance(tool.get("name"), str):
            function: dict[str, Any] = {
                "name": tool["name"],
                "parameters": tool.get("input_schema") or {"type": "object", "properties": {}},
            }
            if tool.get("description"):
                function["description"] = tool["description"]
            out.append({"type": "function", "function": function})
        else:
            raise ValidationError(
                f"a tool must be {{'name', 'description', 'input_schema'}} or OpenAI's "
                f"{{'type': 'function', 'function': {{...}}}} (got keys {sorted(tool)})"
            )
    return out


def _decode_arguments(text: Any) -> dict[str, Any]:
    if isinstance(text, Mapping):  # a few servers send an object instead of a string
        return dict(text)
    if not isinstance(text, str) or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        return {RAW_ARGUMENTS: text, ARGUMENTS_ERROR: f"arguments are not valid JSON: {exc}"}
    if not isinstance(value, dict):
        return {RAW_ARGUMENTS: text, ARGUMENTS_ERROR: "arguments are not a JSON object"}
    return value


def parse_choice(url: str, data: Mapping[str, Any]) -> LLMResponse:
    """The first choice of a chat completion as an ``LLMResponse``."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ProviderError(f"{url}: the answer has no choices: {json.dumps(data)[:200]}")
    message = choices[0].get("message") or {}
    calls = tuple(
        ToolCall(
            id=str(call.get("id") or f"call_{index}"),
            name=str((call.get("function") or {}).get("name", "")),
            arguments=_decode_arguments((call.get("function") or {}).get("arguments")),
        )
        for index, call in enumerate(message.get("tool_calls") or [])
        if isinstance(call, dict)
    )
    content = message.get("content")
    return LLMResponse(
        text=content if isinstance(content, str) else "",
        tool_calls=calls,
        stop_reason=choices[0].get("finish_reason"),
        raw=data,
    )


class _Chunks:
    """Streamed chat completion chunks, put back together into one completion body."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.head: dict[str, Any] = {}
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.extra: dict[str, Any] = {}  # other delta fields (reasoning_content, refusal, …)
        self.finish: str | None = None
        self.usage: Any = None

    def add(self, data: Mapping[str, Any]) -> Iterator[StreamEvent]:
        """Take one chunk; yield the events it completes."""
        if isinstance(data.get("error"), Mapping | str):
            raise ProviderError(f"{self.url}: the stream reported an error: {data['error']}")
        for key in ("id", "object", "created", "model", "system_fingerprint"):
            if key in data and key not in self.head:
                self.head[key] = data[key]
        if data.get("usage"):
            self.usage = data["usage"]
        choices = data.get("choices") or []
        choice = choices[0] if choices and isinstance(choices[0], Mapping) else {}
        if choice.get("finish_reason"):
            self.finish = str(choice["finish_reason"])
        # a whole message: the server ignored stream: true and sent one completion
        whole = choice.get("message") if isinstance(choice.get("message"), Mapping) else None
        delta = whole or choice.get("delta") or {}
        for key, value in delta.items():
            if key == "content" and isinstance(value, str) and value:
                self.text.append(value)
                yield StreamEvent("text", text=value)
            elif key == "tool_calls" and isinstance(value, list):
                yield from self._add_calls(value)
            elif whole is not None and key not in ("role", "content", "tool_calls"):
                self.extra[key] = value
            elif key not in ("role", "content", "tool_calls") and isinstance(value, str):
                self.extra[key] = self.extra.get(key, "") + value

    def _add_calls(self, fragments: list[Any]) -> Iterator[StreamEvent]:
        for position, fragment in enumerate(fragments):
            if not isinstance(fragment, Mapping):
                continue
            index = fragment.get("index", position)
            index = index if isinstance(index, int) else position
            call = self.calls.setdefault(index, {"id": "", "name": "", "arguments": []})
            function = fragment.get("function") or {}
            call["id"] = call["id"] or str(fragment.get("id") or "")
            named = bool(call["name"])
            if not named:  # sent once; a server that repeats it must not double it
                call["name"] = str(function.get("name") or "")
            if isinstance(function.get("arguments"), str):
                call["arguments"].append(function["arguments"])
            if call["name"] and not named:
                call_id = call["id"] or f"call_{index}"
                yield StreamEvent("tool_call", tool_call=ToolCall(call_id, call["name"], {}))

    def body(self) -> dict[str, Any]:
        """The completion a non-streamed request would have returned."""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text) or None}
        message.update(self.extra)
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": call["id"] or f"call_{index}",
                    "type": "function",
                    "function": {"name": call["name"], "arguments": "".join(call["arguments"])},
                }
                for index, call in sorted(self.calls.items())
            ]
        body: dict[str, Any] = {**self.head, "object": "chat.completion"}
        body["choices"] = [{"index": 0, "message": message, "finish_reason": self.finish}]
        if self.usage is not None:
            body["usage"] = self.usage
        return body


def _chunk(url: str, data: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise ProviderError(
            f"{url}: a streamed chunk is not JSON ({data[:120]!r}); does this server support "
            "stream: true on /chat/completions?"
        ) from exc
    if not isinstance(value, dict):
        raise ProviderError(f"{url}: a streamed chunk is not a JSON object ({data[:120]!r})")
    return value


def _rejects_format(text: str) -> bool:
    return "response_format" in text or "json_schema" in text


def _rejects_max_tokens(text: str) -> bool:
    return "max_completion_tokens" in text and "max_tokens" in text.replace(
        "max_completion_tokens", ""
    )


def _rejects_temperature(text: str) -> bool:
    return "temperature" in text and ("unsupported" in text or "not support" in text)


class OpenAIChat(LLM):
    """A model behind an OpenAI-compatible chat completions endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.model_id = f"openai:{model}"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        base = base_url.rstrip("/").removesuffix("/chat/completions")
        self.endpoint = Endpoint(
            base,
            headers=headers,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
            transport=transport,
            sleep=sleep,
        )
        # what this server accepts, learnt from its 400s (see the module docstring)
        self.response_format = _FORMATS[0]
        self.token_field = "max_tokens"
        self.send_temperature = True

    def close(self) -> None:
        self.endpoint.close()

    def request_body(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        system: str | None,
        json_schema: Mapping[str, Any] | None,
        schema_name: str,
        tools: Sequence[Mapping[str, Any]] | None,
        max_tokens: int,
        temperature: float,
        response_format: str,
    ) -> dict[str, Any]:
        """The JSON body of one request (a streaming call will add ``"stream": true``)."""
        if json_schema is not None and response_format != "json_schema":
            system = "\n\n".join(p for p in (system, schema_instruction(json_schema)) if p)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": wire_messages(messages, system),
            self.token_field: max_tokens,
        }
        if self.send_temperature:
            body["temperature"] = temperature
        if json_schema is not None and response_format == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": dict(json_schema), "strict": True},
            }
        elif json_schema is not None and response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        if tools:
            body["tools"] = wire_tools(tools)
        return body

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
        """Send the conversation; when the server rejects a field it may lack, adapt and resend."""
        while True:
            body = self.request_body(
                messages,
                system=system,
                json_schema=json_schema,
                schema_name=schema_name,
                tools=tools,
                max_tokens=max_tokens,
                temperature=temperature,
                response_format=self.response_format,
            )
            try:
                data = self.endpoint.post("chat/completions", body)
            except RejectedRequest as exc:
                if not self._adapt(exc, json_schema is not None):
                    raise
                continue
            return parse_choice(self.endpoint.url("chat/completions"), data)

    def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        system: str | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> Iterator[StreamEvent]:
        """Stream the answer (``"stream": true``); the same adaptations as ``complete``."""
        url = self.endpoint.url("chat/completions")
        while True:
            body = self.request_body(
                messages,
                system=system,
                json_schema=None,
                schema_name="output",
                tools=tools,
                max_tokens=max_tokens,
                temperature=temperature,
                response_format=self.response_format,
            )
            body["stream"] = True
            chunks = _Chunks(url)
            try:
                for data in self.endpoint.stream("chat/completions", body):
                    yield from chunks.add(_chunk(url, data))
            except RejectedRequest as exc:
                if chunks.head or not self._adapt(exc, False):
                    raise
                continue
            yield StreamEvent("done", response=parse_choice(url, chunks.body()))
            return

    def _adapt(self, error: RejectedRequest, with_schema: bool) -> bool:
        """Learn from a 400 what the server does not accept; False when there is nothing left
        to change (the error then stands)."""
        text = error.body.lower()
        if error.status not in (400, 422):
            return False
        level = _FORMATS.index(self.response_format)
        if with_schema and level + 1 < len(_FORMATS) and _rejects_format(text):
            self.response_format = _FORMATS[level + 1]
        elif self.token_field == "max_tokens" and _rejects_max_tokens(text):
            self.token_field = "max_completion_tokens"
        elif self.send_temperature and _rejects_temperature(text):
            self.send_temperature = False
        else:
            return False
        return True
