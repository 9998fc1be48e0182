"""The contract suite's fixture: every test here runs once per registered backend.

A backend conforms when it passes this suite (``memdir.ports`` says what each method means).
The ``postgresql`` param opens a fresh database of its own as the application role
(``tests/pgapp.py``: a real PostgreSQL, row-level security on)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from memdir.backends import backend_names, open_backend
from memdir.ports import Backend
from memdir.providers.embeddings import get_embedder

from .contract_ports import Ports


@pytest.fixture(params=backend_names())
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    name = str(request.param)
    if name == "postgresql":
        opened = open_backend(request.getfixturevalue("pg_app_dsn"), owner="contract")
        yield opened
        opened.close()  # type: ignore[attr-defined]
        return
    yield open_backend(name)


@pytest.fixture
def ports(backend: Backend, sandbox: Path) -> Ports:
    store = backend.store("project", home=sandbox / "home", project_root=sandbox / "project")
    assert store is not None
    return Ports(
        backend, store, backend.changes(store), backend.recalls(store), get_embedder("hashing")
    )
