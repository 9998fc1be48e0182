"""Sync on PostgreSQL refuses before writing anything, and says what to use instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from memdir import Memory
from memdir.backends import open_backend
from memdir.errors import MemdirError, UnsupportedError
from memdir.portable.sync import sync_folder, sync_git


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def test_sync_on_postgres_refuses_clearly_and_writes_nothing(
    pg_app_dsn: str,  # noqa: F811
    sandbox: Path,
) -> None:
    backend = open_backend(pg_app_dsn, owner="sync")
    mem = Memory(home=sandbox / "home", project=sandbox / "project", backend=backend)  # type: ignore[arg-type]
    mem.remember("Releases are tagged on Fridays", type="project")
    home_before = _files(sandbox / "home")
    shared = sandbox / "shared"
    for attempt in (
        lambda: sync_folder(mem, shared),
        lambda: sync_folder(mem, shared, dry_run=True),
        lambda: sync_git(mem, str(sandbox / "remote.git")),
    ):
        with pytest.raises(UnsupportedError) as caught:
            attempt()
        message = str(caught.value)
        assert isinstance(caught.value, MemdirError)
        assert "file backend only" in message and "postgresql" in message
        assert "memdir export" in message and "memdir import" in message
        assert "Nothing was written" in message
    assert not shared.exists()  # not even the scope folders
    assert not (sandbox / "remote.git").exists()
    assert _files(sandbox / "home") == home_before  # no clone, no seen state
    assert [r.statement for r in mem.list()] == ["Releases are tagged on Fridays"]
    backend.close()  # type: ignore[attr-defined]
