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


# -- issue 26: a kill at any step leaves every change in the history, and undoable ------------
CRASH_OPS = """
import sys
from memdir import Memory
m = Memory()
store = m.store("project")
op = sys.argv[1]
if op == "create":
    m.remember("a brand new fact", type="project", name="fresh")
elif op == "update":
    m.update("alpha", description="changed by the crashing writer")
elif op == "delete":
    m.forget("alpha")
elif op == "rename":
    store.rename("alpha", "omega", actor="user")
elif op == "archive":
    store.archive("alpha", actor="user", stamp="2026-01-01")
elif op == "restore":
    m.restore("beta")
elif op == "undo":
    m.undo(m.history("alpha")[-1].id)
"""
CRASH_POINTS = ("before-rename:1", "before-rename:2", "before-rename:3", "after-log", "after-write")
CRASH_POINTS += ("before-done",)
CRASH_OP_NAMES = ("create", "update", "delete", "rename", "archive", "restore", "undo")


def _memory_files(mem: Memory) -> dict[str, bytes]:
    """The memory files of the project scope (archive included), by relative path."""
    root = mem.store("project").dirs.memory
    files = [*root.glob("*.md"), *root.glob("archive/*.md")]
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in files if p.name != "MEMORY.md"}


def _crash_setup(mem: Memory) -> None:
    mem.remember("alpha fact", type="project", name="alpha")
    mem.update("alpha", why="so there is an update to undo")
    mem.remember("beta fact", type="project", name="beta")
    mem.store("project").archive("beta", actor="user", stamp="2026-01-01")


@pytest.mark.parametrize("point", CRASH_POINTS)
@pytest.mark.parametrize("op", CRASH_OP_NAMES)
def test_a_kill_at_any_step_leaves_every_change_in_history_and_undoable(
    mem: Memory, op: str, point: str
) -> None:
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from memdir.files.steps import out_of_step

    _crash_setup(mem)
    before, logged = _memory_files(mem), len(mem.history())
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).parents[1] / "src"),
        "MEMDIR_TEST_CRASH": point,
    }
    proc = subprocess.run([sys.executable, "-c", CRASH_OPS, op], env=env, capture_output=True)
    # the writer killed itself at that named step (deterministic: no timing); a step the
    # operation never passes (a third atomic write) lets it finish
    assert proc.returncode in (-signal.SIGKILL, 0), proc.stderr.decode()
    fresh = Memory()
    fresh.remember("a later write settles the scope", type="project", name="later")
    fresh.forget("later")
    store = fresh.store("project")
    assert out_of_step(store) == []  # every file is what the history says memdir wrote
    assert not list(store.dirs.memory.glob(".*.tmp")) and not store.pending.exists()
    changes = fresh.history()[logged:-2]  # what the killed writer logged (0 or 1 change)
    assert len(changes) <= 1
    if changes:
        fresh.undo(changes[0].id)
    assert _memory_files(fresh) == before  # undone byte for byte: nothing lost, nothing extra
    assert [p for p in fresh.doctor() if p.severity == "error"] == []


def test_restore_puts_back_a_memory_overwritten_or_deleted_by_hand(mem: Memory) -> None:
    rec = mem.remember("the deploy key lives in the vault", type="project", name="deploy")
    written = rec.path.read_bytes()
    rec.path.write_text("overwritten by hand\n")
    [problem] = [p for p in mem.doctor() if "outside memdir" in p.reason]
    assert "`memdir restore deploy` puts back the version memdir wrote" in problem.reason
    change = mem.restore("deploy")
    assert rec.path.read_bytes() == written
    undo = mem.undo(change.id)  # the hand version was kept too
    assert rec.path.read_text() == "overwritten by hand\n"
    mem.undo(undo.id)
    assert rec.path.read_bytes() == written
    rec.path.unlink()
    [problem] = [p for p in mem.doctor() if "outside memdir" in p.reason]
    assert "deleted outside memdir" in problem.reason
    mem.restore("deploy")
    assert rec.path.read_bytes() == written
    with pytest.raises(ValidationError, match="nothing to restore"):
        mem.restore("deploy")


def test_doctor_fix_records_hand_changes_so_they_can_be_undone(mem: Memory) -> None:
    rec = mem.remember("port 8080", type="project", name="port")
    written = rec.path.read_bytes()
    rec.path.write_bytes(written.replace(b"8080", b"9090"))
    store = mem.store("project")
    tmp = store.dirs.objects / "ab" / ".deadbeef.1234.tmp"
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_bytes(b"left by a crash")
    assert any("changed outside memdir" in p.reason for p in mem.doctor())
    assert tmp.exists()  # doctor alone changes nothing
    problems = mem.doctor(fix=True)
    assert not any("outside memdir" in p.reason for p in problems) and not tmp.exists()
    recorded = mem.history("port")[-1]
    assert (recorded.op, recorded.actor) == ("update", "doctor")
    mem.undo(recorded.id)
    assert rec.path.read_bytes() == written


def test_a_hand_delete_of_the_last_write_is_not_undone_by_the_next_write(mem: Memory) -> None:
    rec = mem.remember("gone by hand", type="project", name="gone")
    rec.path.unlink()
    mem.remember("another", type="project")
    assert not rec.path.exists()  # hand edits win: only a write marked pending is completed
