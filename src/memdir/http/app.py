"""The REST API's application: memdir for apps, one isolated memory per user (SPEC I4).

The package: ``models`` (requests, responses, the OpenAPI schema), ``edge`` (keys, per-user
workers, the status table, the guard) and ``routes`` (the endpoints); this module assembles them.

``create_app(data_dir)`` returns a FastAPI application; ``memdir serve --http`` runs it with
uvicorn. It is a thin adapter: every handler calls ``Memory`` methods and nothing else (the
models it returns are built from the facade's records), and the OpenAPI document is at
``/openapi.json`` (``/docs`` renders it).

**Who.** Every request under ``/v1`` carries ``Authorization: Bearer <key>``; the key store
(``keys.open_keys``: ``keys.json``, or on PostgreSQL the database's ``api_keys`` table, shared
by every server process) maps the key to a user. No key, an unknown key and a revoked key all
get 401 — the answer never says which, so keys cannot be probed.

**Isolation lives in storage.** User ``u`` has its own memdir home and project under
``<data dir>/users/<u>/`` — its own scope directories, change logs, indexes and sessions —
and the request's key picks that user's ``Memory``. No query ever filters by user: another
user's names, change ids and session ids simply do not exist in this user's directories, so
asking for them is a 404, exactly as for a name nobody has.

**Threads** (``users.py``). The core is synchronous (STYLE habit 3): every call runs on one
bounded pool of threads, each keeping a ``Memory`` of its own per user it served (an SQLite
connection stays on the thread that opened it). A user's reads run side by side; their writes
run one at a time (the user's write lock here, the scope's cross-process lock below it). At most
``Users.max_users`` users stay loaded; the least recently used idle one is released.

**Errors** map to status codes in one place (``edge.STATUS``): 404 unknown memory, session or
change; 409 a conflicting edit (the file changed, the name is taken, ``If-Match`` differs) or a
busy session; 413 a body over the limit; 422 invalid input; 401 no valid key; 503 a lock held
too long or a store that could not be reached (with ``Retry-After``). The body is always
``{"error": {"code", "status", "message"}}`` and the message says what to do.

**Bad input never reaches a handler** (``Guard``, an ASGI middleware in front of everything):
a body longer than the limit is refused with 413 from its ``Content-Length`` before a byte of
it is read, and a chunked one as soon as the bytes read pass the limit; a body that is not
UTF-8, a path or query string whose percent-encoding is not UTF-8, and a path segment that
is ``.`` or ``..`` or decodes to ``/``, ``\\`` or NUL (a name that is really a path)
get 422.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from ..errors import MemdirError
from ..observe.otel import RequestSpans
from .edge import (
    MAX_BODY,
    Guard,
    on_crash,
    on_http,
    on_invalid,
    on_memdir_error,
    on_unavailable,
)
from .keys import open_keys
from .routes import health, router
from .users import THREADS, UNAVAILABLE, Users

__all__ = ["MAX_BODY", "Users", "create_app"]


def create_app(
    data_dir: Path,
    *,
    max_body: int = MAX_BODY,
    embedder: str | None = None,
    backend: str | None = None,
    threads: int = THREADS,
) -> FastAPI:
    """The REST API over the users and keys in ``data_dir`` (see ``keys.default_data_dir``);
    every user's ``Memory`` is opened with ``backend`` (a name or a DSN; ``None``: the
    configured one), on a pool of ``threads`` threads."""
    app = FastAPI(
        title="memdir",
        version="1",
        description=(
            "Long-term memory for LLM agents: one isolated memory per user, picked by the API "
            "key (`Authorization: Bearer <key>`, from `memdir keys create USER`). Errors are "
            '`{"error": {"code", "status", "message"}}`; the message says what to do.'
        ),
    )
    app.state.keys = open_keys(data_dir, backend)  # in the database on PostgreSQL
    app.state.users = Users(data_dir, embedder=embedder, backend=backend, threads=threads)
    app.include_router(router)
    app.add_api_route("/health", health, methods=["GET"], tags=["health"])
    app.add_exception_handler(MemdirError, on_memdir_error)
    for kind in UNAVAILABLE:
        app.add_exception_handler(kind, on_unavailable)
    app.add_exception_handler(RequestValidationError, on_invalid)
    app.add_exception_handler(HTTPException, on_http)
    app.add_exception_handler(Exception, on_crash)  # the process edge: answer, then log
    app.add_middleware(Guard, max_body=max_body)
    app.add_middleware(RequestSpans)  # outermost: a refused request is a span too
    return app
