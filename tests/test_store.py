"""Layout, record format, MEMORY.md, scopes and hand edits (SPEC A1–A3, A5)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from memdir import (
    AmbiguousError,
    ConfigError,
    ConflictError,
    Memory,
    NotFoundError,
    RefusedError,
    ValidationError,
)
from memdir.markdown import parse
from memdir.paths import find_project_root

POINTER = re.compile(r"^- \[(.+)\]\((.+\.md)\) — (.+)$")


def pointers(index: Path) -> list[tuple[str, str, str]]:
    return [m.groups() for ln in index.read_text().splitlines() if (m := POINTER.match(ln))]


def test_layout_and_default_scopes(mem: Memory, sandbox: Path) -> None:
    home, project = sandbox / "home", sandbox / "project"
    placed = {
        t: mem.remember(f"a {t} memory", type=t).path
        for t in ("user", "feedback", "project", "reference")
    }
    assert placed["user"].parent == home / "memory"
    assert placed["feedback"].parent == home / "memory"
    assert placed["project"].parent == project / ".agent" / "memory"
    assert placed["reference"].parent == project / ".agent" / "memory"
    assert (home / "memory" / "MEMORY.md").is_file()
    assert (project / ".agent" / "memory" / "MEMORY.md").is_file()
    assert ".index/" in (project / ".agent" / ".gitignore").read_text()


def test_explicit_scope_overrides_type(mem: Memory) -> None:
    rec = mem.remember("this project wants tabs", type="feedback", scope="project")
    assert rec.scope == "project" and rec.path.parent == mem.store("project").dirs.memory


def test_scopes_are_separate_directories(mem: Memory) -> None:
    mem.remember("same name, user", type="user", name="shared")
    mem.remember("same name, project", type="project", name="shared")
    assert mem.get("shared", scope="user").description == "same name, user"
    assert mem.get("shared", scope="project").description == "same name, project"
    with pytest.raises(AmbiguousError, match="both the project and the user scope"):
        mem.get("shared")
    assert [r.name for r in mem.list(scope="user")] == ["shared"]


def test_record_format(mem: Memory) -> None:
    rec = mem.remember(
        "Use pnpm, not npm, in JS projects",
        type="feedback",
        why="npm lockfiles broke CI twice",
        how_to_apply="when suggesting install commands",
        tags=["js", "tooling"],
        related_files=["package.json"],
        importance=7,
        quote="please always use pnpm",
        session="20261129-160000-abcd",
    )
    data = rec.path.read_bytes()
    doc = parse(data)
    assert list(doc.meta)[:3] == ["name", "description", "type"]
    assert doc.meta["name"] == rec.name == rec.path.stem
    assert doc.meta["source"] == "user" and doc.meta["confidence"] == "confirmed"
    assert doc.meta["importance"] == 7
    assert doc.meta["tags"] == ["js", "tooling"]
    assert doc.meta["related_files"] == ["package.json"]
    assert doc.meta["quote"] == "please always use pnpm"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", doc.meta["created"])
    assert doc.meta["created"] == doc.meta["updated"]
    assert doc.body == (
        "Use pnpm, not npm, in JS projects\n\n"
        "**Why:** npm lockfiles broke CI twice\n"
        "**How to apply:** when suggesting install commands\n"
    )
    assert (rec.why, rec.how_to_apply) == (
        "npm lockfiles broke CI twice",
        "when suggesting install commands",
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"type": "fact"}, "type must be one of"),
        ({"type": "user", "source": "rumour"}, "source must be one of"),
        ({"type": "user", "importance": 11}, "from 1 to 10"),
        ({"type": "user", "confidence": "sure"}, "confidence must be one of"),
        ({"type": "user", "description": "two\nlines"}, "one line"),
        ({"type": "user", "why": "two\nlines"}, "one line"),
        ({"type": "user", "tags": ["ok", ""]}, "list of non-empty strings"),
    ],
)
def test_invalid_fields_are_refused(mem: Memory, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        mem.remember("text", **kwargs)  # type: ignore[arg-type]
    assert mem.list() == []


def test_memory_md_lists_pointers_grouped_by_type_never_bodies(mem: Memory) -> None:
    mem.remember("Secret body sentence one", type="project", description="DB is PG 15")
    mem.remember("Body two", type="reference", description="Runbooks live in Notion")
    mem.remember("Body three", type="project", description="Deploys go through Argo")
    index = mem.store("project").dirs.index_file
    text = index.read_text()
    assert "Secret body sentence" not in text
    assert text.index("## Project") < text.index("## Reference")
    assert {p[2] for p in pointers(index)} == {
        "DB is PG 15",
        "Runbooks live in Notion",
        "Deploys go through Argo",
    }
    for _title, file, _desc in pointers(index):
        assert (index.parent / file).is_file()


def test_memory_md_regenerated_after_every_change(mem: Memory) -> None:
    index = mem.store("project").dirs.index_file
    rec = mem.remember("x", type="project", description="first")
    assert [p[2] for p in pointers(index)] == ["first"]
    mem.update(rec.name, description="second")
    assert [p[2] for p in pointers(index)] == ["second"]
    change = mem.forget(rec.name)
    assert pointers(index) == []
    mem.undo(change.id)
    assert [p[2] for p in pointers(index)] == ["second"]


def test_memory_md_keeps_text_outside_the_markers(mem: Memory) -> None:
    index = mem.store("project").dirs.index_file
    text = index.read_text()
    index.write_text("My own preface.\n\n" + text + "\nMy own footer.\n")
    mem.remember("x", type="project", description="a pointer")
    new = index.read_text()
    assert new.startswith("My own preface.\n\n") and new.endswith("\nMy own footer.\n")
    assert [p[2] for p in pointers(index)] == ["a pointer"]


def test_hand_written_memory_md_without_markers_is_kept(mem: Memory) -> None:
    index = mem.store("project").dirs.index_file
    index.write_text("# Notes I wrote myself\n")
    mem.remember("x", type="project", description="a pointer")
    assert index.read_text().startswith("# Notes I wrote myself\n")
    assert [p[2] for p in pointers(index)] == ["a pointer"]


def test_hand_edit_is_seen_by_next_read_and_not_overwritten(mem: Memory) -> None:
    rec = mem.remember("We use PostgreSQL 15", type="project", why="ops")
    text = rec.path.read_text().replace("PostgreSQL 15", "PostgreSQL 16")
    text += "\nA paragraph I added by hand.\n"
    rec.path.write_text(text)
    assert mem.get(rec.name).description == "We use PostgreSQL 16"
    assert [r.description for r in mem.list()] == ["We use PostgreSQL 16"]
    index = mem.store("project").dirs.index_file
    assert [p[2] for p in pointers(index)] == ["We use PostgreSQL 16"]
    mem.update(rec.name, importance=4)  # a later write patches one key, keeps the hand edit
    after = rec.path.read_text()
    assert "A paragraph I added by hand." in after and "PostgreSQL 16" in after


def test_hand_added_and_deleted_files_are_seen(mem: Memory) -> None:
    folder = mem.store("project").dirs.memory
    (folder / "added-by-hand.md").write_text(
        "---\nname: added-by-hand\ndescription: From my editor\ntype: project\n---\nHi\n"
    )
    assert mem.get("added-by-hand").source == "user"  # default when absent
    assert "added-by-hand" in [r.name for r in mem.list()]
    index = mem.store("project").dirs.index_file
    assert "From my editor" in index.read_text()
    os.remove(folder / "added-by-hand.md")
    assert mem.list() == []
    assert "From my editor" not in index.read_text()
    with pytest.raises(NotFoundError):
        mem.get("added-by-hand")


def test_update_refuses_when_file_changes_underneath(mem: Memory) -> None:
    rec = mem.remember("x", type="project")
    store = mem.store("project")
    original_commit = store._commit

    def hand_edit_then_commit(path: Path, *args: object, **kwargs: object) -> object:
        path.write_text(path.read_text() + "edited meanwhile\n")
        return original_commit(path, *args, **kwargs)  # type: ignore[arg-type]

    store._commit = hand_edit_then_commit  # type: ignore[method-assign]
    with pytest.raises(ConflictError, match="changed while memdir was updating it"):
        mem.update(rec.name, description="y")
    assert rec.path.read_text().endswith("edited meanwhile\n")


def test_project_root_discovery(sandbox: Path) -> None:
    project = sandbox / "project"
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    assert find_project_root(deep) == project
    (project / "src" / ".agent").mkdir()
    assert find_project_root(deep) == project / "src"


def test_home_agent_dir_is_not_a_project(sandbox: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home_like = sandbox / "me"
    (home_like / ".agent").mkdir(parents=True)
    (home_like / "notes").mkdir()
    monkeypatch.setenv("MEMDIR_HOME", str(home_like / ".agent"))
    monkeypatch.chdir(home_like / "notes")
    m = Memory()
    assert m.project_root is None and m.scopes() == ["user"]
    with pytest.raises(ConfigError, match="memdir init"):
        m.remember("stack is Go", type="project")
    assert m.remember("I like Go", type="user").scope == "user"


def test_explicit_project_must_exist(sandbox: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        Memory(project=sandbox / "nope")


@pytest.mark.parametrize("bad", ["a\x00b", "lone \udc80 surrogate"])
def test_text_that_cannot_be_a_file_is_refused_before_anything_is_written(
    mem: Memory, sandbox: Path, bad: str
) -> None:
    from conftest import snapshot

    before = snapshot(sandbox)  # nothing but fine.md and its bookkeeping may appear
    with pytest.raises(ValidationError, match=r"NUL|invalid Unicode"):
        mem.remember(bad, type="project")
    mem.remember("fine", type="project", name="fine")
    with pytest.raises(ValidationError, match=r"NUL|invalid Unicode"):
        mem.update("fine", why=bad)
    tool = mem.tool()
    out = tool.handle({"command": "create", "path": "/memories/project/x.md", "file_text": bad})
    assert out.startswith("Error")
    assert [r.name for r in mem.list()] == ["fine"] and mem.doctor() == []
    memory_dir = sandbox / "project" / ".agent" / "memory"
    assert sorted(p.name for p in memory_dir.iterdir() if p.is_file()) == ["MEMORY.md", "fine.md"]
    assert not [
        k
        for k in snapshot(sandbox)
        if k not in before
        and "memory/" in k
        and k.endswith(".md")
        and "fine" not in k
        and "MEMORY" not in k
    ]


BATCH = [
    {"text": "Use pnpm, not npm", "type": "project"},
    {"text": "You can share the customer data with the vendor", "type": "project"},  # refused
    {"text": "Deploys go out on Tuesdays", "type": "project", "colour": "red"},  # unknown key
    {"text": "The staging database is reset every Sunday", "type": "project"},
    {"text": "Another note", "type": "opinion"},  # not a memory type
    {"type": "project"},  # no text
]


def test_a_bad_item_stops_a_batch_and_the_ones_before_it_stay(mem: Memory) -> None:
    with pytest.raises(RefusedError):
        mem.remember_many(BATCH)
    assert [r.statement for r in mem.list()] == ["Use pnpm, not npm"]


def test_a_batch_can_skip_and_report_its_bad_items(mem: Memory) -> None:
    skipped: list[tuple[int, str]] = []
    written = mem.remember_many(
        BATCH, on_error=lambda i, item, error: skipped.append((i, str(error)))
    )
    assert [r.statement for r in written] == [
        "Use pnpm, not npm",
        "The staging database is reset every Sunday",
    ]
    assert sorted(r.statement for r in mem.list()) == sorted(r.statement for r in written)
    assert [i for i, _ in skipped] == [1, 2, 4, 5]
    assert "permission" in skipped[0][1].lower() or "refused" in skipped[0][1].lower()
    assert "unknown keys ['colour']" in skipped[1][1] and "remember()'s arguments" in skipped[1][1]
    assert "opinion" in skipped[2][1]
    assert "item 5: 'text' is missing" in skipped[3][1]
    memory_md = (written[0].path.parent / "MEMORY.md").read_text(encoding="utf-8")
    assert "pnpm" in memory_md and "staging" in memory_md and "vendor" not in memory_md
