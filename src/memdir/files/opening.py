"""Reading a scope's files without following a link that appeared after the check (issue 26).

``inside`` checks a path, then the caller opens it: a file swapped for a symbolic link between
the two (a cloned repository's hook, another process) would be followed. So the open itself
refuses: ``O_NOFOLLOW`` fails on a link in the last component, ``O_NONBLOCK`` keeps a FIFO put
there from blocking the read, and the open file is checked after the open:

- ``fstat`` must show a regular file, the same one (device and inode) the caller's ``lstat``
  judged, so a size or link check made before still holds for what is read;
- where the kernel says the descriptor lies (``/proc/self/fd``, on Linux) must be under the
  scope's real folder, so a folder above the file swapped for a link is caught too.

A link found at open time is judged as any link is (``inside``: one out of the scope raises
``LinkError`` naming it); nothing is read through it.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import suppress
from pathlib import Path

from ..errors import BadFileError, LinkError
from ..fs import inside
from ..paths import ScopeDirs

__all__ = ["check_scope_links", "current_bytes", "read_inside", "read_regular"]

_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_FLAGS |= getattr(os, "O_CLOEXEC", 0)
_PROC_FD = Path("/proc/self/fd")


def read_regular(root: Path, path: Path, expect: os.stat_result | None = None) -> bytes:
    """The bytes of the regular file ``path`` under ``root``, read through no link: a link there
    now raises ``LinkError`` when it leads out of ``root`` (``BadFileError`` when it stays in:
    the caller looks again), a file other than ``expect`` (the ``lstat`` the caller checked)
    ``BadFileError``. ``FileNotFoundError`` passes through."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        inside(root, path)  # raises LinkError naming the link when it leads out
        raise BadFileError(
            path, "became a symbolic link while memdir read it; nothing was read — try again"
        ) from None
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadFileError(path, "not a regular file")
        if expect is not None and (st.st_dev, st.st_ino) != (expect.st_dev, expect.st_ino):
            raise BadFileError(
                path, "was replaced while memdir read it; nothing was read — try again"
            )
        _check_where(root, path, fd)
        return handle.read()


def _check_where(root: Path, path: Path, fd: int) -> None:
    """Refuse when the open file lies outside ``root`` (a folder on the way was a link)."""
    try:
        where = os.readlink(_PROC_FD / str(fd))
    except OSError:  # no /proc (macOS, a sandbox): the O_NOFOLLOW and inode checks remain
        return
    real_root = os.path.realpath(root)
    if where != real_root and not where.startswith(real_root.rstrip(os.sep) + os.sep):
        raise LinkError(
            path,
            f"leads out of {root} (to {where}) through a symbolic link; memdir does not follow "
            "it — replace the link with the real file or folder, or remove it",
        )


def read_inside(root: Path, path: Path) -> bytes:
    """``read_regular`` of ``path``, or of its target when it is a link that stays inside
    ``root`` (one that leads out raises ``LinkError`` naming it)."""
    if os.path.islink(path):
        inside(root, path)
        path = Path(os.path.realpath(path))
    return read_regular(root, path)


def current_bytes(root: Path, path: Path) -> bytes | None:
    """What ``path`` holds now (``read_inside``; ``None``: nothing there), for a write about to
    replace it."""
    try:
        return read_inside(root, path)
    except FileNotFoundError:
        return None


def check_scope_links(dirs: ScopeDirs, pending: Path, *extra: Path) -> None:
    """Refuse (``LinkError``) when a folder or file memdir keeps under the scope — those every
    read and write use, the write-ahead ``pending`` file, and ``extra`` (``archive/``, ``log/``
    where they are used) — is a symbolic link out of it (issue 26); one ``lstat`` each when none
    is a link. A linked ``archive/`` or ``log/`` only blocks what uses it."""
    root = dirs.memory
    if dirs.within is not None:  # the scope's folder itself (a project's .agent/memory)
        inside(dirs.within, root)
    for path in (
        *extra,
        dirs.derived,
        dirs.history,
        dirs.objects,
        dirs.changes,
        dirs.recalls,
        dirs.lock,
        pending,
        dirs.index_file,
        dirs.derived / "memory-md.fingerprint",
    ):
        inside(root, path)
    # the files in .index/ too (the database, its -wal and -shm, the locks and marks): a
    # linked index.sqlite was opened and written through (session 11); a set-aside
    # ``*.corrupt-*`` copy is never opened again
    with suppress(FileNotFoundError, NotADirectoryError):
        for entry in os.scandir(dirs.derived):
            if entry.is_symlink() and ".corrupt-" not in entry.name:
                inside(root, Path(entry.path))
