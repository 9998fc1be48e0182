"""File-system primitives every module that writes under memdir's directories shares.

``inside`` is the one symbolic-link rule (a path must stay under its root once links are
resolved); ``atomic_write`` the one atomic replace (temp file beside the target, fsync, rename,
fsync the directory); ``append_jsonl`` / ``read_jsonl`` the fsynced, tear-tolerant JSON-lines
append and read; ``crash_point`` the named steps where the crash tests kill a writer. The store,
the change log, sessions, settings, API keys, extraction state and the importers all use these,
so none of them writes its own.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import threading
import uuid
from pathlib import Path
from typing import Any

from .errors import LinkError

__all__ = [
    "append_jsonl",
    "atomic_write",
    "crash_point",
    "fsync_dir",
    "inside",
    "read_jsonl",
    "replace_cache",
]


def inside(root: Path, path: Path) -> Path:
    """``path``, checked to stay under ``root`` once every symbolic link is resolved — the one
    rule for every file memdir reads or writes under a scope (issue 26): a link that stays
    inside is followed, one that leads out raises ``LinkError`` naming it. ``root`` itself may
    be a link (a home on another disk is the person's choice); what lies under it may not
    lead elsewhere. Cheap when nothing is a link: one ``lstat`` per component below ``root``."""
    try:
        rest = path.relative_to(root).parts
    except ValueError:
        rest = None
    if rest is not None:
        current = root
        for part in rest:  # the common case: no component is a link, nothing to resolve
            current = current / part
            try:
                if os.path.islink(current):
                    break
            except OSError:
                return path
        else:
            return path
    real_root, real = os.path.realpath(root), os.path.realpath(path)
    if real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep):
        return path
    link = _first_link(root, path)
    raise LinkError(
        link,
        f"is a symbolic link that leads out of {root} (to {real}); memdir does not follow it — "
        "replace the link with the real file or folder, or remove it",
    )


def _first_link(root: Path, path: Path) -> Path:
    """The first component of ``path`` below ``root`` that is a symbolic link (for messages)."""
    try:
        current = root
        for part in path.relative_to(root).parts:
            current = current / part
            if current.is_symlink():
                return current
    except ValueError:
        pass
    return path


def crash_point(point: str) -> None:
    """A named step of a write, where the crash tests (``tests/test_history.py``) kill the
    process: ``MEMDIR_TEST_CRASH=<point>`` (or ``<point>:<n>``, the n-th time it is passed)
    makes the writer send itself SIGKILL there. Deterministic: no timing, no sleeps."""
    wanted = os.environ.get("MEMDIR_TEST_CRASH")
    if not wanted:
        return
    name, _, count = wanted.partition(":")
    if name != point:
        return
    seen = _CRASH_SEEN[point] = _CRASH_SEEN.get(point, 0) + 1
    if seen >= (int(count) if count.isdigit() else 1):
        os.kill(os.getpid(), signal.SIGKILL)


_CRASH_SEEN: dict[str, int] = {}


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, *, sync_dir: bool = True, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old file or the new one.

    The temp file is hidden (``.name.xxxx.tmp``) and lives beside the target, so the rename
    stays on one file system; it is fsynced before the rename and the directory after it
    (a batch of writes passes ``sync_dir=False`` and fsyncs the directory once at the end).
    ``mode`` is set at creation, before any byte is written (0600 for settings and API keys).
    The one atomic write: the store, settings, API keys and extraction state all use it.
    """
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex[:8]}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        crash_point("before-rename")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if sync_dir:
        fsync_dir(path.parent)


def replace_cache(path: Path, data: bytes) -> None:
    """Replace a derived file by a rename, without an fsync: a crash may leave the old bytes
    or none, and either only makes the next call rebuild what it vouches for (measured: the
    fsyncs of the fingerprint were 2 of a write's 9, bench/results/serve.md)."""
    tmp = path.parent / f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def append_jsonl(
    path: Path, record: dict[str, Any], *, sync: bool = True, own_lock: bool = False
) -> None:
    """Append one JSON line (and fsync it, unless ``sync`` is off for a log whose last lines
    may be lost in a crash); the caller holds the scope's lock — or, with ``own_lock``, the
    file's own ``flock`` is taken for the append (a log that is only ever appended to, by
    appenders that all lock it so: the recall log, whose appends need not queue behind writes).

    If a crash tore the previous line, a newline is written first so that this entry stays
    readable on its own.
    """
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    append_bytes(path, line.encode("utf-8"), sync=sync, own_lock=own_lock)


def append_bytes(path: Path, data: bytes, *, sync: bool = True, own_lock: bool = False) -> None:
    """``append_jsonl`` for lines already encoded (``data`` ends with a newline)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        if own_lock:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)  # released when the file is closed
        if handle.tell() > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                handle.write(b"\n")
        handle.write(data)
        handle.flush()
        if sync:
            os.fsync(handle.fileno())


def read_jsonl(path: Path, offset: int = 0) -> tuple[list[dict[str, Any]], int, int]:
    """``(records, torn, end_offset)`` of the complete lines of ``path`` from ``offset``.

    A last line without its newline (a write in progress or torn by a crash) is not consumed.
    """
    records: list[dict[str, Any]] = []
    torn = 0
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below; absent file is not an error
    except FileNotFoundError:
        return records, 0, 0
    with handle:
        handle.seek(offset)
        end = offset
        for raw in handle:
            if not raw.endswith(b"\n"):
                break
            end += len(raw)
            try:
                data = json.loads(raw)
            except ValueError:
                torn += 1
                continue
            if isinstance(data, dict):
                records.append(data)
            else:
                torn += 1
    return records, torn, end
