"""The backend registry: name → factory of a ``ports.Backend``, and the built-in file backend.

A ``Memory`` opens its scopes through one backend (``Memory(backend=…)``, else
``$MEMDIR_BACKEND`` or ``backend:`` in ``config.yaml``, else ``file``). The built-in backend
registers itself through the same ``register_backend`` door a plugin uses (as ``llm`` registers
its default plugins), so there is no ``if backend == …`` anywhere above this module. The names
live in ``BACKENDS``, a ``registry.Registry`` like the embedders' and the LLM providers'.

The file backend: each scope is a directory (``paths.scope_dirs``) holding the memories
(``files.FileStore``), the change log and objects (``history.ChangeLog``), the recall log
(``files.recall_log.FileRecallLog``) and the derived SQLite index (``index.sqlite.SqliteIndex``).
Only this module and the file backend's own modules know those directories exist.

A DSN names its backend by its scheme and reaches the factory whole: ``postgresql://…`` opens
``pg.backend.PostgresBackend`` (imported only then: psycopg is the ``postgres`` extra), with
``owner=`` for whose memories (the CLI: ``$MEMDIR_USER``; REST: the API key's user).
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Protocol

from .errors import ConfigError
from .files import FileStore
from .files.recall_log import FileRecallLog
from .history import ChangeLog
from .index.sqlite import SqliteIndex
from .paths import Scope, scope_dirs
from .ports import Backend, Index, RecallLog, Store
from .registry import Registry
from .settings import configured_backend

__all__ = [
    "BACKENDS",
    "BackendFactory",
    "FileBackend",
    "backend_names",
    "open_backend",
    "register_backend",
]


class BackendFactory(Protocol):
    """Makes a backend from what chose it — the name, or the whole DSN for a database
    (``postgresql://…``) — and the caller's options (``owner=`` for a per-user server)."""

    def __call__(self, spec: str, /, **options: Any) -> Backend: ...


BACKENDS: Registry[BackendFactory] = Registry(
    "storage backend",
    "set MEMDIR_BACKEND or `backend:` in config.yaml to one of them",
    first="file",
)


def register_backend(name: str, factory: BackendFactory) -> None:
    """Make ``name`` openable (``Memory(backend=name)``, ``MEMDIR_BACKEND=name``). A name is
    registered once; a second registration is a mistake worth hearing about."""
    BACKENDS.register(name, factory)


def backend_names() -> list[str]:
    """The registered backends, the built-in ``file`` first."""
    return BACKENDS.names()


def open_backend(
    choice: str | Backend | None = None, *, home: Path | None = None, **options: Any
) -> Backend:
    """The backend ``choice`` names (or is); ``None``: the configured one. A DSN
    (``postgresql://…``) names its backend by its scheme and reaches the factory whole;
    ``options`` go to the factory too (``owner=``: whose memories a database backend opens)."""
    if choice is not None and not isinstance(choice, str):
        return choice
    spec = (choice or configured_backend(home)).strip()
    scheme = spec.split(":", 1)[0] if "://" in spec else spec
    return BACKENDS.get(scheme)(spec, **options)


class FileBackend:
    """Scopes as directories of Markdown files, a JSONL change log and a SQLite index."""

    name = "file"
    serial_writes = True

    def __init__(self, spec: str = "file", /, **options: Any) -> None:
        """``spec`` and ``options`` are what every factory is handed; files need neither."""

    def store(self, scope: str, *, home: Path, project_root: Path | None) -> FileStore | None:
        dirs = scope_dirs(_scope(scope), home=home, project_root=project_root)
        return None if dirs is None else FileStore(dirs)

    def index(self, store: Store, embedder: Any) -> Index:
        return SqliteIndex(_files(store), embedder)

    def changes(self, store: Store) -> ChangeLog:
        return _files(store).log

    def recalls(self, store: Store) -> RecallLog:
        return FileRecallLog(_files(store))

    def lease(self) -> AbstractContextManager[None]:
        """Files need nothing held between calls."""
        return nullcontext()


def _scope(scope: str) -> Scope:
    if scope not in ("user", "project"):
        raise ConfigError(f"scope must be user or project (got {scope!r})")
    return "user" if scope == "user" else "project"


def _files(store: Store) -> FileStore:
    if not isinstance(store, FileStore):
        raise ConfigError(
            f"the file backend cannot open {type(store).__name__}: open the store and its index "
            "through the same backend"
        )
    return store


def _postgres(spec: str, /, **options: Any) -> Backend:
    """The PostgreSQL backend (``memdir.pg``), imported only when a DSN names it: psycopg is an
    optional extra (``memdir[postgres]``)."""
    from .pg.backend import PostgresBackend

    return PostgresBackend(spec, **options)


register_backend("file", FileBackend)
register_backend("postgresql", _postgres)
