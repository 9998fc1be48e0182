"""The bounded connection pool (pg/pool.py, issue 20 item 5): a connection user A returned and
user B takes never shows A's rows (a hand-written SELECT decides, under row-level security);
one returned inside a transaction is not reused; all in use is a clear error, not a hang. And
it is what the backend runs on: many owners served one after another keep one connection, not
a set each, and a lease holds one for every statement of the calls inside it."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest
from tests.pgapp import client_connections, pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from memdir import Memory
from memdir.backends import open_backend
from memdir.errors import ConfigError, StorageUnavailableError
from memdir.pg.pool import Pool, shared


def _job_for(dsn: str, owner: str) -> int:
    mem = Memory(backend=open_backend(dsn, owner=owner), embedder="hashing", llm=False)
    return mem.jobs().enqueue("reembed", "user")[0].id


def test_a_connection_returned_by_alice_and_taken_by_bob_never_shows_alice_s_rows(
    pg_app_dsn: str,  # noqa: F811
) -> None:
    alice_job = _job_for(pg_app_dsn, "alice")
    pool = Pool(pg_app_dsn, size=1, wait_s=0)
    try:
        with pool.connection("alice") as conn:
            alice_pid = conn.info.backend_pid
            assert conn.execute("SELECT id FROM jobs").fetchall() == [(alice_job,)]
        with pool.connection("bob") as conn:
            assert conn.info.backend_pid == alice_pid  # the very same connection
            assert conn.execute("SELECT id, owner FROM jobs").fetchall() == []
            assert conn.execute("SELECT count(*) FROM jobs WHERE owner = 'alice'").fetchone() == (
                0,
            )
            owner = conn.execute("SELECT current_setting('memdir.owner')").fetchone()
            assert owner == ("bob",)
        with pool.connection("alice") as conn:  # and back: alice sees hers again
            assert conn.execute("SELECT id FROM jobs").fetchall() == [(alice_job,)]
    finally:
        pool.close()


def test_a_returned_connection_is_reset_before_anyone_takes_it(pg_app_dsn: str) -> None:  # noqa: F811
    _job_for(pg_app_dsn, "alice")
    pool = Pool(pg_app_dsn, size=1, wait_s=0)
    try:
        with pool.connection("alice") as conn:
            pass
        assert conn.execute("SELECT current_setting('memdir.owner')").fetchone() == ("",)
        assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (0,)  # idle: no one's
    finally:
        pool.close()


def test_a_connection_returned_inside_a_transaction_is_closed_not_reused(
    pg_app_dsn: str,  # noqa: F811
) -> None:
    pool = Pool(pg_app_dsn, size=1, wait_s=0)
    try:
        with pool.connection("alice") as conn:
            conn.execute("BEGIN")
            conn.execute("SELECT 1")
        assert conn.closed and pool.in_use == 0
        with pool.connection("bob") as again:
            assert again is not conn
            assert again.execute("SELECT current_setting('memdir.owner')").fetchone() == ("bob",)
    finally:
        pool.close()


def test_all_connections_in_use_is_a_clear_error_not_a_hang(pg_app_dsn: str) -> None:  # noqa: F811
    pool = Pool(pg_app_dsn, size=2, wait_s=0)
    try:
        with pool.connection("alice"), pool.connection("bob"):
            assert pool.in_use == 2
            with (
                pytest.raises(StorageUnavailableError, match="all 2 connections") as caught,
                pool.connection("carol"),
            ):
                pass
            assert "password" not in str(caught.value) and "try again" in str(caught.value)
        assert pool.in_use == 0
        with pool.connection("carol") as conn:  # free again once they came back
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        pool.close()


def test_a_pool_refuses_no_owner_and_no_size(pg_app_dsn: str) -> None:  # noqa: F811
    with pytest.raises(ConfigError, match="at least one"):
        Pool(pg_app_dsn, size=0)
    pool = Pool(pg_app_dsn, size=1)
    with pytest.raises(ConfigError, match="MEMDIR_USER"), pool.connection(""):
        pass
    assert shared(pg_app_dsn) is shared(pg_app_dsn)
    shared(pg_app_dsn).close()


def test_many_owners_one_after_another_keep_one_connection(pg_app_dsn: str) -> None:  # noqa: F811
    """Before the pool each facade kept a connection for its store and one per index, for as
    long as it lived: twelve users of one server thread held 36."""
    kept = []  # every facade stays alive, as a server keeps its loaded users
    for n in range(12):
        mem = Memory(
            backend=open_backend(pg_app_dsn, owner=f"user{n}"), embedder="hashing", llm=False
        )
        mem.remember(f"User {n} prefers tea number {n}", type="user", scope="user")
        assert [h.record.statement for h in mem.recall(f"tea number {n}", min_score=0)][:1] == [
            f"User {n} prefers tea number {n}"
        ]
        kept.append(mem)
    assert client_connections(pg_app_dsn) == 1  # the one idle in the pool, reused by each


def test_nested_borrows_of_one_owner_share_a_connection(pg_app_dsn: str) -> None:  # noqa: F811
    pool = Pool(pg_app_dsn, size=2, wait_s=0)
    try:
        with pool.connection("alice") as outer:
            with pool.connection("alice") as inner:
                assert inner is outer and pool.in_use == 1
            with pool.connection("bob") as other:  # another owner never shares it
                assert other is not outer and pool.in_use == 2
                row = other.execute("SELECT current_setting('memdir.owner')").fetchone()
                assert row == ("bob",)
            assert outer.execute("SELECT current_setting('memdir.owner')").fetchone() == ("alice",)
        assert pool.in_use == 0
    finally:
        pool.close()


def test_a_lease_runs_every_statement_of_its_calls_on_one_connection(
    pg_app_dsn: str,  # noqa: F811
) -> None:
    mem = Memory(backend=open_backend(pg_app_dsn, owner="alice"), embedder="hashing", llm=False)
    mem.remember("Alice deploys on Fridays", type="user", scope="user")
    pids: set[int] = set()
    original = psycopg.Connection.execute

    def execute(self: psycopg.Connection[Any], *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is threading.main_thread():
            pids.add(self.info.backend_pid)
        return original(self, *args, **kwargs)

    psycopg.Connection.execute = execute  # type: ignore[method-assign]
    try:
        with mem.lease():
            mem.remember("Alice reviews on Mondays", type="user", scope="user")
            hits = mem.recall("when does Alice review?", min_score=0)
    finally:
        psycopg.Connection.execute = original  # type: ignore[method-assign]
    assert "Alice reviews on Mondays" in [h.record.statement for h in hits]
    assert len(pids) == 1  # the store's writes, the index's sync and the recall log alike
