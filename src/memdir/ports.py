"""The interfaces under the ``Memory`` facade: what a backend must provide.

memdir's facade, recall and sleep talk to a scope through four ports — ``Store`` (the memories,
the truth), ``ChangeLog`` (every change with the bytes that make it undoable), ``RecallLog``
(what recall returned, folded into use counts) and ``Index`` (derived, shaped around the queries
recall asks) — and a ``Backend`` opens them for a scope. They are ``typing.Protocol`` classes:
an implementation conforms by shape, it does not inherit. Today there is one implementation,
the file backend (``memdir.backends``: ``FileStore``, ``history.ChangeLog``,
``files.recall_log.FileRecallLog``, ``index.sqlite.SqliteIndex``); the contract suite in
``tests/contract/`` runs against every registered backend, so a second one (PostgreSQL, issue
20) passes the same tests by construction.

The index's vector query is ``nearest(query_vector, k, within=…)``, the shape pgvector answers
(``ORDER BY vec <=> q LIMIT k``): recall never needs the whole matrix. Centring by language
(see ``recall._Centres``' successor ``index.nearest``) needs each language's mean, which a
database computes with one ``sum()`` per language: ``language_sums``.

The records the ports return live here too (``DocMeta``: what recall knows of a memory without
opening its file; ``Near``; ``LanguageSums``), so an implementation imports the port and the
port imports no implementation. This module holds types only; it imports nothing from memdir
at run time.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from .history import Change
    from .paths import Scope
    from .records import LogDay, MemoryRecord

__all__ = [
    "Backend",
    "ChangeLog",
    "DailyLog",
    "DocMeta",
    "Index",
    "LanguageSums",
    "Near",
    "RecallLog",
    "Store",
    "ToolTree",
]


@dataclass(frozen=True)
class DocMeta:
    """What recall needs to know of a memory without opening its file."""

    name: str
    type: str
    source: str
    confidence: str
    importance: int | None
    created: str | None
    updated: str | None
    tags: tuple[str, ...]
    related_files: tuple[str, ...]
    description: str
    session: str | None = None
    scripts: tuple[str, ...] = ()  # the scripts its text is written in (``text.scripts_of``)
    uses: int = 0
    last_used: str | None = None


@dataclass(frozen=True)
class Near:
    """One answer of ``Index.nearest``: the memory's cosine to the query as recall ranks it
    (context-mixed, and centred when means were given) and its plain cosine (what the
    calibration reads)."""

    name: str
    cosine: float
    plain: float


@dataclass(frozen=True)
class LanguageSums:
    """The sum and count of one scope's memory vectors per language (others, Chinese): the
    means recall centres on are these summed over the scopes searched, divided by the counts."""

    sums: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]
    counts: tuple[int, int]


@runtime_checkable
class ChangeLog(Protocol):
    """Append-only record of every change of one scope, with the content objects that make
    undo exact. Each change carries its origin (``actor``, ``source``, ``run``)."""

    def append(
        self,
        *,
        op: str,
        name: str,
        actor: str,
        source: str | None,
        before: str | None,
        after: str | None,
        reason: str | None = None,
        undoes: str | None = None,
        renamed_from: str | None = None,
        run: str | None = None,
        path: str | None = None,
    ) -> Change:
        """Record one change (the caller holds the scope's write lock)."""
        ...

    def entries(self) -> Iterator[Change]:
        """Every readable change, oldest first (torn lines skipped and counted)."""
        ...

    def since(self, cursor: int) -> tuple[list[Change], int]:
        """The changes after ``cursor`` (0: from the start) and the cursor to pass next."""
        ...

    def last(self) -> Change | None:
        """The newest change."""
        ...

    def find(self, change_id: str) -> Change | None:
        """The change whose id starts with ``change_id``; ``AmbiguousError`` if several do."""
        ...

    def keep(self, digest: str, data: bytes) -> None:
        """Store a version's bytes under their hash (once)."""
        ...

    def has(self, digest: str) -> bool:
        """Whether the bytes of ``digest`` are kept."""
        ...

    def load(self, digest: str) -> bytes:
        """The bytes of ``digest``; ``NotFoundError`` when they are missing."""
        ...


@runtime_checkable
class RecallLog(Protocol):
    """What recall returned, one entry per call and scope; the index folds it into use counts."""

    def append(self, entry: Mapping[str, Any]) -> None:
        """Add one entry (not durable: losing the last few uses in a crash costs nothing)."""
        ...

    def entries(self) -> list[dict[str, Any]]:
        """Every readable entry, oldest first."""
        ...


@runtime_checkable
class DailyLog(Protocol):
    """A scope's daily logs (SPEC A1, H6: ``log/YYYY-MM-DD.md``, append-only; those sleep
    compressed into ``archive/log/``) and the journal of sleep's moves of them, which
    ``undo_run`` reverses (``lifecycle/logs.py``). Paths are inside the scope, as text; the
    caller holds the scope's lock (``Store.locked``) for every write."""

    def days(self) -> list[LogDay]:
        """Every readable daily log, live and archived (a file that cannot be read is left
        out: a log a person broke promotes nothing)."""
        ...

    def read(self, path: str) -> bytes | None:
        """The bytes of the log file ``path``; ``None`` when there is none."""
        ...

    def append(self, day: str, text: str) -> Path:
        """Append whole lines ``text`` to ``log/<day>.md``, durably: a new log starts with its
        heading (``# Log <day>``), and one whose end is not a newline gets one first (a torn
        line keeps to itself). Returns where the log is (virtual on a database)."""
        ...

    def write(self, path: str, data: bytes) -> None:
        """Put ``data`` at ``path`` whole (an archived copy, or a log undo brings back)."""
        ...

    def remove(self, path: str) -> None:
        """Remove the log file ``path`` (nothing when there is none)."""
        ...

    def journal(self) -> list[dict[str, Any]]:
        """The journal of moves, oldest first: ``{run, time, from, to, before, after}``."""
        ...

    def record(self, move: Mapping[str, Any]) -> None:
        """Append one move to the journal, durably."""
        ...


PathKind = Literal["file", "folder", "missing", "outside"]


class ToolTree(Protocol):
    """A scope as the memory tool's ``/memories/<scope>`` folder shows it (SPEC F1): the
    memory files, ``MEMORY.md``, ``archive/`` and ``log/``. A path is the parts below the
    scope folder, checked as text by the tool first (``("archive", "x.md")``). Only reads:
    every write goes through the facade."""

    def kind(self, parts: tuple[str, ...]) -> PathKind:
        """What ``parts`` is; ``outside`` when a link leads it out of the scope."""
        ...

    def is_link(self, parts: tuple[str, ...]) -> bool:
        """Whether ``parts`` itself is a symbolic link (never written through)."""
        ...

    def read(self, parts: tuple[str, ...]) -> bytes:
        """The bytes of the file ``parts``; ``NotFoundError`` when it is none."""
        ...

    def walk(self, parts: tuple[str, ...], depth: int) -> list[tuple[int, str]]:
        """``(size, relative path)`` rows: the folder itself first (``""``, its visible bytes
        in all), then its visible entries down to ``depth`` levels, in name order; hidden
        entries and links are left out."""
        ...

    def refresh_index(self) -> None:
        """Bring ``MEMORY.md`` up to date with the memories before it is read."""
        ...


@runtime_checkable
class Store(Protocol):
    """The memories of one scope: the truth. Every write is atomic, serialised per scope, and
    recorded in ``log`` with the bytes of both versions."""

    @property
    def log(self) -> ChangeLog:
        """The change log this store records its writes in."""
        ...

    @property
    def scope(self) -> Scope:
        """The scope these memories belong to (``user`` or ``project``)."""
        ...

    def daily_log(self) -> DailyLog:
        """The scope's daily logs and the journal of sleep's moves of them."""
        ...

    def hash_at(self, path: str) -> str | None:
        """The content hash of the memory file at ``path`` inside the scope (``<name>.md``,
        ``archive/<name>.md``) as it is now; ``None`` when there is none (what undoing a run
        proves each file by before it writes anything)."""
        ...

    def run_as(self, run: str | None) -> AbstractContextManager[None]:
        """Hold the lock and log every change made inside with ``run`` (undone as one)."""
        ...

    def read(self, name: str) -> MemoryRecord:
        """The memory ``name``; ``NotFoundError`` / ``BadFileError``."""
        ...

    def exists(self, name: str) -> bool: ...

    def memory_names(self) -> list[str]:
        """The memories' file names (``<name>.md``), no content read."""
        ...

    def tool_tree(self) -> ToolTree:
        """This scope as the memory tool's folder (read-only view)."""
        ...

    def scan(self) -> tuple[list[MemoryRecord], list[Any]]:
        """Every readable memory, and a problem for each one that is not."""
        ...

    def problems(self) -> list[Any]:
        """What doctor reports (bad files, out-of-step history …)."""
        ...

    def fingerprint(self) -> str:
        """A cheap digest that changes whenever any memory changes."""
        ...

    def create(
        self,
        meta: Mapping[str, Any],
        *,
        statement: str,
        why: str | None,
        how_to_apply: str | None,
        actor: str,
        reason: str | None = None,
        name: str | None = None,
        base_name: str = "note",
    ) -> tuple[MemoryRecord, Change]:
        """A new memory; an explicit ``name`` must be free (``ConflictError``)."""
        ...

    def update(
        self, name: str, fields: Mapping[str, Any], *, actor: str, reason: str | None = None
    ) -> tuple[MemoryRecord, Change | None]:
        """Change keys and/or body parts (``None`` removes a key); no change → ``None``."""
        ...

    def replace_bytes(
        self, name: str, data: bytes, *, actor: str, reason: str | None, expect_hash: str
    ) -> tuple[MemoryRecord, Change | None]:
        """A whole new version of ``name``, if it still has ``expect_hash``."""
        ...

    def delete(self, name: str, *, actor: str, reason: str | None = None) -> Change: ...

    def rename(
        self, name: str, new_name: str, *, actor: str, reason: str | None = None
    ) -> tuple[MemoryRecord, Change]:
        """Give ``name`` the name ``new_name``: one change, so one undo restores both."""
        ...

    def archive(
        self,
        name: str,
        *,
        actor: str,
        stamp: str,
        reason: str | None = None,
        expect: str | None = None,
    ) -> Change:
        """Move ``name`` to the archive (``archived: stamp``); ``expect`` is the content hash a
        plan was made from (``ConflictError`` if the memory moved on)."""
        ...

    def delete_archived(
        self, name: str, *, actor: str, reason: str | None = None, expect: str | None = None
    ) -> Change:
        """Delete an archived memory (undo brings it back)."""
        ...

    def restore(self, archived_name: str, *, actor: str, reason: str | None = None) -> Change: ...

    def archived(self) -> Store:
        """The scope's archive, a store of the same shape."""
        ...

    def undo(self, change: Change, *, actor: str) -> Change:
        """Reverse ``change`` exactly (``ConflictError`` if the memory moved on since)."""
        ...

    def log_refusal(self, name: str, *, actor: str, source: str | None, reason: str) -> Change:
        """Record that the guard kept ``name`` out: a ``refuse`` change, nothing stored."""
        ...

    def batch(self) -> AbstractContextManager[None]:
        """Group many writes under one lock (and one MEMORY.md refresh)."""
        ...

    def locked(self) -> AbstractContextManager[None]:
        """Hold the scope's write lock."""
        ...


@runtime_checkable
class Index(Protocol):
    """What recall asks of a scope's derived search index. Nothing here is the truth: an
    implementation may drop and rebuild it from the ``Store`` at any time."""

    def sync(self, progress: Any = None) -> Any:
        """Catch up with the store (and fold the recall log into use counts)."""
        ...

    def generation(self) -> str:
        """Changes whenever what a query could answer changes (a cache key)."""
        ...

    def docs(self) -> dict[str, DocMeta]:
        """Every indexed memory's metadata (type, tags, created, scripts, use count …)."""
        ...

    def scripts(self) -> frozenset[str]:
        """Every script some indexed memory is written in (``latin``, ``cjk`` …)."""
        ...

    def entities(self) -> dict[str, set[str]]:
        """Lowercased tags, related paths and file names → the memories carrying them."""
        ...

    def keyword(self, terms: list[str], limit: int) -> dict[str, float]:
        """BM25 (higher is better) of the best ``limit`` memories matching any term."""
        ...

    def session_keyword(self, terms: list[str], limit: int) -> dict[str, float]:
        """BM25 of the best ``limit`` sessions, each ranked as the one text of its memories."""
        ...

    def nearest(
        self,
        query_vector: np.ndarray[Any, Any],
        k: int,
        *,
        within: Collection[str] | None = None,
        also: Iterable[str] = (),
        context: float = 0.0,
        means: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None,
        chinese: bool = False,
    ) -> dict[str, Near]:
        """The ``k`` memories closest to the unit ``query_vector`` (only names in ``within``
        when given), plus the cosine of each of ``also`` outside them. ``context`` mixes in a
        memory's context vector; ``means`` (others, Chinese) centres both sides on their
        language's mean, the query's language given by ``chinese``."""
        ...

    def language_sums(self, context: float = 0.0) -> LanguageSums:
        """Per language, the sum and count of the memory vectors ``nearest`` compares with."""
        ...

    def has_context(self, name: str) -> bool:
        """Whether ``name`` has a context vector (its session neighbours)."""
        ...

    def stats(self) -> dict[str, Any]: ...

    def verify(self) -> list[str]:
        """Where the index and the store disagree (empty when in step)."""
        ...

    def drop(self) -> None:
        """Forget everything derived (the next sync rebuilds it)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class Backend(Protocol):
    """Opens the ports of one scope. A backend decides where a scope lives (the file backend:
    ``$MEMDIR_HOME/memory`` and ``<project>/.agent/memory``); the facade never sees a path."""

    name: str
    # whether a scope's writers must be queued by the caller (files: one MEMORY.md rewritten per
    # write, kept incremental); a database serialises them itself, so a server runs them side by
    # side. A backend without the attribute is taken to need it.
    serial_writes: bool

    def store(self, scope: str, *, home: Path, project_root: Path | None) -> Store | None:
        """The store of ``scope``, or ``None`` when it is not available (no project)."""
        ...

    def index(self, store: Store, embedder: Any) -> Index:
        """The search index derived from ``store`` for ``embedder``."""
        ...

    def changes(self, store: Store) -> ChangeLog:
        """The change log ``store`` records its writes in."""
        ...

    def recalls(self, store: Store) -> RecallLog:
        """The recall log of ``store``'s scope."""
        ...

    def lease(self) -> AbstractContextManager[None]:
        """Hold what this thread needs for a series of calls (a database backend: one pooled
        connection for all of their statements); the file backend holds nothing."""
        ...
