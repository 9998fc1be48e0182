"""Whose ``Memory`` answers a request, and on which thread: the REST API's users under load.

**One bounded pool of threads for everyone** (``Pool``, ``threads`` of them, 8 by default),
not a thread per user. The core is synchronous (STYLE habit 3), so every call runs on one of
them; a call goes to whichever thread is free.

**A facade per thread.** A ``Memory`` holds SQLite connections, and a connection belongs to
the thread that opened it, so each pool thread keeps a ``Memory`` of its own for each user it
has served (``_Lane``): a connection per thread, as the file backend's index wants. They share
nothing in memory; they share the user's files, which every memdir process already shares
safely — writes under each scope's cross-process lock, the index synced under its own.

**Reads run concurrently, writes one at a time** (on the file backend; a database backend's
writes run side by side like reads, its scope lock in the database serialising only the write
itself). ``read`` runs at once on a free thread, so
the reads of one user proceed side by side. ``call`` (every write, and anything not known to be
a read) first takes the user's write lock — an ``asyncio.Lock`` on the event loop, so a waiting
write holds no thread — and the scope's own lock still serialises it against other processes
(``--processes``, the CLI). A user's writes all run on one thread (the user's *writer*, the
thread with the fewest writers when the user was loaded), through the same facade: a store
re-renders only the lines of MEMORY.md a write touched when it was the last to write it (else it
re-reads every file), so one writing facade per user keeps every write incremental. **Writes
that queued run as one batch** (``Users._grouped``, at most ``GROUP``): one scope lock and one
MEMORY.md rewrite for all of them, each caller answered with its own result or error once the
batch is on disk — under load a write otherwise waits for every write before it to pay the
lock and the fsyncs alone.

**A bounded set of loaded users.** At most ``max_users`` users are loaded (least recently used
first out); a user with a call in flight is never released. Releasing one closes its facades'
index connections, each on the thread that opened it (``Pool.everywhere``), and forgets them.
The next request of that user loads it again, from its files.

**A store that cannot be opened** (the user's directory unreadable, a disk gone, a database
down: ``UNAVAILABLE``) fails that one call; the caller answers 503 with ``Retry-After``. A
facade that failed is dropped, so the next call opens the storage afresh.
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .. import errors
from ..backends import open_backend
from ..memory import Memory
from ..ports import Backend

__all__ = ["UNAVAILABLE", "Pool", "Users"]

T = TypeVar("T")
THREADS = 8  # measured by bench/serve.py on 2 cores: more threads only queue for the GIL
GROUP = 32  # writes of one user run as one batch at most (each waits for the whole batch)
MAX_USERS = 256  # users kept loaded; each costs a facade per thread that served it


def _unavailable() -> tuple[type[Exception], ...]:
    """What "the storage cannot be reached" raises: the OS (a directory that cannot be made or
    read, a full or read-only disk), SQLite failing to open or write its file, and — when the
    PostgreSQL driver is installed — a connection that failed or dropped."""
    kinds: list[type[Exception]] = [OSError, sqlite3.OperationalError]
    kinds.append(errors.StorageUnavailableError)  # a database backend's own "cannot be reached"
    try:
        import psycopg

        kinds.append(psycopg.OperationalError)
    except ImportError:  # pragma: no cover - the postgres extra is not installed
        pass
    return tuple(kinds)


UNAVAILABLE = _unavailable()


class Pool:
    """``size`` threads taking jobs from one queue, or a job meant for one of them (``on``);
    ``everywhere`` runs a chore on each thread (before its next job, or at once if idle)."""

    def __init__(self, size: int, name: str = "memdir-api") -> None:
        self._ready = threading.Condition()
        self._jobs: deque[_Job] = deque()
        self.threads = [_Thread(i) for i in range(size)]
        self._closing = False
        for t in self.threads:
            t.thread = threading.Thread(target=self._loop, args=(t,), name=f"{name}-{t.number}")
            t.thread.daemon = True
            t.thread.start()

    def submit(self, fn: Callable[[_Thread], T], on: _Thread | None = None) -> Future[T]:
        """Run ``fn`` on the first free thread, or on thread ``on`` (after its earlier jobs)."""
        future: Future[T] = Future()
        with self._ready:
            if self._closing:
                raise RuntimeError("the server is shutting down")
            if on is None:
                self._jobs.append((fn, future))
                self._ready.notify()
            else:
                on.jobs.append((fn, future))
                self._ready.notify_all()  # the one thread that may run it must wake
        return future

    def everywhere(self, chore: Callable[[_Thread], None]) -> None:
        with self._ready:
            for t in self.threads:
                t.chores.append(chore)
            self._ready.notify_all()

    def close(self) -> None:
        """Finish the queued jobs, then stop every thread."""
        with self._ready:
            self._closing = True
            self._ready.notify_all()
        for t in self.threads:
            assert t.thread is not None
            t.thread.join()

    def _next(self, me: _Thread) -> tuple[list[Callable[[_Thread], None]], _Job | None, bool]:
        """What ``me`` does next: its chores first, then its own jobs, then anyone's."""
        with self._ready:
            while not (me.chores or me.jobs or self._jobs or self._closing):
                self._ready.wait()
            chores, me.chores = me.chores, []
            job = None
            if not chores:
                job = me.jobs.popleft() if me.jobs else self._jobs.popleft() if self._jobs else None
            stop = self._closing and not (chores or job or me.jobs or self._jobs)
            return chores, job, stop

    def _loop(self, me: _Thread) -> None:
        while True:
            chores, job, stop = self._next(me)
            for chore in chores:
                chore(me)
            if job is not None:
                fn, future = job
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(fn(me))
                    # not swallowed: the request awaiting the future re-raises it (as
                    # concurrent.futures does), and its status comes from the error table
                    except BaseException as exc:  # noqa: BLE001
                        future.set_exception(exc)
            if stop:
                return


