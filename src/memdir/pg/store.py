"""``PgStore``: the memories of one scope as rows of ``memories`` (``ports.Store``).

A row holds a memory's whole file — the same bytes the file backend keeps in ``<name>.md``,
made and parsed by the same ``markdown``/``records`` code — with its hash; the archive is the
same table with ``archived`` set. So a memory moves between backends byte for byte.

Every write is one transaction that takes the scope's advisory lock, checks the version it read
is still there (``ConflictError`` otherwise, nothing written), keeps both versions' bytes in
``objects``, appends its change and changes the row; ``locked()`` and ``batch()`` hold that lock
and transaction around many writes. A crash or a lost connection rolls the transaction back: a
change is either in the log *and* in the table, or in neither. There is no MEMORY.md to keep in
step (docs/postgres.md): the guide is rendered on demand.

A record's ``path`` is virtual, ``/memories/<scope>/[archive/]<name>.md`` (the memory tool's
tree): there is no such file on disk.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadFileError, ConflictError, NotFoundError, ValidationError
from ..files.core import BODY_PARTS, Problem, new_memory
from ..files.parsed import _record
from ..history import Change
from ..markdown import (
    FormatError,
    content_hash,
    parse,
    set_body_parts,
    set_fields,
)
from ..paths import Scope, ScopeDirs
from ..records import MemoryRecord, check_name, check_size, check_text, now_iso
from .connect import Database
from .logs import PgChangeLog, PgRecallLog

if TYPE_CHECKING:
    from .daily_log import PgDailyLog
    from .tooltree import PgToolTree
    from .tree import PgTree

__all__ = ["PgStore"]

_CHANGED = (
    "{name!r} has changed since change {id} (a later change); undo the later changes first "
    "(see `memdir history {name}`)"
)


@dataclass(frozen=True)
class _At:
    """Where a memory is: its name, and whether it is in the archive."""

    name: str
    archived: bool = False

    @property
    def where(self) -> str | None:
        """The change log's ``path``: set for the archive side only, as the file backend."""
        return f"archive/{self.name}.md" if self.archived else None


