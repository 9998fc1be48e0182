"""Atomic, locked writes (SPEC A4) under real processes: many writers, and SIGKILL at random."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from forkserver import ForkServer
from memdir import Memory
from memdir.files.lock import fair_lock
from memdir.markdown import content_hash, parse
from waiting import wait_until

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

# Prints a line after every completed write, so the parent kills after the N-th one — at a
# moment inside the next write — without guessing how long Python takes to start.
CHURN = """
import itertools
from memdir import Memory
m = Memory(actor="churn")
for i in itertools.count():
    rec = m.remember(f"fact number {i} " + "words " * (i % 50), type="project")
    print("remember", flush=True)
    m.update(rec.name, description=f"updated {i}", why="because " * (i % 7 + 1))
    print("update", flush=True)
    if i % 3 == 0:
        change = m.forget(rec.name)
        print("forget", flush=True)
        if i % 2 == 0:
            m.undo(change.id)
            print("undo", flush=True)
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}


def test_eight_processes_write_fifty_memories_each(mem: Memory) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(w), "50"], env=_env()) for w in range(8)
    ]
    assert [p.wait() for p in procs] == [0] * 8
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


@pytest.mark.slow
def test_sigkill_at_random_moments_never_tears_a_file(mem: Memory) -> None:
    folder = mem.store("project").dirs.memory
    rng = random.Random(20261129)
    kills = 0
    with ForkServer(_env()) as writers:  # a real process per writer, Python started once
        for _ in range(60):
            writers.start(CHURN)
            for _ in range(rng.randint(1, 6)):  # the kill lands inside the next write
                assert writers.readline() in ("remember\n", "update\n", "forget\n", "undo\n")
            kills += writers.kill() == signal.SIGKILL
            _check_untorn(folder)
    assert kills == 60  # each one still running: it never stops by itself
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


def _check_untorn(folder: Path) -> None:
    """No memory file is empty or torn, and MEMORY.md has its markers once each."""
    for path in folder.glob("*.md"):
        data = path.read_bytes()
        assert data, f"{path.name} is empty after a kill"
        if path.name != "MEMORY.md":
            parse(data)  # raises if torn
    index = (folder / "MEMORY.md").read_text()
    assert index.count("<!-- memdir:begin -->") == 1 and index.rstrip().endswith(
        "<!-- memdir:end -->"
    )


def _hash(path: Path) -> str | None:
    return content_hash(path.read_bytes()) if path.exists() else None


# -- the scope lock: fair, blocking, and never wedged by a dead process ---------------------

HOLDER = """
import sys
from pathlib import Path
from memdir.files.lock import fair_lock
lock, tag, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
with fair_lock(lock):
    with out.open("a") as f:
        f.write(tag + "\\n")
    print("held", flush=True)
    sys.stdin.readline()  # hold it until told to go (end of input), or until killed
"""


def _holder(lock: Path, tag: str, out: Path, *, hold: bool = False) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock), tag, str(out)],
        env=_env(),
        stdin=subprocess.PIPE if hold else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )


def _tickets(lock: Path) -> list[str]:
    queue = lock.with_name(lock.name + ".queue")
    return sorted(n for n in os.listdir(queue) if n[:1].isdigit())


def _until_queued(lock: Path, count: int) -> None:
    """Wait (for an event; the deadline is only a hang guard) until ``count`` waiters queue."""
    wait_until(lambda: len(_tickets(lock)) >= count, f"{count} waiters in the queue", poll_s=0.005)


def test_waiters_get_the_lock_in_the_order_they_asked(tmp_path: Path) -> None:
    lock, out = tmp_path / "lock", tmp_path / "order"
    procs = []
    with fair_lock(lock):
        for i in range(6):
            procs.append(_holder(lock, str(i), out))
            _until_queued(lock, i + 2)  # ours, and every child's so far
    assert [p.wait() for p in procs] == [0] * 6
    assert out.read_text().split() == [str(i) for i in range(6)]
    assert _tickets(lock) == []  # everyone who left took their file along


def test_a_holder_killed_with_the_lock_does_not_wedge_the_next(tmp_path: Path) -> None:
    lock, out = tmp_path / "lock", tmp_path / "order"
    first = _holder(lock, "killed", out, hold=True)
    assert first.stdout is not None and first.stdout.readline() == "held\n"
    second = _holder(lock, "next", out)
    _until_queued(lock, 2)
    first.send_signal(signal.SIGKILL)
    assert first.wait() == -signal.SIGKILL
    assert second.wait() == 0
    assert out.read_text().split() == ["killed", "next"]
    assert _tickets(lock) == []  # the dead one's file was removed by the one behind it
    for proc in (first, second):
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()


def test_a_waiter_killed_in_the_queue_does_not_wedge_the_ones_behind(tmp_path: Path) -> None:
    lock, out = tmp_path / "lock", tmp_path / "order"
    with fair_lock(lock):
        doomed = _holder(lock, "doomed", out)
        _until_queued(lock, 2)
        behind = _holder(lock, "behind", out)
        _until_queued(lock, 3)
        doomed.send_signal(signal.SIGKILL)
        assert doomed.wait() == -signal.SIGKILL
    assert behind.wait() == 0
    assert out.read_text().split() == ["behind"]
    assert _tickets(lock) == []
    for proc in (doomed, behind):
        assert proc.stdout is not None
        proc.stdout.close()


@pytest.mark.slow
def test_many_cli_writers_at_once_all_succeed(mem: Memory, tmp_path: Path) -> None:
    """8 shell loops of 4 `memdir remember` each into one scope: none fails, none waits forever, and
    every memory is there once (issue 26: a polled lock starved one of them past its timeout)."""
    loop = (
        'for i in 1 2 3 4; do "$0" -m memdir.cli remember "loop $1 note $i" --type project'
        " || exit 1; done"
    )
    procs = [
        subprocess.Popen(
            ["bash", "-c", loop, sys.executable, str(w)],
            env=_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(8)
    ]
    errors = [p.communicate()[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, errors
    records = mem.list()
    assert sorted(r.statement for r in records) == sorted(
        f"loop {w} note {i}" for w in range(8) for i in range(1, 5)
    )
    index = (mem.store("project").dirs.index_file).read_text()
    assert all(f"({r.name}.md)" in index for r in records)
    assert mem.doctor() == []
    assert len([c for c in mem.history() if c.op == "create"]) == 32
