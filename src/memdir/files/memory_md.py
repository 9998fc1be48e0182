"""MEMORY.md: its generated block, its fingerprint, and what a store remembers of both between
writes so that one write costs the same at 100 memories as at 5,000.

The block is one pointer line per memory (``render_index``). It can be produced two ways:

* **Full pass** — list the directory, ``lstat`` every file, read each (parses are cached by
  stat), render. ``regenerate_index`` and ``refresh_index`` do this; it is the reference. A
  pass reuses the entries kept in ``.index/memory-md.rendered`` (``Rendered.dump``: per file
  its stat digest, pointer line and ``merged_from`` names) for every file whose stat digest
  still matches, so a new process reads only the files changed since they were kept. That
  file is derived: keyed by the code that renders a line (``_kept_format``), saved again when
  a pass had to read many files, and ignored (a pass that reads everything) when it does not
  read back.
* **Incremental** — a store that rendered MEMORY.md keeps what it rendered from (``Rendered``:
  per file its stat digest and its pointer line, grouped and sorted as the block shows them).
  A write by that store re-reads only the files it wrote and re-renders from the kept lines;
  no other file is listed, stat-ed or read.

Invariants:

* ``Rendered.block()`` is byte-for-byte ``render_index`` of the same files, so both ways give the
  same MEMORY.md (``tests/test_memory_md.py`` checks it against a fresh full pass after random
  operations, hand edits and a second writer).
* **The saved fingerprint vouches only for what was rendered.** ``.index/memory-md.fingerprint``
  is always the fingerprint of the files the block was made from (for an incremental write: the
  kept stats plus the new stats of the files written), never a fresh listing. So anything memdir
  did not see — an in-place hand edit, which moves no directory timestamp — leaves the saved
  fingerprint different from the real one, and the next ``refresh_index()`` (every read calls it)
  does a full pass. MEMORY.md is derived: at worst it lags until that read, it never loses data.
* **Kept state is trusted only while nothing else can have changed the directory.** It is checked
  when the write lock is taken (``Signals``: the directory's inode and mtime, the change log's
  size, the saved fingerprint's text): another memdir process appends to the change log; a hand
  add, delete or rename (and an editor that saves by renaming) moves the directory's mtime;
  another process's regeneration rewrites the fingerprint. Any mismatch, a write that raised, or
  a new process means the next write does the full pass.

The fingerprint is a sum of one hash per file (name, inode, size, mtime), modulo 2**256, so one
file's change adjusts it without visiting the others; ``FINGERPRINT_VERSION`` names that format.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ..records import TYPES, MemoryRecord, tentative_mark

__all__ = [
    "BEGIN",
    "END",
    "FINGERPRINT_VERSION",
    "Kept",
    "Rendered",
    "Signals",
    "entry_hash",
    "fingerprint",
    "kept_entries",
    "pointer_line",
    "render_index",
    "splice",
]

BEGIN = "<!-- memdir:begin -->"
END = "<!-- memdir:end -->"
FINGERPRINT_VERSION = "v2"  # v1: sha256 of the sorted entry lines (no incremental update)
_MOD = 1 << 256
_HEADER = (
    "<!-- Generated from the memory files in this directory after every change: edit those "
    "files, not these lines. Text outside the memdir:begin/end markers is kept. -->"
)


def _sources(rec: MemoryRecord) -> list[str]:
    value = rec.extra.get("merged_from")
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def pointer_line(rec: MemoryRecord) -> str:
    """The line of MEMORY.md that points at ``rec``; a tentative one says so, with its rival
    (issue 22: a conflict the person has not settled must not read as a fact)."""
    title = str(rec.extra.get("title") or rec.name).replace("]", "\\]")
    return f"- [{title}]({rec.name}.md) — {rec.description}{tentative_mark(rec)}"


def _block(groups: dict[str, list[str]], skipped: int, scope: str) -> str:
    """The block from each type's pointer lines (already sorted by name)."""
    lines = [BEGIN, _HEADER]
    if not any(groups.values()):
        lines += ["", f"_No {scope} memories yet._"]
    for memory_type in TYPES:
        group = groups.get(memory_type)
        if group:
            lines += ["", f"## {memory_type.capitalize()}", *group]
    if skipped:
        lines += ["", f"<!-- {skipped} file(s) could not be read: run `memdir doctor` -->"]
    lines.append(END)
    return "\n".join(lines) + "\n"


