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
        """Add one entry under the file's own lock, not the scope's: a recall never waits for
        the writes queued on the scope (under load, half a recall's time went there, and every
        write queued behind recalls in turn). Every writer of the file appends under that lock
        (an import too, ``FileTree.append_logs``); the index reads complete lines only. Not
        fsynced: losing the last few uses in a crash costs nothing that matters."""
        self.store.dirs.history.mkdir(parents=True, exist_ok=True)
        append_jsonl(self.store.dirs.recalls, dict(entry), sync=False, own_lock=True)

    def entries(self) -> list[dict[str, Any]]:
        path = inside(self.store.dirs.memory, self.store.dirs.recalls)
        return read_jsonl(path)[0]
