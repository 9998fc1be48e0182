"""What recall reads of one index, held in memory and patched after a sync instead of re-read.

Recall needs every memory's metadata (``docs``), the entity map, the scripts the store is
written in and the vector matrix. Reading them costs a pass over the whole index (a matrix of
100k vectors is 200 MB of blobs), which is fine once per process but not after every write: an
agent remembers something, then recalls, turn after turn. So a sync that knows what it changed
hands a ``Delta`` to ``Views.patch``, which re-reads only those rows, and records the delta in
the index's journal: another facade's views (a server keeps one per thread, and a CLI may run
beside it) are patched by the entries that lead from their version to the index's. Anything no
entry describes — a new embedder, a replaced recall log, a sync cut short, an older memdir's
sync — drops the views, and the next read loads them whole. The result is the same either way
(``tests/test_index_views.py`` compares patched views with freshly loaded ones after adds,
edits, deletes and recalls, by this facade and by another).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..ports import DocMeta
from ..providers.embeddings import Vectors
from . import snapshot as snapshots
from .cache import chunked
from .snapshot import path_of as snapshot_path

__all__ = ["Delta", "DocMeta", "Matrix", "Views"]  # DocMeta is the Index port's (ports.py)

FileRow = tuple[int, int, int, str]  # a docs row's size, mtime_ns, ino and content hash


@dataclass
class Delta:
    """What one sync changed: ``docs`` — memories added or edited (``rewritten``: their doc
    row is new), or whose context vector changed; ``uses`` — memories whose use count moved;
    ``removed`` — memories gone."""

    docs: set[str] = field(default_factory=set)
    rewritten: set[str] = field(default_factory=set)  # of ``docs``: written as a new row
    uses: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    files: dict[str, FileRow] = field(default_factory=dict)  # new stat rows (``Views.files``)

    def __bool__(self) -> bool:
        return bool(self.docs or self.uses or self.removed)

    def size(self) -> int:
        return len(self.docs) + len(self.uses) + len(self.removed)

    def dumps(self) -> str:
        """The names, as the index's journal keeps them (``files`` stays with its process)."""
        parts = (self.docs, self.rewritten, self.uses, self.removed)
        return json.dumps([sorted(part) for part in parts], ensure_ascii=False)

    def merged(self, earlier: Delta | None) -> Delta:
        """``earlier`` then this, as one delta to patch by: every name either touched is read
        again as the index has it now (one that is gone is dropped by the read), and a name
        either wrote as a new row goes last, where a load puts it."""
        if earlier is None:
            return self
        touched = self.docs | self.uses | self.removed | earlier.docs | earlier.uses
        return Delta(docs=touched | earlier.removed, rewritten=self.rewritten | earlier.rewritten)

    @classmethod
    def loads(cls, text: str) -> Delta:
        docs, rewritten, uses, removed = (set(part) for part in json.loads(text))
        return cls(docs=docs, rewritten=rewritten, uses=uses, removed=removed)


