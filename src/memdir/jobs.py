"""Background jobs (SPEC J2): what a job is, and what the facade offers over a backend's queue.

A *job* is one piece of background work for one owner and one scope — re-embedding a scope
(``reembed``), extracting a session's turns into memories (``extract``), consolidating a scope
(``sleep``) — with its state, attempts, last error and progress. The queue itself lives in the
database (``pg/jobs.py``: a ``jobs`` table claimed with ``FOR UPDATE SKIP LOCKED``); the
workers that run jobs are ``memdir.worker`` (``memdir worker``). The file backend has no queue:
``Memory.jobs()`` there is an ``UnsupportedError`` that says how to configure PostgreSQL.

This module holds only the shapes the facade, the CLI and REST share, so none of them imports
the database code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "KINDS",
    "STATES",
    "WORKERS_NEED_POSTGRES",
    "Job",
    "JobQueue",
]

KINDS = ("reembed", "extract", "sleep")
STATES = ("queued", "running", "done", "failed", "cancelled")
WORKERS_NEED_POSTGRES = (
    "background jobs and workers need the PostgreSQL backend (the queue is a table in the "
    "database); this memdir keeps its memories in the {backend} backend — configure one with "
    "memdir config set backend postgresql://USER:PASSWORD@HOST:PORT/DB (or MEMDIR_BACKEND), "
    "see docs/postgres.md 'Workers and jobs'"
)


@dataclass(frozen=True)
class Job:
    """One job as the queue holds it. ``scope`` is the scope's id in the database (``user``
    or ``project:<id>``); ``progress`` is what the job last reported (``done``/``total`` and
    kind-specific keys); ``payload`` is its input (a session's transcript for ``extract``)."""

    id: int
    owner: str
    scope: str
    kind: str
    state: str
    attempts: int
    max_attempts: int
    last_error: str | None
    progress: dict[str, Any] = field(default_factory=dict)
    payload: dict[str, Any] = field(default_factory=dict)
    dedupe_key: str | None = None
    worker: str | None = None
    created_at: str | None = None
    started_at: str | None = None
    heartbeat_at: str | None = None
    finished_at: str | None = None

    def to_dict(self, *, payload: bool = False) -> dict[str, Any]:
        """The job for ``--json`` and REST; the payload (which may hold a whole transcript)
        only when asked for."""
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "scope": self.scope,
            "state": self.state,
            "attempts": self.attempts,
            "max_attempts": self.max_attempts,
            "last_error": self.last_error,
            "progress": self.progress,
            "dedupe_key": self.dedupe_key,
            "worker": self.worker,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "heartbeat_at": self.heartbeat_at,
            "finished_at": self.finished_at,
        }
        if payload:
            out["payload"] = self.payload
        return out


@runtime_checkable
class JobQueue(Protocol):
    """One owner's view of the queue (``Memory.jobs()``): row-level security shows it that
    owner's jobs only, so another owner's job id is a ``NotFoundError``."""

    def enqueue(
        self,
        kind: str,
        scope: str,
        payload: dict[str, Any] | None = None,
        *,
        key: str | None = None,
        max_attempts: int = 3,
        progress: dict[str, Any] | None = None,
    ) -> tuple[Job, bool]:
        """Queue a job; ``(job, created)`` — with ``key``, a job with the same key still queued
        or running is returned instead (``created`` false)."""
        ...

    def list(
        self, *, state: str | None = None, kind: str | None = None, limit: int = 100
    ) -> list[Job]:
        """Newest first."""
        ...

    def get(self, id: int) -> Job: ...

    def retry(self, id: int) -> Job:
        """A failed or cancelled job queued again, its attempts reset."""
        ...

    def cancel(self, id: int) -> Job:
        """A queued or running job cancelled (a running one stops at its next progress)."""
        ...

    def last_done(self, kind: str, key_prefix: str) -> Job | None:
        """The newest finished job of ``kind`` whose key starts with ``key_prefix``."""
        ...
