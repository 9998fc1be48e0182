"""The REST API: memdir for apps, one isolated memory per user (SPEC I4).

``create_app(data_dir)`` returns a FastAPI application; ``memdir serve --http`` runs it with
uvicorn. It is a thin adapter: every handler calls ``Memory`` methods and nothing else (the
models it returns are built from the facade's records), and the OpenAPI document is at
``/openapi.json`` (``/docs`` renders it).

**Who.** Every request under ``/v1`` carries ``Authorization: Bearer <key>``; ``keys.KeyRing``
maps the key to a user. No key, an unknown key and a revoked key all get 401 — the answer never
says which, so keys cannot be probed.

**Isolation lives in storage.** User ``u`` has its own memdir home and project under
``<data dir>/users/<u>/`` — its own scope directories, change logs, indexes and sessions —
and the request's key picks that user's ``Memory``. No query ever filters by user: another
user's names, change ids and session ids simply do not exist in this user's directories, so
asking for them is a 404, exactly as for a name nobody has.

**Threads.** The core is synchronous (STYLE habit 3): each user's ``Memory`` lives on one worker
thread of its own, and every call for that user runs there in order. That serialises a user's
requests (the file store is safe under concurrent writers anyway), keeps each SQLite connection
on the thread that opened it, and lets different users run in parallel. A user's worker is made
on their first request and kept while the server runs.

**Errors** map to status codes in one place (``_STATUS``): 404 unknown memory, session or
change; 409 a conflicting edit (the file changed, the name is taken, ``If-Match`` differs) or a
busy session; 413 a body over the limit; 422 invalid input; 401 no valid key; 503 a lock held
too long. The body is always ``{"error": {"code", "status", "message"}}`` and the message says
what to do.

**Bad input never reaches a handler** (``_Guard``, an ASGI middleware in front of everything):
a body longer than the limit is refused with 413 from its ``Content-Length`` before a byte of
it is read, and a chunked one as soon as the bytes read pass the limit; a body that is not
UTF-8, a path or query string whose percent-encoding is not UTF-8, and a path segment that
is ``.`` or ``..`` or decodes to ``/``, ``\\`` or NUL (a name that is really a path)
get 422.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import unquote_to_bytes

from fastapi import APIRouter, Body, Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import (
    AmbiguousError,
    ConflictError,
    LockTimeoutError,
    MemdirError,
    NotFoundError,
    SessionBusyError,
    ValidationError,
)
from .history import Change
from .keys import KeyRing
from .memory import Memory
from .recall import Hit
from .records import MemoryRecord
from .sessions import Record, Session, SessionInfo

__all__ = ["MAX_BODY", "Users", "create_app"]

MAX_BODY = 1024 * 1024  # bytes; a memory is a few hundred, a session append a few thousand
MAX_TEXT = 100_000  # characters in one text field (the body limit holds first for most)
T = TypeVar("T")

# The one place where a library error becomes a status code (most specific class first).
_STATUS: tuple[tuple[type[MemdirError], int, str], ...] = (
    (NotFoundError, 404, "not_found"),
    (ConflictError, 409, "conflict"),
    (SessionBusyError, 409, "session_busy"),
    (AmbiguousError, 409, "ambiguous"),
    (ValidationError, 422, "invalid_input"),
    (LockTimeoutError, 503, "busy"),
    (MemdirError, 500, "server_error"),
)
_HTTP_CODES = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}

ScopeName = Literal["user", "project"]
TypeName = Literal["user", "feedback", "project", "reference"]
SourceName = Literal["user", "inferred", "external", "imported"]
ConfidenceName = Literal["confirmed", "tentative"]


def _plain(value: str) -> str:
    """Text that can be written to a UTF-8 Markdown file: no NUL, no lone surrogate (JSON can
    carry both as escapes; the store would write a file it cannot read back, or fail)."""
    if "\x00" in value:
        raise ValueError("text cannot contain NUL (\\u0000) characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text cannot contain lone UTF-16 surrogates (\\ud800-\\udfff)") from None
    return value


Plain = Annotated[str, AfterValidator(_plain)]
Text = Annotated[Plain, Field(max_length=MAX_TEXT)]
Short = Annotated[Plain, Field(max_length=1000)]
Tags = Annotated[list[Annotated[Plain, Field(max_length=200)]], Field(max_length=100)]


# -- request and response models ---------------------------------------------------------
class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RememberIn(_Model):
    text: Text
    type: TypeName
    scope: ScopeName | None = None
    name: Short | None = None
    description: Short | None = None
    why: Text | None = None
    how_to_apply: Text | None = None
    tags: Tags = []
    related_files: Tags = []
    importance: int | None = Field(default=None, ge=1, le=5)
    source: SourceName = "user"
    confidence: ConfidenceName = "confirmed"
    quote: Text | None = None
    session: Short | None = None
    reason: Short | None = None


class UpdateIn(_Model):
    """Only the keys present are changed; ``null`` removes an optional key."""

    statement: Text | None = None
    why: Text | None = None
    how_to_apply: Text | None = None
    body: Text | None = None
    description: Short | None = None
    type: TypeName | None = None
    tags: Tags | None = None
    related_files: Tags | None = None
    importance: int | None = Field(default=None, ge=1, le=5)
    source: SourceName | None = None
    confidence: ConfidenceName | None = None
    quote: Text | None = None
    session: Short | None = None
    reason: Short | None = None


class RecallIn(_Model):
    query: Text
    top_k: int = Field(default=5, ge=1, le=100)
    scopes: list[ScopeName] | None = None
    types: list[TypeName] = []
    tags: Tags = []
    since: Short | None = None
    until: Short | None = None
    explain: bool = False


class MessagesIn(_Model):
    """Provider messages (OpenAI or Anthropic shape), stored exactly as given."""

    messages: Annotated[list[dict[str, Any]], Field(max_length=1000)] = []


class MemoryOut(BaseModel):
    name: str
    scope: ScopeName
    type: TypeName
    description: str
    statement: str
    why: str | None
    how_to_apply: str | None
    source: SourceName
    confidence: ConfidenceName
    importance: int | None
    created: str | None
    updated: str | None
    tags: list[str]
    related_files: list[str]
    quote: str | None
    session: str | None
    extra: dict[str, Any]
    body: str
    content_hash: str


class MemoryPage(BaseModel):
    items: list[MemoryOut]
    total: int
    offset: int
    limit: int
    next_offset: int | None


class ChangeOut(BaseModel):
    id: str
    time: str
    op: str
    name: str
    scope: str
    actor: str
    source: str | None
    before: str | None
    after: str | None
    reason: str | None
    undoes: str | None
    renamed_from: str | None


class HitOut(BaseModel):
    score: float
    memory: MemoryOut
    explain: dict[str, float] | None = None


class RecallOut(BaseModel):
    hits: list[HitOut]


class SessionInfoOut(BaseModel):
    id: str
    started: str
    last_active: str | None
    last_type: str | None
    preview: str
    size: int
    archived: bool


class RecordOut(BaseModel):
    type: str
    ts: str
    line: int
    content: Any


class SessionOut(BaseModel):
    info: SessionInfoOut
    records: list[RecordOut]
    problems: list[str]


class AppendOut(BaseModel):
    id: str
    appended: int
    records: int
    notices: list[str]


class ContextOut(BaseModel):
    format: str
    context: Any


class ErrorBody(BaseModel):
    code: str
    status: int
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


def _memory_out(record: MemoryRecord) -> MemoryOut:
    data = record.to_dict()
    data.pop("path")  # a path on the server: none of the client's business
    return MemoryOut(**data)


def _change_out(change: Change) -> ChangeOut:
    return ChangeOut(**change.to_dict())


def _hit_out(hit: Hit, explain: bool) -> HitOut:
    detail = {k: float(v) for k, v in hit.explain.items()} if explain else None
    return HitOut(score=round(hit.score, 6), memory=_memory_out(hit.record), explain=detail)


def _info_out(info: SessionInfo) -> SessionInfoOut:
    data = info.to_dict()
    data.pop("path")
    return SessionInfoOut(**data)


def _record_out(record: Record) -> RecordOut:
    return RecordOut(type=record.type, ts=record.ts, line=record.line, content=record.content)


# -- users -------------------------------------------------------------------------------
class _Worker:
    """One user's ``Memory`` and the one thread that uses it."""

    def __init__(self, memory: Memory, user: str) -> None:
        self.memory = memory
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"memdir-{user}")


