"""Writing a scope's rows of the SQLite index: a memory's doc and FTS rows, and the vectors
(with a pooling embedder, the pools too) of the texts a sync embeds. ``SqliteIndex`` (sqlite.py)
decides what a sync writes; ``RowWriter`` is how it is written. ``embed_text`` and
``_repeats`` are shared with the PostgreSQL index (``pg/index_rows.py``): both backends index
and embed a memory as the same text.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Container
from dataclasses import dataclass

import numpy as np

from ..errors import BadFileError, NotFoundError
from ..files import FileStore
from ..providers.embeddings import Embedder, Vectors
from ..records import MemoryRecord, utc_iso
from . import contexts
from .text import cjk_bigrams, scripts_of

__all__ = ["Progress", "RowWriter", "SyncReport", "embed_text"]

Progress = Callable[[int, int], None]


def embed_text(record: MemoryRecord) -> str:
    """The text a memory is embedded as: description (unless the statement repeats it),
    statement, why and how to apply."""
    parts = [] if record.description in record.statement else [record.description]
    parts += [record.statement, record.why or "", record.how_to_apply or ""]
    return "\n".join(p for p in parts if p)


@dataclass
class SyncReport:
    """What one ``sync`` did."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    embedded: int = 0
    composed: int = 0  # context vectors composed from pools (no text embedded for them)
    skipped: int = 0  # files that do not parse

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.embedded or self.composed)


def _repeats(description: str, statement: str) -> bool:
    """Whether ``description`` is the start of ``statement`` (whitespace folded, a closing
    ellipsis dropped): the description memdir writes when none is given."""
    short = " ".join(description.split()).removesuffix("…").rstrip()
    return not short or " ".join(statement.split()).startswith(short)


class RowWriter:
    """The row writers of ``SqliteIndex``: what they read of it is declared here."""

    store: FileStore
    embedder: Embedder
    _dropped: set[str]  # hashes the running sync stopped referring to

    def _forget_row(self, db: sqlite3.Connection, name: str) -> None:
        """Delete ``name``'s doc and FTS rows (an FTS5 column cannot be indexed: go by rowid);
        its hashes are noted as dropped."""
        row = db.execute(
            "SELECT rowid, embed_hash, context_hash FROM docs WHERE name=?", (name,)
        ).fetchone()
        if row is not None:
            self._dropped.update(h for h in row[1:] if h)
            db.execute("DELETE FROM fts WHERE rowid=?", (row[0],))
            db.execute("DELETE FROM docs WHERE rowid=?", (row[0],))

    @staticmethod
    def _session_of(db: sqlite3.Connection, name: str) -> str | None:
        row = db.execute("SELECT session FROM docs WHERE name=?", (name,)).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def _text_of(self, name: str) -> str | None:
        try:
            return embed_text(self.store.read(name))
        except (BadFileError, NotFoundError):
            return None

    def _texts_for(self, db: sqlite3.Connection, hashes: set[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, ehash in db.execute("SELECT name, embed_hash FROM docs").fetchall():
            if ehash in hashes and ehash not in out:
                text = self._text_of(name)
                if text is not None:
                    out[ehash] = text
        return out

    def _upsert(
        self, db: sqlite3.Connection, rec: MemoryRecord, st: os.stat_result
    ) -> tuple[str, str]:
        """Write the doc and FTS rows of ``rec``; return (embed hash, embed text)."""
        text = embed_text(rec)
        ehash = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self._forget_row(db, rec.name)
        # a description that only repeats the statement's start (the default one) would count
        # those words twice and favour the start of long memories: index what it adds
        described = "" if _repeats(rec.description, rec.statement) else rec.description
        head = " ".join([rec.name.replace("-", " "), described, *rec.tags])
        body = "\n".join([rec.statement, rec.why or "", rec.how_to_apply or "", *rec.related_files])
        cursor = db.execute(
            "INSERT INTO docs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,NULL)",
            (
                rec.name,
                st.st_size,
                st.st_mtime_ns,
                st.st_ino,
                rec.content_hash,
                ehash,
                rec.type,
                rec.source,
                rec.confidence,
                rec.importance,
                utc_iso(rec.created) or rec.created,
                utc_iso(rec.updated) or rec.updated,
                json.dumps(list(rec.tags), ensure_ascii=False),
                json.dumps(list(rec.related_files), ensure_ascii=False),
                rec.description,
                rec.session,
                # not the file name: a slug may be ASCII for a memory written in Chinese
                " ".join(sorted(scripts_of(" ".join([rec.description, *rec.tags, body])))),
            ),
        )
        db.execute(  # the FTS row shares the doc's rowid: deleting it is a lookup, not a scan
            "INSERT INTO fts(rowid, name, head, body) VALUES (?,?,?,?)",
            (cursor.lastrowid, rec.name, cjk_bigrams(head), cjk_bigrams(body)),
        )
        return ehash, text

    def _embed(
        self,
        db: sqlite3.Connection,
        pending: dict[str, str],
        report: SyncReport,
        progress: Progress | None,
        pools: dict[str, Vectors] | None = None,
        keep: Container[str] = (),
    ) -> None:
        """Embed ``pending`` in batches. With ``pools`` the embedder pools too: every pool is
        added to ``pools``, and those of the hashes in ``keep`` are stored."""
        model, pooled = self.embedder.model_id, contexts.pool_key(self.embedder)
        items = list(pending.items())
        step = self.embedder.batch_size
        for start in range(0, len(items), step):
            batch = items[start : start + step]
            texts = [text for _, text in batch]
            if pools is None:
                vectors = self.embedder.encode(texts, "passage")
            else:
                vectors, rows = self.embedder.encode_pooled(texts)
                pools.update((h, r) for (h, _), r in zip(batch, rows, strict=True))
                db.executemany(
                    "INSERT OR REPLACE INTO pools VALUES (?,?,?)",
                    [(h, pooled, pools[h].astype(np.float32).tobytes()) for h, _ in batch
                     if h in keep],
                )  # fmt: skip
            db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?,?,?)",
                [
                    (h, model, v.astype(np.float32).tobytes())
                    for (h, _), v in zip(batch, vectors, strict=True)
                ],
            )
            report.embedded += len(batch)
            if progress:
                progress(report.embedded, len(items))

    def _embed_pooled(
        self,
        db: sqlite3.Connection,
        pending: dict[str, str],
        lacking: dict[str, str],
        known: dict[str, str],
        report: SyncReport,
        progress: Progress | None,
    ) -> None:
        """Embed ``pending`` and compose the ``lacking`` contexts from their windows' pools. A
        window member without a stored pool (new, further back than a session's last
        memories, or indexed before pools) is encoded once, for its vector and pool together."""
        windows = contexts.missing(db, lacking)
        members = {h: name for window in windows.values() for name, h in window}
        pools = contexts.pools_of(db, self.embedder, set(members))
        todo = dict(pending)
        for h, name in members.items():
            text = None if h in pools or h in todo else known.get(h) or self._text_of(name)
            if text is not None:
                todo[h] = text
        keep = contexts.tails(db, set(lacking.values()))
        stored = set(pools)  # what the table held: those no longer at a session's end go
        self._embed(db, todo, report, progress, pools=pools, keep=keep)
        report.composed += contexts.compose(db, self.embedder, windows, pools)
        contexts.forget_pools(db, contexts.pool_key(self.embedder), (stored | set(todo)) - keep)
