"""A file scope's directory as the files an archive carries (``portable.tree.ScopeTree``):
what export reads and import writes, member by member (``FileStore.tree()``). The PostgreSQL
backend's counterpart is ``pg.tree.PgTree``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from ..fs import append_bytes, atomic_write, inside

if TYPE_CHECKING:
    from ..history import ChangeLog
    from .store import FileStore

__all__ = ["JOURNAL", "FileTree"]

JOURNAL = "logs.jsonl"  # ``.history/logs.jsonl``, lifecycle/logs.py's journal of log moves
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\.md(?:\.gz)?")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _files(directory: Path, *, suffix: str | tuple[str, ...] = ".md") -> list[Path]:
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


class FileTree:
    """A file scope's directory, as it is."""

    def __init__(self, store: FileStore) -> None:
        self.store = store
        self.dirs = store.dirs

    @property
    def log(self) -> ChangeLog:
        return self.store.log

    def present(self) -> bool:
        return self.dirs.memory.is_dir()

    def members(self) -> dict[str, bytes]:
        dirs, members = self.dirs, {}
        root = dirs.memory
        for sub, prefix in ((root, "memory/"), (dirs.archive, "memory/archive/")):
            for path in _files(sub):
                members[prefix + path.name] = inside(root, path).read_bytes()
        for path in _files(dirs.log):
            members["memory/log/" + path.name] = inside(root, path).read_bytes()
        for path in _files(dirs.archive / "log", suffix=(".md", ".md.gz")):
            if _DAY.fullmatch(path.name):  # what sleep wrote there; anything else is not a log
                members["memory/archive/log/" + path.name] = inside(root, path).read_bytes()
        journal = self.dirs.history / JOURNAL
        for log, member in (
            (dirs.changes, "changes.jsonl"),
            (dirs.recalls, "recalls.jsonl"),
            (journal, JOURNAL),
        ):
            if log.is_file():
                members["history/" + member] = inside(root, log).read_bytes()
        objects = dirs.objects
        if objects.is_dir():
            for fan in sorted(p for p in objects.iterdir() if p.is_dir()):
                for path in _files(fan, suffix=""):
                    rel = f"history/objects/{fan.name}/{path.name}"
                    members[rel] = inside(root, path).read_bytes()
        return members

    def memory_names(self) -> list[str]:
        return self.store.memory_names()

    def fresh(self) -> bool:
        return (
            not self.memory_names()
            and not self.dirs.changes.exists()
            and not self.dirs.archive.is_dir()
        )

    def read(self, rel: str) -> bytes | None:
        return _read(inside(self.dirs.memory, self.dirs.memory / rel))

    def log_bytes(self) -> bytes:
        return _read(self.dirs.changes) or b""

    def recall_bytes(self) -> bytes:
        return _read(self.dirs.recalls) or b""

    def journal_bytes(self) -> bytes:
        return _read(self.dirs.history / JOURNAL) or b""

    def append_journal(self, lines: bytes) -> None:
        if lines:
            path = inside(self.dirs.memory, self.dirs.history / JOURNAL)
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, (_read(path) or b"") + lines)

    def has_object(self, rel: str) -> bool:
        return (self.dirs.objects / rel).exists()

    def locked(self) -> AbstractContextManager[None]:
        return self.store.locked()

    def write_objects(self, objects: Mapping[str, bytes]) -> None:
        for rel, data in sorted(objects.items()):
            target = inside(self.dirs.memory, self.dirs.objects / rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, data)

    def append_logs(self, changes: bytes, recalls: bytes) -> None:
        if changes:
            self.dirs.changes.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.dirs.changes, (_read(self.dirs.changes) or b"") + changes)
        if recalls:  # appended under its own lock, as recalls append to it (recall_log.py)
            append_bytes(
                self.dirs.recalls,
                recalls if recalls.endswith(b"\n") else recalls + b"\n",
                own_lock=True,
            )

    def write(self, rel: str, data: bytes) -> None:
        path = inside(self.dirs.memory, self.dirs.memory / rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)

    def done(self) -> None:
        self.store.regenerate_index()
