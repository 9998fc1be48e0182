"""The derived search index of one scope: SQLite FTS5 for keywords, float32 vectors for meaning.

``<scope>/.index/index.sqlite`` is a cache of the memory files and can be deleted at any time;
the next call rebuilds it. What it holds:

* ``docs`` — one row per readable memory: its stat (to notice hand edits cheaply), content hash,
  the hash of the text that was embedded, and the metadata recall filters and weights on.
* ``fts`` — FTS5 with the ``porter`` stemmer; CJK runs are stored as bigrams (``text.py``).
* ``session_fts`` — one FTS5 row per ``session``: the bodies of all its memories as one
  document, so a query whose words are spread over a conversation finds that conversation
  (``sessions`` maps each session to its row). A session's row is rebuilt, inside the same
  transaction, whenever one of its memories is added, changed or removed: a write costs one
  pass over the memories of its own session.
* ``vectors`` — the embedding cache, keyed by (hash of the embedded text, embedder ``model_id``):
  a rebuild re-embeds nothing that is unchanged, and a new embedder misses every key, so it
  re-embeds everything without being told. A memory of a session also has a *context vector*:
  the embedding of its text between its neighbours' in that session (the memories learned just
  before and after it; ``contexts.py``), cached the same way under ``docs.context_hash``; a
  write re-embeds the context of the memory and of its neighbours.
* ``pools`` — for an embedder that pools (``use``): a row per text of the last memories of
  each session, from which the context vectors an append changes are *composed* (summed, then
  a small network) instead of embedding the window's text, so a memory's text is encoded once.
  Stored as float32 under ``model_id|pool_id`` (``contexts.pool_key``): a pool keeps token
  ids, which float16 cannot hold, and a new pool format never reads an old one.
* ``usage`` — how often each memory was returned, replayed from the scope's recall log
  (``.history/recalls.jsonl``), which is the durable record.
* ``journal`` — the names each of the last syncs changed, from which version to which, so
  that the views another facade or process holds are patched, not loaded again (``views.py``).

``sync()`` brings the index up to date: one ``stat`` per file when nothing changed (a directory
fingerprint), a content hash only for files whose stat moved, and embeddings in batches for the
texts the cache lacks. A newer ``SCHEMA_VERSION`` drops the file and rebuilds. Syncs of one scope
are serialised across processes by ``flock`` on ``.index/sync.lock``.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import BadFileError, NotFoundError
from ..files import FileStore
from ..fs import read_jsonl
from ..providers.embeddings import Embedder, Vectors
from . import cache, contexts, journal, nearest, snapshot
from .heal import HEALED, differences, heal_index, install_healing, notice, set_aside
from .rows import Progress, RowWriter, SyncReport, embed_text
from .text import cjk_bigrams, fts_query
from .views import Delta, DocMeta, Matrix, Views

__all__ = ["SCHEMA_VERSION", "DocMeta", "SqliteIndex", "SyncReport", "embed_text"]

# 3: created/updated stored as UTC; 4: FTS rowid = docs rowid; 5: scripts, session documents;
# 6: the default description is not indexed twice; 7: a memory's scripts are its main ones;
# 8: context vectors (docs.context_hash); 9: pools, so a pooling embedder composes them
SCHEMA_VERSION = 9
FULL_SCAN_LIMIT = 2000
SCAN_INTERVAL = 2.0
# ...or, if longer, this many times the last full scan's own time: the scan that catches an
# in-place edit takes at most a tenth of a busy store's time (at 100k memories one scan, a
# stat per file, took ~2 s: with a fixed 2 s interval every other recall paid it)
SCAN_COST = 10.0

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE docs (
    name TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, ino INTEGER,
    content_hash TEXT NOT NULL, embed_hash TEXT NOT NULL,
    type TEXT NOT NULL, source TEXT NOT NULL, confidence TEXT NOT NULL, importance INTEGER,
    created TEXT, updated TEXT, tags TEXT NOT NULL, related_files TEXT NOT NULL,
    description TEXT NOT NULL, session TEXT, scripts TEXT NOT NULL, context_hash TEXT
);
CREATE INDEX docs_session ON docs(session);
CREATE INDEX docs_embed ON docs(embed_hash);
CREATE INDEX docs_context ON docs(context_hash);
CREATE TABLE sessions (id INTEGER PRIMARY KEY, session TEXT UNIQUE NOT NULL);
CREATE VIRTUAL TABLE session_fts USING fts5(
    body, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE fts USING fts5(
    name UNINDEXED, head, body, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS vectors (
    embed_hash TEXT NOT NULL, model TEXT NOT NULL, vec BLOB NOT NULL,
    PRIMARY KEY (embed_hash, model)
);
CREATE TABLE IF NOT EXISTS pools (
    embed_hash TEXT NOT NULL, model TEXT NOT NULL, pool BLOB NOT NULL,
    PRIMARY KEY (embed_hash, model)
);
CREATE TABLE usage (name TEXT PRIMARY KEY, count INTEGER NOT NULL, last_used TEXT NOT NULL);
"""


