"""Tentative memories are visible (issue 22 §6): marked in MEMORY.md and the guide with their
rival, and the guide tells the agent to ask the person when one matters."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

from memdir import Memory

ENTRY = ["-c", "import sys; from memdir.cli import main; sys.exit(main())"]
NOW = datetime(2026, 9, 1, 3, 0, tzinfo=UTC)


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_tentative_memory_is_marked_everywhere_it_is_shown(mem: Memory) -> None:
    a = mem.remember("Personal projects use pnpm", type="user", created=ago(2))
    b = mem.remember("Personal projects use npm", type="user", created=ago(2))  # no newer side
    plain = mem.remember("The user writes Go at work", type="user", created=ago(2))
    mem.sleep(now=NOW)
    assert {r.name for r in mem.tentative()} == {a.name, b.name}
    index = (mem.store("user").dirs.memory / "MEMORY.md").read_text(encoding="utf-8")
    line_a = next(line for line in index.splitlines() if f"({a.name}.md)" in line)
    assert f"(tentative: may conflict with {b.name}; ask the person which holds" in line_a
    line_plain = next(line for line in index.splitlines() if f"({plain.name}.md)" in line)
    assert "tentative" not in line_plain

    guide = subprocess.run(
        [sys.executable, *ENTRY, "context"], capture_output=True, text=True, check=True
    ).stdout
    assert f"may conflict with {b.name}" in guide and f"may conflict with {a.name}" in guide
    assert "ask the person which one holds" in guide  # what the agent is told to do

    mem.confirm(a.name, now=NOW)  # settled: the marks go
    index = (mem.store("user").dirs.memory / "MEMORY.md").read_text(encoding="utf-8")
    assert "tentative" not in index


def test_forget_flags_what_sleep_built_from_the_forgotten_memory(mem: Memory) -> None:
    a = mem.remember("The user prefers concise answers", type="user", created=ago(3))
    b = mem.remember("The user likes short, concise answers", type="user", created=ago(2))
    mem.sleep(now=NOW)
    (kept,) = mem.list()
    assert kept.name == b.name and kept.extra["merged_from"] == [a.name]
    mem.forget_archived(a.name, reason="the person asked")  # `memdir forget --archived`
    flagged = mem.get(b.name)
    assert flagged.confidence == "tentative" and a.name in flagged.extra["review"]
    index = (mem.store("user").dirs.memory / "MEMORY.md").read_text(encoding="utf-8")
    assert f"(tentative: built in part from {a.name}, which was forgotten" in index
    mem.confirm(b.name, now=NOW)
    assert mem.get(b.name).confidence == "confirmed" and "review" not in mem.get(b.name).extra


def test_a_forget_inside_a_batch_flags_what_was_built_from_it_and_renders_once(
    mem: Memory,
) -> None:
    """The REST server runs a user's queued writes in one batch: forget's review of what sleep
    built from the memory reads the files there, and MEMORY.md is rendered once, at the end."""
    a = mem.remember("The user prefers concise answers", type="user", created=ago(3))
    b = mem.remember("The user likes short, concise answers", type="user", created=ago(2))
    c = mem.remember("Deploys go out on Thursdays", type="project", created=ago(2))
    mem.sleep(now=NOW)
    index = mem.store("user").dirs.memory / "MEMORY.md"
    with mem.batch():
        before = index.stat().st_ino
        mem.forget_archived(a.name, reason="the person asked")
        mem.forget(c.name, scope="project")
        assert mem.get(b.name).confidence == "tentative"  # flagged inside the batch
        assert index.stat().st_ino == before  # not rendered again mid-batch
    text = index.read_text(encoding="utf-8")
    assert f"(tentative: built in part from {a.name}, which was forgotten" in text
    assert index.stat().st_ino != before
