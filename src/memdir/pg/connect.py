"""Connections to the PostgreSQL backend: borrowed from the process's pool, each for one owner.

A DSN may hold a password, so it is never printed: every message names ``where(dsn)`` — user,
host, port and database, the password left out — and the DSN is kept only inside ``Database``.

**Tenancy.** Every table holds ``owner`` and the row-level security policies compare it with
``current_setting('memdir.owner')``; the pool sets it on each connection it lends
(``set_config(..., false)``: for the session, so a transaction rolled back does not unset it)
and resets it to no one's when the connection comes back (pg/pool.py).
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
from .pool import CONNECT_TIMEOUT_S, _parts, _psycopg, shared, where

if TYPE_CHECKING:
    import psycopg

__all__ = ["CONNECT_TIMEOUT_S", "Database", "where"]


class Database:
    """The connections of one backend (one DSN, one owner), borrowed from the process's pool
    (``pool.shared``) for each block and given back when it ends: nothing is held between
    calls. ``lend()`` holds one for a series of calls (a server call, ``Memory.lease()``).

    ``transaction()`` nests (an inner one is a savepoint); ``scope_lock(scope)`` serialises the
    writers of a scope until the outermost transaction ends."""

    def __init__(self, dsn: str, owner: str) -> None:
        if not owner:
            raise ConfigError("the PostgreSQL backend needs an owner: set MEMDIR_USER")
        _parts(dsn)  # a DSN that does not parse is refused before anything connects
        self._dsn = dsn
        self.owner = owner
        self.where = where(dsn)
        self._pool = shared(dsn)
        self._local = threading.local()

    @property
    def dsn(self) -> str:
        """The DSN (with its password): for a component that connects itself (the queue)."""
        return self._dsn

    def unavailable(self, exc: BaseException) -> StorageUnavailableError:
        """The error for a database that cannot be used now (the pool drops the broken
        connection when it comes back, so the next call connects again)."""
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        reason = reason.replace(self._dsn, self.where)
        return StorageUnavailableError(
            f"the PostgreSQL database {self.where} cannot be reached ({reason}); nothing was "
            "written — check that the server is running and the DSN (memdir config get "
            "backend), then try again"
        )

    @contextmanager
    def lend(self) -> Iterator[psycopg.Connection[Any]]:
        """This thread's connection for the block (its owner set): every statement of the
        block, and of the blocks inside it, runs on it. A lost connection is a
        ``StorageUnavailableError``."""
        psycopg = _psycopg()
        with self._pool.connection(self.owner) as conn:
            try:
                yield conn
            except psycopg.OperationalError as exc:
                if not (conn.closed or conn.broken):
                    raise  # a statement failed on a live connection: the caller's error
                raise self.unavailable(exc) from None

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor inside a transaction (a savepoint when one is open already): committed when
        the block ends, rolled back whole when it raises."""
        with self.lend() as conn, conn.transaction(), conn.cursor() as cur:
            self._local.depth = getattr(self._local, "depth", 0) + 1
            try:
                yield cur
            finally:
                self._local.depth -= 1

    @contextmanager
    def write(self) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor for a write that needs no savepoint of its own (one statement, or one
        ``executemany``): inside the open transaction when there is one — a savepoint costs two
        round trips, and a write under a store's lock made three or four — else in a
        transaction of its own."""
        with self.lend() as conn:
            if conn.info.transaction_status == _psycopg().pq.TransactionStatus.INTRANS:
                with conn.cursor() as cur:
                    yield cur
                return
        with self.transaction() as cur:
            yield cur

    @contextmanager
    def cursor(self) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor for reading: inside the open transaction when there is one, else on its
        own (autocommit: one round trip, no transaction to begin and end)."""
        with self.lend() as conn, conn.cursor() as cur:
            yield cur

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
        """Nothing to close: the connections are the pool's, given back after every block."""
