"""API keys in the PostgreSQL database (issue 20 §1: "the database is the truth … API keys"):
stored salted and hashed as ``keys.json`` stores them, shared at once by every server process
on the database, and unreadable by a connection that names no key and no owner."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401
from tests.waiting import alive, wait_until

from memdir.cli import main
from memdir.errors import NotFoundError, StorageUnavailableError, ValidationError
from memdir.http.keys import KeyRing, open_keys
from memdir.pg.keys import PgKeyRing

HANG_GUARD_S = 60
SERVE = [sys.executable, "-m", "memdir.cli", "serve", "--http"]


@pytest.fixture
def ring(pg_app_dsn: str) -> Iterator[PgKeyRing]:  # noqa: F811
    keys = PgKeyRing(pg_app_dsn)
    yield keys
    keys.close()


def _rows(dsn: str, *settings: tuple[str, str]) -> list[tuple[Any, ...]]:
    """``SELECT * FROM api_keys`` by hand, on a connection with ``settings`` set."""
    with psycopg.connect(dsn) as conn:
        for name, value in settings:
            conn.execute("SELECT set_config(%s, %s, false)", (name, value))
        return conn.execute("SELECT * FROM api_keys ORDER BY created, id").fetchall()


def test_a_key_in_the_database_names_its_user_and_only_its_salted_hash_is_stored(
    ring: PgKeyRing,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    info, key = ring.create("alice")
    _, other = ring.create("alice")
    assert key.startswith("mdk_") and info.user == "alice" and info.revoked is None
    assert ring.user_for(key) == "alice" and ring.user_for(other) == "alice"
    secret = key.split("_", 2)[2]  # mdk_<id>_<secret>: the secret may hold "_" itself
    rows = _rows(pg_app_dsn, ("memdir.keys", "admin"))
    assert len(rows) == 2
    stored = repr(rows)
    assert secret not in stored and key not in stored
    assert rows[0][3] != rows[1][3] and rows[0][2] != rows[1][2]  # salts and hashes differ
    assert ring.list()[0].to_dict() == info.to_dict()


@pytest.mark.parametrize(
    "presented",
    ["", "mdk_", "Bearer x", "mdk_00000000_" + "A" * 43, "mdk_zzzzzzzz_" + "A" * 43, "\x00" * 60],
)
def test_malformed_or_unknown_keys_name_nobody_in_the_database(
    ring: PgKeyRing, presented: str
) -> None:
    ring.create("alice")
    assert ring.user_for(presented) is None


def test_a_key_with_its_secret_changed_is_refused(ring: PgKeyRing) -> None:
    _, key = ring.create("alice")
    flipped = key[:-1] + ("A" if key[-1] != "A" else "B")
    assert ring.user_for(flipped) is None


def test_revoke_by_id_or_user_stops_the_key_for_another_reader_at_once(
    ring: PgKeyRing,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    reader = PgKeyRing(pg_app_dsn)  # another process's view: nothing cached to go stale
    try:
        a1, key1 = ring.create("alice")
        _, key2 = ring.create("alice")
        _, key3 = ring.create("bob")
        assert reader.user_for(key1) == "alice"
        assert [i.id for i in ring.revoke(a1.id)] == [a1.id]
        assert reader.user_for(key1) is None and reader.user_for(key2) == "alice"
        assert len(ring.revoke("alice")) == 1 and ring.revoke("alice") == []
        assert reader.user_for(key2) is None and reader.user_for(key3) == "bob"
        assert [i.revoked is not None for i in ring.list()] == [True, True, False]
        with pytest.raises(NotFoundError, match="memdir keys list"):
            ring.revoke("carol")
    finally:
        reader.close()


def test_a_bad_user_name_is_refused_and_nothing_is_stored(ring: PgKeyRing) -> None:
    with pytest.raises(ValidationError, match="lowercase letters"):
        ring.create("../bob")
    assert ring.list() == []


def test_row_level_security_shows_keys_only_by_owner_or_by_one_looked_up_id(
    ring: PgKeyRing,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    """Authentication reads before an owner is known: only through ``memdir_key_lookup``, one
    row by id. A hand-written SELECT that names no owner sees no key; one that names alice sees
    alice's only; the lookup function leaves nothing set behind it."""
    a, _ = ring.create("alice")
    b, _ = ring.create("bob")
    assert _rows(pg_app_dsn) == []
    assert [r[0] for r in _rows(pg_app_dsn, ("memdir.owner", "alice"))] == [a.id]
    with psycopg.connect(pg_app_dsn) as conn:
        found = conn.execute("SELECT owner FROM memdir_key_lookup(%s)", (b.id,)).fetchall()
        assert found == [("bob",)]
        assert conn.execute("SELECT count(*) FROM api_keys").fetchone() == (0,)
        assert conn.execute("SELECT * FROM memdir_key_lookup('')").fetchall() == []
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # RLS: WITH CHECK fails
            conn.execute(
                "INSERT INTO api_keys (id, owner, salt, hash) VALUES ('00000000', 'eve', '', '')"
            )
    assert len(ring.list()) == 2  # nothing was added


