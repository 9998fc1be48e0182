"""The session guide's index lines on PostgreSQL (issue 20: same behaviour on both backends):
a database scope keeps no MEMORY.md, so the guide lists its memories from the rows — the very
lines the file backend's MEMORY.md holds for the same memories, cut at the same budget."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from memdir import Memory
from memdir.backends import open_backend
from memdir.context import guide_facts, guide_index

MEMORIES = [
    ("The user prefers green tea", "user"),
    ("Deploys go out with ops/deploy.sh on Fridays", "project"),
    ("Use pnpm, not npm", "feedback"),
]


def _both(sandbox: Path, dsn: str) -> tuple[Memory, Memory]:
    files = Memory(home=sandbox / "files-home", backend="file")
    pg = Memory(home=sandbox / "pg-home", backend=open_backend(dsn, owner="alice"))
    for mem in (files, pg):
        for text, kind in MEMORIES:
            mem.remember(text, type=kind, scope="user")
    return files, pg


def _index_part(guide: str) -> str:
    """The user index's fenced lines of a guide, without the heading that names where."""
    part = guide.split("## User memory index", 1)[1]
    return part.split("\n", 1)[1].split("\n## ", 1)[0]


def test_the_guide_lists_database_memories_as_the_file_backend_lists_memory_md(
    sandbox: Path,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    files, pg = _both(sandbox, pg_app_dsn)
    on_files, on_pg = files.memory_guide(), pg.memory_guide()
    assert guide_index(on_pg) == guide_index(on_files)
    assert len(guide_index(on_pg)["user"]) == len(MEMORIES)
    assert _index_part(on_pg) == _index_part(on_files)
    assert "## User memory index (`memdir list --scope user`)" in on_pg
    assert guide_facts(on_pg)["truncated"] is False


def test_an_empty_database_scope_says_so_as_an_empty_file_scope_does(
    sandbox: Path,
    pg_app_dsn: str,  # noqa: F811
) -> None:
    pg = Memory(home=sandbox / "pg-home", backend=open_backend(pg_app_dsn, owner="bob"))
    files = Memory(home=sandbox / "files-home", backend="file")
    files.remember("x", type="user", scope="user")
    files.forget(files.list()[0].name)
    assert guide_index(pg.memory_guide()) == {"project": {}, "user": {}}
    assert _index_part(pg.memory_guide()) == _index_part(files.memory_guide())


@pytest.mark.parametrize("limit", [120, 200])
def test_the_database_index_is_cut_at_the_same_budget_and_says_where_the_rest_is(
    sandbox: Path,
    pg_app_dsn: str,  # noqa: F811
    limit: int,
) -> None:
    files, pg = _both(sandbox, pg_app_dsn)
    policy = files.policy()
    user = dataclasses.replace(policy.long_memory.user, max_chars=limit)
    small = dataclasses.replace(
        policy, long_memory=dataclasses.replace(policy.long_memory, user=user)
    )
    on_files, on_pg = files.memory_guide(small), pg.memory_guide(small)
    assert guide_facts(on_pg)["truncated"] and guide_facts(on_files)["truncated"]
    assert guide_index(on_pg) == guide_index(on_files)
    assert "are in `memdir list --scope user` — read the rest there" in on_pg
    cut_files = _index_part(on_files).split("[memdir] Cut at")[0]
    assert _index_part(on_pg).split("[memdir] Cut at")[0] == cut_files
