"""``memdir worker``: background jobs from the PostgreSQL queue, run through the job owner's
``Memory`` (SPEC J2; the queue itself is ``pg/jobs.py``).

A worker is a thread with a queue connection of its own (``WorkerQueue``): it claims a job,
opens the backend *as the job's owner* (row-level security holds every write it makes to that
owner's rows), does the work through the facade — so the guard, the change log and undo cover
a worker's writes exactly as a person's — records progress, and ends the job. ``run_workers``
runs N of them; ``once`` stops each when the queue has nothing for it.

**Idempotency, per kind** (a job runs at least once: a worker killed mid-job leaves it to the
next one, from its last recorded progress):

* ``reembed`` — the search index is derived from the rows, and a sync embeds only what the
  index lacks for the configured embedder: a second run does the remainder, or nothing.
  ``rebuild`` drops the index first, once (progress records that it did).
* ``extract`` — the job carries the session's transcript (sessions are files on the machine
  that had the conversation; a worker may run anywhere), and its progress carries the
  extraction state: how far the turns are handled (``done``, a message index — the same number
  ``<sessions>/.extract/<id>.json`` keeps on the file backend) and the turns that failed. The
  worker writes that state beside a private copy of the transcript before it extracts, so a
  retried job starts after the last turn it recorded. The one turn that may run twice is the
  one a crash cut short, and a turn's operations are idempotent: an ``ADD`` whose statement a
  memory already holds is skipped (``already remembered``), an ``UPDATE`` writes the same text
  again, a ``DELETE`` of a memory already gone is skipped. Each write is one transaction, so a
  kill never leaves half a memory. A later job for the same session (it grew) starts where the
  last finished one ended.
* ``sleep`` — consolidation of the job's scope, offline (the rules; no model), through the
  owner's facade like any sleep: plan, then apply as one run. On PostgreSQL the whole apply is
  one transaction, so a worker killed mid-run leaves nothing of it, and the retried job plans
  again from the rows as they are: nothing is applied twice.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import socket
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from .errors import (
    ConfigError,
    MemdirError,
    NotFoundError,
    StorageUnavailableError,
    ValidationError,
)
from .extract.state import ExtractState, Failure
from .jobs import KINDS, WORKERS_NEED_POSTGRES, Job
from .memory import Memory
from .paths import Scope, sessions_dir
from .pg.backend import PostgresBackend
from .pg.jobs import JobLostError, WorkerQueue
from .pg.pool import release
from .providers.factory import get_llm, llm_configured
from .providers.llm import LLM
from .settings import configured_backend, load_settings

__all__ = ["Worker", "WorkerSummary", "run_workers", "worker_dsn"]

RETRY_DELAY_S = 10.0  # before a job that failed for a transient reason is tried again
IDLE_WAIT_S = 5.0  # an idle worker waits this long for a NOTIFY before it looks again
MAX_FACADES = 8  # job facades (owner, scope) one worker thread keeps open
# errors the job's input or the backend make permanent: trying again changes nothing
_PERMANENT = (ConfigError, ValidationError, NotFoundError)


class JobFailedError(MemdirError):
    """A job that ran to its end with failures (an extraction turn the model could not do):
    transient, so it is tried again; ``progress`` is recorded with the error."""

    def __init__(self, message: str, progress: dict[str, Any]) -> None:
        self.progress = progress
        super().__init__(message)


def worker_dsn(home: Path | None = None) -> str:
    """The configured backend's DSN; ``UnsupportedError`` (a ``ConfigError``) for the file
    backend, saying how to configure PostgreSQL."""
    from .errors import UnsupportedError

    spec = configured_backend(home)
    if not spec.startswith(("postgresql://", "postgres://")):
        raise UnsupportedError(WORKERS_NEED_POSTGRES.format(backend=spec.split(":")[0]))
    return spec


# -- running jobs --------------------------------------------------------------------------------
@dataclass
class WorkerSummary:
    """What ``run_workers`` did."""

    done: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    retried: list[int] = field(default_factory=list)
    lost: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "done": self.done,
            "failed": self.failed,
            "queued_again": self.retried,
            "lost": self.lost,
        }


class Worker:
    """One worker thread's state: its queue connection and the facades it opened, one per
    (owner, scope) — kept across jobs, used by this thread only."""

    def __init__(
        self,
        dsn: str,
        *,
        name: str,
        work: Path,
        llm: LLM | bool,
        embedder: str | None = None,
        kinds: tuple[str, ...] = KINDS,
        retry_delay_s: float = RETRY_DELAY_S,
        on_job: Callable[[Job, str], None] | None = None,
    ) -> None:
        self.dsn = dsn
        self.queue = WorkerQueue(dsn, name)
        self.work = work
        self.llm = llm
        self.embedder = embedder
        self.kinds = kinds
        self.retry_delay_s = retry_delay_s
        self.on_job = on_job
        # the facades this thread opened, newest last, at most MAX_FACADES: a worker serving
        # many owners keeps a few connections, not one set per owner it ever served
        self._memories: OrderedDict[tuple[str, str], tuple[Memory, PostgresBackend]] = OrderedDict()

    def close(self) -> None:
        self.queue.close()
        while self._memories:
            _, (memory, backend) = self._memories.popitem(last=False)
            _close(memory, backend)

    def serve(
        self,
        stop: threading.Event,
        *,
        once: bool = False,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        """Run jobs until ``stop`` is set — with ``once``, until none is left to claim. The
        database going away is said (``on_error``) and waited out, unless ``once``."""
        while not stop.is_set():
            try:
                if self.run_one() is None:
                    if once:
                        return
                    self.queue.wait(IDLE_WAIT_S)
            except StorageUnavailableError as exc:
                if once:
                    raise
                # the database went away: say so, wait, and claim again once it is back
                # (a job this worker held is taken over by whoever claims it first)
                self.queue.abandon()
                if on_error is not None:
                    on_error(str(exc))
                stop.wait(IDLE_WAIT_S)

    def run_one(self) -> tuple[Job, str] | None:
        """Claim one job and run it: ``(job, state it ended in)``, or ``None`` (queue empty)."""
        job = self.queue.claim(self.kinds)
        if job is None:
            return None
        state = self._run(job)
        if self.on_job is not None:
            self.on_job(job, state)
        return job, state

    def _run(self, job: Job) -> str:
        try:
            progress = self._execute(job)
        except JobLostError:
            self.queue.abandon()
            return "lost"
        except JobFailedError as exc:
            return self._fail(job, str(exc), permanent=False, progress=exc.progress)
        except _PERMANENT as exc:
            return self._fail(job, str(exc), permanent=True)
        except (MemdirError, OSError) as exc:
            return self._fail(job, f"{type(exc).__name__}: {exc}", permanent=False)
        self.queue.finish(job, progress)
        return "done"

    def _fail(
        self, job: Job, error: str, *, permanent: bool, progress: dict[str, Any] | None = None
    ) -> str:
        return self.queue.fail(
            job, error, permanent=permanent, retry_delay_s=self.retry_delay_s, progress=progress
        )

    def _execute(self, job: Job) -> dict[str, Any]:
        if job.kind == "reembed":
            return self._reembed(job)
        if job.kind == "extract":
            return self._extract(job)
        if job.kind == "sleep":
            memory, scope = self._memory(job)
            memory.sleep(scope=scope, offline=True, sessions=False)
            return {"done": 1, "total": 1}
        raise ValidationError(f"this worker cannot run jobs of kind {job.kind!r}")

    # -- the facade of a job's owner -----------------------------------------------------
    def _memory(self, job: Job, embedder: str | None = None) -> tuple[Memory, Scope]:
        if job.scope == "user":
            project: str | None = None
        elif job.scope.startswith("project:") and len(job.scope) > len("project:"):
            project = job.scope[len("project:") :]
        else:
            raise ValidationError(f"job {job.id} names an unknown scope {job.scope!r}")
        chosen = embedder or self.embedder
        key = (job.owner, f"{job.scope}\0{chosen or ''}")
        if key in self._memories:
            self._memories.move_to_end(key)
        else:
            while len(self._memories) >= MAX_FACADES:
                _, (old, old_backend) = self._memories.popitem(last=False)
                _close(old, old_backend)
                shutil.rmtree(old.home.parent, ignore_errors=True)  # its scratch, transcripts too
            digest = hashlib.sha256("\0".join(key).encode("utf-8")).hexdigest()[:16]
            folder = self.work / digest
            root = folder / "project"
            root.mkdir(parents=True, exist_ok=True)
            backend = PostgresBackend(self.dsn, owner=job.owner, project=project)
            memory = Memory(
                home=folder / "home",  # the worker's own: the transcripts it is handed live here
                project=root if project is not None else None,
                cwd=folder,  # no checkout above it: a user-scope job has no project
                actor="worker",
                embedder=chosen,
                llm=self.llm,
                backend=backend,
            )
            self._memories[key] = (memory, backend)
        return self._memories[key][0], ("project" if project is not None else "user")

    # -- re-embedding --------------------------------------------------------------------
    def _reembed(self, job: Job) -> dict[str, Any]:
        memory, scope = self._memory(job, job.payload.get("embedder") or None)
        progress = dict(job.progress)
        if job.payload.get("rebuild") and not progress.get("dropped"):
            memory.index(scope).drop()
            progress["dropped"] = True
            self.queue.progress(job, progress)
        step = {"last": -1}

        def report(done: int, total: int) -> None:
            # one row update per ~2% of the work (and at the end): progress, not a write storm
            if done == total or done - step["last"] >= max(1, total // 50):
                step["last"] = done
                self.queue.progress(job, {**progress, "done": done, "total": total})

        reports = memory.reindex(scope=scope, progress=report)
        found = reports.get(scope)
        summary = dataclasses.asdict(found) if found is not None else {}
        return {**progress, "done": 1, "total": 1, "index": summary}

    # -- extraction ----------------------------------------------------------------------
    def _extract(self, job: Job) -> dict[str, Any]:
        session = str(job.payload.get("session") or "")
        transcript = job.payload.get("transcript")
        if not session or not isinstance(transcript, str):
            raise ValidationError(f"extract job {job.id} carries no session transcript")
        memory, _ = self._memory(job)
        folder = sessions_dir(home=memory.home, project_root=memory.project_root)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{Path(session).name}.jsonl"
        path.write_text(transcript, encoding="utf-8")
        state = ExtractState.load(folder, path.stem)
        state.done = int(job.progress.get("done", 0))
        state.size = 0
        state.failed = [Failure(**f) for f in job.progress.get("failed", []) if "turn" in f]
        state.save()
        counts = {"turns_done": 0, "turns": 0}

        def on_turn(handled: int, to_handle: int, now: ExtractState) -> None:
            counts.update(turns_done=handled, turns=to_handle)
            self.queue.progress(job, _extract_progress(now, counts))

        report = memory.extraction.run_session(path.stem, on_turn=on_turn)
        final = ExtractState.load(folder, path.stem)
        progress = _extract_progress(final, counts)
        progress["outcomes"] = _tally(o.status for o in report.outcomes)
        if report.failures:
            first = report.failures[0]
            raise JobFailedError(
                f"{len(report.failures)} turn(s) of session {session} failed to extract "
                f"(turn {first.turn}: {first.error})",
                progress,
            )
        return progress


def _scratch() -> str | None:
    """Where a worker keeps its copies of transcripts and extraction state: scratch, since the
    job row holds the truth (its progress). Memory-backed ``/dev/shm`` where there is one —
    extraction saves its state after every turn, and a flush to disk there buys nothing."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def _close(memory: Memory, backend: PostgresBackend) -> None:
    """Close what a job facade holds open: its index connections and its extraction writer's
    (each opened on this thread), then the backend's own."""
    # the extraction's writer is the facade it was handed (the ``Writer`` port, a Memory here)
    writer = cast(Memory, memory._extraction._writer) if memory._extraction is not None else None
    for facade in (memory, writer):
        if facade is not None:
            for index in [*facade._indexes.values(), *facade._archive_indexes.values()]:
                index.close()
    backend.close()


