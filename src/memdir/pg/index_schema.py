"""The PostgreSQL index's tables: derived rows only, never the truth (``pg/index.py``).

Every table is named ``idx2_*`` (a new layout gets new names, and the old ones are dropped by
whoever migrates the database — ``schema.py``'s ``0005_drop_idx1`` for ``idx1_*``; the rows are
only derived, and the next sync rebuilds them). Every row carries the ``owner`` and
the ``scope`` it belongs to, and every derived row of a memory also the embedder it was made for
(``model``: ``model_id|pool_id``), so two embedders keep two indexes of one scope side by side.
Row-level security limits every table to ``owner = current_setting('memdir.owner')``, forced
for the tables' owner too, so the app's connection (set per connection by
``set_config('memdir.owner', …, false)``) can neither read nor write another owner's rows.

* ``idx2_state`` — per (owner, scope, model): the store fingerprint the rows were built from, how
  many recall-log entries were folded into use counts.
* ``idx2_docs`` — one row per indexed memory: the metadata recall filters on, the FTS text's
  length in tokens (BM25's document length), its own vector and its context vector (pgvector,
  copied from the embedding cache), whether it is Chinese (centring).
* ``idx2_sessions`` — one row per session document (its memories' bodies as one text).
* ``idx2_terms`` — the postings: (doc, term) → tf and positions (a phrase of several tokens
  matches where they stand next to each other), for memories (``kind`` ``d``) and sessions
  (``s``). BM25 is computed from these in SQL (``pg/index_text.py``). Its two indexes are not
  unique, so B-tree deduplication stores each (scope, term) key once with the list of rows that
  carry it (a unique key ending in ``doc`` repeated the whole key per posting: 2.6 KB of a
  memory's 20 KB in ``idx1``).
* ``idx2_vectors`` — scratch for one sync: the vectors it embedded, by (hash of the embedded
  text, model), until they are copied into ``idx2_docs``; emptied at the sync's end. A vector
  the docs already hold (the same text elsewhere in the scope, the same context window) is
  read from the docs, not embedded again. (``idx1`` kept every vector here a second time:
  6 KB a memory.)
* ``idx2_usage`` — use counts folded from the scope's recall log.

HNSW indexes (cosine) are made per embedder, on ``vec::vector(dim)`` for that model's rows: a
``vector`` column without a dimension cannot be indexed, and one table serves every embedder.
They hold only the rows marked ``ann``: those of scopes past ``index_vectors.EXACT_LIMIT``
memories. A smaller scope (one person's memories) is scored exactly in SQL, which is quicker
than the graph for it, and its writes do not pay for keeping a graph up to date.
"""

from __future__ import annotations

import hashlib

from psycopg import Connection, sql

__all__ = ["TABLES", "ensure_hnsw", "ensure_schema", "hnsw_name"]

TABLES = ("idx2_state", "idx2_docs", "idx2_sessions", "idx2_terms", "idx2_vectors", "idx2_usage")

_DDL = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS idx2_state (
    owner text NOT NULL, scope text NOT NULL, model text NOT NULL,
    fingerprint text, folded bigint NOT NULL DEFAULT 0, generation bigint NOT NULL DEFAULT 0,
    ann boolean NOT NULL DEFAULT false,
    PRIMARY KEY (owner, scope, model)
);
CREATE TABLE IF NOT EXISTS idx2_docs (
    owner text NOT NULL, scope text NOT NULL, model text NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY, name text NOT NULL,
    content_hash text NOT NULL, embed_hash text NOT NULL, context_hash text,
    type text NOT NULL, source text NOT NULL, confidence text NOT NULL, importance integer,
    created text, updated text, tags jsonb NOT NULL, related_files jsonb NOT NULL,
    description text NOT NULL, session text, scripts text NOT NULL, zh boolean NOT NULL,
    body text NOT NULL, length integer NOT NULL, vec vector, ctx vector,
    ann boolean NOT NULL DEFAULT false,
    PRIMARY KEY (owner, scope, model, name), UNIQUE (id)
);
CREATE INDEX IF NOT EXISTS idx2_docs_session ON idx2_docs (owner, scope, model, session);
CREATE TABLE IF NOT EXISTS idx2_sessions (
    owner text NOT NULL, scope text NOT NULL, model text NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY, session text NOT NULL, length integer NOT NULL,
    PRIMARY KEY (owner, scope, model, session), UNIQUE (id)
);
CREATE TABLE IF NOT EXISTS idx2_terms (
    owner text NOT NULL, scope text NOT NULL, model text NOT NULL, kind "char" NOT NULL,
    term text NOT NULL, doc bigint NOT NULL, tf integer NOT NULL, pos integer[] NOT NULL
);
CREATE INDEX IF NOT EXISTS idx2_terms_term ON idx2_terms (owner, scope, model, kind, term);
CREATE INDEX IF NOT EXISTS idx2_terms_doc ON idx2_terms (kind, doc);
CREATE TABLE IF NOT EXISTS idx2_vectors (
    owner text NOT NULL, scope text NOT NULL, model text NOT NULL, hash text NOT NULL,
    vec vector NOT NULL,
    PRIMARY KEY (owner, scope, model, hash)
);
CREATE TABLE IF NOT EXISTS idx2_usage (
    owner text NOT NULL, scope text NOT NULL, name text NOT NULL,
    count integer NOT NULL, last_used text NOT NULL,
    PRIMARY KEY (owner, scope, name)
);
"""

_POLICY = """
ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS idx2_owner ON {table};
CREATE POLICY idx2_owner ON {table}
    USING (owner = current_setting('memdir.owner', true))
    WITH CHECK (owner = current_setting('memdir.owner', true));
"""


def ensure_schema(conn: Connection[tuple[object, ...]]) -> None:
    """Create the tables and their policies if absent (one transaction, serialised across
    processes by an advisory lock so two first connections do not race)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('memdir idx2 schema'))")
        exists = conn.execute("SELECT to_regclass('idx2_usage') IS NOT NULL").fetchone()
        if exists and exists[0]:
            return
        for statement in _DDL.split(";"):
            if statement.strip():
                conn.execute(statement.encode())
        for table in TABLES:
            for statement in _POLICY.format(table=table).split(";"):
                if statement.strip():
                    conn.execute(statement.encode())


def hnsw_name(model: str, column: str) -> str:
    """The name of the HNSW index over ``column`` of ``model``'s rows."""
    return f"idx2_hnsw_{column}_{hashlib.sha256(model.encode()).hexdigest()[:12]}"


def ensure_hnsw(conn: Connection[tuple[object, ...]], model: str, dim: int) -> None:
    """HNSW (cosine) over the own and the context vectors of ``model``'s docs, made once."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('memdir idx2 schema'))")
        for column in ("vec", "ctx"):
            conn.execute(
                sql.SQL(
                    "CREATE INDEX IF NOT EXISTS {name} ON idx2_docs USING hnsw "
                    "(({column}::vector({dim})) vector_cosine_ops) WHERE model = {model} AND ann"
                ).format(
                    name=sql.Identifier(hnsw_name(model, column)),
                    column=sql.Identifier(column),
                    dim=sql.Literal(dim),
                    model=sql.Literal(model),
                )
            )
