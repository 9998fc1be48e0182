"""Who is looking at the page, and which requests are refused before any handler runs.

Two doors lead to the same pages (``Backend``):

* **Local** (``memdir ui``): one person's ``Memory``. The server listens on 127.0.0.1 only and
  prints a URL with a one-time token; opening it swaps the token for a session cookie and the
  token is spent, so a second local user (or a page in another tab) that learns the URL later
  gets nothing. Every request's ``Host`` must be this server's own loopback address, which
  stops DNS rebinding (a hostile site whose name resolves to 127.0.0.1).
* **Keys** (``memdir serve --http``): the REST API's users. The login form takes an API key
  (``memdir keys create USER``); the key stays on the server, in the session, and is checked
  again on every request, so revoking it logs the page out at once.

**The cookie** holds only a random session id: ``HttpOnly`` (no script reads it),
``SameSite=Strict`` (no other site's page sends it) and ``Path=/ui``. Sessions live in the
server's memory: a restart logs everyone out, which loses nothing.

**State-changing requests** (every POST) also need, first, an ``Origin`` (or, lacking one, a
``Referer``) naming this very host — a form on another site is refused with 403 even if the
browser sent the cookie — and second, the session's CSRF token in the form. There is no CORS
for anybody: no ``Access-Control-Allow-*`` header is ever sent.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol, TypeVar
from urllib.parse import urlsplit

from fastapi import Request

from ..http.keys import Keys
from ..memory import Memory

__all__ = [
    "COOKIE",
    "SECURITY_HEADERS",
    "Backend",
    "KeysBackend",
    "LocalBackend",
    "Refused",
    "Sessions",
    "Viewer",
    "check_host",
    "check_post",
    "same_origin",
    "viewer_of",
]

T = TypeVar("T")
COOKIE = "memdir_ui"
LOCAL_USER = "local"
SECURITY_HEADERS = {
    # no inline script or style anywhere: a memory that smuggled markup in still cannot run
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


class Refused(Exception):
    """A request the page will not serve: ``status`` and a message that says what to do."""

    def __init__(self, status: int, message: str, *, login: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.login = login  # offer the login form (keys mode)


class Backend(Protocol):
    """Where a viewer's memory lives and how someone proves who they are."""

    mode: str  # "local" | "keys"

    async def call(self, user: str, fn: Callable[[Memory], T]) -> T: ...

    def login(self, secret: str) -> str | None: ...

    def still_valid(self, user: str, secret: str) -> bool: ...


class LocalBackend:
    """``memdir ui``: one ``Memory`` on one worker thread, opened with a one-time token."""

    mode = "local"

    def __init__(self, memory: Memory, token: str) -> None:
        self.memory = memory
        self._token: str | None = token
        self._lock = threading.Lock()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memdir-ui")
        self.hosts: set[str] = set()  # "127.0.0.1:<port>", "localhost:<port>" once bound

    async def call(self, user: str, fn: Callable[[Memory], T]) -> T:
        return await asyncio.wrap_future(self._thread.submit(fn, self.memory))

    def login(self, secret: str) -> str | None:
        with self._lock:  # the token opens one session, once
            if self._token is None or not hmac.compare_digest(secret, self._token):
                return None
            self._token = None
            return LOCAL_USER

    def still_valid(self, user: str, secret: str) -> bool:
        return True

    def close(self) -> None:
        self._thread.shutdown(wait=True)


class _Users(Protocol):
    async def call(self, user: str, fn: Callable[[Memory], T]) -> T: ...


class KeysBackend:
    """``memdir serve --http``: the REST API's users and workers, logged in with their key."""

    mode = "keys"

    def __init__(self, users: _Users, keys: Keys) -> None:
        self.users = users
        self.keys = keys

    async def call(self, user: str, fn: Callable[[Memory], T]) -> T:
        return await self.users.call(user, fn)

    def login(self, secret: str) -> str | None:
        return self.keys.user_for(secret.strip()) if secret.strip() else None

    def still_valid(self, user: str, secret: str) -> bool:
        return self.keys.user_for(secret) == user  # a revoked key logs the page out


@dataclass(frozen=True)
class Viewer:
    user: str
    csrf: str
    secret: str  # the API key (keys mode); never sent back to the browser


class Sessions:
    """Session id → viewer, in the server's memory."""

    def __init__(self) -> None:
        self._by_id: dict[str, Viewer] = {}
        self._lock = threading.Lock()

    def open(self, user: str, secret: str) -> str:
        sid = secrets.token_urlsafe(32)
        with self._lock:
            self._by_id[sid] = Viewer(user, secrets.token_urlsafe(32), secret)
        return sid

    def get(self, sid: str | None) -> Viewer | None:
        with self._lock:
            return self._by_id.get(sid) if sid else None

    def close(self, sid: str | None) -> None:
        with self._lock:
            self._by_id.pop(sid or "", None)


def check_host(request: Request, backend: Backend) -> None:
    """Local mode: the ``Host`` must be this server's own loopback address (DNS rebinding)."""
    hosts = getattr(backend, "hosts", None)
    if hosts and request.headers.get("host", "") not in hosts:
        raise Refused(403, "this page answers only on the address `memdir ui` printed")


def same_origin(request: Request) -> bool:
    host = request.headers.get("host", "")
    origin = request.headers.get("origin")
    if origin is not None:
        return origin != "null" and urlsplit(origin).netloc == host
    referer = request.headers.get("referer")
    return referer is not None and urlsplit(referer).netloc == host


def check_post(request: Request, viewer: Viewer, form: dict[str, str]) -> None:
    """A state-changing request: from this page (Origin) and carrying the session's CSRF token."""
    if not same_origin(request):
        raise Refused(403, "refused: this change did not come from memdir's own page (Origin)")
    if not hmac.compare_digest(form.get("csrf", ""), viewer.csrf):
        raise Refused(403, "refused: the form's CSRF token is missing or stale: reload the page")


def viewer_of(request: Request, backend: Backend, sessions: Sessions) -> Viewer:
    """The logged-in viewer of ``request``, or ``Refused`` (401) with what to do."""
    check_host(request, backend)
    viewer = sessions.get(request.cookies.get(COOKIE))
    if viewer is not None and backend.still_valid(viewer.user, viewer.secret):
        return viewer
    if backend.mode == "local":
        raise Refused(401, "not logged in: open the URL that `memdir ui` printed (its token "
                      "works once; run `memdir ui` again for a new one)")  # fmt: skip
    raise Refused(401, "log in with your API key (from `memdir keys create USER`)", login=True)
