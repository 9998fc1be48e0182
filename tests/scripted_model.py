"""A scripted chat model behind a real loopback HTTP server, for the agent and chat tests.

It speaks both wire formats a real endpoint does — OpenAI chat completions
(``POST /v1/chat/completions``) and Anthropic messages (``POST /v1/messages``), streamed
(server-sent events, written and flushed piece by piece) or not — so the chat process under
test talks to it exactly as it would to Ollama or Anthropic. What it answers is decided by a
*brain*: a function of the request (``Request``: the person's last words, whether the last
message was a tool result, the memory guide, the whole body) returning ``Say(text)`` or
``Call(...)``. Extraction requests (a JSON schema on the wire) go to ``extract`` instead, which
returns the operations; by default nothing is extracted.

``Say(text, gate=event)`` streams the first word, then waits for ``event`` before the rest: a
test can see streamed output arrive, or interrupt a reply that is still coming.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Say:
    text: str
    gate: threading.Event | None = None


@dataclass(frozen=True)
class Call:
    """Tool calls (name, arguments), after optional text."""

    calls: tuple[tuple[str, dict[str, Any]], ...]
    text: str = ""


def memory_call(**arguments: Any) -> Call:
    return Call((("memory", arguments),))


@dataclass
class Request:
    wire: str  # "openai" | "anthropic"
    body: dict[str, Any]
    system: str
    guide: str  # the first user message: the memory guide
    person: str  # the last thing the person wrote
    after_tool: bool  # the last message is a tool result
    results: list[str]  # the texts of the last tool results

    @property
    def text(self) -> str:
        """The whole request as JSON text, for "does X reach the model" checks."""
        return json.dumps(self.body, ensure_ascii=False)


Brain = Callable[[Request], "Say | Call"]
Extract = Callable[[str], dict[str, Any]]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(b.get("text") or b.get("content") or "") for b in content if isinstance(b, dict)
        )
    return ""


def parse_request(wire: str, body: dict[str, Any]) -> Request:
    messages = list(body.get("messages") or [])
    if wire == "openai":
        system = messages.pop(0)["content"] if messages and messages[0]["role"] == "system" else ""
        last = messages[-1] if messages else {}
        after_tool = last.get("role") == "tool"
        results = [m["content"] for m in messages[-5:] if m.get("role") == "tool"]
    else:
        system = str(body.get("system", ""))
        last = messages[-1] if messages else {}
        blocks = last.get("content") if isinstance(last.get("content"), list) else []
        tool_blocks = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        after_tool = bool(tool_blocks)
        results = [_text(b.get("content")) for b in tool_blocks]
    guide = _text(messages[0]["content"]) if messages else ""
    person = ""
    for message in reversed(messages[1:] or messages):  # a lone message is the person's
        content = message.get("content")
        if message.get("role") != "user" or (
            isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)
        ):
            continue
        words = _text(content)
        if words and not words.startswith("[memdir]"):
            person = words
            break
    return Request(wire, body, system, guide, person, after_tool, results)


def script(*replies: Say | Call) -> Brain:
    """A brain that gives ``replies`` in order, whatever it is asked (the last one repeats)."""
    queue = list(replies)

    def brain(request: Request) -> Say | Call:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return brain


def no_extraction(prompt: str) -> dict[str, Any]:
    return {"operations": [{"op": "NONE"}]}


def id_of(name: str, prompt: str) -> int:
    """The short id the extraction prompt gave the memory ``name``."""
    found = re.search(rf"^(\d+)\. {re.escape(name)} \(", prompt, re.M)
    assert found, f"{name} is not listed in the extraction prompt"
    return int(found.group(1))


def op(kind: str, **fields: Any) -> dict[str, Any]:
    """One extraction operation with every key the strict schema lists."""
    out: dict[str, Any] = {
        key: None
        for key in ("id", "type", "text", "description", "why", "how_to_apply", "source", "quote")
    }
    out.update({"op": kind, "confidence": "confirmed"}, **fields)
    return out


@dataclass
class ScriptedModel:
    brain: Brain
    extract: Extract = no_extraction
    requests: list[Request] = field(default_factory=list)  # chat requests, in order
    extractions: list[str] = field(default_factory=list)  # extraction prompts, in order
    stopping: threading.Event = field(default_factory=threading.Event)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    # -- answers ---------------------------------------------------------------------------
    def answer(self, wire: str, body: dict[str, Any]) -> tuple[Say | Call | None, Any]:
        """(what the brain said, or None for an extraction; the extraction's operations)."""
        extraction = "response_format" in body or "tool_choice" in body
        if extraction:
            prompt = _text(body["messages"][-1]["content"])
            self.extractions.append(prompt)
            return None, self.extract(prompt)
        request = parse_request(wire, body)
        self.requests.append(request)
        return self.brain(request), None

    def pieces(self, reply: Say | Call) -> Iterator[str]:
        text = reply.text
        words = re.findall(r"\S+\s*|\s+", text)
        for i, word in enumerate(words):
            yield word
            if i == 0 and isinstance(reply, Say) and reply.gate is not None:
                # until the test opens the gate or the server stops: never a fixed wait, which a
                # loaded machine would outlast and send the rest before the test looked
                while not reply.gate.wait(0.05) and not self.stopping.is_set():
                    pass
                if self.stopping.is_set():
                    return

    def calls(self, reply: Say | Call) -> list[tuple[str, str, dict[str, Any]]]:
        if not isinstance(reply, Call):
            return []
        return [(f"call_{next(self._ids)}", name, args) for name, args in reply.calls]


def _openai_events(model: ScriptedModel, reply: Say | Call) -> Iterator[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "chatcmpl-s", "object": "chat.completion.chunk", "choices": [choice]}

    yield chunk({"role": "assistant", "content": ""})
    for piece in model.pieces(reply):
        yield chunk({"content": piece})
    calls = model.calls(reply)
    for index, (call_id, name, args) in enumerate(calls):
        head = {"index": index, "id": call_id, "type": "function", "function": {"name": name}}
        yield chunk({"tool_calls": [head]})
        text = json.dumps(args)
        for part in (text[: len(text) // 2], text[len(text) // 2 :]):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
    yield chunk({}, "tool_calls" if calls else "stop")


def _anthropic_events(model: ScriptedModel, reply: Say | Call) -> Iterator[dict[str, Any]]:
    message = {"id": "msg_s", "type": "message", "role": "assistant", "content": []}
    yield {"type": "message_start", "message": {**message, "model": "claude", "usage": {}}}
    index = 0
    if reply.text:
        yield {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "text", "text": ""},
        }
        for piece in model.pieces(reply):
            delta = {"type": "text_delta", "text": piece}
            yield {"type": "content_block_delta", "index": 0, "delta": delta}
        yield {"type": "content_block_stop", "index": 0}
        index = 1
    calls = model.calls(reply)
    for call_id, name, args in calls:
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        yield {"type": "content_block_start", "index": index, "content_block": block}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(args)}
        yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
        index += 1
    stop = "tool_use" if calls else "end_turn"
    yield {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 3}}
    yield {"type": "message_stop"}


