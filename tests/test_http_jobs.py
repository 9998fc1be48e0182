"""``POST /v1/jobs`` (issue 20 item 5): REST queues the same jobs as ``memdir jobs add`` —
for the key's user only (row-level security, checked by a hand-written SELECT as the other
user), the same job twice is one job, bad input queues nothing, and the file backend says
what to configure (501)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from test_http import Api, api_over


@pytest.fixture
def api(sandbox: Path, pg_app_dsn: str) -> Iterator[Api]:  # noqa: F811
    yield from api_over(sandbox, backend=pg_app_dsn)


def _rows_seen_by(dsn: str, owner: str) -> list[tuple[Any, ...]]:
    """Every job row ``owner`` can see, by SQL (row-level security decides, not the server)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SELECT set_config('memdir.owner', %s, false)", (owner,))
        return conn.execute("SELECT id, owner, kind, payload FROM jobs ORDER BY id").fetchall()


def test_a_job_queued_over_rest_is_the_key_s_user_s_and_queued_once(
    api: Api,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    status, body = api.a("POST", "/v1/jobs", {"kind": "reembed", "scope": "user"})
    assert status == 201 and body["created"] is True, body
    assert body["kind"] == "reembed" and body["state"] == "queued" and body["scope"] == "user"
    assert "payload" not in body and body["max_attempts"] == 3
    again = api.a("POST", "/v1/jobs", {"kind": "reembed", "scope": "user"})
    assert again[0] == 200 and again[1]["created"] is False and again[1]["id"] == body["id"]
    rebuilt = api.a("POST", "/v1/jobs", {"kind": "reembed", "scope": "user", "rebuild": True})
    assert rebuilt[0] == 201 and rebuilt[1]["id"] != body["id"]  # another job: another key
    # the rows are alice's; bob sees none of them, by SQL and over REST
    seen = _rows_seen_by(pg_app_dsn, "alice")
    assert [(r[0], r[1], r[2]) for r in seen] == [
        (body["id"], "alice", "reembed"),
        (rebuilt[1]["id"], "alice", "reembed"),
    ]
    assert seen[1][3] == {"rebuild": True, "embedder": None}
    assert _rows_seen_by(pg_app_dsn, "bob") == []
    assert api.b("GET", "/v1/jobs") == (200, [])
    assert api.b("GET", f"/v1/jobs/{body['id']}")[0] == 404
    assert api.a("GET", f"/v1/jobs/{body['id']}")[1]["id"] == body["id"]


def test_an_extract_job_over_rest_carries_the_session_the_user_appended(
    api: Api,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    messages = [{"role": "user", "content": "I prefer tabs over spaces."}]
    status, made = api.a("POST", "/v1/sessions", {"messages": messages})
    assert status == 201, made
    session = made["id"]
    status, body = api.a("POST", "/v1/jobs", {"kind": "extract", "session": session})
    assert status == 201 and body["kind"] == "extract", body
    (row,) = _rows_seen_by(pg_app_dsn, "alice")
    assert row[3]["session"] == session and "tabs over spaces" in row[3]["transcript"]
    status, err = api.b("POST", "/v1/jobs", {"kind": "extract", "session": session})
    assert status == 404 and err["error"]["code"] == "not_found"  # bob has no such session
    assert _rows_seen_by(pg_app_dsn, "bob") == []


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"kind": "extract"}, "needs the session"),
        ({"kind": "sleep", "session": "x"}, "takes no session"),
        ({"kind": "compact"}, "kind"),
        ({"kind": "reembed", "max_attempts": 0}, "max_attempts"),
        ({"kind": "reembed", "scope": "team"}, "scope"),
        ({"kind": "reembed", "priority": 1}, "priority"),
        ({}, "kind"),
    ],
)
def test_bad_job_input_over_rest_is_422_and_queues_nothing(
    api: Api,
    pg_app_dsn: str,  # noqa: F811
    body: dict[str, Any],
    said: str,
) -> None:
    status, err = api.a("POST", "/v1/jobs", body)
    assert status == 422 and err["error"]["code"] == "invalid_input", err
    assert said in err["error"]["message"], err
    assert _rows_seen_by(pg_app_dsn, "alice") == []


def test_queueing_a_job_on_the_file_backend_is_501_and_writes_nothing(sandbox: Path) -> None:
    for api in api_over(sandbox):
        status, body = api.a("POST", "/v1/jobs", {"kind": "reembed"})
        assert status == 501 and body["error"]["code"] == "not_supported", body
        assert "need the PostgreSQL backend" in body["error"]["message"]
        assert "memdir config set backend" in body["error"]["message"]
        status, body = api.a("POST", "/v1/jobs", {"kind": "extract", "session": "nope"})
        assert status == 501, body
        assert api.a("GET", "/v1/sessions") == (200, [])  # asking wrote nothing
