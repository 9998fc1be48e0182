"""The embedding cache's upkeep: which vectors a sync still has to make, and which no memory
refers to any more.

``vectors`` and ``pools`` are keyed by text hash and embedder, not by memory, so they outlive
the memories that made them until a sync forgets them. Each question has a whole-table answer
(every doc checked: after a sync that was cut short, for a new embedder) and one limited to
the hashes a sync wrote or dropped, which is what a sync after a single write needs: at 100k
memories the whole-table queries take ~0.3 s, the limited ones a few milliseconds."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator

__all__ = ["chunked", "forget_unused", "lacking", "lacking_among"]

_KNOWN = "(SELECT embed_hash FROM vectors WHERE model=?)"
_UNUSED = "NOT EXISTS (SELECT 1 FROM docs d WHERE d.{} = t.embed_hash{})"


def chunked(items: Iterable[str], size: int = 300) -> Iterator[list[str]]:
    """``items`` sorted, in lists short enough for one ``IN (…)``."""
    ordered = sorted(items)
    for start in range(0, len(ordered), size):
        yield ordered[start : start + size]


def _marks(part: list[str]) -> str:
    return ",".join("?" * len(part))


def lacking(db: sqlite3.Connection, model: str) -> tuple[set[str], dict[str, str]]:
    """Every embed hash without a vector for ``model``, and {context hash: session} of every
    context without one."""
    missing = {
        r[0]
        for r in db.execute(
            f"SELECT DISTINCT embed_hash FROM docs WHERE embed_hash NOT IN {_KNOWN}", (model,)
        )
    }
    contexts = db.execute(
        "SELECT context_hash, session FROM docs WHERE context_hash IS NOT NULL "
        f"AND context_hash NOT IN {_KNOWN}",
        (model,),
    )
    return missing, dict(contexts.fetchall())


def lacking_among(
    db: sqlite3.Connection, model: str, written: set[str], sessions: set[str]
) -> tuple[set[str], dict[str, str]]:
    """``lacking``, looking only at the embed hashes ``written`` and the contexts of the
    memories of ``sessions``."""
    contexts: dict[str, str] = {}
    for part in chunked(sessions):
        contexts.update(
            db.execute(
                "SELECT context_hash, session FROM docs WHERE context_hash IS NOT NULL AND "
                f"session IN ({_marks(part)}) AND context_hash NOT IN {_KNOWN}",
                (*part, model),
            ).fetchall()
        )
    have: set[str] = set()
    for part in chunked(written):
        rows = db.execute(
            f"SELECT embed_hash FROM vectors WHERE model=? AND embed_hash IN ({_marks(part)})",
            (model, *part),
        )
        have.update(r[0] for r in rows)
    return written - have, contexts


def forget_unused(
    db: sqlite3.Connection, model: str, pooled: str, dropped: set[str] | None
) -> None:
    """Delete ``model``'s vectors that no doc's embed or context hash names, and the pools
    (stored as ``pooled``) that no session memory's embed hash names: among the hashes
    ``dropped``, or (``None``) all — with every pool of an older format of ``model``."""
    if dropped is None:
        db.execute(
            "DELETE FROM vectors WHERE model=? AND embed_hash NOT IN (SELECT embed_hash FROM "
            "docs UNION SELECT context_hash FROM docs WHERE context_hash IS NOT NULL)",
            (model,),
        )
        db.execute(
            "DELETE FROM pools WHERE model=? AND embed_hash NOT IN "
            "(SELECT embed_hash FROM docs WHERE session IS NOT NULL)",
            (pooled,),
        )
        db.execute(  # before pools were keyed by format, they were stored under the model
            "DELETE FROM pools WHERE model != ?2 AND (model = ?1 OR model LIKE ?1 || '|%')",
            (model, pooled),
        )
        return
    for part in chunked(dropped):
        db.execute(
            f"DELETE FROM vectors AS t WHERE model=? AND embed_hash IN ({_marks(part)}) AND "
            f"{_UNUSED.format('embed_hash', '')} AND {_UNUSED.format('context_hash', '')}",
            (model, *part),
        )
        db.execute(
            f"DELETE FROM pools AS t WHERE model=? AND embed_hash IN ({_marks(part)}) AND "
            + _UNUSED.format("embed_hash", " AND d.session IS NOT NULL"),
            (pooled, *part),
        )
