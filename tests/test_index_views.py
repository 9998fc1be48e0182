"""What recall reads of an index is patched after a write, not read again — and must equal what
a fresh read gives, or recall in a long-lived process would drift from the files."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memdir import Memory
from memdir.index.sqlite import SqliteIndex
from memdir.providers.embeddings import DelegatingEmbedder, Kind, Vectors

TALK = [
    ("plan", "We should move the standup to 10am", "2026-03-02T09:00:00Z", ["process"]),
    ("agreed", "Yes, starting next Monday", "2026-03-02T09:01:00Z", []),
    ("room", "Book the small meeting room for it", "2026-03-02T09:02:00Z", ["rooms"]),
    ("zh", "周会改到周二上午，在小会议室", "2026-03-02T09:03:00Z", ["process"]),
]


def _store(m: Memory) -> None:
    m.remember_many(
        [
            {"name": n, "text": t, "type": "project", "session": "talk", "created": c, "tags": g}
            for n, t, c, g in TALK
        ]
        + [
            {
                "name": f"ops-{i}",
                "text": f"Deploys of service {i} go through staging first",
                "type": "project",
                "session": "ops",
                "related_files": [f"deploy/svc{i}.yaml"],
            }
            for i in range(4)
        ]
        + [{"name": "loose", "text": "The CI cache lives in the build bucket", "type": "project"}]
    )


def _views(ix: SqliteIndex) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for share in (0.0, 0.7):
        names, matrix = ix.vectors(share)
        out[f"names {share}"] = list(names)
        out[f"matrix {share}"] = matrix.copy()
        out[f"rows {share}"] = {n: ix.row_of(n) for n in names}
        out[f"context {share}"] = sorted(n for n in names if ix.has_context(n))
    out["docs"] = list(ix.docs().items())  # in order: the order a load gives
    out["entities"] = {k: sorted(v) for k, v in ix.entities().items()}
    out["scripts"] = ix.scripts()
    return out


def _same_as_a_fresh_read(m: Memory) -> None:
    ix = m.index("project")
    ix.sync()
    fresh = SqliteIndex(m.store("project"), m.embedder)
    ours, theirs = _views(ix), _views(fresh)
    fresh.close()
    assert ours.keys() == theirs.keys()
    for key, value in ours.items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, theirs[key]), key
        else:
            assert value == theirs[key], key


@pytest.fixture(params=["hashing", "use"])
def m(request: pytest.FixtureRequest, sandbox: Path) -> Memory:
    memory = Memory(embedder=request.param)
    memory.init()
    return memory


def test_views_patched_after_each_kind_of_change_equal_a_fresh_read(m: Memory) -> None:
    _store(m)
    m.recall("standup meeting room", top_k=3)  # a use count, replayed by the next sync
    _same_as_a_fresh_read(m)
    ix = m.index("project")
    docs, matrix = ix.docs(), ix._views.matrices[0.7]

    def step() -> None:
        _same_as_a_fresh_read(m)  # and it was patched in place, not loaded again:
        assert ix.docs() is docs and ix._views.matrices[0.7] is matrix

    m.remember("Standup notes go in the team wiki", type="project", session="talk")
    step()  # an append: a new row, and its neighbour's context changed
    path = m.store("project").dirs.memory / "agreed.md"
    path.write_text(path.read_text().replace("next Monday", "next Tuesday"))
    step()  # a hand edit in the middle of a session: a new rowid for it
    m.update("ops-1", text="Deploys of service 1 skip staging", tags=["hotfix"])
    step()  # new tags and a new text: entities and vectors move
    m.forget("room")
    step()  # a delete in the middle of a session
    m.recall("deploys staging service", top_k=4)
    m.recall("deploys staging service", top_k=4, since="1d")  # not the cached answer
    step()  # use counts only
    m.forget("zh")
    step()  # the last Chinese memory: a script leaves the store
    m.remember("发版前先在预发布环境验证", type="project")
    step()  # and comes back


def test_another_facades_syncs_are_patched_in_from_the_index_journal(m: Memory) -> None:
    """A server keeps a facade per thread, and a CLI runs beside it: each other's syncs (a
    write, a hand edit, a delete, use counts from their recalls) reach these views through the
    journal of what each sync changed, not by loading everything again."""
    _store(m)
    _same_as_a_fresh_read(m)
    ix = m.index("project")
    docs, matrix = ix.docs(), ix._views.matrices[0.7]
    other = Memory(embedder=m.embedder)
    other.remember("Written by another process", type="project", session="ops")
    other.index("project").sync()  # its sync, not ours
    _same_as_a_fresh_read(m)
    assert ix.docs() is docs and ix._views.matrices[0.7] is matrix
    other.update("ops-1", text="Deploys of service 1 skip staging", tags=["hotfix"])
    other.recall("deploys staging service", top_k=3)  # its sync, and use counts for the next
    other.forget("room")
    path = m.store("project").dirs.memory / "agreed.md"
    path.write_text(path.read_text().replace("next Monday", "next Tuesday"))
    other.recall("standup", top_k=2)  # several of its syncs in a row
    _same_as_a_fresh_read(m)
    assert ix.docs() is docs and ix._views.matrices[0.7] is matrix


def test_a_change_the_journal_does_not_name_makes_the_views_load_again(m: Memory) -> None:
    _store(m)
    _same_as_a_fresh_read(m)
    ix = m.index("project")
    docs = ix.docs()
    other = Memory(embedder=m.embedder)
    other.remember("Written by an older memdir", type="project", session="ops")
    other.index("project").sync()
    with sqlite3.connect(ix.path) as db:  # an older memdir's sync writes no entry
        db.execute("DELETE FROM journal")
    _same_as_a_fresh_read(m)
    assert ix.docs() is not docs
    docs = ix.docs()
    other.remember("Written by a newer one", type="project", session="ops")
    other.index("project").sync()
    with sqlite3.connect(ix.path) as db:  # the entry is there, but the one before it is not
        db.execute("UPDATE journal SET before = '[]'")
    _same_as_a_fresh_read(m)
    assert ix.docs() is not docs


def test_a_sync_that_waited_for_another_processs_loads_the_views_again(
    m: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(m)
    _same_as_a_fresh_read(m)
    ix = m.index("project")
    m.remember("Written by this process", type="project", session="ops")
    lock = ix._sync_lock

    @contextmanager
    def after_another_sync() -> Iterator[None]:  # the other process got the lock first
        other = Memory(embedder=m.embedder)
        other.remember("Written by another process", type="project", session="ops")
        other.index("project").sync()  # it indexes both files: ours has nothing left to do
        with lock():
            yield

    monkeypatch.setattr(ix, "_sync_lock", after_another_sync)
    ix.sync()
    monkeypatch.undo()
    _same_as_a_fresh_read(m)


def _vector_hashes(m: Memory) -> tuple[set[str], set[str], set[str], set[str]]:
    """(vectors stored, hashes the docs refer to, pools stored, session memories' hashes)."""
    model = (m.embedder.model_id,)
    with sqlite3.connect(m.index("project").path) as db:
        stored = {r[0] for r in db.execute("SELECT embed_hash FROM vectors WHERE model=?", model)}
        used = {r[0] for r in db.execute("SELECT embed_hash FROM docs")}
        used |= {r[0] for r in db.execute("SELECT context_hash FROM docs") if r[0]}
        pools = {r[0] for r in db.execute("SELECT embed_hash FROM pools WHERE model=?", model)}
        members = {r[0] for r in db.execute("SELECT embed_hash FROM docs WHERE session NOT NULL")}
    return stored, used, pools, members


def test_a_sync_forgets_exactly_the_vectors_it_stopped_referring_to(m: Memory) -> None:
    _store(m)
    m.index("project").sync()  # the first sync for an embedder sweeps the whole table
    before, _, _, _ = _vector_hashes(m)
    m.update("agreed", text="Yes, starting next Tuesday")
    m.forget("ops-2")
    m.remember("Deploys of service 9 go through staging first", type="project", session="ops")
    m.index("project").sync()
    stored, used, pools, members = _vector_hashes(m)
    assert stored == used and before - stored  # the old texts' and contexts' vectors went
    assert pools <= members


class _ModelGone(DelegatingEmbedder):
    """The embedder of ``inner``, failing the way a model that cannot load fails."""

    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> Vectors:
        raise RuntimeError("the model went away")

    def encode_pooled(self, texts: Sequence[str]) -> tuple[Vectors, Vectors]:
        raise RuntimeError("the model went away")


def test_a_sync_cut_short_after_its_docs_were_written_is_finished_by_the_next(m: Memory) -> None:
    _store(m)
    m.index("project").sync()
    broken = Memory(embedder=_ModelGone(m.embedder))
    broken.remember("Learned while the model was away", type="project", session="ops")
    with pytest.raises(RuntimeError, match="went away"):
        broken.index("project").sync()  # its docs row is written, its vectors are not
    again = Memory(embedder=m.embedder)
    assert again.verify_index() == []
    assert again.recall("while the model was away", top_k=1)[0].record.statement.startswith(
        "Learned while"
    )
    _same_as_a_fresh_read(m)


def test_a_sync_after_this_processs_own_writes_reads_only_what_they_changed(m: Memory) -> None:
    _store(m)
    ix = m.index("project")
    ix.sync()
    for i in range(3):
        m.remember(f"Deploy note {i}: announce it in the channel", type="project", session="ops")
        report = ix.sync()  # the file rows are patched too: the earlier notes are not new again
        assert (report.added, report.updated, report.removed) == (1, 0, 0)
    m.update("ops-1", text="Deploys of service 1 skip staging")
    m.forget("ops-2")
    report = ix.sync()
    assert (report.added, report.updated, report.removed) == (0, 1, 1)
    assert ix.sync().changed is False
    m.remember("Deploy note 4: and in the changelog", type="project", session="ops")
    report = ix.sync()  # the deleted file is not deleted again
    assert (report.added, report.updated, report.removed) == (1, 0, 0)


def test_views_are_read_again_after_another_sync_that_stopped_short_of_its_end(
    m: Memory,
) -> None:
    _store(m)
    m.index("project").sync()
    m = Memory(embedder=m.embedder)  # a process that starts on an index in step
    m.recall("deploys staging", top_k=2, track=False)  # it read its views; nothing to sync
    ix = m.index("project")
    state = ix._meta("state")
    other = Memory(embedder=m.embedder)
    other.remember("Learned by a process killed at the end of its sync", type="project")
    other.index("project").sync()
    with sqlite3.connect(ix.path) as db:  # as if killed before it recorded the new state
        db.execute("UPDATE meta SET value=? WHERE key='state'", (state,))
        db.execute("INSERT OR REPLACE INTO meta VALUES ('dirty', '1')")
    _same_as_a_fresh_read(m)
    assert "killed at the end" in m.recall("process killed", top_k=1)[0].record.statement
