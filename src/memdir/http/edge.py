"""The REST API's edge: who is asking (keys), what a failure becomes (one status table), and
what never reaches a handler (the guard); whose ``Memory`` answers is ``users.py``. See the
package docstring for the design."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar
from urllib.parse import unquote_to_bytes

from fastapi import Depends, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import (
    AmbiguousError,
    ConflictError,
    LockTimeoutError,
    MemdirError,
    NotFoundError,
    SessionBusyError,
    UnsupportedError,
    ValidationError,
)
from ..memory import Memory
from .keys import Keys
from .models import ErrorBody, ErrorOut, ScopeName
from .users import UNAVAILABLE, Users

__all__ = [
    "ERRORS",
    "MAX_BODY",
    "RETRY_AFTER_S",
    "STATUS",
    "Guard",
    "ScopeQ",
    "User",
    "on_crash",
    "on_http",
    "on_invalid",
    "on_memdir_error",
    "on_unavailable",
    "read",
    "run",
]

MAX_BODY = 1024 * 1024  # bytes; a memory is a few hundred, a session append a few thousand
RETRY_AFTER_S = 2  # a 503's Retry-After: a lock held long, a store that could not be reached
T = TypeVar("T")

# The one place where a library error becomes a status code (most specific class first).
STATUS: tuple[tuple[type[MemdirError], int, str], ...] = (
    (NotFoundError, 404, "not_found"),
    (ConflictError, 409, "conflict"),
    (SessionBusyError, 409, "session_busy"),
    (AmbiguousError, 409, "ambiguous"),
    (ValidationError, 422, "invalid_input"),
    (LockTimeoutError, 503, "busy"),
    (UnsupportedError, 501, "not_supported"),
    (MemdirError, 500, "server_error"),
)
_HTTP_CODES = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}


# -- errors ------------------------------------------------------------------------------
def _error(status: int, code: str, message: str) -> JSONResponse:
    body = ErrorOut(error=ErrorBody(code=code, status=status, message=message))
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if status == 503:
        headers = {"Retry-After": str(RETRY_AFTER_S)}
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


def _status_of(exc: MemdirError) -> tuple[int, str]:
    for kind, status, code in STATUS:
        if isinstance(exc, kind):
            return status, code
    raise AssertionError("MemdirError is last in STATUS")  # pragma: no cover


async def on_memdir_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, MemdirError)
    status, code = _status_of(exc)
    message = str(exc)
    users: Users = request.app.state.users
    # the user's own server-side directory is noise to an API client: show it as "~"
    user = getattr(request.state, "user", None)
    if user:
        message = message.replace(str(users.home(user)), "~")
    return _error(status, code, message)


async def on_unavailable(request: Request, exc: Exception) -> JSONResponse:
    """The user's storage could not be reached (``users.UNAVAILABLE``): nothing was written
    (a write either lands whole or not at all), so the client may simply retry. The message
    names the kind of failure, never a path or a DSN (the server log has the details)."""
    assert isinstance(exc, UNAVAILABLE)
    retry = f"retry in {RETRY_AFTER_S} s"
    if isinstance(exc, MemdirError):  # a backend's own message: it names the host, no secret
        return _error(503, "unavailable", f"{exc}; nothing was written: {retry}")
    return _error(
        503,
        "unavailable",
        f"the memory store could not be reached ({type(exc).__name__}); nothing was written: "
        f"{retry} (the server log has the details)",
    )


async def on_invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    message = "invalid request: " + "; ".join(parts) + " (see /openapi.json for the schema)"
    return _error(422, "invalid_input", message)


async def on_crash(request: Request, exc: Exception) -> JSONResponse:
    """A bug in memdir (not a ``MemdirError``): the same JSON shape; Starlette re-raises it
    after this answer, so the server log keeps the traceback."""
    return _error(
        500,
        "server_error",
        f"memdir failed unexpectedly ({type(exc).__name__}); nothing is known to be written. "
        "The server log has the details: please report it",
    )


async def on_http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, "error")
    message = str(exc.detail)
    if exc.status_code == 400:  # FastAPI could not parse the JSON body at all
        return _error(
            422,
            "invalid_input",
            "the body is not JSON this API can read (nested too deep, a number with more than "
            "4300 digits, or not JSON at all): send plain JSON objects (see /openapi.json)",
        )
    if exc.status_code == 404 and message == "Not Found":
        message = f"no endpoint {request.url.path}: see /openapi.json for the API"
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}: see /openapi.json"
    return _error(exc.status_code, code, message)


# -- the guard in front of everything ----------------------------------------------------
def _bad_target(scope: Scope) -> str | None:
    """Why the request's path or query string is refused, or ``None``."""
    raw = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
    for segment in raw.split(b"?", 1)[0].split(b"/"):
        decoded = unquote_to_bytes(segment)
        if decoded in (b".", b"..") or any(c in decoded for c in (b"/", b"\\", b"\x00")):
            return (
                "a path segment is '.' or '..' or decodes to '/', '\\' or NUL: a name is a "
                "plain name such as 'use-pnpm', never a path"
            )
        try:
            decoded.decode("utf-8")
        except UnicodeDecodeError:
            return "the path is not valid UTF-8 once percent-decoded: send names as UTF-8"
    try:
        unquote_to_bytes(scope.get("query_string", b"").replace(b"+", b" ")).decode("utf-8")
    except UnicodeDecodeError:
        return "the query string is not valid UTF-8 once percent-decoded"
    return None


