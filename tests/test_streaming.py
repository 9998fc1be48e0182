"""Streaming on the wire: real loopback servers sending server-sent events in OpenAI's and
Anthropic's shapes, put back together into the same answer ``complete`` gives."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx
import pytest

from memdir.errors import ProviderError
from memdir.providers import (
    ARGUMENTS_ERROR,
    LLM,
    RAW_ARGUMENTS,
    AnthropicMessages,
    LLMResponse,
    OpenAIChat,
    RejectedRequest,
    StreamEvent,
    ToolCall,
)
from memdir.providers.endpoint import _sse_data
from wire_server import Reply, anthropic_answer, openai_answer, serving

TOOL = {"name": "memory", "description": "Memories.", "input_schema": {"type": "object"}}


def sse(*events: Any, done: bool = True) -> str:
    """A ``text/event-stream`` body: one ``data:`` event per item (dicts as JSON)."""
    out = [f"data: {json.dumps(e) if not isinstance(e, str) else e}\n\n" for e in events]
    return "".join(out) + ("data: [DONE]\n\n" if done else "")


def anthropic_sse(*events: Mapping[str, Any]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def chunk(delta: Mapping[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-9",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": dict(delta), "finish_reason": finish}],
    }


def openai(url: str, **kwargs: Any) -> OpenAIChat:
    return OpenAIChat("m", base_url=f"{url}/v1", backoff=0.001, **kwargs)


def collect(events: Iterator[StreamEvent]) -> tuple[list[StreamEvent], LLMResponse]:
    seen = list(events)
    assert seen[-1].kind == "done" and seen[-1].response is not None
    assert all(e.kind != "done" for e in seen[:-1]), "done comes once, last"
    return seen[:-1], seen[-1].response


# --- the event-stream format ---------------------------------------------------------------


def test_sse_lines_become_event_data() -> None:
    lines = [": a comment", "event: x", "data: one", "data:two", "", "", "id: 3", "data: last"]
    assert list(_sse_data(lines)) == ["one\ntwo", "last"]


# --- OpenAI ---------------------------------------------------------------------------------


def test_openai_streams_text_in_order() -> None:
    body = sse(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hel"}),
        chunk({"content": "lo"}),
        chunk({}, finish="stop"),
    )
    with serving(Reply(body=body)) as server:
        events, answer = collect(openai(server.url).stream([{"role": "user", "content": "hi"}]))
    assert [e.text for e in events] == ["Hel", "lo"]
    assert (answer.text, answer.stop_reason, answer.tool_calls) == ("Hello", "stop", ())
    assert answer.raw["choices"][0]["message"] == {"role": "assistant", "content": "Hello"}
    assert answer.raw["id"] == "chatcmpl-9"
    request = server.requests[0].body
    assert request["stream"] is True and request["messages"][-1]["content"] == "hi"


def test_openai_tool_call_fragments_are_joined_per_index() -> None:
    body = sse(
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "memory"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"comm'}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "memory"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'and": "view"}'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"bad'}}]}),
        chunk({}, finish="tool_calls"),
    )
    with serving(Reply(body=body)) as server:
        events, answer = collect(
            openai(server.url).stream([{"role": "user", "content": "x"}], tools=[TOOL])
        )
    assert [(e.kind, e.tool_call.id if e.tool_call else "") for e in events] == [
        ("tool_call", "c1"),
        ("tool_call", "c2"),
    ]
    first, second = answer.tool_calls
    assert first == ToolCall("c1", "memory", {"command": "view"})
    assert second.arguments[RAW_ARGUMENTS] == '{"bad'
    assert "not valid JSON" in second.arguments[ARGUMENTS_ERROR]
    assert answer.stop_reason == "tool_calls"
    # the raw body is what a non-streamed answer would have been: storable as the message
    message = answer.raw["choices"][0]["message"]
    assert message["content"] is None
    assert message["tool_calls"][0] == {
        "id": "c1",
        "type": "function",
        "function": {"name": "memory", "arguments": '{"command": "view"}'},
    }
    assert server.requests[0].body["tools"][0]["function"]["name"] == "memory"


def test_openai_extra_delta_fields_survive() -> None:
    body = sse(chunk({"reasoning_content": "think "}), chunk({"reasoning_content": "more"}))
    with serving(Reply(body=body)) as server:
        _, answer = collect(openai(server.url).stream([{"role": "user", "content": "x"}]))
    assert answer.raw["choices"][0]["message"]["reasoning_content"] == "think more"


def test_openai_stream_retries_before_the_first_byte_and_reports_rejections() -> None:
    ok = Reply(body=sse(chunk({"content": "fine"})))
    with serving(Reply(503, {"error": {"message": "busy"}}), ok) as server:
        _, answer = collect(openai(server.url).stream([{"role": "user", "content": "x"}]))
    assert answer.text == "fine" and len(server.requests) == 2
    with (
        serving(Reply(401, {"error": {"message": "bad key"}})) as server,
        pytest.raises(RejectedRequest, match=r"bad key.*llm\.api_key"),
    ):
        list(openai(server.url).stream([{"role": "user", "content": "x"}]))


def test_openai_stream_adapts_like_complete() -> None:
    rejected = Reply(400, {"error": {"message": "Use 'max_completion_tokens' not 'max_tokens'"}})
    with serving(rejected, Reply(body=sse(chunk({"content": "ok"})))) as server:
        _, answer = collect(openai(server.url).stream([{"role": "user", "content": "x"}]))
    assert answer.text == "ok"
    assert "max_completion_tokens" in server.requests[1].body
    assert "max_tokens" not in server.requests[1].body


def test_openai_error_inside_the_stream_is_a_provider_error() -> None:
    body = sse(chunk({"content": "par"}), {"error": {"message": "overloaded"}})
    with serving(Reply(body=body)) as server, pytest.raises(ProviderError, match="overloaded"):
        list(openai(server.url).stream([{"role": "user", "content": "x"}]))
    with (
        serving(Reply(body=sse("not json"))) as server,
        pytest.raises(ProviderError, match="not JSON"),
    ):
        list(openai(server.url).stream([{"role": "user", "content": "x"}]))


class _Broken(httpx.SyncByteStream):
    """A body that delivers one event and then loses the connection."""

    def __iter__(self) -> Iterator[bytes]:
        yield b'data: {"choices": [{"delta": {"content": "Hel"}}]}\n\n'
        raise httpx.ReadError("connection reset")


def test_a_stream_that_breaks_midway_is_a_provider_error_and_not_retried() -> None:
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(200, stream=_Broken())

    llm = OpenAIChat("m", base_url="http://model.test/v1", transport=httpx.MockTransport(handler))
    seen: list[StreamEvent] = []
    with pytest.raises(ProviderError, match="stream broke after 1 event"):
        seen.extend(llm.stream([{"role": "user", "content": "x"}]))
    assert [e.text for e in seen] == ["Hel"]
    assert len(calls) == 1  # text already shown is never asked for again


# --- Anthropic ------------------------------------------------------------------------------


def anthropic_events(*blocks: list[dict[str, Any]], stop: str = "end_turn") -> str:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_7",
                "type": "message",
                "role": "assistant",
                "model": "claude",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        },
        {"type": "ping"},
    ]
    for index, block in enumerate(blocks):
        start, *deltas = block
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 9}}
    )
    events.append({"type": "message_stop"})
    return anthropic_sse(*events)


def test_anthropic_streams_text_and_tool_use() -> None:
    body = anthropic_events(
        [
            {"type": "thinking", "thinking": ""},
            {"type": "thinking_delta", "thinking": "Let me look."},
            {"type": "signature_delta", "signature": "sig=="},
        ],
        [
            {"type": "text", "text": ""},
            {"type": "text_delta", "text": "Checking "},
            {"type": "text_delta", "text": "memory."},
        ],
        [
            {"type": "tool_use", "id": "toolu_1", "name": "memory", "input": {}},
            {"type": "input_json_delta", "partial_json": '{"command": "vi'},
            {"type": "input_json_delta", "partial_json": 'ew", "path": "/memories"}'},
        ],
        stop="tool_use",
    )
    with serving(Reply(body=body)) as server:
        llm = AnthropicMessages("claude", api_key="sk-ant", base_url=server.url)
        events, answer = collect(
            llm.stream([{"role": "user", "content": "hi"}], system="be brief", tools=[TOOL])
        )
    assert [(e.kind, e.text) for e in events] == [
        ("text", "Checking "),
        ("text", "memory."),
        ("tool_call", ""),
    ]
    assert events[-1].tool_call == ToolCall("toolu_1", "memory", {})
    assert answer.text == "Checking memory." and answer.stop_reason == "tool_use"
    assert answer.tool_calls == (
        ToolCall("toolu_1", "memory", {"command": "view", "path": "/memories"}),
    )
    assert answer.raw["content"][0] == {
        "type": "thinking",
        "thinking": "Let me look.",
        "signature": "sig==",
    }
    assert answer.raw["usage"] == {"input_tokens": 5, "output_tokens": 9}
    request = server.requests[0]
    assert request.path == "/v1/messages" and request.headers["x-api-key"] == "sk-ant"
    assert request.body["stream"] is True and request.body["system"] == "be brief"
    assert AnthropicMessages.wire_format == "anthropic" and OpenAIChat.wire_format == "openai"


def test_anthropic_broken_tool_input_and_error_events() -> None:
    body = anthropic_events(
        [
            {"type": "tool_use", "id": "toolu_2", "name": "memory", "input": {}},
            {"type": "input_json_delta", "partial_json": '{"command": '},
        ]
    )
    with serving(Reply(body=body)) as server:
        llm = AnthropicMessages("claude", api_key=None, base_url=server.url)
        _, answer = collect(llm.stream([{"role": "user", "content": "hi"}]))
    [call] = answer.tool_calls
    assert call.arguments[RAW_ARGUMENTS] == '{"command": '
    assert "not valid JSON" in call.arguments[ARGUMENTS_ERROR]
    error = anthropic_sse({"type": "error", "error": {"type": "overloaded", "message": "busy"}})
    with serving(Reply(body=error)) as server, pytest.raises(ProviderError, match="busy"):
        llm = AnthropicMessages("claude", api_key=None, base_url=server.url)
        list(llm.stream([{"role": "user", "content": "hi"}]))


# --- a server that ignores stream: true ---------------------------------------------------


def test_a_whole_json_answer_to_a_stream_request_is_read_as_one_answer() -> None:
    calls = [{"id": "c9", "type": "function", "function": {"name": "memory", "arguments": "{}"}}]
    whole = openai_answer("all here", calls, "tool_calls")
    with serving(Reply(body=whole)) as server:
        llm = openai(server.url)
        events, streamed = collect(llm.stream([{"role": "user", "content": "x"}]))
        completed = llm.complete([{"role": "user", "content": "x"}])
    assert [(e.kind, e.text) for e in events] == [("text", "all here"), ("tool_call", "")]
    assert (streamed.text, streamed.tool_calls) == (completed.text, completed.tool_calls)
    assert streamed.stop_reason == "tool_calls"
    use = {"type": "tool_use", "id": "toolu_9", "name": "memory", "input": {"command": "view"}}
    with serving(Reply(body=anthropic_answer({"type": "text", "text": "hi"}, use))) as server:
        llm2 = AnthropicMessages("claude", api_key=None, base_url=server.url)
        events, streamed = collect(llm2.stream([{"role": "user", "content": "x"}]))
    assert [e.text for e in events if e.kind == "text"] == ["hi"]
    assert streamed.tool_calls == (ToolCall("toolu_9", "memory", {"command": "view"}),)
    assert streamed.stop_reason == "end_turn" and streamed.raw["id"] == "msg_1"


def test_an_answer_with_no_events_is_an_error_not_an_empty_reply() -> None:
    for body in ("", "<html>not the API</html>"):
        with (
            serving(Reply(body=body)) as server,
            pytest.raises(ProviderError, match="no server-sent events"),
        ):
            list(openai(server.url).stream([{"role": "user", "content": "x"}]))


# --- the default: any LLM streams ----------------------------------------------------------


class OneShot(LLM):
    model_id = "one-shot"

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
        return LLMResponse("all at once", (ToolCall("t1", "memory", {"command": "view"}),))


def test_a_provider_without_a_stream_falls_back_to_complete() -> None:
    events, answer = collect(OneShot().stream([{"role": "user", "content": "x"}]))
    assert [(e.kind, e.text) for e in events] == [("text", "all at once"), ("tool_call", "")]
    assert answer.text == "all at once" and answer.tool_calls[0].name == "memory"
