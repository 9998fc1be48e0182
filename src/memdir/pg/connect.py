"""Connections to the PostgreSQL backend: one per thread, each bound to one owner.

A DSN may hold a password, so it is never printed: every message names ``where(dsn)`` — user,
host, port and database, the password left out — and the DSN is kept only inside ``Database``.

**Tenancy.** Every table holds ``owner`` and the row-level security policies compare it with
``current_setting('memdir.owner')``; a connection sets that once, right after it connects
(``set_config(..., false)``: for the session, so a transaction rolled back does not unset it).
The role memdir connects as must be subject to those policies: not a superuser and without
``BYPASSRLS`` (a superuser DSN is refused at open, with the statements that make a role). The
tables are ``FORCE ROW LEVEL SECURITY``, so the role that owns them is held to the policies too.

**Faults.** A database that cannot be reached — at open or in the middle of a call — is a
``StorageUnavailableError`` naming where it is; the broken connection is dropped, so the next
call connects again. Every write runs in a transaction (``Database.transaction``), so a call cut
short leaves nothing half-written.

**Serialised per scope.** ``Database.scope_lock`` takes a transaction-scoped advisory lock keyed
by owner and scope: writers of one scope queue behind each other across processes; readers are
never blocked (MVCC).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, StorageUnavailableError

if TYPE_CHECKING:
    import psycopg

__all__ = ["Database", "where"]

CONNECT_TIMEOUT_S = 10


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:  # the extra is optional: the file backend needs none of it
        raise ConfigError(
            "the PostgreSQL backend needs psycopg: pip install 'memdir[postgres]'"
        ) from None
    return psycopg


def _parts(dsn: str) -> dict[str, str]:
    psycopg = _psycopg()
    try:
        parsed: dict[str, str] = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        # the parser's message may quote the DSN, password and all: say only what to fix
        raise ConfigError(
            "the PostgreSQL backend's DSN does not parse: write it as "
            "postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
        ) from None
    return parsed


def where(dsn: str) -> str:
    """``dsn`` as it may be shown: ``user@host:port/db`` — never the password."""
    parts = _parts(dsn)
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    user = parts.get("user")
    return f"{user + '@' if user else ''}{host}:{port}/{parts.get('dbname') or user or '?'}"


class Database:
    """The connections of one backend (one DSN, one owner): one per thread, opened on first use.

    ``transaction()`` nests (an inner one is a savepoint); ``scope_lock(scope)`` serialises the
    writers of a scope until the outermost transaction ends."""

    def __init__(self, dsn: str, owner: str) -> None:
        if not owner:
            raise ConfigError("the PostgreSQL backend needs an owner: set MEMDIR_USER")
        _parts(dsn)  # a DSN that does not parse is refused before anything connects
        self._dsn = dsn
        self.owner = owner
        self.where = where(dsn)
        self._local = threading.local()
        self._all: list[psycopg.Connection[Any]] = []
        self._guard = threading.Lock()

    @property
    def dsn(self) -> str:
        """The DSN (with its password): for a component that connects itself (the index)."""
        return self._dsn

    def unavailable(self, exc: BaseException) -> StorageUnavailableError:
        """The error for a database that cannot be used now (and drop this thread's
        connection so that the next call connects again)."""
        self._local.conn = None
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        reason = reason.replace(self._dsn, self.where)
        return StorageUnavailableError(
            f"the PostgreSQL database {self.where} cannot be reached ({reason}); nothing was "
            "written — check that the server is running and the DSN (memdir config get "
            "backend), then try again"
        )

    def connection(self) -> psycopg.Connection[Any]:
        """This thread's connection, connected (and its owner set) on first use."""
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if conn is not None and not conn.closed:
            return conn
        psycopg = _psycopg()
        try:
            conn = psycopg.connect(self._dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
            conn.execute("SELECT set_config('memdir.owner', %s, false)", (self.owner,))
        except psycopg.OperationalError as exc:
            raise self.unavailable(exc) from None
        self._local.conn = conn
        self._local.depth = 0
        with self._guard:
            self._all.append(conn)
        return conn

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor inside a transaction (a savepoint when one is open already): committed when
        the block ends, rolled back whole when it raises. A lost connection is a
        ``StorageUnavailableError``."""
        psycopg = _psycopg()
        conn = self.connection()
        try:
            with conn.transaction(), conn.cursor() as cur:
                self._local.depth = getattr(self._local, "depth", 0) + 1
                try:
                    yield cur
                finally:
                    self._local.depth -= 1
        except psycopg.OperationalError as exc:
            if not (conn.closed or conn.broken):
                raise  # a statement failed on a live connection: the caller's error
            raise self.unavailable(exc) from None

    @contextmanager
    def cursor(self) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor for reading: inside the open transaction when there is one, else on its
        own (autocommit: one round trip, no transaction to begin and end)."""
        if getattr(self._local, "depth", 0):
            with self.connection().cursor() as cur:
                yield cur
            return
        psycopg = _psycopg()
        conn = self.connection()
        try:
            with conn.cursor() as cur:
                yield cur
        except psycopg.OperationalError as exc:
            if not (conn.closed or conn.broken):
                raise
            raise self.unavailable(exc) from None

    @contextmanager
    def scope_lock(self, scope: str) -> Iterator[psycopg.Cursor[Any]]:
        """A transaction holding the write lock of ``scope`` (re-entrant: a nested one is a
        savepoint under the same lock)."""
        with self.transaction() as cur:
            if self._local.depth == 1 or scope not in self._held():
                cur.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                    (json.dumps(["memdir", self.owner, scope]),),
                )
                self._held().add(scope)
            try:
                yield cur
            finally:
                if self._local.depth == 1:
                    self._held().clear()

    def _held(self) -> set[str]:
        held: set[str] | None = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = set()
        return held

    def close(self) -> None:
        with self._guard:
            conns, self._all = self._all, []
        for conn in conns:
            conn.close()
        self._local = threading.local()