def test_a_database_that_cannot_be_reached_is_a_clear_error_without_the_password() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(StorageUnavailableError) as caught:
        PgKeyRing(f"postgresql://memdir:hunter2-pw@127.0.0.1:{port}/memdir")
    message = str(caught.value)
    assert f"127.0.0.1:{port}/memdir" in message and "hunter2-pw" not in message


def test_created_and_revoked_are_utc_timestamps_as_in_keys_json(ring: PgKeyRing) -> None:
    info, _ = ring.create("alice")
    (revoked,) = ring.revoke(info.id)
    for stamp in (info.created, revoked.revoked):
        assert stamp is not None and len(stamp) == 20 and stamp.endswith("Z")
    assert revoked.created == info.created


def test_open_keys_picks_the_database_for_a_postgresql_backend(
    tmp_path: Path,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    assert isinstance(open_keys(tmp_path, "file"), KeyRing)
    keys = open_keys(tmp_path, pg_app_dsn)
    assert isinstance(keys, PgKeyRing)
    keys.create("alice")
    keys.close()
    assert not (tmp_path / "keys.json").exists()  # nothing went to a file


def test_the_cli_issues_lists_and_revokes_keys_in_the_database(
    tmp_path: Path,
    pg_app_dsn: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ["--data", str(tmp_path / "server"), "--backend", pg_app_dsn]
    assert main(["keys", "create", "alice", *base]) == 0
    out = capsys.readouterr()
    key = out.out.strip()
    assert key.startswith("mdk_") and "not shown again" in out.err
    assert main(["keys", "create", "bob", *base, "--json"]) == 0
    bob = json.loads(capsys.readouterr().out)
    assert main(["keys", "list", *base, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [k["user"] for k in listed] == ["alice", "bob"]
    assert all(set(k) == {"id", "user", "created", "revoked"} for k in listed)
    assert main(["keys", "revoke", bob["id"], *base]) == 0
    assert "revoked" in capsys.readouterr().out
    ring = PgKeyRing(pg_app_dsn)
    assert ring.user_for(bob["key"]) is None and ring.user_for(key) == "alice"
    ring.close()
    assert main(["keys", "revoke", "nobody", *base]) == 1
    err = capsys.readouterr().err
    assert "memdir keys list" in err and "s3cret-app-pw" not in err
    assert not (tmp_path / "server" / "keys.json").exists()


# -- two real server processes on one database ---------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port)).close()
        return True
    except OSError:
        return False


@contextlib.contextmanager
def _server(data: Path, dsn: str, log: Path) -> Iterator[int]:
    port = _free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*SERVE, "--port", str(port), "--data", str(data), "--backend", dsn],
            env={**os.environ, "MEMDIR_EMBEDDER": "hashing"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until(lambda: _listening(port), "memdir serve to listen", alive=alive(proc))
            yield port
        finally:
            proc.terminate()
            proc.wait(HANG_GUARD_S)


def _get(port: int, key: str) -> int:
    import httpx

    response = httpx.get(
        f"http://127.0.0.1:{port}/v1/memories",
        headers={"Authorization": f"Bearer {key}"},
        timeout=HANG_GUARD_S,
    )
    return response.status_code


def test_two_server_processes_share_the_databases_keys_at_once(
    tmp_path: Path,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    """A key created after both servers started works on both; revoked, on neither; and its
    secret appears in neither server's output."""
    logs = [tmp_path / "one.log", tmp_path / "two.log"]
    with (
        _server(tmp_path / "one", pg_app_dsn, logs[0]) as one,
        _server(tmp_path / "two", pg_app_dsn, logs[1]) as two,
    ):
        ring = PgKeyRing(pg_app_dsn)
        try:
            info, key = ring.create("alice")
            assert (_get(one, key), _get(two, key)) == (200, 200)
            ring.revoke(info.id)
            assert (_get(one, key), _get(two, key)) == (401, 401)
        finally:
            ring.close()
    secret = key.split("_", 2)[2]  # mdk_<id>_<secret>: the secret may hold "_" itself
    for log in logs:
        text = log.read_text(encoding="utf-8", errors="replace")
        assert "/v1/memories" in text  # the access log was written: it is what is checked
        assert secret not in text and "s3cret-app-pw" not in text


def test_a_database_gone_mid_run_is_503_naming_it_not_401_and_not_the_password(
    sandbox: Path,
    pg_app_dsn: str,  # noqa: F811
    pg_server: str,  # noqa: F811
) -> None:
    """Authentication itself needs the database: when it goes away the answer is the store's
    503 (retry), never a 401 that would tell a client its valid key is wrong."""
    import http.client
    from urllib.parse import urlsplit

    from test_http import api_over

    database = urlsplit(pg_app_dsn).path.lstrip("/")
    for api in api_over(sandbox, backend=pg_app_dsn):
        assert api.a("GET", "/v1/memories")[0] == 200
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
        conn2 = http.client.HTTPConnection("127.0.0.1", api.port, timeout=HANG_GUARD_S)
        conn2.request("GET", "/v1/memories", headers={"Authorization": f"Bearer {api.alice}"})
        response = conn2.getresponse()
        body = json.loads(response.read())
        conn2.close()
        assert response.status == 503, body
        assert response.getheader("Retry-After") is not None
        message = body["error"]["message"]
        assert database in message and "s3cret-app-pw" not in message


# -- moving keys.json into the database -----------------------------------------------------
def test_keys_import_moves_keys_json_so_issued_keys_keep_working(
    tmp_path: Path,
    pg_app_dsn: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "server"
    file_ring = KeyRing(folder)
    _, alice = file_ring.create("alice")
    bob_info, bob = file_ring.create("bob")
    file_ring.revoke(bob_info.id)
    data = json.loads(file_ring.path.read_text())
    data["keys"].append({"id": "zz", "user": "eve", "salt": "00", "hash": "00"})  # by hand
    file_ring.path.write_text(json.dumps(data))
    before = file_ring.path.read_bytes()

    args = ["keys", "import", "--from", str(folder), "--backend", pg_app_dsn]
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(k["user"], bool(k["revoked"])) for k in report["added"]] == [
        ("alice", False),
        ("bob", True),
    ]
    assert report["skipped"] == [{"id": "zz", "reason": "not a key id (8 hex digits)"}]
    ring = PgKeyRing(pg_app_dsn)
    try:
        assert ring.user_for(alice) == "alice"  # the key alice already holds works here now
        assert ring.user_for(bob) is None  # and a revoked one stays revoked
        listed = {(k.id, k.created) for k in ring.list()}
        assert {(k.id, k.created) for k in file_ring.list()[:2]} == listed  # dates kept
    finally:
        ring.close()
    # again: nothing doubles
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "0 key(s) imported" in out and out.count("already here") == 2
    assert file_ring.path.read_bytes() == before  # keys.json is left as it was
    assert "s3cret-app-pw" not in out


def test_keys_import_refuses_a_file_backend_or_a_missing_keys_json(
    tmp_path: Path,
    pg_app_dsn: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    KeyRing(tmp_path / "server").create("alice")
    assert main(["keys", "import", "--from", str(tmp_path / "server"), "--backend", "file"]) == 1
    assert "--backend postgresql://" in capsys.readouterr().err
    assert main(["keys", "import", "--from", str(tmp_path / "none"), "--backend", pg_app_dsn]) == 1
    err = capsys.readouterr().err
    assert "keys.json to import" in err and "s3cret-app-pw" not in err
    ring = PgKeyRing(pg_app_dsn)
    try:
        assert ring.list() == []  # nothing was imported by either
    finally:
        ring.close()
