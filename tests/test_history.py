"""Change log and undo (SPEC A7): every change logged, any change undone byte-for-byte."""

from __future__ import annotations

import json

import pytest

from memdir import AmbiguousError, ConflictError, Memory, NotFoundError, ValidationError
from memdir.markdown import content_hash


def test_every_change_is_logged_with_hashes(mem: Memory) -> None:
    rec = mem.remember("x", type="project", source="inferred", reason="test")
    v1 = rec.path.read_bytes()
    rec2 = mem.update(rec.name, description="changed")
    v2 = rec2.path.read_bytes()
    mem.forget(rec.name, reason="wrong")
    create, update, delete = mem.history(rec.name)
    assert (create.op, update.op, delete.op) == ("create", "update", "delete")
    assert create.before is None and create.after == content_hash(v1)
    assert update.before == content_hash(v1) and update.after == content_hash(v2)
    assert delete.before == content_hash(v2) and delete.after is None
    assert {c.actor for c in (create, update, delete)} == {"user"}
    assert create.source == "inferred" and delete.reason == "wrong" and create.reason == "test"
    assert all(c.scope == "project" and c.time.endswith("Z") for c in (create, update, delete))
    lines = mem.store("project").dirs.changes.read_text().splitlines()
    assert [json.loads(ln)["op"] for ln in lines] == ["create", "update", "delete"]
    assert set(json.loads(lines[0])) >= {"time", "op", "name", "actor", "source", "before", "after"}


def test_undo_forget_restores_bytes(mem: Memory) -> None:
    rec = mem.remember("我们的发布窗口是周二", type="project", why="QA 周一排期", tags=["发布"])
    data = rec.path.read_bytes()
    change = mem.forget(rec.name)
    assert not rec.path.exists()
    undo = mem.undo(change.id[:6])
    assert rec.path.read_bytes() == data
    assert undo.op == "undo" and undo.undoes == change.id
    assert mem.get(rec.name).tags == ("发布",)


def test_undo_update_and_create_and_undo_of_undo(mem: Memory) -> None:
    rec = mem.remember("x", type="user")
    v1 = rec.path.read_bytes()
    mem.update(rec.name, description="second")
    update = mem.history(rec.name)[-1]
    undo = mem.undo(update.id)
    assert rec.path.read_bytes() == v1
    mem.undo(undo.id)  # redo
    assert mem.get(rec.name).description == "second"
    create = mem.history(rec.name)[0]
    with pytest.raises(ConflictError, match="undo the later changes first"):
        mem.undo(create.id)  # the file moved on since the create
    assert rec.path.exists()


def test_undo_refuses_after_a_hand_edit(mem: Memory) -> None:
    rec = mem.remember("x", type="user")
    mem.update(rec.name, description="second")
    rec.path.write_text(rec.path.read_text() + "my note\n")
    with pytest.raises(ConflictError, match="hand edit"):
        mem.undo(mem.history(rec.name)[-1].id)
    assert rec.path.read_text().endswith("my note\n")


def test_undo_errors(mem: Memory) -> None:
    with pytest.raises(NotFoundError, match="memdir history"):
        mem.undo("ffffffff")
    with pytest.raises(ValidationError, match="at least 4"):
        mem.undo("ab")
    rec = mem.remember("x", type="user")
    log = mem.store("user").dirs.changes
    entry = json.loads(log.read_text())
    with open(log, "a") as handle:  # two entries whose ids share a prefix
        for suffix in ("1111", "2222"):
            handle.write(json.dumps({**entry, "id": "abcd" + suffix}) + "\n")
    with pytest.raises(AmbiguousError, match="give more characters"):
        mem.undo("abcd")
    assert rec.path.exists()


def test_history_filters_by_name_and_scope(mem: Memory) -> None:
    a = mem.remember("a", type="user")
    b = mem.remember("b", type="project")
    assert [c.name for c in mem.history(a.name)] == [a.name]
    assert [c.name for c in mem.history(scope="project")] == [b.name]
    assert len(mem.history()) == 2
