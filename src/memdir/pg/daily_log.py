"""A PostgreSQL scope's daily logs and the journal of sleep's moves of them (``ports.DailyLog``).

The logs are ``scope_files`` rows (migration ``0002_scope_files``, row-level security like
every table), one per file, by the path the file backend gives it — ``log/YYYY-MM-DD.md``,
``archive/log/YYYY-MM-DD.md[.gz]`` — holding the same bytes; the journal is the row
``.history/logs.jsonl`` (a path no daily log can have) holding the very lines the file backend
appends to that file. That is also how ``pg/tree.py`` exports and imports them, so an archive
carries them between backends unchanged, and how the memory tool shows them (``pg/tooltree``).

Every write runs in the caller's locked transaction (``PgStore.locked``): an append, a move and
its journal line commit together or not at all — there is no half-moved log to settle.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..records import LogDay

if TYPE_CHECKING:
    from .store import PgStore

__all__ = ["JOURNAL", "PgDailyLog"]

JOURNAL = ".history/logs.jsonl"


class PgDailyLog:
    """The daily-log rows of ``store``'s scope."""

    def __init__(self, store: PgStore) -> None:
        self.db = store.db
        self._key = (store.db.owner, store.scope_id)
        self._root = Path("/memories") / store.scope  # records' virtual paths start here

    def days(self) -> list[LogDay]:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT path, data FROM scope_files WHERE owner = %s AND scope = %s "
                "AND (starts_with(path, 'log/') OR starts_with(path, 'archive/log/')) "
                "ORDER BY path",
                self._key,
            )
            rows = cur.fetchall()
        return [LogDay(str(path), bytes(data)) for path, data in rows]

    def read(self, path: str) -> bytes | None:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT data FROM scope_files WHERE owner = %s AND scope = %s AND path = %s",
                (*self._key, path),
            )
            row = cur.fetchone()
        return bytes(row[0]) if row else None

    def append(self, day: str, text: str) -> Path:
        path = f"log/{day}.md"
        current = self.read(path)
        head = f"# Log {day}\n\n" if current is None else ""
        if current and not current.endswith(b"\n"):
            head = "\n"  # a torn line (an import's) keeps to itself, as on files
        self.write(path, (current or b"") + (head + text).encode("utf-8"))
        return self._root / path

    def write(self, path: str, data: bytes) -> None:
        with self.db.transaction() as cur:
            cur.execute(
                "INSERT INTO scope_files (owner, scope, path, data) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (owner, scope, path) DO UPDATE SET data = excluded.data",
                (*self._key, path, data),
            )

    def remove(self, path: str) -> None:
        with self.db.transaction() as cur:
            cur.execute(
                "DELETE FROM scope_files WHERE owner = %s AND scope = %s AND path = %s",
                (*self._key, path),
            )

    def journal(self) -> list[dict[str, Any]]:
        lines: list[dict[str, Any]] = []
        for raw in (self.read(JOURNAL) or b"").decode("utf-8", "replace").splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue  # an imported torn line: the file backend skips it too
            if isinstance(line, dict):
                lines.append(line)
        return lines

    def record(self, move: Mapping[str, Any]) -> None:
        line = json.dumps(dict(move), ensure_ascii=False, separators=(",", ":")) + "\n"
        current = self.read(JOURNAL) or b""
        if current and not current.endswith(b"\n"):
            current += b"\n"  # a torn line (an import's) stays on its own, as append_jsonl does
        self.write(JOURNAL, current + line.encode("utf-8"))
