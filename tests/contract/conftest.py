"""The contract suite's fixture: every test here runs once per registered backend.

A backend conforms when it passes this suite (``memdir.ports`` says what each method means);
the PostgreSQL backend (issue 20) registers itself and runs the same tests by construction."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir.backends import backend_names, open_backend
from memdir.ports import Backend
from memdir.providers.embeddings import get_embedder

from .contract_ports import Ports


@pytest.fixture(params=backend_names())
def backend(request: pytest.FixtureRequest) -> Backend:
    return open_backend(str(request.param))


@pytest.fixture
def ports(backend: Backend, sandbox: Path) -> Ports:
    store = backend.store("project", home=sandbox / "home", project_root=sandbox / "project")
    assert store is not None
    return Ports(
        backend, store, backend.changes(store), backend.recalls(store), get_embedder("hashing")
    )
