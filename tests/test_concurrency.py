"""Atomic, locked writes (SPEC A4) under real processes: many writers, and SIGKILL at random."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from memdir import Memory
from memdir.markdown import content_hash, parse

WRITER = """
import sys
from memdir import Memory
worker, count = int(sys.argv[1]), int(sys.argv[2])
m = Memory(actor=f"worker-{worker}")
for i in range(count):
    # half the texts are the same in every worker: each is stored once (remember is
    # idempotent), however the eight race for it; the others get unique names
    text = f"shared fact {i}" if i % 2 else f"worker {worker} fact {i}"
    m.remember(text, type="project", tags=[f"w{worker}"])
"""

CHURN = """
import itertools
from memdir import Memory
m = Memory(actor="churn")
for i in itertools.count():
    rec = m.remember(f"fact number {i} " + "words " * (i % 50), type="project")
    m.update(rec.name, description=f"updated {i}", why="because " * (i % 7 + 1))
    if i % 3 == 0:
        change = m.forget(rec.name)
        if i % 2 == 0:
            m.undo(change.id)
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}


def test_eight_processes_write_fifty_memories_each(mem: Memory) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(w), "50"], env=_env()) for w in range(8)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0] * 8
    folder = mem.store("project").dirs.memory
    files = sorted(folder.glob("*.md"))
    files.remove(folder / "MEMORY.md")
    assert len(files) == 8 * 25 + 25  # each worker's own 25, and the 25 shared ones once
    for path in files:
        meta = parse(path.read_bytes()).meta
        assert meta["name"] == path.stem and meta["type"] == "project"
    index = (folder / "MEMORY.md").read_text()
    listed = [ln for ln in index.splitlines() if ln.startswith("- [")]
    assert len(listed) == 225
    assert {f"({p.name})" for p in files} == {
        ln[ln.index("](") + 1 : ln.index(".md)") + 4] for ln in listed
    }
    assert len(mem.list()) == 225 and mem.doctor() == []
    assert len([f for f in files if f.name.startswith("shared-fact-")]) == 25
    creates = [c for c in mem.history() if c.op == "create"]
    assert len(creates) == 225 and len({c.actor for c in creates}) == 8


def test_sigkill_at_random_moments_never_tears_a_file(mem: Memory) -> None:
    folder = mem.store("project").dirs.memory
    rng = random.Random(20261129)
    kills = 0
    for _ in range(60):
        proc = subprocess.Popen([sys.executable, "-c", CHURN], env=_env())
        time.sleep(rng.uniform(0.2, 0.6))  # python start-up takes ~0.2 s; then it writes
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += proc.returncode == -signal.SIGKILL
        for path in folder.glob("*.md"):
            data = path.read_bytes()
            assert data, f"{path.name} is empty after a kill"
            if path.name != "MEMORY.md":
                parse(data)  # raises if torn
        index = (folder / "MEMORY.md").read_text()
        assert index.count("<!-- memdir:begin -->") == 1 and index.rstrip().endswith(
            "<!-- memdir:end -->"
        )
    assert kills >= 50
    assert [p for p in mem.doctor() if p.severity == "error"] == []
    records = mem.list()
    assert records, "the writer never got to write anything"
    index = (folder / "MEMORY.md").read_text()
    assert all(f"({r.name}.md)" in index for r in records)
    mem.remember("one more write after the last kill", type="project")
    assert not list(folder.glob(".*.tmp"))  # leftovers are swept by the next locked write
    history = mem.history()
    assert len(history) >= len(records)
    # every logged change that is the latest for its file matches the file on disk, unless the
    # kill fell between the rename and the log line (at most one such file per kill)
    latest = {c.name: c for c in history}
    mismatched = [n for n, c in latest.items() if c.after != _hash(folder / f"{n}.md")]
    assert len(mismatched) <= kills


def _hash(path: Path) -> str | None:
    return content_hash(path.read_bytes()) if path.exists() else None
