"""Sleep on the PostgreSQL backend: the same plan as on files, applied in one transaction,
undone exactly; the daily log as ``scope_files`` rows; confirming a tentative memory; the
worker's ``sleep`` job. A real embedded PostgreSQL and the role row-level security holds
(``tests/pgapp.py``); the rows are read back by hand-written SQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from memdir import Memory
from memdir.backends import open_backend
from memdir.cli import main
from memdir.errors import ConflictError, ValidationError
from memdir.worker import run_workers

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pg(dsn: str, project: Path, owner: str = "alice") -> Memory:
    return Memory(
        backend=open_backend(dsn, owner=owner), project=project, embedder="hashing", llm=False
    )


def _files(project: Path) -> Memory:
    mem = Memory(project=project, embedder="hashing", llm=False)
    mem.init()
    return mem


def _seed(mem: Memory) -> None:
    """Test_sleep's store (a replaced value each way, a decayed fact) and a daily log: a note
    asked for, one noted twice, an old log to compress and an archived one past the TTL."""
    mem.remember("Use pnpm for JS installs", type="feedback", created=ago(20), quote="pnpm!")
    mem.remember("Use npm for JS installs", type="feedback", created=ago(2), source="inferred")
    mem.remember("We use PostgreSQL 15 for the orders service", type="project", created=ago(20))
    mem.remember("We use PostgreSQL 16 for the orders service", type="project", created=ago(3))
    mem.remember("Billing cron runs at 02:00 UTC", type="project", created=ago(45))
    mem.remember("The release train leaves on Thursdays", type="project", created=ago(5))
    mem.log_note("remember: the staging box reboots on Sundays", now=NOW - timedelta(days=40))
    mem.log_note("the flaky test is test_upload", now=NOW - timedelta(days=2))
    mem.log_note("the flaky test is test_upload", now=NOW - timedelta(days=1), session="s2")


def _plan(mem: Memory) -> list[Any]:
    report = mem.sleep(dry_run=True, now=NOW, offline=True, sessions=False)
    assert report.plan is not None
    return [
        (
            s.action,
            s.scope,
            s.names,
            s.reason,
            [(o.kind, o.name, o.expect, o.fields) for o in s.ops],
        )
        for s in report.plan.steps
    ]


def _as(dsn: str, owner: str) -> psycopg.Connection[Any]:
    conn = psycopg.connect(dsn, autocommit=True)
    conn.execute("SELECT set_config('memdir.owner', %s, false)", (owner,))
    return conn


def _rows(dsn: str, owner: str = "alice") -> dict[str, bytes]:
    """Every memory and daily-log row of ``owner``, by the file each stands for (``project``
    for the ``project:<id>`` scope)."""
    with _as(dsn, owner) as conn:
        out = {
            f"{scope.split(':')[0]}/{'archive/' if archived else ''}{name}.md": bytes(data)
            for scope, archived, name, data in conn.execute(
                "SELECT scope, archived, name, data FROM memories"
            )
        }
        for scope, path, data in conn.execute("SELECT scope, path, data FROM scope_files"):
            if not path.startswith(".history/"):  # the journal records moves, as changes do
                out[f"{scope.split(':')[0]}/{path}"] = bytes(data)
    return out


def test_sleep_plans_the_same_on_postgres_as_on_files(
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
) -> None:
    on_files, on_pg = _files(sandbox / "project"), _pg(pg_app_dsn, sandbox / "project")
    _seed(on_files)
    _seed(on_pg)
    files_plan, pg_plan = _plan(on_files), _plan(on_pg)
    # the memory files and the logs are the same bytes on both, so are the plans, hashes and all
    assert [s[:4] for s in pg_plan] == [s[:4] for s in files_plan]
    assert pg_plan == files_plan
    actions = {s[0] for s in pg_plan}
    assert {"supersede", "archive", "compress", "promote"} <= actions


def test_sleep_applies_in_one_step_and_undo_restores_every_row(
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
) -> None:
    mem = _pg(pg_app_dsn, sandbox / "project")
    _seed(mem)
    before = _rows(pg_app_dsn)
    report = mem.sleep(now=NOW, offline=True, sessions=False)
    assert report.run is not None and report.changes and len(report.moves) == 1
    after = _rows(pg_app_dsn)
    assert after != before
    assert "project/archive/billing-cron-runs-at-02-00-utc.md" in after  # decayed: archived
    assert "project/billing-cron-runs-at-02-00-utc.md" not in after
    old_log = f"project/log/{(NOW - timedelta(days=40)):%Y-%m-%d}.md"
    assert old_log not in after and f"project/archive/{old_log[8:]}.gz" in after  # compressed
    logged = [c for c in mem.history() if c.run == report.run]
    assert {c.id for c in logged} == {c.id for c in report.changes}
    assert all(c.actor == "sleep" for c in logged)

    undone = mem.undo_run(report.run)
    assert len(undone) == len(logged)
    assert _rows(pg_app_dsn) == before  # every memory and log row, byte for byte
    with pytest.raises(ValidationError, match="undone already"):
        mem.undo_run(report.run)
    mem.undo_run(f"undo-{report.run}")  # undoing the undo applies the run again
    assert _rows(pg_app_dsn) == after


def test_undo_of_a_postgres_run_refuses_whole_when_a_memory_moved_on(
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
) -> None:
    mem = _pg(pg_app_dsn, sandbox / "project")
    _seed(mem)
    report = mem.sleep(now=NOW, offline=True, sessions=False)
    assert report.run
    mem.update("we-use-postgresql-16-for-the-orders-service", statement="We use PostgreSQL 17")
    after = _rows(pg_app_dsn)
    with pytest.raises(ConflictError, match="nothing was undone"):
        mem.undo_run(report.run)
    assert _rows(pg_app_dsn) == after


def test_the_daily_log_on_postgres_is_rows_only_their_owner_sees(
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MEMDIR_BACKEND", pg_app_dsn)
    monkeypatch.setenv("MEMDIR_USER", "alice")
    assert main(["log", "the build takes ten minutes", "--json"]) == 0
    noted = json.loads(capsys.readouterr().out)
    assert noted["path"].startswith("/memories/project/log/")  # virtual: there is no file
    assert main(["log", "remember: deploys need a green CI run", "--scope", "user"]) == 0
    capsys.readouterr()
    assert not (sandbox / "project" / ".agent" / "memory").exists()
    with _as(pg_app_dsn, "alice") as conn:
        rows = conn.execute("SELECT scope, path, data FROM scope_files ORDER BY scope").fetchall()
    assert [(scope.split(":")[0], path[:4]) for scope, path, _ in rows] == [
        ("project", "log/"),
        ("user", "log/"),
    ]
    text = bytes(rows[0][2]).decode()
    assert text.startswith("# Log ") and text.endswith(") the build takes ten minutes\n")
    # row-level security: bob's hand-written SELECT sees none of alice's log rows
    with _as(pg_app_dsn, "bob") as conn:
        assert conn.execute("SELECT count(*) FROM scope_files").fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO scope_files (owner, scope, path, data) "
                "VALUES ('alice', 'user', 'log/2026-01-01.md', '')"
            )
    with psycopg.connect(pg_app_dsn, autocommit=True) as conn:  # no owner set: nothing
        assert conn.execute("SELECT count(*) FROM scope_files").fetchone() == (0,)
    # the note asked to be remembered: sleep promotes it, on the database too
    report = Memory().sleep(offline=True, sessions=False)
    assert report.plan is not None
    promoted = [s for s in report.plan.steps if s.action == "promote"]
    assert [s.scope for s in promoted] == ["user"]
    assert [r.statement for r in Memory().list(scope="user")] == ["deploys need a green CI run"]


def test_confirming_a_tentative_memory_on_postgres_is_one_undoable_run(
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
) -> None:
    mem = _pg(pg_app_dsn, sandbox / "project")
    mem.remember("Run lint before commit", type="feedback", created=ago(3))
    mem.remember("Do not run lint before commit", type="feedback", created=ago(3))
    report = mem.sleep(now=NOW, offline=True, sessions=False)
    assert report.plan is not None and [s.action for s in report.plan.steps] == ["tentative"]
    assert len(mem.tentative()) == 2
    before = _rows(pg_app_dsn)
    changes = mem.confirm("run-lint-before-commit")
    assert {c.run for c in changes} == {changes[0].run} and str(changes[0].run).startswith(
        "confirm-"
    )
    assert [r.name for r in mem.tentative()] == []
    assert [r.name for r in mem.archived()] == ["do-not-run-lint-before-commit"]
    mem.undo_run(str(changes[0].run))
    assert _rows(pg_app_dsn) == before


def test_a_sleep_job_runs_on_postgres(pg_app_dsn: str, sandbox: Path) -> None:  # noqa: F811
    mem = Memory(backend=open_backend(pg_app_dsn, owner="alice"), embedder="hashing", llm=False)
    long_ago = (datetime.now(UTC) - timedelta(days=400)).strftime("%Y-%m-%dT%H:%M:%SZ")
    mem.remember("The old VPN is vpn1.example.com", type="project", created=long_ago)
    mem.remember("Standups are at 09:30", type="project")
    job, _ = mem.enqueue("sleep")
    states: list[str] = []
    run_workers(
        pg_app_dsn,
        once=True,
        embedder="hashing",
        retry_delay_s=0,
        on_job=lambda j, s: states.append(s),
    )
    assert states == ["done"] and mem.jobs().get(job.id).state == "done"
    assert [r.name for r in mem.list()] == ["standups-are-at-09-30"]
    assert [r.name for r in mem.archived()] == ["the-old-vpn-is-vpn1-example-com"]
    runs = {c.run for c in mem.history() if c.actor == "sleep"}
    assert len(runs) == 1  # one run: `memdir undo RUN` takes it back
