"""One PostgreSQL scope as the files an archive carries (``portable.tree.ScopeTree``): export
reads the rows as the file backend's tree, import writes that tree into rows — the same bytes
both ways (issue 20, item 7).

``memory/<name>.md`` and ``memory/archive/<name>.md`` are ``memories`` rows; ``memory/log/…``
and ``memory/archive/log/…`` (the daily logs, live and compressed) and ``history/logs.jsonl``
(their moves' journal, as ``.history/logs.jsonl``) are ``scope_files`` rows — the rows
``pg/daily_log.py`` appends, reads and moves, so sleep and ``memdir log`` work on them;
``history/changes.jsonl`` is the ``changes`` rows' lines in order, ``history/recalls.jsonl``
the ``recalls``, and ``history/objects/<ab>/<rest>`` the ``objects`` of hash
``sha256:<ab><rest>``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from ..markdown import HASH_PREFIX
from .logs import PgChangeLog, PgRecallLog

if TYPE_CHECKING:
    from .store import PgStore

__all__ = ["PgTree"]

_LOG_FOLDERS = ("log", "archive/log")
_JOURNAL = ".history/logs.jsonl"  # a path no daily log can have


def _jsonl(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")


class PgTree:
    """``PgStore``'s scope as an archive's tree."""

    def __init__(self, store: PgStore) -> None:
        self.store = store  # the live scope (``PgStore.tree`` passes it for an archive too)
        self.db = store.db
        self._key = (store.db.owner, store.scope_id)
        self.recalls = PgRecallLog(store.db, store.scope_id)

    @property
    def log(self) -> PgChangeLog:
        return self.store.log

    def present(self) -> bool:
        return True

    def _logs(self) -> Iterator[tuple[str, bytes]]:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT path, data FROM scope_files WHERE owner = %s AND scope = %s ORDER BY path",
                self._key,
            )
            rows = cur.fetchall()
        return ((str(path), bytes(data)) for path, data in rows)

    def members(self) -> dict[str, bytes]:
        members: dict[str, bytes] = {}
        for name, data, _ in self.store.rows():
            members[f"memory/{name}.md"] = data
        for name, data, _ in self.store.archived().rows():
            members[f"memory/archive/{name}.md"] = data
        for path, data in self._logs():
            if path == _JOURNAL:
                members["history/logs.jsonl"] = data
            else:
                members[f"memory/{path}"] = data
        changes, recalls = self.log.lines(), self.recalls.lines()
        if changes:
            members["history/changes.jsonl"] = _jsonl(changes)
        if recalls:
            members["history/recalls.jsonl"] = _jsonl(recalls)
        for digest in self.log.digests():
            hexdigest = digest.removeprefix(HASH_PREFIX)
            members[f"history/objects/{hexdigest[:2]}/{hexdigest[2:]}"] = self.log.load(digest)
        return members

    def memory_names(self) -> list[str]:
        return self.store.memory_names()

    def fresh(self) -> bool:
        return not (
            self.store.memory_names() or self.store.archived().memory_names() or self.log.last()
        )

    def read(self, rel: str) -> bytes | None:
        folder, _, file = rel.rpartition("/")
        if folder in _LOG_FOLDERS:
            return dict(self._logs()).get(rel)
        if folder not in ("", "archive") or not file.endswith(".md"):
            return None
        store = self.store.archived() if folder == "archive" else self.store
        name = file[:-3]
        return store.read_bytes(name) if store.exists(name) else None

    def log_bytes(self) -> bytes:
        return _jsonl(self.log.lines())

    def recall_bytes(self) -> bytes:
        return _jsonl(self.recalls.lines())

    def journal_bytes(self) -> bytes:
        return dict(self._logs()).get(_JOURNAL, b"")

    def append_journal(self, lines: bytes) -> None:
        if lines:
            self._put_file(_JOURNAL, self.journal_bytes() + lines)

    def _put_file(self, path: str, data: bytes) -> None:
        with self.db.transaction() as cur:
            cur.execute(
                "INSERT INTO scope_files (owner, scope, path, data) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (owner, scope, path) DO UPDATE SET data = excluded.data",
                (*self._key, path, data),
            )

    def has_object(self, rel: str) -> bool:
        return self.log.has(HASH_PREFIX + rel.replace("/", ""))

    def locked(self) -> AbstractContextManager[None]:
        return self.store.locked()

    def write_objects(self, objects: Mapping[str, bytes]) -> None:
        for rel, data in sorted(objects.items()):
            self.log.keep(HASH_PREFIX + rel.replace("/", ""), data)

    def append_logs(self, changes: bytes, recalls: bytes) -> None:
        self.log.append_lines(changes.decode("utf-8", "replace").splitlines())
        self.recalls.append_lines(recalls.decode("utf-8", "replace").splitlines())

    def write(self, rel: str, data: bytes) -> None:
        folder, _, file = rel.rpartition("/")
        if folder in _LOG_FOLDERS:
            self._put_file(rel, data)
            return
        self.store.put(file[:-3], data, archived=folder == "archive")

    def done(self) -> None:
        """Nothing is derived from the rows but the index, which syncs itself."""
