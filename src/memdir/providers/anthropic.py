"""``AnthropicMessages``: Anthropic's ``/v1/messages`` API.

Sent with ``x-api-key`` and ``anthropic-version: 2023-06-01``; ``base_url`` is the host
(``https://api.anthropic.com``; a trailing ``/v1`` is accepted too). ``system`` is the request's
top-level field, not a message.

**Messages.** Neutral messages become content blocks: an assistant message's ``tool_calls``
become ``tool_use`` blocks after its text, and consecutive ``{"role": "tool"}`` results become
``tool_result`` blocks of *one* user message (the API wants every result of a turn in the user
message right after it); a user message that follows results joins that same message. Messages
already in Anthropic's block shape pass through.

**Structured output.** The messages API has no ``response_format``; ``json_schema`` becomes one
tool named ``schema_name`` whose ``input_schema`` is the schema, forced with ``tool_choice``. The
model's ``tool_use.input`` for it is returned as the JSON text of ``LLMResponse.text`` (and not
as a tool call), so callers read structured output the same way from every provider.

**Streaming** (``stream``) sends ``"stream": true`` and reads the events: ``message_start``
(the message without content), ``content_block_start`` / ``content_block_delta`` /
``content_block_stop`` per block (``text_delta`` text, ``input_json_delta`` pieces of a
``tool_use`` input to be joined and decoded at the block's end, ``thinking_delta`` and
``signature_delta`` for thinking blocks), ``message_delta`` (``stop_reason``, usage) and
``message_stop``; ``ping`` is skipped and ``error`` is a ``ProviderError``. The blocks are put
back together into the message a non-streamed request returns, so ``done``'s response and its
``raw`` (thinking blocks and signatures included, which a tool loop must send back) are
``complete``'s.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import httpx

from ..errors import ProviderError, ValidationError
from .endpoint import Endpoint
from .llm import ARGUMENTS_ERROR, LLM, RAW_ARGUMENTS, LLMResponse, StreamEvent, ToolCall

__all__ = ["AnthropicMessages"]

VERSION = "2023-06-01"


def _tool_use(call: ToolCall | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(call, ToolCall):
        call_id, name, arguments = call.id, call.name, dict(call.arguments)
    elif isinstance(call.get("function"), Mapping):  # OpenAI-shaped, arguments as JSON text
        function = call["function"]
        call_id, name = str(call.get("id", "")), str(function.get("name", ""))
        arguments = _decoded(function.get("arguments"))
    else:
        call_id, name = str(call.get("id", "")), str(call.get("name", ""))
        arguments = dict(call.get("arguments") or {})
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def _decoded(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        value = None
    # tool_use.input must be an object: keep undecodable text where a person can still read it
    return value if isinstance(value, dict) else {RAW_ARGUMENTS: str(raw)}


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, list):
        return list(content)
    return [{"type": "text", "text": content}] if content else []


def wire_messages(messages: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """Neutral messages as Anthropic messages, plus any ``system`` messages' text."""
    out: list[dict[str, Any]] = []
    system: list[str] = []
    open_results = False  # the last message is a user message holding tool results
    for message in messages:
        role = message.get("role")
        if role == "system":
            system.append(str(message.get("content", "")))
        elif role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": str(message.get("tool_call_id", "")),
                "content": message.get("content", ""),
            }
            if message.get("is_error"):
                block["is_error"] = True
            if open_results:
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
                open_results = True
        elif role == "user" and open_results:
            out[-1]["content"].extend(_blocks(message.get("content")))
            open_results = False
        elif role == "assistant" and message.get("tool_calls"):
            blocks = _blocks(message.get("content"))
            blocks += [_tool_use(call) for call in message["tool_calls"]]
            out.append({"role": "assistant", "content": blocks})
            open_results = False
        elif role in ("user", "assistant"):
            out.append({"role": role, "content": message.get("content", "")})
            open_results = False
        else:
            raise ValidationError(
                f"message role {role!r} is not one of user, assistant, tool, system"
            )
    return out, "\n\n".join(system)


