"""Background jobs on PostgreSQL (issue 20 item 4, SPEC J2): the queue (``pg/jobs.py``), the
workers (``memdir.worker``, ``memdir worker``), ``memdir jobs`` and ``GET /v1/jobs``.

A real PostgreSQL (tests/pgserver.py) as a role that row-level security holds (tests/pgapp.py);
the crash test SIGKILLs a real ``memdir worker`` process at a point it is known to have reached
(its progress row says three turns are done and PostgreSQL shows it waiting on a lock the test
holds) — an event, never a sleep — and counts the memories by SQL afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.pgapp import APP_PASSWORD, client_connections, pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401
from tests.waiting import HANG_GUARD_S, alive, wait_until

from memdir import Memory
from memdir.backends import open_backend
from memdir.cli import main
from memdir.errors import NotFoundError, UnsupportedError, ValidationError
from memdir.jobs import Job
from memdir.pg.jobs import WorkerQueue, lock_key
from memdir.worker import run_workers

# three project facts, then three things about the person (the user scope), one per turn
TURNS = [
    "We use PostgreSQL 15 for the orders service.",
    "We use Redis 7 for the session cache.",
    "We deploy with ops/ship.sh on Fridays.",
    "I prefer tabs over spaces.",
    "I always write commit messages in English.",
    "I'm a backend engineer.",
]


def _pg(dsn: str, owner: str = "alice") -> Memory:
    return Memory(backend=open_backend(dsn, owner=owner), embedder="hashing", llm=False)


def _session(mem: Memory, turns: list[str] = TURNS) -> str:
    with mem.session() as s:
        for text in turns:
            s.append({"role": "user", "content": text})
            s.append({"role": "assistant", "content": "Noted."})
        return s.id


def _as(dsn: str, owner: str) -> psycopg.Connection[Any]:
    conn = psycopg.connect(dsn, autocommit=True)
    conn.execute("SELECT set_config('memdir.owner', %s, false)", (owner,))
    return conn


def _memories(dsn: str, owner: str) -> list[tuple[str, str]]:
    """``(scope kind, name)`` of every live memory of ``owner``, counted by SQL."""
    with _as(dsn, owner) as conn:
        rows = conn.execute(
            "SELECT split_part(scope, ':', 1), name FROM memories WHERE NOT archived ORDER BY 1, 2"
        ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def _job_row(dsn: str, owner: str, id: int) -> dict[str, Any]:
    with _as(dsn, owner) as conn:
        row = conn.execute(
            "SELECT state, attempts, progress, last_error, worker FROM jobs WHERE id = %s", (id,)
        ).fetchone()
    assert row is not None
    return dict(zip(("state", "attempts", "progress", "last_error", "worker"), row, strict=True))


def _lease_free(dsn: str, id: int) -> bool:
    """Whether nobody holds job ``id``'s lease: a dead worker's server process lets go of it
    when it notices its client is gone — soon, but not in step with the client."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (lock_key(id),)
        ).fetchone()
        if row is not None and row[0]:
            conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (lock_key(id),))
            return True
    return False


def _run(dsn: str, **kwargs: Any) -> Any:
    return run_workers(dsn, once=True, embedder="hashing", retry_delay_s=0, **kwargs)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


