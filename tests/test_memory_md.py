"""MEMORY.md kept incrementally (files/memory_md.py) is always what a full pass would write.

A write re-reads only the files it wrote when the store's kept state is current, and falls back
to the full pass when another writer, a person or a crash may have changed the directory. These
tests run random sequences of writes by two ``Memory`` objects and the CLI, mixed with hand
edits, and compare MEMORY.md and the saved fingerprint with a fresh full pass after every step.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ACCESS
from memdir import Memory
from memdir.errors import MemdirError
from memdir.files import FileStore
from memdir.files.memory_md import render_index, splice
from memdir.records import TYPES
from waiting import until_the_clock_moves


def full_pass(store: FileStore) -> str:
    """MEMORY.md as a full regeneration by a fresh store would write it (nothing is written)."""
    fresh = FileStore(store.dirs)
    records, problems = fresh.scan()
    text = store.dirs.index_file.read_text(encoding="utf-8")
    return splice(text, render_index(records, len(problems), store.dirs.scope))


def saved_fingerprint(store: FileStore) -> str:
    return (store.dirs.derived / "memory-md.fingerprint").read_text(encoding="ascii")


def assert_current(store: FileStore) -> None:
    """MEMORY.md and the saved fingerprint are exactly those of a full pass."""
    assert store.dirs.index_file.read_text(encoding="utf-8") == full_pass(store)
    assert saved_fingerprint(store) == FileStore(store.dirs).fingerprint()


def assert_honest(store: FileStore) -> None:
    """Whatever MEMORY.md lags behind, the saved fingerprint says so: the next read
    (``refresh_index``) brings it in line."""
    if saved_fingerprint(store) == FileStore(store.dirs).fingerprint():
        assert store.dirs.index_file.read_text(encoding="utf-8") == full_pass(store)
    store.refresh_index()
    assert_current(store)


def _memory_file(name: str, type_: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: {type_}\n---\nA statement.\n"


class Sequence:
    """Random operations on the project scope by two writers, the CLI and a person."""

    def __init__(self, seed: int, sandbox: Path) -> None:
        self.rng = random.Random(seed)
        self.a = Memory(actor="a")
        self.a.init()
        self.b = Memory(actor="b")  # a second writer on the same directory
        self.store = self.a.store("project")
        self.dir = self.store.dirs.memory
        self.sandbox = sandbox
        self.counter = 0
        self.in_place_pending = False

    def names(self) -> list[str]:
        return sorted(p.stem for p in self.dir.glob("*.md") if p.name != "MEMORY.md")

    def good_names(self, m: Memory) -> list[str]:
        return sorted(r.name for r in m.store("project").scan()[0])

    def text(self) -> str:
        self.counter += 1
        return f"fact {self.counter} {self.rng.choice(['alpha', 'beta', 'Gamma', '中文'])}"

    # -- writes by memdir ------------------------------------------------------------------
    def write(self) -> None:
        m = self.a if self.rng.random() < 0.75 else self.b
        names = self.good_names(m)
        op = self.rng.choice(
            ["add", "add", "update", "retype", "title", "forget", "rename", "archive", "batch"]
            + (["restore"] if self.store.archived().memory_names() else [])
            + (["undo"] if m.history(scope="project") else [])
        )
        if op not in ("add", "batch", "restore", "undo") and not names:
            op = "add"
        name = self.rng.choice(names) if names else ""
        try:
            if op == "add":
                m.remember(self.text(), type=self.rng.choice(TYPES[2:]), scope="project")
            elif op == "update":
                m.update(name, scope="project", description=self.text())
            elif op == "retype":
                m.update(name, scope="project", type=self.rng.choice(TYPES))
            elif op == "title":
                m.update(name, scope="project", title=f"Title ] {self.counter}")
            elif op == "forget":
                m.forget(name, scope="project")
            elif op == "rename":
                m.rename(name, f"renamed-{self.counter}-{name[:20]}", scope="project")
            elif op == "archive":
                m.store("project").archive(name, actor="a", stamp="2026-01-01T00:00:00Z")
            elif op == "restore":
                m.restore(self.rng.choice(m.store("project").archived().memory_names())[:-3])
            elif op == "undo":
                m.undo(m.history(scope="project")[-1].id)
            else:
                m.remember_many(
                    {"text": self.text(), "type": "project", "scope": "project"} for _ in range(3)
                )
        except MemdirError:
            pass  # a conflict with a hand edit or an undo that cannot apply: nothing written

    def cli(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
        subprocess.run(
            [sys.executable, "-m", "memdir.cli", "remember", self.text(), "--type", "project"],
            env=env,
            check=True,
            capture_output=True,
        )

    # -- a person ----------------------------------------------------------------------------
    def hand(self) -> None:
        until_the_clock_moves(self.dir, self.sandbox)  # a hand edit comes after memdir's write
        names = self.names()
        op = self.rng.choice(["add", "bad", "edit", "delete", "rename", "outside"])
        if op in ("edit", "delete", "rename") and not names:
            op = "add"
        name = self.rng.choice(names) if names else ""
        path = self.dir / f"{name}.md"
        if op == "add":
            new = f"hand-{self.counter}"
            self.counter += 1
            (self.dir / f"{new}.md").write_text(
                _memory_file(new, self.rng.choice(TYPES), self.text()), encoding="utf-8"
            )
        elif op == "bad":
            (self.dir / f"broken-{self.counter}.md").write_text("no frontmatter\n")
            self.counter += 1
        elif op == "edit":  # in place: the directory's mtime does not move
            text = path.read_text(encoding="utf-8")
            with open(path, "r+", encoding="utf-8") as handle:
                handle.seek(0)
                handle.write(text.replace("description: ", f"description: edited {self.counter} "))
            self.counter += 1
            self.in_place_pending = True
        elif op == "delete":
            path.unlink()
        elif op == "rename":
            os.rename(path, self.dir / f"moved-{self.counter}.md")
            self.counter += 1
        else:
            index = self.store.dirs.index_file
            index.write_text(f"note {self.counter}\n" + index.read_text(encoding="utf-8"))
            self.counter += 1


@pytest.mark.parametrize("seed", range(4))
def test_random_sequences_match_a_full_pass(sandbox: Path, seed: int) -> None:
    seq = Sequence(seed, sandbox)
    for step in range(60):
        roll = seq.rng.random()
        if roll < 0.62:
            seq.write()
            if not seq.in_place_pending:
                assert_current(seq.store)
            if seq.rng.random() < 0.3:  # a second Memory writes too, then the first again
                seq.b.remember(seq.text(), type="project")
                seq.write()
                if not seq.in_place_pending:
                    assert_current(seq.store)
        elif roll < 0.67 and step % 3 == 0:
            seq.cli()
            if not seq.in_place_pending:
                assert_current(seq.store)
        else:
            seq.hand()
        assert_honest(seq.store)
        seq.in_place_pending = False  # assert_honest ran refresh_index, as every read does
        for m in (seq.a, seq.b):
            m.store("project").refresh_index()
        assert_current(seq.store)


def test_a_write_after_a_hand_add_lists_it(mem: Memory, sandbox: Path) -> None:
    mem.remember("first", type="project")
    store = mem.store("project")
    until_the_clock_moves(store.dirs.memory, sandbox)
    (store.dirs.memory / "by-hand.md").write_text(_memory_file("by-hand", "project", "mine"))
    mem.remember("second", type="project")
    assert "(by-hand.md) — mine" in store.dirs.index_file.read_text(encoding="utf-8")
    assert_current(store)


def test_a_write_after_another_writer_lists_its_memory(mem: Memory) -> None:
    mem.remember("first", type="project")
    Memory().remember("from elsewhere", type="project", name="elsewhere")
    mem.remember("second", type="project")
    store = mem.store("project")
    assert "(elsewhere.md)" in store.dirs.index_file.read_text(encoding="utf-8")
    assert_current(store)


def test_an_in_place_edit_is_picked_up_by_the_next_read(mem: Memory, sandbox: Path) -> None:
    """An edit that moves no directory timestamp is not seen by a write (that would cost a
    full pass), but the saved fingerprint does not vouch for it: the next read regenerates."""
    rec = mem.remember("first", type="project", description="old words")
    until_the_clock_moves(rec.path.parent, sandbox)
    text = rec.path.read_text(encoding="utf-8")
    rec.path.write_text(text.replace("old words", "new words"), encoding="utf-8")
    mem.remember("second", type="project")
    store = mem.store("project")
    assert saved_fingerprint(store) != FileStore(store.dirs).fingerprint()
    mem.list()
    assert "new words" in store.dirs.index_file.read_text(encoding="utf-8")
    assert_current(store)


def test_a_write_reads_only_the_file_it_wrote(mem: Memory) -> None:
    """With the kept state current, a write lists no directory and opens no other memory."""
    mem.remember_many({"text": f"fact {i}", "type": "project"} for i in range(30))
    store = mem.store("project")
    with ACCESS.watch() as access:
        rec = mem.remember("one more", type="project")
    opened = {name for event, name in access.touched(store.dirs.memory) if event == "open"}
    listed = [e for e in access.touched(store.dirs.memory) if e[0] != "open"]
    assert listed == []
    assert {n for n in opened if not n.startswith(".")} == {rec.path.name, "MEMORY.md"}
    assert_current(store)
    with ACCESS.watch() as access:  # an update and a delete: the same
        mem.update(rec.name, description="changed")
        mem.forget("fact-7")
    opened = {name for event, name in access.touched(store.dirs.memory) if event == "open"}
    assert {n for n in opened if not n.startswith(".")} == {rec.path.name, "fact-7.md", "MEMORY.md"}
    assert_current(store)


def test_a_new_process_reads_only_the_files_changed_since_memory_md_was_kept(
    mem: Memory, sandbox: Path
) -> None:
    """A fresh store (a new CLI process) renders MEMORY.md from the entries kept in
    ``.index/memory-md.rendered``: it stats every file, but reads only those whose stat moved
    (a 10k store's first write read all 10k files before)."""
    mem.remember_many({"text": f"fact {i}", "type": "project"} for i in range(30))
    store = mem.store("project")
    # the first fresh store reads the 30 files written since the entries were kept (more
    # than KEEP_AFTER), so it keeps them again
    Memory().remember("a first write", type="project")
    assert (store.dirs.derived / "memory-md.rendered").is_file()
    edited = store.dirs.memory / "fact-3.md"
    until_the_clock_moves(store.dirs.memory, sandbox)
    edited.write_text(
        edited.read_text(encoding="utf-8").replace("description: fact 3", "description: by hand"),
        encoding="utf-8",
    )  # in place: no directory timestamp moves
    fresh = Memory()
    with ACCESS.watch() as access:
        rec = fresh.remember("one more", type="project")
    opened = {name for event, name in access.touched(store.dirs.memory) if event == "open"}
    assert {n for n in opened if not n.startswith(".")} == {rec.path.name, edited.name, "MEMORY.md"}
    text = store.dirs.index_file.read_text(encoding="utf-8")
    assert "(fact-3.md) — by hand" in text and f"({rec.path.name})" in text
    assert_current(fresh.store("project"))


@pytest.mark.parametrize(
    "damage", [b"", b"{not json", b'{"format": "v0", "scope": "project", "entries": []}']
)
def test_damaged_kept_entries_cost_a_full_pass_and_nothing_else(mem: Memory, damage: bytes) -> None:
    mem.remember_many({"text": f"fact {i}", "type": "project"} for i in range(5))
    store = mem.store("project")
    kept = store.dirs.derived / "memory-md.rendered"
    kept.write_bytes(damage)
    fresh = Memory()
    rec = fresh.remember("one more", type="project")
    text = store.dirs.index_file.read_text(encoding="utf-8")
    assert f"({rec.path.name})" in text and "(fact-4.md)" in text
    assert_current(fresh.store("project"))
    assert kept.read_bytes() != damage  # written again by the full pass


def test_a_failed_write_makes_the_next_one_a_full_pass(mem: Memory) -> None:
    """MEMORY.md cannot be read during a write: the memory is written and logged, the error
    says so, and what the store kept is dropped — the next write lists the memory it missed."""
    mem.remember("first", type="project")
    store = mem.store("project")
    index = store.dirs.index_file
    good = index.read_bytes()
    index.write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(MemdirError, match=r"MEMORY\.md"):
        mem.remember("second", type="project", name="second")
    index.write_bytes(good)
    mem.remember("third", type="project")
    assert "(second.md)" in index.read_text(encoding="utf-8")
    assert_current(store)


# -- issue 26: a MEMORY.md damaged by hand is mended on the next read --------------------------
@pytest.mark.parametrize("damage", ["line", "begin", "end", "both"])
def test_a_hand_damaged_memory_md_is_repaired_on_the_next_read(mem: Memory, damage: str) -> None:
    a = mem.remember("first fact", type="project", name="first")
    mem.remember("second fact", type="project", name="second")
    index = a.path.parent / "MEMORY.md"
    good = index.read_text()
    lines = good.splitlines(keepends=True)
    drop = {
        "line": lambda ln: "(first.md)" in ln,
        "begin": lambda ln: ln.startswith("<!-- memdir:begin"),
        "end": lambda ln: ln.startswith("<!-- memdir:end"),
        "both": lambda ln: ln.startswith(("<!-- memdir:begin", "<!-- memdir:end")),
    }[damage]
    index.write_text("".join(ln for ln in lines if not drop(ln)) + "my own note\n")
    Memory().list()  # a new process reads
    mended = index.read_text()
    assert mended.count("(first.md)") == 1 and mended.count("(second.md)") == 1
    assert "my own note" in mended  # text outside the block is kept
    if damage != "both":
        assert mended.count("<!-- memdir:begin -->") == mended.count("<!-- memdir:end -->") == 1
