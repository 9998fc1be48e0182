"""The background job queue in PostgreSQL (SPEC J2): the ``jobs`` table, claimed with
``SELECT … FOR UPDATE SKIP LOCKED``.

**Two views.** ``PgJobQueue`` is one owner's view, on that owner's connections: row-level
security (the usual ``owner = current_setting('memdir.owner')`` policy) shows it its own jobs
only — what ``memdir jobs`` and ``GET /v1/jobs`` read. ``WorkerQueue`` is a worker's: a
connection of its own that sets ``memdir.worker = on`` and *no* owner, so the second policy on
``jobs`` shows it every owner's jobs while the memory tables, whose policies know only owners,
show it nothing. The worker then does each job's work through a backend opened as the job's
owner. (Like the owner setting, the worker setting says whom a connection acts for; the role's
rights are what guard the database from the application itself — docs/postgres.md.)

**The lease** is a session-level advisory lock on the job (``hashtextextended('memdir job
<id>')``), taken in the transaction that marks the job running and held by the worker's
connection until the job ends. A worker that dies — SIGKILL, a lost machine — loses its
connection and with it the lock, at once and without any clock; the next claim finds the job
``running`` with nobody holding its lock and takes it over (attempt + 1). No timeout has to
pass and a live but slow worker is never robbed. ``heartbeat_at`` records the last progress.

**At least once.** A job may be run again from its last recorded progress after a crash, so
each kind is idempotent by design (``memdir.worker`` says how); ``dedupe_key`` keeps a second
identical request from queueing a second job while the first is queued or running.

**Failures.** A job's error is kept in ``last_error``. A transient one (the database or the
model unreachable) queues the job again after ``retry_delay_s`` until ``max_attempts``; a
permanent one (unsupported on this backend, bad input) fails it at once; a job whose workers
died ``max_attempts`` times is failed too, so a job that kills its worker cannot loop forever.
``memdir jobs retry ID`` queues a failed job again.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import MemdirError, NotFoundError, StorageUnavailableError, ValidationError
from ..jobs import KINDS, STATES, Job
from .connect import CONNECT_TIMEOUT_S, Database, where

if TYPE_CHECKING:
    import psycopg

__all__ = ["JobLostError", "PgJobQueue", "WorkerQueue", "lock_key"]

NOTIFY_CHANNEL = "memdir_jobs"
_COLUMNS = (
    "id, owner, scope, kind, state, attempts, max_attempts, last_error, progress, payload, "
    "dedupe_key, worker, created_at, started_at, heartbeat_at, finished_at"
)


class JobLostError(MemdirError):
    """The job is no longer this worker's: cancelled, or taken over after its lease was lost.
    The worker stops it without recording anything."""


def lock_key(job_id: int) -> str:
    """The text whose ``hashtextextended`` is the job's advisory lock."""
    return f"memdir job {job_id}"


def _iso(value: Any) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else None


def _job(row: tuple[Any, ...]) -> Job:
    return Job(
        id=int(row[0]),
        owner=str(row[1]),
        scope=str(row[2]),
        kind=str(row[3]),
        state=str(row[4]),
        attempts=int(row[5]),
        max_attempts=int(row[6]),
        last_error=row[7],
        progress=dict(row[8] or {}),
        payload=dict(row[9] or {}),
        dedupe_key=row[10],
        worker=row[11],
        created_at=_iso(row[12]),
        started_at=_iso(row[13]),
        heartbeat_at=_iso(row[14]),
        finished_at=_iso(row[15]),
    )


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValidationError(f"job kind must be one of {', '.join(KINDS)} (got {kind!r})")


def _check_state(state: str | None) -> None:
    if state is not None and state not in STATES:
        raise ValidationError(f"job state must be one of {', '.join(STATES)} (got {state!r})")