# -- enqueue, run, see progress ----------------------------------------------------------------
def test_reembed_job_runs_and_shows_its_progress(
    pg_app_dsn: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mem = _pg(pg_app_dsn)
    for text in TURNS[:3]:
        mem.remember(text, type="project")
    job, created = mem.enqueue("reembed", scope="project", rebuild=True, embedder="hashing")
    assert created and job.state == "queued" and job.scope.startswith("project:")
    again, created = mem.enqueue("reembed", scope="project", rebuild=True, embedder="hashing")
    assert (again.id, created) == (job.id, False)  # the same request while queued: one job

    seen: list[tuple[int, str]] = []
    summary = _run(pg_app_dsn, on_job=lambda j, state: seen.append((j.id, state)))
    assert summary.done == [job.id] and seen == [(job.id, "done")]
    done = mem.jobs().get(job.id)
    assert done.state == "done" and done.attempts == 1 and done.last_error is None
    assert done.progress["dropped"] is True and done.progress["index"]["embedded"] == 3
    assert done.finished_at is not None
    hits = mem.recall("which database do the orders use", top_k=1, min_score=0)
    assert hits and "postgresql" in hits[0].record.name

    monkeypatch.setenv("MEMDIR_BACKEND", pg_app_dsn)
    monkeypatch.setenv("MEMDIR_USER", "alice")
    code, out, _ = _cli(capsys, "jobs", "--json")
    listed = json.loads(out)
    assert code == 0 and [(j["id"], j["state"], j["kind"]) for j in listed] == [
        (job.id, "done", "reembed")
    ]
    code, out, _ = _cli(capsys, "jobs")
    assert code == 0 and f"{job.id}" in out and "reembed" in out and "done" in out
    assert APP_PASSWORD not in out


def test_extract_job_stores_each_memory_once_and_a_second_job_adds_nothing(
    pg_app_dsn: str,  # noqa: F811
) -> None:
    mem = _pg(pg_app_dsn)
    sid = _session(mem)
    job, _ = mem.enqueue("extract", session=sid)
    assert job.progress == {} and "transcript" in mem.jobs().get(job.id).payload
    _run(pg_app_dsn)
    finished = mem.jobs().get(job.id)
    assert finished.state == "done", finished.last_error
    assert finished.progress["turns_done"] == 6 and finished.progress["outcomes"] == {"stored": 6}
    stored = _memories(pg_app_dsn, "alice")
    assert [s for s, _ in stored] == ["project"] * 3 + ["user"] * 3
    changes = [c.actor for c in mem.history()]
    assert changes == ["extractor"] * 6  # the facade's writes: logged, undoable, guarded

    # the session grows by one turn: the next job starts where the last one ended
    with mem.session(sid) as s:
        s.append({"role": "user", "content": "We use pnpm for the web app."})
        s.append({"role": "assistant", "content": "Noted."})
    more, created = mem.enqueue("extract", session=sid)
    assert created and more.progress == {"done": finished.progress["done"]}
    _run(pg_app_dsn)
    assert mem.jobs().get(more.id).progress["turns_done"] == 1
    assert len(_memories(pg_app_dsn, "alice")) == 7


# -- a worker killed mid-job -------------------------------------------------------------------
def _worker_env(dsn: str, owner: str = "alice") -> dict[str, str]:
    env = dict(os.environ)
    env.update(MEMDIR_BACKEND=dsn, MEMDIR_USER=owner, MEMDIR_EMBEDDER="hashing")
    return env


def _worker(dsn: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "memdir.cli", "worker", "--once", "--json", *args],
        env=_worker_env(dsn),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_sigkilled_worker_s_job_is_retried_and_no_memory_is_duplicated_or_lost(
    pg_app_dsn: str,  # noqa: F811
) -> None:
    mem = _pg(pg_app_dsn)
    sid = _session(mem)
    job, _ = mem.enqueue("extract", session=sid)
    # hold alice's user-scope write lock: the worker does the three project turns, then waits
    blocker = _as(pg_app_dsn, "alice")
    user_lock = json.dumps(["memdir", "alice", "user"])
    blocker.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (user_lock,))
    proc = _worker(pg_app_dsn)

    def stuck_after_three_turns() -> bool:
        progress = _job_row(pg_app_dsn, "alice", job.id)["progress"]
        waiting = blocker.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        ).fetchone()
        return progress.get("turns_done") == 3 and waiting is not None and waiting[0] > 0

    wait_until(stuck_after_three_turns, "the worker to wait on the user scope", alive=alive(proc))
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=HANG_GUARD_S)
    blocker.close()  # the lock goes with the connection
    wait_until(lambda: _lease_free(pg_app_dsn, job.id), "the killed worker's lease to end")

    row = _job_row(pg_app_dsn, "alice", job.id)
    assert row["state"] == "running" and row["attempts"] == 1  # its worker is gone
    assert _memories(pg_app_dsn, "alice") == [
        ("project", "we-deploy-with-ops-ship-sh-on-fridays"),
        ("project", "we-use-postgresql-15-for-the-orders-service"),
        ("project", "we-use-redis-7-for-the-session-cache"),
    ]  # three turns committed, the fourth not begun: nothing half-written

    second = _worker(pg_app_dsn)
    out, err = second.communicate(timeout=HANG_GUARD_S)
    assert second.returncode == 0, err
    assert json.loads(out)["done"] == [job.id]
    row = _job_row(pg_app_dsn, "alice", job.id)
    assert row["state"] == "done" and row["attempts"] == 2
    assert "stopped during attempt 1" in row["last_error"]
    assert row["progress"]["turns_done"] == 3  # the second attempt did the other three

    # nothing lost, nothing twice: the same memories an uninterrupted run gives (bob's control)
    bob = _pg(pg_app_dsn, owner="bob")
    control, _ = bob.enqueue("extract", session=sid)
    _run(pg_app_dsn)
    assert bob.jobs().get(control.id).state == "done"
    got = _memories(pg_app_dsn, "alice")
    assert got == _memories(pg_app_dsn, "bob") and len(got) == len(set(got)) == 6
    with _as(pg_app_dsn, "alice") as conn:
        creates = conn.execute(
            "SELECT count(*) FROM changes WHERE line::jsonb->>'op' = 'create'"
        ).fetchone()
    assert creates == (6,)