def _extract_progress(state: ExtractState, counts: dict[str, int]) -> dict[str, Any]:
    return {
        "done": state.done,
        "turns_done": counts["turns_done"],
        "turns": counts["turns"],
        "failed": [f.to_dict() for f in state.failed],
    }


def _tally(statuses: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for status in statuses:
        out[status] = out.get(status, 0) + 1
    return out


def _configured_llm(home: Path | None) -> LLM | bool:
    settings = load_settings(home)
    return get_llm(settings) if llm_configured(settings) else False


def run_workers(
    dsn: str,
    *,
    concurrency: int = 1,
    once: bool = False,
    home: Path | None = None,
    embedder: str | None = None,
    retry_delay_s: float = RETRY_DELAY_S,
    stop: threading.Event | None = None,
    on_job: Callable[[Job, str], None] | None = None,
    on_error: Callable[[str], None] | None = None,
) -> WorkerSummary:
    """Run ``concurrency`` workers against ``dsn`` until ``stop`` is set — or, with ``once``,
    until the queue has nothing left for them. Returns what they did."""
    if concurrency < 1:
        raise ValidationError(f"--concurrency must be at least 1 (got {concurrency})")
    llm = _configured_llm(home)
    stop = stop or threading.Event()
    summary = WorkerSummary()
    guard = threading.Lock()
    work = Path(tempfile.mkdtemp(prefix="memdir-worker-", dir=_scratch()))
    errors: list[BaseException] = []

    def note(job: Job, state: str) -> None:
        with guard:
            {"done": summary.done, "failed": summary.failed, "lost": summary.lost}.get(
                state, summary.retried
            ).append(job.id)
        if on_job is not None:
            on_job(job, state)

    def loop(n: int) -> None:
        name = f"{socket.gethostname()}:{os.getpid()}:{n}"
        worker = Worker(
            dsn,
            name=name,
            work=work / str(n),
            llm=llm,
            embedder=embedder,
            retry_delay_s=retry_delay_s,
            on_job=note,
        )
        try:
            worker.serve(stop, once=once, on_error=on_error)
        except BaseException as exc:  # noqa: BLE001 — a thread's end: the caller raises it
            errors.append(exc)
            stop.set()
        finally:
            worker.close()

    threads = [
        threading.Thread(target=loop, args=(n,), name=f"memdir-worker-{n}", daemon=True)
        for n in range(concurrency)
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.5)  # wakes for Ctrl-C in the main thread
    except KeyboardInterrupt:
        stop.set()
        for thread in threads:
            thread.join()
    finally:
        shutil.rmtree(work, ignore_errors=True)
        release(dsn)  # the workers' pooled connections: nothing is left open when they end
    if errors:
        raise errors[0]
    return summary
