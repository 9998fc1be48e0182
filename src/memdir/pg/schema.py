"""The PostgreSQL backend's schema: named, transactional, recorded migrations.

The model is sqlite-utils' ``Migrations``: each step has a name, runs in a transaction of its
own together with the row that records it in ``memdir_migrations``, and is applied once. A step
that fails rolls back whole — its tables and its record — so the schema stays as the last step
that completed left it, and usable. Steps are only ever appended: a step's name and statements
never change once released (a new step alters what an old one made).

``check`` runs at every open: a database that records a step this code does not know was
migrated by a newer memdir, and is refused (its tables may hold what this version would break);
one that lacks steps is migrated (``migrate``) — the same thing ``memdir db migrate`` does.

Tenancy lives here: every table has ``owner text not null`` and ``scope text``, row-level
security enabled *and forced* (the owning role is held to it too), and one policy per table,
``owner = current_setting('memdir.owner', true)`` for reading and writing — a connection that
set no owner sees nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:
    import psycopg

__all__ = ["MIGRATIONS", "Migration", "applied", "check", "migrate", "pending"]

TABLES = ("memories", "changes", "objects", "recalls")
LEDGER = """
CREATE TABLE IF NOT EXISTS memdir_migrations (
    name text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
)"""
_POLICY = """
ALTER TABLE {t} ENABLE ROW LEVEL SECURITY;
ALTER TABLE {t} FORCE ROW LEVEL SECURITY;
CREATE POLICY {t}_owner ON {t}
    USING (owner = current_setting('memdir.owner', true))
    WITH CHECK (owner = current_setting('memdir.owner', true));
"""


@dataclass(frozen=True)
class Migration:
    """One named step: statements run in one transaction with the row that records it."""

    name: str
    statements: Sequence[str]


_TRUTH = """
CREATE TABLE memories (
    owner text NOT NULL,
    scope text NOT NULL,
    archived boolean NOT NULL DEFAULT false,
    name text NOT NULL,
    data bytea NOT NULL,
    hash text NOT NULL,
    PRIMARY KEY (owner, scope, archived, name)
);
CREATE UNIQUE INDEX memories_folded ON memories (owner, scope, archived, lower(name));
CREATE TABLE changes (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner text NOT NULL,
    scope text NOT NULL,
    id text NOT NULL,
    name text NOT NULL,
    line text NOT NULL
);
CREATE INDEX changes_scope ON changes (owner, scope, seq);
CREATE TABLE objects (
    owner text NOT NULL,
    scope text NOT NULL,
    digest text NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (owner, scope, digest)
);
CREATE TABLE recalls (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner text NOT NULL,
    scope text NOT NULL,
    entry text NOT NULL
);
CREATE INDEX recalls_scope ON recalls (owner, scope, seq);
"""

# a scope's other files that are truth, by path under its folder: the daily logs (``log/…``)
_SCOPE_FILES = """
CREATE TABLE scope_files (
    owner text NOT NULL,
    scope text NOT NULL,
    path text NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (owner, scope, path)
);
"""

# the background job queue (pg/jobs.py): one row per job, claimed FOR UPDATE SKIP LOCKED. Its
# owner's connections see their own jobs (the usual policy); a worker's queue connection, which
# sets ``memdir.worker`` and no owner, sees every owner's jobs and no memory at all.
_JOBS = """
CREATE TABLE jobs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner text NOT NULL,
    scope text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('reembed', 'extract', 'sleep')),
    payload jsonb NOT NULL DEFAULT '{}',
    dedupe_key text,
    state text NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    last_error text,
    progress jsonb NOT NULL DEFAULT '{}',
    worker text,
    run_after timestamptz NOT NULL DEFAULT now(),
    created_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz,
    heartbeat_at timestamptz,
    finished_at timestamptz
);
CREATE UNIQUE INDEX jobs_dedupe ON jobs (owner, dedupe_key)
    WHERE dedupe_key IS NOT NULL AND state IN ('queued', 'running');
CREATE INDEX jobs_ready ON jobs (run_after, id) WHERE state = 'queued';
CREATE INDEX jobs_owner ON jobs (owner, id);
"""
# a worker reads and updates (claims, progress, the end); it never adds or removes a job
_JOBS_WORKER = """
CREATE POLICY jobs_worker_read ON jobs FOR SELECT
    USING (current_setting('memdir.worker', true) = 'on');
CREATE POLICY jobs_worker_update ON jobs FOR UPDATE
    USING (current_setting('memdir.worker', true) = 'on')
    WITH CHECK (current_setting('memdir.worker', true) = 'on');