def wire_tools(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Neutral (or OpenAI function) tools as Anthropic tools."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        if tool.get("type") == "function" and isinstance(tool.get("function"), Mapping):
            function = tool["function"]
            tool = {
                "name": function.get("name"),
                "description": function.get("description", ""),
                "input_schema": function.get("parameters") or {"type": "object"},
            }
        if not isinstance(tool.get("name"), str):
            raise ValidationError(
                "a tool must be {'name', 'description', 'input_schema'} "
                f"(got keys {sorted(tool)})"
            )
        # server tools (``{"type": "memory_20250818", "name": "memory"}``) pass through as given
        out.append(dict(tool) if "type" in tool else _client_tool(tool))
    return out


def _client_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": tool["name"],
        "input_schema": tool.get("input_schema") or {"type": "object", "properties": {}},
    }
    if tool.get("description"):
        out["description"] = tool["description"]
    return out


def parse_message(url: str, data: Mapping[str, Any], forced: str | None) -> LLMResponse:
    """A messages API answer as an ``LLMResponse``; ``forced`` is the schema tool's name."""
    content = data.get("content")
    if not isinstance(content, list):
        raise ProviderError(f"{url}: the answer has no content: {json.dumps(data)[:200]}")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        elif block.get("type") == "tool_use":
            given = block.get("input")
            arguments: dict[str, Any] = dict(given) if isinstance(given, dict) else {}
            if forced is not None and block.get("name") == forced:
                texts = [json.dumps(arguments, ensure_ascii=False)]
                forced = None  # the structured answer is the text; later blocks are kept
                continue
            calls.append(ToolCall(str(block.get("id", "")), str(block.get("name", "")), arguments))
    return LLMResponse(
        text="".join(texts), tool_calls=tuple(calls), stop_reason=data.get("stop_reason"), raw=data
    )