class Guard:
    """ASGI middleware: body size limit (413), UTF-8 bodies, paths and queries (422)."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.max_body = max_body

    async def _refuse(self, send: Send, status: int, code: str, message: str) -> None:
        response = _error(status, code, message)
        await response({"type": "http"}, _no_body, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = _bad_target(scope)
        if problem:
            await self._refuse(send, 422, "invalid_input", problem)
            return
        too_big = (
            f"the request body is over {self.max_body} bytes: send less (one memory or a "
            "batch of messages per request)"
        )
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            await self._refuse(send, 413, "too_large", too_big)  # nothing of it was read
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await self._refuse(send, 413, "too_large", too_big)
                return
            if not message.get("more_body", False):
                break
        try:
            bytes(body).decode("utf-8")
        except UnicodeDecodeError as exc:
            await self._refuse(
                send, 422, "invalid_input", f"the body is not valid UTF-8 (byte {exc.start})"
            )
            return
        await self.app(scope, _replay(bytes(body), receive), send)


async def _no_body() -> Message:
    return {"type": "http.disconnect"}  # pragma: no cover - a response never reads


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: wait for the disconnect as usual

    return replayed


# -- auth --------------------------------------------------------------------------------
_bearer = HTTPBearer(auto_error=False, description="An API key from `memdir keys create USER`")


class _Unauthorized(HTTPException):
    def __init__(self) -> None:
        super().__init__(
            401,
            "no valid API key: send `Authorization: Bearer <key>` with a key from "
            "`memdir keys create USER` (a revoked key no longer works)",
        )


async def _user(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    if credentials is None:
        raise _Unauthorized()
    keys: Keys = request.app.state.keys
    user = await asyncio.to_thread(keys.user_for, credentials.credentials)
    if user is None:
        raise _Unauthorized()
    request.state.user = user
    return user


User = Annotated[str, Depends(_user)]
ScopeQ = Annotated[ScopeName | None, Query(description="Only this scope (default: both)")]


def run(request: Request, user: str, fn: Callable[[Memory], T]) -> Awaitable[T]:
    """Run ``fn`` (which may write) on the user's ``Memory``, after their other writes."""
    users: Users = request.app.state.users
    return users.call(user, fn)


def read(request: Request, user: str, fn: Callable[[Memory], T]) -> Awaitable[T]:
    """Run ``fn``, which only reads, beside the user's other calls."""
    users: Users = request.app.state.users
    return users.read(user, fn)


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": desc}
    for status, desc in (
        (401, "No valid API key"),
        (404, "No such memory, change or session"),
        (409, "Conflicting edit, name taken, or session busy"),
        (413, "Body too large"),
        (422, "Invalid input"),
        (503, "The store is busy or unreachable: retry after `Retry-After` seconds"),
    )
}