class Users:
    """Each user's ``Memory`` (home and project under ``<data dir>/users/<user>/``), each run on
    a thread of its own. ``call(user, fn)`` runs ``fn(memory)`` there and awaits the result."""

    def __init__(self, data_dir: Path, *, embedder: str | None = None) -> None:
        self.root = data_dir / "users"
        self.embedder = embedder
        self._workers: dict[str, _Worker] = {}
        self._lock = threading.Lock()

    def home(self, user: str) -> Path:
        return self.root / user

    def _worker(self, user: str) -> _Worker:
        with self._lock:
            worker = self._workers.get(user)
            if worker is None:
                home = self.home(user)
                (home / "project").mkdir(parents=True, exist_ok=True)
                memory = Memory(
                    home=home / "home",
                    project=home / "project",
                    actor="api",
                    embedder=self.embedder,
                    llm=False,  # the server never calls a model on its own
                )
                worker = self._workers[user] = _Worker(memory, user)
                worker.thread.submit(memory.init)  # first in the queue: before any request
            return worker

    async def call(self, user: str, fn: Callable[[Memory], T]) -> T:
        worker = self._worker(user)
        future = worker.thread.submit(fn, worker.memory)
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        with self._lock:
            for worker in self._workers.values():
                worker.thread.shutdown(wait=True)
            self._workers.clear()


