"""The index's journal: what each of the last syncs changed, so that views another facade holds
are patched, not loaded again (``views.py``).

A server keeps a facade per thread and user, and a CLI may run beside it; each sync by any of
them moves the index's version. A sync that knows what it changed records the names and the
versions it went from and to (``record``); a facade whose views are behind follows the entries
from their version to the index's and patches once by all of them (``align``). A version that
moved with no entry — an older memdir, a sync cut short, a new embedder — makes the views load
again. The table is derived like the rest of the index and is added without a schema bump.
"""

from __future__ import annotations

import json
import sqlite3

from .views import Delta, Views

__all__ = ["KEEP", "MAX_NAMES", "TABLE", "align", "record"]

TABLE = (
    "CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, "
    "before TEXT NOT NULL, after TEXT NOT NULL, delta TEXT NOT NULL)"
)
KEEP = 256  # entries kept (the newest is never pruned, so seq only grows); views further
# behind than that load again
MAX_NAMES = 2000  # a sync that changed more is not journalled: loading is cheaper

Version = tuple[str | None, ...]


def align(db: sqlite3.Connection, views: Views, version: Version) -> None:
    """Bring ``views`` to ``version``: patched by the entries from their version to it, or
    emptied so that the next read loads them whole when the entries do not lead there."""
    if views.key == version:
        return
    top = db.execute("SELECT max(seq) FROM journal").fetchone()[0] or 0
    if views.loaded() and views.key is not None:
        key, seq, merged = json.dumps(views.key), views.seq, None
        for entry, frm, to, text in db.execute(
            "SELECT seq, before, after, delta FROM journal WHERE seq > ? ORDER BY seq",
            (views.seq,),
        ):
            if frm == key:
                merged = Delta.loads(text).merged(merged)
                key, seq = to, entry
            elif merged is not None:  # a version moved with no entry (an older memdir)
                break
        if merged is not None and key == json.dumps(version):
            views.files = None  # the stat rows are not journalled
            views.patch(db, merged, version)
            views.seq = seq
            return
    views.clear(version, top)


def record(db: sqlite3.Connection, delta: Delta | None, before: Version, after: Version) -> int:
    """Record what a sync changed from ``before`` to ``after`` (under the sync lock); the
    entry's seq, or 0 when there is nothing to record or too much to be worth it."""
    if delta is None or not delta or before == after or delta.size() > MAX_NAMES:
        return 0
    cursor = db.execute(
        "INSERT INTO journal (before, after, delta) VALUES (?, ?, ?)",
        (json.dumps(before), json.dumps(after), delta.dumps()),
    )
    seq = int(cursor.lastrowid or 0)
    db.execute("DELETE FROM journal WHERE seq <= ?", (seq - KEEP,))
    return seq
