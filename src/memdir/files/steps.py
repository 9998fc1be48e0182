"""Keeping the files and the change log in step (issue 26).

Every write logs its change *first*, then writes the file(s): the log line says what the files
are about to become, and both versions' bytes are already in ``.history/objects/``. So a kill
at any point leaves one of two states — the last change fully on disk, or logged but not (or
half) written — and ``settle`` (run by the next locked write, and by ``doctor --fix``)
completes the second from the kept bytes. Writes are serialised by the scope lock and each one
settles first, so only the *last* line of the log can be unfinished: settling costs one small
read of the log's end and a hash of one or two files.

A file changed *outside* memdir (a hand edit, a delete, ``git checkout``) is not a crash:
``out_of_step`` finds every file that differs from what the log says memdir last wrote
(``doctor`` reports them), ``record_outside`` adds such changes to the history so they can be
undone (``doctor --fix``), and ``restore_version`` puts back the version memdir wrote
(``memdir restore NAME``).
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import MemdirError, NotFoundError, ValidationError
from ..fs import atomic_write, fsync_dir
from ..history import Change
from ..markdown import content_hash
from ..records import check_name
from .core import StoreCore

__all__ = ["OutOfStep", "located", "out_of_step", "record_outside", "restore_version", "settle"]


def located(store: StoreCore, change: Change) -> Path:
    """The file ``change`` is about (for archive/restore: its archive side), checked to stay
    inside the scope — the log is a file a person can edit."""
    if not change.path:
        return store.path_for(change.name)
    folder, _, file = change.path.partition("/")
    if folder != "archive" or not file.endswith(".md"):
        raise ValidationError(
            f"change {change.id} names the path {change.path!r}, which is not a memory "
            "file of this scope; fix or remove that line of the change log"
        )
    return store.dirs.archive / f"{check_name(file)}.md"


def _hash(path: Path, store: StoreCore | None = None) -> str | None:
    """The content hash of the regular file at ``path``; ``None`` when there is none. With
    ``store``, a file its last scan parsed (same inode, size and times) is not read again."""
    try:
        st = path.lstat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    if store is not None:
        cached = store._cache.get(str(path))
        if cached and cached[0] == (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns):
            return cached[1].content_hash
    try:
        return content_hash(path.read_bytes())
    except OSError:
        return None


def sides(store: StoreCore, change: Change) -> tuple[Path, Path]:
    """``(where its bytes were before, where they are after)`` for ``change``: the same file
    for most changes, two for a rename and for moves to or from ``archive/``."""
    if change.renamed_from is not None:
        return store.path_for(change.renamed_from), store.path_for(change.name)
    if change.op == "archive":
        return store.path_for(change.name), located(store, change)
    if change.op == "restore" and change.path:
        return located(store, change), store.path_for(change.name)
    here = located(store, change)
    return here, here


def settle(store: StoreCore) -> Change | None:
    """Complete the last logged change if a crash cut its write short (the caller holds the
    lock); the change when something was done. A file that moved on since (a hand edit after
    the crash) is left alone: ``doctor`` reports it."""
    if not store.pending.exists():
        return None  # no write was cut short: a file that differs was changed by hand
    try:
        change = store.log.last()
        if change is None or change.op == "refuse":
            store.pending.unlink(missing_ok=True)
            return None
        src, dst = sides(store, change)
    except MemdirError:
        return None  # a hand-edited log line: doctor reports what is out of step
    done = _settle_files(store, change, src, dst)
    store.pending.unlink(missing_ok=True)
    return change if done else None


def _settle_files(store: StoreCore, change: Change, src: Path, dst: Path) -> bool:
    """Roll ``change`` forward from the kept bytes when the files are as it found them (or
    half-way); True when something was written."""
    moved = src != dst
    dst_now, src_now = _hash(dst), (_hash(src) if moved else None)
    if dst_now == change.after and src_now is None:
        return False  # the change is on disk: the kill came after the write
    if not _unfinished(change, moved, dst_now, src_now):
        return False  # moved on since (a hand edit after the crash): doctor reports it
    store._touch(src, dst)
    if dst_now != change.after:
        if change.after is None:
            dst.unlink(missing_ok=True)
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(dst, store.log.load(change.after))
    if moved and src_now is not None:
        src.unlink(missing_ok=True)
        fsync_dir(src.parent)
    store._rendered = None  # MEMORY.md is rendered again from the files
    return True


def _unfinished(change: Change, moved: bool, dst_now: str | None, src_now: str | None) -> bool:
    """Whether the files are where a cut-short ``change`` leaves them: not yet written, or (a
    move) the new file written and the old one not yet removed."""
    if dst_now not in (change.after, None if moved else change.before):
        return False
    return not moved or src_now in (change.before, None)


@dataclass(frozen=True)
class OutOfStep:
    """A file that is not what the change log says memdir last made it."""

    path: Path
    name: str
    change: Change  # the last change memdir logged for this file
    expected: str | None  # its hash after that change (None: no file)
    actual: str | None  # its hash now (None: no file)
    unfinished: bool = False  # the log's last change, which ``settle`` would complete

    def reason(self) -> str:
        if self.unfinished:
            return (
                f"change {self.change.id} ({self.change.op}) is logged but a crash cut its "
                "write short; the next change in this scope, or `memdir doctor --fix`, "
                "completes it"
            )
        fix = "`memdir doctor --fix` adds the change to the history, so it can be undone"
        since = f"since change {self.change.id} ({self.change.op})"
        if self.expected is None:
            return f"created outside memdir {since}, which had removed it; {fix}"
        if self.actual is None:
            back = f"`memdir restore {self.name}` brings it back"
            return f"deleted outside memdir {since}; {back}; {fix}"
        back = f"`memdir restore {self.name}` puts back the version memdir wrote"
        return f"changed outside memdir (a hand edit, or a write cut short) {since}; {back}; {fix}"


def out_of_step(store: StoreCore) -> list[OutOfStep]:
    """Every file the log knows whose bytes differ from the last change memdir logged for it."""
    last: dict[Path, tuple[Change, str | None]] = {}
    for change in store.log.entries():
        if change.op == "refuse":
            continue
        try:
            src, dst = sides(store, change)
        except MemdirError:
            continue
        if src != dst:
            last[src] = (change, None)
        last[dst] = (change, change.after)
    found = []
    final = store.log.last() if store.pending.exists() else None
    for path, (change, expected) in sorted(last.items()):
        actual = _hash(path, store)
        if actual != expected:
            cut = change == final
            found.append(OutOfStep(path, path.stem, change, expected, actual, cut))
    return found


def record_outside(store: StoreCore, *, actor: str = "doctor") -> list[Change]:
    """``doctor --fix``: settle a crashed write, then log each change made outside memdir (its
    bytes kept) so that ``undo`` can reverse it; also remove temp files a crash left in
    ``.history/objects/``. The caller need not hold the lock."""
    changes: list[Change] = []
    with store.locked():
        settle(store)
        if store.dirs.objects.is_dir():
            for tmp in store.dirs.objects.glob("*/.*.tmp"):
                tmp.unlink(missing_ok=True)
        for item in out_of_step(store):
            if item.actual is not None:
                store.log.keep(item.actual, item.path.read_bytes())
            op = "delete" if item.actual is None else "update" if item.expected else "create"
            change = store._log(
                item.path,
                op=op,
                name=item.name,
                actor=actor,
                source=item.change.source,
                before=item.expected,
                after=item.actual,
                reason="recorded by doctor --fix: changed outside memdir",
            )
            changes.append(change)
        if changes:
            store._rendered = None
            store._written()
    return changes


def restore_version(store: StoreCore, name: str, *, actor: str) -> Change:
    """Put back the bytes of ``name`` as memdir last wrote them (``memdir restore NAME`` after
    a hand overwrite or delete). The bytes replaced are kept: the restore can be undone."""
    with store.locked():
        path = store.path_for(name)
        match = [item for item in out_of_step(store) if item.path == path]
        if not match:
            if not any(c.name == name for c in store.log.entries()):
                raise NotFoundError(
                    f"no memory named {name!r} in the history of the {store.dirs.scope} scope: "
                    "see `memdir history` (archived ones: `memdir list --archived`)"
                )
            raise ValidationError(
                f"{name!r} is as memdir last wrote it and none is archived under that name "
                "(`memdir list --archived`): nothing to restore — to go back further, "
                f"`memdir undo` a change from `memdir history {name}`"
            )
        item = match[0]
        if item.expected is None:
            raise ValidationError(
                f"memdir's last change to {name!r} ({item.change.id}, {item.change.op}) removed "
                f"it; the file there now was made by hand — `memdir undo {item.change.id}` or "
                "`memdir doctor --fix` to record it"
            )
        return store._commit(
            path,
            store.log.load(item.expected),
            op="create" if item.actual is None else "update",
            actor=actor,
            source=item.change.source,
            before=item.actual,
            reason=f"restored the version of change {item.change.id} (changed outside memdir)",
        )
