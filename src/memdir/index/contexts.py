"""What the index derives from a memory's session: the session document and context vectors.

The *session document* (``session_fts``) is the text of all of a session's memories as one
FTS row, so a query whose words are spread over a conversation finds that conversation.

A *context vector* is a memory of a session embedded between its neighbours.

A turn of a conversation often means little alone ("They were stoked for the dinosaur
exhibit!"); with the turns said just before and after it, it answers "What do Melanie's kids
like?". So a memory that shares its ``session`` with others gets a second vector, of its
*window*: the ``SPAN`` memories learned just before it, itself, and the ``SPAN`` after (in
``created`` order, then name). ``docs.context_hash`` keys it in the vector cache: the hash of the
window's embed hashes and of a tag naming how it was made, so it is made again exactly when a
neighbour's text changes.

It is made one of two ways. An embedder that pools (``Embedder.pool_id``: ``use``) gets a pool
with each memory's own vector and *composes* the window's vector from its members' pools, so no
window text is ever encoded; it keeps (table ``pools``, under ``pool_key``) only those of the
last memories of each session, which an append needs. Any other embedder embeds the window's
texts joined.

These functions work on the index's connection; ``sqlite.py`` decides when to call them.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterator

import numpy as np

from ..providers.embeddings import Embedder, Vectors

__all__ = [
    "SPAN",
    "compose",
    "forget_pools",
    "missing",
    "order_of",
    "point",
    "pool_key",
    "pools_of",
    "tag",
    "tails",
    "texts",
    "windows",
]

SPAN = 1  # neighbours on each side in a memory's window
COMPOSE_BATCH = 1024  # windows composed in one call of the embedder
Window = list[tuple[str, str]]  # (name, embed hash) of its memories, in order


def rewrite_document(db: sqlite3.Connection, session: str) -> None:
    """Rewrite the session document of ``session`` (``session_fts``: its memories' FTS bodies,
    already CJK-bigrammed, in order), or delete it when no memory is left in the session."""
    bodies = [
        r[0]
        for r in db.execute(
            "SELECT f.body FROM docs d JOIN fts f ON f.rowid = d.rowid "
            "WHERE d.session=? ORDER BY d.created, d.name",
            (session,),
        )
    ]
    row = db.execute("SELECT id FROM sessions WHERE session=?", (session,)).fetchone()
    if row is not None:
        db.execute("DELETE FROM session_fts WHERE rowid=?", (row[0],))
    if not bodies:
        db.execute("DELETE FROM sessions WHERE session=?", (session,))
        return
    if row is None:
        row = (db.execute("INSERT INTO sessions(session) VALUES (?)", (session,)).lastrowid,)
    db.execute("INSERT INTO session_fts(rowid, body) VALUES (?, ?)", (row[0], "\n".join(bodies)))


def tag(embedder: Embedder) -> str:
    """Part of every context hash: a composed context is not the embedded one, so an embedder
    that pools and one that does not never share context vectors."""
    return "context" if embedder.pool_id is None else f"context|{embedder.pool_id}"


def order_of(db: sqlite3.Connection, session: str) -> Window:
    """The memories of ``session`` in the order they were learned (``created``, then name for
    memories learned in the same second)."""
    return [(name, ehash) for name, ehash, _ in _rows(db, session)]


def _rows(db: sqlite3.Connection, session: str) -> list[tuple[str, str, str | None]]:
    """(name, embed hash, context hash) of the memories of ``session``, in ``order_of``'s order."""
    return [
        (str(r[0]), str(r[1]), r[2])
        for r in db.execute(
            "SELECT name, embed_hash, context_hash FROM docs WHERE session=? "
            "ORDER BY created, name",
            (session,),
        )
    ]


def windows(order: Window) -> Iterator[tuple[int, Window]]:
    """Each memory of a session with its window; none for a memory alone in its session."""
    if len(order) < 2:
        return
    for k in range(len(order)):
        yield k, order[max(0, k - SPAN) : k + SPAN + 1]


