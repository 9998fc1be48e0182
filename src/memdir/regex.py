"""Regular expressions compiled once per machine, not once per process.

The guard reads every write through some 170 patterns, many of them long alternations of
words; ``re`` compiles each in Python (parse, optimise, emit code) on every process start, which
was ~130 ms of a cold ``memdir remember``'s 0.3 s. The compiled form is plain data — the SRE
code (a list of ints), the flags and the group tables — and ``_sre.compile`` turns it into a
pattern in microseconds. So ``compile`` keeps that data in a derived table under the cache
directory (``derived``: ``regex-<group>-<digest>.bin``, one per group of patterns — the guard's,
the index's — keyed by the Python build and SRE's magic number) and later processes build their
patterns from it.

* **Same pattern, or none.** On a miss the pattern is compiled by ``re``'s own parser and code
  generator and checked equal (``re.Pattern.__eq__`` compares the pattern, flags and code) to
  ``re.compile``'s; if they ever differ (another Python), the cache is off for the process and
  ``re.compile`` serves. A table entry is used only for its exact (pattern, flags).
* **Damage is a miss.** A derived table (``derived.write_table``: magic, header checksum,
  size) whose one section, the marshalled code, also carries its CRC-32 in the header; a table
  that fails any of them, does not decode, or whose code ``_sre.compile`` rejects is ignored
  and rewritten.
* **Written at exit, once,** and only by a process that compiled something the table lacked:
  the union of what it found and what it added (capped at ``LIMIT`` entries, the ones this
  process used kept first), by the derived tables' atomic rename.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import atexit
import contextlib
import marshal
import re
import sys
import threading
import zlib
from pathlib import Path
from re import _compiler, _parser  # type: ignore[attr-defined]

from .derived import read_table, table_path, write_table

__all__ = ["compile"]

LIMIT = 4096
_KEY = f"{sys.implementation.cache_tag}|{sys.version}|sre {_sre.MAGIC}"

Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
Key = tuple[str, int]

_lock = threading.Lock()
_tables: dict[str, dict[Key, Entry]] = {}  # group -> its table, read on its first pattern
_used: dict[str, set[Key]] = {}
_added: set[str] = set()  # the groups this process compiled something new for
_off = False


def compile(pattern: str, flags: int = 0, *, group: str) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, built from ``group``'s table when it holds it. A group
    (``guard``, ``index``) is one table file, so a process reads only the patterns of the
    parts it runs: a recall never reads the guard's."""
    global _off
    flags = int(flags)
    if _off:
        return re.compile(pattern, flags)
    key = (pattern, flags)
    with _lock:
        table = _load(group)
        entry = table.get(key)
        _used.setdefault(group, set()).add(key)
    if entry is not None:
        try:
            return _sre.compile(pattern, *entry)  # type: ignore[no-any-return]
        except (TypeError, ValueError, RuntimeError, OverflowError):
            pass  # a damaged entry: compiled again below, and the table rewritten
    made, entry = _made(pattern, flags)
    if made != re.compile(pattern, flags):
        _off = True  # another Python's compiler: this process uses re alone
        return re.compile(pattern, flags)
    with _lock:
        table[key] = entry
        if not _added:
            atexit.register(_save)
        _added.add(group)
    return made


def _made(pattern: str, flags: int) -> tuple[re.Pattern[str], Entry]:
    """What ``re._compiler.compile`` does, keeping the data ``_sre.compile`` is given."""
    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    entry: Entry = (
        int(flags | parsed.state.flags),
        [int(c) for c in code],
        int(parsed.state.groups - 1),
        {str(k): int(v) for k, v in groupindex.items()},
        tuple(indexgroup),
    )
    return _sre.compile(pattern, *entry), entry


def _path(group: str) -> Path:
    return table_path(f"regex-{group}", _KEY)


def _load(group: str) -> dict[Key, Entry]:
    """``group``'s table (read once per process; empty when there is none or it is bad)."""
    table = _tables.get(group)
    if table is not None:
        return table
    table = _tables[group] = {}
    path = _path(group)
    found = read_table(path, _KEY)  # None when absent or not whole (one line said so)
    if found is None:
        return table
    try:
        payload = bytes(found.sections["code"])
        if zlib.crc32(payload) != found.meta["crc"]:
            raise ValueError("its checksum fails")
        entries = marshal.loads(payload)
        if isinstance(entries, dict):
            table.update(entries)
    except (ValueError, EOFError, TypeError, KeyError) as exc:
        print(f"memdir: rebuilding {path} ({exc})", file=sys.stderr)
    return table


def _save() -> None:
    """Write the tables this process added to (see the module)."""
    with _lock:
        work = [(g, dict(_tables[g]), set(_used.get(g, ()))) for g in sorted(_added)]
    for group, table, used in work:
        if len(table) > LIMIT:
            keep = [k for k in table if k in used] + [k for k in table if k not in used]
            table = {k: table[k] for k in keep[:LIMIT]}
        try:
            payload = marshal.dumps(table)
        except ValueError:
            continue  # (not expected: every entry is ints, strings, lists, tuples and dicts)
        with contextlib.suppress(OSError):  # an unwritable cache: the next process compiles
            write_table(_path(group), _KEY, {"crc": zlib.crc32(payload)}, {"code": payload})
