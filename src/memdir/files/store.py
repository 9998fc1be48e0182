"""``FileStore``: undo, whole-file creates and renames (the memory tool), and the archive
(sleep's moves) on top of the core in ``core.py``."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadFileError, ConflictError, ValidationError
from ..fs import atomic_write, crash_point, fsync_dir, inside
from ..history import Change
from ..markdown import (
    FormatError,
    content_hash,
    parse,
    set_fields,
)
from ..paths import ScopeDirs
from ..records import (
    MemoryRecord,
    check_name,
    now_iso,
)
from .core import Problem, StoreCore
from .opening import current_bytes, read_inside
from .parsed import _record
from .steps import located, out_of_step, record_outside, restore_version, settle

if TYPE_CHECKING:
    from ..paths import Scope
    from .daily_log import FileDailyLog
    from .tooltree import FileToolTree
    from .tree import FileTree

__all__ = ["FileStore"]


class FileStore(StoreCore):
    """The memory files of one scope. Every public write is atomic, locked and logged."""

    def index_listing(self) -> tuple[str, list[tuple[str, os.stat_result]]]:
        """``listing`` with one hash of the whole listing for a digest, not a sum of a hash per
        file (MEMORY.md's fingerprint is that sum, to be updated file by file): what the index
        compares on every sync — 10k files cost a third less. Changes as often as ``listing``."""
        entries = self._entries()
        if entries is None:
            return "empty", []
        digest = hashlib.blake2b(digest_size=16)
        for name, st in entries:
            digest.update(f"{name}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        return f"b2:{len(entries)}:{digest.hexdigest()}", entries

    def undo(self, change: Change, *, actor: str) -> Change:
        """Put the file of ``change`` back as it was before it; refuse if it moved on since."""
        if change.renamed_from is not None:
            return self._undo_rename(change, actor=actor)
        with self.locked():
            if change.op in ("archive", "restore"):
                return self._undo_move(change, actor=actor)
            path = self.located(change)
            now = current_bytes(self.dirs.memory, path)
            current = content_hash(now) if now is not None else None
            if current != change.after:
                raise ConflictError(
                    f"{change.name!r} has changed since change {change.id} (a later change or a "
                    "hand edit); undo the later changes first (see `memdir history "
                    f"{change.name}`; after a hand edit, `memdir restore {change.name}`)"
                )
            data = self.log.load(change.before) if change.before else None
            return self._commit(
                path,
                data,
                op="undo",
                actor=actor,
                source=change.source,
                before=current,
                reason=f"undo {change.op} {change.id}",
                undoes=change.id,
            )

    def _settle(self) -> None:
        settle(self)

    def problems(self) -> list[Problem]:
        """What ``memdir doctor`` reports: unreadable files, and every file out of step with
        the change log (changed outside memdir, or a write a crash cut short)."""
        found = super().problems()
        found += [Problem(i.path, i.reason(), "warning") for i in out_of_step(self)]
        return found

    def fix(self, *, actor: str = "doctor") -> list[Change]:
        """``memdir doctor --fix``: complete a crashed write, log every change made outside
        memdir (so it can be undone), remove temp files a crash left."""
        return record_outside(self, actor=actor)

    def restore_version(self, name: str, *, actor: str) -> Change:
        """Put back the version of ``name`` memdir last wrote, after a hand overwrite or
        delete (``memdir restore NAME``); undoable like every change."""
        return restore_version(self, name, actor=actor)

    # -- memory tool support (issue 4) -----------------------------------------------------
    def create_bytes(
        self,
        name: str,
        data: bytes,
        *,
        actor: str,
        reason: str | None = None,
        defaults: Mapping[str, Any] | None = None,
        vet: Callable[[MemoryRecord, bytes], bytes] | None = None,
    ) -> tuple[MemoryRecord, Change]:
        """A new memory ``name`` from a whole file (frontmatter and body), as the memory tool's
        ``create`` receives it. It must read as a memory; keys it lacks — ``name``, ``created``,
        ``updated`` and any in ``defaults`` — are added at the top of the frontmatter, and every
        byte that was given is kept. A ``name`` key that differs from ``name`` is refused."""
        path = self.path_for(name)
        name = path.stem
        try:
            doc = parse(data)
            declared = doc.meta.get("name")
            if declared is not None and declared != name:
                raise BadFileError(
                    path, f"the name key is {declared!r} but the file is {name}.md: make them equal"
                )
            stamp = now_iso()
            wanted = {"name": name, "created": stamp, "updated": stamp, **(defaults or {})}
            missing = {k: v for k, v in wanted.items() if k not in doc.meta}
            if missing:
                head = set_fields(replace(doc, frontmatter="", meta={}), missing).frontmatter
                doc = parse(replace(doc, frontmatter=head + doc.frontmatter).dump())
            data = doc.dump()
            record = _record(doc, path, self.dirs, content_hash(data))
        except FormatError as exc:
            raise BadFileError(path, str(exc)) from None
        if vet is not None:  # the facade's guard: may redact, or refuse by raising
            data = vet(record, data)
        with self.locked():
            if os.path.lexists(path):
                raise ConflictError(
                    f"a memory named {name!r} already exists in the {self.dirs.scope} scope: "
                    "update it, or choose another name"
                )
            change = self._commit(
                path,
                data,
                op="create",
                actor=actor,
                source=doc.meta.get("source"),
                before=None,
                reason=reason,
            )
            return self.read_path(path), change

    def rename(
        self, name: str, new_name: str, *, actor: str, reason: str | None = None
    ) -> tuple[MemoryRecord, Change]:
        """Give memory ``name`` the file name ``new_name`` (its ``name`` key follows; no other
        byte changes). One change in the log, so one ``undo`` restores both names exactly."""
        new_name = check_name(new_name)
        with self.locked():
            current = self.read(name)
            if current.path.is_symlink():
                raise ValidationError(
                    f"{current.name}.md is a symbolic link: rename the file it points to"
                )
            target = self.path_for(new_name)
            if os.path.lexists(target):
                raise ConflictError(
                    f"a memory named {new_name!r} already exists in the {self.dirs.scope} scope: "
                    "choose another name, or delete that one first"
                )
            data = read_inside(self.dirs.memory, current.path)
            try:
                renamed = set_fields(parse(data), {"name": new_name}).dump()
            except FormatError as exc:
                raise BadFileError(current.path, str(exc)) from None
            change = self._move(
                current.path,
                target,
                data,
                renamed,
                expect=current.content_hash,
                op="rename",
                actor=actor,
                source=current.source,
                reason=reason,
            )
            return self.read_path(target), change

    def _move(
        self,
        src: Path,
        dst: Path,
        old: bytes,
        new: bytes,
        *,
        expect: str | None,
        op: str,
        actor: str,
        source: str | None,
        reason: str | None,
        undoes: str | None = None,
    ) -> Change:
        """Replace file ``src`` (bytes ``old``) by file ``dst`` (bytes ``new``); the caller
        holds the lock and checked that ``dst`` is free.

        Order: both versions kept in ``objects/`` → ``dst`` written atomically → ``src``
        removed → directory fsynced → log line → MEMORY.md. A crash in between leaves both files
        (a duplicate, never a loss); the log line is written only once the move is complete.
        """
        now = current_bytes(self.dirs.memory, src)
        if now is None or content_hash(now) != expect:
            raise ConflictError(
                f"{src} changed while memdir was renaming it (a hand edit?); nothing was "
                "written — run the command again"
            )
        self._touch(src, dst)
        before, after = content_hash(old), content_hash(new)
        self.log.keep(before, old)
        self.log.keep(after, new)
        change = self._log(
            dst,
            op=op,
            name=dst.stem,
            actor=actor,
            source=source,
            before=before,
            after=after,
            reason=reason,
            undoes=undoes,
            renamed_from=src.stem,
        )
        crash_point("after-log")
        atomic_write(dst, new, sync_dir=False)
        crash_point("after-write")
        src.unlink()
        fsync_dir(self.dirs.memory)
        self._written()
        return change

    def _undo_rename(self, change: Change, *, actor: str) -> Change:
        """Undo a rename (or the undo of one): ``name`` goes back to ``renamed_from``."""
        assert change.renamed_from is not None
        with self.locked():
            path, back = self.path_for(change.name), self.path_for(change.renamed_from)
            now = current_bytes(self.dirs.memory, path)
            if now is None or content_hash(now) != change.after:
                raise ConflictError(
                    f"{change.name!r} has changed since change {change.id} (a later change or a "
                    "hand edit); undo the later changes first (see `memdir history "
                    f"{change.name}`)"
                )
            if os.path.lexists(back):
                raise ConflictError(
                    f"{change.renamed_from!r} exists again, so change {change.id} cannot move "
                    f"{change.name!r} back to it: rename or delete that file first"
                )
            data = self.log.load(change.before or "")
            return self._move(
                path,
                back,
                now,
                data,
                expect=change.after,
                op="undo",
                actor=actor,
                source=change.source,
                reason=f"undo {change.op} {change.id}",
                undoes=change.id,
            )

    # -- lifecycle (issue 5): run ids, archive/, moves -----------------------------------
    # Archived memories live in ``archive/`` beside the others, in the same format; MEMORY.md,
    # the search index and ``scan()`` see only the top level, so archiving takes a memory out of
    # the guide and of recall without losing a byte. A move is: write the destination
    # atomically, then unlink the source, then log — a crash in between leaves the memory in
    # both places (never in neither).
    @contextmanager
    def run_as(self, run: str | None) -> Iterator[None]:
        """Hold the lock and log every change made inside with ``run`` (undone as one)."""
        with self.locked():
            previous, self._run = self._run, run
            try:
                yield
            finally:
                self._run = previous

    def located(self, change: Change) -> Path:
        """The file ``change`` is about (for archive/restore: its archive side), checked to stay
        inside the scope — the log is a file a person can edit."""
        return located(self, change)

    # -- what only a directory has, asked by meaning (the facade names no folder) ------------
    @property
    def folder(self) -> Path:
        """The scope's directory (where the memory tool's ``/memories/<scope>`` points)."""
        return self.dirs.memory

    @property
    def index_path(self) -> Path:
        """The derived SQLite index of this scope (``index.sqlite`` under ``.index/``)."""
        return self.dirs.derived / "index.sqlite"

    def create_folder(self) -> Path:
        """Make the scope's directory and its MEMORY.md (``Memory.init``; safe to repeat)."""
        self.dirs.memory.mkdir(parents=True, exist_ok=True)
        self.regenerate_index()
        return self.dirs.memory

    def memory_md(self) -> Path:
        """MEMORY.md, regenerated first if files were edited by hand (reading never creates
        the folder: a scope with none gets a path that does not exist)."""
        if self.dirs.memory.is_dir():
            self.refresh_index()
        return self.dirs.index_file

    def tree(self) -> FileTree:
        """This scope's directory as the files an archive carries (``files.tree``)."""
        from .tree import FileTree

        return FileTree(self)

    def tool_tree(self) -> FileToolTree:
        """This scope's directory as the memory tool's folder (``files.tooltree``)."""
        from .tooltree import FileToolTree

        return FileToolTree(self)

    def memory_md_text(self) -> str:
        """MEMORY.md as it is on disk; empty when it is missing or unreadable."""
        try:
            return self.dirs.index_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def has_archive(self) -> bool:
        """Whether ``archive/`` exists (reading it creates no index, nor a directory)."""
        return self.dirs.archive.is_dir()

    def files_bytes(self) -> int:
        """The size of the memory files (MEMORY.md aside), for ``memdir stats``."""
        if not self.dirs.memory.is_dir():
            return 0
        return sum(f.stat().st_size for f in self.dirs.memory.glob("*.md") if f.name != "MEMORY.md")

    @property
    def scope(self) -> Scope:
        """The scope this directory holds (``user`` or ``project``)."""
        return self.dirs.scope

    def daily_log(self) -> FileDailyLog:
        """The scope's daily logs (``log/``, ``archive/log/``) and sleep's journal of their
        moves (``files.daily_log``)."""
        from .daily_log import FileDailyLog

        return FileDailyLog(self)

    def hash_at(self, path: str) -> str | None:
        """The content hash of the file at ``path`` inside the scope now (``None``: none)."""
        where = self.dirs.memory / path
        return content_hash(where.read_bytes()) if where.is_file() else None

    def archive_path(self, name: str) -> Path:
        return self.dirs.archive / f"{check_name(name)}.md"

    def archived(self) -> FileStore:
        """The archived memories as a store of their own, for reading and for their own
        search index (``archive/.index/``); never written through."""
        inside(self.dirs.memory, self.dirs.archive)  # a link out of the scope is not followed
        cached: FileStore | None = getattr(self, "_archive_store", None)
        if cached is None:
            cached = FileStore(ScopeDirs(self.dirs.scope, self.dirs.archive))
            self._archive_store = cached
        cached.check_links()  # archive/.index/ and the rest stay inside too
        return cached

    def _free_archive_path(self, name: str) -> Path:
        path, n = self.archive_path(name), 2
        while os.path.lexists(path):
            path, n = self.archive_path(f"{name}-{n}"), n + 1
        return path

    def _archive_move(
        self,
        src: Path,
        dst: Path,
        data: bytes,
        *,
        op: str,
        name: str,
        archive_side: Path,
        actor: str,
        source: str | None,
        before: str,
        reason: str | None,
        undoes: str | None = None,
    ) -> Change:
        now = src.read_bytes() if src.is_file() and not src.is_symlink() else None
        if now is None or content_hash(now) != before:
            raise ConflictError(
                f"{src} changed while memdir was moving it (a hand edit?); nothing was "
                "written — run the command again"
            )
        if os.path.lexists(dst):
            raise ConflictError(
                f"{dst} already exists: rename or remove it first, then run the command again"
            )
        self._touch(src, dst)
        self.log.keep(before, now)
        self.log.keep(content_hash(data), data)
        dst.parent.mkdir(parents=True, exist_ok=True)
        change = self._log(
            archive_side,
            op=op,
            name=name,
            actor=actor,
            source=source,
            before=before,
            after=content_hash(data),
            reason=reason,
            undoes=undoes,
        )
        crash_point("after-log")
        atomic_write(dst, data, sync_dir=not self._batching)
        crash_point("after-write")
        src.unlink()
        if not self._batching:
            fsync_dir(src.parent)
        self._written()
        return change

    def archive(
        self,
        name: str,
        *,
        actor: str,
        stamp: str,
        reason: str | None = None,
        expect: str | None = None,
    ) -> Change:
        """Move memory ``name`` to ``archive/`` (an ``archived: stamp`` key added). ``expect``
        is the content hash a plan was made from: if the file moved on, nothing is done."""
        with self.locked():
            current = self.read(name)
            if current.path.is_symlink():
                raise ValidationError(f"{current.path} is a symlink: memdir does not move it")
            if expect is not None and current.content_hash != expect:
                raise ConflictError(
                    f"{name!r} changed since the plan was made; nothing was written — plan again"
                )
            doc = parse(read_inside(self.dirs.memory, current.path))
            data = set_fields(doc, {"archived": stamp}).dump()
            dest = self._free_archive_path(name)
            return self._archive_move(
                current.path,
                dest,
                data,
                op="archive",
                name=name,
                archive_side=dest,
                actor=actor,
                source=current.source,
                before=current.content_hash,
                reason=reason,
            )

    def restore(self, archived_name: str, *, actor: str, reason: str | None = None) -> Change:
        """Move ``archive/<archived_name>.md`` back among the memories (its ``archived`` key
        removed), under the name it had before it was archived when that is free."""
        with self.locked():
            current = self.archived().read(archived_name)
            doc = parse(read_inside(self.dirs.memory, current.path))
            # archived as ``name-2`` when ``archive/name.md`` was taken: the name key says
            # what it was called
            declared = doc.meta.get("name")
            target = self.path_for(declared if isinstance(declared, str) else archived_name)
            data = set_fields(doc, {"archived": None}).dump()
            return self._archive_move(
                current.path,
                target,
                data,
                op="restore",
                name=target.stem,
                archive_side=current.path,
                actor=actor,
                source=current.source,
                before=current.content_hash,
                reason=reason,
            )

    def delete_archived(
        self, name: str, *, actor: str, reason: str | None = None, expect: str | None = None
    ) -> Change:
        """Delete ``archive/<name>.md`` (its bytes stay in the change log: undo brings it back)."""
        with self.locked():
            current = self.archived().read(name)
            if expect is not None and current.content_hash != expect:
                raise ConflictError(
                    f"archived {name!r} changed since the plan was made; nothing was written"
                )
            return self._commit(
                current.path,
                None,
                op="delete",
                actor=actor,
                source=current.source,
                before=current.content_hash,
                reason=reason,
            )

    def _undo_move(self, change: Change, *, actor: str) -> Change:
        """Undo an archive (move the file back) or a restore (move it to the archive again);
        either way the bytes come back exactly as they were before ``change``."""
        archive_side = self.located(change)
        memory_side = self.path_for(change.name)
        src, dst = (
            (archive_side, memory_side) if change.op == "archive" else (memory_side, archive_side)
        )
        if change.before is None or change.after is None:
            raise ValidationError(f"change {change.id} has no recorded content; cannot undo it")
        now = current_bytes(self.dirs.memory, src)
        if now is None or content_hash(now) != change.after or os.path.lexists(dst):
            raise ConflictError(
                f"{change.name!r} has changed since change {change.id} (a later change or a "
                "hand edit); undo the later changes first (see `memdir history "
                f"{change.name}`)"
            )
        return self._archive_move(
            src,
            dst,
            self.log.load(change.before),
            op="restore" if change.op == "archive" else "archive",
            name=change.name,
            archive_side=archive_side,
            actor=actor,
            source=change.source,
            before=change.after,
            reason=f"undo {change.op} {change.id}",
            undoes=change.id,
        )
