"""The role memdir connects to PostgreSQL as, in the tests: not a superuser, no BYPASSRLS — so
row-level security holds it, as it must hold the application (docs/postgres.md).

``pg_app_dsn`` is ``pg_dsn``'s database handed to that role (it owns the database and its
``public`` schema, so memdir's migrations run as it) with pgvector installed by the admin (an
extension only a superuser may create); the DSN carries a password, which no message may show.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

APP_ROLE = "memdir_app"
APP_PASSWORD = "s3cret-app-pw"


def as_role(dsn: str, role: str, password: str) -> str:
    """``dsn`` with its user (and password) replaced."""
    parts = urlsplit(dsn)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{role}:{password}@{host}"))


@pytest.fixture(scope="session")
def pg_app_role(pg_server: str) -> str:  # noqa: F811
    import psycopg

    with psycopg.connect(pg_server, autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone()
        if found is None:
            conn.execute(
                f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD '{APP_PASSWORD}'"
            )
    return APP_ROLE


@pytest.fixture
def pg_app_dsn(pg_dsn: str, pg_app_role: str) -> Iterator[str]:  # noqa: F811
    """A fresh database owned by the application role; its DSN as that role."""
    import psycopg

    database = urlsplit(pg_dsn).path.lstrip("/")
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{database}" OWNER TO {pg_app_role}')
        conn.execute(f"ALTER SCHEMA public OWNER TO {pg_app_role}")
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    yield as_role(pg_dsn, pg_app_role, APP_PASSWORD)


def client_connections(dsn: str) -> int:
    """How many other client connections the database of ``dsn`` has now (this one left out)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        ).fetchone()
    return int(row[0]) if row else 0