class PgJobQueue:
    """One owner's jobs (``jobs.JobQueue``), on that owner's ``Database``."""

    def __init__(self, db: Database) -> None:
        self.db = db

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
        _check_kind(kind)
        if max_attempts < 1:
            raise ValidationError(f"max_attempts must be at least 1 (got {max_attempts})")
        from psycopg.types.json import Jsonb

        with self.db.transaction() as cur:
            cur.execute(
                f"INSERT INTO jobs (owner, scope, kind, payload, dedupe_key, max_attempts, "
                f"progress) VALUES (%s, %s, %s, %s, %s, %s, %s) "
                f"ON CONFLICT (owner, dedupe_key) WHERE dedupe_key IS NOT NULL "
                f"AND state IN ('queued', 'running') DO NOTHING RETURNING {_COLUMNS}",
                (
                    self.db.owner,
                    scope,
                    kind,
                    Jsonb(payload or {}),
                    key,
                    max_attempts,
                    Jsonb(progress or {}),
                ),
            )
            row = cur.fetchone()
            if row is not None:
                cur.execute(f"NOTIFY {NOTIFY_CHANNEL}")
                return _job(row), True
            cur.execute(
                f"SELECT {_COLUMNS} FROM jobs WHERE dedupe_key = %s "
                "AND state IN ('queued', 'running')",
                (key,),
            )
            found = cur.fetchone()
        if found is None:  # finished between the two statements: queue it after all
            return self.enqueue(
                kind, scope, payload, key=key, max_attempts=max_attempts, progress=progress
            )
        return _job(found), False

    def list(
        self, *, state: str | None = None, kind: str | None = None, limit: int = 100
    ) -> list[Job]:
        _check_state(state)
        if kind is not None:
            _check_kind(kind)
        with self.db.cursor() as cur:
            cur.execute(
                f"SELECT {_COLUMNS} FROM jobs WHERE (%s::text IS NULL OR state = %s) "
                "AND (%s::text IS NULL OR kind = %s) ORDER BY id DESC LIMIT %s",
                (state, state, kind, kind, limit),
            )
            return [_job(r) for r in cur.fetchall()]

    def get(self, id: int) -> Job:
        with self.db.cursor() as cur:
            cur.execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = %s", (id,))
            row = cur.fetchone()
        if row is None:
            raise NotFoundError(f"no job {id}: memdir jobs lists the jobs there are")
        return _job(row)

    def _move(self, id: int, sql: str, allowed: tuple[str, ...], verb: str) -> Job:
        with self.db.transaction() as cur:
            cur.execute("SELECT state FROM jobs WHERE id = %s FOR UPDATE", (id,))
            row = cur.fetchone()
            if row is None:
                raise NotFoundError(f"no job {id}: memdir jobs lists the jobs there are")
            if row[0] not in allowed:
                raise ValidationError(
                    f"job {id} is {row[0]}: only a {' or '.join(allowed)} job can be {verb} — "
                    "nothing was changed"
                )
            cur.execute(sql + f" WHERE id = %s RETURNING {_COLUMNS}", (id,))
            moved = cur.fetchone()
            cur.execute(f"NOTIFY {NOTIFY_CHANNEL}")
        assert moved is not None
        return _job(moved)

    def retry(self, id: int) -> Job:
        return self._move(
            id,
            "UPDATE jobs SET state = 'queued', attempts = 0, run_after = now(), worker = NULL, "
            "finished_at = NULL",
            ("failed", "cancelled"),
            "retried",
        )

    def cancel(self, id: int) -> Job:
        return self._move(
            id,
            "UPDATE jobs SET state = 'cancelled', finished_at = now()",
            ("queued", "running"),
            "cancelled",
        )

    def last_done(self, kind: str, key_prefix: str) -> Job | None:
        with self.db.cursor() as cur:
            cur.execute(
                f"SELECT {_COLUMNS} FROM jobs WHERE kind = %s AND state = 'done' "
                "AND starts_with(dedupe_key, %s) ORDER BY id DESC LIMIT 1",
                (kind, key_prefix),
            )
            row = cur.fetchone()
        return _job(row) if row else None


