"""A store → a portable archive (``memdir export``), or a plain-text memory card.

Each scope is read under its write lock, so the archive is one consistent moment of that scope:
no write lands between reading a memory and reading the change-log line that made it. Only the
files that are the truth travel (memories, archive, daily log, change log with its objects,
recall log, policy); ``MEMORY.md`` and ``.index/`` are derived and rebuilt where they arrive.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..history import inside
from ..paths import Scope, policy_file
from .archive import Archive

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = ["collect", "memory_card"]


def _files(directory: Path, *, suffix: str = ".md") -> builtins.list[Path]:
    """The regular files of ``directory`` with ``suffix`` (hidden and temp files left out)."""
    try:
        names = sorted(p.name for p in directory.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    out = []
    for name in names:
        path = directory / name
        if name.startswith(".") or not name.endswith(suffix) or name == "MEMORY.md":
            continue
        if path.is_file() and not path.is_symlink():
            out.append(path)
    return out


def _scope_members(memory: Memory, scope: Scope) -> dict[str, bytes]:
    store = memory.store(scope)
    dirs = store.dirs
    if not dirs.memory.is_dir():
        return {}  # nothing was ever written here: nothing to carry (and nothing is created)
    members: dict[str, bytes] = {}
    with store.locked():
        root = dirs.memory
        for sub, prefix in ((root, "memory/"), (dirs.archive, "memory/archive/")):
            for path in _files(sub):
                members[prefix + path.name] = inside(root, path).read_bytes()
        for path in _files(dirs.log):
            members["memory/log/" + path.name] = inside(root, path).read_bytes()
        for log, member in ((dirs.changes, "changes.jsonl"), (dirs.recalls, "recalls.jsonl")):
            if log.is_file():
                members["history/" + member] = inside(root, log).read_bytes()
        objects = dirs.objects
        if objects.is_dir():
            for fan in sorted(p for p in objects.iterdir() if p.is_dir()):
                for path in _files(fan, suffix=""):
                    rel = f"history/objects/{fan.name}/{path.name}"
                    members[rel] = inside(root, path).read_bytes()
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
