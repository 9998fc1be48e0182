"""Keywords in PostgreSQL with the SQLite index's exact BM25 (``index/sqlite.py``'s FTS5).

The SQLite index hands FTS5 CJK-bigrammed text (``index.text.cjk_bigrams``) to the tokenizer
``porter unicode61 remove_diacritics 2`` and ranks with ``bm25()``. To score the same, this side
must see the same tokens, so it asks the same tokenizer: ``Tokenizer`` keeps an in-memory SQLite
FTS5 table with that tokenizer and reads each text's tokens and positions back through
``fts5vocab`` (stdlib ``sqlite3``; nothing is re-implemented, so a stemming rule or a Unicode
category cannot drift). The postings go to ``idx2_terms``; ``bm25_sql`` is FTS5's formula over
them::

    idf(p)   = ln((N − n(p) + 0.5) / (n(p) + 0.5)), or 1e-6 where that is ≤ 0
    score(d) = Σ_p idf(p) · f(p,d)·(k1 + 1) / (f(p,d) + k1·(1 − b + b·|d| / avgdl))

with k1 = 1.2, b = 0.75, N the documents, n(p) those where phrase p occurs, f its occurrences
(FTS5 weighs each by its column's weight: 1 for every column the index ranks on), |d| the
document's tokens and avgdl their mean. Each quoted query term is one FTS5 phrase, kept once
per occurrence in the query as FTS5 does; a phrase of several tokens (``caroline's`` →
``carolin s``) occurs where its tokens stand next to each other in one column.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from psycopg import sql

__all__ = ["COLUMN_GAP", "TOKENIZER", "Postings", "Tokenizer", "bm25_sql", "phrases"]

TOKENIZE = "porter unicode61 remove_diacritics 2"  # as index/sqlite.py's fts tables
COLUMN_GAP = 1 << 24  # position offset of a document's second column: no phrase spans columns
K1, B = 1.2, 0.75


@dataclass(frozen=True)
class Postings:
    """One document's tokens: its length and, per term, its positions (ascending)."""

    length: int
    terms: dict[str, list[int]]


class Tokenizer:
    """FTS5's tokenizer, run by SQLite on a scratch in-memory table."""

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._db.execute(f"CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize = '{TOKENIZE}')")
        self._db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        self._lock = threading.Lock()  # one scratch table: one text batch at a time

    def documents(self, texts: Sequence[tuple[str, str]]) -> list[Postings]:
        """The postings of each (first column, second column) text pair."""
        with self._lock:
            return self._documents(texts)

    def _documents(self, texts: Sequence[tuple[str, str]]) -> list[Postings]:
        db = self._db
        out = [Postings(0, {}) for _ in texts]
        db.execute("BEGIN")
        try:
            db.executemany(
                "INSERT INTO t(rowid, a, b) VALUES (?, ?, ?)",
                [(i + 1, a, b) for i, (a, b) in enumerate(texts)],
            )
            lengths = [0] * len(texts)
            for term, doc, col, offset in db.execute("SELECT term, doc, col, offset FROM v"):
                k = doc - 1
                out[k].terms.setdefault(term, []).append(offset + (COLUMN_GAP if col == "b" else 0))
                lengths[k] += 1
        finally:
            db.execute("ROLLBACK")
        for k, posting in enumerate(out):
            for positions in posting.terms.values():
                positions.sort()
            out[k] = Postings(lengths[k], posting.terms)
        return out


TOKENIZER = Tokenizer()  # one per process: it holds nothing but the tokenizer


@lru_cache(maxsize=8192)
def _phrase(text: str) -> tuple[str, ...]:
    """The tokens of one query phrase, in order."""
    posting = TOKENIZER.documents([("", text)])[0]
    placed = sorted((p, term) for term, ps in posting.terms.items() for p in ps)
    return tuple(term for _, term in placed)


def phrases(terms: Sequence[str]) -> list[tuple[str, ...]]:
    """The FTS5 phrases of quoted ``terms`` (each already split as the SQLite index splits
    them), one per term, empty ones (punctuation only) left out: they match nothing."""
    return [p for p in map(_phrase, terms) if p]


