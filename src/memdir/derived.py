"""Derived tables: built once from a package's data, kept in one file under the cache directory,
and mapped (not parsed) by every later process.

Some of what memdir reads is a table derived from a package's data by code: CC-CEDICT's
translation tables (``index/translate.py``), the ``use`` embedder's tokenizer and weights
(``providers/embeddings.py``). Deriving them costs seconds; a CLI process that pays that on
every call is not a tool one can run from a hook. So each table is built on first use and
written to ``<cache dir>/<name>-<digest>.bin`` (``paths.cache_dir()``: ``$MEMDIR_CACHE_DIR``,
else ``$XDG_CACHE_HOME/memdir``, else ``~/.cache/memdir``), and every later process maps that
file read-only: opening it costs a millisecond, and only the pages a lookup touches are read.

* **Versioned.** ``<digest>`` hashes ``FORMAT`` (this file's layout), the table's name and the
  caller's ``key`` — what the table is derived from: the source package's version and its data
  file's size and mtime, and the deriving code's own source. A change to any of them names
  another file, so a stale table is never read; the file's header repeats the key, and a file
  whose header says otherwise is rebuilt.
* **Written atomically.** A table is written to a temporary file in the same directory and
  renamed into place: two processes building it at once both succeed (each uses what it
  built; the last rename wins, and either file is whole).
* **Checked on open.** A file that is not whole — the wrong magic, a header that does not
  decode, a size other than the header's, a checksum of the header that fails — is rebuilt
  with one line on stderr, never a traceback. An unwritable cache directory costs the build
  on every run and nothing else.

A table file: ``MAGIC``, the header's length and CRC-32, the header (``marshal``: format, key,
size, each section's offset and length, and the caller's small ``meta``), then the sections,
each aligned to 64 bytes. Sections are raw bytes the caller reads through ``memoryview``
(``StrIndex``, ``Strings``) or ``numpy.frombuffer``; they are read-only.
"""

from __future__ import annotations

import hashlib
import marshal
import mmap
import os
import struct
import sys
import tempfile
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .paths import cache_dir

__all__ = [
    "FORMAT",
    "Sections",
    "StrIndex",
    "Strings",
    "Table",
    "code_digest",
    "load_table",
    "pack_index",
    "pack_strings",
    "read_table",
    "write_table",
]

FORMAT = 1
MAGIC = b"MEMDIRDT"
_HEAD = struct.Struct("<8sQI")  # magic, header length, header CRC-32
_ALIGN = 64

Sections = dict[str, bytes | bytearray | memoryview]


@dataclass(frozen=True)
class Table:
    """A derived table: the builder's ``meta`` and its sections (read-only views)."""

    meta: Any
    sections: Mapping[str, memoryview]
    path: Path | None  # the file it was read from or written to; None when none could be


def code_digest(*modules: str | Path) -> str:
    """A digest of the source of ``modules`` (file paths, usually ``__file__``): the code that
    derives a table or a cache file is part of its key, so another memdir's never matches. An
    unreadable source gives a digest that matches nothing (the derived data is built again)."""
    digest = hashlib.blake2b(digest_size=12)
    for module in modules:
        try:
            digest.update(Path(module).read_bytes())
        except OSError:
            digest.update(os.urandom(12))
    return digest.hexdigest()


def table_path(name: str, key: str) -> Path:
    digest = hashlib.blake2b(f"{FORMAT}\0{name}\0{key}".encode(), digest_size=10).hexdigest()
    return cache_dir() / f"{name}-{digest}.bin"


def load_table(name: str, key: str, build: Callable[[], tuple[Any, Sections]]) -> Table:
    """The table ``name`` derived from ``key``: read from its cache file, else ``build()``-t
    (``(meta, sections)``; ``meta`` is anything ``marshal`` holds) and written there."""
    path = table_path(name, key)
    try:
        return _read(path, key)
    except FileNotFoundError:
        pass
    except (OSError, ValueError, EOFError, TypeError, KeyError) as exc:
        print(f"memdir: rebuilding {path} ({exc})", file=sys.stderr)
    meta, sections = build()
    views = {k: memoryview(v).cast("B") for k, v in sections.items()}
    try:
        _write(path, key, meta, views)
    except OSError:
        return Table(meta, views, None)  # an unwritable cache: this process builds its own
    return Table(meta, views, path)


def read_table(path: Path, key: str) -> Table | None:
    """The table in ``path`` if it is whole and was built from ``key``; None otherwise (a
    damaged file also prints one line on stderr). For tables kept elsewhere than the cache
    directory (``index/snapshot.py``: beside the index they are derived from)."""
    try:
        return _read(path, key)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, EOFError, TypeError, KeyError) as exc:
        if "another source" not in str(exc):  # a stale key is routine: the next write fixes it
            print(f"memdir: rebuilding {path} ({exc})", file=sys.stderr)
        return None


