"""Every test gets its own home and project: no test ever touches a real ~/.agent."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdir import Memory


@pytest.fixture(autouse=True)
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``$MEMDIR_HOME`` → ``tmp/home``; cwd → ``tmp/project`` (a git checkout)."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("MEMDIR_HOME", str(home))
    monkeypatch.delenv("MEMDIR_DEBUG", raising=False)
    for key in [k for k in os.environ if k.startswith("MEMDIR_LLM_")]:
        monkeypatch.delenv(key)  # never reach a developer's real model endpoint from a test
    monkeypatch.chdir(project)
    yield tmp_path


@pytest.fixture
def mem(sandbox: Path) -> Memory:
    m = Memory()
    m.init()
    return m


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` with its bytes (symlinks as their target)."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            out[str(path.relative_to(root))] = str(path.readlink()).encode()
        elif path.is_file():
            out[str(path.relative_to(root))] = path.read_bytes()
    return out


@pytest.fixture(autouse=True)
def hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests embed with the deterministic hashing embedder unless they ask for another."""
    monkeypatch.setenv("MEMDIR_EMBEDDER", "hashing")
