"""A real HTTP server on 127.0.0.1 that answers with scripted responses and records requests.

Provider tests point a real provider at it: the bytes go through httpx, a socket and
``http.server``, so what is asserted is what a real endpoint would receive. A reply is
``Reply(status, body, headers)``; ``HANG`` holds the connection open without answering (until
the server stops), which a client sees as a read timeout. When the script runs out the last
reply is repeated.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)


HANG = Reply(status=-1)


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class WireServer:
    def __init__(self, replies: list[Reply]) -> None:
        self.replies = list(replies)
        self.requests: list[Received] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        # a short poll keeps stop() quick (shutdown waits for the loop to notice)
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def _next(self, received: Received) -> Reply:
        with self._lock:
            self.requests.append(received)
            return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                received = Received(
                    "POST",
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    json.loads(raw) if raw else None,
                )
                reply = server._next(received)
                if reply.status == HANG.status:
                    server.stopping.wait(30)
                    return
                data = reply.body if isinstance(reply.body, bytes | str) else json.dumps(reply.body)
                payload = data.encode() if isinstance(data, str) else data
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

        return Handler

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def serving(*replies: Reply) -> Iterator[WireServer]:
    server = WireServer(list(replies) or [Reply()])
    server.thread.start()
    try:
        yield server
    finally:
        server.stop()


def openai_answer(
    content: str | None = "ok",
    tool_calls: list[dict[str, Any]] | None = None,
    finish: str = "stop",
) -> dict[str, Any]:
    """A chat completion body as OpenAI sends it."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }


def anthropic_answer(*blocks: dict[str, Any], stop: str = "end_turn") -> dict[str, Any]:
    """A messages API body as Anthropic sends it."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": list(blocks) or [{"type": "text", "text": "ok"}],
        "stop_reason": stop,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }
