"""Many users on one PostgreSQL: PgIndex's write throughput, recall latency per user, index size.

    nice -n 10 .venv/bin/python bench/scale_pg.py [--users 1000] [--per-user 1000]
        [--written 24] [--workers 4] [--seeders 2] [--distinct 100] [--queries 200]
        [--file-n 100000]

Each user is one scope of ``--per-user`` synthetic memories (``bench/search_at_scale.py``'s
vocabulary, sessions of 20 turns, one day apart) held by an in-memory ``Store`` of the bench's
own (``Synthetic``: what PgIndex and recall read of a store — a fingerprint, the records), so
the run measures the index, not a store. All users but the last ``--written`` are seeded in bulk
by ``--seeders`` processes: binary ``COPY`` of the rows a first ``PgIndex.sync`` writes (what an
import does; the postings' indexes built after, as ``pg_restore`` does), and three seeded users
are checked row for row against a twin built by ``sync()``. With ``--distinct N`` user ``u``
holds the texts of user ``u mod N`` (its own scope, rows and ids), so each content is embedded
once. Then ``--workers`` processes write the last ``--written`` users through ``sync`` on top
(the write throughput: memories/s, tokenizing, embedding, postings and vectors included); then
``--queries`` recalls (``Recaller``, the default formula, ``track=False``) of random users,
each user's first query warm-up excluded, give p50/p95; sizes per relation are
``pg_relation_size`` and its TOAST table's. The embedder is the 512-dimensional hashing
embedder (the dimension of the default ``use`` model, so vector work costs the same; the real
model's query encode is ``bench/search_at_scale.py``'s separate measurement). ``--file-n``
memories in one file-backend scope (``SqliteIndex``) are measured the same way beside it.
Writes ``bench/results/scale_pg.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).parent))

from pg_parity import postgres
from provenance import provenance

from memdir import Memory
from memdir.errors import NotFoundError
from memdir.index import contexts
from memdir.pg import index_schema, index_text
from memdir.pg.index import PgIndex
from memdir.pg.index_rows import COLUMNS, DocRow, context_hashes, doc_row, session_order
from memdir.pg.index_vectors import register_vector
from memdir.providers.embeddings import HashingEmbedder
from memdir.recall import Recaller
from memdir.records import MemoryRecord

RESULTS = Path(__file__).parent / "results"
SYLLABLES = ["ka", "lo", "mi", "ne", "pu", "ra", "si", "to", "vu", "ze", "ba", "de"]
STEMS = ["ron", "las", "mit", "gor", "bel", "tus", "vin", "dra", "kel", "pon", "sar", "fen"]
ENDINGS = ["", "er", "ing", "ly", "ness", "ist", "ance", "ity", "ous", "ful", "ment", "ize"]
VOCAB = [a + b + c for a in SYLLABLES for b in STEMS for c in ENDINGS]
SESSION = 20


def text(rng: random.Random) -> str:
    return " ".join(rng.choice(VOCAB) for _ in range(rng.randint(8, 30)))


class Synthetic:
    """An in-memory scope of ``n`` memories (only what PgIndex and recall read of a Store).
    With ``distinct``, user ``u`` holds the texts of user ``u % distinct`` (its own scope,
    owner and fingerprint still): the bulk seed then embeds and tokenizes each content once."""

    def __init__(self, user: int, n: int, distinct: int = 0) -> None:
        rng = random.Random(user % distinct if distinct else user)  # the content it holds
        start = datetime(2024, 1, 1, tzinfo=UTC)
        self.records: dict[str, MemoryRecord] = {}
        for k in range(n):
            statement = text(rng)
            name = f"m{k:06d}"
            created = (start + timedelta(days=k // SESSION, seconds=k % SESSION)).strftime(
                "%Y-%m-%dT%H:%M:%SZ"
            )
            self.records[name] = MemoryRecord(
                name=name, scope="user", type="project", description=statement[:60],
                statement=statement, why=None, how_to_apply=None, source="user",
                confidence="medium", created=created, updated=None, importance=None, tags=(),
                related_files=(), quote=None, session=f"s{k // SESSION}", body=statement,
                path=Path(f"/synthetic/{user}/{name}.md"),
                content_hash=hashlib.sha256(statement.encode()).hexdigest(),
            )  # fmt: skip
        self._fingerprint = f"synthetic:{user}:{n}"

    def fingerprint(self) -> str:
        return self._fingerprint

    def scan(self) -> tuple[list[MemoryRecord], list[Any]]:
        return list(self.records.values()), []

    def read(self, name: str) -> MemoryRecord:
        if name not in self.records:
            raise NotFoundError(f"no memory named {name!r}")
        return self.records[name]


DOC_COPY = f"id, {COLUMNS}, context_hash, vec, ctx"
DOC_TYPES = [
    "bigint", "text", "text", "text", "text", "text", "text", "text", "text", "text", "integer",
    "text", "text", "jsonb", "jsonb", "text", "text", "text", "boolean", "text", "integer",
    "text", "vector", "vector",
]  # fmt: skip
TERM_COPY = "owner, scope, model, kind, term, doc, tf, pos"


def _ids(conn: Any, sequence: str, n: int) -> list[int]:
    return [r[0] for r in conn.execute(
        "SELECT nextval(%s) FROM generate_series(1, %s)", (sequence, n))]  # fmt: skip


class Prepared:
    """One content's index rows as a first ``PgIndex.sync`` of an empty scope derives them
    (``_sync_docs``: the same derivations from ``pg/index_rows.py``, the same tokenizer, the
    same embedder, the same context windows), ready to be written for any owner."""

    def __init__(self, store: Synthetic, embedder: HashingEmbedder) -> None:
        records, _ = store.scan()
        self.model = f"{embedder.model_id}|{embedder.pool_id}"
        self.docs = [doc_row(rec) for rec in records]
        self.postings = index_text.TOKENIZER.documents([(d.head, d.body) for d in self.docs])
        texts = {d.embed_hash: d.embed_text for d in self.docs}
        hashes = list(texts)
        vectors = embedder.encode([texts[h] for h in hashes], "passage")
        self.own = dict(zip(hashes, vectors, strict=True))
        by_session: dict[str, list[DocRow]] = {}
        for d in self.docs:
            if d.record.session:
                by_session.setdefault(d.record.session, []).append(d)
        tag = contexts.tag(embedder)
        self.pointed: dict[str, str | None] = {}
        windows: dict[str, contexts.Window] = {}
        for members in by_session.values():
            order = session_order((d.record.name, d.created, d.embed_hash) for d in members)
            for name, (chash, window) in context_hashes(order, tag).items():
                self.pointed[name] = chash
                if chash is not None:
                    windows[chash] = window
        chashes = list(windows)
        joined = ["\n".join(texts[h] for _, h in windows[c]) for c in chashes]
        self.ctx = dict(zip(chashes, embedder.encode(joined, "passage"), strict=True))
        self.sessions = sorted(by_session)
        bodies = [
            "\n".join(body for _, body in session_order(
                (d.record.name, d.created, d.body) for d in by_session[s]))
            for s in self.sessions
        ]  # fmt: skip
        self.session_postings = index_text.TOKENIZER.documents([("", t) for t in bodies])

    def write(self, conn: Any, owner: str, scope: str, fingerprint: str) -> None:
        """The rows, by binary ``COPY`` straight into the tables — what a bulk import would do
        (the admin role bypasses row-level security, which ``COPY FROM`` needs), in one
        transaction with the state row a sync leaves."""
        model = self.model
        ids = _ids(conn, "idx2_docs_id_seq", len(self.docs))
        session_ids = _ids(conn, "idx2_sessions_id_seq", len(self.sessions))
        with conn.transaction(), conn.cursor() as cur:
            with cur.copy(f"COPY idx2_docs ({DOC_COPY}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(DOC_TYPES)
                for i, d, p in zip(ids, self.docs, self.postings, strict=True):
                    chash = self.pointed.get(d.record.name)
                    row = list(d.values(owner, scope, model, p.length))
                    row[12:14] = json.loads(row[12]), json.loads(row[13])  # jsonb, in binary
                    copy.write_row((i, *row, chash, self.own[d.embed_hash],
                                    self.ctx[chash] if chash else None))  # fmt: skip
            with cur.copy(
                "COPY idx2_sessions (id, owner, scope, model, session, length) FROM STDIN "
                "(FORMAT BINARY)"
            ) as copy:
                copy.set_types(["bigint", "text", "text", "text", "text", "integer"])
                for i, s, p in zip(session_ids, self.sessions, self.session_postings, strict=True):
                    copy.write_row((i, owner, scope, model, s, p.length))
            with cur.copy(f"COPY idx2_terms ({TERM_COPY}) FROM STDIN") as copy:
                keyed = [("d", ids, self.postings), ("s", session_ids, self.session_postings)]
                for kind, numbers, postings in keyed:
                    for doc, posting in zip(numbers, postings, strict=True):
                        for term, positions in posting.terms.items():
                            copy.write_row((owner, scope, model, kind, term, doc,
                                            len(positions), positions))  # fmt: skip
            cur.execute(
                "INSERT INTO idx2_state (owner, scope, model, fingerprint, folded, generation, "
                "ann) VALUES (%s, %s, %s, %s, 0, 1, false)",
                (owner, scope, model, fingerprint),
            )


def _seed_users(job: tuple[str, list[int], int, int]) -> int:
    """Seed ``users`` in bulk; users holding the same content (``distinct``) one after another,
    so each content is derived once."""
    import psycopg
    from psycopg.types import TypeInfo

    dsn, users, n, distinct = job
    embedder = HashingEmbedder(dim=512)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET synchronous_commit = off")
        info = TypeInfo.fetch(conn, "vector")
        assert info is not None
        info.register(conn)
        register_vector(conn)
        prepared: tuple[int, Prepared] | None = None
        for user in sorted(users, key=lambda u: (u % distinct if distinct else u, u)):
            content = user % distinct if distinct else user
            store = Synthetic(user, n, distinct)
            if prepared is None or prepared[0] != content:
                prepared = (content, Prepared(store, embedder))
            prepared[1].write(conn, f"u{user}", "user", store.fingerprint())
    return len(users) * n


_COMPARED = {
    "docs": "SELECT name, content_hash, embed_hash, context_hash, type, source, confidence, "
    "importance, created, updated, tags::text, related_files::text, description, session, "
    "scripts, zh, body, length, vec::text, ctx::text, ann FROM idx2_docs WHERE owner = %s "
    "ORDER BY name",  # not by id: a sync's ids need not follow the store's order (see below)
    "terms": "SELECT t.kind, t.term, coalesce(d.name, s.session), t.tf, t.pos FROM idx2_terms t "
    "LEFT JOIN idx2_docs d ON t.kind = 'd' AND d.id = t.doc LEFT JOIN idx2_sessions s "
    "ON t.kind = 's' AND s.id = t.doc WHERE t.owner = %s ORDER BY 1, 2, 3",
    "sessions": "SELECT session, length FROM idx2_sessions WHERE owner = %s ORDER BY session",
    "state": "SELECT scope, model, fingerprint, folded, generation, ann FROM idx2_state "
    "WHERE owner = %s",
}


def check_bulk(dsn: str, users: list[int], n: int, distinct: int = 0) -> list[str]:
    """For each of ``users`` (seeded in bulk): a ``PgIndex`` over its store finds nothing to
    sync; every row (docs with their vectors, postings, sessions, state) equals a twin's built
    by ``sync()`` from the same store; and both answer the same BM25 and nearest queries. The
    differences found (empty: none)."""
    import psycopg

    embedder = HashingEmbedder(dim=512)
    rng = random.Random(3)
    out = []
    for user in users:
        store = Synthetic(user, n, distinct)
        seeded = PgIndex(dsn, store, embedder, owner=f"u{user}", scope="user")  # type: ignore[arg-type]
        twin = PgIndex(dsn, store, embedder, owner=f"twin{user}", scope="user")  # type: ignore[arg-type]
        report = seeded.sync()
        if report.added or report.updated or report.removed or report.embedded:
            out.append(f"u{user}: a sync after the bulk seed rewrote rows: {report}")
        twin.sync()
        with psycopg.connect(dsn) as conn:
            for table, query in _COMPARED.items():
                mine = conn.execute(query, (f"u{user}",)).fetchall()
                theirs = conn.execute(query, (f"twin{user}",)).fetchall()
                if mine != theirs or not mine:
                    out.append(f"u{user}: {table} rows differ from a synced twin's")
        if seeded.docs() != twin.docs() or seeded.verify():
            out.append(f"u{user}: docs differ from a synced twin's")
        for _ in range(20):
            words = [rng.choice(VOCAB) for _ in range(3)]
            q = embedder.encode([" ".join(words)], "query")[0]
            # compared as name → score: equal scores may come in either order, for a sync's
            # ids (the tie-break) follow where ``INSERT … SELECT`` put the rows, not the store
            pairs = [
                (seeded.keyword(words, 20), twin.keyword(words, 20)),
                (seeded.session_keyword(words, 20), twin.session_keyword(words, 20)),
            ]
            for a, b in pairs:
                if set(a) != set(b) or any(abs(a[k] - b[k]) > 1e-9 for k in a):
                    out.append(f"u{user}: BM25 of {words} differs")
            near = seeded.nearest(q, 10, context=0.35), twin.nearest(q, 10, context=0.35)
            if {k: round(v.cosine, 6) for k, v in near[0].items()} != {
                k: round(v.cosine, 6) for k, v in near[1].items()
            }:
                out.append(f"u{user}: nearest of {words} differs")
        twin.drop()
    return out


def _sync_users(job: tuple[str, list[int], int, int]) -> int:
    dsn, users, n, distinct = job
    embedder = HashingEmbedder(dim=512)
    for user in users:
        index = PgIndex(dsn, Synthetic(user, n, distinct), embedder, owner=f"u{user}", scope="user")  # type: ignore[arg-type]
        index.sync()
        index.close()
    return len(users) * n


def _chunks(items: list[int], parts: int) -> Iterator[list[int]]:
    for k in range(parts):
        yield items[k::parts]


def _latencies(recall: Any, queries: list[str]) -> tuple[float, float]:
    times = []
    for q in queries:
        t = time.perf_counter()
        recall(q)
        times.append(1000 * (time.perf_counter() - t))
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def _pool_map(fn: Any, jobs: list[Any], processes: int) -> int:
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        return sum(pool.map(fn, jobs))


def _sizes(conn: Any) -> list[tuple[str, str, int, int]]:
    """(relation, kind, bytes of its own, bytes of its TOAST table and that table's index) of
    every index table and index, largest first."""
    rows = conn.execute(
        "SELECT c.relname, CASE c.relkind WHEN 'r' THEN 'table' ELSE 'index' END, "
        "pg_relation_size(c.oid), coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0)"
        " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relname LIKE 'idx2%%' AND c.relkind IN ('r', 'i') "
        "ORDER BY pg_total_relation_size(c.oid) DESC"
    ).fetchall()
    return [(str(a), str(b), int(c), int(d)) for a, b, c, d in rows]


def run_pg(
    users: int,
    per_user: int,
    workers: int,
    seeders: int,
    written: int,
    queries: int,
    distinct: int,
) -> dict[str, Any]:
    """Seed ``users - written`` users in bulk, then ``written`` users through ``PgIndex.sync``
    by ``workers`` processes (the write throughput), then time recalls; sizes at the end."""
    import psycopg

    out: dict[str, Any] = {}
    embedder = HashingEmbedder(dim=512)
    with postgres() as dsn:
        first = PgIndex(dsn, Synthetic(-1, 1), embedder, owner="schema", scope="user")  # type: ignore[arg-type]
        first.sync()  # the tables, the policies and the HNSW indexes, as any first use
        first.drop()
        seeded = list(range(users - written))
        with psycopg.connect(dsn, autocommit=True) as conn:
            # a bulk load as pg_restore does it: the postings' indexes built once at the end
            defs = [r[0] for r in conn.execute(
                "SELECT indexdef FROM pg_indexes WHERE tablename = 'idx2_terms'")]  # fmt: skip
            for name in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = "
                                     "'idx2_terms'").fetchall():  # fmt: skip
                conn.execute(f"DROP INDEX {name[0]}")
            t = time.perf_counter()
            contents = [[u for u in seeded if (u % distinct if distinct else u) % seeders == k]
                        for k in range(seeders)]  # one content's users in one process  # fmt: skip
            jobs = [(dsn, part, per_user, distinct) for part in contents]
            out["seeded"] = _pool_map(_seed_users, jobs, seeders)
            out["seed_s"] = time.perf_counter() - t
            print(f"seeded {out['seeded']:,} in {out['seed_s']:.0f} s", flush=True)
            t = time.perf_counter()
            conn.execute("SET maintenance_work_mem = '512MB'")
            for statement in defs:
                conn.execute(statement)
            conn.execute("ANALYZE")
            out["index_s"] = time.perf_counter() - t
            print(f"postings' indexes and ANALYZE in {out['index_s']:.0f} s", flush=True)
        rng = random.Random(7)
        out["checked"] = sorted(rng.sample(seeded, min(3, len(seeded))))
        out["problems"] = check_bulk(dsn, out["checked"], per_user, distinct)
        print(f"bulk check of users {out['checked']}: {out['problems'] or 'identical'}", flush=True)
        t = time.perf_counter()
        jobs = [
            (dsn, part, per_user, distinct)
            for part in _chunks(list(range(users - written, users)), workers)
        ]
        out["written"] = _pool_map(_sync_users, jobs, workers)
        out["write_s"] = time.perf_counter() - t
        print(f"{workers} workers synced {out['written']:,} in {out['write_s']:.0f} s", flush=True)
        rng = random.Random(11)
        times = []
        for _ in range(queries):
            user = rng.randrange(users)
            store = Synthetic(user, per_user, distinct)
            index = PgIndex(dsn, store, embedder, owner=f"u{user}", scope="user")  # type: ignore[arg-type]
            recaller = Recaller({"user": index}, embedder, stores={"user": store}, logs={})  # type: ignore[dict-item]
            recaller.recall(text(rng)[:40], top_k=5, track=False)  # the user's warm-up
            q = " ".join(rng.choice(VOCAB) for _ in range(5))
            t = time.perf_counter()
            recaller.recall(q, top_k=5, track=False)
            times.append(1000 * (time.perf_counter() - t))
            index.close()
        times.sort()
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("VACUUM idx2_vectors")  # the scratch's dead rows, as autovacuum would
            out["sizes"] = _sizes(conn)
            row = conn.execute(
                "SELECT sum(pg_total_relation_size(c)) FROM unnest(%s::regclass[]) AS c",
                (list(index_schema.TABLES),),
            ).fetchone()
            out["bytes"] = int(row[0]) if row else 0
            row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
            out["database_bytes"] = int(row[0]) if row else 0
    total = out["seeded"] + out["written"]
    out["row"] = {
        "backend": f"PostgreSQL, {users:,} users × {per_user:,}",
        "memories": total,
        "write_per_s": out["written"] / out["write_s"],
        "write_s": out["write_s"],
        "p50": statistics.median(times),
        "p95": times[int(0.95 * (len(times) - 1))],
        "mb": out["bytes"] / 2**20,
    }
    return out


def run_file(n: int, queries: int, written: int) -> dict[str, Any]:
    """One file-backend scope of ``n`` memories: all but ``written`` placed as files (what a
    copied or cloned store is: the bytes ``new_memory`` writes, no change log) and indexed by
    one ``reindex`` (timed: the index build rate); then ``written`` more through
    ``remember_many`` (timed: the write rate, fsyncs, change log and index sync included);
    then the recalls."""
    import shutil
    import tempfile

    from memdir.files.core import new_memory

    root = Path(tempfile.mkdtemp(prefix="memdir-scale-"))
    (root / "p/.agent").mkdir(parents=True)
    m = Memory(home=root / "h", project=root / "p", embedder=HashingEmbedder(dim=512))
    rng = random.Random(5)
    folder = root / "p/.agent/memory"
    folder.mkdir(parents=True, exist_ok=True)
    seeded = max(0, n - written)
    t = time.perf_counter()
    for i in range(seeded):
        statement = text(rng)
        data, _ = new_memory(f"s{i:07d}", {"description": statement[:80], "type": "project"},
                             statement, None, None)  # fmt: skip
        (folder / f"s{i:07d}.md").write_bytes(data)
    place_s = time.perf_counter() - t
    t = time.perf_counter()
    m.reindex()
    index_s = time.perf_counter() - t
    t = time.perf_counter()
    m.remember_many([{"text": text(rng), "type": "project"} for _ in range(n - seeded)])
    m.recall("warm up", track=False)  # the written ones indexed
    write_s = time.perf_counter() - t
    qs = [" ".join(rng.choice(VOCAB) for _ in range(5)) for _ in range(queries)]
    p50, p95 = _latencies(lambda q: m.recall(q, top_k=5, track=False), qs)
    size = sum(p.stat().st_size for p in root.rglob("index.sqlite*"))
    shutil.rmtree(root, ignore_errors=True)
    return {
        "backend": f"file, 1 scope × {n:,}",
        "memories": n,
        "write_per_s": (n - seeded) / write_s,
        "write_s": write_s,
        "p50": p50,
        "p95": p95,
        "mb": size / 2**20,
        "note": (
            f"file: {seeded:,} memories placed as files in {place_s:.0f} s and indexed by one "
            f"`reindex` in {index_s:.0f} s ({seeded / max(index_s, 1e-9):.0f} /s); then "
            f"{n - seeded:,} written through `remember_many` on top: the write rate below"
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--per-user", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=4, help="processes of the write test")
    parser.add_argument(
        "--written", type=int, default=24, help="users (of --users) the workers write by sync()"
    )
    parser.add_argument("--seeders", type=int, default=2, help="processes of the bulk seed")
    parser.add_argument(
        "--distinct", type=int, default=0, help="contents: user u holds u %% N's (0: all differ)"
    )
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--file-n", type=int, default=100_000)
    parser.add_argument(
        "--file-written", type=int, default=2000, help="of --file-n, written by remember_many"
    )
    parser.add_argument("--out", default="scale_pg.md", help="results file under bench/results")
    args = parser.parse_args()
    written = max(1, min(args.written, args.users - 1))
    started = provenance(["bench/scale_pg.py", *sys.argv[1:]])  # the commit the run is of
    pg = run_pg(args.users, args.per_user, args.workers, args.seeders, written, args.queries,
                args.distinct)  # fmt: skip
    rows = [pg["row"]]
    print(rows[-1], flush=True)
    if args.file_n:
        rows.append(run_file(args.file_n, args.queries, args.file_written))
        print(rows[-1], flush=True)
    total = pg["row"]["memories"]
    lines = [
        "# PgIndex at scale: many users on one PostgreSQL",
        "",
        *started,
        f"- load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"- embedder: hashing, 512 dimensions; recall top_k=5, {args.queries} recalls of random "
        "users (each user's first recall excluded)",
        f"- PostgreSQL: {pg['seeded']:,} memories ({args.users - written:,} users) seeded in "
        f"bulk by {args.seeders} processes (binary `COPY`, the rows a first sync writes) in "
        f"{pg['seed_s']:.0f} s ({pg['seeded'] / pg['seed_s']:.0f} /s), postings' indexes built "
        f"after in {pg['index_s']:.0f} s; then {pg['written']:,} memories ({written} users) "
        f"written through `PgIndex.sync` by {args.workers} worker processes on top: the write "
        "rate below",
        (
            f"- {args.distinct} distinct contents: user u holds the synthetic texts of user "
            f"u mod {args.distinct} in a scope, rows and ids of its own"
            if args.distinct
            else "- every user's texts its own"
        ),
        f"- bulk rows checked against a synced twin (users {pg['checked']}: every docs, "
        "postings, sessions and state row, BM25 and nearest answers): "
        + ("identical" if not pg["problems"] else "; ".join(pg["problems"][:5])),
        *(f"- {r['note']}" for r in rows if "note" in r),
        "",
        "| backend | memories | write /s (index built) | write s | recall p50 ms | p95 ms | "
        "index MB |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['backend']} | {r['memories']:,} | {r['write_per_s']:.0f} | "
            f"{r['write_s']:.0f} | {r['p50']:.1f} | {r['p95']:.1f} | {r['mb']:.0f} |"
        )
    lines += [
        "",
        f"PostgreSQL index relations at the end ({total:,} memories; database "
        f"{pg['database_bytes'] / 2**30:.2f} GiB in all):",
        "",
        "| relation | kind | MB | TOAST MB | bytes / memory |",
        "|---|---|---|---|---|",
    ]
    for name, kind, own, toast in pg["sizes"]:
        if own + toast >= 2**20:
            lines.append(
                f"| {name} | {kind} | {own / 2**20:.0f} | {toast / 2**20:.0f} | "
                f"{(own + toast) / total:,.0f} |"
            )
    lines.append(
        f"| all index tables | | {pg['bytes'] / 2**20:.0f} | | {pg['bytes'] / total:,.0f} |"
    )
    text_out = "\n".join(lines) + "\n"
    print(text_out)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / args.out).write_text(text_out, encoding="utf-8")


if __name__ == "__main__":
    main()