def render_index(records: list[MemoryRecord], skipped: int, scope: str) -> str:
    """The generated block of ``MEMORY.md``: one pointer line per memory, grouped by type."""
    groups: dict[str, list[str]] = {
        t: [
            pointer_line(r)
            for r in sorted(
                (r for r in records if r.type == t and r.kind != "knowledge"), key=_name
            )
        ]
        for t in TYPES
    }
    return _block(groups, skipped, scope)


def _name(rec: MemoryRecord) -> str:
    return rec.name


def splice(old: str, block: str) -> str:
    """``old`` (a MEMORY.md's text) with its generated block replaced by ``block``; text outside
    the markers is kept, and a file without markers gets the block appended."""
    start, end = old.find(BEGIN), old.find(END)
    if start != -1 and end > start:
        rest = old[end + len(END) :]
        rest = rest[2:] if rest.startswith("\r\n") else rest.removeprefix("\n")
        return old[:start] + block + rest
    lines = old.splitlines(keepends=True)
    header = old.find(_HEADER[:40])
    if start != -1 or end != -1 or header != -1:
        # a marker removed by hand (issue 26): mend the block where it is, do not append
        marker = BEGIN if start != -1 else END if end != -1 else _HEADER[:40]
        at = next(i for i, line in enumerate(lines) if marker in line)
        lo, hi = at, at + 1
        if end == -1:
            while hi < len(lines) and _generated(lines[hi]):
                hi += 1
        else:
            while lo > 0 and _generated(lines[lo - 1]):
                lo -= 1
        return "".join(lines[:lo]) + block + "".join(lines[hi:])
    return old + ("" if old.endswith("\n") or not old else "\n") + block


def _generated(line: str) -> bool:
    """Whether ``line`` looks like one memdir writes inside the markers (for mending)."""
    text = line.strip()
    return not text or text.startswith(("<!--", "## ", "- [")) or text.startswith(_HEADER[:20])


def entry_hash(name: str, st: os.stat_result) -> int:
    """One file's share of the fingerprint: its name and the stat fields an edit moves."""
    part = f"{name}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}"
    return int.from_bytes(hashlib.sha256(part.encode("utf-8", "surrogateescape")).digest())


def fingerprint(total: int, count: int) -> str:
    """The text saved in ``.index/memory-md.fingerprint`` for ``count`` files summing to
    ``total`` (``"empty"`` is kept for a scope with no directory)."""
    return f"{FINGERPRINT_VERSION}:{count}:{total % _MOD:064x}"


@dataclass(frozen=True)
class Signals:
    """What moves when anything but this store changes the directory (see the module doc)."""

    dir_ino: int
    dir_mtime_ns: int
    log_size: int
    saved: str  # the fingerprint text this store last saved

    @classmethod
    def take(cls, memory: str, changes: str, saved: str) -> Signals | None:
        """The signals now (``None`` when the directory is gone)."""
        try:
            st = os.stat(memory)
        except FileNotFoundError:
            return None
        try:
            log_size = os.stat(changes).st_size
        except FileNotFoundError:
            log_size = -1
        return cls(st.st_ino, st.st_mtime_ns, log_size, saved)


@dataclass
class _Entry:
    hash: int
    type: str | None  # None: not rendered (a bad file, counted in ``bad`` when ``bad`` is set)
    name: str = ""  # the file name's stem, the sort key within a type
    line: str = ""
    bad: bool = False
    # the memories sleep built this one from (its ``merged_from``): what a forget looks up
    sources: tuple[str, ...] = ()


