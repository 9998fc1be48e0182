"""A store → a portable archive (``memdir export``), or a plain-text memory card.

Each scope is read under its write lock, so the archive is one consistent moment of that scope:
no write lands between reading a memory and reading the change-log line that made it. Only the
files that are the truth travel (memories, archive, the daily logs and those sleep compressed
into ``archive/log/`` with the journal of those moves, change log with its objects, recall log,
policy); ``MEMORY.md`` and ``.index/`` are derived and rebuilt where they arrive.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..fs import inside
from ..paths import Scope, policy_file
from .archive import Archive, needed_version
from .tree import tree_of

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = ["collect", "memory_card"]


def _scope_members(memory: Memory, scope: Scope) -> dict[str, bytes]:
    tree = tree_of(memory.store(scope))
    if not tree.present():
        return {}  # nothing was ever written here: nothing to carry (and nothing is created)
    with tree.locked():
        members = tree.members()
    return {f"{scope}/{rel}": data for rel, data in members.items()}


def collect(memory: Memory, scopes: Iterable[Scope] | None = None) -> Archive:
    """The archive of ``scopes`` (default: every scope available) of ``memory``."""
    import memdir

    archive = Archive(memdir_version=memdir.__version__)
    for scope in scopes if scopes is not None else memory.scopes():
        archive.members.update(_scope_members(memory, scope))
    policy = policy_file(home=memory.home, project_root=memory.project_root)
    if policy.is_file():
        archive.members["policy/memory-policy.yaml"] = inside(policy.parent, policy).read_bytes()
    archive.format_version = needed_version(archive.members)
    return archive


_HEADINGS = {
    "user": "About me",
    "feedback": "How I want you to work",
    "project": "Project facts",
    "reference": "Where things are",
}


def memory_card(memory: Memory, scopes: Iterable[Scope] | None = None) -> str:
    """Plain text a person pastes into another assistant: what memdir knows, by type, one line
    per memory (statement, then why), tentative ones marked. Reference material kept as
    knowledge is left out: it is not about the person."""
    chosen = builtins.list(scopes) if scopes is not None else memory.scopes()
    records = [
        r for s in chosen for r in memory.list(scope=s) if r.extra.get("kind") != "knowledge"
    ]
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    lines = [
        f"My memory card ({len(records)} memories, exported by memdir on {stamp}).",
        "Treat these as background about me; what I say now overrides them.",
    ]
    for type_, heading in _HEADINGS.items():
        chosen_records = sorted(
            (r for r in records if r.type == type_), key=lambda r: (-(r.importance or 5), r.name)
        )
        if not chosen_records:
            continue
        lines += ["", f"## {heading}"]
        for r in chosen_records:
            line = " ".join(r.statement.split())
            if r.why:
                line += f" (why: {' '.join(r.why.split())})"
            if r.confidence == "tentative":
                line += " [unconfirmed]"
            lines.append(f"- {line}")
    return "\n".join(lines) + "\n"