class _Blocks:
    """Streamed message events, put back together into one messages API answer."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.message: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial: dict[int, list[str]] = {}  # input_json_delta pieces per tool_use block

    def add(self, data: Mapping[str, Any]) -> Iterator[StreamEvent]:
        kind = data.get("type")
        if kind == "error":
            error = data.get("error") or {}
            what = error.get("message", error) if isinstance(error, Mapping) else error
            raise ProviderError(f"{self.url}: the stream reported an error: {what}")
        if kind == "message":  # a whole answer: the server ignored stream: true
            self.message = {k: v for k, v in data.items() if k != "content"}
            content = data.get("content")
            for index, block in enumerate(content if isinstance(content, list) else []):
                if isinstance(block, Mapping):
                    yield from self.add(
                        {"type": "content_block_start", "index": index, "content_block": block}
                    )
        elif kind == "message_start" and isinstance(data.get("message"), Mapping):
            self.message = dict(data["message"])
        elif kind == "content_block_start" and isinstance(data.get("content_block"), Mapping):
            index = int(data.get("index", len(self.blocks)))
            block = dict(data["content_block"])
            self.blocks[index] = block
            if block.get("type") == "tool_use":
                self.partial[index] = []
                call = ToolCall(str(block.get("id", "")), str(block.get("name", "")), {})
                yield StreamEvent("tool_call", tool_call=call)
            elif block.get("type") == "text" and block.get("text"):
                yield StreamEvent("text", text=str(block["text"]))
        elif kind == "content_block_delta":
            yield from self._delta(int(data.get("index", 0)), data.get("delta") or {})
        elif kind == "content_block_stop":
            self._finish_block(int(data.get("index", 0)))
        elif kind == "message_delta":
            self.message.update(data.get("delta") or {})
            if isinstance(data.get("usage"), Mapping):
                self.message["usage"] = {**self.message.get("usage", {}), **data["usage"]}

    def _delta(self, index: int, delta: Mapping[str, Any]) -> Iterator[StreamEvent]:
        block = self.blocks.setdefault(index, {"type": "text", "text": ""})
        kind = delta.get("type")
        if kind == "text_delta":
            text = str(delta.get("text", ""))
            block["text"] = str(block.get("text", "")) + text
            if text:
                yield StreamEvent("text", text=text)
        elif kind == "input_json_delta":
            self.partial.setdefault(index, []).append(str(delta.get("partial_json", "")))
        elif kind == "thinking_delta":
            block["thinking"] = str(block.get("thinking", "")) + str(delta.get("thinking", ""))
        elif kind == "signature_delta":
            block["signature"] = str(delta.get("signature", ""))

    def _finish_block(self, index: int) -> None:
        pieces = self.partial.pop(index, None)
        if pieces is None or index not in self.blocks:
            return
        text = "".join(pieces)
        if not text.strip():  # no input deltas: the start block's input is the whole input
            given = self.blocks[index].get("input")
            self.blocks[index]["input"] = dict(given) if isinstance(given, Mapping) else {}
            return
        try:
            value = json.loads(text)
        except ValueError as exc:
            value = {RAW_ARGUMENTS: text, ARGUMENTS_ERROR: f"input is not valid JSON: {exc}"}
        if not isinstance(value, dict):
            value = {RAW_ARGUMENTS: text, ARGUMENTS_ERROR: "input is not a JSON object"}
        self.blocks[index]["input"] = value

    def body(self) -> dict[str, Any]:
        for index in list(self.partial):  # a stream that ended without content_block_stop
            self._finish_block(index)
        return {**self.message, "content": [self.blocks[i] for i in sorted(self.blocks)]}


class AnthropicMessages(LLM):
    """A Claude model behind the Anthropic messages API."""

    wire_format = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        base_url: str = "https://api.anthropic.com",
        timeout: float = 60.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.model_id = f"anthropic:{model}"
        headers = {"anthropic-version": VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        base = base_url.rstrip("/").removesuffix("/v1/messages").removesuffix("/v1")
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
    ) -> dict[str, Any]:
        """The JSON body of one request (a streaming call will add ``"stream": true``)."""
        wire, inline_system = wire_messages(messages)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "messages": wire,
        }
        full_system = "\n\n".join(part for part in (system, inline_system) if part)
        if full_system:
            body["system"] = full_system
        wire_tool_list = wire_tools(tools or [])
        if json_schema is not None:
            wire_tool_list.append(
                {
                    "name": schema_name,
                    "description": "Give the answer as this tool's input.",
                    "input_schema": dict(json_schema),
                }
            )
            body["tool_choice"] = {"type": "tool", "name": schema_name}
        if wire_tool_list:
            body["tools"] = wire_tool_list
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
        """Send the conversation; a schema comes back as the forced tool's input, as text."""
        body = self.request_body(
            messages,
            system=system,
            json_schema=json_schema,
            schema_name=schema_name,
            tools=tools,
            max_tokens=max_tokens,
            temperature=temperature,
        )
        data = self.endpoint.post("v1/messages", body)
        forced = schema_name if json_schema is not None else None
        return parse_message(self.endpoint.url("v1/messages"), data, forced)

    def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        system: str | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> Iterator[StreamEvent]:
        """Stream the answer (``"stream": true``) as events, then the whole message."""
        body = self.request_body(
            messages,
            system=system,
            json_schema=None,
            schema_name="output",
            tools=tools,
            max_tokens=max_tokens,
            temperature=temperature,
        )
        body["stream"] = True
        url = self.endpoint.url("v1/messages")
        blocks = _Blocks(url)
        for data in self.endpoint.stream("v1/messages", body):
            try:
                event = json.loads(data)
            except ValueError as exc:
                what = f"{url}: a streamed event is not JSON ({data[:120]!r})"
                raise ProviderError(what) from exc
            if isinstance(event, dict):
                yield from blocks.add(event)
        yield StreamEvent("done", response=parse_message(url, blocks.body(), None))
