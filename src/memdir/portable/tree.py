"""A scope as the files an archive carries, whatever backend keeps it (``ScopeTree``).

An archive names a scope's truth as files — ``memory/<name>.md``, ``memory/archive/…``,
``memory/log/…``, ``memory/archive/log/…`` (compressed daily logs), ``history/changes.jsonl``,
``history/recalls.jsonl``, ``history/logs.jsonl`` (the daily-log moves' journal),
``history/objects/<ab>/<rest>`` — and export and import speak only that tree. Every store
offers its own (``tree()``): the file backend's is its scope directory itself
(``files.tree.FileTree``), PostgreSQL's holds the same bytes in rows (``pg.tree.PgTree``). So an
export from one backend imports into the other unchanged, and back (issue 20, item 7).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

from ..errors import ConfigError
from ..ports import ChangeLog, Store

__all__ = ["HasTree", "ScopeTree", "tree_of"]


class ScopeTree(Protocol):
    """One scope as archive members (paths under ``<scope>/``), read and written raw: the
    bytes are the truth, no change is logged for them (the archive's change log comes along)."""

    @property
    def log(self) -> ChangeLog: ...

    def present(self) -> bool:
        """Whether anything was ever written here (an empty file scope has no directory)."""
        ...

    def members(self) -> dict[str, bytes]:
        """Every file of the scope's truth, by its path under ``<scope>/`` (export)."""
        ...

    def memory_names(self) -> list[str]: ...

    def fresh(self) -> bool:
        """No memory, no archive, no change log: an import may copy the logs whole."""
        ...

    def read(self, rel: str) -> bytes | None:
        """The file ``rel`` under ``memory/`` (``x.md``, ``archive/x.md``, ``log/…``,
        ``archive/log/…``)."""
        ...

    def log_bytes(self) -> bytes: ...

    def recall_bytes(self) -> bytes: ...

    def journal_bytes(self) -> bytes:
        """``history/logs.jsonl``: the journal of sleep's daily-log moves (``b""``: none)."""
        ...

    def append_journal(self, lines: bytes) -> None:
        """Add lines to the journal, as they are (the caller holds ``locked``)."""
        ...

    def has_object(self, rel: str) -> bool:
        """Whether ``history/objects/<rel>`` is here."""
        ...

    def locked(self) -> AbstractContextManager[None]: ...

    def write_objects(self, objects: Mapping[str, bytes]) -> None: ...

    def append_logs(self, changes: bytes, recalls: bytes) -> None:
        """Add lines to the change log and the recall log, as they are."""
        ...

    def write(self, rel: str, data: bytes) -> None:
        """Put file ``rel`` under ``memory/`` (the caller holds ``locked``)."""
        ...

    def done(self) -> None:
        """After an import: refresh what is derived from the files (MEMORY.md)."""
        ...


@runtime_checkable
class HasTree(Protocol):
    """A store that can show itself as an archive's files: every backend's."""

    def tree(self) -> ScopeTree: ...


def tree_of(store: Store) -> ScopeTree:
    """``store`` as the tree an archive carries (``FileStore.tree()``, ``PgStore.tree()``)."""
    if isinstance(store, HasTree):
        return store.tree()
    raise ConfigError(
        f"{type(store).__name__} cannot be exported or imported: its backend offers no tree"
    )
