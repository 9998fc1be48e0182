"""The memory tool on the PostgreSQL backend (issue 19: the tool's tree is the Store's, so it
works on any backend): a model views, creates, edits, renames and deletes memories whose truth
is rows, with the same result texts as on files, and nothing is written anywhere else."""

from __future__ import annotations

import threading
import traceback
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.pgapp import pg_app_dsn, pg_app_role  # noqa: F401
from tests.pgserver import pg_dsn, pg_server  # noqa: F401

from memdir import Memory
from memdir.backends import open_backend


def _pg(dsn: str, owner: str = "alice") -> Memory:
    return Memory(backend=open_backend(dsn, owner=owner), embedder="hashing", llm=False)


def test_the_memory_tool_works_on_postgresql(sandbox: Path, pg_app_dsn: str) -> None:  # noqa: F811
    mem = _pg(pg_app_dsn)
    tool = mem.tool()
    made = tool.handle(
        {"command": "create", "path": "/memories/user/short-answers.md",
         "file_text": "The user prefers short answers.\n"}
    )  # fmt: skip
    assert made.ok, made.text
    listing = tool.handle({"command": "view", "path": "/memories"})
    assert listing.ok and "/memories/user/short-answers.md" in listing.text
    assert "/memories/user/MEMORY.md" in listing.text
    index = tool.handle({"command": "view", "path": "/memories/user/MEMORY.md"})
    assert index.ok and "short-answers.md" in index.text
    shown = tool.handle({"command": "view", "path": "/memories/user/short-answers.md"})
    assert shown.ok and "The user prefers short answers." in shown.text
    edited = tool.handle(
        {"command": "str_replace", "path": "/memories/user/short-answers.md",
         "old_str": "description: The user prefers short answers.",
         "new_str": "description: Short, direct answers"}
    )  # fmt: skip
    assert edited.ok, edited.text
    assert mem.get("short-answers").description == "Short, direct answers"
    renamed = tool.handle(
        {"command": "rename", "old_path": "/memories/user/short-answers.md",
         "new_path": "/memories/user/answer-style.md"}
    )  # fmt: skip
    assert renamed.ok, renamed.text
    again = tool.handle(
        {"command": "create", "path": "/memories/user/answer-style.md", "file_text": "x"}
    )
    assert not again.ok and "already exists" in again.text
    missing = tool.handle({"command": "view", "path": "/memories/user/short-answers.md"})
    assert not missing.ok and "does not exist" in missing.text
    assert tool.handle({"command": "delete", "path": "/memories/user/answer-style.md"}).ok
    assert [r.name for r in mem.list()] == []
    # every change is the database's, logged as the agent's, undoable
    changes = mem.history()
    assert [c.op for c in changes][-1] == "delete" and "create" in {c.op for c in changes}
    assert {c.actor for c in changes} == {"agent"}
    # and nothing went to files: no scope directory was made for the tool
    assert not (sandbox / "home" / ".agent" / "memory").exists()
    with psycopg.connect(pg_app_dsn) as conn:
        conn.execute("SELECT set_config('memdir.owner', 'bob', false)")
        assert conn.execute("SELECT count(*) FROM changes").fetchone() == (0,)  # bob sees none


def test_every_mcp_call_on_postgresql_borrows_through_one_lease(
    sandbox: Path,
    pg_app_dsn: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An MCP call is a lease (issue 20), as a REST call and a CLI command are: its store
    writes, index sync and recall log share one connection taken from the pool once per call
    into the facade, instead of one borrow per statement block."""
    import anyio
    from mcp import Client

    from memdir.mcp import build_server
    from memdir.pg.pool import Pool

    mem = _pg(pg_app_dsn)
    mem.remember("Alice deploys on Fridays", type="user", scope="user")
    takes: list[bool] = []  # per connection taken from the pool: whether a lease took it
    take = Pool._take

    def counted(self: Pool) -> psycopg.Connection[Any]:
        if threading.current_thread().name.startswith("memdir-mcp"):
            takes.append(any(f.name == "lease" for f in traceback.extract_stack()))
        return take(self)

    monkeypatch.setattr(Pool, "_take", counted)

    async def main() -> None:
        async with Client(build_server(mem)) as client:
            for tool, args in (
                ("remember", {"text": "Alice reviews on Mondays", "type": "user"}),
                ("recall", {"query": "when does Alice review?"}),
                ("list", {}),
                ("history", {}),
            ):
                result = await client.call_tool(tool, args)
                assert not result.is_error, result.content

    anyio.run(main)
    assert takes and all(takes), takes
