"""Store contract (``memdir.ports.Store``): every method, and bad input that loses nothing."""

from __future__ import annotations

import pytest

from memdir.errors import BadFileError, ConflictError, NotFoundError, ValidationError

from .contract_ports import Ports


def test_create_read_exists_names(ports: Ports) -> None:
    name = ports.add("The build runs on Python 3.11", base="python-version")
    record = ports.store.read(name)
    assert name == "python-version"
    assert record.statement == "The build runs on Python 3.11"
    assert record.type == "project" and record.source == "user"
    assert ports.store.exists(name) and not ports.store.exists("nothing-here")
    assert ports.store.memory_names() == ["python-version.md"]


def test_create_derives_a_free_name_and_refuses_a_taken_one(ports: Ports) -> None:
    first = ports.add("one fact", base="fact")
    second = ports.add("another fact", base="fact")
    assert first != second and second.startswith("fact")
    with pytest.raises(ConflictError, match="already exists"):
        ports.store.create(
            {"description": "x", "type": "project"}, statement="x", why=None,
            how_to_apply=None, actor="contract", name=first,
        )  # fmt: skip
    assert ports.store.read(first).statement == "one fact"  # nothing lost


def test_bad_name_is_refused(ports: Ports) -> None:
    with pytest.raises(ValidationError):
        ports.store.create(
            {"description": "x", "type": "project"}, statement="x", why=None,
            how_to_apply=None, actor="contract", name="../escape",
        )  # fmt: skip
    assert ports.store.memory_names() == []


def test_read_of_an_unknown_name(ports: Ports) -> None:
    with pytest.raises(NotFoundError):
        ports.store.read("never-written")


def test_update_changes_fields_and_a_no_op_records_nothing(ports: Ports) -> None:
    name = ports.add("Deploys go out on Fridays")
    record, change = ports.store.update(
        name, {"statement": "Deploys go out on Thursdays", "tags": ["deploy"]}, actor="contract"
    )
    assert change is not None and change.op == "update" and change.actor == "contract"
    assert record.statement == "Deploys go out on Thursdays" and record.tags == ("deploy",)
    # the same values, ``updated`` included (a store stamps ``updated`` to the second when it is
    # not given, so leaving it out would make this depend on the clock not ticking meanwhile)
    same, none = ports.store.update(
        name, {"tags": ["deploy"], "updated": record.updated}, actor="contract"
    )
    assert none is None and same.content_hash == record.content_hash


def test_replace_bytes_checks_the_hash_and_the_format(ports: Ports) -> None:
    name = ports.add("The API listens on port 8080")
    record = ports.store.read(name)
    data = ports.changes.load(record.content_hash)  # the bytes of the version it has now
    new = data.replace(b"8080", b"9090")
    updated, change = ports.store.replace_bytes(
        name, new, actor="contract", reason=None, expect_hash=record.content_hash
    )
    assert change is not None and "9090" in updated.statement
    with pytest.raises(BadFileError):
        ports.store.replace_bytes(
            name, b"not a memory file", actor="contract", reason=None,
            expect_hash=updated.content_hash,
        )  # fmt: skip
    assert "9090" in ports.store.read(name).statement  # the bad bytes were not written


def test_delete_then_undo_brings_it_back(ports: Ports) -> None:
    name = ports.add("The staging database is called stg-1")
    before = ports.store.read(name).content_hash
    change = ports.store.delete(name, actor="contract")
    assert change.op == "delete" and not ports.store.exists(name)
    undone = ports.store.undo(change, actor="contract")
    assert undone.undoes == change.id
    assert ports.store.read(name).content_hash == before


def test_undo_of_an_update_conflicts_when_the_memory_moved_on(ports: Ports) -> None:
    name = ports.add("v1")
    _, first = ports.store.update(name, {"statement": "v2"}, actor="contract")
    ports.store.update(name, {"statement": "v3"}, actor="contract")
    assert first is not None
    with pytest.raises(ConflictError):
        ports.store.undo(first, actor="contract")
    assert ports.store.read(name).statement == "v3"  # nothing lost


