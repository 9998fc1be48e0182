"""The REST API's endpoints: each runs one function of the user's ``Memory`` on the server's
pool — ``edge.read`` for what only reads (concurrently with the user's other calls),
``edge.run`` for what may write (after the user's other writes) — and builds its response from
what the facade returned. Input is checked by the models and the facade, not here; the one
comparison made here is ``If-Match`` (inside the same write call as the write that follows, so
no other write of that user can come in between)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Header, Query, Request, Response
from pydantic import BaseModel, Field

from ..errors import ConflictError
from ..jobs import Job
from ..memory import Memory
from ..records import MemoryRecord
from ..sessions import Session
from .edge import ERRORS, ScopeQ, User, read, run
from .models import (
    AppendOut,
    ChangeOut,
    ContextOut,
    MemoryOut,
    MemoryPage,
    MessagesIn,
    RecallIn,
    RecallOut,
    RememberIn,
    RememberOut,
    ScopeName,
    SessionInfoOut,
    SessionOut,
    SleepIn,
    SleepOut,
    TypeName,
    UpdateIn,
    change_out,
    hit_out,
    info_out,
    memory_out,
    record_out,
    remember_out,
)

__all__ = ["health", "router"]

router = APIRouter(prefix="/v1", responses=ERRORS)


# -- memories ----------------------------------------------------------------------------
@router.post("/memories", status_code=201, tags=["memories"])
async def create_memory(
    request: Request, response: Response, user: User, item: RememberIn
) -> RememberOut:
    """Store a new memory (the scope defaults from the type); the same statement again in the
    same scope reinforces the one there (200, ``created: false``). 409 if ``name`` is taken."""
    args = item.model_dump()
    text = args.pop("text")
    record = await run(request, user, lambda m: m.remember(text, **args))
    if record.is_new is False:
        response.status_code = 200
    return remember_out(record)


@router.get("/memories", tags=["memories"])
async def list_memories(
    request: Request,
    user: User,
    scope: ScopeQ = None,
    type: Annotated[TypeName | None, Query()] = None,
    tag: Annotated[list[Annotated[str, Field(max_length=200)]], Query(max_length=20)] = [],  # noqa: B006
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    kind: Annotated[Literal["memory", "knowledge"] | None, Query()] = None,
) -> MemoryPage:
    """Memories in name order (scope, then name), ``limit`` at a time from ``offset``;
    ``kind=knowledge``: only imported reference material (``memory``: everything else)."""
    records = await read(request, user, lambda m: m.list(scope=scope, type=type, tags=tag))
    records = [r for r in records if kind is None or r.kind == kind]
    records = sorted(records, key=lambda r: (r.scope, r.name))
    page = records[offset : offset + limit]
    following = offset + limit if offset + limit < len(records) else None
    return MemoryPage(
        items=[memory_out(r) for r in page],
        total=len(records),
        offset=offset,
        limit=limit,
        next_offset=following,
    )


@router.get("/memories/{name}", tags=["memories"])
async def get_memory(request: Request, user: User, name: str, scope: ScopeQ = None) -> MemoryOut:
    """One memory, looked up in both scopes unless ``scope`` is given."""
    return memory_out(await read(request, user, lambda m: m.get(name, scope=scope)))


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
    record = await run(request, user, lambda m: _update(m, name, scope, fields, if_match))
    return memory_out(record)


@router.delete("/memories/{name}", tags=["memories"])
async def forget_memory(
    request: Request,
    user: User,
    name: str,
    scope: ScopeQ = None,
    reason: Annotated[str | None, Query(max_length=1000)] = None,
) -> ChangeOut:
    """Delete a memory; the change it returns can be undone."""
    change = await run(request, user, lambda m: m.forget(name, scope=scope, reason=reason))
    return change_out(change)


@router.get("/memories/{name}/history", tags=["history"])
async def memory_history(
    request: Request, user: User, name: str, scope: ScopeQ = None
) -> list[ChangeOut]:
    """Every change of one memory, oldest first; 404 for a name that has neither a file nor
    a change (a forgotten memory still has its history)."""
    changes = await read(request, user, lambda m: m.memory_history(name, scope=scope))
    return [change_out(c) for c in changes]


@router.get("/history", tags=["history"])
async def all_history(
    request: Request,
    user: User,
    scope: ScopeQ = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> list[ChangeOut]:
    """The latest ``limit`` changes to any memory, oldest first."""
    changes = await read(request, user, lambda m: m.history(scope=scope))
    return [change_out(c) for c in changes[-limit:]]


@router.post("/changes/{change_id}/undo", tags=["history"])
async def undo_change(request: Request, user: User, change_id: str) -> ChangeOut:
    """Revert one change (at least 4 characters of its id), restoring the bytes before it."""
    return change_out(await run(request, user, lambda m: m.undo(change_id)))


# -- recall ------------------------------------------------------------------------------
@router.post("/recall", tags=["recall"])
async def recall(request: Request, user: User, query: RecallIn) -> RecallOut:
    """The memories that best answer ``query``, best first (keywords + meaning + entities)."""
    args = query.model_dump()
    text, explain = args.pop("query"), args["explain"]
    hits = await read(request, user, lambda m: m.recall(text, **args))
    return RecallOut(hits=[hit_out(h, explain) for h in hits])


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
    return await run(request, user, lambda m: _append(m, None, messages))


@router.post("/sessions/{session_id}/messages", tags=["sessions"])
async def append_messages(
    request: Request, user: User, session_id: str, body: MessagesIn
) -> AppendOut:
    """Append provider messages to a session (to disk first; 409 while another writer has it)."""
    return await run(request, user, lambda m: _append(m, session_id, body.messages))


@router.get("/sessions", tags=["sessions"])
async def list_sessions(
    request: Request, user: User, archived: bool = False
) -> list[SessionInfoOut]:
    """Every session, oldest first (``archived``: the archived ones instead)."""
    infos = await read(request, user, lambda m: m.sessions(archived=archived))
    return [info_out(i) for i in infos]


def _show(m: Memory, session_id: str) -> SessionOut:
    session = m.read_session(session_id)
    return SessionOut(
        info=info_out(session.info()),
        records=[record_out(r) for r in session.records],
        problems=[p.reason for p in session.problems],
    )


@router.get("/sessions/{session_id}", tags=["sessions"])
async def show_session(request: Request, user: User, session_id: str) -> SessionOut:
    """A session's records as stored, and the lines that could not be read."""
    return await read(request, user, lambda m: _show(m, session_id))


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
    result = await read(request, user, lambda m: _context(m, session, format))
    home = str(request.app.state.users.home(user))
    return ContextOut(format=format, context=_relative(result, home))


