"""The REST API on the PostgreSQL backend (issue 20 §3): each API key's user opens the database
as itself (``http.users``: one backend per user, ``owner=`` that user), so row-level security,
not only the server's routing, keeps users apart. The file backend's own REST tests run here
unchanged against a real PostgreSQL, with a ``api`` fixture that serves the same app over it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from test_http import (  # noqa: F401  (collected here again, over PostgreSQL)
    Api,
    api_over,
    test_history_of_a_name_nobody_has_is_404,
    test_recall_finds_and_explains,
    walk_across_users,
)


@pytest.fixture
def api(sandbox: Path, pg_app_dsn: str) -> Iterator[Api]:  # noqa: F811
    yield from api_over(sandbox, backend=pg_app_dsn)


def test_user_a_can_neither_read_nor_change_anything_of_user_b_on_postgresql(api: Api) -> None:
    """The file backend's cross-user walk of every endpoint, over PostgreSQL; sleep answers 501
    there (file backend only, for now), which the walk reads as a refusal like 404/422."""
    walk_across_users(api, refused=(404, 422, 501))


def test_sleep_on_postgresql_is_501_not_supported_and_writes_nothing(api: Api) -> None:
    status, body = api.a("POST", "/v1/sleep")
    assert status == 501 and body["error"]["code"] == "not_supported", body
    assert "file backend only" in body["error"]["message"]
    assert api.a("GET", "/v1/history")[1] == []


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