"""

# API keys (pg/keys.py: who may read them, and how, before an owner is known)
_API_KEYS_TABLE = """
CREATE TABLE api_keys (
    id text PRIMARY KEY,
    owner text NOT NULL,
    salt text NOT NULL,
    hash text NOT NULL,
    created timestamptz NOT NULL DEFAULT now(),
    revoked timestamptz
);
CREATE INDEX api_keys_owner_idx ON api_keys (owner);
ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE api_keys FORCE ROW LEVEL SECURITY;
CREATE POLICY api_keys_owner ON api_keys
    USING (owner = current_setting('memdir.owner', true))
    WITH CHECK (owner = current_setting('memdir.owner', true));
CREATE POLICY api_keys_lookup ON api_keys FOR SELECT
    USING (id = current_setting('memdir.key_id', true));
CREATE POLICY api_keys_admin ON api_keys
    USING (current_setting('memdir.keys', true) = 'admin')
    WITH CHECK (current_setting('memdir.keys', true) = 'admin');
"""
_API_KEYS_LOOKUP = """
CREATE FUNCTION memdir_key_lookup(key_id text)
    RETURNS TABLE (owner text, salt text, hash text, revoked boolean)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
AS $fn$
BEGIN
    PERFORM set_config('memdir.key_id', key_id, true);
    RETURN QUERY SELECT k.owner, k.salt, k.hash, k.revoked IS NOT NULL
        FROM api_keys k WHERE k.id = key_id;
    PERFORM set_config('memdir.key_id', '', true);
END
$fn$;
REVOKE ALL ON FUNCTION memdir_key_lookup(text) FROM PUBLIC;
"""

API_KEYS = Migration("0004_api_keys", [_API_KEYS_TABLE, _API_KEYS_LOOKUP])

# the search index's first layout (``idx1_*``, made by ``pg/index_schema.py`` on first use) gave
# way to ``idx2_*``: derived rows only, rebuilt by the next sync, so the old tables just go
_DROP_IDX1 = """
DROP TABLE IF EXISTS idx1_state, idx1_docs, idx1_sessions, idx1_terms, idx1_vectors, idx1_usage
"""

MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_truth", [_TRUTH, *(_POLICY.format(t=t) for t in TABLES)]),
    Migration("0002_scope_files", [_SCOPE_FILES, _POLICY.format(t="scope_files")]),
    Migration("0003_jobs", [_JOBS, _POLICY.format(t="jobs"), _JOBS_WORKER]),
    API_KEYS,
    Migration("0005_drop_idx1", [_DROP_IDX1]),
)


def applied(cur: psycopg.Cursor[Any]) -> list[str]:
    """The names of the steps this database records, in the order they were applied."""
    cur.execute("SELECT to_regclass('memdir_migrations') IS NOT NULL")
    row = cur.fetchone()
    if not row or not row[0]:
        return []
    cur.execute("SELECT name FROM memdir_migrations ORDER BY applied_at, name")
    return [str(r[0]) for r in cur.fetchall()]


def pending(cur: psycopg.Cursor[Any], known: Sequence[Migration] = MIGRATIONS) -> list[Migration]:
    """The known steps not applied yet; ``ConfigError`` for a schema newer than this code."""
    done = applied(cur)
    names = {m.name for m in known}
    newer = [n for n in done if n not in names]
    if newer:
        raise ConfigError(
            f"the database's memdir schema has step(s) {', '.join(newer)} that this version of "
            "memdir does not know (a newer memdir migrated it): upgrade memdir "
            "(pip install -U memdir) before using this database — nothing was changed"
        )
    return [m for m in known if m.name not in done]


def migrate(
    conn: psycopg.Connection[Any],
    known: Sequence[Migration] = MIGRATIONS,
    progress: Callable[[Migration], None] | None = None,
) -> list[str]:
    """Apply every pending step, each in its own transaction; the names applied. A step that
    fails rolls back whole (the steps before it stay applied) and its error is raised."""
    with conn.cursor() as cur:
        # one migrator at a time: two processes opening a new database at once must not both
        # create the tables (the second waits, then finds nothing pending)
        cur.execute("SELECT pg_advisory_lock(hashtextextended('memdir migrations', 0))")
        try:
            cur.execute(LEDGER)
            names = []
            for step in pending(cur, known):
                with conn.transaction():
                    for statement in step.statements:
                        cur.execute(statement.encode())
                    cur.execute("INSERT INTO memdir_migrations (name) VALUES (%s)", (step.name,))
                names.append(step.name)
                if progress is not None:
                    progress(step)
        finally:
            if not conn.broken:
                cur.execute("SELECT pg_advisory_unlock(hashtextextended('memdir migrations', 0))")
    return names


def check(conn: psycopg.Connection[Any]) -> None:
    """At open: refuse a newer schema, migrate an older (or empty) one."""
    with conn.cursor() as cur:
        todo = pending(cur)
    if todo:
        migrate(conn)
