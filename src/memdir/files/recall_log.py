"""The file backend's recall log: ``.history/recalls.jsonl``, one line per recall and scope.

It is the durable record of what recall returned; the index folds it into use counts on its
next sync (``index/sqlite.py`` reads the file from the offset it last reached)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..fs import append_jsonl, inside, read_jsonl
from .store import FileStore

__all__ = ["FileRecallLog"]


class FileRecallLog:
    """``RecallLog`` (``memdir.ports``) over one scope's ``recalls.jsonl``."""

    def __init__(self, store: FileStore) -> None:
        self.store = store

    def append(self, entry: Mapping[str, Any]) -> None:
        """Add one entry under the scope's log lock (``FileStore.log_locked``: no memory file is
        parsed to log a line); not fsynced: losing the last few uses in a crash costs nothing
        that matters."""
        with self.store.log_locked():
            append_jsonl(self.store.dirs.recalls, dict(entry), sync=False)

    def entries(self) -> list[dict[str, Any]]:
        path = inside(self.store.dirs.memory, self.store.dirs.recalls)
        return read_jsonl(path)[0]
