"""The change log of one scope (SPEC A7): what changed, when, by whom, and how to undo it.

``.history/changes.jsonl`` gets one JSON line per change — create, update, delete, archive,
restore, rename, undo, and ``refuse`` (the guard kept something out; nothing was written) — with
the content hash before and after. The bytes behind every hash are kept in ``.history/objects/``
(content-addressed, written once), so any change can be shown and undone byte-for-byte, a deleted
memory included. A rename (and the undo of one) also names the file it came from,
``renamed_from``: that one change moves ``renamed_from`` (bytes ``before``) to ``name`` (bytes
``after``), so one undo puts both names back.

Lines are appended under the scope's write lock and fsynced. A crash can leave at most a torn last
line; readers skip lines that do not parse (and count them for ``memdir doctor``), and the next
append starts on a fresh line so one torn write never swallows the next entry.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .errors import AmbiguousError, NotFoundError, ValidationError
from .fs import append_jsonl, atomic_write, inside, read_jsonl
from .markdown import HASH_PREFIX
from .paths import ScopeDirs

__all__ = ["Change", "ChangeLog", "change_line", "new_change"]

OPS = ("create", "update", "delete", "archive", "restore", "rename", "undo", "refuse")


@dataclass(frozen=True)
class Change:
    """One line of the change log."""

    id: str
    time: str
    op: str
    name: str
    scope: str
    actor: str
    source: str | None
    before: str | None
    after: str | None
    reason: str | None = None
    undoes: str | None = None
    renamed_from: str | None = None  # set on a rename (and its undo): the name before it
    # issue 5: the sleep run (or other multi-file operation) this change belongs to, so the
    # whole run can be undone as one; and where the file is when it is not ``<name>.md`` in the
    # scope directory (``archive/<name>.md``) — for archive/restore, the archive side
    run: str | None = None
    path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Change | None:
        """The change in a log line, or ``None`` if the line is not one of ours."""
        fields: dict[str, Any] = {k: data.get(k) for k in cls.__dataclass_fields__}
        required = ("id", "time", "op", "name", "scope", "actor")
        if not all(isinstance(fields[k], str) for k in required):
            return None
        return cls(**fields)


def new_change(scope: str, **fields: Any) -> Change:
    """A new change of ``scope`` (a fresh id, the time now) with ``fields`` (op, name, actor,
    source, before, after, and the optional ones): what every change log appends."""
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return Change(id=uuid.uuid4().hex[:12], time=stamp, scope=scope, **fields)


def change_line(change: Change) -> dict[str, Any]:
    """``change`` as its log line holds it: only renames carry ``renamed_from`` (every other
    line stays as it was before renames were logged)."""
    line = change.to_dict()
    if change.renamed_from is None:
        del line["renamed_from"]
    return line


class ChangeLog:
    """Append-only change log plus the object store that makes undo exact."""

    def __init__(self, dirs: ScopeDirs) -> None:
        self.dirs = dirs
        self.torn_lines = 0
        # inside a store's batch: the object folders whose fsync waits for the batch's end
        self.unsynced: set[Path] | None = None

    # -- objects -------------------------------------------------------------------------
    def _object_path(self, digest: str) -> Path:
        hexdigest = digest.removeprefix(HASH_PREFIX)
        return self.dirs.objects / hexdigest[:2] / hexdigest[2:]

    def keep(self, digest: str, data: bytes) -> None:
        """Store ``data`` under its hash (once; objects never change)."""
        path = inside(self.dirs.memory, self._object_path(digest))
        if path.exists():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.unsynced is None:
            atomic_write(path, data)
            return
        # in a batch the object's bytes are fsynced before the log line that names it, and
        # its folder once, when the batch ends (before any caller hears it is done), as the
        # batch does for the memory folder: on ext4, XFS and btrfs the fsync of a new file
        # makes its name durable too; the folder's fsync is the portable belt
        atomic_write(path, data, sync_dir=False)
        self.unsynced.add(path.parent)

    def has(self, digest: str) -> bool:
        return inside(self.dirs.memory, self._object_path(digest)).is_file()

    def load(self, digest: str) -> bytes:
        path = inside(self.dirs.memory, self._object_path(digest))
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise NotFoundError(
                f"the content {digest[:19]}… is missing from {self.dirs.objects}; "
                "this change cannot be undone"
            ) from None

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
        """Write one entry; the caller holds the scope's lock."""
        change = new_change(
            self.dirs.scope, op=op, name=name, actor=actor, source=source, before=before,
            after=after, reason=reason, undoes=undoes, renamed_from=renamed_from, run=run,
            path=path,
        )  # fmt: skip
        append_jsonl(inside(self.dirs.memory, self.dirs.changes), change_line(change))
        return change

    def last(self) -> Change | None:
        """The last complete entry, read from the end of the file (one small read): the only
        one a crash can have left half-applied, since every write settles it first."""
        path = inside(self.dirs.memory, self.dirs.changes)
        try:
            with open(path, "rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                chunk = min(size, 1 << 16)
                handle.seek(size - chunk)
                tail = handle.read(chunk)
        except FileNotFoundError:
            return None
        for raw in reversed(tail.split(b"\n")[1 if chunk < size else 0 : -1]):
            try:
                data = json.loads(raw)
            except ValueError:
                continue
            change = Change.from_dict(data) if isinstance(data, dict) else None
            if change is not None:
                return change
        return None

    def entries(self) -> Iterator[Change]:
        """Every readable entry, oldest first; torn or foreign lines are counted and skipped."""
        records, self.torn_lines, end = read_jsonl(inside(self.dirs.memory, self.dirs.changes))
        if self.dirs.changes.exists() and self.dirs.changes.stat().st_size > end:
            self.torn_lines += 1  # a last line without its newline: a write cut short
        for data in records:
            change = Change.from_dict(data)
            if change is None:
                self.torn_lines += 1
            else:
                yield change

    def of(self, name: str) -> list[Change]:
        """The changes of memory ``name``, oldest first, decoding only the lines that hold the
        name (the log is written with ``ensure_ascii=False``): one memory's page on a store
        with 10k changes parsed them all (bench/results/web.md)."""
        needle = json.dumps(name, ensure_ascii=False).encode("utf-8")
        try:
            with self.dirs.changes.open("rb") as handle:
                lines = [raw for raw in handle if needle in raw and raw.endswith(b"\n")]
        except FileNotFoundError:
            return []
        found = []
        for raw in lines:
            with contextlib.suppress(ValueError):  # a torn line: skipped, as entries() does
                data = json.loads(raw)
                change = Change.from_dict(data) if isinstance(data, dict) else None
                if change is not None and change.name == name:
                    found.append(change)
        return sorted(found, key=lambda c: c.time)

    def since(self, cursor: int) -> tuple[list[Change], int]:
        """The complete entries after byte offset ``cursor`` (0: from the start) and the
        offset to pass next time: a reader follows the log without re-reading it."""
        if cursor < 0:
            raise ValidationError(f"a change log cursor is an offset >= 0 (got {cursor})")
        records, _torn, end = read_jsonl(inside(self.dirs.memory, self.dirs.changes), cursor)
        found = (Change.from_dict(data) for data in records)
        return [c for c in found if c is not None], max(end, cursor)

    def find(self, change_id: str) -> Change | None:
        """The entry whose id starts with ``change_id``; ``AmbiguousError`` if several do."""
        matches = [
            c for c in self.entries() if isinstance(c.id, str) and c.id.startswith(change_id)
        ]
        if len(matches) > 1:
            raise AmbiguousError(
                f"change id {change_id!r} matches {len(matches)} changes: give more characters"
            )
        return matches[0] if matches else None