@dataclass(eq=False)
class _Thread:
    """One pool thread and what only it touches: its facades, by user."""

    number: int
    thread: threading.Thread | None = None
    chores: list[Callable[[_Thread], None]] = field(default_factory=list)
    jobs: deque[_Job] = field(default_factory=deque)  # jobs only this thread may run
    memories: dict[str, Memory] = field(default_factory=dict)
    writers: int = 0  # loaded users whose writes run here


_Job = tuple[Callable[[_Thread], Any], "Future[Any]"]
_Queued = tuple[Callable[["Memory"], Any], "asyncio.Future[Any]"]


@dataclass(eq=False)
class _Lane:
    """A loaded user: its write lock, and how many calls of it are in flight."""

    user: str
    writer: _Thread  # the thread all of this user's writes run on
    writes: asyncio.Lock = field(default_factory=asyncio.Lock)
    queued: deque[_Queued] = field(default_factory=deque)  # writes waiting to run (grouped)
    busy: int = 0
    ready: bool = False  # its scopes were created (``Memory.init``) by the first facade
    opening: threading.Lock = field(default_factory=threading.Lock)
    # this user's backend, shared by the facades of every thread that serves them: a database
    # backend opens as this user (its rows, under row-level security), one connection a thread
    backend: Backend | None = None


def _close(memory: Memory) -> None:
    """Close what a facade holds open: its index connections (on the thread that opened them)."""
    for index in [*memory._indexes.values(), *memory._archive_indexes.values()]:
        index.close()