# -- errors ------------------------------------------------------------------------------
def _error(status: int, code: str, message: str) -> JSONResponse:
    body = ErrorOut(error=ErrorBody(code=code, status=status, message=message))
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


def _status_of(exc: MemdirError) -> tuple[int, str]:
    for kind, status, code in _STATUS:
        if isinstance(exc, kind):
            return status, code
    raise AssertionError("MemdirError is last in _STATUS")  # pragma: no cover


async def _on_memdir_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, MemdirError)
    status, code = _status_of(exc)
    message = str(exc)
    users: Users = request.app.state.users
    # the user's own server-side directory is noise to an API client: show it as "~"
    user = getattr(request.state, "user", None)
    if user:
        message = message.replace(str(users.home(user)), "~")
    return _error(status, code, message)


async def _on_invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    message = "invalid request: " + "; ".join(parts) + " (see /openapi.json for the schema)"
    return _error(422, "invalid_input", message)


async def _on_crash(request: Request, exc: Exception) -> JSONResponse:
    """A bug in memdir (not a ``MemdirError``): the same JSON shape; Starlette re-raises it
    after this answer, so the server log keeps the traceback."""
    return _error(
        500,
        "server_error",
        f"memdir failed unexpectedly ({type(exc).__name__}); nothing is known to be written. "
        "The server log has the details: please report it",
    )


async def _on_http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, "error")
    message = str(exc.detail)
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


class _Guard:
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
    keys: KeyRing = request.app.state.keys
    user = await asyncio.to_thread(keys.user_for, credentials.credentials)
    if user is None:
        raise _Unauthorized()
    request.state.user = user
    return user


User = Annotated[str, Depends(_user)]
ScopeQ = Annotated[ScopeName | None, Query(description="Only this scope (default: both)")]


def _run(request: Request, user: str, fn: Callable[[Memory], T]) -> Awaitable[T]:
    users: Users = request.app.state.users
    return users.call(user, fn)


_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": desc}
    for status, desc in (
        (401, "No valid API key"),
        (404, "No such memory, change or session"),
        (409, "Conflicting edit, name taken, or session busy"),
        (413, "Body too large"),
        (422, "Invalid input"),
    )
}
router = APIRouter(prefix="/v1", responses=_ERRORS)