# added to schema 9 without a rebuild: the lookups that let a sync forget only what it dropped,
# and the journal of what each sync changed (``journal.py``)
_ENSURE = (
    "CREATE INDEX IF NOT EXISTS docs_embed ON docs(embed_hash)",
    "CREATE INDEX IF NOT EXISTS docs_context ON docs(context_hash)",
    journal.TABLE,
)

# the embedding cache: tables kept across schema versions while their columns stay these
_KEPT = {"vectors": ["embed_hash", "model", "vec"], "pools": ["embed_hash", "model", "pool"]}


class SqliteIndex(RowWriter, nearest.VectorQueries):
    """Search index of one scope, kept in step with its files by ``sync()``."""

    def __init__(self, store: FileStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self.path = store.index_path
        self._db: sqlite3.Connection | None = None
        self._locked = False
        self._listing: list[tuple[str, os.stat_result]] | None = None  # of this sync's state
        self._views = Views()  # what recall reads, patched by this process's syncs
        self._last: Matrix | None = None  # the matrix ``vectors()`` returned last
        self._delta: Delta | None = None  # what the running sync changed (None: unknown)
        self._dropped: set[str] = set()  # hashes the running sync stopped referring to
        self._before: tuple[str | None, ...] = ()  # the version the running sync started from
        self._after: tuple[str | None, ...] | None = None  # and the one it ended at
        self._journalled = 0  # the journal entry the running sync wrote
        self._ino: int | None = None  # the file the connection was opened on (``heal``)
        self._healing = False

    # -- connection ----------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._ino = os.stat(self.path).st_ino
        except (sqlite3.DatabaseError, OSError):
            db.close()
            raise
        return db

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None and self.path.exists():
            return self._db
        db: sqlite3.Connection | None = None
        ready = False
        try:
            if self.path.is_file() and self.path.stat().st_size:  # else: under the lock, below
                db = self._open()
                ready = self._schema(db) == str(SCHEMA_VERSION)
        except sqlite3.DatabaseError:
            db = None  # unreadable: set aside and rebuilt below
        if not ready:
            if db is not None:
                db.close()
            with self._sync_lock():  # one process creates or migrates; the others wait
                db = self._reopen()  # a fresh view: another process may have done it meanwhile
                if self._schema(db) != str(SCHEMA_VERSION):
                    db = self._migrate(db)
        assert db is not None
        for statement in _ENSURE:
            db.execute(statement)
        self._db = db
        self._views.clear()
        return db

    def _reopen(self) -> sqlite3.Connection:
        """Open the file, starting afresh if SQLite cannot read it (it is only a cache); the
        caller holds the sync lock. An empty file is damage too: only a crash leaves one."""
        try:
            if self.path.is_file() and self.path.stat().st_size == 0:
                raise sqlite3.DatabaseError("the file is empty")
            return self._open()
        except sqlite3.DatabaseError as exc:
            notice(self.path, str(exc), set_aside(self.path))
            return self._open()

    def heal(self, reason: str) -> None:
        """Set the damaged file aside, rebuild the index from the files (``heal.heal_index``)."""
        heal_index(self, reason)

    @staticmethod
    def _schema(db: sqlite3.Connection) -> str | None:
        try:
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError:
            return None
        return None if row is None else str(row[0])

    def _migrate(self, db: sqlite3.Connection) -> sqlite3.Connection:
        """Create the tables, or rebuild them for a new schema; the caller holds the sync lock.

        The embedding cache (vectors and pools) survives when its tables still have the same
        shape — it is keyed by text hash and model, not by schema — so a schema bump re-indexes
        text but re-embeds nothing. Only a file SQLite cannot read at all is deleted and started
        afresh."""
        try:
            columns = {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")] for t in _KEPT}
            tables = [
                r[0]
                for r in db.execute(
                    "SELECT name FROM sqlite_master WHERE type='table' AND sql LIKE 'CREATE TABLE%'"
                )
            ]
        except sqlite3.DatabaseError as exc:  # not a database (or corrupt): it is only a cache
            db.close()
            notice(self.path, str(exc), set_aside(self.path))
            db = self._open()
            columns, tables = {}, []
        if tables and "meta" not in tables:  # some other database: keep it, start afresh
            db.close()
            notice(self.path, "not a memdir index", set_aside(self.path))
            db = self._open()
            columns, tables = {}, []
        for virtual in ("fts", "session_fts"):  # drops their shadow tables with them
            db.execute(f"DROP TABLE IF EXISTS {virtual}")
        for table in tables:
            keep = table in _KEPT and columns.get(table) == _KEPT[table]
            if not keep and not table.startswith("fts_"):
                db.execute(f'DROP TABLE IF EXISTS "{table}"')
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        return db

    def drop(self) -> None:
        """Delete the index (it is derived: the next call rebuilds it from the files)."""
        self.close()
        self._drop_files()

    def _drop_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    @contextmanager
    def _sync_lock(self) -> Iterator[None]:
        """Serialise syncs and migrations of this index across processes (re-entrant)."""
        if self._locked:
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path.parent / "sync.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._locked = True
            yield
        finally:
            self._locked = False
            os.close(fd)

    def _meta(self, key: str) -> str | None:
        row = self._connect().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        self._connect().execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- sync ----------------------------------------------------------------------------
    def _docs_state(self) -> str:
        """The files' fingerprint and the embedder; keeps the listing for ``_sync_docs``."""
        fp, self._listing = self.store.index_listing()
        return f"{fp}|{self.embedder.model_id}|{self.embedder.pool_id}"

    def _recall_log_size(self) -> int:
        try:
            return self.store.dirs.recalls.stat().st_size
        except FileNotFoundError:
            return 0

    def _quick_state(self) -> str:
        """One ``stat`` of the directory and the change log: moves on every add, delete,
        rename (memdir's own writes, editors that save by renaming) — not on in-place edits."""
        parts = [self.embedder.model_id, str(self.embedder.pool_id)]
        for path in (self.store.dirs.memory, self.store.dirs.changes):
            try:
                st = path.stat()
                parts.append(f"{st.st_mtime_ns}:{st.st_size}")
            except FileNotFoundError:
                parts.append("-")
        return "|".join(parts)

    def _docs_fresh(self) -> tuple[bool, str | None]:
        """Whether the docs table matches the files, and the full fingerprint if one was taken.

        Small stores are fingerprinted in full on every call (one ``stat`` per file). Past
        ``FULL_SCAN_LIMIT`` memories that costs more than a recall should, so a full scan runs at
        most every ``SCAN_INTERVAL`` seconds (or ``SCAN_COST`` times the last scan's own time,
        if longer) while the directory itself has not changed: an in-place edit of one file in
        a very large store is noticed within that interval.
        """
        large = int(self._meta("count") or 0) > FULL_SCAN_LIMIT
        quick = self._quick_state() if large else ""
        if large and self._meta("quick") == quick:
            interval = max(SCAN_INTERVAL, SCAN_COST * float(self._meta("full_scan_s") or 0))
            if time.time() - float(self._meta("full_scan_at") or 0) < interval:
                return True, None
        began = time.perf_counter()
        state = self._docs_state()
        if large:
            self._set_meta("full_scan_s", f"{time.perf_counter() - began:.3f}")
        fresh = self._meta("state") == state
        if large and fresh:  # the next calls may trust the quick check again for a while
            self._set_meta("quick", quick)
            self._set_meta("full_scan_at", str(time.time()))
        return fresh, state

    def sync(self, progress: Progress | None = None) -> SyncReport:
        """Bring the index in line with the files and the recall log; cheap when nothing
        changed. The views recall reads are patched with what changed, not read again."""
        report = SyncReport()
        db = self._connect()
        before = self._before = self._version()
        journal.align(db, self._views, before)
        self._delta, self._dropped = Delta(), set()
        self._after, self._journalled = None, 0
        try:
            self._sync(db, report, progress, before)
        except BaseException:
            self._views.clear()
            raise
        finally:  # a listing is a tuple and a stat per file: not worth keeping for the GC to walk
            delta, self._delta, self._listing = self._delta, None, None
        after = self._after if self._after is not None else self._version()
        if delta is not None and self._views.key == before:
            self._views.patch(db, delta, after)
            self._views.seq = max(self._views.seq, self._journalled)
        else:
            journal.align(db, self._views, after)
        return report

    def _sync(
        self,
        db: sqlite3.Connection,
        report: SyncReport,
        progress: Progress | None,
        before: tuple[str | None, ...],
    ) -> None:
        self._listing = None
        fresh, state = self._docs_fresh()
        if fresh and self._meta("recall_offset") == str(self._recall_log_size()):
            self._after = self._version()
            if self._after != before:  # another facade synced since ``before``: not ours
                self._delta = None
            return
        synced = self._meta("state")
        with self._sync_lock():
            quick = self._quick_state()
            if self._meta("state") != synced:  # another process synced while we waited
                fresh, state = self._docs_fresh()
            now = self._version()
            if (now[0], now[2]) != (before[0], before[2]):  # another process's change
                self._delta = None
            if not fresh or state is not None:
                state = state or self._docs_state()
                if not fresh:
                    pending, lacking, known = self._sync_docs(db, report)
                    if self.embedder.pool_id is None:
                        known.update(pending)
                        pending.update(contexts.texts(db, lacking, known, self._text_of))
                        self._embed(db, pending, report, progress)
                    else:
                        self._embed_pooled(db, pending, lacking, known, report, progress)
                    self._forget_unused_vectors(db)
                    count = db.execute("SELECT count(*) FROM docs").fetchone()[0]
                    self._set_meta("count", str(count))
                    self._set_meta("state", state)
                    db.execute("DELETE FROM meta WHERE key='dirty'")
                if int(self._meta("count") or 0) > FULL_SCAN_LIMIT:
                    self._set_meta("quick", quick)
                    self._set_meta("full_scan_at", str(time.time()))
            self._replay_usage(db)
            self._after = self._version()
            self._journalled = journal.record(db, self._delta, now, self._after)

    def _version(self) -> tuple[str | None, ...]:
        """The views' key: the files' state, the quick state, and how far the recall log was
        replayed (use counts are part of ``docs()``). Another process's sync moves the first
        or the last; this process's own scans move the quick state too."""
        return self._meta("state"), self._meta("quick"), self._meta("recall_offset")

    def generation(self) -> str:
        """Changes whenever the indexed files (or the embedder) change; a cache key."""
        return f"{self._meta('state')}|{self._meta('quick')}"

    def _sync_docs(
        self, db: sqlite3.Connection, report: SyncReport
    ) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """Update docs and FTS rows. Return {embed_hash: text} that still need vectors,
        {context hash: session} of the context vectors missing, and {embed_hash: text} of every
        memory read on the way (so a window's texts need not be read again)."""
        clean = self._meta("dirty") is None  # the last sync that changed docs got to its end
        if not clean:  # what it wrote before it stopped is not known: read everything again
            self._delta = None
        rows = self._file_rows(db)
        seen: set[str] = set()
        fresh: dict[str, str] = {}
        touched: set[str] = set()  # sessions whose document must be rebuilt
        files = {} if self._delta is None else self._delta.files
        tag = contexts.tag(self.embedder)
        listing = self._listing if self._listing is not None else self.store.listing()[1]
        db.execute("BEGIN IMMEDIATE")
        try:
            for file_name, st in listing:  # the stat the fingerprint was taken from
                name = file_name[:-3]
                old = rows.get(name)
                if old and old[:3] == (st.st_size, st.st_mtime_ns, st.st_ino):
                    seen.add(name)
                    continue
                try:
                    record = self.store.read_path(self.store.dirs.memory / file_name)
                except NotFoundError:
                    continue  # deleted since the listing: gone below, like any deleted file
                except BadFileError:
                    report.skipped += 1
                    continue
                seen.add(name)
                files[name] = (st.st_size, st.st_mtime_ns, st.st_ino, record.content_hash)
                if old and old[3] == record.content_hash:
                    db.execute(
                        "UPDATE docs SET size=?, mtime_ns=?, ino=? WHERE name=?",
                        (st.st_size, st.st_mtime_ns, st.st_ino, name),
                    )
                    continue
                touched |= {s for s in (self._session_of(db, name), record.session) if s}
                ehash, text = self._upsert(db, record, st)
                fresh[ehash] = text
                if self._delta is not None:
                    self._delta.docs.add(name)
                    self._delta.rewritten.add(name)
                report.updated += bool(old)
                report.added += not old
            for name in set(rows) - seen:
                touched |= {s for s in (self._session_of(db, name),) if s}
                self._forget_row(db, name)
                report.removed += 1
                if self._delta is not None:
                    self._delta.removed.add(name)
            for session in touched:
                contexts.rewrite_document(db, session)
                self._repoint(db, session, tag)
            if self._meta("context_tag") != tag:  # set for another embedder
                for (session,) in db.execute("SELECT session FROM sessions").fetchall():
                    contexts.point(db, session, tag)
                self._set_meta("context_tag", tag)
                self._delta = None
            self._set_meta("dirty", "1")  # until the vectors are in: see ``_lacking``
            missing, lacking = self._lacking(db, clean, set(fresh), touched)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        pending = {h: fresh[h] for h in missing if h in fresh}
        if len(pending) < len(missing):  # e.g. a new embedder: texts of unchanged files
            pending.update(self._texts_for(db, missing - set(pending)))
            self._delta = None
        if not set(lacking.values()) <= touched:  # contexts of sessions no file change named
            self._delta = None
        return pending, lacking, fresh

    def _file_rows(self, db: sqlite3.Connection) -> dict[str, tuple[int, int, int, str]]:
        """{name: (size, mtime_ns, ino, content hash)} of every indexed file, as the docs table
        has them: kept by the views (and patched with what a sync changes) while no other
        process syncs, so a sync after this process's own write need not read them all."""
        views = self._views
        if self._delta is not None and views.key == self._before and views.files is not None:
            return views.files
        rows = {
            r[0]: (r[1], r[2], r[3], r[4])
            for r in db.execute("SELECT name, size, mtime_ns, ino, content_hash FROM docs")
        }
        if views.key == self._before:
            views.files = rows
        return rows

    def _lacking(
        self, db: sqlite3.Connection, clean: bool, fresh: set[str], touched: set[str]
    ) -> tuple[set[str], dict[str, str]]:
        """The embed hashes without a vector, and {context hash: session} of the contexts
        without one. After a clean sync by this process with the same embedder, only what this
        sync wrote can lack one; otherwise (a sync cut short after its docs were committed, a
        new embedder, another process's sync) every doc is checked."""
        model = self.embedder.model_id
        embedder = f"{model}|{self.embedder.pool_id}"
        if clean and self._delta is not None and self._meta("embedder") == embedder:
            return cache.lacking_among(db, model, fresh, touched)
        self._set_meta("embedder", embedder)
        return cache.lacking(db, model)

    def _repoint(self, db: sqlite3.Connection, session: str, tag: str) -> None:
        """``contexts.point`` for a session a sync changed, noting its members' old context
        hashes as dropped and the members themselves as changed."""
        members = db.execute(
            "SELECT name, context_hash FROM docs WHERE session=?", (session,)
        ).fetchall()
        self._dropped.update(h for _, h in members if h)
        if self._delta is not None:
            self._delta.docs.update(n for n, _ in members)
        contexts.point(db, session, tag)

    def _forget_unused_vectors(self, db: sqlite3.Connection) -> None:
        """Delete the current embedder's vectors and pools no memory refers to any more: those
        of the hashes this sync dropped or — once per embedder, and whenever the sync cannot say
        what it dropped — every one."""
        model = self.embedder.model_id
        pooled = contexts.pool_key(self.embedder)
        if self._delta is None or self._meta("swept") != model:
            cache.forget_unused(db, model, pooled, None)
            self._set_meta("swept", model)
        else:
            cache.forget_unused(db, model, pooled, self._dropped)

    def _replay_usage(self, db: sqlite3.Connection) -> None:
        """Fold new lines of the recall log into ``usage`` (the log is the durable record)."""
        offset = int(self._meta("recall_offset") or 0)
        if offset > self._recall_log_size():  # the log was replaced: start again
            db.execute("DELETE FROM usage")
            offset = 0
            self._delta = None
        entries, _, end = read_jsonl(self.store.dirs.recalls, offset)
        for entry in entries:
            when = str(entry.get("time", ""))
            for name in entry.get("returned", []) or []:
                if self._delta is not None:
                    self._delta.uses.add(str(name))
                db.execute(
                    "INSERT INTO usage VALUES (?, 1, ?) ON CONFLICT(name) DO UPDATE SET "
                    "count = count + 1, last_used = max(last_used, excluded.last_used)",
                    (str(name), when),
                )
        self._set_meta("recall_offset", str(end))

    # -- queries -------------------------------------------------------------------------
    def _views_now(self) -> tuple[Views, sqlite3.Connection]:
        """The views at the index's current version, and the connection to read them with
        (a reconnect empties the views)."""
        db = self._connect()
        journal.align(db, self._views, self._version())
        return self._views, db

    def scripts(self) -> frozenset[str]:
        """Every script some indexed memory is written in: a query is worth translating only
        when this holds the other language's script."""
        views, db = self._views_now()
        return views.scripts(db)

    def docs(self) -> dict[str, DocMeta]:
        """Every indexed memory's metadata with its use count (kept until the next change)."""
        views, db = self._views_now()
        return views.load_docs(db)

    def entities(self) -> dict[str, set[str]]:
        """Lowercased tags, related paths and file names → the memories that carry them."""
        views, db = self._views_now()
        return views.load_entities(db)

    def keyword(self, terms: list[str], limit: int) -> dict[str, float]:
        """BM25 scores (higher is better) of the best ``limit`` matches of any term."""
        if not terms:
            return {}
        match = fts_query([t for q in terms for t in cjk_bigrams(q).split()])
        rows = self._connect().execute(
            "SELECT name, -bm25(fts, 0.0, 1.0, 1.0) FROM fts WHERE fts MATCH ? "
            "ORDER BY bm25(fts, 0.0, 1.0, 1.0) LIMIT ?",
            (match, limit),
        )
        return {name: float(score) for name, score in rows}

    def session_keyword(self, terms: list[str], limit: int) -> dict[str, float]:
        """BM25 scores (higher is better) of the best ``limit`` session documents: each session
        ranked as the one text of all its memories."""
        if not terms:
            return {}
        match = fts_query([t for q in terms for t in cjk_bigrams(q).split()])
        rows = self._connect().execute(
            "SELECT s.session, -bm25(session_fts) FROM session_fts "
            "JOIN sessions s ON s.id = session_fts.rowid WHERE session_fts MATCH ? "
            "ORDER BY bm25(session_fts) LIMIT ?",
            (match, limit),
        )
        return {session: float(score) for session, score in rows}

    def vectors(self, context: float = 0.0) -> tuple[list[str], Vectors]:
        """Names and the matrix of their vectors for the current embedder (kept until the next
        change, then patched).

        With ``context`` > 0 a memory that has a context vector is represented by
        ``(1 − context)·own + context·context_vector``: its product with a unit query is the
        same mix of the two cosines. Memories without one keep their own vector."""
        views, db = self._views_now()
        large = int(self._meta("count") or 0) >= snapshot.SNAPSHOT_MIN  # small: SQLite is quick
        folder = self.path.parent if large else None
        matrix = views.matrix(db, self.embedder.model_id, self.embedder.dim, context, folder)
        self._last = matrix
        return matrix.names, matrix.matrix

    def has_context(self, name: str) -> bool:
        """Whether ``name`` has a context vector (as of the last ``vectors()``)."""
        return self._last is not None and name in self._last.contextual

    def row_of(self, name: str) -> int | None:
        """The row of ``name`` in the matrix ``vectors()`` returned last."""
        return None if self._last is None else self._last.rows.get(name)

    def stats(self) -> dict[str, Any]:
        db = self._connect()
        count = db.execute("SELECT count(*) FROM docs").fetchone()[0]
        vectors = db.execute(
            "SELECT count(*) FROM vectors WHERE model=?", (self.embedder.model_id,)
        ).fetchone()[0]
        windows = db.execute(
            "SELECT count(DISTINCT context_hash) FROM docs WHERE context_hash IS NOT NULL"
        ).fetchone()[0]
        size = sum(p.stat().st_size for p in self.path.parent.glob("index.sqlite*"))
        pools = db.execute(
            "SELECT count(*) FROM pools WHERE model=?", (contexts.pool_key(self.embedder),)
        ).fetchone()[0]
        return {
            "docs": count,
            "vectors": vectors,
            "context_vectors": windows,
            "pools": pools,
            "embedder": self.embedder.model_id,
            "schema": SCHEMA_VERSION,
            "bytes": size,
            "path": str(self.path),
        }

    def verify(self) -> list[str]:
        """Differences between the index and the files (empty when they agree;
        ``heal.differences``)."""
        return differences(self)


# Every method that reads the file heals a damaged one and runs again (``heal.py``); applied
# here so the query code above stays about queries.
install_healing(SqliteIndex, HEALED)
