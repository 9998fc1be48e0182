"""Many users on one PostgreSQL: PgIndex's write throughput, recall latency per user, index size.

    nice -n 10 .venv/bin/python bench/scale_pg.py [--users 1000] [--per-user 1000]
        [--workers 4] [--queries 200] [--file-n 100000]

Each user is one scope of ``--per-user`` synthetic memories (``bench/search_at_scale.py``'s
vocabulary, sessions of 20 turns, one day apart) held by an in-memory ``Store`` of the bench's
own (``Synthetic``: what PgIndex and recall read of a store — a fingerprint, the records), so
the run measures the index, not a store. ``--workers`` processes sync disjoint users into one
database (the write throughput: memories/s, tokenizing, embedding, postings and vectors
included); then ``--queries`` recalls (``Recaller``, the default formula, ``track=False``) of
random users, each user's first query warm-up excluded, give p50/p95; the index tables' size is
``pg_total_relation_size``. The embedder is the 512-dimensional hashing embedder (the dimension
of the default ``use`` model, so vector work costs the same; the real model's query encode is
``bench/search_at_scale.py``'s separate measurement). ``--file-n`` memories in one file-backend
scope (``SqliteIndex``) are measured the same way beside it. Writes
``bench/results/scale_pg.md``.
"""

from __future__ import annotations

import argparse
import hashlib
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
from memdir.pg.index import PgIndex
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
    """An in-memory scope of ``n`` memories (only what PgIndex and recall read of a Store)."""

    def __init__(self, user: int, n: int) -> None:
        rng = random.Random(user)
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


def _sync_users(job: tuple[str, list[int], int]) -> int:
    dsn, users, n = job
    embedder = HashingEmbedder(dim=512)
    for user in users:
        index = PgIndex(dsn, Synthetic(user, n), embedder, owner=f"u{user}", scope="user")  # type: ignore[arg-type]
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


def run_pg(users: int, per_user: int, workers: int, queries: int) -> dict[str, Any]:
    with postgres() as dsn:
        t = time.perf_counter()
        jobs = [(dsn, part, per_user) for part in _chunks(list(range(users)), workers)]
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            total = sum(pool.map(_sync_users, jobs))
        write_s = time.perf_counter() - t
        rng = random.Random(11)
        embedder = HashingEmbedder(dim=512)
        times = []
        for _ in range(queries):
            user = rng.randrange(users)
            store = Synthetic(user, per_user)
            index = PgIndex(dsn, store, embedder, owner=f"u{user}", scope="user")  # type: ignore[arg-type]
            recaller = Recaller({"user": index}, embedder, stores={"user": store}, logs={})  # type: ignore[dict-item]
            recaller.recall(text(rng)[:40], top_k=5, track=False)  # the user's warm-up
            q = " ".join(rng.choice(VOCAB) for _ in range(5))
            t = time.perf_counter()
            recaller.recall(q, top_k=5, track=False)
            times.append(1000 * (time.perf_counter() - t))
            index.close()
        times.sort()
        import psycopg

        with psycopg.connect(dsn) as conn:
            size = conn.execute(
                "SELECT sum(pg_total_relation_size(c::regclass)) FROM unnest(ARRAY['idx1_docs',"
                "'idx1_terms','idx1_vectors','idx1_sessions','idx1_state','idx1_usage']) AS c"
            ).fetchone()
    return {
        "backend": f"PostgreSQL, {users:,} users × {per_user:,}",
        "memories": total,
        "write_per_s": total / write_s,
        "write_s": write_s,
        "p50": statistics.median(times),
        "p95": times[int(0.95 * (len(times) - 1))],
        "mb": (size[0] if size else 0) / 2**20,
    }


def run_file(n: int, queries: int) -> dict[str, Any]:
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="memdir-scale-"))
    (root / "p/.agent").mkdir(parents=True)
    m = Memory(home=root / "h", project=root / "p", embedder=HashingEmbedder(dim=512))
    rng = random.Random(5)
    t = time.perf_counter()
    m.remember_many([{"text": text(rng), "type": "project"} for _ in range(n)])
    m.reindex()
    write_s = time.perf_counter() - t
    m.recall("warm up", track=False)
    qs = [" ".join(rng.choice(VOCAB) for _ in range(5)) for _ in range(queries)]
    p50, p95 = _latencies(lambda q: m.recall(q, top_k=5, track=False), qs)
    size = sum(p.stat().st_size for p in root.rglob("index.sqlite*"))
    shutil.rmtree(root, ignore_errors=True)
    return {
        "backend": f"file, 1 scope × {n:,}",
        "memories": n,
        "write_per_s": n / write_s,
        "write_s": write_s,
        "p50": p50,
        "p95": p95,
        "mb": size / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--per-user", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--file-n", type=int, default=100_000)
    args = parser.parse_args()
    started = provenance(["bench/scale_pg.py", *sys.argv[1:]])  # the commit the run is of
    rows = [run_pg(args.users, args.per_user, args.workers, args.queries)]
    print(rows[-1], flush=True)
    if args.file_n:
        rows.append(run_file(args.file_n, args.queries))
        print(rows[-1], flush=True)
    lines = [
        "# PgIndex at scale: many users on one PostgreSQL",
        "",
        *started,
        f"- load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"- embedder: hashing, 512 dimensions; {args.workers} sync workers; recall top_k=5",
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
    text_out = "\n".join(lines) + "\n"
    print(text_out)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "scale_pg.md").write_text(text_out, encoding="utf-8")


if __name__ == "__main__":
    main()
