"""A file scope's daily logs and the journal of sleep's moves of them (``ports.DailyLog``).

``log/YYYY-MM-DD.md`` and ``archive/log/YYYY-MM-DD.md[.gz]`` are files beside the memories;
``.history/logs.jsonl`` journals each move sleep makes of one (``lifecycle/logs.py``). Every
path is checked to stay inside the scope once links are resolved (``fs.inside``, issue 26): a
``log/`` linked out of the scope is refused (``LinkError``) before anything is appended to it.
A log is appended with one ``write`` of whole lines on an ``O_APPEND`` descriptor, fsynced (the
directory too when the file is new); a whole file (an archived copy, a log undo brings back) is
written atomically. The caller holds the scope's lock for every write.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..fs import append_jsonl, atomic_write, fsync_dir, inside, read_jsonl
from ..records import LogDay

if TYPE_CHECKING:
    from .store import FileStore

__all__ = ["FileDailyLog"]

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\.md")
_ARCHIVED_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\.md(?:\.gz)?")


class FileDailyLog:
    """The daily logs of ``store``'s scope directory."""

    def __init__(self, store: FileStore) -> None:
        self.store = store
        self.root = store.dirs.memory

    def folders(self) -> tuple[Path, Path]:
        """``(log/, archive/log/)``, each checked to stay inside the scope."""
        dirs = self.store.dirs
        return inside(dirs.memory, dirs.log), inside(dirs.memory, dirs.archive / "log")

    def days(self) -> list[LogDay]:
        live, archived = self.folders()
        found: list[LogDay] = []
        kinds = ((live, _DAY, "log"), (archived, _ARCHIVED_DAY, "archive/log"))
        for folder, pattern, prefix in kinds:
            try:
                names = sorted(os.listdir(folder))
            except FileNotFoundError:
                continue
            for name in names:
                if not pattern.fullmatch(name):
                    continue
                where = folder / name
                try:
                    data = where.read_bytes()
                except OSError:
                    continue  # a folder, a dangling link: nothing to read
                found.append(LogDay(f"{prefix}/{name}", data, where.is_symlink()))
        return found

    def _path(self, path: str) -> Path:
        return inside(self.root, self.root / path)

    def read(self, path: str) -> bytes | None:
        where = self._path(path)
        return where.read_bytes() if where.is_file() else None

    def append(self, day: str, text: str) -> Path:
        self.store.check_links(self.store.dirs.log)  # a log/ linked out is never appended to
        folder = self.store.dirs.log
        path = folder / f"{day}.md"
        folder.mkdir(parents=True, exist_ok=True)
        new = not path.exists()
        head = f"# Log {day}\n\n" if new else ""
        if not new and path.stat().st_size:
            with open(path, "rb") as handle:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":
                    head = "\n"  # a torn or hand-cut last line keeps to itself
        data = (head + text).encode("utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        if new:
            fsync_dir(folder)
        return path

    def write(self, path: str, data: bytes) -> None:
        where = self._path(path)
        where.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(where, data)

    def remove(self, path: str) -> None:
        where = self._path(path)
        if where.exists():
            where.unlink()
            fsync_dir(where.parent)

    def _journal(self) -> Path:
        return inside(self.root, self.store.dirs.history / "logs.jsonl")

    def journal(self) -> list[dict[str, Any]]:
        lines, _, _ = read_jsonl(self._journal())
        return lines

    def record(self, move: Mapping[str, Any]) -> None:
        append_jsonl(self._journal(), dict(move))