def point(db: sqlite3.Connection, session: str, context_tag: str) -> None:
    """Point each memory of ``session`` at its context hash (``NULL`` when it is alone)."""
    order = order_of(db, session)
    if len(order) == 1:
        db.execute("UPDATE docs SET context_hash=NULL WHERE name=?", (order[0][0],))
    for k, window in windows(order):
        joined = "\n".join([context_tag, *(h for _, h in window)])
        chash = hashlib.sha256(joined.encode("utf-8")).hexdigest()
        db.execute("UPDATE docs SET context_hash=? WHERE name=?", (chash, order[k][0]))


def missing(db: sqlite3.Connection, lacking: dict[str, str]) -> dict[str, Window]:
    """{context hash: its window} for the context vectors ``lacking`` (hash → session)."""
    out: dict[str, Window] = {}
    for session in set(lacking.values()):
        rows = _rows(db, session)
        for k, window in windows([(name, ehash) for name, ehash, _ in rows]):
            chash = rows[k][2]
            if chash is not None and chash in lacking:
                out[chash] = window
    return out


def texts(
    db: sqlite3.Connection,
    lacking: dict[str, str],
    known: dict[str, str],
    text_of: Callable[[str], str | None],
) -> dict[str, str]:
    """{context hash: the window's embed texts joined} for the context vectors ``lacking``, to
    embed. ``known`` holds embed texts at hand (by hash); ``text_of`` reads the others' files."""
    out: dict[str, str] = {}
    for chash, window in missing(db, lacking).items():
        parts = [known.get(h) or text_of(name) for name, h in window]
        if all(parts):
            out[chash] = "\n".join(t for t in parts if t)
    return out


def tails(db: sqlite3.Connection, sessions: set[str]) -> set[str]:
    """Embed hashes of the last ``2·SPAN`` memories of each of ``sessions``: the pools that an
    append to the session composes from. Only these are kept; an edit or delete further back
    encodes the few neighbours it needs again."""
    out: set[str] = set()
    wanted = sorted(sessions)
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        out.update(
            r[0]
            for r in db.execute(
                "SELECT embed_hash FROM (SELECT embed_hash, row_number() OVER (PARTITION BY "
                "session ORDER BY created DESC, name DESC) AS k FROM docs WHERE session IN "
                f"({','.join('?' * len(part))})) WHERE k <= ?",
                (*part, 2 * SPAN),
            )
        )
    return out


def pool_key(embedder: Embedder) -> str:
    """The ``pools.model`` of ``embedder``'s pools: a new pool format never reads old pools."""
    return f"{embedder.model_id}|{embedder.pool_id}"


def forget_pools(db: sqlite3.Connection, model: str, hashes: set[str]) -> None:
    """Delete the pools of ``hashes`` for ``model``."""
    db.executemany(
        "DELETE FROM pools WHERE model=? AND embed_hash=?", [(model, h) for h in sorted(hashes)]
    )


def pools_of(db: sqlite3.Connection, embedder: Embedder, hashes: set[str]) -> dict[str, Vectors]:
    """The stored pools of ``hashes`` for ``embedder``. A damaged pool (the wrong length, or
    one ``embedder.pool_readable`` refuses) is left out, so its text is encoded again."""
    out: dict[str, Vectors] = {}
    wanted = sorted(hashes)
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        marks = ",".join("?" * len(part))
        for h, blob in db.execute(
            f"SELECT embed_hash, pool FROM pools WHERE model=? AND embed_hash IN ({marks})",
            (pool_key(embedder), *part),
        ):
            if len(blob) == 4 * embedder.pool_size:
                pool = np.frombuffer(blob, dtype=np.float32)
                if embedder.pool_readable(pool):
                    out[h] = pool
    return out


def compose(
    db: sqlite3.Connection,
    embedder: Embedder,
    wanted: dict[str, Window],
    pools: dict[str, Vectors],
) -> int:
    """Compose and store the vector of each ``wanted`` window whose pools are all at hand;
    return how many."""
    ready = [(c, w) for c, w in wanted.items() if all(h in pools for _, h in w)]
    for start in range(0, len(ready), COMPOSE_BATCH):
        chunk = ready[start : start + COMPOSE_BATCH]
        vectors = embedder.compose([np.stack([pools[h] for _, h in w]) for _, w in chunk])
        db.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?,?,?)",
            [
                (c, embedder.model_id, v.astype(np.float32).tobytes())
                for (c, _), v in zip(chunk, vectors, strict=True)
            ],
        )
    return len(ready)