def test_rename_and_its_conflict(ports: Ports) -> None:
    name = ports.add("Logs are kept for 30 days", base="logs")
    other = ports.add("Backups run nightly", base="backups")
    record, change = ports.store.rename(name, "log-retention", actor="contract")
    assert record.name == "log-retention" and change.renamed_from == name
    assert not ports.store.exists(name)
    with pytest.raises(ConflictError):
        ports.store.rename("log-retention", other, actor="contract")
    assert ports.store.read(other).statement == "Backups run nightly"
    ports.store.undo(change, actor="contract")
    assert ports.store.exists(name) and not ports.store.exists("log-retention")


def test_archive_restore_and_delete_archived(ports: Ports) -> None:
    name = ports.add("The old CI ran on Jenkins", base="old-ci")
    change = ports.store.archive(name, actor="contract", stamp="2026-01-01T00:00:00Z")
    assert change.op == "archive" and not ports.store.exists(name)
    assert ports.store.archived().exists(name)
    ports.store.restore(name, actor="contract")
    assert ports.store.exists(name) and not ports.store.archived().exists(name)
    ports.store.archive(name, actor="contract", stamp="2026-01-02T00:00:00Z")
    gone = ports.store.delete_archived(name, actor="contract")
    assert gone.op == "delete" and not ports.store.archived().exists(name)


def test_archive_refuses_a_stale_plan(ports: Ports) -> None:
    name = ports.add("first")
    stale = ports.store.read(name).content_hash
    ports.store.update(name, {"statement": "second"}, actor="contract")
    with pytest.raises(ConflictError, match="plan"):
        ports.store.archive(name, actor="contract", stamp="2026-01-01T00:00:00Z", expect=stale)
    assert ports.store.read(name).statement == "second"


def test_log_refusal_records_and_stores_nothing(ports: Ports) -> None:
    change = ports.store.log_refusal("secret", actor="contract", source="user", reason="a key")
    assert change.op == "refuse" and change.after is None
    assert ports.store.memory_names() == []


def test_batch_and_locked_hold_many_writes(ports: Ports) -> None:
    with ports.store.batch():
        names = [ports.add(f"fact number {i}", base=f"fact-{i}") for i in range(3)]
    with ports.store.locked():
        pass
    assert sorted(n + ".md" for n in names) == ports.store.memory_names()


def test_fingerprint_moves_with_every_change(ports: Ports) -> None:
    empty = ports.store.fingerprint()
    name = ports.add("a")
    one = ports.store.fingerprint()
    ports.store.update(name, {"statement": "b"}, actor="contract")
    assert len({empty, one, ports.store.fingerprint()}) == 3


def test_scan_and_problems(ports: Ports) -> None:
    names = {ports.add("alpha", base="a"), ports.add("beta", base="b")}
    records, problems = ports.store.scan()
    assert {r.name for r in records} == names and problems == []
    assert ports.store.problems() == []


def test_tool_tree_shows_memories_index_and_archive_and_reads_their_bytes(ports: Ports) -> None:
    name = ports.add("The build runs on Python 3.11", base="python-version")
    other = ports.add("Deploys go through Helm", base="helm-deploys")
    ports.store.archive(other, actor="contract", stamp="2026-01-01T00:00:00Z")
    tree = ports.store.tool_tree()
    tree.refresh_index()
    assert tree.kind(()) == "folder"
    assert tree.kind((f"{name}.md",)) == "file"
    assert tree.kind(("archive",)) == "folder"
    assert tree.kind(("nothing.md",)) == "missing" and not tree.is_link((f"{name}.md",))
    data = tree.read((f"{name}.md",))
    assert data.startswith(b"---") and b"The build runs on Python 3.11" in data
    assert b"python-version" in tree.read(("MEMORY.md",))
    rows = dict((rel, size) for size, rel in tree.walk((), 2))
    assert f"{name}.md" in rows and "MEMORY.md" in rows and f"archive/{other}.md" in rows
    assert rows[f"{name}.md"] == len(data)
    assert rows[""] >= rows[f"{name}.md"] + rows["MEMORY.md"]
    with pytest.raises(NotFoundError):
        tree.read(("nothing.md",))
    assert [rel for _, rel in tree.walk((), 1)][:1] == [""]
    assert f"archive/{other}.md" not in {rel for _, rel in tree.walk((), 1)}  # depth holds
