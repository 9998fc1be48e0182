"""Where memdir keeps its state (SPEC A1).

One function answers each "where" question so that tests, the CLI and the servers agree:

* ``home_dir()`` is ``$MEMDIR_HOME`` or ``~/.agent`` — the user scope lives in ``<home>/memory``.
* ``find_project_root(start)`` is the nearest ancestor of ``start`` holding ``.agent/`` or
  ``.git/`` (the user's home ``.agent`` does not count); the project scope lives in
  ``<root>/.agent/memory``.
* ``cache_dir()`` is ``$MEMDIR_CACHE_DIR``, else ``$XDG_CACHE_HOME/memdir``, else
  ``~/.cache/memdir``: derived tables (``derived.py``), safe to delete at any time.
* ``ScopeDirs`` names every file inside one scope directory.

Scopes are separate directories with separate change logs and indexes: isolation is a matter of
storage, never of a query filter.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "AGENT_GITIGNORE",
    "Scope",
    "ScopeDirs",
    "cache_dir",
    "ensure_agent_dir",
    "find_project_root",
    "home_dir",
    "policy_file",
    "scope_dirs",
    "sessions_dir",
]

Scope = Literal["user", "project"]


def home_dir() -> Path:
    """The user's memdir home: ``$MEMDIR_HOME`` if set, else ``~/.agent``."""
    override = os.environ.get("MEMDIR_HOME")
    if override:
        return Path(override).expanduser().absolute()
    return Path.home() / ".agent"


def cache_dir() -> Path:
    """Where derived tables live (``derived.py``): ``$MEMDIR_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/memdir``, else ``~/.cache/memdir``. Safe to delete: rebuilt on use."""
    override = os.environ.get("MEMDIR_CACHE_DIR")
    if override:
        return Path(override).expanduser().absolute()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "memdir"


# Every ``.agent/`` memdir creates in a project carries this, so ``git status`` shows the
# memories (meant to be shared) and never the derived files: indexes, locks, temp files.
AGENT_GITIGNORE = """\
# Written by memdir: personal and derived files stay out of git.
AGENT.md
sessions/
.index/
memory/.history/lock
memory/.history/lock.queue/
.*.tmp
"""


def ensure_agent_dir(agent: Path) -> None:
    """Create a project's ``.agent/`` with its ``.gitignore`` if it does not exist yet (a first
    write, or ``init``). An existing ``.agent/`` is left as it is: a ``.gitignore`` its owner
    removed is not written back behind their back."""
    if agent.is_dir():
        return
    agent.mkdir(parents=True, exist_ok=True)
    gitignore = agent / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text(AGENT_GITIGNORE, encoding="utf-8")


def find_project_root(start: Path, home: Path | None = None) -> Path | None:
    """The nearest ancestor of ``start`` (itself included) with ``.agent/`` or ``.git/``.

    A directory whose ``.agent`` *is* the memdir home (typically ``~``) is not a project: without
    this rule every directory under ``~`` would share one "project".
    """
    home = (home or home_dir()).absolute()
    current = start.absolute()
    for candidate in (current, *current.parents):
        agent = candidate / ".agent"
        if agent.is_dir() and agent.absolute() != home:
            return candidate
        if (candidate / ".git").exists():
            return candidate
    return None


@dataclass(frozen=True)
class ScopeDirs:
    """The files of one scope. ``memory`` holds the memories themselves. ``within``, when set,
    is the folder ``memory`` must stay inside once links are resolved: the project root for the
    project scope, so a cloned ``.agent`` (or ``.agent/memory``) linked elsewhere is refused
    (issue 26). The user scope has none: a home linked to another disk is the person's choice."""

    scope: Scope
    memory: Path
    within: Path | None = None

    @property
    def index_file(self) -> Path:
        """``MEMORY.md``: one pointer line per memory, regenerated after every change."""
        return self.memory / "MEMORY.md"

    @property
    def archive(self) -> Path:
        return self.memory / "archive"

    @property
    def log(self) -> Path:
        return self.memory / "log"

    @property
    def derived(self) -> Path:
        """``.index/``: caches rebuilt from the files at any time; safe to delete."""
        return self.memory / ".index"

    @property
    def history(self) -> Path:
        """``.history/``: the change log and the content it can restore. Not a cache."""
        return self.memory / ".history"

    @property
    def changes(self) -> Path:
        return self.history / "changes.jsonl"

    @property
    def recalls(self) -> Path:
        """The recall log: every recall with its scores (B3), the source of use counts."""
        return self.history / "recalls.jsonl"

    @property
    def objects(self) -> Path:
        return self.history / "objects"

    @property
    def lock(self) -> Path:
        return self.history / "lock"


def scope_dirs(scope: Scope, *, home: Path, project_root: Path | None) -> ScopeDirs | None:
    """The directories of ``scope``; ``None`` for the project scope when there is no project."""
    if scope == "user":
        return ScopeDirs("user", home / "memory")
    if project_root is None:
        return None
    return ScopeDirs("project", project_root / ".agent" / "memory", within=project_root)


def sessions_dir(*, home: Path, project_root: Path | None) -> Path:
    """Where session transcripts live: ``<root>/.agent/sessions`` in a project, else
    ``<home>/sessions`` (a conversation outside any project still survives a crash)."""
    if project_root is None:
        return home / "sessions"
    return project_root / ".agent" / "sessions"


def policy_file(*, home: Path, project_root: Path | None) -> Path:
    """``memory-policy.yaml``: the project's (``<root>/.agent/``) or, outside a project, the
    home's (``<home>/memory-policy.yaml``)."""
    if project_root is None:
        return home / "memory-policy.yaml"
    return project_root / ".agent" / "memory-policy.yaml"
