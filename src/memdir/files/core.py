"""The core of ``FileStore``: locking, reading, the one write path, MEMORY.md (see ``__init__``)."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import BadFileError, ConflictError, NotFoundError
from ..fs import atomic_write, crash_point, fsync_dir, inside, replace_cache
from ..history import Change, ChangeLog
from ..markdown import (
    FormatError,
    compose_body,
    content_hash,
    parse,
    render_new,
    set_body_parts,
    set_fields,
)
from ..paths import ScopeDirs, ensure_agent_dir
from ..records import (
    FIELD_ORDER,
    MAX_MEMORY_BYTES,
    MemoryRecord,
    check_name,
    check_size,
    check_text,
    now_iso,
)
from .lock import fair_lock
from .memory_md import Kept, Rendered, Signals, entry_hash, fingerprint, splice
from .opening import check_scope_links, current_bytes, read_inside, read_regular
from .parsed import SAVE_AFTER, Parsed, _record

__all__ = ["BODY_PARTS", "MAX_FILE_BYTES", "Problem", "StoreCore", "new_memory"]

MAX_FILE_BYTES = MAX_MEMORY_BYTES
BODY_PARTS = ("statement", "why", "how_to_apply", "body")
# MEMORY.md's kept entries are saved again once a pass had to read more files than this (or
# one in a hundred): the files a process wrote since are read again by the next one until then
KEEP_AFTER = 16


@dataclass(frozen=True)
class Problem:
    """Something ``memdir doctor`` reports. ``error`` files are skipped by every read."""

    path: Path
    reason: str
    severity: str = "error"  # "error" (file skipped) or "warning" (file used)

    def to_dict(self) -> dict[str, str]:
        return {"path": str(self.path), "reason": self.reason, "severity": self.severity}


def new_memory(
    name: str, meta: Mapping[str, Any], statement: str, why: str | None, how: str | None
) -> tuple[bytes, dict[str, Any]]:
    """The bytes of a new memory ``name`` (``created``/``updated`` now unless ``meta`` says)
    and the frontmatter they hold, keys in ``FIELD_ORDER`` first: what every backend writes."""
    stamp = now_iso()
    fields: dict[str, Any] = {"name": name, "created": stamp, "updated": stamp, **meta}
    ordered = {k: fields[k] for k in FIELD_ORDER if fields.get(k) is not None}
    ordered.update({k: v for k, v in fields.items() if k not in FIELD_ORDER})
    return render_new(ordered, compose_body(statement, why, how)), ordered


class StoreCore:
    """Locking, reading, the one write path (``_commit``) and MEMORY.md of ``FileStore``."""

    def __init__(self, dirs: ScopeDirs) -> None:
        self.dirs = dirs
        self.log = ChangeLog(dirs)
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._batching = False
        self._kept = Kept(dirs.derived / "memory-md.rendered", dirs.scope)  # MEMORY.md's entries
        self._taken: set[str] | None = None  # names in use, tracked during a batch
        # parses by path: (stat key, record, the frontmatter's ``name`` value for doctor)
        self._cache: dict[str, tuple[tuple[int, ...], MemoryRecord, object]] = {}
        self._parsed = Parsed(dirs.derived / "parsed.json")  # that cache, between processes
        self._parses = 0  # files parsed by this store (cache misses)
        self._run: str | None = None  # issue 5: the run id every change is logged with
        # MEMORY.md as this store last rendered it, and the files written since (memory_md.py)
        self._rendered: Rendered | None = None
        self._touched: set[str] | None = None
        # before anything is opened (the lock itself lives in .history/): refuse links out —
        # the scope's own folder first, even before it exists (a dangling link would be created)
        if dirs.within is not None:
            inside(dirs.within, dirs.memory)
        if os.path.isdir(dirs.memory):
            self.check_links()

    # -- locking -------------------------------------------------------------------------
    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the scope's write lock (re-entrant within this store), after every process that
        asked for it before us (``lock.fair_lock``)."""
        with self._thread_lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            if self.dirs.scope == "project":  # a first write makes .agent/ with its .gitignore
                ensure_agent_dir(self.dirs.memory.parent)
            self.dirs.history.mkdir(parents=True, exist_ok=True)
            if not self._rendered_current():
                # Parse the files before queueing: the pass over them under the lock that
                # MEMORY.md needs then costs a stat per file (the parse cache is keyed by stat,
                # so a file changed meanwhile is parsed again there — never used stale). Only
                # the files changed since MEMORY.md's kept entries were saved are parsed.
                self._render_pass(None, self._kept.read())
            with fair_lock(self.dirs.lock):
                self._depth = 1
                try:
                    if not self._rendered_current():
                        # another process or a person may have been here, a crashed writer
                        # among them; while our own state holds, the directory did not change
                        self._rendered = None
                        self._remove_stale_temp_files()
                    yield
                finally:
                    self._depth = 0
                    if self._touched is not None:  # a write raised: what we kept may be wrong
                        self._rendered, self._touched = None, None

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Many writes under one lock: each file is still written atomically, but the directory
        is fsynced and MEMORY.md regenerated once, at the end."""
        with self.locked():
            if self._batching:
                yield
                return
            self._batching = True
            self._taken = {n[:-3].lower() for n in self.memory_names()}
            self.log.unsynced = set()
            try:
                yield
            finally:
                self._batching = False
                self._taken = None
                objects, self.log.unsynced = self.log.unsynced, None
                for folder in (*sorted(objects), self.dirs.memory, self.dirs.archive):
                    if folder.is_dir():
                        fsync_dir(folder)
                self._index_written()

    def _remove_stale_temp_files(self) -> None:
        """Another process may have been here, a crashed writer among them: remove the temp
        files it left (they are only written under the lock) in the scope and ``.index/``, and
        complete the change it logged but did not finish writing (``steps.settle``)."""
        self.check_links()
        for folder in (self.dirs.memory, self.dirs.derived):
            if folder.is_dir():
                for tmp in folder.glob(".*.tmp"):
                    tmp.unlink(missing_ok=True)
        if os.path.lexists(self.pending):
            self._settle()

    def _settle(self) -> None:
        """Complete a change the log holds but a crash kept off the disk (``FileStore``)."""

    # -- reading -------------------------------------------------------------------------
    def path_for(self, name: str) -> Path:
        return self.dirs.memory / f"{check_name(name)}.md"

    def memory_names(self) -> list[str]:
        """File names of the memories in this scope (``MEMORY.md`` and hidden files excluded)."""
        try:
            names = os.listdir(self.dirs.memory)
        except FileNotFoundError:
            return []
        return sorted(
            n for n in names if n.endswith(".md") and n != "MEMORY.md" and not n.startswith(".")
        )

    def memory_files(self) -> list[Path]:
        return [self.dirs.memory / n for n in self.memory_names()]

    def read_path(self, path: Path, st: os.stat_result | None = None) -> MemoryRecord:
        """The record in ``path`` (``st``: its ``lstat`` when the caller already has it — a scan
        of the directory — so a cached file costs no system call at all)."""
        if st is None:
            try:
                st = path.lstat()
            except FileNotFoundError:
                raise NotFoundError(
                    f"no memory named {path.stem!r} in the {self.dirs.scope} scope"
                ) from None
        target = path
        if stat.S_ISLNK(st.st_mode):
            target = path.resolve()
            root = self.dirs.memory.resolve()
            if not target.is_relative_to(root):
                raise BadFileError(
                    path, f"symlink points outside the scope (to {target}); not followed"
                )
            try:
                st = target.stat()
            except FileNotFoundError:
                raise BadFileError(
                    path, f"symlink points to {target}, which does not exist"
                ) from None
        if not stat.S_ISREG(st.st_mode):
            raise BadFileError(path, "not a regular file")
        if st.st_size > MAX_FILE_BYTES:
            raise BadFileError(
                path,
                f"file is {st.st_size / 1e6:.1f} MB; memory files must be under "
                f"{MAX_FILE_BYTES // 1024} KiB — split it or move it out of {self.dirs.memory}",
            )
        key = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        cached = self._cache.get(str(path))
        if cached and cached[0] == key:
            return cached[1]
        self._parses += 1
        try:
            data = read_regular(self.dirs.memory, target, st)  # no link swapped in since the lstat
        except FileNotFoundError:  # gone since it was listed (another process archived it)
            raise NotFoundError(
                f"no memory named {path.stem!r} in the {self.dirs.scope} scope"
            ) from None
        try:
            doc = parse(data)
            record = _record(doc, path, self.dirs, content_hash(data))
        except FormatError as exc:
            raise BadFileError(path, str(exc)) from None
        self._cache[str(path)] = (key, record, doc.meta.get("name"))
        return record

    def read(self, name: str) -> MemoryRecord:
        """The memory ``name``; ``NotFoundError`` or ``BadFileError`` otherwise."""
        return self.read_path(self.path_for(name))

    def exists(self, name: str) -> bool:
        return os.path.lexists(self.path_for(name))

    def _entries(self) -> list[tuple[str, os.stat_result]] | None:
        """``(file name, lstat)`` of every memory file, sorted by name (``None``: no directory):
        one ``scandir`` and one ``lstat`` per file, shared by ``scan`` and the fingerprint."""
        out: list[tuple[str, os.stat_result]] = []
        self.check_links()  # every read lists the directory first: links out are refused here
        try:
            with os.scandir(self.dirs.memory) as entries:
                for entry in entries:
                    name = entry.name
                    if not name.endswith(".md") or name == "MEMORY.md" or name[0] == ".":
                        continue
                    try:
                        out.append((name, entry.stat(follow_symlinks=False)))
                    except FileNotFoundError:
                        continue  # deleted while we listed
        except FileNotFoundError:
            return None
        return sorted(out, key=lambda e: e[0])

    def scan(self) -> tuple[list[MemoryRecord], list[Problem]]:
        """Every readable memory, and a ``Problem`` for each file that is not."""
        return self._scan()

    def _scan(self) -> tuple[list[MemoryRecord], list[Problem]]:
        records: list[MemoryRecord] = []
        problems: list[Problem] = []
        self._load_parsed()  # a listing reads every file; a single read need not load it
        for name, st in self._entries() or []:
            record, problem = self._read_entry(name, st)
            if record is not None:
                records.append(record)
            if problem is not None:
                problems.append(problem)
        if self._parses - self._parsed.at > max(SAVE_AFTER, len(records) // 100):
            self._parsed.save(self._cache)  # the next process parses only what changes
            self._parsed.at = self._parses
        return records, problems

    def _read_entry(
        self, name: str, st: os.stat_result
    ) -> tuple[MemoryRecord | None, Problem | None]:
        """File ``name`` of the directory, listed with ``st``: its record, or its problem."""
        path = self.dirs.memory / name
        try:
            return self.read_path(path, st), None
        except BadFileError as exc:
            return None, Problem(path, exc.reason)
        except NotFoundError:
            return None, None  # deleted between listing and reading

    def unreadable(self) -> list[Problem]:
        """The files every read skips (doctor's errors), from a scan alone: no change log,
        no second parse — cheap enough for ``memdir list`` to warn with."""
        return self.scan()[1]

    def problems(self) -> list[Problem]:
        """What ``memdir doctor`` reports for this scope."""
        records, problems = self.scan()
        for rec in records:
            cached = self._cache.get(str(rec.path))
            if cached is not None and cached[1] is rec:  # the scan just parsed or checked it
                declared = cached[2]
            elif rec.path.exists():
                declared = parse(rec.path.read_bytes()).meta.get("name")
            else:
                declared = None
            if declared != rec.name:
                problems.append(
                    Problem(
                        rec.path,
                        f"frontmatter name {declared!r} differs from the file name; "
                        f"memdir uses {rec.name!r} (rename the file or fix the key)",
                        "warning",
                    )
                )
        list(self.log.entries())
        if self.log.torn_lines:
            problems.append(
                Problem(
                    self.dirs.changes,
                    f"{self.log.torn_lines} unreadable line(s), likely from an interrupted write; "
                    "they are skipped",
                    "warning",
                )
            )
        return problems

    # -- writing -------------------------------------------------------------------------
    def _unique_name(self, base: str) -> str:
        taken: set[str] | Rendered | None = self._taken
        if taken is None and self._rendered is not None and not self._touched:
            taken = self._rendered  # the directory as MEMORY.md was last rendered from it
        if taken is None:
            taken = {n[:-3].lower() for n in self.memory_names()}
        name = base
        n = 2
        while name.lower() in taken:
            name = f"{base}-{n}"
            n += 1
        if self._taken is not None:
            self._taken.add(name.lower())
        elif isinstance(taken, Rendered) and os.path.lexists(self.path_for(name)):
            self._rendered = None  # a file we did not know of: list the directory after all
            return self._unique_name(base)
        return name

    def _commit(
        self,
        path: Path,
        data: bytes | None,
        *,
        op: str,
        actor: str,
        source: str | None,
        before: str | None,
        reason: str | None,
        undoes: str | None = None,
    ) -> Change:
        """Write (or delete, when ``data`` is None) one file, then log it and refresh MEMORY.md.

        The caller holds the lock and read the file when its hash was ``before``.
        """
        if data is not None:
            check_size(len(data))
        if data is not None and op in ("create", "update"):
            check_text(data.decode("utf-8", "replace"))  # the one write-path check, issue 26
        now = current_bytes(self.dirs.memory, path)
        if (content_hash(now) if now is not None else None) != before:
            raise ConflictError(
                f"{path} changed while memdir was updating it (a hand edit?); nothing was "
                "written — run the command again"
            )
        self._touch(path)
        after = content_hash(data) if data is not None else None
        if now is not None and before is not None:
            # keep what is about to be replaced, and the new version too (issue 26): a file
            # overwritten or deleted by hand later can still be put back (`memdir restore`)
            self.log.keep(before, now)
        if data is not None:
            self.log.keep(after or "", data)
        # intent first (issue 26): the log line is written before the file, so a kill in
        # between leaves a logged change the next locked write completes (``steps.settle``)
        change = self._log(
            path,
            op=op,
            name=path.stem,
            actor=actor,
            source=source,
            before=before,
            after=after,
            reason=reason,
            undoes=undoes,
        )
        crash_point("after-log")
        if data is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data, sync_dir=not self._batching)
        else:
            path.unlink()
        crash_point("after-write")
        self._written()
        return change

    def _touch(self, *paths: Path) -> None:
        """Say that ``paths`` are about to be written, so MEMORY.md re-reads them (and only
        them, when what it was rendered from is still current). Called before the first byte
        is written: a write that fails half-way is still re-read."""
        if self._touched is None:
            self._touched = set()
        self._touched.update(p.name for p in paths if p.parent == self.dirs.memory)

    def _log(self, where: Path, **fields: Any) -> Change:
        """Append one change — with the current run and where its file is (``where``) — before
        its file is written: every write path logs here first, then writes, then ``_written``."""
        self.check_links()
        # the marker says "a change is being written": only then does the next lock settle
        # the log's last change; without it a file that differs was changed by hand, and
        # hand edits win (a kill leaves the page cache, so no fsync is needed for it)
        os.close(os.open(self.pending, os.O_WRONLY | os.O_CREAT, 0o644))
        return self.log.append(run=self._run, path=self._where(where), **fields)

    @property
    def pending(self) -> Path:
        """``.history/pending``: present while a logged change is being written."""
        return self.dirs.history / "pending"

    def _written(self) -> None:
        """After a change's files are on disk: refresh MEMORY.md unless a batch will."""
        crash_point("before-done")
        self.pending.unlink(missing_ok=True)
        if not self._batching:
            self._index_written()

    def check_links(self, *extra: Path) -> None:
        """Refuse (``LinkError``) a folder or file of this scope, or one of ``extra``, that is a
        symbolic link out of it (``opening.check_scope_links``)."""
        check_scope_links(self.dirs, self.pending, *extra)

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
        """Write a new memory. An explicit ``name`` must be free; otherwise one is derived."""
        with self.locked():
            if name is not None:
                name = check_name(name)
                if os.path.lexists(self.path_for(name)):
                    raise ConflictError(
                        f"a memory named {name!r} already exists in the {self.dirs.scope} scope: "
                        "update it, or choose another name"
                    )
                if self._taken is not None:
                    self._taken.add(name.lower())
            else:
                name = self._unique_name(check_name(base_name))
            data, ordered = new_memory(name, meta, statement, why, how_to_apply)
            path = self.path_for(name)
            change = self._commit(
                path,
                data,
                op="create",
                actor=actor,
                source=ordered.get("source"),
                before=None,
                reason=reason,
            )
            return self.read_path(path), change

    def update(
        self,
        name: str,
        fields: Mapping[str, Any],
        *,
        actor: str,
        reason: str | None = None,
    ) -> tuple[MemoryRecord, Change | None]:
        """Change frontmatter keys and/or body parts; ``None`` removes an optional key."""
        with self.locked():
            current = self.read(name)
            data = read_inside(self.dirs.memory, current.path)
            doc = original = parse(data)
            meta_updates = {k: v for k, v in fields.items() if k not in BODY_PARTS}
            body = doc.body
            if "body" in fields:
                body = str(fields["body"])
            parts = {k: fields[k] for k in ("statement", "why", "how_to_apply") if k in fields}
            if parts:
                body = set_body_parts(
                    body,
                    doc.newline,
                    statement=parts.get("statement"),
                    why=parts.get("why"),
                    how=parts.get("how_to_apply"),
                )
            if body != original.body:
                doc = replace(original, body=body)
            if meta_updates or body != original.body:
                meta_updates.setdefault("updated", now_iso())
            new = set_fields(doc, meta_updates).dump() if meta_updates else doc.dump()
            if new == data:
                return current, None
            change = self._commit(
                current.path,
                new,
                op="update",
                actor=actor,
                source=current.source,
                before=current.content_hash,
                reason=reason,
            )
            return self.read_path(current.path), change

    def replace_bytes(
        self, name: str, data: bytes, *, actor: str, reason: str | None, expect_hash: str
    ) -> tuple[MemoryRecord, Change | None]:
        """Write a whole new version of ``name`` (``memdir edit``); it must parse first."""
        path = self.path_for(name)
        try:
            doc = parse(data)
            _record(doc, path, self.dirs, content_hash(data))
        except FormatError as exc:
            raise BadFileError(path, str(exc)) from None
        if doc.meta.get("name") != path.stem:
            raise BadFileError(
                path, f"the name key must stay {path.stem!r} (renaming is not done by editing)"
            )
        with self.locked():
            if content_hash(data) == expect_hash:
                return self.read(name), None
            change = self._commit(
                path,
                data,
                op="update",
                actor=actor,
                source=doc.meta.get("source"),
                before=expect_hash,
                reason=reason,
            )
            return self.read_path(path), change

    def delete(self, name: str, *, actor: str, reason: str | None = None) -> Change:
        """Remove a memory file; its bytes stay in the change log, so ``undo`` brings it back."""
        with self.locked():
            current = self.read(name)
            return self._commit(
                current.path,
                None,
                op="delete",
                actor=actor,
                source=current.source,
                before=current.content_hash,
                reason=reason,
            )

    def log_refusal(self, name: str, *, actor: str, source: str | None, reason: str) -> Change:
        """Record that the guard kept ``name`` out (SPEC G4): a ``refuse`` entry, no file."""
        with self.locked():
            change = self.log.append(
                op="refuse",
                name=name,
                actor=actor,
                source=source,
                before=None,
                after=None,
                reason=reason,
            )
            rendered = self._rendered
            if rendered is not None and rendered.signals is not None:
                # our own line, and no file changed: what MEMORY.md was rendered from stands
                size = self.dirs.changes.stat().st_size
                rendered.signals = replace(rendered.signals, log_size=size)
            return change

    def fingerprint(self) -> str:
        """A digest of every memory file's name and stat (no content read): cheap to compare."""
        return self.listing()[0]

    def listing(self) -> tuple[str, list[tuple[str, os.stat_result]]]:
        """The fingerprint and the ``(file name, lstat)`` of every memory file it was taken
        from, sorted by name: a caller that then walks the files needs no second stat pass."""
        entries = self._entries()
        if entries is None:
            return "empty", []
        return fingerprint(sum(entry_hash(n, st) for n, st in entries), len(entries)), entries

    def refresh_index(self) -> bool:
        """Regenerate MEMORY.md if a file was added, edited or deleted by hand since the last
        time memdir wrote it (SPEC A5). Cheap when nothing changed: one ``stat`` per file.
        A read-only directory is not an error: the files are still read directly. A scope with
        no directory yet is left alone: reading never creates one (it is made by the first write).
        """
        if not self.dirs.memory.is_dir():
            return False
        if self._batching:
            # a batch renders MEMORY.md once, at its end; a read inside it (forget's review
            # of what sleep built from the memory, in the REST server's batches) reads the
            # files themselves, and a full pass per read cost 3 % of the server's CPU
            return False
        state = self.dirs.derived / "memory-md.fingerprint"
        try:
            if state.read_text(encoding="ascii") == self.fingerprint() and self._index_intact():
                return False
        except (FileNotFoundError, UnicodeDecodeError):
            pass
        try:
            with self.locked():
                return self.regenerate_index()
        except OSError:
            return False

    def _index_intact(self, *, save: bool = False) -> bool:
        """Whether MEMORY.md is as memdir last wrote it (its size and mtime, kept in
        ``.index/memory-md.stat``): a line or marker removed by hand is mended on the next
        read (issue 26). ``save`` records the file as it is now."""
        mark = self.dirs.derived / "memory-md.stat"
        try:
            st = self.dirs.index_file.stat()
            now = f"{st.st_size}:{st.st_mtime_ns}"
        except OSError:
            now = "absent"
        if save:
            try:
                if mark.read_text(encoding="ascii") == now:
                    return True
            except (OSError, UnicodeDecodeError):
                pass
            self.dirs.derived.mkdir(parents=True, exist_ok=True)
            mark.write_text(now, encoding="ascii")  # derived: a torn write only re-renders
            return True
        try:
            return mark.read_text(encoding="ascii") == now
        except (OSError, UnicodeDecodeError):
            return False

    def regenerate_index(self) -> bool:
        """Rewrite the generated block of MEMORY.md from a full pass over the files if it
        changed; True when written. The pass lists and stats every file, and reads only those
        whose stat moved since the entries kept in ``.index/memory-md.rendered`` (a cold
        process's first write on a 10k store read all 10k files before)."""
        with self.locked():
            self._touched = None
            rendered = Rendered(self.dirs.scope)
            self._rendered = None
            kept = self._kept.read()
            parsed = self._render_pass(rendered, kept)
            present = self.dirs.memory.is_dir()
            written = self._write_index(rendered, rendered.fingerprint() if present else "empty")
            if present and (kept is None or parsed > max(KEEP_AFTER, len(rendered.entries) // 100)):
                replace_cache(self._kept.path, rendered.dump())
            return written

    def built_from(self, name: str) -> list[str]:
        """The memories of this scope that sleep built in part from ``name`` (their
        ``merged_from`` names it), from a pass like MEMORY.md's: every file is stat-ed, only
        those changed since the kept entries are read (a forget on a 10k store read them all)."""
        rendered = Rendered(self.dirs.scope)
        self._render_pass(rendered, self._kept.read())
        return rendered.built_from(name)

    def _render_pass(self, rendered: Rendered | None, kept: dict[str, Any] | None) -> int:
        """Fill ``rendered`` with every file listed: a kept entry whose stat digest still holds
        is reused, any other file is read (``rendered`` None: only read them, into the parse
        cache). The number of files read."""
        listed = []  # (file, stat, its kept entry when that still holds)
        for name, st in self._entries() or []:
            entry = kept.get(name) if kept is not None else None
            listed.append(
                (name, st, entry if entry and entry.hash == entry_hash(name, st) else None)
            )
        todo = sum(1 for _, _, entry in listed if entry is None)
        if todo > SAVE_AFTER:
            self._load_parsed()  # many files changed since: another process may have parsed them
        for name, st, entry in listed:
            if entry is not None:
                if rendered is not None:
                    rendered.reuse(name, entry)
                continue
            record, problem = self._read_entry(name, st)
            if rendered is not None:
                rendered.set(name, st, record, bad=problem is not None)
        return todo

    def _load_parsed(self) -> None:
        """What another process parsed (``parsed.py``), once per store."""
        if not self._parsed.loaded:
            for where, entry in self._parsed.load().items():
                self._cache.setdefault(where, entry)

    def _index_written(self) -> bool:
        """After a write (or a batch): MEMORY.md again, re-reading only the files written when
        what it was rendered from is current, else the full pass. True when written."""
        touched, self._touched = self._touched, None
        rendered, self._rendered = self._rendered, None
        if rendered is None or touched is None or not self.dirs.memory.is_dir():
            return self.regenerate_index()
        for name in touched:
            path = self.dirs.memory / name
            try:
                st = path.lstat()
            except FileNotFoundError:
                rendered.set(name, None)
                continue
            record, problem = self._read_entry(name, st)
            rendered.set(name, st, record, bad=problem is not None)
        return self._write_index(rendered, rendered.fingerprint())

    def _rendered_current(self) -> bool:
        """Whether MEMORY.md as this store rendered it still stands for the directory: nothing
        but this store wrote since (see ``memory_md``). A few ``stat`` calls, no listing."""
        rendered = self._rendered
        if rendered is None or rendered.signals is None:
            return False
        now = Signals.take(str(self.dirs.memory), str(self.dirs.changes), rendered.signals.saved)
        if now != rendered.signals:
            return False
        try:
            saved = (self.dirs.derived / "memory-md.fingerprint").read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            return False
        return saved == rendered.signals.saved

    def _write_index(self, rendered: Rendered, fingerprint: str) -> bool:
        """Put ``rendered``'s block in MEMORY.md (text outside the markers kept) and save its
        ``fingerprint``; remember both for the next write. True when MEMORY.md was written."""
        index = self.dirs.index_file
        try:
            old = index.read_text(encoding="utf-8")
        except FileNotFoundError:
            old = f"# Memory index ({self.dirs.scope} scope)\n\n"
        except (UnicodeDecodeError, OSError) as exc:
            raise BadFileError(index, f"cannot read MEMORY.md ({exc}); fix or delete it") from None
        new = splice(old, rendered.block())
        changed = new != old
        if changed:
            self.dirs.memory.mkdir(parents=True, exist_ok=True)
            atomic_write(index, new.encode("utf-8"))  # durable before the fingerprint vouches
        self._index_intact(save=True)
        # the fingerprint of what was just rendered (MEMORY.md itself is not part of it)
        state = self.dirs.derived / "memory-md.fingerprint"
        saved = rendered.signals.saved if rendered.signals is not None else None
        if saved is None:
            try:
                saved = state.read_text(encoding="ascii")
            except (OSError, UnicodeDecodeError):
                saved = None
        if saved != fingerprint:  # a write always moves it; a re-render may not
            self.dirs.derived.mkdir(parents=True, exist_ok=True)
            replace_cache(state, fingerprint.encode())
        rendered.signals = Signals.take(str(self.dirs.memory), str(self.dirs.changes), fingerprint)
        self._rendered = rendered
        return changed

    def _where(self, path: Path) -> str | None:
        """``path`` relative to the scope directory when it is not a top-level memory."""
        if path.parent == self.dirs.memory:
            return None
        return path.relative_to(self.dirs.memory).as_posix()