class PgStore:
    """``ports.Store`` for one owner's scope in PostgreSQL (``archived``: its archive)."""

    def __init__(
        self,
        db: Database,
        scope: Scope,
        scope_id: str,
        *,
        archived: bool = False,
        log: PgChangeLog | None = None,
    ) -> None:
        self.db = db
        self.scope: Scope = scope
        self.scope_id = scope_id  # ``user`` or ``project:<id>`` (backend.project_id)
        self.is_archive = archived
        self.log: PgChangeLog = log or PgChangeLog(db, scope, scope_id)
        self._key = (db.owner, scope_id)
        self._dirs = ScopeDirs(scope, Path("/memories") / scope)  # for records: scope only
        # parsed records by name, with the hash they were parsed at: a scan fetches every
        # name and hash, and the bytes only of what changed since (remember's near-duplicate
        # check scans the scope on every write)
        self._parsed: dict[str, tuple[str, MemoryRecord | BadFileError]] = {}
        self._run: str | None = None  # the run id every change is logged with (``run_as``)

    @property
    def recalls(self) -> PgRecallLog:
        """The scope's recall log (the index folds it into use counts)."""
        return PgRecallLog(self.db, self.scope_id)

    def __repr__(self) -> str:
        return f"PgStore({self.db.where}, owner={self.db.owner!r}, scope={self.scope_id!r})"

    # -- reading -------------------------------------------------------------------------
    def path_for(self, name: str) -> Path:
        folder = self._dirs.memory / "archive" if self.is_archive else self._dirs.memory
        return folder / f"{check_name(name)}.md"

    def _row(self, at: _At) -> tuple[bytes, str] | None:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT data, hash FROM memories WHERE owner = %s AND scope = %s "
                "AND archived = %s AND name = %s",
                (*self._key, at.archived, at.name),
            )
            row = cur.fetchone()
        return (bytes(row[0]), str(row[1])) if row else None

    def _parse(self, name: str, data: bytes, digest: str, archived: bool) -> MemoryRecord:
        path = (self._dirs.memory / "archive" if archived else self._dirs.memory) / f"{name}.md"
        try:
            return _record(parse(data), path, self._dirs, digest)
        except FormatError as exc:
            raise BadFileError(path, str(exc)) from None

    def read_bytes(self, name: str) -> bytes:
        """The whole file of memory ``name`` (frontmatter and body), as export carries it."""
        row = self._row(_At(check_name(name), self.is_archive))
        if row is None:
            raise NotFoundError(f"no memory named {name!r} in the {self.scope} scope")
        return row[0]

    def read(self, name: str) -> MemoryRecord:
        name = check_name(name)
        row = self._row(_At(name, self.is_archive))
        if row is None:
            raise NotFoundError(f"no memory named {name!r} in the {self.scope} scope")
        got = self._parsed.get(name)
        if got is not None and got[0] == row[1] and isinstance(got[1], MemoryRecord):
            return got[1]  # parsed before from these very bytes (a scan, an earlier read)
        record = self._parse(name, row[0], row[1], self.is_archive)
        self._parsed[name] = (row[1], record)
        return record

    def exists(self, name: str) -> bool:
        return self._row(_At(check_name(name), self.is_archive)) is not None

    def memory_names(self) -> list[str]:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT name FROM memories WHERE owner = %s AND scope = %s AND archived = %s",
                (*self._key, self.is_archive),
            )
            return sorted(f"{r[0]}.md" for r in cur.fetchall())

    def rows(self) -> list[tuple[str, bytes, str]]:
        """``(name, bytes, hash)`` of every memory here, by name."""
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT name, data, hash FROM memories WHERE owner = %s AND scope = %s "
                "AND archived = %s",
                (*self._key, self.is_archive),
            )
            found = [(str(n), bytes(d), str(h)) for n, d, h in cur.fetchall()]
        return sorted(found)

    def scan(self) -> tuple[list[MemoryRecord], list[Problem]]:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT name, hash FROM memories WHERE owner = %s AND scope = %s AND archived = %s",
                (*self._key, self.is_archive),
            )
            listing = sorted((str(n), str(h)) for n, h in cur.fetchall())
        stale = [n for n, h in listing if self._parsed.get(n, ("",))[0] != h]
        if stale:
            with self.db.cursor() as cur:
                cur.execute(
                    "SELECT name, data, hash FROM memories WHERE owner = %s AND scope = %s "
                    "AND archived = %s AND name = ANY(%s)",
                    (*self._key, self.is_archive, stale),
                )
                for name, data, digest in cur.fetchall():
                    try:
                        parsed: MemoryRecord | BadFileError = self._parse(
                            str(name), bytes(data), str(digest), self.is_archive
                        )
                    except BadFileError as exc:
                        parsed = exc
                    self._parsed[str(name)] = (str(digest), parsed)
        records: list[MemoryRecord] = []
        problems: list[Problem] = []
        for name, digest in listing:
            got = self._parsed.get(name)
            if got is None or got[0] != digest:
                continue  # changed between the two queries: the next scan has it
            if isinstance(got[1], BadFileError):
                problems.append(Problem(got[1].path, got[1].reason))
            else:
                records.append(got[1])
        for gone in set(self._parsed) - {n for n, _ in listing}:
            del self._parsed[gone]
        return records, problems

    def unreadable(self) -> list[Problem]:
        return self.scan()[1]

    def problems(self) -> list[Problem]:
        return self.scan()[1]

    def fingerprint(self) -> str:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT count(*), md5(coalesce(string_agg(name || ':' || hash, ',' "
                "ORDER BY name COLLATE \"C\"), '')) FROM memories "
                "WHERE owner = %s AND scope = %s AND archived = %s",
                (*self._key, self.is_archive),
            )
            row = cur.fetchone()
        count, digest = (int(row[0]), str(row[1])) if row else (0, "")
        return "empty" if count == 0 else f"pg:{count}:{digest}"

    def put(self, name: str, data: bytes, *, archived: bool = False) -> None:
        """Put bytes as they are, no change logged: an import, whose change log comes along
        (``pg.tree``). Everything else writes through the methods below."""
        self._put(_At(check_name(name), archived), data, content_hash(data))

    def tree(self) -> PgTree:
        """This scope as the files an archive carries (``portable.tree.ScopeTree``)."""
        from .tree import PgTree

        live = PgStore(self.db, self.scope, self.scope_id, log=self.log)
        return PgTree(live if self.is_archive else self)

    def tool_tree(self) -> PgToolTree:
        """This scope's rows as the memory tool's folder (``pg.tooltree``)."""
        from .tooltree import PgToolTree

        return PgToolTree(self)

    def archived(self) -> PgStore:
        """The scope's archive: the same table, ``archived`` rows."""
        if self.is_archive:
            return self
        return PgStore(self.db, self.scope, self.scope_id, archived=True, log=self.log)

    # -- locking -------------------------------------------------------------------------
    @contextmanager
    def locked(self) -> Iterator[None]:
        """One transaction holding the scope's write lock (re-entrant)."""
        with self.db.scope_lock(self.scope_id):
            yield

    batch = locked  # many writes, one lock, one transaction: nothing to regenerate after

    @contextmanager
    def run_as(self, run: str | None) -> Iterator[None]:
        """Hold the lock and log every change made inside with ``run`` (undone as one)."""
        with self.locked():
            previous, self._run = self._run, run
            try:
                yield
            finally:
                self._run = previous

    # -- what sleep and undo read beside the memories --------------------------------------
    def daily_log(self) -> PgDailyLog:
        """The scope's daily logs and sleep's journal of their moves (``pg.daily_log``)."""
        from .daily_log import PgDailyLog

        return PgDailyLog(self)

    def hash_at(self, path: str) -> str | None:
        """The hash of the memory at ``path`` (``<name>.md``, ``archive/<name>.md``) now."""
        folder, _, file = path.rpartition("/")
        if folder not in ("", "archive") or not file.endswith(".md"):
            return None
        row = self._row(_At(check_name(file), archived=folder == "archive"))
        return row[1] if row else None

    # -- the one write path ----------------------------------------------------------------
    def _commit(
        self,
        at: _At,
        data: bytes | None,
        *,
        op: str,
        actor: str,
        source: str | None,
        before: str | None,
        reason: str | None,
        undoes: str | None = None,
    ) -> Change:
        """Write (or delete, ``data`` None) the memory at ``at`` and log it, in the caller's
        locked transaction; ``before`` is the hash it was read with."""
        if data is not None:
            check_size(len(data))
        if data is not None and op in ("create", "update"):
            check_text(data.decode("utf-8", "replace"))
        row = self._row(at)
        if (row[1] if row else None) != before:
            raise ConflictError(
                f"{at.name!r} changed while memdir was updating it; nothing was written — run "
                "the command again"
            )
        after = content_hash(data) if data is not None else None
        if row is not None and before is not None:
            self.log.keep(before, row[0])
        if data is not None:
            self.log.keep(after or "", data)
        change = self.log.append(
            op=op, name=at.name, actor=actor, source=source, before=before, after=after,
            reason=reason, undoes=undoes, path=at.where, run=self._run,
        )  # fmt: skip
        self._put(at, data, after)
        return change

    def _put(self, at: _At, data: bytes | None, digest: str | None) -> None:
        with self.db.write() as cur:
            if data is None:
                cur.execute(
                    "DELETE FROM memories WHERE owner = %s AND scope = %s AND archived = %s "
                    "AND name = %s",
                    (*self._key, at.archived, at.name),
                )
                return
            cur.execute(
                "INSERT INTO memories (owner, scope, archived, name, data, hash) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (owner, scope, archived, name) "
                "DO UPDATE SET data = excluded.data, hash = excluded.hash",
                (*self._key, at.archived, at.name, data, digest),
            )

    def _move(
        self,
        src: _At,
        dst: _At,
        new: bytes,
        *,
        expect: str,
        op: str,
        name: str,
        actor: str,
        source: str | None,
        reason: str | None,
        undoes: str | None = None,
        renamed_from: str | None = None,
        where: _At | None = None,
    ) -> Change:
        """Replace the memory at ``src`` (hash ``expect``) by ``new`` at ``dst`` as one change,
        in the caller's locked transaction."""
        row = self._row(src)
        if row is None or row[1] != expect:
            raise ConflictError(
                f"{src.name!r} changed while memdir was moving it; nothing was written — run "
                "the command again"
            )
        if self._row(dst) is not None:
            raise ConflictError(
                f"{dst.where or dst.name!r} already exists: rename or remove it first, then run "
                "the command again"
            )
        after = content_hash(new)
        self.log.keep(expect, row[0])
        self.log.keep(after, new)
        change = self.log.append(
            op=op, name=name, actor=actor, source=source, before=expect, after=after,
            reason=reason, undoes=undoes, renamed_from=renamed_from,
            path=(where or dst).where, run=self._run,
        )  # fmt: skip
        self._put(src, None, None)
        self._put(dst, new, after)
        return change

    # -- writes ----------------------------------------------------------------------------
    def _unique_name(self, base: str) -> str:
        with self.db.cursor() as cur:
            cur.execute(
                "SELECT lower(name) FROM memories WHERE owner = %s AND scope = %s "
                "AND NOT archived AND (lower(name) = %s OR starts_with(lower(name), %s))",
                (*self._key, base.lower(), base.lower() + "-"),
            )
            taken = {str(r[0]) for r in cur.fetchall()}
        name, n = base, 2
        while name.lower() in taken:
            name, n = f"{base}-{n}", n + 1
        return name

    def _taken_error(self, name: str, fix: str) -> ConflictError:
        return ConflictError(
            f"a memory named {name!r} already exists in the {self.scope} scope: {fix}"
        )

    def create(
        self,
        meta: Mapping[str, Any],
        *,
        statement: str,
        why: str | None,
        how_to_apply: str | None,
        actor: str,
        reason: str | None = None,
        name: str | None = None,
        base_name: str = "note",
    ) -> tuple[MemoryRecord, Change]:
        with self.locked():
            if name is not None:
                name = check_name(name)
                if self.exists(name):
                    raise self._taken_error(name, "update it, or choose another name")
            else:
                name = self._unique_name(check_name(base_name))
            data, ordered = new_memory(name, meta, statement, why, how_to_apply)
            change = self._commit(
                _At(name), data, op="create", actor=actor, source=ordered.get("source"),
                before=None, reason=reason,
            )  # fmt: skip
            return self.read(name), change

    def update(
        self, name: str, fields: Mapping[str, Any], *, actor: str, reason: str | None = None
    ) -> tuple[MemoryRecord, Change | None]:
        with self.locked():
            current = self.read(name)
            data = self.read_bytes(name)
            original = parse(data)
            meta_updates = {k: v for k, v in fields.items() if k not in BODY_PARTS}
            body = str(fields["body"]) if "body" in fields else original.body
            parts = {k: fields[k] for k in ("statement", "why", "how_to_apply") if k in fields}
            if parts:
                body = set_body_parts(
                    body, original.newline, statement=parts.get("statement"),
                    why=parts.get("why"), how=parts.get("how_to_apply"),
                )  # fmt: skip
            doc = original if body == original.body else replace(original, body=body)
            if meta_updates or body != original.body:
                meta_updates.setdefault("updated", now_iso())
            new = set_fields(doc, meta_updates).dump() if meta_updates else doc.dump()
            if new == data:
                return current, None
            change = self._commit(
                _At(current.name), new, op="update", actor=actor, source=current.source,
                before=current.content_hash, reason=reason,
            )  # fmt: skip
            return self.read(current.name), change

    def replace_bytes(
        self, name: str, data: bytes, *, actor: str, reason: str | None, expect_hash: str
    ) -> tuple[MemoryRecord, Change | None]:
        name = check_name(name)
        doc = self._parse(name, data, content_hash(data), False)  # it must read as a memory
        declared = parse(data).meta.get("name")
        if declared != name:
            raise BadFileError(
                doc.path, f"the name key must stay {name!r} (renaming is not done by editing)"
            )
        with self.locked():
            if content_hash(data) == expect_hash:
                return self.read(name), None
            change = self._commit(
                _At(name), data, op="update", actor=actor, source=doc.source,
                before=expect_hash, reason=reason,
            )  # fmt: skip
            return self.read(name), change

    def delete(self, name: str, *, actor: str, reason: str | None = None) -> Change:
        with self.locked():
            current = self.read(name)
            return self._commit(
                _At(current.name, self.is_archive), None, op="delete", actor=actor,
                source=current.source, before=current.content_hash, reason=reason,
            )  # fmt: skip

    def rename(
        self, name: str, new_name: str, *, actor: str, reason: str | None = None
    ) -> tuple[MemoryRecord, Change]:
        new_name = check_name(new_name)
        with self.locked():
            current = self.read(name)
            if self.exists(new_name):
                raise self._taken_error(new_name, "choose another name, or delete that one first")
            renamed = set_fields(parse(self.read_bytes(name)), {"name": new_name}).dump()
            change = self._move(
                _At(current.name), _At(new_name), renamed, expect=current.content_hash,
                op="rename", name=new_name, actor=actor, source=current.source, reason=reason,
                renamed_from=current.name,
            )  # fmt: skip
            return self.read(new_name), change

    def log_refusal(self, name: str, *, actor: str, source: str | None, reason: str) -> Change:
        with self.locked():
            return self.log.append(
                op="refuse", name=name, actor=actor, source=source, before=None, after=None,
                reason=reason, run=self._run,
            )  # fmt: skip

    # -- the archive -----------------------------------------------------------------------
    def _free_archive_name(self, name: str) -> str:
        archive = self.archived()
        candidate, n = name, 2
        while archive.exists(candidate):
            candidate, n = f"{name}-{n}", n + 1
        return candidate

    def archive(
        self,
        name: str,
        *,
        actor: str,
        stamp: str,
        reason: str | None = None,
        expect: str | None = None,
    ) -> Change:
        with self.locked():
            current = self.read(name)
            if expect is not None and current.content_hash != expect:
                raise ConflictError(
                    f"{name!r} changed since the plan was made; nothing was written — plan again"
                )
            data = set_fields(parse(self.read_bytes(name)), {"archived": stamp}).dump()
            dest = _At(self._free_archive_name(current.name), archived=True)
            return self._move(
                _At(current.name), dest, data, expect=current.content_hash, op="archive",
                name=current.name, actor=actor, source=current.source, reason=reason,
            )  # fmt: skip

    def restore(self, archived_name: str, *, actor: str, reason: str | None = None) -> Change:
        with self.locked():
            current = self.archived().read(archived_name)
            doc = parse(self.archived().read_bytes(archived_name))
            declared = doc.meta.get("name")
            target = check_name(declared if isinstance(declared, str) else archived_name)
            data = set_fields(doc, {"archived": None}).dump()
            side = _At(current.name, archived=True)
            return self._move(
                side, _At(target), data, expect=current.content_hash, op="restore",
                name=target, actor=actor, source=current.source, reason=reason, where=side,
            )  # fmt: skip

    def delete_archived(
        self, name: str, *, actor: str, reason: str | None = None, expect: str | None = None
    ) -> Change:
        with self.locked():
            current = self.archived().read(name)
            if expect is not None and current.content_hash != expect:
                raise ConflictError(
                    f"archived {name!r} changed since the plan was made; nothing was written"
                )
            return self._commit(
                _At(current.name, archived=True), None, op="delete", actor=actor,
                source=current.source, before=current.content_hash, reason=reason,
            )  # fmt: skip

    # -- undo ------------------------------------------------------------------------------
    def _located(self, change: Change) -> _At:
        """Where ``change``'s memory is (for archive/restore: its archive side)."""
        if not change.path:
            return _At(check_name(change.name))
        folder, _, file = change.path.partition("/")
        if folder != "archive" or not file.endswith(".md"):
            raise ValidationError(
                f"change {change.id} names the path {change.path!r}, which is not a memory "
                "of this scope"
            )
        return _At(check_name(file[:-3]), archived=True)

    def undo(self, change: Change, *, actor: str) -> Change:
        with self.locked():
            reason = f"undo {change.op} {change.id}"
            if change.renamed_from is not None:
                return self._undo_rename(change, actor=actor, reason=reason)
            if change.op in ("archive", "restore"):
                return self._undo_move(change, actor=actor, reason=reason)
            at = self._located(change)
            row = self._row(at)
            current = row[1] if row else None
            if current != change.after:
                raise ConflictError(_CHANGED.format(name=change.name, id=change.id))
            data = self.log.load(change.before) if change.before else None
            return self._commit(
                at, data, op="undo", actor=actor, source=change.source, before=current,
                reason=reason, undoes=change.id,
            )  # fmt: skip

    def _undo_rename(self, change: Change, *, actor: str, reason: str) -> Change:
        assert change.renamed_from is not None
        now, back = _At(check_name(change.name)), _At(check_name(change.renamed_from))
        row = self._row(now)
        if row is None or row[1] != change.after:
            raise ConflictError(_CHANGED.format(name=change.name, id=change.id))
        if self._row(back) is not None:
            raise ConflictError(
                f"{change.renamed_from!r} exists again, so change {change.id} cannot move "
                f"{change.name!r} back to it: rename or delete that one first"
            )
        return self._move(
            now, back, self.log.load(change.before or ""), expect=row[1], op="undo",
            name=back.name, actor=actor, source=change.source, reason=reason,
            undoes=change.id, renamed_from=now.name,
        )  # fmt: skip

    def _undo_move(self, change: Change, *, actor: str, reason: str) -> Change:
        """Undo an archive (the memory back) or a restore (back into the archive)."""
        if change.before is None or change.after is None:
            raise ValidationError(f"change {change.id} has no recorded content; cannot undo it")
        side, memory = self._located(change), _At(check_name(change.name))
        src, dst = (side, memory) if change.op == "archive" else (memory, side)
        row = self._row(src)
        if row is None or row[1] != change.after or self._row(dst) is not None:
            raise ConflictError(_CHANGED.format(name=change.name, id=change.id))
        return self._move(
            src, dst, self.log.load(change.before), expect=change.after,
            op="restore" if change.op == "archive" else "archive", name=change.name,
            actor=actor, source=change.source, reason=reason, undoes=change.id, where=side,
        )  # fmt: skip
