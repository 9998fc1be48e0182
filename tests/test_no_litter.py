"""Reading never writes into a repository (issue 18, part 3): in a fresh ``git init`` repository
no reading command — each a process of its own, as a person or an editor starts them — and no
MCP server creates anything; the first write creates ``.agent/`` with its ``.gitignore``, so
``git status`` shows the memories and never the derived files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from conftest import snapshot
from memdir import Memory

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

ENTRY = ["-c", "import sys; from memdir.cli import main; sys.exit(main())"]
READERS = [
    ["list"],
    ["list", "--archived"],
    ["recall", "which package manager do we use?"],
    ["recall", "--archived", "pnpm"],
    ["show", "use-pnpm"],
    ["context"],
    ["doctor"],
    ["history"],
    ["reindex", "--verify"],
]


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDIR_")}
    env.update(
        MEMDIR_HOME=str(tmp / "home"),
        MEMDIR_EMBEDDER="hashing",
        XDG_CACHE_HOME=str(tmp / "cache"),
        PYTHONIOENCODING="utf-8",
    )
    return env


def _memdir(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *ENTRY, *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "fresh"
    path.mkdir()
    _git(path, "init", "-q")
    (path / "README").write_text("a repository of someone's own\n", encoding="utf-8")
    _git(path, "add", "README")
    _git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    return path


def test_reading_commands_create_nothing_in_a_fresh_repository(repo: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    before = snapshot(repo)
    for args in READERS:
        result = _memdir(repo, env, *args)
        assert "Traceback" not in result.stderr, (args, result.stderr)
        assert snapshot(repo) == before, f"memdir {' '.join(args)} wrote into the repository"
        assert _git(repo, "status", "--porcelain", "--untracked-files=all") == "", args
    assert not (repo / ".agent").exists()


def test_the_mcp_server_reads_without_writing_into_the_repository(
    repo: Path, tmp_path: Path
) -> None:
    env = _env(tmp_path)
    before = snapshot(repo)
    params = StdioServerParameters(
        command=sys.executable, args=[*ENTRY, "serve", "--mcp"], env=env, cwd=str(repo)
    )

    async def main() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            for tool, arguments in [
                ("list", {}),
                ("recall", {"query": "which package manager do we use?"}),
                ("history", {}),
            ]:
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, (tool, result.content)

    anyio.run(main)
    assert snapshot(repo) == before
    assert _git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_first_write_creates_agent_with_its_gitignore(repo: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    made = _memdir(repo, env, "remember", "Use pnpm, not npm", "--type", "project")
    assert made.returncode == 0, made.stderr
    for args in READERS:  # now with an index, locks and a recall log to write
        assert _memdir(repo, env, *args).returncode in (0, 1)
    gitignore = repo / ".agent" / ".gitignore"
    assert gitignore.is_file() and ".index/" in gitignore.read_text(encoding="utf-8")
    assert (repo / ".agent" / "memory" / ".index" / "index.sqlite").is_file()  # built, ignored
    status = _git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    shown = sorted(line[3:] for line in status)
    assert ".agent/memory/use-pnpm-not-npm.md" in shown
    assert ".agent/.gitignore" in shown and ".agent/memory/MEMORY.md" in shown
    derived = [p for p in shown if "/.index/" in p or p.endswith("lock") or p.endswith(".tmp")]
    assert derived == [], derived
    assert all(line.startswith("?? ") for line in status)  # nothing of the user's changed


def test_an_existing_agent_dir_without_gitignore_is_left_as_its_owner_made_it(
    repo: Path, tmp_path: Path
) -> None:
    (repo / ".agent").mkdir()
    made = _memdir(repo, _env(tmp_path), "remember", "A fact", "--type", "project")
    assert made.returncode == 0, made.stderr
    assert not (repo / ".agent" / ".gitignore").exists()
    assert (repo / ".agent" / "memory" / "a-fact.md").is_file()


def test_a_first_session_creates_agent_with_its_gitignore(repo: Path) -> None:
    # a transcript is the person's own (truth, but personal): .gitignore keeps sessions/ out
    memory = Memory(home=repo.parent / "home", cwd=repo)
    with memory.session() as session:
        session.append({"role": "user", "content": "hello"})
    assert (repo / ".agent" / "sessions").is_dir()
    assert "sessions/" in (repo / ".agent" / ".gitignore").read_text(encoding="utf-8")
    status = _git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert status == ["?? .agent/.gitignore"], status