def bm25_sql(kind: str, sizes: Sequence[int]) -> sql.Composed:
    """The BM25 query of phrases of ``sizes`` tokens over documents of ``kind`` (``d``:
    memories in ``idx2_docs``, labelled by name; ``s``: sessions in ``idx2_sessions``).
    Parameters: owner, scope, model (the documents), ``p<i>`` each phrase's tokens as a text
    array, the limit. The best ``limit`` documents by score, ties by age (the older row
    first)."""
    table, label = ("idx2_docs", "name") if kind == "d" else ("idx2_sessions", "session")
    scope = "owner = %(owner)s AND scope = %(scope)s AND model = %(model)s"
    parts = []
    for i, size in enumerate(sizes):
        if size == 1:  # a one-token phrase occurs as often as its token
            parts.append(
                sql.SQL(
                    "SELECT {i} AS i, t.doc, t.tf::float8 AS f FROM idx2_terms t "
                    "WHERE t.{scope_t} AND t.kind = {kind} AND t.term = (%(p{i})s::text[])[1]"
                ).format(
                    i=sql.Literal(i),
                    kind=sql.Literal(kind),
                    scope_t=sql.SQL(scope.replace(" AND ", " AND t.")),
                )
            )
            continue
        # occurrences of phrase i: where its first token stands, each next token follows
        parts.append(
            sql.SQL(
                "SELECT {i} AS i, t.doc, count(*)::float8 AS f FROM idx2_terms t "
                "CROSS JOIN LATERAL unnest(t.pos) AS x(p) "
                "WHERE t.{scope_t} AND t.kind = {kind} AND t.term = (%(p{i})s::text[])[1] "
                "AND NOT EXISTS ("
                "SELECT 1 FROM generate_subscripts(%(p{i})s::text[], 1) AS j(k) WHERE k > 1 "
                "AND NOT EXISTS (SELECT 1 FROM idx2_terms u WHERE u.{scope_u} "
                "AND u.kind = {kind} AND u.term = (%(p{i})s::text[])[k] AND u.doc = t.doc "
                "AND x.p + k - 1 = ANY(u.pos))) GROUP BY t.doc"
            ).format(
                i=sql.Literal(i),
                kind=sql.Literal(kind),
                scope_t=sql.SQL(scope.replace(" AND ", " AND t.")),
                scope_u=sql.SQL(scope.replace(" AND ", " AND u.")),
            )
        )
    return sql.SQL(
        "WITH stats AS (SELECT count(*)::float8 AS n, "
        "coalesce(sum(length), 0)::float8 / greatest(count(*), 1) AS avgdl "
        "FROM {table} WHERE {scope}), "
        "hits AS ({hits}), "
        "idf AS (SELECT h.i, ln((s.n - count(*) + 0.5) / (count(*) + 0.5)) AS raw "
        "FROM hits h CROSS JOIN stats s GROUP BY h.i, s.n), "
        "scored AS (SELECT h.doc, sum(CASE WHEN idf.raw <= 0 THEN 1e-6 ELSE idf.raw END "
        "* ((h.f * {k1p}) / (h.f + {k1} * (1 - {b} + {b} * d.length / s.avgdl)))) AS score "
        "FROM hits h JOIN idf ON idf.i = h.i JOIN {table} d ON d.id = h.doc "
        "CROSS JOIN stats s GROUP BY h.doc) "
        "SELECT d.{label}, sc.score FROM scored sc JOIN {table} d ON d.id = sc.doc "
        "ORDER BY sc.score DESC, d.id LIMIT %(limit)s"
    ).format(
        table=sql.Identifier(table),
        label=sql.Identifier(label),
        scope=sql.SQL(scope),
        hits=sql.SQL(" UNION ALL ").join(parts),
        k1p=sql.Literal(K1 + 1.0),
        k1=sql.Literal(K1),
        b=sql.Literal(B),
    )