class WorkerQueue:
    """A worker's connection to the queue: claims, progress, the end of a job (one thread's;
    see the module docstring for what it may see)."""

    def __init__(self, dsn: str, worker: str) -> None:
        self._dsn = dsn
        self.where = where(dsn)
        self.worker = worker
        self._conn: psycopg.Connection[Any] | None = None
        self._held: int | None = None  # the job whose lock this connection holds

    # -- the connection ----------------------------------------------------------------
    def _connection(self) -> psycopg.Connection[Any]:
        import psycopg

        if self._conn is not None and not self._conn.closed:
            return self._conn
        try:
            conn = psycopg.connect(self._dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
            conn.execute("SELECT set_config('memdir.worker', 'on', false)")
        except psycopg.OperationalError as exc:
            raise self._unavailable(exc) from None
        self._conn = conn
        self._held = None  # a new connection holds no lock
        return conn

    def _unavailable(self, exc: BaseException) -> StorageUnavailableError:
        self._conn = None
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return StorageUnavailableError(
            f"the PostgreSQL database {self.where} cannot be reached "
            f"({reason.replace(self._dsn, self.where)}); the worker tries again when it is back"
        )

    @contextmanager
    def _tx(self) -> Iterator[psycopg.Cursor[Any]]:
        import psycopg

        conn = self._connection()
        try:
            with conn.transaction(), conn.cursor() as cur:
                yield cur
        except psycopg.OperationalError as exc:
            if not (conn.closed or conn.broken):
                raise
            raise self._unavailable(exc) from None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- claiming ------------------------------------------------------------------------
    def claim(self, kinds: tuple[str, ...] = KINDS) -> Job | None:
        """The next job to run, now marked ``running`` for this worker with its lease held;
        ``None`` when there is none. A queued job comes first; else a running job whose
        worker died (nobody holds its lease)."""
        assert self._held is None, "finish the job this worker holds first"
        try:
            return self._claim(kinds)
        except BaseException:
            self._release()  # a lease taken in a transaction that did not commit
            raise

    def _claim(self, kinds: tuple[str, ...]) -> Job | None:
        while True:
            with self._tx() as cur:
                # a few candidates: a job queued again while its last worker still holds the
                # lease (retried before that worker noticed) is passed over, not waited for
                cur.execute(
                    "SELECT id FROM jobs WHERE state = 'queued' AND run_after <= now() "
                    "AND kind = ANY(%s) ORDER BY run_after, id LIMIT 8 FOR UPDATE SKIP LOCKED",
                    (list(kinds),),
                )
                for (id,) in cur.fetchall():
                    if self._lease(cur, int(id)):
                        return self._start(cur, int(id), None)
                orphan = self._orphan(cur, kinds)
                if orphan is None:
                    return None
                id, attempts, max_attempts, worker = orphan
                if attempts < max_attempts:
                    why = f"worker {worker} stopped during attempt {attempts} (killed or lost)"
                    return self._start(cur, id, why)
                cur.execute(
                    "UPDATE jobs SET state = 'failed', finished_at = now(), worker = NULL, "
                    "last_error = %s WHERE id = %s",
                    (
                        f"its worker stopped during each of {attempts} attempts (last: "
                        f"{worker}); memdir jobs retry {id} queues it again",
                        id,
                    ),
                )
            self._release()  # failed for good: look for the next one

    def _lease(self, cur: psycopg.Cursor[Any], id: int) -> bool:
        cur.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (lock_key(id),))
        got = cur.fetchone()
        if got is not None and got[0]:
            self._held = id
            return True
        return False

    def _orphan(
        self, cur: psycopg.Cursor[Any], kinds: tuple[str, ...]
    ) -> tuple[int, int, int, str] | None:
        cur.execute(
            "SELECT id, attempts, max_attempts, worker FROM jobs WHERE state = 'running' "
            "AND kind = ANY(%s) ORDER BY id FOR UPDATE SKIP LOCKED",
            (list(kinds),),
        )
        for id, attempts, max_attempts, worker in cur.fetchall():
            if self._lease(cur, int(id)):
                return int(id), int(attempts), int(max_attempts), str(worker)
        return None

    def _start(self, cur: psycopg.Cursor[Any], id: int, why: str | None) -> Job:
        cur.execute(
            "UPDATE jobs SET state = 'running', attempts = attempts + 1, worker = %s, "
            "started_at = now(), heartbeat_at = now(), last_error = coalesce(%s, last_error) "
            f"WHERE id = %s RETURNING {_COLUMNS}",
            (self.worker, why, id),
        )
        row = cur.fetchone()
        assert row is not None
        return _job(row)

    def _release(self) -> None:
        if self._held is None:
            return
        held, self._held = self._held, None
        if self._conn is not None and not self._conn.closed and not self._conn.broken:
            self._conn.execute(
                "SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (lock_key(held),)
            )

    # -- while it runs, and at its end ---------------------------------------------------
    def progress(self, job: Job, progress: dict[str, Any]) -> None:
        """Record ``progress`` (and the heartbeat); ``JobLostError`` when the job is no longer
        this worker's (cancelled, or taken over)."""
        from psycopg.types.json import Jsonb

        with self._tx() as cur:
            cur.execute(
                "UPDATE jobs SET progress = %s, heartbeat_at = now() "
                "WHERE id = %s AND worker = %s AND state = 'running'",
                (Jsonb(progress), job.id, self.worker),
            )
            if cur.rowcount == 0:
                raise JobLostError(f"job {job.id} is no longer this worker's (cancelled?)")

    def finish(self, job: Job, progress: dict[str, Any] | None = None) -> None:
        """The job is done."""
        from psycopg.types.json import Jsonb

        try:
            with self._tx() as cur:
                cur.execute(
                    "UPDATE jobs SET state = 'done', finished_at = now(), heartbeat_at = now(), "
                    "progress = coalesce(%s, progress) "
                    "WHERE id = %s AND worker = %s AND state = 'running'",
                    (Jsonb(progress) if progress is not None else None, job.id, self.worker),
                )
        finally:
            self._release()

    def fail(
        self,
        job: Job,
        error: str,
        *,
        permanent: bool,
        retry_delay_s: float,
        progress: dict[str, Any] | None = None,
    ) -> str:
        """Record ``error``; the job is queued again (after ``retry_delay_s``) unless the error
        is ``permanent`` or this was its last attempt. The state it is left in."""
        from psycopg.types.json import Jsonb

        again = not permanent and job.attempts < job.max_attempts
        state = "queued" if again else "failed"
        try:
            with self._tx() as cur:
                cur.execute(
                    "UPDATE jobs SET state = %s, last_error = %s, worker = NULL, "
                    "progress = coalesce(%s, progress), "
                    "run_after = now() + make_interval(secs => %s), "
                    "finished_at = CASE WHEN %s = 'failed' THEN now() END "
                    "WHERE id = %s AND worker = %s AND state = 'running'",
                    (
                        state,
                        error,
                        Jsonb(progress) if progress is not None else None,
                        retry_delay_s,
                        state,
                        job.id,
                        self.worker,
                    ),
                )
        finally:
            self._release()
        return state

    def abandon(self) -> None:
        """Let go of the job held (it was lost): its lease only."""
        self._release()

    def wait(self, timeout_s: float) -> None:
        """Until a job is queued (``NOTIFY``) or ``timeout_s`` passes: an idle worker's wait."""
        conn = self._connection()
        conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
        for _ in conn.notifies(timeout=timeout_s, stop_after=1):
            break