# -- two workers, one job ----------------------------------------------------------------------
def test_two_workers_never_hold_the_same_job(pg_app_dsn: str) -> None:  # noqa: F811
    mem = _pg(pg_app_dsn)
    queue = mem.jobs()
    first, _ = queue.enqueue("reembed", "user", {"embedder": "hashing"})
    second, _ = queue.enqueue("reembed", "user", {"embedder": "hashing"})
    a, b, c = (WorkerQueue(pg_app_dsn, name) for name in ("a", "b", "c"))
    try:
        got_a = a.claim()
        got_b = b.claim()
        assert got_a is not None and got_b is not None
        assert {got_a.id, got_b.id} == {first.id, second.id}
        # both are running with live workers: a third finds nothing to take over
        assert c.claim() is None
        a.finish(got_a)
        assert c.claim() is None  # done is done
        b.close()  # b's connection ends as if its process died: its job is free again
        wait_until(lambda: _lease_free(pg_app_dsn, got_b.id), "b's lease to end")
        taken = c.claim()
        assert taken is not None and taken.id == got_b.id and taken.attempts == 2
        c.finish(taken)
    finally:
        for q in (a, b, c):
            q.close()
    assert [j.state for j in queue.list()] == ["done", "done"]


def test_many_jobs_on_four_workers_each_run_once(pg_app_dsn: str) -> None:  # noqa: F811
    mem = _pg(pg_app_dsn)
    mem.remember("The user prefers green tea", type="user")
    ids = {mem.jobs().enqueue("reembed", "user", {"embedder": "hashing"})[0].id for _ in range(12)}
    ran: list[int] = []
    summary = _run(pg_app_dsn, concurrency=4, on_job=lambda j, state: ran.append(j.id))
    assert sorted(ran) == sorted(ids) and sorted(summary.done) == sorted(ids)
    assert {j.attempts for j in mem.jobs().list()} == {1}


