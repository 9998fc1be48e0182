"""The bounded connection pool (pg/pool.py, issue 20 item 5): a connection user A returned and
user B takes never shows A's rows (a hand-written SELECT decides, under row-level security);
one returned inside a transaction is not reused; all in use is a clear error, not a hang."""

from __future__ import annotations

import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
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
