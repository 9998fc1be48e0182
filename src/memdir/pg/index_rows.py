"""What the PostgreSQL index writes for a memory: the same derivations as the SQLite index.

Each function here is the counterpart of a step of ``index/sqlite.py``'s ``_upsert`` and of
``index/contexts.py``, over plain values instead of a SQLite connection, so both indexes derive
the same head and body text, scripts, session documents and context windows from a record."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..index import contexts
from ..index.rows import _repeats, embed_text
from ..index.text import cjk_bigrams, scripts_of
from ..index.views import DocMeta
from ..records import MemoryRecord, utc_iso

__all__ = ["DocRow", "context_hashes", "doc_meta", "doc_row", "session_order"]


@dataclass(frozen=True)
class DocRow:
    """The derived values of one memory, as ``idx2_docs`` holds them."""

    record: MemoryRecord
    embed_text: str
    embed_hash: str
    head: str  # CJK-bigrammed, as the SQLite index's ``fts.head``
    body: str  # CJK-bigrammed, as ``fts.body`` (its session document is made of these)
    scripts: str
    created: str | None
    updated: str | None

    @property
    def chinese(self) -> bool:
        return "cjk" in self.scripts.split()

    def values(self, owner: str, scope: str, model: str, length: int) -> tuple[Any, ...]:
        """The row of ``idx2_docs`` without its id, context and vectors (``COPY`` order)."""
        rec = self.record
        return (
            owner, scope, model, rec.name, rec.content_hash, self.embed_hash, rec.type,
            rec.source, rec.confidence, rec.importance, self.created, self.updated,
            json.dumps(list(rec.tags), ensure_ascii=False),
            json.dumps(list(rec.related_files), ensure_ascii=False),
            rec.description, rec.session, self.scripts, self.chinese, self.body, length,
        )  # fmt: skip


COLUMNS = (
    "owner, scope, model, name, content_hash, embed_hash, type, source, confidence, "
    "importance, created, updated, tags, related_files, description, session, scripts, zh, "
    "body, length"
)


def doc_row(rec: MemoryRecord) -> DocRow:
    """``rec``'s derived values (``SqliteIndex._upsert``)."""
    text = embed_text(rec)
    described = "" if _repeats(rec.description, rec.statement) else rec.description
    head = " ".join([rec.name.replace("-", " "), described, *rec.tags])
    body = "\n".join([rec.statement, rec.why or "", rec.how_to_apply or "", *rec.related_files])
    return DocRow(
        record=rec,
        embed_text=text,
        embed_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        head=cjk_bigrams(head),
        body=cjk_bigrams(body),
        scripts=" ".join(sorted(scripts_of(" ".join([rec.description, *rec.tags, body])))),
        created=utc_iso(rec.created) or rec.created,
        updated=utc_iso(rec.updated) or rec.updated,
    )


def session_order(members: Iterable[tuple[str, str | None, str]]) -> list[tuple[str, str]]:
    """(name, embed hash) of a session's memories given as (name, created, embed hash), in the
    order ``contexts.order_of`` reads them: ``created`` (none first), then name — SQLite's
    binary text order, which is Python's."""
    ordered = sorted(members, key=lambda m: (m[1] is not None, m[1] or "", m[0]))
    return [(name, ehash) for name, _, ehash in ordered]


def context_hashes(
    order: list[tuple[str, str]], tag: str
) -> dict[str, tuple[str | None, contexts.Window]]:
    """Per memory of one session (in ``session_order``): its context hash and window
    (``contexts.point``); ``None`` and no window for a memory alone in its session."""
    out: dict[str, tuple[str | None, contexts.Window]] = {n: (None, []) for n, _ in order}
    for k, window in contexts.windows(order):
        joined = "\n".join([tag, *(h for _, h in window)])
        out[order[k][0]] = (hashlib.sha256(joined.encode("utf-8")).hexdigest(), window)
    return out


def doc_meta(row: Mapping[str, Any]) -> DocMeta:
    """A ``DocMeta`` from a docs row joined with its use count."""
    return DocMeta(
        name=row["name"],
        type=row["type"],
        source=row["source"],
        confidence=row["confidence"],
        importance=row["importance"],
        created=row["created"],
        updated=row["updated"],
        tags=tuple(row["tags"]),
        related_files=tuple(row["related_files"]),
        description=row["description"],
        session=row["session"],
        scripts=tuple(row["scripts"].split()),
        uses=row["count"] or 0,
        last_used=row["last_used"],
    )
