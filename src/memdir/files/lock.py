"""A fair, blocking cross-process lock: writers are served in the order they arrived.

``flock`` alone is not fair. A blocked ``flock`` is woken with every other waiter when the lock
is released and they race for it; a polled one (``LOCK_NB`` and a sleep) loses to whoever asks
at the right moment — with 8 shell loops writing to one scope one waiter starved past any
give-up time. So waiters queue, as in a ticket lock:

- ``<lock>.queue/ticket`` holds the last ticket number handed out. Taking a ticket is a few
  microseconds under a blocking ``flock`` on that file.
- Each waiter then holds an exclusive ``flock`` on its own file ``<lock>.queue/<ticket>-<pid>``
  (made under a temporary name, locked, then renamed in: a file seen under a ticket name is
  always locked by a live owner, or its owner died).
- A waiter blocks (``flock(LOCK_SH)``, no polling) on the file of the waiter just ahead of it;
  when that returns, the one ahead has finished or died, and it looks again. With nobody ahead
  it takes ``<lock>`` itself — the lock every memdir version and ``tests`` hold — blocking too.

**SIGKILL.** The kernel drops a dead process's ``flock`` s, so a dead holder or waiter never
wedges the others: the next one in line gets its file's lock at once and removes the file.
``<lock>`` itself gives the mutual exclusion; the queue only gives the order, so a damaged or
deleted queue folder costs fairness, never safety.

**No give-up time.** A waiter waits as long as the writers ahead of it take: each holds the lock
only for its critical section (milliseconds; measured by ``bench/locks.py``). A process that
holds it and hangs (stopped with ``SIGSTOP``, say) blocks the writers behind it until it is
resumed or killed, as a hung ``git`` does.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import LinkError

__all__ = ["fair_lock"]

_WIDTH = 20  # digits of a ticket number in a queue file's name: names sort as numbers


@contextmanager
def fair_lock(lock: Path) -> Iterator[None]:
    """Hold ``lock`` (an ``flock`` on that file), after every process that asked before us."""
    queue = lock.with_name(lock.name + ".queue")
    queue.mkdir(exist_ok=True)
    mine, number = _enqueue(queue)
    try:
        _wait_for_turn(queue, number)
        fd = _open(lock, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # at once, unless a process outside the queue has it
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the flock
    finally:
        _leave(queue, mine)


def _open(path: Path, flags: int) -> int:
    """``os.open`` that never follows a link in the last component (issue 26): the lock and the
    ticket counter are written to, and a link swapped in after ``check_links`` would lead the
    write out of the scope."""
    try:
        return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise LinkError(
            path, "is a symbolic link; memdir does not follow it — remove the link"
        ) from None


def _ticket(name: str) -> int | None:
    """The ticket number of a queue file's name; None for anything else in the folder."""
    head = name.split("-", 1)[0]
    return int(head) if len(head) == _WIDTH and head.isdigit() else None


def _enqueue(queue: Path) -> tuple[tuple[int, str], int]:
    """Take the next ticket and put our locked file in the queue: ``((fd, file name), ticket)``."""
    fd = _open(queue / "ticket", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            last = int(os.pread(fd, 64, 0) or b"0")
        except ValueError:  # a damaged counter: the files in the queue still give the order
            last = 0
        names = os.listdir(queue)
        for name in names:  # temporary names exist only under this flock: these are a crash's
            if name.startswith(".join-"):
                (queue / name).unlink(missing_ok=True)
        number = max([last, *(t for t in map(_ticket, names) if t is not None)]) + 1
        # fixed width, written over the old number in place: no truncate, which on ext4 makes
        # the kernel flush the file (auto_da_alloc), ~4-8 ms of every lock under load
        os.pwrite(fd, f"{number:0{_WIDTH}d}".encode(), 0)
        name = f"{number:0{_WIDTH}d}-{os.getpid()}"
        temp = queue / f".join-{name}"
        own = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            fcntl.flock(own, fcntl.LOCK_EX)  # a new file: granted at once
            os.rename(temp, queue / name)
        except BaseException:
            os.close(own)
            temp.unlink(missing_ok=True)
            raise
        return (own, name), number
    finally:
        os.close(fd)


def _wait_for_turn(queue: Path, number: int) -> None:
    """Return once no live waiter with a lower ticket is left in the queue."""
    while True:
        ahead = [n for n in os.listdir(queue) if (_ticket(n) or number) < number]  # not None
        if not ahead:
            return
        _wait_out(queue / max(ahead))


def _wait_out(path: Path) -> None:
    """Block until the owner of queue file ``path`` has left or died; remove it if it died."""
    try:
        fd = _open(path, os.O_RDONLY)
    except FileNotFoundError:
        return  # it left between our listing and now
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        # An owner that leaves unlinks its file before it lets go; still linked means it died.
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                path.unlink(missing_ok=True)
        except FileNotFoundError:
            pass
    finally:
        os.close(fd)


def _leave(queue: Path, mine: tuple[int, str]) -> None:
    fd, name = mine
    try:
        (queue / name).unlink(missing_ok=True)
    finally:
        os.close(fd)  # wakes the waiter behind us, which finds our file gone
