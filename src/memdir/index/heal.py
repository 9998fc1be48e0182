"""A damaged index heals itself: it is set aside and rebuilt from the memory files.

``index.sqlite`` is derived, so no damage to it — a truncated copy, garbage written over it, a
file of zero bytes, another program's database in its place — may cost more than a rebuild.
``heals`` wraps the index's public methods: when SQLite says the file is unreadable, the file
is renamed to ``index.sqlite.corrupt-<UTC time>`` (kept for a bug report; ``doctor`` lists it),
a one-line warning is logged (printed to stderr when nothing configured logging, as in the
CLI), the index is rebuilt from the files and the call is made again. A process that keeps
one ``Memory`` — an agent, the MCP or REST server — heals on its next call, without a restart.

Errors that say nothing about the file (the database is locked, a bad query of ours) are not
damage and are raised as they are.
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..files import FileStore, Problem

if TYPE_CHECKING:
    from ..providers.embeddings import Embedder, Vectors
    from .views import Views

__all__ = [
    "CORRUPT",
    "HEALED",
    "damage_of",
    "differences",
    "heal_index",
    "heals",
    "install_healing",
    "is_damage",
    "notice",
    "problems_of",
    "set_aside",
]

log = logging.getLogger("memdir.index")

CORRUPT = ".corrupt-"  # index.sqlite.corrupt-<time>: a damaged index, set aside

_DAMAGE = (
    "malformed",
    "not a database",
    "corrupt",
    "no such table",
    "no such column",
    "vtable constructor failed",
    "disk image",
)


def is_damage(exc: sqlite3.DatabaseError) -> bool:
    """Whether ``exc`` says the file itself cannot be read (not: locked, busy, a bad query)."""
    if isinstance(exc, sqlite3.IntegrityError | sqlite3.ProgrammingError | sqlite3.InterfaceError):
        return False
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return False
    return type(exc) is sqlite3.DatabaseError or any(word in text for word in _DAMAGE)


def set_aside(path: Path) -> Path | None:
    """Rename the damaged ``path`` out of the way (its WAL and shared-memory files are removed:
    they belong to it); the renamed file, or None when ``path`` was already gone."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = path.with_name(f"{path.name}{CORRUPT}{stamp}")
    n = 1
    while aside.exists():  # set aside twice within a second: keep both
        n += 1
        aside = path.with_name(f"{path.name}{CORRUPT}{stamp}-{n}")
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return None
    return aside


def notice(path: Path, reason: str, aside: Path | None) -> None:
    """The one line a person sees when an index was set aside."""
    kept = f"; the damaged copy is {aside.name}" if aside is not None else ""
    log.warning(
        "memdir: the search index %s was unreadable (%s); rebuilt it from the memory files%s",
        path,
        reason,
        kept,
    )


def damage_of(path: Path) -> str | None:
    """What is wrong with the index file at ``path`` (``PRAGMA quick_check``: reads every page,
    for ``doctor``), or None when it reads well or does not exist."""
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        rows = [str(r[0]) for r in db.execute("PRAGMA quick_check")]
        db.execute("SELECT value FROM meta WHERE key='schema'").fetchall()
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        db.close()
    return None if rows == ["ok"] else "; ".join(rows[:3])


class _Healable(Protocol):
    def heal(self, reason: str) -> None: ...


class Healed(_Healable, Protocol):
    """What healing and ``differences`` use of the index (``SqliteIndex``): a port, so this
    module does not import the index it heals (no circle inside ``index/``)."""

    store: FileStore
    embedder: Embedder
    path: Path
    _views: Views
    _last: Any
    _ino: int | None
    _healing: bool

    def _connect(self) -> sqlite3.Connection: ...

    def _sync_lock(self) -> AbstractContextManager[None]: ...

    def close(self) -> None: ...

    def sync(self) -> Any: ...

    def vectors(self) -> tuple[list[str], Vectors]: ...


