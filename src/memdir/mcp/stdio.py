"""``memdir serve --mcp`` over stdio without the SDK: the first answer in a fraction of a second.

The official SDK costs about a second of CPU to import (``mcp.types`` builds hundreds of
pydantic models), before any request can be read; an editor starting memdir waits that long for
its first recall (issue 18: ≤ 1 s after start). Over stdio the protocol memdir needs is small,
so this module speaks it itself, with the very same tools (``mcp.build_tools``: one set of
adapters for both servers):

* JSON-RPC 2.0, one message per line on stdin and stdout (the MCP stdio transport); nothing
  else is ever written to stdout.
* The initialize handshake (protocol versions ``HANDSHAKE_VERSIONS``: the client's if it is one
  of them, else the latest), ``ping``, ``tools/list`` and ``tools/call``; notifications are
  read and need no answer; any other method is ``-32601`` (a client probing the stateless
  2026 protocol's ``server/discover`` falls back to the handshake on it, as the SDK's does).
* Each tool's input schema and validation come from its signature through pydantic, and its
  output schema from its return annotation — as the SDK derives them (a test compares the two
  servers' ``tools/list`` and answers); a result is sent as text and as ``structuredContent``
  (a plain string as ``{"result": ...}``).
* A failed call is a result with ``isError`` and the failure's words (``ToolFailure``), a bad
  argument the validation's message; a malformed message is a JSON-RPC error, and the server
  goes on reading. Calls run one at a time on the tools' own thread, in the order they came;
  ``ping`` is answered while a call runs.

Over HTTP (``--mcp --http``) and in process the SDK's server is used (``mcp.build_server``).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, get_type_hints

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

import memdir

from . import INSTRUCTIONS, Tool, ToolFailure, Tools

__all__ = ["HANDSHAKE_VERSIONS", "serve_stdio"]

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
INTERNAL_ERROR = -32603


class _Arguments(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)


@dataclass
class _Served:
    """One tool as the protocol shows it, and how to call it."""

    tool: Tool
    arguments: type[BaseModel]
    output: TypeAdapter[Any]
    wrapped: bool  # a plain return value, sent as {"result": value}
    listing: dict[str, Any]

    @classmethod
    def of(cls, tool: Tool) -> _Served:
        signature = inspect.signature(tool.fn, eval_str=True)
        fields: dict[str, Any] = {
            p.name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default)
            for p in signature.parameters.values()
        }
        arguments = create_model(f"{tool.fn.__name__}Arguments", __base__=_Arguments, **fields)
        returned = signature.return_annotation
        wrapped = not _is_typed_dict(returned)
        if wrapped:
            output: TypeAdapter[Any] = TypeAdapter(
                create_model(f"{tool.fn.__name__}Output", result=(returned, ...))
            )
        else:
            output = TypeAdapter(returned)
        listing = {
            "name": tool.name,
            "description": inspect.cleandoc(tool.fn.__doc__ or ""),
            "inputSchema": arguments.model_json_schema(by_alias=True),
            "outputSchema": output.json_schema(mode="serialization"),
            "annotations": dict(tool.annotations),
        }
        return cls(tool, arguments, output, wrapped, listing)

    async def call(self, given: dict[str, Any]) -> dict[str, Any]:
        try:
            parsed = self.arguments.model_validate(given)
        except ValidationError as exc:
            return _failed(f"Error executing tool {self.tool.name}: {exc}")
        try:
            value = await self.tool.fn(**{k: getattr(parsed, k) for k in type(parsed).model_fields})
        except ToolFailure as exc:
            return _failed(str(exc))
        structured = {"result": value} if self.wrapped else value
        structured = self.output.dump_python(self.output.validate_python(structured), mode="json")
        text = value if isinstance(value, str) else json.dumps(structured, indent=2)
        return {"content": [{"type": "text", "text": text}], "structuredContent": structured}


def _is_typed_dict(annotation: Any) -> bool:
    return (
        isinstance(annotation, type)
        and issubclass(annotation, dict)
        and bool(get_type_hints(annotation))
    )


def _failed(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


class _Server:
    def __init__(self, tools: Tools, out: BinaryIO) -> None:
        self.served = {t.name: _Served.of(t) for t in tools.tools}
        self.out = out
        self.writing = threading.Lock()
        self.calls = asyncio.Lock()  # one tool call at a time, in arrival order

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False) + "\n"
        with self.writing:
            self.out.write(line.encode("utf-8"))
            self.out.flush()

    def error(self, ident: Any, code: int, message: str) -> None:
        self.send({"id": ident, "error": {"code": code, "message": message}})

    async def handle(self, raw: bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError as exc:
            self.error(None, PARSE_ERROR, f"not JSON: {exc}")
            return
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            if not (isinstance(message, dict) and ("result" in message or "error" in message)):
                self.error(None, INVALID_REQUEST, "expected a JSON-RPC request object")
            return  # (a client's answer to a request of ours: we send none)
        if "id" not in message:
            return  # a notification: initialized, cancelled, progress … need no answer
        ident, method = message["id"], message["method"]
        params = message.get("params") or {}
        if not isinstance(params, dict):
            self.error(ident, INVALID_PARAMS, "params must be an object")
            return
        if method == "tools/call":
            async with self.calls:
                self.send({"id": ident, "result": await self.call(params)})
            return
        answer = self.answer(method, params)
        if answer is None:
            self.error(ident, METHOD_NOT_FOUND, f"method not found: {method}")
        else:
            self.send({"id": ident, "result": answer})

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        if method == "initialize":
            asked = params.get("protocolVersion")
            return {
                "protocolVersion": asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "memdir", "version": memdir.__version__},
                "instructions": INSTRUCTIONS,
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": [s.listing for s in self.served.values()]}
        if method == "logging/setLevel":
            return {}
        return None

    async def call(self, params: dict[str, Any]) -> dict[str, Any]:
        served = self.served.get(params.get("name"))  # type: ignore[arg-type]
        if served is None:
            return _failed(f"Unknown tool: {params.get('name')}")
        given = params.get("arguments") or {}
        if not isinstance(given, dict):
            return _failed(f"Error executing tool {served.tool.name}: arguments must be an object")
        return await served.call(given)  # a bug raises: ``_answer_failed`` answers for it


def _answer_failed(server: _Server, raw: bytes, task: asyncio.Task[None]) -> None:
    """The process's edge: a request whose handling raised (a bug in memdir) is answered with
    an internal error, and the error goes to stderr, the server's log; the server goes on."""
    if task.cancelled() or (error := task.exception()) is None:
        return
    print(f"memdir mcp: {error!r} while answering {raw[:200]!r}", file=sys.stderr)
    try:
        ident = json.loads(raw).get("id")
    except (ValueError, AttributeError):
        ident = None
    server.error(ident, INTERNAL_ERROR, f"memdir failed on this request: {error}")


async def _serve(tools: Tools, stdin: BinaryIO, stdout: BinaryIO) -> None:
    server = _Server(tools, stdout)
    loop = asyncio.get_running_loop()
    pending: set[asyncio.Task[None]] = set()
    read: Callable[[], bytes] = stdin.readline
    while True:
        raw = await loop.run_in_executor(None, read)
        if not raw:
            break  # the client closed stdin: finish what was asked, then stop
        if raw.strip():
            task = asyncio.ensure_future(server.handle(raw))
            pending.add(task)
            task.add_done_callback(pending.discard)
            task.add_done_callback(functools.partial(_answer_failed, server, raw))
    if pending:
        await asyncio.gather(*pending)


def serve_stdio(tools: Tools) -> None:
    """Answer MCP on this process's stdin and stdout until the client closes stdin."""
    try:
        asyncio.run(_serve(tools, sys.stdin.buffer, sys.stdout.buffer))
    finally:
        tools.adapter.thread.shutdown(wait=True)