class Matrix:
    """The vectors of the indexed memories in ``docs`` rowid order, with spare rows at the end
    so an append does not copy the matrix. A memory of a session is represented by
    ``(1 − context)·own + context·context_vector`` when it has a context vector."""

    _QUERY = (  # the last two columns make the key of a snapshot (``snapshot.key_of``)
        "SELECT d.rowid, d.name, v.vec, c.vec, d.embed_hash, d.context_hash FROM docs d "
        "JOIN vectors v "
        "ON v.embed_hash = d.embed_hash AND v.model = ?1 "
        "LEFT JOIN vectors c ON c.embed_hash = d.context_hash AND c.model = ?1 "
    )

    def __init__(
        self,
        db: sqlite3.Connection,
        model: str,
        dim: int,
        context: float,
        snapshot: Path | None = None,
    ) -> None:
        """The matrix as the index holds it now; with ``snapshot`` (a file, ``snapshot.py``)
        taken from there when it was saved from the same rows, else read and saved there."""
        self.model, self.dim, self.context = model, dim, context
        self.contextual: set[str] = set()
        if snapshot is not None and self._restore(db, snapshot):
            return
        rows = db.execute(self._QUERY + "ORDER BY d.rowid", (model,)).fetchall()
        self.names: list[str] = [r[1] for r in rows]
        self.rowids = np.array([r[0] for r in rows], dtype=np.int64)
        self._buf = np.empty((len(rows), dim), dtype=np.float32)
        self._fill(range(len(rows)), rows)
        self.rows = {n: i for i, n in enumerate(self.names)}
        if snapshot is not None:  # the rows just read are what this matrix is made of
            made = [(r[0], r[1], r[4], r[5] if r[3] is not None else None) for r in rows]
            snapshots.save(snapshot, snapshots.key_of(made, model, dim, context), self.matrix)

    def _restore(self, db: sqlite3.Connection, path: Path) -> bool:
        rows = snapshots.signature(db, self.model)
        key = snapshots.key_of(rows, self.model, self.dim, self.context)
        saved = snapshots.load(path, key, len(rows), self.dim)
        if saved is None:
            return False
        self._buf = saved
        self.names = [r[1] for r in rows]
        self.rowids = np.array([r[0] for r in rows], dtype=np.int64)
        self.contextual = {r[1] for r in rows if r[3] is not None}
        self.rows = {n: i for i, n in enumerate(self.names)}
        return True

    @property
    def matrix(self) -> Vectors:
        return self._buf[: len(self.names)]

    def _fill(self, at: Iterable[int], rows: list[tuple[Any, ...]]) -> None:
        """Write ``rows`` (as the query returns them) into the buffer rows ``at``."""
        at = list(at)
        if not at:
            return
        own = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(-1, self.dim)
        self._buf[at] = own
        with_context = [k for k, r in enumerate(rows) if r[3] is not None]
        self.contextual.difference_update(r[1] for r in rows)
        self.contextual.update(rows[k][1] for k in with_context)
        if self.context and with_context:
            blobs = b"".join(rows[k][3] or b"" for k in with_context)
            mix = np.frombuffer(blobs, dtype=np.float32).reshape(-1, self.dim)
            targets = [at[k] for k in with_context]
            self._buf[targets] = (1.0 - self.context) * own[with_context] + self.context * mix

    def patch(self, db: sqlite3.Connection, delta: Delta) -> None:
        """Re-read the rows of ``delta.docs``, drop those of ``delta.removed``."""
        fetched: list[tuple[Any, ...]] = []
        for part in chunked(delta.docs):
            marks = ",".join("?" * len(part))
            fetched += db.execute(
                self._QUERY + f"WHERE d.name IN ({marks})", (self.model, *part)
            ).fetchall()
        fetched.sort(key=lambda r: r[0])
        rows, ids = self.rows, self.rowids
        in_place = [r for r in fetched if r[1] in rows and ids[rows[r[1]]] == r[0]]
        self._fill([self.rows[r[1]] for r in in_place], in_place)
        kept = {r[1] for r in in_place}
        gone = [self.rows[n] for n in (delta.docs | delta.removed) - kept if n in self.rows]
        if gone:  # removed, moved to a new rowid, or left without a vector
            keep = np.ones(len(self.names), dtype=bool)
            keep[gone] = False
            self.contextual.difference_update(self.names[i] for i in gone)
            self._buf = self._buf[: len(self.names)][keep]
            self.rowids = self.rowids[: len(self.names)][keep]
            self.names = [n for n, k in zip(self.names, keep, strict=True) if k]
        appended = [r for r in fetched if r[1] not in kept]
        self._append(appended)
        last = self.rowids[: len(self.names)]
        if len(last) > 1 and bool((np.diff(last) < 0).any()):  # a rowid came back: re-sort
            order = np.argsort(last, kind="stable")
            self._buf = self._buf[: len(self.names)][order]
            self.rowids = last[order]
            self.names = [self.names[i] for i in order]
        if gone or appended:
            self.rows = {n: i for i, n in enumerate(self.names)}

    def _append(self, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        n, need = len(self.names), len(self.names) + len(rows)
        if need > len(self._buf) or need > len(self.rowids):
            capacity = max(need, int(n * 1.25) + 64)
            grown = np.empty((capacity, self.dim), dtype=np.float32)
            grown[:n] = self._buf[:n]
            self._buf = grown
            ids = np.empty(capacity, dtype=np.int64)
            ids[:n] = self.rowids[:n]
            self.rowids = ids
        self.rowids[n:need] = [r[0] for r in rows]
        self.names = self.names + [r[1] for r in rows]  # a new list: callers may hold the old
        self._fill(range(n, need), rows)


class Views:
    """The docs, entity map, scripts and matrices of one index at one version (``key``)."""

    _DOCS = (
        "SELECT d.name, type, source, confidence, importance, created, updated, tags, "
        "related_files, description, session, scripts, u.count, u.last_used, d.rowid FROM docs d "
        "LEFT JOIN usage u ON u.name = d.name"
    )

    def __init__(self) -> None:
        self.key: object = None
        self.seq = 0  # the index journal's last entry these views are known to be past
        self.docs: dict[str, DocMeta] | None = None
        self.entities: dict[str, set[str]] | None = None
        self.matrices: dict[float, Matrix] = {}
        self.files: dict[str, FileRow] | None = None  # what ``sync`` compares the files with
        self._scripts: Counter[str] | None = None
        self._script_set: frozenset[str] | None = None
        self._lists: dict[str, tuple[str, ...]] = {}  # JSON list → its tuple: lists repeat
        self._keys: dict[tuple[tuple[str, ...], tuple[str, ...]], frozenset[str]] = {}

    def clear(self, key: object = None, seq: int = 0) -> None:
        self.key, self.docs, self.entities, self.matrices, self.files = key, None, None, {}, None
        self._scripts = self._script_set = None
        self.seq = seq

    def loaded(self) -> bool:
        """Whether anything was read into these views (empty ones are of any version)."""
        return self.docs is not None or bool(self.matrices) or self._scripts is not None

    def at(self, key: object) -> Views:
        """These views, emptied first unless they are of version ``key``."""
        if self.key != key:
            self.clear(key)
        return self

    # -- docs ----------------------------------------------------------------------------
    def load_docs(self, db: sqlite3.Connection) -> dict[str, DocMeta]:
        if self.docs is None:
            self.docs = {m.name: m for _, m in self._read(db, self._DOCS, ())}
        return self.docs

    def _read(
        self, db: sqlite3.Connection, sql: str, args: tuple[str, ...]
    ) -> Iterator[tuple[int, DocMeta]]:
        """(rowid, metadata) of each row ``sql`` selects."""
        lists = self._lists
        for row in db.execute(sql, args):
            for raw in (row[7], row[8]):
                if raw not in lists:
                    lists[raw] = tuple(json.loads(raw))
            yield (
                row[14],
                DocMeta(
                    name=row[0],
                    type=row[1],
                    source=row[2],
                    confidence=row[3],
                    importance=row[4],
                    created=row[5],
                    updated=row[6],
                    tags=lists[row[7]],
                    related_files=lists[row[8]],
                    description=row[9],
                    session=row[10],
                    scripts=tuple(row[11].split()),
                    uses=row[12] or 0,
                    last_used=row[13],
                ),
            )

    def scripts(self, db: sqlite3.Connection) -> frozenset[str]:
        if self._scripts is None:
            self._scripts = Counter(s for m in self.load_docs(db).values() for s in m.scripts)
            self._script_set = None
        if self._script_set is None:
            self._script_set = frozenset(s for s, k in self._scripts.items() if k > 0)
        return self._script_set

    # -- entities ------------------------------------------------------------------------
    def entity_keys(self, meta: DocMeta) -> frozenset[str]:
        """Lowercased tags, related paths and file names of ``meta`` (once per distinct lists)."""
        pair = (meta.tags, meta.related_files)
        if pair not in self._keys:
            keys = {t.lower() for t in meta.tags}
            for path in meta.related_files:
                lowered = path.lower().strip("./")
                keys |= {lowered, lowered.rsplit("/", 1)[-1]}
            self._keys[pair] = frozenset(keys)
        return self._keys[pair]

    def load_entities(self, db: sqlite3.Connection) -> dict[str, set[str]]:
        if self.entities is None:
            out: dict[str, set[str]] = {}
            for name, meta in self.load_docs(db).items():
                for k in self.entity_keys(meta):
                    out.setdefault(k, set()).add(name)
            self.entities = out
        return self.entities

    # -- matrices ------------------------------------------------------------------------
    def matrix(
        self, db: sqlite3.Connection, model: str, dim: int, context: float, snapshots: Path | None
    ) -> Matrix:
        """The matrix of ``context``; ``snapshots``: the folder of its snapshot, if it has one."""
        if context not in self.matrices:
            path = None if snapshots is None else snapshot_path(snapshots, context)
            self.matrices[context] = Matrix(db, model, dim, context, path)
        return self.matrices[context]

    # -- patching ------------------------------------------------------------------------
    def patch(self, db: sqlite3.Connection, delta: Delta, key: object) -> None:
        """Bring every view already loaded up to version ``key`` by re-reading ``delta``."""
        if self.files is not None:
            for name in delta.removed:
                self.files.pop(name, None)
            self.files.update(delta.files)
        if self.docs is not None and delta:
            self._patch_docs(db, delta)
        if delta.docs or delta.removed:
            for matrix in self.matrices.values():
                matrix.patch(db, delta)
        self.key = key

    def _patch_docs(self, db: sqlite3.Connection, delta: Delta) -> None:
        assert self.docs is not None
        old = {n: self.docs[n] for n in delta.docs | delta.uses | delta.removed if n in self.docs}
        for name in delta.rewritten | delta.removed:  # a new row comes last, as a load has it
            self.docs.pop(name, None)
        fetched: list[tuple[int, DocMeta]] = []
        for part in chunked((delta.docs | delta.uses) - delta.removed):
            sql = self._DOCS + f" WHERE d.name IN ({','.join('?' * len(part))})"
            fetched += self._read(db, sql, tuple(part))
        fetched.sort(key=lambda r: r[0])
        new = dict((m.name, m) for _, m in fetched)
        for name in set(old) - set(new):  # gone between the sync and this read
            self.docs.pop(name, None)
        self.docs.update(new)
        if self._scripts is not None:
            self._scripts.subtract(s for m in old.values() for s in m.scripts)
            self._scripts.update(s for m in new.values() for s in m.scripts)
            self._script_set = None
        if self.entities is not None:
            for name, meta in old.items():
                for k in self.entity_keys(meta):
                    members = self.entities.get(k)
                    if members is not None:
                        members.discard(name)
                        if not members:
                            del self.entities[k]
            for name, meta in new.items():
                for k in self.entity_keys(meta):
                    self.entities.setdefault(k, set()).add(name)
