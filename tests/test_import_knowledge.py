"""``kind: knowledge`` (issue 24 step 5): imported reference material is searched on request,
kept out of the memory guide's index and out of sleep, and filtered by the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memdir import Memory
from memdir.errors import ValidationError
from memdir.portable.importers.markdown import import_notes
from memdir.records import check_field


def _notes(tmp: Path) -> Path:
    vault = tmp / "vault"
    vault.mkdir()
    (vault / "kafka.md").write_text(
        "# Kafka retention\n\nTopics keep seven days of events; compaction is on for [[users]].\n",
        encoding="utf-8",
    )
    (vault / "kafka-copy.md").write_text(
        "# Kafka retention\n\nTopics keep seven days of events; compaction is on for users.\n",
        encoding="utf-8",
    )
    return vault


def test_knowledge_is_out_of_the_guide_and_of_sleep(mem: Memory, sandbox: Path) -> None:
    mem.remember("We use Kafka for the event bus", type="project")
    import_notes(mem, _notes(sandbox))
    kinds = {r.name: r.kind for r in mem.list()}
    assert kinds["kafka"] == "knowledge" and kinds["we-use-kafka-for-the-event-bus"] == "memory"
    index = mem.store("project").dirs.index_file.read_text(encoding="utf-8")
    assert "we-use-kafka-for-the-event-bus" in index and "kafka.md" not in index
    assert "Kafka retention" not in mem.memory_guide()
    plan = mem.sleep(dry_run=True, sessions=False).plan
    assert plan is not None
    assert not any(
        "kafka" in name
        for step in plan.steps
        for name in step.names
        if name != "we-use-kafka-for-the-event-bus"
    )
    hits = mem.recall("how long do kafka topics keep events", min_score=0.0)
    assert any(h.record.kind == "knowledge" for h in hits)  # searched when asked


def test_kind_is_checked(mem: Memory) -> None:
    with pytest.raises(ValidationError, match="kind"):
        check_field("kind", "recipe")
    with pytest.raises(ValidationError, match="kind"):
        mem.create_file(
            "x",
            b"---\ndescription: d\ntype: reference\n---\nx\n",
            scope="user",
            defaults={"kind": "recipe"},
        )
    rec = mem.remember("Our runbook is in Notion", type="reference")
    assert rec.kind == "memory"
    assert mem.update(rec.name, kind="knowledge").kind == "knowledge"


def test_cli_filters_by_kind(sandbox: Path) -> None:
    vault = _notes(sandbox)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memdir.cli", *args],
            cwd=sandbox / "project",
            env={**os.environ},
            capture_output=True,
            text=True,
            check=False,
        )

    assert run("remember", "We use Kafka for the event bus", "--type", "project").returncode == 0
    assert run("import", str(vault)).returncode == 0
    knowledge = json.loads(run("list", "--kind", "knowledge", "--json").stdout)
    assert {r["name"] for r in knowledge} == {"kafka", "kafka-copy"}
    memories = json.loads(run("list", "--kind", "memory", "--json").stdout)
    assert {r["name"] for r in memories} == {"we-use-kafka-for-the-event-bus"}
    found = json.loads(
        run("recall", "kafka topics retention", "--kind", "knowledge", "--json").stdout
    )
    assert found and all(
        h["record"]["extra"].get("kind") == "knowledge" for h in found if "record" in h
    )
