"""A file scope as the memory tool's ``/memories/<scope>`` folder (``ports.ToolTree``).

The tool has checked a path as text before it arrives here (no ``..``, no hidden names, at most
``<folder>/<file>``). What remains is the file system's part: a path is mapped into the scope
directory and must still lie inside it once every symbolic link is resolved (``outside``
otherwise); a listing never follows a link, so none can lead it out of the scope.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import NotFoundError

if TYPE_CHECKING:
    from .store import FileStore

__all__ = ["FileToolTree"]


class FileToolTree:
    """``store``'s directory, as the memory tool reads it."""

    def __init__(self, store: FileStore) -> None:
        self.store = store
        self.base = store.folder

    def _path(self, parts: tuple[str, ...]) -> Path:
        return self.base.joinpath(*parts)

    def kind(self, parts: tuple[str, ...]) -> Literal["file", "folder", "missing", "outside"]:
        path = self._path(parts)
        inside, full = os.path.realpath(self.base), os.path.realpath(path)
        if full != inside and not full.startswith(inside + os.sep):
            return "outside"
        if path.is_dir():
            return "folder"
        return "file" if path.is_file() else "missing"

    def is_link(self, parts: tuple[str, ...]) -> bool:
        return self._path(parts).is_symlink()

    def read(self, parts: tuple[str, ...]) -> bytes:
        if self.kind(parts) != "file":
            raise NotFoundError(f"{'/'.join(parts)} is not a file of this scope")
        return self._path(parts).read_bytes()

    def walk(self, parts: tuple[str, ...], depth: int) -> list[tuple[int, str]]:
        return _walk(self._path(parts), "", depth)

    def refresh_index(self) -> None:
        self.store.refresh_index()


def _walk(folder: Path, rel: str, depth: int) -> list[tuple[int, str]]:
    rows: list[tuple[int, str]] = [(0, rel)]
    total = 0
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return rows
    for entry in entries:
        if entry.name.startswith(".") or entry.name == "node_modules" or entry.is_symlink():
            continue  # symlinks are not followed: one could lead out of the scope
        child = f"{rel}/{entry.name}" if rel else entry.name
        if entry.is_dir(follow_symlinks=False):
            sub = _walk(Path(entry.path), child, depth - 1)
            total += sub[0][0]
            rows += sub if depth >= 1 else []
        elif entry.is_file(follow_symlinks=False):
            size = entry.stat(follow_symlinks=False).st_size
            total += size
            rows += [(size, child)] if depth >= 1 else []
    rows[0] = (total, rel)
    return rows
