"""A PostgreSQL scope as the memory tool's ``/memories/<scope>`` folder (``ports.ToolTree``).

The folder is virtual: ``<name>.md`` is a live ``memories`` row's bytes, ``archive/<name>.md``
an archived one's, ``log/…`` and ``archive/log/…`` the daily logs kept as ``scope_files``
rows, and ``MEMORY.md`` is rendered from the rows with the file backend's ``render_index`` —
the bytes a file scope holding the same memories would have generated. There are no links,
so nothing is ``outside``. A view reads the scope's rows once (as a file listing stats every
file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import NotFoundError
from ..files.memory_md import render_index

if TYPE_CHECKING:
    from ..ports import PathKind
    from .store import PgStore

__all__ = ["PgToolTree"]


class PgToolTree:
    """``store``'s rows, as the memory tool reads them."""

    def __init__(self, store: PgStore) -> None:
        self.store = store

    def _files(self) -> dict[tuple[str, ...], bytes]:
        """Every file of the virtual folder, by its parts."""
        members = self.store.tree().members()
        files: dict[tuple[str, ...], bytes] = {}
        for path, data in members.items():
            if path.startswith("memory/"):
                files[tuple(path.removeprefix("memory/").split("/"))] = data
        records, problems = self.store.scan()
        index = render_index(records, len(problems), self.store.scope)
        files[("MEMORY.md",)] = index.encode("utf-8")
        return files

    def kind(self, parts: tuple[str, ...]) -> PathKind:
        if not parts:
            return "folder"
        files = self._files()
        if parts in files:
            return "file"
        if any(path[: len(parts)] == parts and len(path) > len(parts) for path in files):
            return "folder"
        return "missing"

    def is_link(self, parts: tuple[str, ...]) -> bool:
        return False

    def read(self, parts: tuple[str, ...]) -> bytes:
        data = self._files().get(parts)
        if data is None:
            raise NotFoundError(f"{'/'.join(parts)} is not a file of this scope")
        return data

    def walk(self, parts: tuple[str, ...], depth: int) -> list[tuple[int, str]]:
        below = {
            path[len(parts) :]: len(data)
            for path, data in self._files().items()
            if path[: len(parts)] == parts and len(path) > len(parts)
        }
        rows: list[tuple[int, str]] = [(sum(below.values()), "")]
        folders: dict[str, int] = {}
        for rel, size in below.items():
            for cut in range(1, len(rel)):
                key = "/".join(rel[:cut])
                folders[key] = folders.get(key, 0) + size
        shown = {"/".join(rel): size for rel, size in below.items()} | folders
        for key in sorted(shown):
            if key.count("/") < depth:
                rows.append((shown[key], key))
        return rows

    def refresh_index(self) -> None:
        return None  # MEMORY.md is rendered from the rows on every read
