"""PgIndex (``memdir.pg.index``) against SqliteIndex over the same store: the same answers.

One ``FileStore`` is indexed twice — by the file backend's SQLite index and by the PostgreSQL
index on a real server (``tests/pgserver.py``) — and every query recall asks is compared:
keyword and session BM25 to 1e-6, the nearest names and cosines (plain, context-mixed, centred,
``within``, ``also``), docs, entities, scripts, use counts; after creates, updates, deletes and
renames; and a hand-written ``SELECT`` as the app's role sees only its owner's rows. The index
contract suite (``tests/contract/test_contract_index.py``) runs here once more with PgIndex as
the index of a file store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from tests.contract.contract_ports import Ports
from tests.contract.test_contract_index import (  # noqa: F401  (the contract, run on PgIndex)
    filled,
    test_an_empty_index_answers_nothing,
    test_drop_then_sync_rebuilds,
    test_entities,
    test_generation_moves_with_the_store,
    test_has_context_marks_memories_of_a_session,
    test_keyword_and_session_keyword,
    test_language_sums_and_centred_nearest,
    test_nearest_is_exhaustive_and_ordered,
    test_nearest_k_within_and_also,
    test_sync_and_docs,
)
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from memdir import Memory
from memdir.backends import FileBackend
from memdir.files import FileStore
from memdir.files.recall_log import FileRecallLog
from memdir.index.sqlite import SqliteIndex
from memdir.index.text import query_terms
from memdir.pg.index import PgIndex
from memdir.ports import Index, Store
from memdir.providers.embeddings import Embedder, get_embedder

MEMORIES: list[dict[str, Any]] = [
    {
        "name": "cafe",
        "statement": "Caroline's café serves naïve e-mail coffee",
        "session": "s1",
        "created": "2023-05-01T10:00:00Z",
        "tags": ["cafe"],
    },
    {
        "name": "deploy",
        "statement": "The deploy script lives in ops/deploy.sh",
        "session": "s1",
        "created": "2023-05-01T10:00:01Z",
        "tags": ["ops"],
        "related_files": ["ops/deploy.sh"],
    },
    {
        "name": "tea-db",
        "statement": "用户喜欢喝绿茶，数据库是 PostgreSQL",
        "type": "user",
        "session": "s2",
        "created": "2023-05-02T09:00:00Z",
    },
    {
        "name": "releases",
        "statement": "Releases are tagged every Friday afternoon after the tests run",
    },
    {
        "name": "caroline-runs",
        "statement": "Caroline runs every Friday morning before work",
        "session": "s2",
        "created": "2023-05-02T09:00:05Z",
    },
    {
        "name": "backup",
        "statement": "我们的数据库每天凌晨备份一次",
        "session": "s3",
        "created": "2023-06-01T08:00:00Z",
    },
    {
        "name": "dinosaurs",
        "statement": "Melanie's kids were stoked for the dinosaur exhibit",
        "session": "s3",
        "created": "2023-06-01T08:00:01Z",
    },
    {
        "name": "rate-limit",
        "statement": "The API rate limit is 100 requests per minute per key",
        "tags": ["api"],
    },
    {
        "name": "adoption",
        "statement": "Caroline's adoption agency interview is on Friday",
        "session": "s3",
        "created": "2023-06-01T08:00:02Z",
        "why": "She asked to be reminded",
    },
    {
        "name": "migrations",
        "statement": "Run the migrations with `memdir db migrate` before deploying",
        "how_to_apply": "Always before a deploy",
        "tags": ["ops", "db"],
    },
    {
        "name": "tea-coffee",
        "statement": "绿茶和咖啡都可以，但是下午不要喝咖啡",
        "type": "user",
    },
    {
        "name": "secrets",
        "statement": "Don't commit secrets; the CI rejects files named .env",
        "tags": ["ci"],
    },
]

QUERIES = [
    "What does Caroline's café serve?",
    "where is the deploy script",
    "数据库什么时候备份",
    "用户喜欢喝什么茶",
    "Friday",
    "What do Melanie's kids like?",
    "api rate limit requests",
    "don't commit secrets",
    "the the the",
    "e-mail coffee naive",
    "绿茶 coffee",
]


def _add(store: FileStore, memory: dict[str, Any]) -> str:
    meta = {"description": memory["statement"][:60], "type": "project", "source": "user"}
    body = ("name", "statement", "why", "how_to_apply")
    meta.update({k: v for k, v in memory.items() if k not in body})
    record, _ = store.create(
        meta, statement=memory["statement"], why=memory.get("why"),
        how_to_apply=memory.get("how_to_apply"), actor="test", name=memory.get("name"),
    )  # fmt: skip
    return record.name


@pytest.fixture
def store(sandbox: Path) -> FileStore:
    m = Memory()
    m.init()
    store = m.store("project")
    for memory in MEMORIES:
        _add(store, memory)
    return store


@pytest.fixture
def embedder() -> Embedder:
    return get_embedder("hashing")


@pytest.fixture
def pair(store: FileStore, embedder: Embedder, pg_dsn: str) -> Iterator[tuple[Index, PgIndex]]:  # noqa: F811
    sqlite = SqliteIndex(store, embedder)
    pg = PgIndex(pg_dsn, store, embedder, owner="alice", scope="project")
    pg.recalls = FileRecallLog(store)  # what SqliteIndex folds use counts from
    sqlite.sync()
    pg.sync()
    yield sqlite, pg
    sqlite.close()
    pg.close()


def _terms() -> list[list[str]]:
    raw = [["caroline's"], ["deploy", "deploy"], ['"quoted" AND OR NOT *'], ["绿茶", "数据库"]]
    return [query_terms(q) for q in QUERIES] + raw


def _same_scores(a: dict[str, float], b: dict[str, float]) -> None:
    assert set(a) == set(b)
    for name in a:
        assert b[name] == pytest.approx(a[name], rel=1e-6, abs=1e-9)


def _same_near(a: dict[str, Any], b: dict[str, Any]) -> None:
    """The same names with the same cosines — but for exact ties at the last place (the
    hashing embedder gives many memories a cosine of exactly 0), which either may keep."""
    only_a = sorted(a[n].cosine for n in set(a) - set(b))
    only_b = sorted(b[n].cosine for n in set(b) - set(a))
    assert only_a == pytest.approx(only_b, abs=1e-6)  # swapped ties only
    for name in set(a) & set(b):
        assert b[name].cosine == pytest.approx(a[name].cosine, abs=1e-5)
        assert b[name].plain == pytest.approx(a[name].plain, abs=1e-5)


def _means(index: Index, context: float) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    sums = index.language_sums(context)
    return (sums.sums[0] / sums.counts[0], sums.sums[1] / sums.counts[1])


def _assert_same(sqlite: Index, pg: PgIndex, embedder: Embedder) -> None:
    """Every answer recall reads is the same from both indexes."""
    assert pg.docs() == sqlite.docs()
    assert pg.entities() == sqlite.entities()
    assert pg.scripts() == sqlite.scripts()
    assert pg.verify() == []
    for terms in _terms():
        _same_scores(sqlite.keyword(terms, 50), pg.keyword(terms, 50))
        _same_scores(sqlite.session_keyword(terms, 50), pg.session_keyword(terms, 50))
    names = sorted(sqlite.docs())
    for query in QUERIES:
        qvec = embedder.encode([query], "query")[0]
        chinese = any("\u4e00" <= ch <= "\u9fff" for ch in query)
        for context in (0.0, 0.35):
            means = _means(sqlite, context) if "cjk" in sqlite.scripts() else None
            for centre in (None, means):
                for k in (1, 3, 50):
                    args = {"context": context, "means": centre, "chinese": chinese}
                    _same_near(sqlite.nearest(qvec, k, **args), pg.nearest(qvec, k, **args))
                within = set(names[::2])
                also = [names[1], names[3], "unknown"]
                args = {"context": context, "means": centre, "chinese": chinese, "also": also}
                _same_near(
                    sqlite.nearest(qvec, 3, within=within, **args),
                    pg.nearest(qvec, 3, within=within, **args),
                )
    for n in names:
        assert pg.has_context(n) == sqlite.has_context(n)


def test_the_same_answers_as_the_sqlite_index(
    pair: tuple[Index, PgIndex], embedder: Embedder
) -> None:
    sqlite, pg = pair
    _assert_same(sqlite, pg, embedder)
    for context in (0.0, 0.35):
        a, b = sqlite.language_sums(context), pg.language_sums(context)
        assert a.counts == b.counts == (9, 3)  # 用户…PostgreSQL: Chinese and Latin
        for x, y in zip(a.sums, b.sums, strict=True):
            assert np.allclose(x, y, atol=1e-5)


def test_keyword_scores_are_fts5s_bm25_to_the_sixth_digit(pair: tuple[Index, PgIndex]) -> None:
    sqlite, pg = pair
    terms = query_terms("What does Caroline's café serve?")
    mine, theirs = pg.keyword(terms, 10), sqlite.keyword(terms, 10)
    assert list(mine) == list(theirs)  # the same order
    assert max(abs(mine[n] - theirs[n]) for n in mine) < 1e-6
    terms = ["caroline's"]  # a phrase of two tokens: "carolin" followed by "s"
    assert set(pg.keyword(terms, 10)) == {n for n in sqlite.keyword(terms, 10)}
    assert len(pg.keyword(terms, 10)) == 2  # not "Caroline runs" (no "s" right after)
    assert pg.keyword(["deploy", "deploy"], 5)["deploy"] == (
        pytest.approx(2 * pg.keyword(["deploy"], 5)["deploy"])
    )  # FTS5 counts a repeated phrase twice


def test_sync_follows_creates_updates_deletes_and_renames(
    pair: tuple[Index, PgIndex], store: FileStore, embedder: Embedder
) -> None:
    sqlite, pg = pair
    before = pg.generation()
    _add(store, {"name": "melanie-paints", "statement": "Melanie paints sunsets by the lake",
                 "session": "s3", "created": "2023-06-01T08:00:03Z"})  # fmt: skip
    store.update(
        "melanie-paints",
        {"statement": "Melanie paints sunrises by the lake", "description": "sunrises"},
        actor="test",
    )  # fmt: skip
    store.delete("releases", actor="test")
    store.rename("caroline-runs", "caroline-jogs", actor="test")
    for index in (sqlite, pg):
        index.sync()
    assert pg.generation() != before
    assert "caroline-jogs" in pg.docs() and "melanie-paints" in pg.docs()
    assert list(pg.keyword(["sunrises"], 5)) == ["melanie-paints"]
    assert pg.keyword(["sunsets"], 5) == {}
    _assert_same(sqlite, pg, embedder)
    after = pg.generation()
    report = pg.sync()
    assert not report.changed and pg.generation() == after


def test_a_rewrite_that_keeps_the_texts_embeds_nothing(
    pair: tuple[Index, PgIndex],
    store: FileStore,
    embedder: Embedder,
    pg_dsn: str,  # noqa: F811
) -> None:
    """The docs rows hold the only copy of the vectors (``idx2_vectors`` is a sync's scratch):
    a memory rewritten with the same embedded text, in a session, keeps its own and context
    vectors without embedding either again, and the scratch is empty after."""
    sqlite, pg = pair
    store.update("dinosaurs", {"confidence": "tentative", "tags": ["kids"]}, actor="test")
    sqlite.sync()
    report = pg.sync()
    assert report.updated == 1 and report.embedded == 0 and report.composed == 0
    _assert_same(sqlite, pg, embedder)
    with psycopg.connect(pg_dsn) as admin:
        assert admin.execute("SELECT count(*) FROM idx2_vectors").fetchone() == (0,)


def test_a_hand_edit_of_a_file_is_picked_up(
    pair: tuple[Index, PgIndex], store: FileStore, embedder: Embedder
) -> None:
    sqlite, pg = pair
    path = store.dirs.memory / "rate-limit.md"
    path.write_text(path.read_text().replace("100 requests", "250 calls"))
    for index in (sqlite, pg):
        index.sync()
    assert pg.keyword(["calls"], 5) and not pg.keyword(["requests"], 5)
    _assert_same(sqlite, pg, embedder)


def test_use_counts_are_folded_from_the_recall_log(
    pair: tuple[Index, PgIndex], store: FileStore
) -> None:
    sqlite, pg = pair
    log = FileRecallLog(store)
    some = sorted(sqlite.docs())[:3]
    assert all(pg.docs()[n].uses == 0 for n in some)  # read before: only the counts move next
    log.append({"time": "2024-01-01T00:00:00Z", "returned": some})
    log.append({"time": "2024-02-01T00:00:00Z", "returned": some[:1]})
    for index in (sqlite, pg):
        index.sync()
    assert pg.docs()[some[0]].uses == 2 and pg.docs()[some[0]].last_used == "2024-02-01T00:00:00Z"
    assert pg.docs() == sqlite.docs()
    log.append({"time": "2024-03-01T00:00:00Z", "returned": some[1:2]})  # one more fold
    for index in (sqlite, pg):
        index.sync()
    assert pg.docs()[some[1]].uses == 2 and pg.docs() == sqlite.docs()


def test_drop_forgets_this_scope_only(
    store: FileStore,
    embedder: Embedder,
    pg_dsn: str,  # noqa: F811
) -> None:
    mine = PgIndex(pg_dsn, store, embedder, owner="alice", scope="project")
    other = PgIndex(pg_dsn, store, embedder, owner="alice", scope="user")
    mine.sync()
    other.sync()
    mine.drop()
    with psycopg.connect(pg_dsn) as conn:
        conn.execute("SELECT set_config('memdir.owner', 'alice', false)")
        scopes = {r[0] for r in conn.execute("SELECT DISTINCT scope FROM idx2_docs")}
    assert scopes == {"user"}
    mine.sync()
    assert len(mine.docs()) == len(MEMORIES)


def test_row_level_security_keeps_owners_apart(
    store: FileStore,
    embedder: Embedder,
    pg_dsn: str,  # noqa: F811
) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute("CREATE EXTENSION IF NOT EXISTS vector")
        admin.execute("DROP ROLE IF EXISTS memdir_app")
        admin.execute("CREATE ROLE memdir_app LOGIN NOSUPERUSER NOBYPASSRLS")
        admin.execute("GRANT CREATE, USAGE ON SCHEMA public TO memdir_app")
    app = make_conninfo(pg_dsn, user="memdir_app")
    try:
        alice = PgIndex(app, store, embedder, owner="alice", scope="project")
        alice.sync()
        bob_store = Memory(home=store.dirs.memory.parent / "bob").store("user")
        _add(bob_store, {"name": "keys", "statement": "Bob keeps his keys in the blue bowl"})
        bob = PgIndex(app, bob_store, embedder, owner="bob", scope="user")
        bob.sync()
        assert set(bob.docs()) == {"keys"}
        with psycopg.connect(app, autocommit=True) as conn:
            conn.execute("SELECT set_config('memdir.owner', 'alice', false)")
            owners = {r[0] for r in conn.execute("SELECT owner FROM idx2_docs")}
            assert owners == {"alice"}  # the table's own role, and still only alice's rows
            for table in ("idx2_terms", "idx2_sessions", "idx2_state"):
                seen = conn.execute(f"SELECT DISTINCT owner FROM {table}").fetchall()
                assert seen == [("alice",)]
            # a sync's scratch of vectors is empty between syncs: the docs rows hold them
            assert conn.execute("SELECT count(*) FROM idx2_vectors").fetchone() == (0,)
            bowl = conn.execute("SELECT count(*) FROM idx2_terms WHERE term = 'bowl'").fetchone()
            assert bowl == (0,)
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("UPDATE idx2_docs SET owner = 'bob'")  # cannot hand rows over
            conn.execute("SELECT set_config('memdir.owner', '', false)")
            assert conn.execute("SELECT count(*) FROM idx2_docs").fetchone() == (0,)
        with psycopg.connect(pg_dsn) as admin:  # the superuser sees that both are there
            owners = {r[0] for r in admin.execute("SELECT owner FROM idx2_docs")}
            assert owners == {"alice", "bob"}
        alice.close()
        bob.close()
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            admin.execute("DROP OWNED BY memdir_app CASCADE")
            admin.execute("DROP ROLE memdir_app")


# -- the index contract, with PgIndex as the index of a file store --------------------------
class _PgOverFiles(FileBackend):
    """The file backend's store and logs with PgIndex as the index (as helper pg's backend
    will open it over its own store)."""

    name = "pg-index-over-files"

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn

    def index(self, store: Store, embedder: Any) -> Index:
        index = PgIndex(self.dsn, store, embedder, owner="contract", scope="project")
        index.recalls = self.recalls(store)
        return index


@pytest.fixture
def ports(sandbox: Path, pg_dsn: str) -> Ports:  # noqa: F811
    backend = _PgOverFiles(pg_dsn)
    store = backend.store("project", home=sandbox / "home", project_root=sandbox / "project")
    assert store is not None
    return Ports(
        backend, store, backend.changes(store), backend.recalls(store), get_embedder("hashing")
    )


def test_the_hnsw_path_reranks_to_the_same_answers(
    pair: tuple[Index, PgIndex], embedder: Embedder
) -> None:
    """A scope past ``exact_limit`` takes its candidates from the HNSW indexes (own and
    context vectors) and reranks them exactly: in a store smaller than the candidate set the
    answers are the exact ones."""
    sqlite, pg = pair
    pg.candidates.exact_limit = 0
    pg.sync()  # past the limit: the rows go into the HNSW indexes
    with psycopg.connect(pg.conninfo) as conn:
        conn.execute("SET enable_seqscan = off")  # a store this small would be read whole
        plan = conn.execute(
            "EXPLAIN SELECT name FROM idx2_docs WHERE model = %s AND ann "
            "ORDER BY vec::vector(256) <=> %s::vector(256) LIMIT 5",
            (pg.model, "[" + ",".join(["0.1"] * 256) + "]"),
        ).fetchall()
    assert any("idx2_hnsw_vec" in line for (line,) in plan), plan
    with psycopg.connect(pg.conninfo) as conn:
        conn.execute("SELECT set_config('memdir.owner', 'alice', false)")
        assert conn.execute("SELECT bool_and(ann) FROM idx2_docs").fetchone() == (True,)
    for query in QUERIES:
        qvec = embedder.encode([query], "query")[0]
        for context in (0.0, 0.35):
            means = _means(sqlite, context)
            for centre in (None, means):
                args = {"context": context, "means": centre, "chinese": False}
                _same_near(sqlite.nearest(qvec, 3, **args), pg.nearest(qvec, 3, **args))
                some = {"cafe", "deploy", "tea-db", "backup", "secrets"}  # filtered in the walk
                _same_near(
                    sqlite.nearest(qvec, 2, within=some, **args),
                    pg.nearest(qvec, 2, within=some, **args),
                )