class Users:
    """Each user's ``Memory`` (home and project under ``<data dir>/users/<user>/``), opened with
    ``backend`` (a name or a DSN; ``None``: the configured one). ``read(user, fn)`` and
    ``call(user, fn)`` run ``fn(memory)`` on the pool and await the result."""

    def __init__(
        self,
        data_dir: Path,
        *,
        embedder: str | None = None,
        backend: str | None = None,
        threads: int = THREADS,
        max_users: int = MAX_USERS,
    ) -> None:
        self.root = data_dir / "users"
        self.embedder = embedder
        self.backend = backend
        self.max_users = max_users
        self._pool = Pool(threads)
        self._lanes: OrderedDict[str, _Lane] = OrderedDict()
        self._lock = threading.Lock()  # guards _lanes and each lane's ``busy``

    def home(self, user: str) -> Path:
        return self.root / user

    def loaded(self) -> list[str]:
        """The users loaded now, least recently used first."""
        with self._lock:
            return list(self._lanes)

    async def read(self, user: str, fn: Callable[[Memory], T]) -> T:
        """Run ``fn``, which only reads, beside the user's other calls."""
        lane = self._enter(user)
        try:
            return await self._run(lane, fn)
        finally:
            self._leave(lane)

    async def call(self, user: str, fn: Callable[[Memory], T]) -> T:
        """Run ``fn``, which may write, after the user's other writes in this process — on a
        database backend beside them: the database serialises a scope's writers itself (its
        lock held only for the write), and there is no MEMORY.md to keep incremental."""
        lane = self._enter(user)
        try:
            if lane.backend is not None and not getattr(lane.backend, "serial_writes", True):
                return await self._run(lane, fn)
            return await self._grouped(lane, fn)
        finally:
            self._leave(lane)

    async def _grouped(self, lane: _Lane, fn: Callable[[Memory], T]) -> T:
        """Queue the write; whoever holds the user's write lock runs every write queued by
        then (up to ``GROUP``) as one batch on the writer thread (``Memory.batch``: one lock
        per scope, one MEMORY.md rewrite), so writes that waited for each other share that
        cost instead of paying it in turn. Each caller gets its own result or error once the
        batch ended (its write is on disk when the call returns)."""
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        lane.queued.append((fn, done))
        async with lane.writes:
            # (our write may be in a batch already running: a holder cancelled while it ran)
            while not done.done() and lane.queued:
                group = [lane.queued.popleft() for _ in range(min(GROUP, len(lane.queued)))]
                calls = [f for f, _ in group]
                job = asyncio.ensure_future(
                    self._run(lane, functools.partial(_one_batch, calls=calls), on=lane.writer)
                )
                # the outcomes reach their callers even if this caller goes away meanwhile
                job.add_done_callback(functools.partial(self._settle, lane, group))
                await asyncio.wait([job])
        return await done

    def _settle(
        self, lane: _Lane, group: list[_Queued], job: asyncio.Future[list[tuple[bool, Any]]]
    ) -> None:
        """Hand each caller of ``group`` its outcome from the batch ``job`` ran."""
        if job.cancelled():
            outcomes: list[tuple[bool, Any]] = [(False, asyncio.CancelledError())] * len(group)
        elif job.exception() is not None:
            outcomes = [(False, job.exception())] * len(group)
        else:
            outcomes = job.result()
        for (_, waiting), (ok, value) in zip(group, outcomes, strict=True):
            if waiting.done():  # its caller was cancelled
                continue
            if ok:
                waiting.set_result(value)
            else:
                waiting.set_exception(value)
        if any(not ok and isinstance(v, UNAVAILABLE) for ok, v in outcomes):
            # the storage failed under the writer's facade: open it afresh next time
            self._pool.submit(lambda t: self._drop(t, lane), on=lane.writer)

    def close(self) -> None:
        with self._lock:
            lanes = list(self._lanes.values())
            self._lanes.clear()
        self._pool.everywhere(_release_all)
        self._pool.close()
        for lane in lanes:
            _close_backend(lane.backend)

    # -- lanes -----------------------------------------------------------------------------
    def _enter(self, user: str) -> _Lane:
        with self._lock:
            lane = self._lanes.get(user)
            if lane is None:
                writer = min(self._pool.threads, key=lambda t: t.writers)
                writer.writers += 1
                lane = self._lanes[user] = _Lane(user, writer)
            self._lanes.move_to_end(user)
            lane.busy += 1
            return lane

    def _leave(self, lane: _Lane) -> None:
        with self._lock:
            lane.busy -= 1
            idle = [u for u, lane in self._lanes.items() if not lane.busy]
            gone = idle[: max(0, len(self._lanes) - self.max_users)]
            released = [self._lanes.pop(user) for user in gone]
            for lane in released:
                lane.writer.writers -= 1
        for lane in released:
            self._pool.everywhere(_releaser(lane, len(self._pool.threads)))

    async def _run(self, lane: _Lane, fn: Callable[[Memory], T], on: _Thread | None = None) -> T:
        future = self._pool.submit(lambda t: self._on(t, lane, fn), on)
        return await asyncio.wrap_future(future)

    def _on(self, thread: _Thread, lane: _Lane, fn: Callable[[Memory], T]) -> T:
        memory = thread.memories.get(lane.user)
        try:
            if memory is None:
                memory = thread.memories[lane.user] = self._open(lane)
            with memory.lease():  # one pooled connection for the whole call
                return fn(memory)
        except UNAVAILABLE:
            # the storage failed under this facade: open it afresh next time
            self._drop(thread, lane)
            raise

    @staticmethod
    def _drop(thread: _Thread, lane: _Lane) -> None:
        dropped = thread.memories.pop(lane.user, None)
        if dropped is not None:
            _close(dropped)

    def _open(self, lane: _Lane) -> Memory:
        home = self.home(lane.user)
        (home / "project").mkdir(parents=True, exist_ok=True)
        with lane.opening:
            if lane.backend is None:
                lane.backend = open_backend(self.backend, home=home / "home", owner=lane.user)
        memory = Memory(
            home=home / "home",
            project=home / "project",
            actor="api",
            embedder=self.embedder,
            llm=False,  # the server never calls a model on its own
            backend=lane.backend,
        )
        with lane.opening:  # the first facade creates the scopes; the others wait for that
            if not lane.ready:
                memory.init()
                lane.ready = True
        return memory