def _complete(wire: str, ops: Any, body: dict[str, Any], reply: Say | Call | None) -> Any:
    """A non-streamed answer: a plain text reply, or an extraction's operations as JSON text /
    as the forced tool."""
    if reply is not None:
        if wire == "openai":
            message = {"role": "assistant", "content": reply.text}
            return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
        blocks = [{"type": "text", "text": reply.text}]
        return {"role": "assistant", "content": blocks, "stop_reason": "end_turn"}
    if wire == "openai":
        message = {"role": "assistant", "content": json.dumps(ops)}
        return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    name = body["tool_choice"]["name"]
    block = {"type": "tool_use", "id": "toolu_x", "name": name, "input": ops}
    return {"role": "assistant", "content": [block], "stop_reason": "tool_use"}


def _handler(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            wire = "anthropic" if self.path.endswith("/messages") else "openai"
            reply, ops = model.answer(wire, body)
            if reply is None or not body.get("stream"):
                data = json.dumps(_complete(wire, ops, body, reply)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            events = (_openai_events if wire == "openai" else _anthropic_events)(model, reply)
            try:
                for event in events:
                    name = f"event: {event['type']}\n" if wire == "anthropic" else ""
                    self.wfile.write(f"{name}data: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
                if wire == "openai":
                    self.wfile.write(b"data: [DONE]\n\n")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client hung up (Ctrl-C): nothing to finish

    return Handler


@contextmanager
def serve(brain: Brain, extract: Extract = no_extraction) -> Iterator[tuple[ScriptedModel, str]]:
    """The model and its base URL (``http://127.0.0.1:PORT``; add ``/v1`` for OpenAI)."""
    model = ScriptedModel(brain, extract)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(model))
    httpd.daemon_threads = True
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    host, port = httpd.server_address[:2]
    try:
        yield model, f"http://{host!s}:{port}"
    finally:
        model.stopping.set()
        httpd.shutdown()
        httpd.server_close()
