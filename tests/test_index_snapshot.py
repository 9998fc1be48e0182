"""The vector matrix of a large index is kept in a file beside it (``index/snapshot.py``), so a
new process maps it in instead of reading every blob from SQLite. It must never change what
recall sees: a snapshot of other rows is not used, a damaged one is rebuilt with one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memdir import Memory
from memdir.index import snapshot
from memdir.index.sqlite import SqliteIndex


@pytest.fixture
def m(sandbox: Path, monkeypatch: pytest.MonkeyPatch) -> Memory:
    monkeypatch.setattr(snapshot, "SNAPSHOT_MIN", 1)  # every index is "large" here
    memory = Memory(embedder="hashing")
    memory.remember_many(
        [{"text": f"Service {i} deploys through the staging cluster", "type": "project"}
         for i in range(12)]
    )  # fmt: skip
    return memory


def _fresh(m: Memory) -> tuple[list[str], np.ndarray]:
    """What a new process reads (snapshot or not)."""
    index = SqliteIndex(m.store("project"), m.embedder)
    names, matrix = index.vectors(0.7)
    out = (list(names), matrix.copy())
    index.close()
    return out


def _from_sqlite(m: Memory) -> tuple[list[str], np.ndarray]:
    for path in m.index("project").path.parent.glob("matrix-*.bin"):
        path.unlink()
    return _fresh(m)


def test_a_new_process_reads_the_snapshot_and_gets_the_same_matrix(m: Memory) -> None:
    m.reindex()
    first = _fresh(m)  # reads SQLite, writes the snapshot
    saved = snapshot.path_of(m.index("project").path.parent, 0.7)
    assert saved.is_file()
    stamp = saved.stat().st_mtime_ns
    again = _fresh(m)  # from the snapshot
    assert saved.stat().st_mtime_ns == stamp  # used, not written again
    assert again[0] == first[0] and np.array_equal(again[1], first[1])


def test_after_a_write_the_old_snapshot_is_not_used(m: Memory) -> None:
    m.reindex()
    _fresh(m)
    old = m.list(scope="project")[0]
    m.update(old.name, statement="Service X deploys straight to production", scope="project")
    m.remember("The billing service runs on Fridays only", type="project")
    m.forget(m.list(scope="project")[1].name, scope="project")
    m.reindex()
    names, matrix = _fresh(m)
    truth = _from_sqlite(m)
    assert names == truth[0] and np.array_equal(matrix, truth[1])
    hits = m.recall("billing on Fridays", top_k=1, scopes=["project"], min_score=0)
    assert hits[0].record.statement == "The billing service runs on Fridays only"


def test_a_damaged_snapshot_is_rebuilt_with_one_line(
    m: Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    m.reindex()
    truth = _fresh(m)
    saved = snapshot.path_of(m.index("project").path.parent, 0.7)
    saved.write_bytes(saved.read_bytes()[: saved.stat().st_size // 2])  # a torn write
    capsys.readouterr()
    names, matrix = _fresh(m)
    assert names == truth[0] and np.array_equal(matrix, truth[1])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rebuilding" in err and "Traceback" not in err
    assert _fresh(m)[0] == truth[0] and capsys.readouterr().err == ""  # whole again


def test_small_stores_keep_no_snapshot(sandbox: Path) -> None:
    memory = Memory(embedder="hashing")
    memory.remember("Use pnpm, not npm", type="project")
    memory.recall("package manager", scopes=["project"])
    assert list(memory.index("project").path.parent.glob("matrix-*")) == []