# -- failures ----------------------------------------------------------------------------------
def test_a_job_that_keeps_failing_stops_after_its_attempts_with_the_error_shown(
    pg_app_dsn: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mem = _pg(pg_app_dsn)
    sid = _session(mem, TURNS[:1])
    job, _ = mem.enqueue("extract", session=sid, max_attempts=3)
    # the worker's model is configured but nothing listens there: every attempt fails
    monkeypatch.setenv("MEMDIR_LLM_PROVIDER", "openai")
    monkeypatch.setenv("MEMDIR_LLM_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("MEMDIR_LLM_MODEL", "nobody-home")
    monkeypatch.setenv("MEMDIR_LLM_MAX_RETRIES", "0")
    states: list[str] = []
    _run(pg_app_dsn, on_job=lambda j, state: states.append(state))
    assert states == ["queued", "queued", "failed"]  # three attempts, then it stops
    failed = mem.jobs().get(job.id)
    assert failed.state == "failed" and failed.attempts == 3
    assert "failed to extract" in (failed.last_error or "")
    assert _memories(pg_app_dsn, "alice") == []

    monkeypatch.setenv("MEMDIR_BACKEND", pg_app_dsn)
    monkeypatch.setenv("MEMDIR_USER", "alice")
    code, out, _ = _cli(capsys, "jobs", "--state", "failed", "--json")
    assert code == 0 and json.loads(out)[0]["last_error"] == failed.last_error
    code, out, _ = _cli(capsys, "jobs", "--state", "failed")
    assert "error:" in out and "failed to extract" in out
    code, out, _ = _cli(capsys, "jobs", "retry", str(job.id), "--json")
    assert code == 0 and json.loads(out)["state"] == "queued" and json.loads(out)["attempts"] == 0
    code, _, err = _cli(capsys, "jobs", "retry", str(job.id))
    assert code == 1 and "only a failed or cancelled job can be retried" in err
    code, out, _ = _cli(capsys, "jobs", "cancel", str(job.id), "--json")
    assert code == 0 and json.loads(out)["state"] == "cancelled"


def test_a_sigkilled_sleep_job_is_retried_and_applies_its_run_once(
    pg_app_dsn: str,  # noqa: F811
) -> None:
    from datetime import UTC, datetime, timedelta

    mem = _pg(pg_app_dsn)
    long_ago = (datetime.now(UTC) - timedelta(days=400)).strftime("%Y-%m-%dT%H:%M:%SZ")
    vpn = mem.remember("The old VPN is vpn1.example.com", type="project", created=long_ago)
    printer = mem.remember("The printer on floor two is broken", type="project", created=long_ago)
    mem.remember("Standups are at 09:30", type="project")
    job, _ = mem.enqueue("sleep")
    # hold the printer's row: the worker archives the VPN fact in its run's transaction, then
    # waits to move the printer — the point where it is killed
    blocker = _as(pg_app_dsn, "alice")
    blocker.execute("BEGIN")
    blocker.execute("SELECT 1 FROM memories WHERE name = %s FOR UPDATE", (printer.name,))
    proc = _worker(pg_app_dsn)

    def waiting_on_the_row() -> bool:
        # a connection of its own: inside the blocker's transaction the view is a snapshot
        with psycopg.connect(pg_app_dsn, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            ).fetchone()
        return row is not None and row[0] > 0

    wait_until(waiting_on_the_row, "the sleep job to wait on the printer's row", alive=alive(proc))
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=HANG_GUARD_S)
    blocker.execute("ROLLBACK")
    blocker.close()
    wait_until(lambda: _lease_free(pg_app_dsn, job.id), "the killed worker's lease to end")
    assert _job_row(pg_app_dsn, "alice", job.id)["state"] == "running"
    live = [("project", vpn.name), ("project", "standups-are-at-09-30"), ("project", printer.name)]
    assert _memories(pg_app_dsn, "alice") == sorted(live)  # the VPN's archive rolled back

    second = _worker(pg_app_dsn)
    out, err = second.communicate(timeout=HANG_GUARD_S)
    assert second.returncode == 0, err
    assert json.loads(out)["done"] == [job.id]
    row = _job_row(pg_app_dsn, "alice", job.id)
    assert row["state"] == "done" and row["attempts"] == 2
    assert _memories(pg_app_dsn, "alice") == [("project", "standups-are-at-09-30")]
    with _as(pg_app_dsn, "alice") as conn:
        lines = [json.loads(r[0]) for r in conn.execute("SELECT line FROM changes ORDER BY seq")]
        archived = conn.execute("SELECT name FROM memories WHERE archived ORDER BY name").fetchall()
    assert archived == [(vpn.name,), (printer.name,)]
    by_sleep = [(c["op"], c["name"]) for c in lines if c["actor"] == "sleep"]
    assert sorted(by_sleep) == [("archive", vpn.name), ("archive", printer.name)]  # once each
    assert len({c["run"] for c in lines if c["actor"] == "sleep"}) == 1


def test_bad_job_input_is_refused_and_queues_nothing(pg_app_dsn: str) -> None:  # noqa: F811
    mem = _pg(pg_app_dsn)
    with pytest.raises(ValidationError, match="job kind must be one of reembed, extract, sleep"):
        mem.jobs().enqueue("compact", "user")
    with pytest.raises(ValidationError, match="needs the session: --session ID"):
        mem.enqueue("extract")
    with pytest.raises(ValidationError, match="job state must be one of"):
        mem.jobs().list(state="stuck")
    assert mem.jobs().list() == []


# -- isolation ---------------------------------------------------------------------------------
def test_jobs_are_isolated_by_row_level_security(pg_app_dsn: str) -> None:  # noqa: F811
    alice, bob = _pg(pg_app_dsn, "alice"), _pg(pg_app_dsn, "bob")
    mine, _ = alice.enqueue("reembed", scope="user")
    theirs, _ = bob.enqueue("reembed", scope="user")
    assert [j.id for j in alice.jobs().list()] == [mine.id]
    for act in (alice.jobs().get, alice.jobs().cancel, alice.jobs().retry):
        with pytest.raises(NotFoundError, match=f"no job {theirs.id}"):
            act(theirs.id)
    assert bob.jobs().get(theirs.id).state == "queued"  # nothing of bob's changed
    with psycopg.connect(pg_app_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (0,)  # nobody set
        conn.execute("SELECT set_config('memdir.owner', 'alice', false)")
        assert conn.execute("SELECT owner FROM jobs").fetchall() == [("alice",)]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO jobs (owner, scope, kind) VALUES ('bob', 'user', 'sleep')")
    # a worker's queue connection sees every owner's jobs, and no one's memories
    alice.remember("Alice likes coffee", type="user")
    with psycopg.connect(pg_app_dsn, autocommit=True) as conn:
        conn.execute("SELECT set_config('memdir.worker', 'on', false)")
        assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (2,)
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # it claims, it never adds
            conn.execute("INSERT INTO jobs (owner, scope, kind) VALUES ('bob', 'user', 'sleep')")
        assert conn.execute("DELETE FROM jobs").rowcount == 0  # nor removes


@pytest.fixture
def api(sandbox: Path, pg_app_dsn: str) -> Iterator[Any]:  # noqa: F811
    from test_http import api_over

    yield from api_over(sandbox, backend=pg_app_dsn)


def test_jobs_over_rest_are_the_key_s_user_s_only(api: Any, pg_app_dsn: str) -> None:  # noqa: F811
    bob_job = _pg(pg_app_dsn, "bob").jobs().enqueue("reembed", "user")[0]
    alice_job = _pg(pg_app_dsn, "alice").jobs().enqueue("sleep", "user")[0]
    status, body = api.a("GET", "/v1/jobs")
    assert status == 200 and [j["id"] for j in body] == [alice_job.id]
    assert body[0]["state"] == "queued" and "payload" not in body[0]
    assert api.a("GET", f"/v1/jobs/{alice_job.id}")[1]["kind"] == "sleep"
    status, body = api.a("GET", f"/v1/jobs/{bob_job.id}")
    assert status == 404 and body["error"]["code"] == "not_found"
    assert api.b("GET", f"/v1/jobs/{bob_job.id}")[0] == 200
    assert api.a("GET", "/v1/jobs/not-a-number")[0] == 422
    assert api.a("GET", "/v1/jobs?state=failed") == (200, [])


def test_post_jobs_queues_for_the_key_s_user_once(api: Any, pg_app_dsn: str) -> None:  # noqa: F811
    status, made = api.a("POST", "/v1/jobs", {"kind": "reembed", "scope": "user", "rebuild": True})
    assert status == 201 and made["created"] is True and made["state"] == "queued", made
    assert made["kind"] == "reembed" and "payload" not in made
    # the same job again while it waits: the one queued, not a second
    status, again = api.a("POST", "/v1/jobs", {"kind": "reembed", "scope": "user", "rebuild": True})
    assert status == 200 and again["created"] is False and again["id"] == made["id"]
    # the queue holds it as alice's, as the CLI's `jobs add` would have queued it
    assert [(j.id, j.owner) for j in _pg(pg_app_dsn, "alice").jobs().list()] == [
        (made["id"], "alice")
    ]
    assert api.b("GET", "/v1/jobs") == (200, [])  # bob sees none of it
    assert api.b("GET", f"/v1/jobs/{made['id']}")[0] == 404


def test_post_jobs_bad_input_is_422_and_queues_nothing(api: Any, pg_app_dsn: str) -> None:  # noqa: F811
    for body in (
        {"kind": "compact"},  # no such kind
        {"kind": "reembed", "max_attempts": 0},
        {"kind": "reembed", "colour": "red"},  # an unknown field is refused, not ignored
        {"kind": "sleep", "session": "s1"},  # only extract takes a session
        {"kind": "extract"},  # extract needs one
    ):
        status, out = api.a("POST", "/v1/jobs", body)
        assert status == 422 and out["error"]["code"] == "invalid_input", (body, out)
    status, out = api.a("POST", "/v1/jobs", {"kind": "extract"})
    assert "needs the session" in out["error"]["message"]
    assert _pg(pg_app_dsn, "alice").jobs().list() == []  # nothing was queued


# -- the file backend --------------------------------------------------------------------------
def test_on_the_file_backend_jobs_and_worker_say_they_need_postgresql(
    sandbox: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (["jobs"], ["jobs", "--json"], ["worker", "--once"], ["jobs", "retry", "1"]):
        code, out, err = _cli(capsys, *args)
        assert code == 1 and out == "", args
        assert "need the PostgreSQL backend" in err and "memdir config set backend" in err, err
    with pytest.raises(UnsupportedError, match="the file backend"):
        Memory().jobs()
    assert not (sandbox / "project" / ".agent").exists()  # asking wrote nothing


def test_job_records_serialise_without_their_payload() -> None:
    job = Job(1, "alice", "user", "extract", "queued", 0, 3, None, payload={"transcript": "x"})
    assert "payload" not in job.to_dict() and job.to_dict(payload=True)["payload"] == {
        "transcript": "x"
    }


def test_jobs_over_rest_on_the_file_backend_are_501_saying_what_to_configure(
    sandbox: Path,
) -> None:
    from test_http import api_over

    for api in api_over(sandbox):
        status, body = api.a("GET", "/v1/jobs")
        assert status == 501 and body["error"]["code"] == "not_supported"
        assert "need the PostgreSQL backend" in body["error"]["message"]
        assert api.a("GET", "/v1/jobs/1")[0] == 501
        status, body = api.a("POST", "/v1/jobs", {"kind": "reembed"})
        assert status == 501 and "need the PostgreSQL backend" in body["error"]["message"]
    assert not (sandbox / "project" / ".agent").exists()  # asking wrote nothing


def test_a_running_job_cancelled_stops_at_its_next_progress(pg_app_dsn: str) -> None:  # noqa: F811
    from memdir.pg.jobs import JobLostError

    queue = _pg(pg_app_dsn).jobs()
    job, _ = queue.enqueue("reembed", "user")
    worker = WorkerQueue(pg_app_dsn, "w")
    try:
        claimed = worker.claim()
        assert claimed is not None and claimed.id == job.id
        worker.progress(claimed, {"done": 1, "total": 4})
        assert queue.get(job.id).progress == {"done": 1, "total": 4}
        assert queue.cancel(job.id).state == "cancelled"
        with pytest.raises(JobLostError):
            worker.progress(claimed, {"done": 2, "total": 4})
        worker.abandon()
        assert _lease_free(pg_app_dsn, job.id)
        assert worker.claim() is None  # cancelled is not claimed again
        # queued again, it runs from the top on the next claim
        assert queue.retry(job.id).state == "queued"
        again = worker.claim()
        assert again is not None and again.id == job.id and again.attempts == 1
        worker.finish(again)
    finally:
        worker.close()
    assert queue.get(job.id).state == "done"


def test_a_worker_serving_many_owners_keeps_few_connections(
    pg_app_dsn: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import memdir.worker

    monkeypatch.setattr(memdir.worker, "MAX_FACADES", 1)  # each new owner evicts the last
    for owner in ("alice", "bob", "carol"):
        mem = _pg(pg_app_dsn, owner)
        mem.remember(f"{owner.title()} drinks tea", type="user")
        mem.enqueue("reembed", scope="user", embedder="hashing")
        mem.backend.close()  # type: ignore[attr-defined]
    opened: list[int] = []

    def connections() -> int:
        return client_connections(pg_app_dsn)

    summary = _run(pg_app_dsn, on_job=lambda j, state: opened.append(connections()))
    assert len(summary.done) == 3
    assert max(opened) <= 3  # the queue's, one owner's backend and its index: never all three
    wait_until(lambda: connections() == 0, "the worker's connections to close")


def test_two_worker_processes_share_the_queue_and_run_each_job_once(
    pg_app_dsn: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mem = _pg(pg_app_dsn)
    mem.remember("The user prefers green tea", type="user")
    monkeypatch.setenv("MEMDIR_BACKEND", pg_app_dsn)
    monkeypatch.setenv("MEMDIR_USER", "alice")
    code, out, _ = _cli(capsys, "jobs", "add", "reembed", "--scope", "user", "--json")
    added = json.loads(out)
    assert code == 0 and added["created"] is True and added["state"] == "queued"
    code, out, _ = _cli(capsys, "jobs", "show", str(added["id"]), "--json")
    assert code == 0 and json.loads(out)["kind"] == "reembed"
    ids = {added["id"]}
    ids |= {mem.jobs().enqueue("reembed", "user", {"embedder": "hashing"})[0].id for _ in range(15)}
    procs = [_worker(pg_app_dsn, "--concurrency", "2") for _ in range(2)]
    ran: list[list[int]] = []
    for proc in procs:
        out, err = proc.communicate(timeout=HANG_GUARD_S)
        assert proc.returncode == 0, err
        ran.append(json.loads(out)["done"])
    assert sorted(ran[0] + ran[1]) == sorted(ids)  # each job once, by one process or the other
    assert {(j.state, j.attempts) for j in mem.jobs().list()} == {("done", 1)}