def _one_batch(memory: Memory, *, calls: list[Callable[[Memory], Any]]) -> list[tuple[bool, Any]]:
    """Run ``calls`` in one ``Memory.batch``: ``(True, result)`` or ``(False, error)`` each.
    A call refused for what it asked (a memdir error about its own input: invalid, refused,
    not found, taken) raised before it wrote, and the batch goes on; a failure of the storage
    (the disk, the lock, the database) ends the batch there — the store forgets what it
    assumed — and the calls after it run one at a time. Anything else is a bug: it fails the
    whole group (each caller gets it, and the server logs it)."""
    outcomes: list[tuple[bool, Any]] = []
    try:
        with memory.batch():
            for call in calls:
                try:
                    outcomes.append((True, call(memory)))
                except _ITS_OWN as error:
                    outcomes.append((False, error))
    except _STORAGE as error:
        if len(outcomes) == len(calls):  # the batch's own end failed: every call with it
            return [(False, error)] * len(calls)
        outcomes.append((False, error))
        for call in calls[len(outcomes) :]:
            try:
                outcomes.append((True, call(memory)))
            except _STORAGE as failed:  # (a memdir error of its own input among them)
                outcomes.append((False, failed))
    return outcomes


# what a call can be refused for that leaves the store as it was (it raised before writing)
_ITS_OWN: tuple[type[Exception], ...] = (
    errors.ValidationError,
    errors.NotFoundError,
    errors.AmbiguousError,
    errors.ConflictError,
)
# the storage failed under a write
_STORAGE: tuple[type[Exception], ...] = (errors.MemdirError, *UNAVAILABLE)


def _release_all(thread: _Thread) -> None:
    for memory in thread.memories.values():
        _close(memory)
    thread.memories.clear()


def _releaser(lane: _Lane, threads: int) -> Callable[[_Thread], None]:
    """The chore each pool thread runs to let ``lane``'s user go: close its facade there; the
    last thread to do so closes the user's backend (a database's connections)."""
    left, counting = [threads], threading.Lock()

    def release(thread: _Thread) -> None:
        memory = thread.memories.pop(lane.user, None)
        if memory is not None:
            _close(memory)
        with counting:
            left[0] -= 1
            last = left[0] == 0
        if last:
            _close_backend(lane.backend)

    return release


def _close_backend(backend: Backend | None) -> None:
    close = getattr(backend, "close", None)  # the file backend holds nothing open
    if callable(close):
        close()