# -- memories ----------------------------------------------------------------------------
@router.post("/memories", status_code=201, tags=["memories"])
async def create_memory(request: Request, user: User, item: RememberIn) -> MemoryOut:
    """Store a new memory (the scope defaults from the type). 409 if ``name`` is taken."""
    args = item.model_dump()
    text = args.pop("text")
    record = await _run(request, user, lambda m: m.remember(text, **args))
    return _memory_out(record)


@router.get("/memories", tags=["memories"])
async def list_memories(
    request: Request,
    user: User,
    scope: ScopeQ = None,
    type: Annotated[TypeName | None, Query()] = None,
    tag: Annotated[list[Annotated[str, Field(max_length=200)]], Query(max_length=20)] = [],  # noqa: B006
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> MemoryPage:
    """Memories in name order (scope, then name), ``limit`` at a time from ``offset``."""
    records = await _run(request, user, lambda m: m.list(scope=scope, type=type, tags=tag))
    records = sorted(records, key=lambda r: (r.scope, r.name))
    page = records[offset : offset + limit]
    following = offset + limit if offset + limit < len(records) else None
    return MemoryPage(
        items=[_memory_out(r) for r in page],
        total=len(records),
        offset=offset,
        limit=limit,
        next_offset=following,
    )


@router.get("/memories/{name}", tags=["memories"])
async def get_memory(request: Request, user: User, name: str, scope: ScopeQ = None) -> MemoryOut:
    """One memory, looked up in both scopes unless ``scope`` is given."""
    return _memory_out(await _run(request, user, lambda m: m.get(name, scope=scope)))


def _update(
    m: Memory, name: str, scope: ScopeName | None, fields: dict[str, Any], if_match: str | None
) -> MemoryRecord:
    reason = fields.pop("reason", None)
    if if_match is not None:
        current = m.get(name, scope=scope)
        if current.content_hash != if_match.strip('"'):
            raise ConflictError(
                f"{name!r} changed since you read it (If-Match {if_match} != "
                f"{current.content_hash}): get it again and redo your edit"
            )
        scope = current.scope
    return m.update(name, scope=scope, reason=reason, **fields)


@router.patch("/memories/{name}", tags=["memories"])
async def update_memory(
    request: Request,
    user: User,
    name: str,
    change: UpdateIn,
    scope: ScopeQ = None,
    if_match: Annotated[str | None, Header(max_length=200)] = None,
) -> MemoryOut:
    """Change the fields given (``null`` removes an optional one). With ``If-Match: <content
    hash>`` nothing is written unless the memory is still the version read (else 409)."""
    fields = change.model_dump(exclude_unset=True)
    record = await _run(request, user, lambda m: _update(m, name, scope, fields, if_match))
    return _memory_out(record)


@router.delete("/memories/{name}", tags=["memories"])
async def forget_memory(
    request: Request,
    user: User,
    name: str,
    scope: ScopeQ = None,
    reason: Annotated[str | None, Query(max_length=1000)] = None,
) -> ChangeOut:
    """Delete a memory; the change it returns can be undone."""
    change = await _run(request, user, lambda m: m.forget(name, scope=scope, reason=reason))
    return _change_out(change)


@router.get("/memories/{name}/history", tags=["history"])
async def memory_history(
    request: Request, user: User, name: str, scope: ScopeQ = None
) -> list[ChangeOut]:
    """Every change of one memory, oldest first (a name never used: an empty list)."""
    changes = await _run(request, user, lambda m: m.history(name, scope=scope))
    return [_change_out(c) for c in changes]


@router.get("/history", tags=["history"])
async def all_history(
    request: Request,
    user: User,
    scope: ScopeQ = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> list[ChangeOut]:
    """The latest ``limit`` changes to any memory, oldest first."""
    changes = await _run(request, user, lambda m: m.history(scope=scope))
    return [_change_out(c) for c in changes[-limit:]]


@router.post("/changes/{change_id}/undo", tags=["history"])
async def undo_change(request: Request, user: User, change_id: str) -> ChangeOut:
    """Revert one change (at least 4 characters of its id), restoring the bytes before it."""
    return _change_out(await _run(request, user, lambda m: m.undo(change_id)))


# -- recall ------------------------------------------------------------------------------
@router.post("/recall", tags=["recall"])
async def recall(request: Request, user: User, query: RecallIn) -> RecallOut:
    """The memories that best answer ``query``, best first (keywords + meaning + entities)."""
    args = query.model_dump()
    text, explain = args.pop("query"), args["explain"]
    hits = await _run(request, user, lambda m: m.recall(text, **args))
    return RecallOut(hits=[_hit_out(h, explain) for h in hits])


# -- sessions and context ----------------------------------------------------------------
def _append(m: Memory, session_id: str | None, messages: Sequence[dict[str, Any]]) -> AppendOut:
    with m.session(session_id) as session:
        for message in messages:
            session.append(message)
        return AppendOut(
            id=session.id,
            appended=len(messages),
            records=len(session.records),
            notices=list(session.notices),
        )


@router.post("/sessions", status_code=201, tags=["sessions"])
async def create_session(
    request: Request, user: User, body: Annotated[MessagesIn | None, Body()] = None
) -> AppendOut:
    """Start a new session, optionally with its first messages."""
    messages = body.messages if body else []
    return await _run(request, user, lambda m: _append(m, None, messages))


@router.post("/sessions/{session_id}/messages", tags=["sessions"])
async def append_messages(
    request: Request, user: User, session_id: str, body: MessagesIn
) -> AppendOut:
    """Append provider messages to a session (to disk first; 409 while another writer has it)."""
    return await _run(request, user, lambda m: _append(m, session_id, body.messages))


@router.get("/sessions", tags=["sessions"])
async def list_sessions(
    request: Request, user: User, archived: bool = False
) -> list[SessionInfoOut]:
    """Every session, oldest first (``archived``: the archived ones instead)."""
    infos = await _run(request, user, lambda m: m.sessions(archived=archived))
    return [_info_out(i) for i in infos]


def _show(m: Memory, session_id: str) -> SessionOut:
    session = m.read_session(session_id)
    return SessionOut(
        info=_info_out(session.info()),
        records=[_record_out(r) for r in session.records],
        problems=[p.reason for p in session.problems],
    )


@router.get("/sessions/{session_id}", tags=["sessions"])
async def show_session(request: Request, user: User, session_id: str) -> SessionOut:
    """A session's records as stored, and the lines that could not be read."""
    return await _run(request, user, lambda m: _show(m, session_id))


def _context(m: Memory, session_id: str | None, format: str) -> Any:
    session: Session | None = m.read_session(session_id) if session_id else None
    return m.context(session, format)


@router.get("/context", tags=["sessions"])
async def context(
    request: Request,
    user: User,
    session: Annotated[str | None, Query(max_length=40)] = None,
    format: Literal["openai", "anthropic", "text"] = "openai",
) -> ContextOut:
    """Exactly what the model would be sent next: for ``session``, or for a new session."""
    result = await _run(request, user, lambda m: _context(m, session, format))
    return ContextOut(format=format, context=result)


# -- the application ---------------------------------------------------------------------
async def health() -> dict[str, str]:
    """Unauthenticated liveness check."""
    return {"status": "ok"}


def create_app(data_dir: Path, *, max_body: int = MAX_BODY, embedder: str | None = None) -> FastAPI:
    """The REST API over the users and keys in ``data_dir`` (see ``keys.default_data_dir``)."""
    app = FastAPI(
        title="memdir",
        version="1",
        description=(
            "Long-term memory for LLM agents: one isolated memory per user, picked by the API "
            "key (`Authorization: Bearer <key>`, from `memdir keys create USER`). Errors are "
            '`{"error": {"code", "status", "message"}}`; the message says what to do.'
        ),
    )
    app.state.keys = KeyRing(data_dir)
    app.state.users = Users(data_dir, embedder=embedder)
    app.include_router(router)
    app.add_api_route("/health", health, methods=["GET"], tags=["health"])
    app.add_exception_handler(MemdirError, _on_memdir_error)
    app.add_exception_handler(RequestValidationError, _on_invalid)
    app.add_exception_handler(HTTPException, _on_http)
    app.add_exception_handler(Exception, _on_crash)  # the process edge: answer, then log
    app.add_middleware(_Guard, max_body=max_body)
    return app
