"""What a recall reads: the index and the files of the memories it returns, never every file of
the store. Logging the recall takes the scope's lock, and the write lock first parses every file
for MEMORY.md — on a 10k store that was seconds per CLI recall (bench/cli.py) for one log line."""

from __future__ import annotations

from pathlib import Path

from memdir import Memory


def test_a_recall_in_a_new_process_parses_only_the_files_it_returns(sandbox: Path) -> None:
    writer = Memory(embedder="hashing")
    writer.remember_many(
        [{"text": f"Service {i} deploys through the staging cluster", "type": "project"}
         for i in range(30)]
        + [{"text": "Use pnpm, not npm, in JS projects", "type": "feedback", "scope": "project"}]
    )  # fmt: skip
    writer.reindex()
    reader = Memory(embedder="hashing")  # as a new CLI process: nothing parsed yet
    hits = reader.recall("which package manager for JS?", top_k=2, scopes=["project"])
    assert hits and hits[0].record.statement == "Use pnpm, not npm, in JS projects"
    parsed = reader.store("project")._cache
    assert 1 <= len(parsed) <= 2, sorted(parsed)
    recalls = reader.store("project").dirs.recalls.read_text(encoding="utf-8")
    assert "which package manager for JS?" in recalls  # the recall was still logged