def write_table(path: Path, key: str, meta: Any, sections: Sections) -> None:
    """Write a table to ``path`` atomically (see ``load_table``); ``OSError`` if it cannot."""
    _write(path, key, meta, {k: memoryview(v).cast("B") for k, v in sections.items()})


def _read(path: Path, key: str) -> Table:
    with open(path, "rb") as file:
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(mapped)
    if len(view) < _HEAD.size:
        raise ValueError("it is shorter than its header")
    magic, length, crc = _HEAD.unpack_from(view)
    raw = view[_HEAD.size : _HEAD.size + length]
    if magic != MAGIC or len(raw) != length or zlib.crc32(raw) != crc:
        raise ValueError("its header is damaged")
    header = marshal.loads(raw)
    if header["format"] != FORMAT or header["key"] != key:
        raise ValueError("it was built from another source")
    if header["size"] != len(view):
        raise ValueError(f"it holds {len(view)} bytes, not {header['size']}: it is not whole")
    sections = {n: view[o : o + size] for n, (o, size) in header["sections"].items()}
    return Table(header["meta"], sections, path)


def _write(path: Path, key: str, meta: Any, sections: Mapping[str, memoryview]) -> None:
    offsets: dict[str, tuple[int, int]] = {}
    header = b""
    for _ in range(3):  # the header's length moves the sections; it settles at once
        at = _aligned(_HEAD.size + len(header))
        offsets = {}
        for name, data in sections.items():
            offsets[name] = (at, len(data))
            at = _aligned(at + len(data))
        fields = {"format": FORMAT, "key": key, "size": at, "sections": offsets, "meta": meta}
        new = marshal.dumps(fields)
        settled = len(new) == len(header)
        header = new
        if settled:
            break
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(_HEAD.pack(MAGIC, len(header), zlib.crc32(header)) + header)
            for name, data in sections.items():
                out.seek(offsets[name][0])
                out.write(data)
            out.truncate(fields["size"])
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


# -- string tables over sections -----------------------------------------------------------
def pack_strings(prefix: str, items: Iterable[str]) -> Sections:
    """Sections ``<prefix>.offsets`` and ``<prefix>.blob`` holding ``items`` in order."""
    blob = bytearray()
    offsets = array("q", [0])
    for item in items:
        blob += item.encode("utf-8")
        offsets.append(len(blob))
    return {f"{prefix}.offsets": offsets.tobytes(), f"{prefix}.blob": bytes(blob)}


class Strings:
    """A read-only sequence of strings over ``pack_strings``' sections."""

    def __init__(self, sections: Mapping[str, memoryview], prefix: str) -> None:
        self._offsets = sections[f"{prefix}.offsets"].cast("q")
        self._blob = sections[f"{prefix}.blob"]

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, i: int) -> str:
        return str(self._blob[self._offsets[i] : self._offsets[i + 1]], "utf-8")

    def raw(self, i: int) -> memoryview:
        return self._blob[self._offsets[i] : self._offsets[i + 1]]


def pack_index(prefix: str, mapping: Mapping[str, int]) -> Sections:
    """Sections of an open-addressing hash table of ``mapping`` (str → int32): its keys
    (``pack_strings``), each key's value, and the slots (a key's position or -1), probed
    linearly from the CRC-32 of the key's UTF-8 (stable across processes, unlike ``hash``)."""
    keys = list(mapping)
    size = 1 << max(4, (2 * len(keys)).bit_length())  # at most half full
    slots = array("i", [-1]) * size
    mask = size - 1
    for i, key in enumerate(keys):
        at = zlib.crc32(key.encode("utf-8")) & mask
        while slots[at] != -1:
            at = (at + 1) & mask
        slots[at] = i
    values = array("i", (mapping[k] for k in keys))
    return {
        **pack_strings(f"{prefix}.keys", keys),
        f"{prefix}.values": values.tobytes(),
        f"{prefix}.slots": slots.tobytes(),
    }


class StrIndex:
    """A read-only ``str → int`` mapping over ``pack_index``' sections: ~1 µs a lookup and
    nothing to load (a dict of the same 250k keys takes a quarter of a second to unmarshal)."""

    def __init__(self, sections: Mapping[str, memoryview], prefix: str) -> None:
        self.keys = Strings(sections, f"{prefix}.keys")
        self._values = sections[f"{prefix}.values"].cast("i")
        self._slots = sections[f"{prefix}.slots"].cast("i")
        self._mask = len(self._slots) - 1

    def get(self, key: str, default: int | None = None) -> int | None:
        raw = key.encode("utf-8")
        slots, mask = self._slots, self._mask
        at = zlib.crc32(raw) & mask
        while (i := slots[at]) != -1:
            if self.keys.raw(i) == raw:
                return int(self._values[i])
            at = (at + 1) & mask
        return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        return len(self.keys)

    def items(self) -> Iterator[tuple[str, int]]:
        for i in range(len(self.keys)):
            yield self.keys[i], int(self._values[i])

    def to_dict(self) -> dict[str, int]:
        return dict(self.items())
