"""What a contract test is handed: one scope's ports, opened through one backend."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memdir.ports import Backend, ChangeLog, Index, RecallLog, Store


@dataclass
class Ports:
    """One scope's ports, opened through one backend."""

    backend: Backend
    store: Store
    changes: ChangeLog
    recalls: RecallLog
    embedder: Any

    def index(self) -> Index:
        return self.backend.index(self.store, self.embedder)

    def add(self, statement: str, base: str = "note", **meta: Any) -> str:
        """A new memory (type ``project`` unless given); its name."""
        fields = {"description": statement[:60], "type": "project", "source": "user", **meta}
        record, _ = self.store.create(
            fields, statement=statement, why=None, how_to_apply=None, actor="contract",
            base_name=base,
        )  # fmt: skip
        return record.name


def files_under(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` with its bytes (the write lock's queue left out: it is
    lock state, not data)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and "lock.queue" not in p.parts
    }