def _relative(value: Any, root: str) -> Any:
    """``value`` with the user's server-side directory shown as ``~`` in every string, as
    error messages show it (issue 26: the context named absolute server paths)."""
    if isinstance(value, str):
        return value.replace(root, "~")
    if isinstance(value, list):
        return [_relative(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _relative(v, root) for k, v in value.items()}
    return value


# -- the application ---------------------------------------------------------------------
# -- sleep -------------------------------------------------------------------------------
def _sleep(m: Memory, body: SleepIn | None, dry_run: bool) -> SleepOut:
    args = body or SleepIn()
    # the server never calls a model on its own: sleep judges with its offline rules
    report = m.sleep(dry_run=dry_run, scope=args.scope, offline=True, sessions=args.sessions)
    return SleepOut(**report.to_dict())


@router.post("/sleep/plan", tags=["sleep"])
async def plan_sleep(
    request: Request, user: User, body: Annotated[SleepIn | None, Body()] = None
) -> SleepOut:
    """What sleep would do now — merges, conflicts, archiving, deletions, promotions, expired
    sessions — with the reason for each step. Nothing is written."""
    return await run(request, user, lambda m: _sleep(m, body, dry_run=True))


@router.post("/sleep", tags=["sleep"])
async def apply_sleep(
    request: Request, user: User, body: Annotated[SleepIn | None, Body()] = None
) -> SleepOut:
    """Plan from the memories as they are now and apply the plan in one step; ``run`` undoes
    all of it (``POST /v1/sleep/runs/{run}/undo``)."""
    return await run(request, user, lambda m: _sleep(m, body, dry_run=False))


@router.post("/sleep/runs/{run_id}/undo", tags=["sleep"])
async def undo_sleep(request: Request, user: User, run_id: str) -> list[ChangeOut]:
    """Revert every change of one run, newest first: all of it, or nothing if a file moved on."""
    changes = await run(request, user, lambda m: m.undo_run(run_id))
    return [change_out(c) for c in changes]


# -- background jobs (the PostgreSQL backend's queue; docs/postgres.md "Workers and jobs") ------
class JobOut(BaseModel):
    """One background job of the key's user: its state, attempts, progress and last error."""

    id: int
    kind: str
    scope: str
    state: str
    attempts: int
    max_attempts: int
    last_error: str | None
    progress: dict[str, Any]
    dedupe_key: str | None
    worker: str | None
    created_at: str | None
    started_at: str | None
    heartbeat_at: str | None
    finished_at: str | None


def _job_out(job: Job) -> JobOut:
    return JobOut(**job.to_dict())


JobState = Literal["queued", "running", "done", "failed", "cancelled"]


class JobIn(BaseModel):
    """A job to queue, as ``memdir jobs add`` takes it."""

    model_config = {"extra": "forbid"}

    kind: Literal["reembed", "extract", "sleep"]
    scope: Literal["user", "project"] | None = None
    session: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    rebuild: bool = False
    embedder: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    max_attempts: Annotated[int, Field(ge=1, le=100)] = 3


class JobQueuedOut(JobOut):
    """The job queued, or the identical one already queued or running (``created: false``)."""

    created: bool


@router.post("/jobs", status_code=201, tags=["jobs"])
async def create_job(request: Request, response: Response, user: User, item: JobIn) -> JobQueuedOut:
    """Queue a background job for the key's user (201); an identical job still queued or
    running is returned instead (200, ``created: false``). 501 on the file backend."""
    args = item.model_dump()
    kind = args.pop("kind")
    job, created = await run(request, user, lambda m: m.enqueue(kind, **args))
    if not created:
        response.status_code = 200
    return JobQueuedOut(**job.to_dict(), created=created)


@router.get("/jobs", tags=["jobs"])
async def list_jobs(
    request: Request,
    user: User,
    state: Annotated[JobState | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> list[JobOut]:
    """The key's user's jobs, newest first (501 on the file backend: no queue there)."""
    found = await read(request, user, lambda m: m.jobs().list(state=state, limit=limit))
    return [_job_out(j) for j in found]


@router.get("/jobs/{job_id}", tags=["jobs"])
async def get_job(request: Request, user: User, job_id: int) -> JobOut:
    """One job of the key's user; another user's job is 404, as one nobody has."""
    return _job_out(await read(request, user, lambda m: m.jobs().get(job_id)))


async def health() -> dict[str, str]:
    """Unauthenticated liveness check."""
    return {"status": "ok"}
