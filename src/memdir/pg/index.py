"""The search index of one scope in PostgreSQL: BM25 over a postings table, pgvector for meaning.

``PgIndex`` is a ``ports.Index`` derived from any ``ports.Store`` (the PostgreSQL store, or the
file backend's ``FileStore``): it can be dropped and rebuilt from the store at any time, and
its rows (``pg/index_schema.py``) are never the truth. It answers what ``SqliteIndex`` answers
over the same store with the same embedder:

* **keywords** — the SQLite index's FTS5 tokens and ``bm25()``, computed in SQL from
  ``idx2_terms`` (``pg/index_text.py``): the same scores to rounding;
* **vectors** — own and context vectors in pgvector with HNSW; ``nearest`` ranks candidates the
  database picks with ``index.nearest``'s arithmetic (``pg/index_vectors.py``);
* **docs, entities, scripts** — the same derivations (``pg/index_rows.py``), the same
  ``DocMeta``; use counts folded from the scope's recall log.

``sync()`` compares ``store.fingerprint()`` with the one the rows were built from; when it moved
it reads the store, rewrites the rows of the memories whose content hash changed (and the
session documents and context vectors of their sessions), embeds only texts the embedding cache
lacks, all in one transaction under an advisory lock per (owner, scope), so two
processes never sync one index at once and a sync cut short leaves the previous rows.

Every statement runs as the connection's role with ``memdir.owner`` set to ``owner``: row-level
security keeps each owner's rows to itself (the tables are forced, their owner included).
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import weakref
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg
from psycopg.rows import dict_row

from ..index import contexts
from ..index.sqlite import SyncReport, embed_text
from ..index.text import cjk_bigrams
from ..index.views import DocMeta, Views
from ..ports import LanguageSums, Near, RecallLog, Store
from ..providers.embeddings import Embedder, Vectors
from . import index_schema, index_text
from .connect import Database
from .index_rows import COLUMNS, DocRow, context_hashes, doc_meta, doc_row, session_order
from .index_vectors import Candidates, register_vector
from .logs import PgRecallLog

_VECTORS: weakref.WeakSet[psycopg.Connection[Any]] = weakref.WeakSet()  # pgvector's types known

__all__ = ["PgIndex"]

SCHEMA = "idx2"
Progress = Callable[[int, int], None]
_SCOPE = "owner = %(owner)s AND scope = %(scope)s AND model = %(model)s"


def _scoped(alias: str) -> str:
    """``_SCOPE`` on the table called ``alias`` in a query."""
    return f"{alias}.owner = %(owner)s AND {alias}.scope = %(scope)s AND {alias}.model = %(model)s"


def _rows_of(state: tuple[str | None, int, int, bool]) -> tuple[str | None, int]:
    """The part of an index state that moves with its rows (fingerprint and generation), not
    with the recall log folded into use counts."""
    return state[0], state[2]


def recall_log_of(store: Store) -> RecallLog | None:
    """The recall log of ``store``'s scope when the store offers it (``store.recalls``);
    otherwise whoever opens the index sets ``PgIndex.recalls`` (none: no use counts)."""
    log = getattr(store, "recalls", None)
    return log if isinstance(log, RecallLog) else None


def _bulk_insert(
    conn: psycopg.Connection[Any], table: str, columns: str, rows: Iterable[Sequence[Any]]
) -> None:
    """Insert many rows fast: ``COPY`` into a temporary table of the same columns, then one
    ``INSERT … SELECT`` (``COPY FROM`` itself is refused on a table with row-level security;
    the ``INSERT`` is checked by its policy like any other)."""
    scratch = f"pg_temp.{table}_load"
    conn.execute(
        f"CREATE TEMP TABLE IF NOT EXISTS {table}_load AS SELECT {columns} FROM {table} "
        "WITH NO DATA"
    )
    with conn.cursor() as cur, cur.copy(f"COPY {scratch} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    conn.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {scratch}")
    conn.execute(f"TRUNCATE {scratch}")


class PgIndex:
    """``ports.Index`` of one (owner, scope) in PostgreSQL, kept in step with ``store``."""

    def __init__(
        self, conninfo: str, store: Store, embedder: Embedder, *, owner: str, scope: str
    ) -> None:
        self.conninfo = conninfo
        self.store = store
        self.embedder = embedder
        self.owner, self.scope = owner, scope
        self.model = f"{embedder.model_id}|{embedder.pool_id}"
        self.recalls: RecallLog | None = recall_log_of(store)
        self.candidates = Candidates(owner, scope, self.model, embedder.dim)
        self._db = Database(conninfo, owner)
        self._ready = False  # the tables and the HNSW index checked on this index's first use
        self._lock = threading.RLock()
        self._views = Views()  # only for ``entity_keys``: the same entity map as SqliteIndex
        self._cache: (
            tuple[tuple[str | None, int, int, bool], dict[str, DocMeta], set[str]] | None
        ) = None
        self._entities: tuple[object, dict[str, set[str]]] | None = None
        self._recall_seen: object = None  # the recall log's marker at this process's last fold
        self._limit_seen: int | None = None  # ``exact_limit`` at this process's last sync
        # the state the rows had at this index's last sync: what the queries read by (every
        # reader syncs first, the Index port's contract), instead of a row read per query
        self._pinned: tuple[str | None, int, int, bool] | None = None

    # -- connection ----------------------------------------------------------------------
    @contextmanager
    def _borrow(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection of the process's pool for this owner (the one this thread holds
        already, inside a store's transaction or a ``Memory.lease()``), able to carry
        vectors; the tables and this embedder's HNSW index made on first use."""
        with self._db.lend() as conn:
            if not self._ready:
                index_schema.ensure_schema(conn)  # pgvector too, before its types are read
            if conn not in _VECTORS:
                register_vector(conn)
                _VECTORS.add(conn)
            if not self._ready:
                index_schema.ensure_hnsw(conn, self.model, self.embedder.dim)
                self._ready = True
            yield conn

    def _params(self, **more: Any) -> dict[str, Any]:
        return {"owner": self.owner, "scope": self.scope, "model": self.model, **more}

    def close(self) -> None:
        """Nothing to close: every connection went back to the pool when its call ended."""

    def drop(self) -> None:
        """Delete every derived row of this scope (all embedders); the next sync rebuilds."""
        with self._lock, self._borrow() as conn:
            with conn.transaction():
                self._serialise(conn)
                for table in index_schema.TABLES:
                    conn.execute(
                        f"DELETE FROM {table} WHERE owner = %(owner)s AND scope = %(scope)s",
                        self._params(),
                    )
            self._cache = self._entities = None
            self._recall_seen = self._pinned = None

    def _serialise(self, conn: psycopg.Connection[Any]) -> None:
        """Hold this index's advisory lock until the transaction ends."""
        conn.execute(
            "SELECT pg_advisory_xact_lock(hashtext(%s))",
            (f"memdir idx2 {self.owner!r} {self.scope!r}",),
        )

    # -- state ---------------------------------------------------------------------------
    def _state(self, conn: psycopg.Connection[Any]) -> tuple[str | None, int, int, bool]:
        """(fingerprint synced, recall entries folded, generation, whether the rows are in the
        HNSW indexes) of this index."""
        row = conn.execute(
            f"SELECT fingerprint, folded, generation, ann FROM idx2_state WHERE {_SCOPE}",
            self._params(),
        ).fetchone()
        return (None, 0, 0, False) if row is None else (row[0], int(row[1]), int(row[2]), row[3])

    def _version(self) -> tuple[str | None, int, int, bool]:
        """The state as of this index's last ``sync`` (read now when it never synced): one
        recall asks for it a dozen times, and each ask was a round trip."""
        with self._lock:
            if self._pinned is not None:
                return self._pinned
            with self._borrow() as conn:
                return self._state(conn)

    def generation(self) -> str:
        """Changes whenever the indexed memories (or the embedder) change; a cache key."""
        fingerprint, _, generation, _ = self._version()
        return f"{SCHEMA}|{self.model}|{fingerprint}|{generation}"

    def _recall_marker(self) -> object:
        """A cheap value that moves when the recall log grows: the log's own ``marker()`` when
        it has one; ``None`` otherwise, and the log is read on every sync. Without a log,
        nothing ever moves."""
        if self.recalls is None:
            return 0
        marker = getattr(self.recalls, "marker", None)
        return marker() if callable(marker) else None

    # -- sync ----------------------------------------------------------------------------
    def sync(self, progress: Progress | None = None) -> SyncReport:
        """Bring the rows in line with the store and the recall log; cheap when nothing moved
        (one fingerprint of the store and one row read)."""
        report = SyncReport()
        fingerprint = self.store.fingerprint()
        marker = self._recall_marker()
        with self._lock, self._borrow() as conn:
            self._pinned = None
            limit = self.candidates.exact_limit
            quiet = marker is not None and marker == self._recall_seen
            if quiet and limit == self._limit_seen:  # else there is a log to fold anyway
                state = self._state(conn)
                if state[0] == fingerprint:
                    self._pinned = state
                    return report
            with conn.transaction():
                self._serialise(conn)
                synced, folded, generation, ann = self._state(conn)
                moved = synced != fingerprint
                if moved:
                    # the fingerprint is taken before the read: a write meanwhile syncs again
                    self._sync_docs(conn, report, progress)
                    generation += 1
                folded = self._fold(conn, folded)
                if moved or limit != self._limit_seen:  # else the rows are where they were
                    ann = self._place(conn, ann, limit)
                conn.execute(
                    "INSERT INTO idx2_state (owner, scope, model, fingerprint, folded, "
                    "generation, ann) VALUES (%(owner)s, %(scope)s, %(model)s, %(fp)s, "
                    "%(folded)s, %(gen)s, %(ann)s) ON CONFLICT (owner, scope, model) DO UPDATE "
                    "SET fingerprint = excluded.fingerprint, folded = excluded.folded, "
                    "generation = excluded.generation, ann = excluded.ann",
                    self._params(fp=fingerprint, folded=folded, gen=generation, ann=ann),
                )
            self._recall_seen, self._limit_seen = marker, limit
            self._pinned = (fingerprint, folded, generation, ann)
        return report

    def _place(self, conn: psycopg.Connection[Any], ann: bool, limit: int) -> bool:
        """Put this scope's rows in the HNSW indexes once it holds more than ``limit`` memories
        (and take them out below): a smaller scope is scored exactly in SQL, and keeping its
        rows out of HNSW spares every write the graph's upkeep. Return where they are now."""
        wanted = self._count(conn) > limit
        if wanted != ann:
            conn.execute(f"UPDATE idx2_docs SET ann = %(ann)s WHERE {_SCOPE}",
                         self._params(ann=wanted))  # fmt: skip
        elif ann:  # rows written since are not in the graph yet
            conn.execute(f"UPDATE idx2_docs SET ann = true WHERE {_SCOPE} AND NOT ann",
                         self._params())  # fmt: skip
        return wanted

    def _sync_docs(
        self, conn: psycopg.Connection[Any], report: SyncReport, progress: Progress | None
    ) -> None:
        records, problems = self.store.scan()
        report.skipped = len(problems)
        rows = {r[0]: r[1:] for r in conn.execute(
            f"SELECT name, id, content_hash, session FROM idx2_docs WHERE {_SCOPE}",
            self._params(),
        )}  # fmt: skip
        current = {rec.name: rec for rec in records}
        changed = [
            doc_row(rec)
            for rec in records
            if rec.name not in rows or rows[rec.name][1] != rec.content_hash
        ]
        removed = set(rows) - set(current)
        stale = [rows[n][0] for n in removed] + [rows[d.record.name][0] for d in changed
                                                 if d.record.name in rows]  # fmt: skip
        touched = {rows[n][2] for n in removed if rows[n][2]}
        touched |= {rows[d.record.name][2] for d in changed if d.record.name in rows}
        touched |= {d.record.session for d in changed if d.record.session}
        touched.discard(None)
        report.removed = len(removed)
        report.updated = sum(d.record.name in rows for d in changed)
        report.added = len(changed) - report.updated
        if stale:
            self._keep_vectors(conn, stale)
            conn.execute("DELETE FROM idx2_terms WHERE kind = 'd' AND doc = ANY(%s)", (stale,))
            conn.execute("DELETE FROM idx2_docs WHERE id = ANY(%s)", (stale,))
        self._write_docs(conn, changed)
        texts = {d.embed_hash: d.embed_text for d in changed}
        pools = self._embed_own(conn, dict(texts), report, progress)
        sessions = sorted(s for s in touched if isinstance(s, str))
        for rec in records:  # the texts of the windows of the sessions written to
            if rec.session in touched:
                text = embed_text(rec)
                texts.setdefault(hashlib.sha256(text.encode("utf-8")).hexdigest(), text)
        self._write_sessions(conn, sessions)
        moved = self._write_contexts(conn, sessions, texts, pools, report)
        self._copy_vectors(conn, sorted({d.record.name for d in changed} | moved))
        if stale or changed:
            self._forget_scratch(conn)

    def _write_docs(self, conn: psycopg.Connection[Any], changed: Sequence[DocRow]) -> None:
        """Insert the docs rows and postings of ``changed`` (their old rows already gone)."""
        if not changed:
            return
        postings = index_text.TOKENIZER.documents([(d.head, d.body) for d in changed])
        rows = [
            d.values(self.owner, self.scope, self.model, p.length)
            for d, p in zip(changed, postings, strict=True)
        ]
        _bulk_insert(conn, "idx2_docs", COLUMNS, rows)
        ids = dict(conn.execute(
            f"SELECT name, id FROM idx2_docs WHERE {_SCOPE} AND name = ANY(%(names)s)",
            self._params(names=[d.record.name for d in changed]),
        ).fetchall())  # fmt: skip
        self._copy_terms(conn, "d", [(ids[d.record.name], p) for d, p in
                                     zip(changed, postings, strict=True)])  # fmt: skip

    def _copy_terms(
        self, conn: psycopg.Connection[Any], kind: str, docs: list[tuple[int, index_text.Postings]]
    ) -> None:
        rows = [
            (self.owner, self.scope, self.model, kind, term, doc, len(positions), positions)
            for doc, posting in docs
            for term, positions in posting.terms.items()
        ]
        _bulk_insert(conn, "idx2_terms", "owner, scope, model, kind, term, doc, tf, pos", rows)

    def _write_sessions(self, conn: psycopg.Connection[Any], sessions: list[str]) -> None:
        """Rewrite the session documents of ``sessions`` (``contexts.rewrite_document``): the
        FTS bodies of their memories in order, as one text; a session left empty goes."""
        if not sessions:
            return
        members: dict[str, list[tuple[str, str | None, str]]] = {s: [] for s in sessions}
        for name, created, session, body in conn.execute(
            f"SELECT name, created, session, body FROM idx2_docs WHERE {_SCOPE} "
            "AND session = ANY(%(sessions)s)",
            self._params(sessions=sessions),
        ):
            members[session].append((name, created, body))
        ids = dict(conn.execute(
            f"SELECT session, id FROM idx2_sessions WHERE {_SCOPE} AND session = ANY(%(s)s)",
            self._params(s=sessions),
        ).fetchall())  # fmt: skip
        if ids:
            conn.execute("DELETE FROM idx2_terms WHERE kind = 's' AND doc = ANY(%s)",
                         (list(ids.values()),))  # fmt: skip
        gone = [s for s in sessions if not members[s] and s in ids]
        if gone:
            conn.execute(f"DELETE FROM idx2_sessions WHERE {_SCOPE} AND session = ANY(%(s)s)",
                         self._params(s=gone))  # fmt: skip
        live = [s for s in sessions if members[s]]
        texts = ["\n".join(body for _, body in session_order(members[s])) for s in live]
        postings = index_text.TOKENIZER.documents([("", t) for t in texts])
        for session, posting in zip(live, postings, strict=True):
            row = conn.execute(
                "INSERT INTO idx2_sessions (owner, scope, model, session, length) VALUES "
                "(%(owner)s, %(scope)s, %(model)s, %(s)s, %(n)s) ON CONFLICT (owner, scope, "
                "model, session) DO UPDATE SET length = excluded.length RETURNING id",
                self._params(s=session, n=posting.length),
            ).fetchone()
            assert row is not None
            ids[session] = row[0]
        self._copy_terms(conn, "s", [(ids[s], p) for s, p in zip(live, postings, strict=True)])

    # -- embedding -----------------------------------------------------------------------
    def _cached(self, conn: psycopg.Connection[Any], hashes: Iterable[str]) -> set[str]:
        """Those of ``hashes`` whose vector this scope holds already: embedded in this sync
        (``idx2_vectors``), or a docs row's own or context vector."""
        return {r[0] for r in conn.execute(
            f"SELECT hash FROM idx2_vectors WHERE {_SCOPE} AND hash = ANY(%(h)s) UNION "
            f"SELECT embed_hash FROM idx2_docs WHERE {_SCOPE} AND vec IS NOT NULL "
            "AND embed_hash = ANY(%(h)s) UNION "
            f"SELECT context_hash FROM idx2_docs WHERE {_SCOPE} AND ctx IS NOT NULL "
            "AND context_hash = ANY(%(h)s)",
            self._params(h=sorted(set(hashes))),
        )}  # fmt: skip

    def _store_vectors(self, conn: psycopg.Connection[Any], items: list[tuple[str, Any]]) -> None:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO idx2_vectors (owner, scope, model, hash, vec) VALUES "
                "(%s, %s, %s, %s, %s) ON CONFLICT (owner, scope, model, hash) "
                "DO UPDATE SET vec = excluded.vec",
                [(self.owner, self.scope, self.model, h, np.asarray(v, np.float32))
                 for h, v in items],
            )  # fmt: skip

    def _encode(self, texts: list[str]) -> tuple[Vectors, list[Vectors] | None]:
        """Passage vectors (and pools, for an embedder that pools) of ``texts``."""
        if self.embedder.pool_id is None:
            return self.embedder.encode(texts, "passage"), None
        vectors, pools = self.embedder.encode_pooled(texts)
        return vectors, list(pools)

    def _embed_own(
        self,
        conn: psycopg.Connection[Any],
        pending: dict[str, str],
        report: SyncReport,
        progress: Progress | None,
    ) -> dict[str, Vectors]:
        """Embed the texts of ``pending`` the cache lacks, in batches; return the pools made."""
        have = self._cached(conn, pending)
        items = [(h, t) for h, t in pending.items() if h not in have]
        pools: dict[str, Vectors] = {}
        step = self.embedder.batch_size
        for start in range(0, len(items), step):
            batch = items[start : start + step]
            vectors, rows = self._encode([t for _, t in batch])
            if rows is not None:
                pools.update((h, r) for (h, _), r in zip(batch, rows, strict=True))
            self._store_vectors(conn, [(h, v) for (h, _), v in zip(batch, vectors, strict=True)])
            report.embedded += len(batch)
            if progress:
                progress(report.embedded, len(items))
        return pools

    def _write_contexts(
        self,
        conn: psycopg.Connection[Any],
        sessions: list[str],
        texts: dict[str, str],
        pools: dict[str, Vectors],
        report: SyncReport,
    ) -> set[str]:
        """Point the memories of ``sessions`` at their context hashes and make the context
        vectors the cache lacks: the window's texts embedded joined, or composed from the
        members' pools for an embedder that pools (``index/contexts.py``). Return the names
        whose context hash moved."""
        if not sessions:
            return set()
        members: dict[str, list[tuple[str, str | None, str]]] = {s: [] for s in sessions}
        before: dict[str, str | None] = {}
        for name, created, session, ehash, chash in conn.execute(
            f"SELECT name, created, session, embed_hash, context_hash FROM idx2_docs "
            f"WHERE {_SCOPE} AND session = ANY(%(sessions)s)",
            self._params(sessions=sessions),
        ):
            members[session].append((name, created, ehash))
            before[name] = chash
        tag = contexts.tag(self.embedder)
        pointed: dict[str, str | None] = {}
        windows: dict[str, contexts.Window] = {}
        for session in sessions:
            for name, (chash, window) in context_hashes(session_order(members[session]),
                                                        tag).items():  # fmt: skip
                pointed[name] = chash
                if chash is not None:
                    windows[chash] = window
        moved = {n for n, c in pointed.items() if before.get(n) != c}
        conn.execute(
            # the old context vector goes with the old hash: a row's vector always belongs to
            # the hash beside it, so any row can lend it (``_cached``, ``_copy_vectors``)
            "UPDATE idx2_docs d SET context_hash = x.c, ctx = NULL FROM unnest(%(n)s::text[], "
            f"%(c)s::text[]) AS x(n, c) WHERE {_scoped('d')} AND d.name = x.n",
            self._params(n=sorted(moved), c=[pointed[n] for n in sorted(moved)]),
        )
        have = self._cached(conn, windows)
        lacking = {c: w for c, w in windows.items() if c not in have}
        if lacking:
            self._make_contexts(conn, lacking, texts, pools, report)
        return moved

    def _make_contexts(
        self,
        conn: psycopg.Connection[Any],
        lacking: dict[str, contexts.Window],
        texts: dict[str, str],
        pools: dict[str, Vectors],
        report: SyncReport,
    ) -> None:
        """Make the context vectors of the windows ``lacking`` (by context hash)."""
        if self.embedder.pool_id is None:
            joined = [(c, "\n".join(texts[h] for _, h in w)) for c, w in lacking.items()
                      if all(h in texts for _, h in w)]  # fmt: skip
            for start in range(0, len(joined), self.embedder.batch_size):
                batch = joined[start : start + self.embedder.batch_size]
                vectors = self.embedder.encode([t for _, t in batch], "passage")
                self._store_vectors(conn, [(c, v) for (c, _), v in zip(batch, vectors,
                                                                       strict=True)])  # fmt: skip
                report.embedded += len(batch)
            return
        need = sorted({h for w in lacking.values() for _, h in w if h not in pools and h in texts})
        for start in range(0, len(need), self.embedder.batch_size):  # pools are not kept
            hashes = need[start : start + self.embedder.batch_size]
            _, rows = self._encode([texts[h] for h in hashes])
            assert rows is not None
            pools.update(zip(hashes, rows, strict=True))
        ready = [(c, w) for c, w in lacking.items() if all(h in pools for _, h in w)]
        for start in range(0, len(ready), contexts.COMPOSE_BATCH):
            chunk = ready[start : start + contexts.COMPOSE_BATCH]
            vectors = self.embedder.compose([np.stack([pools[h] for _, h in w]) for _, w in chunk])
            self._store_vectors(conn, [(c, v) for (c, _), v in zip(chunk, vectors, strict=True)])
            report.composed += len(chunk)

    def _copy_vectors(self, conn: psycopg.Connection[Any], names: list[str]) -> None:
        """Fill the own and context vectors of the docs rows of ``names`` (what the queries
        and the HNSW indexes read): kept where the row has it already, else from the vectors
        this sync embedded, else from another row of the scope with the same text or window.
        A row's vector always belongs to the hash beside it (a new row has none yet, a moved
        window lost its old one), so any row can lend it; a row without a window has none."""

        def lent(col: str, key: str) -> str:
            return (
                f"coalesce(d.{col}, (SELECT v.vec FROM idx2_vectors v WHERE v.owner = d.owner "
                f"AND v.scope = d.scope AND v.model = d.model AND v.hash = d.{key}), "
                f"(SELECT o.{col} FROM idx2_docs o WHERE o.owner = d.owner AND o.scope = "
                f"d.scope AND o.model = d.model AND o.{key} = d.{key} AND o.{col} IS NOT NULL "
                "LIMIT 1))"
            )

        own, ctx = lent("vec", "embed_hash"), lent("ctx", "context_hash")
        conn.execute(
            f"UPDATE idx2_docs d SET vec = {own}, "
            f"ctx = CASE WHEN d.context_hash IS NULL THEN NULL ELSE {ctx} END "
            f"WHERE {_scoped('d')} AND d.name = ANY(%(names)s)",
            self._params(names=names),
        )

    def _keep_vectors(self, conn: psycopg.Connection[Any], ids: list[int]) -> None:
        """Before the docs rows ``ids`` are rewritten: put their vectors in the sync's scratch,
        so a memory whose embedded text (or window) did not change is not embedded again."""
        conn.execute(
            "INSERT INTO idx2_vectors (owner, scope, model, hash, vec) "
            "SELECT owner, scope, model, embed_hash, vec FROM idx2_docs "
            "WHERE id = ANY(%(ids)s) AND vec IS NOT NULL UNION ALL "
            "SELECT owner, scope, model, context_hash, ctx FROM idx2_docs "
            "WHERE id = ANY(%(ids)s) AND ctx IS NOT NULL ON CONFLICT DO NOTHING",
            {"ids": ids},
        )

    def _forget_scratch(self, conn: psycopg.Connection[Any]) -> None:
        """Empty the sync's scratch: every vector in it is in the docs rows now, or unused."""
        conn.execute(f"DELETE FROM idx2_vectors WHERE {_SCOPE}", self._params())

    def _fold(self, conn: psycopg.Connection[Any], folded: int) -> int:
        """Fold the recall log's entries after the first ``folded`` into ``idx2_usage``; return
        how many are folded now. A log shorter than that was replaced: count again."""
        if self.recalls is None:
            return folded
        total, new = self._recalled_after(folded)
        if total < folded:
            conn.execute(
                "DELETE FROM idx2_usage WHERE owner = %(owner)s AND scope = %(scope)s",
                self._params(),
            )
            total, new = self._recalled_after(0)
        uses: dict[str, list[Any]] = {}
        for entry in new:
            when = str(entry.get("time", ""))
            for name in entry.get("returned", []) or []:
                use = uses.setdefault(str(name), [0, when])
                use[0] += 1
                use[1] = max(use[1], when)
        if uses:
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO idx2_usage (owner, scope, name, count, last_used) VALUES "
                    "(%(owner)s, %(scope)s, %(n)s, %(k)s, %(t)s) ON CONFLICT (owner, scope, name) "
                    "DO UPDATE SET count = idx2_usage.count + excluded.count, last_used = "
                    'greatest(idx2_usage.last_used COLLATE "C", excluded.last_used COLLATE "C")',
                    [self._params(n=n, k=k, t=t) for n, (k, t) in uses.items()],
                )
        return total

    def _recalled_after(self, folded: int) -> tuple[int, list[dict[str, Any]]]:
        """(how many entries the recall log holds, those after its first ``folded``); a
        database log reads only the new ones (``PgRecallLog.after``)."""
        assert self.recalls is not None
        if isinstance(self.recalls, PgRecallLog):
            return self.recalls.after(folded)
        entries = self.recalls.entries()
        return len(entries), entries[folded:]

    # -- queries -------------------------------------------------------------------------
    def _loaded(self) -> tuple[dict[str, DocMeta], set[str]]:
        """Every doc's metadata with its use count, and the names with a context vector; kept
        until the index's version moves."""
        with self._lock:
            version = self._version()
            cached = self._cache
            if cached is not None and cached[0] == version:
                return cached[1], cached[2]
            if cached is not None and _rows_of(cached[0]) == _rows_of(version):
                # only the recall log was folded (every recall folds its own entry): the rows
                # are as they were, re-read the use counts alone
                docs = self._with_uses(cached[1])
                self._cache = (version, docs, cached[2])
                return docs, cached[2]
            with self._borrow() as conn, conn.cursor(row_factory=dict_row) as cur:
                rows = cur.execute(
                    "SELECT d.name, type, source, confidence, importance, created, updated, "
                    "tags, related_files, description, session, scripts, u.count, u.last_used, "
                    "d.ctx IS NOT NULL AND d.vec IS NOT NULL AS contextual FROM idx2_docs d "
                    "LEFT JOIN idx2_usage u ON u.owner = d.owner AND u.scope = d.scope "
                    f"AND u.name = d.name WHERE {_scoped('d')} "
                    "ORDER BY d.id",
                    self._params(),
                ).fetchall()
            docs = {r["name"]: doc_meta(r) for r in rows}
            contextual = {r["name"] for r in rows if r["contextual"]}
            self._cache = (version, docs, contextual)
            return docs, contextual

    def _with_uses(self, docs: dict[str, DocMeta]) -> dict[str, DocMeta]:
        """``docs`` with the use counts the database holds now."""
        with self._borrow() as conn:
            uses = {
                str(name): (int(count), last)
                for name, count, last in conn.execute(
                    "SELECT name, count, last_used FROM idx2_usage "
                    "WHERE owner = %(owner)s AND scope = %(scope)s",
                    self._params(),
                )
            }
        out = {}
        for name, meta in docs.items():
            count, last = uses.get(name, (0, None))
            same = meta.uses == count and meta.last_used == last
            out[name] = meta if same else dataclasses.replace(meta, uses=count, last_used=last)
        return out

    def docs(self) -> dict[str, DocMeta]:
        """Every indexed memory's metadata with its use count."""
        return self._loaded()[0]

    def scripts(self) -> frozenset[str]:
        """Every script some indexed memory is written in."""
        return frozenset(s for m in self.docs().values() for s in m.scripts)

    def entities(self) -> dict[str, set[str]]:
        """Lowercased tags, related paths and file names → the memories that carry them."""
        docs = self.docs()
        rows = _rows_of(self._version())  # entities come from the rows, not the use counts
        if self._entities is not None and self._entities[0] == rows:
            return self._entities[1]
        out: dict[str, set[str]] = {}
        for name, meta in docs.items():
            for key in self._views.entity_keys(meta):
                out.setdefault(key, set()).add(name)
        self._entities = (rows, out)
        return out

    def _bm25(self, kind: str, terms: list[str], limit: int) -> dict[str, float]:
        if not terms or limit < 1:
            return {}
        found = index_text.phrases([t for q in terms for t in cjk_bigrams(q).split()])
        if not found:
            return {}
        params = self._params(limit=limit)
        params.update({f"p{i}": list(p) for i, p in enumerate(found)})
        with self._lock, self._borrow() as conn:
            rows = conn.execute(index_text.bm25_sql(kind, [len(p) for p in found]), params)
            return {str(label): float(score) for label, score in rows}

    def keyword(self, terms: list[str], limit: int) -> dict[str, float]:
        """BM25 (as FTS5's ``bm25()`` over the SQLite index) of the best ``limit`` matches."""
        return self._bm25("d", terms, limit)

    def session_keyword(self, terms: list[str], limit: int) -> dict[str, float]:
        """BM25 of the best ``limit`` session documents."""
        return self._bm25("s", terms, limit)

    def _count(self, conn: psycopg.Connection[Any]) -> int:
        row = conn.execute(
            f"SELECT count(*) FROM idx2_docs WHERE {_SCOPE} AND vec IS NOT NULL", self._params()
        ).fetchone()
        return 0 if row is None else int(row[0])

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
        """``ports.Index.nearest``: candidates from the database, ranked as ``SqliteIndex``
        ranks its matrix (``pg/index_vectors.py``)."""
        ann = self._version()[3]
        with self._lock, self._borrow() as conn:
            found, _ = self.candidates.nearest(
                conn, ann, query_vector, k,
                within=within, also=also, context=context, means=means, chinese=chinese,
            )  # fmt: skip
            return found

    def vectors(self, context: float = 0.0) -> tuple[list[str], np.ndarray[Any, Any]]:
        """Names and the matrix of every memory vector for the current embedder, in the order
        the index made them (``SqliteIndex.vectors``' order): what sleep compares pair by pair
        (``lifecycle.plan.SleepIndex``). With ``context`` > 0 a memory with a context vector is
        ``(1 − context)·own + context·context``, as there."""
        with self._lock, self._borrow() as conn:
            rows = conn.execute(
                f"SELECT name, vec, ctx FROM idx2_docs WHERE {_SCOPE} AND vec IS NOT NULL "
                "ORDER BY id",
                self._params(),
                binary=True,
            ).fetchall()
        if not rows:
            return [], np.zeros((0, self.embedder.dim), np.float32)
        matrix = np.stack([own for _, own, _ in rows]).astype(np.float32)
        if context:
            for i, (_, own, ctx) in enumerate(rows):
                if ctx is not None:
                    matrix[i] = (1.0 - context) * own + context * ctx
        return [str(name) for name, _, _ in rows], matrix

    def language_sums(self, context: float = 0.0) -> LanguageSums:
        """Per language (others, Chinese) the sum and count of the (context-mixed) vectors,
        summed in the database."""
        dim = self.embedder.dim
        sums = [np.zeros(dim, np.float32), np.zeros(dim, np.float32)]
        counts = [0, 0]
        with self._lock, self._borrow() as conn:
            rows = conn.execute(
                "SELECT zh, ctx IS NOT NULL AND %(c)s <> 0, count(*), sum(vec), sum(ctx) "
                f"FROM idx2_docs WHERE {_SCOPE} AND vec IS NOT NULL GROUP BY 1, 2",
                self._params(c=float(context)),
                binary=True,
            ).fetchall()
        for zh, mixed, count, own, ctx in rows:
            lang = int(bool(zh))
            counts[lang] += int(count)
            if mixed:
                sums[lang] = sums[lang] + (1.0 - context) * own + context * ctx
            else:
                sums[lang] = sums[lang] + own
        return LanguageSums((sums[0], sums[1]), (counts[0], counts[1]))

    def has_context(self, name: str) -> bool:
        """Whether ``name`` has a context vector (its session neighbours), as of the docs last
        read (recall asks it of every candidate, right after reading them)."""
        cached = self._cache
        return name in (cached[2] if cached is not None else self._loaded()[1])

    def stats(self) -> dict[str, Any]:
        with self._lock, self._borrow() as conn:
            row = conn.execute(
                "SELECT count(*), count(vec), count(DISTINCT context_hash) FROM idx2_docs "
                f"WHERE {_SCOPE}",
                self._params(),
            ).fetchone()
            vectors = conn.execute(  # the distinct embedded texts: the docs hold every vector
                f"SELECT count(DISTINCT embed_hash) FROM idx2_docs WHERE {_SCOPE} "
                "AND vec IS NOT NULL",
                self._params(),
            ).fetchone()
            size = conn.execute(
                "SELECT sum(pg_total_relation_size(c)) FROM unnest(%s::regclass[]) AS c",
                (list(index_schema.TABLES),),
            ).fetchone()
        assert row is not None and vectors is not None and size is not None
        return {
            "docs": int(row[0]),
            "vectors": int(vectors[0]),
            "context_vectors": int(row[2]),
            "pools": 0,
            "embedder": self.embedder.model_id,
            "schema": SCHEMA,
            "bytes": int(size[0] or 0),  # the index tables of every owner
            "path": f"postgresql (owner {self.owner}, scope {self.scope})",
        }

    def verify(self) -> list[str]:
        """Where the rows and the store disagree (empty when in step)."""
        records, _ = self.store.scan()
        with self._lock, self._borrow() as conn:
            rows = dict(conn.execute(
                f"SELECT name, content_hash FROM idx2_docs WHERE {_SCOPE}", self._params()
            ).fetchall())  # fmt: skip
            missing = [r[0] for r in conn.execute(
                f"SELECT name FROM idx2_docs WHERE {_SCOPE} AND vec IS NULL", self._params()
            )]  # fmt: skip
        out = [f"{r.name}: not in the index" for r in records if r.name not in rows]
        out += [f"{r.name}: the index holds an older version" for r in records
                if r.name in rows and rows[r.name] != r.content_hash]  # fmt: skip
        current = {r.name for r in records}
        out += [f"{n}: in the index but not in the store" for n in sorted(set(rows) - current)]
        out += [f"{n}: no vector" for n in sorted(missing)]
        return out
