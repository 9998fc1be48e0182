"""A bounded pool of PostgreSQL connections, one per process and DSN, shared by every owner
(issue 20 item 5: a server whose users each opened their own connections ran the database out
of them).

**Tenancy.** A connection is taken *for one owner*: ``memdir.owner`` is set on checkout, and
reset to the empty string (which no row's ``owner`` matches) when it comes back — so a
connection one user returned and another takes never shows the first user's rows. One that
comes back broken, closed, or inside a transaction is closed, not reused.

**Bounded.** At most ``size`` connections are open; a checkout when all are in use waits up to
``wait_s`` for one to come back, then is a ``StorageUnavailableError`` (REST: 503 with
``Retry-After``) — never a hang.

**Re-entrant per thread.** A thread that already holds a connection for an owner gets the same
one again (``connection(owner)`` inside another): the store's writes, the index's sync and the
recall log of one call share one connection, and a server call (``Memory.lease()``) borrows
once for all of its statements. It goes back when the outermost block ends.

Every ``Database`` (pg/connect.py) of a process borrows from the one ``shared(dsn)`` pool, and
``PgIndex`` (pg/index.py) through its own ``Database``: nothing holds a connection between
calls, so a server's connections are bounded by its threads, not by its users.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, StorageUnavailableError

if TYPE_CHECKING:
    import psycopg

__all__ = ["CONNECT_TIMEOUT_S", "DEFAULT_SIZE", "Pool", "release", "shared", "where"]

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


DEFAULT_SIZE = 20
DEFAULT_WAIT_S = 5.0

_OWNER = "SELECT set_config('memdir.owner', %s, false)"


class Pool:
    """At most ``size`` connections to ``dsn``; ``connection(owner)`` lends one set to that
    owner and takes it back reset."""

    def __init__(self, dsn: str, size: int = DEFAULT_SIZE, wait_s: float = DEFAULT_WAIT_S) -> None:
        if size < 1:
            raise ConfigError(f"a connection pool needs at least one connection (got {size})")
        self._dsn = dsn
        self.where = where(dsn)
        self.size = size
        self.wait_s = wait_s
        self._idle: list[psycopg.Connection[Any]] = []
        self._open = 0
        self._cond = threading.Condition()
        self._local = threading.local()

    @property
    def in_use(self) -> int:
        """How many connections are lent out now."""
        with self._cond:
            return self._open - len(self._idle)

    @contextmanager
    def connection(self, owner: str) -> Iterator[psycopg.Connection[Any]]:
        """A connection whose ``memdir.owner`` is ``owner`` until the block ends: the one this
        thread holds for ``owner`` already, else one taken from the pool."""
        if not owner:
            raise ConfigError("a pooled connection needs an owner: set MEMDIR_USER")
        held: dict[str, psycopg.Connection[Any]] = self._held()
        mine = held.get(owner)
        if mine is not None and not mine.closed:
            yield mine
            return
        conn = self._take()
        try:
            conn.execute(_OWNER, (owner,))
        except _psycopg().Error as exc:
            self._drop(conn)
            raise self._unavailable(exc) from None
        held[owner] = conn
        try:
            yield conn
        finally:
            del held[owner]
            self._give_back(conn)

    def _held(self) -> dict[str, psycopg.Connection[Any]]:
        """This thread's borrowed connections, by owner."""
        held: dict[str, psycopg.Connection[Any]] | None = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = {}
        return held

    def close(self) -> None:
        """Close the idle connections (lent ones close when they come back)."""
        with self._cond:
            idle, self._idle = self._idle, []
            self._open -= len(idle)
        for conn in idle:
            conn.close()

    def _take(self) -> psycopg.Connection[Any]:
        with self._cond:
            if not self._cond.wait_for(
                lambda: self._idle or self._open < self.size, timeout=self.wait_s
            ):
                raise StorageUnavailableError(
                    f"all {self.size} connections to the PostgreSQL database {self.where} are in "
                    "use; nothing was written — try again shortly (or give the server a larger "
                    "pool)"
                )
            if self._idle:
                return self._idle.pop()
            self._open += 1
        pg = _psycopg()
        try:
            conn: psycopg.Connection[Any] = pg.connect(
                self._dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
            )
        except pg.OperationalError as exc:
            self._forget()
            raise self._unavailable(exc) from None
        return conn

    def _give_back(self, conn: psycopg.Connection[Any]) -> None:
        psycopg = _psycopg()
        idle = psycopg.pq.TransactionStatus.IDLE
        if conn.closed or conn.broken or conn.info.transaction_status != idle:
            self._drop(conn)
            return
        try:
            conn.execute(
                _OWNER, ("",)
            )  # the next borrower sees no one's rows until it sets its own
        except psycopg.Error:
            self._drop(conn)
            return
        with self._cond:
            self._idle.append(conn)
            self._cond.notify()

    def _drop(self, conn: psycopg.Connection[Any]) -> None:
        conn.close()
        self._forget()

    def _forget(self) -> None:
        with self._cond:
            self._open -= 1
            self._cond.notify()

    def _unavailable(self, exc: BaseException) -> StorageUnavailableError:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return StorageUnavailableError(
            f"the PostgreSQL database {self.where} cannot be reached "
            f"({reason.replace(self._dsn, self.where)}); nothing was written — check that the "
            "server is running and the DSN (memdir config get backend), then try again"
        )


_POOLS: dict[str, Pool] = {}
_POOLS_GUARD = threading.Lock()


def shared(dsn: str, size: int = DEFAULT_SIZE) -> Pool:
    """This process's one pool for ``dsn`` (made on first use with ``size``)."""
    with _POOLS_GUARD:
        pool = _POOLS.get(dsn)
        if pool is None:
            pool = _POOLS[dsn] = Pool(dsn, size)
        return pool


def release(dsn: str) -> None:
    """Close the idle connections of this process's pool for ``dsn`` (a run that ends: the
    worker's); the pool opens new ones if it is used again."""
    with _POOLS_GUARD:
        pool = _POOLS.get(dsn)
    if pool is not None:
        pool.close()
