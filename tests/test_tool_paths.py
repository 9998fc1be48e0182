"""F2: hostile paths through every memory-tool command.

Each path is tried through every command it can appear in (``path`` of view, create,
str_replace, insert and delete; ``old_path`` and ``new_path`` of rename). Every call must come
back as an error text naming what is wrong, no output may contain the sentinel kept outside
the scope directories, and the whole temporary tree — both homes, the project, the sentinel —
must be byte-for-byte the same afterwards: nothing was read out or written anywhere.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from conftest import snapshot
from memdir import Memory
from memdir.tools import MemoryTool

SENTINEL = "SENTINEL-7f3a9c-never-shown"
OUTSIDE_MEMORY = f"---\nname: secret\ndescription: {SENTINEL}\ntype: user\n---\n{SENTINEL}\n"

# (path, a phrase the refusal must contain)
HOSTILE: list[tuple[Any, str]] = [
    ("/memories/../outside/secret.md", "'..' segment"),
    ("/memories/user/../../../outside/secret.md", "'..' segment"),
    ("/memories/user/%2e%2e/%2e%2e/outside/secret.md", "percent-encoding"),
    ("/memories/user/%2E%2E%2Fsecret.md", "percent-encoding"),
    ("/memories/user/%00.md", "percent-encoding"),
    ("/etc/passwd", "starts with /memories"),
    ("OUTSIDE_ABSOLUTE", "starts with /memories"),
    ("file:///etc/passwd", "starts with /memories"),
    ("memories/user/keep.md", "starts with /memories"),
    ("/memories-evil/keep.md", "starts with /memories"),
    ("~/secret.md", "'~' is not expanded"),
    ("/memories/user/~/secret.md", "'~' is not expanded"),
    ("/memories/user/evil.md", "symbolic link"),  # a symlink to the sentinel
    ("/memories/user/cross.md", "symbolic link"),  # a symlink into the other scope
    ("/memories/project/archive/secret.md", "symbolic link"),  # archive/ links outside
    ("/memories/user/log/secret.md", "symbolic link"),  # log/ links outside
    ("/memories/user/keep\x00.md", "control character"),
    ("/memories/user/keep.md\n", "control character"),
    ("/memories/user/" + "a" * 400 + ".md", "characters long (at most 300)"),
    ("/memories/user/" + "b" * 150 + ".md", "segment is 153 characters long"),
    ("/memories/user\\..\\..\\outside\\secret.md", "backslash"),
    ("/memories\uff0fuser\uff0fkeep.md", "FULLWIDTH SOLIDUS"),
    ("/memories/user/\u2024\u2024/secret.md", "ONE DOT LEADER"),
    ("/memories/user\u2044keep.md", "FRACTION SLASH"),
    ("/memories/user\u2215keep.md", "DIVISION SLASH"),
    ("/memories/user/ke\u200bep.md", "ZERO WIDTH SPACE"),
    ("/memories/user/\uff4b\uff45\uff45\uff50.md", "FULLWIDTH LATIN SMALL LETTER K"),
    ("/memories/user/ke\u0301ep.md", "normal form NFKC"),  # e + combining acute
    ("/memories/user/.history/changes.jsonl", "'.history' is hidden"),
    ("/memories/user/.index", "'.index' is hidden"),
    ("/memories/user/keep.md.", "ends with a dot"),
    ("/memories/user/keep.md ", "contains ' '"),
    ("/memories/user//keep.md", "'empty' segment"),
    ("/memories/./user/keep.md", "'.' segment"),
    ("/memories/user/sub/dir/keep.md", "directly in /memories/<scope>/"),
    ("", "must be a path under /memories"),
    (42, "must be a path under /memories"),
]


@pytest.fixture
def world(mem: Memory, sandbox: Path) -> tuple[MemoryTool, Path]:
    """Two memories, a sentinel outside the scopes, and symlinks that try to reach it."""
    mem.remember("Keep this one", type="user", name="keep")
    mem.remember("A project fact", type="project", name="fact")
    outside = sandbox / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(OUTSIDE_MEMORY, encoding="utf-8")
    user_dir = mem.store("user").dirs.memory
    project_dir = mem.store("project").dirs.memory
    (user_dir / "evil.md").symlink_to(outside / "secret.md")
    (user_dir / "cross.md").symlink_to(project_dir / "fact.md")
    (project_dir / "archive").symlink_to(outside, target_is_directory=True)
    (user_dir / "log").symlink_to(outside, target_is_directory=True)
    for scope in mem.scopes():
        mem.store(scope).refresh_index()  # the hand-made links are seen now, not during the test
    return mem.tool(), outside


def _calls(path: Any) -> list[dict[str, Any]]:
    return [
        {"command": "view", "path": path},
        {"command": "view", "path": path, "view_range": [1, 2]},
        {"command": "create", "path": path, "file_text": f"owned {SENTINEL}"},
        {"command": "str_replace", "path": path, "old_str": SENTINEL, "new_str": "owned"},
        {"command": "insert", "path": path, "insert_line": 0, "insert_text": "owned"},
        {"command": "delete", "path": path},
        {"command": "rename", "old_path": path, "new_path": "/memories/user/moved.md"},
        {"command": "rename", "old_path": "/memories/user/keep.md", "new_path": path},
    ]


def test_there_are_enough_hostile_paths() -> None:
    assert len(HOSTILE) >= 20


@pytest.mark.parametrize(("path", "reason"), HOSTILE, ids=[ascii(p)[:40] for p, _ in HOSTILE])
def test_hostile_path_is_refused_by_every_command(
    world: tuple[MemoryTool, Path], sandbox: Path, path: Any, reason: str
) -> None:
    tool, outside = world
    if path == "OUTSIDE_ABSOLUTE":
        path = str(outside / "secret.md")
    before = snapshot(sandbox)
    for call in _calls(path):
        out = tool.handle(call)
        assert out.startswith("Error"), (call, out)
        assert reason in out, (call, out)
        assert SENTINEL not in out, (call, out)
        if reason != "symbolic link":
            assert "A valid path looks like /memories/user/<name>.md" in out, out
    assert snapshot(sandbox) == before


def test_listings_do_not_follow_links_out(world: tuple[MemoryTool, Path], sandbox: Path) -> None:
    tool, _ = world
    before = snapshot(sandbox)
    for path in ("/memories", "/memories/user", "/memories/project"):
        out = tool.handle({"command": "view", "path": path})
        assert out.startswith("Here're the files and directories"), out
        assert SENTINEL not in out and "evil.md" not in out and "secret.md" not in out
    assert "/memories/user/keep.md" in tool.handle({"command": "view", "path": "/memories"})
    assert snapshot(sandbox) == before


def test_search_never_shows_the_outside_file(world: tuple[MemoryTool, Path]) -> None:
    tool, _ = world
    out = tool.handle({"command": "search", "query": "sentinel never shown secret"})
    assert SENTINEL not in out and "evil.md" not in out and "secret.md" not in out


def test_a_link_inside_the_scope_may_be_viewed_but_not_written(
    world: tuple[MemoryTool, Path], mem: Memory
) -> None:
    tool, _ = world
    user_dir = mem.store("user").dirs.memory
    (user_dir / "alias.md").symlink_to(user_dir / "keep.md")
    out = tool.handle({"command": "view", "path": "/memories/user/alias.md"})
    assert "Keep this one" in out
    out = tool.handle(
        {
            "command": "str_replace",
            "path": "/memories/user/alias.md",
            "old_str": "Keep",
            "new_str": "x",
        }
    )
    assert out.startswith("Error") and "symbolic link" in out
    assert (user_dir / "alias.md").is_symlink()
    assert "Keep this one" in (user_dir / "keep.md").read_text(encoding="utf-8")


def test_a_scope_folder_that_is_itself_a_link_still_works(sandbox: Path) -> None:
    """Pointing ~/.agent/memory at a synced folder is legitimate: containment is checked
    against the scope directory's real location."""
    real = sandbox / "synced"
    real.mkdir()
    home = sandbox / "home"
    home.mkdir(exist_ok=True)
    os.symlink(real, home / "memory", target_is_directory=True)
    m = Memory()
    out = m.tool().handle({"command": "create", "path": "/memories/user/x.md", "file_text": "Hi"})
    assert out.startswith("File created successfully at: /memories/user/x.md"), out
    assert (real / "x.md").is_file()
