"""The change log and recall log of one scope, in PostgreSQL (``ports.ChangeLog``,
``ports.RecallLog``).

A change is kept as the very JSON line the file backend writes to ``changes.jsonl`` (``line``),
beside the columns it is looked up by (``id``, ``name``) and its place in the log (``seq``, the
cursor ``since`` hands out). So an export from either backend carries the same bytes, and an
import into either needs no translation. The bytes of every version are in ``objects``, by hash,
written once: undo is exact.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..errors import AmbiguousError, NotFoundError, ValidationError
from ..history import Change, change_line, new_change
from ..paths import Scope
from .connect import Database

__all__ = ["PgChangeLog", "PgRecallLog"]


def _line(change: Change) -> str:
    """``change`` as the file backend's log line, without its newline (``append_jsonl``'s
    compact JSON, non-ASCII kept)."""
    return json.dumps(change_line(change), ensure_ascii=False, separators=(",", ":"))


def _change(line: str) -> Change | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return Change.from_dict(data) if isinstance(data, dict) else None


class PgChangeLog:
    """``ports.ChangeLog`` over the ``changes`` and ``objects`` rows of one scope."""

    torn_lines = 0  # a row is written whole or not at all: nothing is ever torn

    def __init__(self, db: Database, scope: Scope, scope_id: str) -> None:
        self.db = db
        self.scope = scope
        self.scope_id = scope_id
        self._key = (db.owner, scope_id)

    # -- objects -------------------------------------------------------------------------
    def keep(self, digest: str, data: bytes) -> None:
        with self.db.write() as cur:
            cur.execute(
                "INSERT INTO objects (owner, scope, digest, data) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                (*self._key, digest, data),
            )

    def has(self, digest: str) -> bool:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT 1 FROM objects WHERE owner = %s AND scope = %s AND digest = %s",
                (*self._key, digest),
            )
            return cur.fetchone() is not None

    def load(self, digest: str) -> bytes:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT data FROM objects WHERE owner = %s AND scope = %s AND digest = %s",
                (*self._key, digest),
            )
            row = cur.fetchone()
        if row is None:
            raise NotFoundError(
                f"the content {digest[:19]}… is missing from the database's objects; "
                "this change cannot be undone"
            )
        return bytes(row[0])

    def digests(self) -> list[str]:
        """Every kept object's hash (for export)."""
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT digest FROM objects WHERE owner = %s AND scope = %s ORDER BY digest",
                self._key,
            )
            return [str(r[0]) for r in cur.fetchall()]

    # -- log -----------------------------------------------------------------------------
    def append(
        self,
        *,
        op: str,
        name: str,
        actor: str,
        source: str | None,
        before: str | None,
        after: str | None,
        reason: str | None = None,
        undoes: str | None = None,
        renamed_from: str | None = None,
        run: str | None = None,
        path: str | None = None,
    ) -> Change:
        """Record one change (in the caller's transaction when one is open)."""
        change = new_change(
            self.scope, op=op, name=name, actor=actor, source=source, before=before,
            after=after, reason=reason, undoes=undoes, renamed_from=renamed_from, run=run,
            path=path,
        )  # fmt: skip
        self.append_lines([_line(change)])
        return change

    def append_lines(self, lines: list[str]) -> None:
        """Add log lines as they are (an import carries another store's lines)."""
        rows = []
        for line in lines:
            change = _change(line)
            if change is None:
                continue  # a line no reader could use: an import's torn line stays behind
            rows.append((*self._key, change.id, change.name, line))
        if not rows:
            return
        with self.db.write() as cur:
            cur.executemany(
                "INSERT INTO changes (owner, scope, id, name, line) VALUES (%s, %s, %s, %s, %s)",
                rows,
            )

    def lines(self) -> list[str]:
        """Every log line, oldest first (for export)."""
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT line FROM changes WHERE owner = %s AND scope = %s ORDER BY seq", self._key
            )
            return [str(r[0]) for r in cur.fetchall()]

    def entries(self) -> Iterator[Change]:
        for line in self.lines():
            change = _change(line)
            if change is not None:
                yield change

    def since(self, cursor: int) -> tuple[list[Change], int]:
        if cursor < 0:
            raise ValidationError(f"a change log cursor is a position >= 0 (got {cursor})")
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT seq, line FROM changes WHERE owner = %s AND scope = %s AND seq > %s "
                "ORDER BY seq",
                (*self._key, cursor),
            )
            rows = cur.fetchall()
        found = [c for _, line in rows if (c := _change(str(line))) is not None]
        return found, max([cursor, *(int(seq) for seq, _ in rows)])

    def last(self) -> Change | None:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT line FROM changes WHERE owner = %s AND scope = %s ORDER BY seq DESC "
                "LIMIT 1",
                self._key,
            )
            row = cur.fetchone()
        return _change(str(row[0])) if row else None

    def find(self, change_id: str) -> Change | None:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT line FROM changes WHERE owner = %s AND scope = %s "
                "AND starts_with(id, %s) ORDER BY seq LIMIT 2",
                (*self._key, change_id),
            )
            rows = cur.fetchall()
        if len(rows) > 1:
            raise AmbiguousError(
                f"change id {change_id!r} matches several changes: give more characters"
            )
        return _change(str(rows[0][0])) if rows else None


class PgRecallLog:
    """``ports.RecallLog`` over the ``recalls`` rows of one scope (one JSON text per entry)."""

    def __init__(self, db: Database, scope_id: str) -> None:
        self.db = db
        self._key = (db.owner, scope_id)

    def append(self, entry: Mapping[str, Any]) -> None:
        self.append_lines([json.dumps(dict(entry), ensure_ascii=False, separators=(",", ":"))])

    def append_lines(self, lines: list[str]) -> None:
        rows = [(*self._key, line) for line in lines if line.strip()]
        if rows:
            with self.db.write() as cur:
                cur.executemany(
                    "INSERT INTO recalls (owner, scope, entry) VALUES (%s, %s, %s)", rows
                )

    def marker(self) -> int:
        """A cheap value that moves whenever an entry is added (the newest row's position):
        the index reads the log only when it moved."""
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT coalesce(max(seq), 0) FROM recalls WHERE owner = %s AND scope = %s",
                self._key,
            )
            row = cur.fetchone()
        return int(row[0]) if row else 0

    def lines(self) -> list[str]:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT entry FROM recalls WHERE owner = %s AND scope = %s ORDER BY seq", self._key
            )
            return [str(r[0]) for r in cur.fetchall()]

    def entries(self) -> list[dict[str, Any]]:
        return _entries(self.lines())

    def after(self, folded: int) -> tuple[int, list[dict[str, Any]]]:
        """(how many entries the log holds, the readable ones after its first ``folded``): what
        the index folds on each sync, without reading the whole log again."""
        with self.db.cursor() as cur:
            cur.execute("SELECT count(*) FROM recalls WHERE owner = %s AND scope = %s", self._key)
            row = cur.fetchone()
            total = int(row[0]) if row else 0
            if total <= folded:
                return total, []
            cur.execute(
                "SELECT entry FROM recalls WHERE owner = %s AND scope = %s ORDER BY seq OFFSET %s",
                (*self._key, folded),
            )
            return total, _entries(str(r[0]) for r in cur.fetchall())


def _entries(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The JSON objects of ``lines``; a line that is not one is skipped."""
    out = []
    for line in lines:
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            out.append(data)
    return out