@dataclass
class Rendered:
    """The files a MEMORY.md block was rendered from: enough to re-render it after one file
    changes, and to compute the fingerprint, without visiting the other files."""

    scope: str
    entries: dict[str, _Entry] = field(default_factory=dict)  # by file name ("x.md")
    names: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in TYPES})
    lines: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in TYPES})
    lower: Counter[str] = field(default_factory=Counter)  # stems, lower-cased: for unique names
    bad: int = 0
    total: int = 0
    signals: Signals | None = None

    def set(
        self,
        file: str,
        st: os.stat_result | None,
        record: MemoryRecord | None = None,
        *,
        bad: bool = False,
    ) -> None:
        """File ``file`` now has stat ``st`` (``None``: it is gone) and reads as ``record``
        (``None`` with ``bad``: a file every read skips; without: listed but not rendered)."""
        self._drop(file)
        if st is None:
            return
        entry = _Entry(entry_hash(file, st), None, bad=bad and record is None)
        if record is not None:
            entry.sources = tuple(_sources(record))
        if record is not None and record.kind != "knowledge":  # knowledge: not in the guide
            entry.type, entry.name, entry.line = record.type, record.name, pointer_line(record)
            names = self.names[record.type]
            at = bisect.bisect_left(names, record.name)
            names.insert(at, record.name)
            self.lines[record.type].insert(at, entry.line)
        self.entries[file] = entry
        self.total += entry.hash
        self.bad += entry.bad
        self.lower[file[:-3].lower()] += 1

    def reuse(self, file: str, entry: _Entry) -> None:
        """File ``file`` is unchanged since ``entry`` was rendered from it (same stat digest):
        its line is taken as it was, without reading the file."""
        self._drop(file)
        if entry.type is not None:
            at = bisect.bisect_left(self.names[entry.type], entry.name)
            self.names[entry.type].insert(at, entry.name)
            self.lines[entry.type].insert(at, entry.line)
        self.entries[file] = entry
        self.total += entry.hash
        self.bad += entry.bad
        self.lower[file[:-3].lower()] += 1

    def dump(self) -> bytes:
        """What ``kept_entries`` reads back in another process (``.index/memory-md.rendered``)."""
        rows = [
            [f, f"{e.hash:x}", e.type, e.name, e.line, e.bad, list(e.sources)]
            for f, e in self.entries.items()
        ]
        data = {"format": _kept_format(), "scope": self.scope, "entries": rows}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    def _drop(self, file: str) -> None:
        entry = self.entries.pop(file, None)
        if entry is None:
            return
        self.total -= entry.hash
        self.bad -= entry.bad
        stem = file[:-3].lower()
        self.lower[stem] -= 1
        if not self.lower[stem]:
            del self.lower[stem]
        if entry.type is not None:
            names = self.names[entry.type]
            at = bisect.bisect_left(names, entry.name)
            del names[at]
            del self.lines[entry.type][at]

    def block(self) -> str:
        return _block(self.lines, self.bad, self.scope)

    def fingerprint(self) -> str:
        return fingerprint(self.total, len(self.entries))

    def built_from(self, name: str) -> list[str]:
        """The stems of the files whose memory sleep built in part from ``name``."""
        return [file[:-3] for file, e in self.entries.items() if name in e.sources]

    def __contains__(self, stem: object) -> bool:
        """Whether a file here is called ``stem`` (lower-cased), as ``_unique_name`` asks."""
        return stem in self.lower


@cache
def _kept_format() -> str:
    """The kept entries' format: this file's and ``records.py``'s code (what renders a line),
    so a memdir that renders lines differently never reuses another's."""
    from ..derived import code_digest  # only when a kept file is read or written

    here = Path(__file__)
    return f"{FINGERPRINT_VERSION}:{code_digest(here, here.parent.parent / 'records.py')}"


class Kept:
    """The file ``Rendered.dump`` writes (``.index/memory-md.rendered``), read once per version
    of it (its inode, size and mtime)."""

    def __init__(self, path: Path, scope: str) -> None:
        self.path, self.scope = path, scope
        self._last: tuple[tuple[int, int, int], dict[str, _Entry] | None] | None = None

    def read(self) -> dict[str, _Entry] | None:
        """The kept entries by file name; None when there are none that read back."""
        try:
            with self.path.open("rb") as handle:
                st = os.fstat(handle.fileno())
                key = (st.st_ino, st.st_size, st.st_mtime_ns)
                if self._last is not None and self._last[0] == key:
                    return self._last[1]
                data = handle.read()
        except OSError:
            return None
        entries = kept_entries(data, self.scope)
        self._last = (key, entries)
        return entries


def kept_entries(data: bytes, scope: str) -> dict[str, _Entry] | None:
    """The entries ``Rendered.dump`` wrote, by file name; ``None`` for a file of another format
    or scope, or one that does not read (derived: the caller then reads every file)."""
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("format") != _kept_format():
        return None
    rows = doc.get("entries")
    if doc.get("scope") != scope or not isinstance(rows, list):
        return None
    out: dict[str, _Entry] = {}
    for row in rows:
        if not (isinstance(row, list) and len(row) == 7):
            return None
        file, digest, kind, name, line, bad, sources = row
        if not (
            isinstance(file, str)
            and isinstance(digest, str)
            and (kind is None or kind in TYPES)
            and isinstance(name, str)
            and isinstance(line, str)
            and isinstance(bad, bool)
            and isinstance(sources, list)
            and all(isinstance(n, str) for n in sources)
        ):
            return None
        try:
            value = int(digest, 16)
        except ValueError:
            return None
        out[file] = _Entry(value, kind, name, line, bad, tuple(sources))
    return out
