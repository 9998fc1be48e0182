"""``PostgresBackend``: memdir's scopes in one PostgreSQL database (``ports.Backend``).

Chosen by a DSN — ``MEMDIR_BACKEND=postgresql://…``, ``backend:`` in config.yaml
(``memdir config set backend …``) or ``Memory(backend="postgresql://…")`` — the database is the
truth: the memories, the change log with its objects and the recall log are rows
(``pg.store``, ``pg.logs``); the search index is derived rows beside them (``pg.index``).

**Who and where.** Rows belong to an *owner*: ``MEMDIR_USER`` (else the OS user name) for the
CLI and the library, the API key's user for REST (``open_backend(dsn, owner=…)``). A scope id is
``user`` or ``project:<id>``, the project known by ``project_id``: ``MEMDIR_PROJECT`` when set,
else its git ``origin`` (host and path, so every clone of one repository is one project), else
the project root's absolute path.

**Open.** Opening connects (a database that cannot be reached is a
``StorageUnavailableError`` naming host, port and database — never the password), refuses a
role that row-level security would not hold (superuser or ``BYPASSRLS``), refuses a schema newer
than this code and migrates an older one (``pg.schema``).
"""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..paths import Scope
from ..ports import ChangeLog, Index, RecallLog, Store
from ..settings import configured_user
from . import schema
from .connect import Database
from .jobs import PgJobQueue
from .store import PgStore

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresBackend", "check_role", "project_id"]

_ROLE_FIX = (
    "connect as a role of its own: CREATE ROLE memdir LOGIN PASSWORD '…'; CREATE DATABASE "
    "memdir OWNER memdir; then memdir config set backend postgresql://memdir:…@HOST/memdir "
    "(docs/postgres.md)"
)


class PostgresBackend:
    """The scopes of one owner in the database ``dsn`` names."""

    name = "postgresql"
    serial_writes = False  # the scope's advisory lock orders writers, held only for the write

    def __init__(
        self,
        dsn: str = "postgresql",
        /,
        *,
        owner: str | None = None,
        project: str | None = None,
        **_: Any,
    ) -> None:
        """``project``: the project's id in the database, when it is known without a checkout
        (a worker running another machine's job); else it comes from the project root."""
        if "://" not in dsn and "=" not in dsn:
            raise ConfigError(
                "the postgresql backend needs a DSN: postgresql://USER:PASSWORD@HOST:PORT/DB "
                "(MEMDIR_BACKEND, or memdir config set backend …)"
            )
        self.db = Database(dsn, owner or configured_user())
        with self.db.lend() as conn:
            check_role(conn, self.db.where)
            schema.check(conn)
        self._vector_checked = False
        self._project = project

    @property
    def where(self) -> str:
        """The database as it may be shown (no password)."""
        return self.db.where

    def store(self, scope: str, *, home: Path, project_root: Path | None) -> PgStore | None:
        if scope == "user":
            return PgStore(self.db, "user", "user")
        if scope != "project":
            raise ConfigError(f"scope must be user or project (got {scope!r})")
        if project_root is None:
            return None
        kind: Scope = "project"
        return PgStore(self.db, kind, f"project:{self._project or project_id(project_root)}")

    def index(self, store: Store, embedder: Any) -> Index:
        from .index import PgIndex

        pg = _pg(store)
        self._check_vector()
        return PgIndex(self.db.dsn, pg, embedder, owner=self.db.owner, scope=pg.scope_id)

    def _check_vector(self) -> None:
        """pgvector must be installed for the index; only a superuser can install it, so say
        who must do what instead of failing on the index's first sync."""
        if self._vector_checked:
            return
        with self.db.cursor() as cur:
            cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'")
            installed = cur.fetchone() is not None
            if not installed:
                cur.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
                available = cur.fetchone() is not None
        if not installed:
            where = "is not installed in" if available else "is not available on the server of"
            raise ConfigError(
                f"pgvector {where} {self.db.where}, and memdir's search index needs it: a "
                "database superuser runs CREATE EXTENSION vector in that database once "
                "(docs/postgres.md); memories are stored and listed without it"
            )
        self._vector_checked = True

    def jobs(self) -> PgJobQueue:
        """This owner's background jobs (``pg.jobs``; ``Memory.jobs()``)."""
        return PgJobQueue(self.db)

    def changes(self, store: Store) -> ChangeLog:
        return _pg(store).log

    def recalls(self, store: Store) -> RecallLog:
        return _pg(store).recalls

    @contextmanager
    def lease(self) -> Iterator[None]:
        """One pooled connection for every statement of the calls inside (``Memory.lease``):
        a borrow per call instead of one per statement block."""
        with self.db.lend():
            yield

    def close(self) -> None:
        self.db.close()


def check_role(conn: psycopg.Connection[Any], where: str) -> None:
    """Refuse a role that row-level security does not hold (superuser or ``BYPASSRLS``)."""
    with conn.cursor() as cur:
        cur.execute(
            "SELECT current_user, rolsuper OR rolbypassrls FROM pg_roles "
            "WHERE rolname = current_user"
        )
        row = cur.fetchone()
    if row is not None and row[1]:
        raise ConfigError(
            f"memdir connects to {where} as {row[0]!r}, a role that row-level security does "
            f"not hold (superuser or BYPASSRLS), so one user could read another's memories: "
            f"{_ROLE_FIX}"
        )


def _pg(store: Store) -> PgStore:
    if not isinstance(store, PgStore):
        raise ConfigError(
            f"the postgresql backend cannot open {type(store).__name__}: open the store and its "
            "index through the same backend"
        )
    return store


_REMOTE = re.compile(r"^(?:[a-z+]+://)?(?:[^@/]+@)?(?P<host>[^:/]+)[:/](?P<path>.+?)(?:\.git)?/?$")


def project_id(root: Path) -> str:
    """How the database knows the project at ``root`` (see the module docstring)."""
    chosen = os.environ.get("MEMDIR_PROJECT", "").strip()
    if chosen:
        return chosen
    config = root / ".git" / "config"
    if config.is_file():
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read(config, encoding="utf-8")
            url = parser.get('remote "origin"', "url", fallback="").strip()
        except (configparser.Error, UnicodeDecodeError):
            url = ""
        found = _REMOTE.match(url)
        if found:
            return f"{found['host'].lower()}/{found['path']}"
    return str(root.resolve())
