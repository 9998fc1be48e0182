"""Queueing background jobs for the person who asks (SPEC J2; docs/postgres.md "Workers and
jobs"): what ``Memory.enqueue`` does, so the CLI's ``memdir jobs add`` and REST's
``POST /v1/jobs`` queue the same job the same way.

A job names its scope the way the database knows it (``user`` or ``project:<id>``) and carries
a dedupe key: an identical job still queued or running is returned instead of a second one. An
``extract`` job carries the session's transcript (a worker may run on another machine) and starts
after the last turn the previous finished job for that session recorded.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, ValidationError
from ..paths import Scope

if TYPE_CHECKING:
    from ..jobs import Job
    from .lifecycle import Memory

__all__ = ["enqueue", "scope_id"]


def scope_id(memory: Memory, scope: Scope) -> str:
    """How the database knows ``scope`` of ``memory`` (``user`` or ``project:<id>``)."""
    from ..pg.store import PgStore  # only a database has a queue (and psycopg stays unloaded)

    store = memory.store(scope)
    if not isinstance(store, PgStore):
        memory.jobs()  # the file backend: the error that says how to configure PostgreSQL
        raise ConfigError("background jobs need the PostgreSQL backend")
    return store.scope_id


def enqueue(
    memory: Memory,
    kind: str,
    *,
    scope: Scope | None = None,
    session: str | None = None,
    rebuild: bool = False,
    embedder: str | None = None,
    max_attempts: int = 3,
) -> tuple[Job, bool]:
    """Queue a job for ``memory``'s owner; ``(job, created)`` (an identical job still queued or
    running is returned instead of a second one)."""
    queue = memory.jobs()
    if kind == "extract":
        if not session:
            raise ValidationError("an extract job needs the session: --session ID")
        return _enqueue_extract(memory, session, max_attempts)
    if session:
        raise ValidationError(f"a {kind} job takes no session (only extract does)")
    chosen: Scope = scope or ("project" if memory.project_root is not None else "user")
    where = scope_id(memory, chosen)
    if kind == "reembed":
        payload: dict[str, Any] = {"rebuild": rebuild, "embedder": embedder}
        key = f"reembed:{where}:{embedder or ''}:{int(rebuild)}"
        return queue.enqueue(kind, where, payload, key=key, max_attempts=max_attempts)
    if kind == "sleep":
        return queue.enqueue(kind, where, {}, key=f"sleep:{where}", max_attempts=max_attempts)
    return queue.enqueue(kind, where)  # an unknown kind: the queue's ValidationError


def _enqueue_extract(memory: Memory, session: str, max_attempts: int) -> tuple[Job, bool]:
    from ..sessions import find_session

    path = find_session(memory.sessions_dir(), session, archived=True)
    text = path.read_text(encoding="utf-8", errors="replace")
    where = scope_id(memory, "project" if memory.project_root is not None else "user")
    prefix = f"extract:{where}:{path.stem}:"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    queue = memory.jobs()
    last = queue.last_done("extract", prefix)
    # the session grew since a job extracted it: start where that one ended
    start = {"done": int(last.progress.get("done", 0))} if last is not None else {}
    return queue.enqueue(
        "extract",
        where,
        {"session": path.stem, "transcript": text},
        key=prefix + digest,
        max_attempts=max_attempts,
        progress=start,
    )