_Method = TypeVar("_Method", bound=Callable[..., Any])


def heals(method: _Method) -> _Method:
    """``method`` of the index, made to heal a damaged file and run once more."""

    @functools.wraps(method)
    def healing(self: _Healable, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if getattr(self, "_healing", False) or not is_damage(exc):
                raise
            self.heal(str(exc))
        return method(self, *args, **kwargs)

    return healing  # type: ignore[return-value]


# the index's methods that read the file: each heals a damaged one and runs again
HEALED = (
    "sync",
    "scripts",
    "docs",
    "entities",
    "keyword",
    "session_keyword",
    "vectors",
    "stats",
    "verify",
    "generation",
)


def install_healing(cls: type, methods: tuple[str, ...]) -> None:
    """Wrap each of ``methods`` of ``cls`` in ``heals``."""
    for name in methods:
        setattr(cls, name, heals(getattr(cls, name)))


def heal_index(index: Healed, reason: str) -> None:
    """Set ``index``'s damaged file aside (unless another process did and rebuilt it since this
    one opened it) and rebuild the index from the files."""
    index._healing = True
    try:
        opened, index._ino = index._ino, None
        index.close()
        with index._sync_lock():
            try:  # another process may have set it aside and rebuilt it meanwhile
                same = opened is None or os.stat(index.path).st_ino == opened
            except FileNotFoundError:
                same = False
            if same:
                notice(index.path, reason, set_aside(index.path))
        index._views.clear()
        index._last = None
        index.sync()
    finally:
        index._healing = False


def differences(index: Healed) -> list[str]:
    """Where ``index`` and its files disagree (empty when they agree). The file is read whole
    first (``PRAGMA quick_check``): a damaged one is set aside and rebuilt."""
    damage = damage_of(index.path)
    if damage is not None:
        index.heal(damage)
    db = index._connect()
    model = index.embedder.model_id
    indexed = {r[0]: r[1] for r in db.execute("SELECT name, content_hash FROM docs")}
    records, _ = index.store.scan()
    problems = [f"{r.name}: not indexed" for r in records if r.name not in indexed]
    problems += [
        f"{r.name}: index has an old version"
        for r in records
        if r.name in indexed and indexed[r.name] != r.content_hash
    ]
    names = {r.name for r in records}
    problems += [f"{n}: indexed but no such file" for n in indexed if n not in names]
    sessions = {r[0] for r in db.execute("SELECT DISTINCT session FROM docs") if r[0]}
    documented = {r[0] for r in db.execute("SELECT session FROM sessions")}
    problems += [f"session {s}: no session document" for s in sessions - documented]
    problems += [f"session {s}: document of no memory" for s in documented - sessions]
    vec_names, _ = index.vectors()
    problems += [f"{n}: no vector for {model}" for n in names - set(vec_names)]
    problems += [
        f"{r[0]}: no context vector for {model}"
        for r in db.execute(
            "SELECT name FROM docs WHERE context_hash IS NOT NULL AND context_hash NOT IN "
            "(SELECT embed_hash FROM vectors WHERE model=?)",
            (model,),
        )
    ]
    return sorted(problems)


def problems_of(index_file: Path) -> list[Problem]:
    """What ``doctor`` says about the index at ``index_file``: damage found now (an error —
    the next call heals it), and every damaged copy set aside earlier (a warning)."""
    out: list[Problem] = []
    damage = damage_of(index_file)
    if damage is not None:
        out.append(
            Problem(
                index_file,
                f"the search index is damaged ({damage}); the next recall sets it aside and "
                "rebuilds it from the memory files, or run `memdir reindex --rebuild` now",
            )
        )
    for aside in sorted(index_file.parent.glob(f"{index_file.name}{CORRUPT}*")):
        out.append(
            Problem(
                aside,
                "a damaged search index, set aside and rebuilt from the memory files; nothing "
                "was lost (it is derived) — keep it for a bug report or delete it",
                "warning",
            )
        )
    return out
