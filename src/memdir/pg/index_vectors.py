"""The PostgreSQL index's vector queries: pgvector picks the candidates, ``index.nearest``'s
arithmetic ranks them, so ``PgIndex.nearest`` answers what ``SqliteIndex.nearest`` answers.

Recall ranks memories by a cosine that is *context-mixed* (a memory of a session is
``(1 − c)·own + c·context``) and, in a bilingual store, *centred* on each side's language mean
(``index.nearest.Centres``). Neither is what an HNSW index orders by, so the database answers in
two steps:

1. **Candidates.** In a scope of up to ``EXACT_LIMIT`` memories (the common case: one person's
   memories) the database computes the whole formula for every row — pgvector inner products
   (``<#>``) combined in SQL — and returns the best ``k + margin``: exact, and only the
   candidates leave the server. Past that, HNSW (``<=>``, cosine) over the own vectors and the
   context vectors gives a generous candidate set (``ANN_FACTOR``·k) around the query, centred
   on the query's language mean when centring.
2. **Rerank.** The candidates' vectors (and those of ``also``) come back and
   ``index.nearest.nearest`` ranks them, exactly as over the SQLite index's matrix. Float32
   sums in a different order differ in the last bits, which the margin absorbs.

Vectors travel in pgvector's binary format (``register_vector``): 4 bytes of header, then
big-endian float32 — no text formatting of floats either way.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Collection, Iterable
from typing import Any

import numpy as np
from psycopg import Connection, sql
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo

from ..index.nearest import Centres, nearest
from ..ports import Near

__all__ = ["ANN_FACTOR", "EXACT_LIMIT", "Candidates", "register_vector"]

EXACT_LIMIT = 20_000  # memories in a scope up to which every row is scored in SQL
ANN_FACTOR = 8  # past it: HNSW candidates per answer wanted (at least ``ANN_MIN``)
ANN_MIN = 200
Means = tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]


class _VectorLoader(Loader):
    format = Format.BINARY

    def load(self, data: Any) -> np.ndarray[Any, Any]:
        raw = bytes(data)
        return np.frombuffer(raw, dtype=">f4", offset=4).astype(np.float32)


def register_vector(conn: Connection[Any]) -> None:
    """Read and write ``vector`` as float32 numpy arrays, in binary, on ``conn``."""
    info = TypeInfo.fetch(conn, "vector")
    if info is None:
        raise RuntimeError("pgvector's vector type is missing: CREATE EXTENSION vector")
    vector_oid = info.oid

    class VectorDumper(Dumper):
        format = Format.BINARY
        oid = vector_oid

        def dump(self, obj: Any) -> bytes:
            vec = np.asarray(obj, dtype=">f4")
            return struct.pack(">HH", vec.shape[0], 0) + vec.tobytes()

    conn.adapters.register_dumper(np.ndarray, VectorDumper)
    conn.adapters.register_loader(info.oid, _VectorLoader)


def _dot(column: str, param: str) -> str:
    """The inner product of a vector column with a vector parameter (``<#>`` is its negative)."""
    return f"(-({column} <#> %({param})s))"


def _mixed(own: str, ctx: str) -> str:
    """A per-row quantity of the context-mixed vector from that of its own and context vector."""
    return f"(CASE WHEN ctx IS NULL THEN {own} ELSE (1 - %(c)s) * {own} + %(c)s * {ctx} END)"


def _score_sql(centred: bool, chinese: bool) -> str:
    """The SQL of each row's (mixed, centred) cosine to the query ``q``, as
    ``index.nearest.Centres.cosines`` computes it from the matrix."""
    plain = _mixed(_dot("vec", "q"), _dot("ctx", "q"))
    if not centred:
        return plain
    own_mean = "(CASE WHEN zh THEN %(m1)s ELSE %(m0)s END)"
    on_own = _mixed(f"(-(vec <#> {own_mean}))", f"(-(ctx <#> {own_mean}))")
    on_query_mean = _mixed(_dot("vec", "m1" if chinese else "m0"),
                           _dot("ctx", "m1" if chinese else "m0"))  # fmt: skip
    square = (
        "(CASE WHEN ctx IS NULL THEN (-(vec <#> vec)) ELSE (1 - %(c)s) ^ 2 * (-(vec <#> vec)) "
        "+ 2 * %(c)s * (1 - %(c)s) * (-(vec <#> ctx)) + %(c)s ^ 2 * (-(ctx <#> ctx)) END)"
    )
    q_on = "(CASE WHEN zh THEN %(qm1)s ELSE %(qm0)s END)"
    cross = "(CASE WHEN zh THEN %(xm1)s ELSE %(xm0)s END)"
    mm = "(CASE WHEN zh THEN %(mm1)s ELSE %(mm0)s END)"
    dot = f"({plain} - {q_on} - {on_query_mean} + {cross})"
    norm = f"sqrt(greatest({square} - 2 * {on_own} + {mm}, 1e-12))"
    return f"({dot} / (%(qnorm)s * {norm}))"


class Candidates:
    """``nearest`` for one scope's rows of one model (``PgIndex.nearest``)."""

    def __init__(self, owner: str, scope: str, model: str, dim: int) -> None:
        self.owner, self.scope, self.model, self.dim = owner, scope, model, dim
        self.exact_limit = EXACT_LIMIT

    def _where(self) -> str:
        return "owner = %(owner)s AND scope = %(scope)s AND model = %(model)s AND vec IS NOT NULL"

    def nearest(
        self,
        conn: Connection[Any],
        ann: bool,
        query_vector: np.ndarray[Any, Any],
        k: int,
        *,
        within: Collection[str] | None,
        also: Iterable[str],
        context: float,
        means: Means | None,
        chinese: bool,
    ) -> tuple[dict[str, Near], set[str]]:
        """The answer of ``ports.Index.nearest`` and the names among its rows that have a
        context vector. ``ann``: the scope's rows are in the HNSW indexes (it holds more than
        ``exact_limit`` memories)."""
        if k < 1:
            return {}, set()
        q = np.asarray(query_vector, dtype=np.float32)
        also = [n for n in also]
        params: dict[str, Any] = {
            "owner": self.owner, "scope": self.scope, "model": self.model, "q": q,
            "c": float(context), "also": also,
        }  # fmt: skip
        small_within = within is not None and len(within) <= self.exact_limit
        if small_within or not ann:
            rows = self._exact(conn, params, k, within, means, chinese)
            names = [r[0] for r in rows]
        else:
            if within is not None:  # a large ``within``: filtered during the graph walk
                params["within"] = list(within)
            rows, names = [], self._ann(conn, params, k, means, chinese)
        have = {r[0] for r in rows}
        wanted = [n for n in names if n not in have] + [n for n in also if n not in have]
        if wanted:
            rows += conn.execute(
                f"SELECT name, vec, ctx, zh, id FROM idx2_docs WHERE {self._where()} "
                "AND name = ANY(%(names)s)",
                {**params, "names": wanted},
                binary=True,
            ).fetchall()
        rows.sort(key=lambda r: r[4])  # the matrix's row order: the docs' (SqliteIndex: rowid)
        return self._rank(rows, q, k, within, also, context, means, chinese)

    def _exact(
        self,
        conn: Connection[Any],
        params: dict[str, Any],
        k: int,
        within: Collection[str] | None,
        means: Means | None,
        chinese: bool,
    ) -> list[tuple[Any, ...]]:
        """The rows (name, vec, ctx, zh, id) of the best ``k`` + a margin by the whole formula,
        computed in SQL for every row."""
        if means is not None:
            params.update(_centring(params["q"], means, chinese))
        limit = 2 * k + 16
        where = self._where()
        if within is not None:
            where += " AND name = ANY(%(within)s)"
            params["within"] = list(within)
        query = (
            f"SELECT name, vec, ctx, zh, id FROM idx2_docs WHERE {where} "
            f"ORDER BY {_score_sql(means is not None, chinese)} DESC, id LIMIT {limit}"
        )
        return conn.execute(query, params, binary=True).fetchall()

    def _ann(
        self,
        conn: Connection[Any],
        params: dict[str, Any],
        k: int,
        means: Means | None,
        chinese: bool,
    ) -> list[str]:
        """A generous HNSW candidate set: the nearest own vectors and context vectors to the
        query (centred on its language's mean when centring)."""
        wanted = max(ANN_FACTOR * k, ANN_MIN)
        direction = params["q"] if means is None else params["q"] - means[int(chinese)]
        direction = (direction / max(float(np.linalg.norm(direction)), 1e-12)).astype(np.float32)
        names: list[str] = []
        with conn.transaction():
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            conn.execute(f"SET LOCAL hnsw.ef_search = {min(max(wanted, 40), 1000)}")
            columns = ("vec", "ctx") if params["c"] else ("vec",)
            for column in columns:
                query = sql.SQL(
                    "SELECT name FROM idx2_docs WHERE owner = %(owner)s AND scope = %(scope)s "
                    "AND model = {model} AND ann AND {col} IS NOT NULL {within}"
                    "ORDER BY {col}::vector({dim}) <=> %(d)s::vector({dim}) LIMIT {n}"
                ).format(
                    model=sql.Literal(self.model),  # a literal: the partial index's predicate
                    within=sql.SQL("AND name = ANY(%(within)s) " if "within" in params else ""),
                    col=sql.Identifier(column),
                    dim=sql.Literal(self.dim),
                    n=sql.Literal(wanted),
                )
                names += [r[0] for r in conn.execute(query, {**params, "d": direction})]
        return list(dict.fromkeys(names))

    def _rank(
        self,
        rows: list[tuple[Any, ...]],
        q: np.ndarray[Any, Any],
        k: int,
        within: Collection[str] | None,
        also: list[str],
        context: float,
        means: Means | None,
        chinese: bool,
    ) -> tuple[dict[str, Near], set[str]]:
        """``index.nearest.nearest`` over the candidates' matrix, built as ``views.Matrix``
        builds it."""
        names = [r[0] for r in rows]
        contextual = {r[0] for r in rows if r[2] is not None}
        if not rows:
            return {}, contextual
        matrix = np.stack([r[1] for r in rows]).astype(np.float32)
        if context:
            for i, r in enumerate(rows):
                if r[2] is not None:
                    matrix[i] = (1.0 - context) * r[1] + context * r[2]
        centres = None
        if means is not None:
            centres = Centres.of(matrix, np.array([bool(r[3]) for r in rows]), means)
        found = nearest(
            names, matrix, {n: i for i, n in enumerate(names)}, q, k,
            within=within, also=also, centres=centres, chinese=chinese,
        )  # fmt: skip
        return found, contextual


def _centring(q: np.ndarray[Any, Any], means: Means, chinese: bool) -> dict[str, Any]:
    """The query-side constants of the centred cosine (``Centres.cosines``)."""
    m0, m1 = (np.asarray(m, dtype=np.float32) for m in means)
    mq = m1 if chinese else m0
    q_norm = math.sqrt(max(float(q @ q) - 2 * float(q @ mq) + float(mq @ mq), 1e-12))
    return {
        "m0": m0, "m1": m1,
        "qm0": float(q @ m0), "qm1": float(q @ m1),
        "xm0": float(mq @ m0), "xm1": float(mq @ m1),
        "mm0": float(m0 @ m0), "mm1": float(m1 @ m1),
        "qnorm": q_norm,
    }  # fmt: skip
