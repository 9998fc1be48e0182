"""FileStore: the memories of one scope as Markdown files — the truth (SPEC A2–A6).

Invariants:

* **Atomic and locked.** Every write is ``atomic_write`` (temp file, fsync, rename, fsync of the
  directory) made while holding the scope's cross-process lock (``flock`` on
  ``.history/lock``). A crash leaves each file old or new; concurrent writers queue.
* **Hand edits win.** Nothing is cached across calls except parsed files keyed by
  ``(inode, size, mtime, ctime)`` and MEMORY.md's rendered lines (trusted only while nothing
  else changed the directory), so an edit made with any editor is seen by the next read.
  Updates re-read the file under the lock and patch only the keys that change (``markdown.py``);
  just before the rename the file is checked again, and a concurrent hand edit aborts the write
  with ``ConflictError`` instead of being overwritten.
* **Bad files are left alone.** A file that does not parse, is too large, is not UTF-8 or is a
  symlink leaving the scope is reported (``problems()``) and skipped; memdir never rewrites,
  moves or deletes it.
* **Logged.** Each change goes to the change log (``history.py``) with the bytes before and after.
* **MEMORY.md is derived.** It is refreshed after every change from the files — incrementally,
  from the files the write touched, while the store's kept state is current, else by a full
  pass (``memory_md.py`` says when); only the block between its ``memdir:begin`` /
  ``memdir:end`` markers is memdir's, text around it is kept.

``core.py`` holds locking, reading, the one write path and writing MEMORY.md; ``memory_md.py``
renders MEMORY.md and keeps what it was rendered from; ``store.py`` adds undo, whole-file
creates and renames (the memory tool) and the archive (sleep) as ``FileStore``.
"""

from ..fs import inside
from .core import BODY_PARTS, MAX_FILE_BYTES, Problem
from .store import FileStore

__all__ = ["BODY_PARTS", "MAX_FILE_BYTES", "FileStore", "Problem", "inside"]
