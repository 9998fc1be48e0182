"""The REST API on the PostgreSQL backend (issue 20 §3): each API key's user opens the database
as itself (``http.users``: one backend per user, ``owner=`` that user), so row-level security,
not only the server's routing, keeps users apart. The file backend's own REST tests run here
unchanged against a real PostgreSQL, with a ``api`` fixture that serves the same app over it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from memdir import Memory
from test_http import (  # noqa: F401  (collected here again, over PostgreSQL)
    Api,
    _remember,
    api_over,
    test_history_of_a_name_nobody_has_is_404,
    test_recall_finds_and_explains,
    walk_across_users,
)


@pytest.fixture
def api(sandbox: Path, pg_app_dsn: str) -> Iterator[Api]:  # noqa: F811
    yield from api_over(sandbox, backend=pg_app_dsn)


def test_user_a_can_neither_read_nor_change_anything_of_user_b_on_postgresql(api: Api) -> None:
    """The file backend's cross-user walk of every endpoint, over PostgreSQL (sleep included:
    it runs there too now)."""
    walk_across_users(api, refused=(404, 422))


def _rows(dsn: str, owner: str) -> list[tuple[str, bool, str, bytes]]:
    with psycopg.connect(dsn) as conn:
        conn.execute("SELECT set_config('memdir.owner', %s, false)", (owner,))
        rows = conn.execute(
            "SELECT scope, archived, name, data FROM memories ORDER BY scope, archived, name"
        ).fetchall()
    return [(str(s), bool(a), str(n), bytes(d)) for s, a, n, d in rows]


def test_sleep_on_postgresql_plans_applies_and_undoes_one_users_rows_only(
    api: Api,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    from datetime import UTC, datetime, timedelta

    def ago(days: int) -> str:
        return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")

    for key in (api.alice, api.bob):
        for text, days in (
            ("We use PostgreSQL 15 for the orders service", 20),
            ("We use PostgreSQL 16 for the orders service", 3),
            ("Billing cron runs at 02:00 UTC", 45),
        ):
            _remember(api, key, text, type="user", created=ago(days))
    alice_before, bob_before = _rows(pg_app_dsn, "alice"), _rows(pg_app_dsn, "bob")
    status, planned = api.a("POST", "/v1/sleep/plan")
    assert status == 200 and planned["run"] is None
    assert "supersede" in {s["action"] for s in planned["plan"]["steps"]}
    assert _rows(pg_app_dsn, "alice") == alice_before  # a plan writes nothing
    status, done = api.a("POST", "/v1/sleep")
    assert status == 200 and done["run"].startswith("sleep-") and done["changes"] > 0, done
    archived = [n for _, a, n, _ in _rows(pg_app_dsn, "alice") if a]
    assert "we-use-postgresql-15-for-the-orders-service" in archived
    status, undone = api.a("POST", f"/v1/sleep/runs/{done['run']}/undo")
    assert status == 200 and len(undone) == done["changes"]
    assert _rows(pg_app_dsn, "alice") == alice_before  # every byte back
    assert api.b("POST", f"/v1/sleep/runs/{done['run']}/undo")[0] == 404
    assert _rows(pg_app_dsn, "bob") == bob_before  # alice's sleep never touched bob


def test_each_users_rows_are_owned_by_that_user(api: Api, pg_app_dsn: str) -> None:  # noqa: F811
    """What the server wrote for alice and bob is stored under their own owners: a connection
    that sets bob as owner sees only bob's memory, one that sets nobody sees none."""
    for key, text in ((api.alice, "Alice likes coffee"), (api.bob, "Bob likes tea")):
        status, body = api.call("POST", "/v1/memories", {"text": text, "type": "user"}, key=key)
        assert status == 201, body
    with psycopg.connect(pg_app_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
        conn.execute("SELECT set_config('memdir.owner', 'bob', false)")
        rows = conn.execute("SELECT owner, name FROM memories").fetchall()
    assert rows == [("bob", "bob-likes-tea")]


def test_writes_of_one_user_run_side_by_side_on_postgresql(
    sandbox: Path,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    """The backend says its writers need no queue (``serial_writes``): two writes of one user
    are in flight at once — each waits for the other at a barrier — where the file backend runs
    them one after the other (tests/test_http_load.py)."""
    import asyncio
    import threading

    from tests.waiting import HANG_GUARD_S

    from memdir.http.users import Users

    users = Users(sandbox / "server", backend=pg_app_dsn, embedder="hashing", threads=4)
    barrier = threading.Barrier(2, timeout=HANG_GUARD_S)

    def write(text: str) -> Callable[[Memory], str]:
        def run(m: Memory) -> str:
            barrier.wait()  # returns only once both writes are running
            return m.remember(text, type="user").name

        return run

    async def scenario() -> list[str]:
        await users.read("alice", lambda m: m.names())  # the user's backend is open
        return list(
            await asyncio.gather(
                users.call("alice", write("Alice deploys on Fridays")),
                users.call("alice", write("Alice reviews on Mondays")),
            )
        )

    try:
        names = asyncio.run(scenario())
        assert sorted(asyncio.run(users.read("alice", lambda m: m.names()))) == sorted(names)
    finally:
        users.close()
