"""The parse cache of a scope, kept between processes in ``.index/parsed.json``.

A store parses each memory file once per stat (``StoreCore.read_path``: the key is the file's
inode, size, mtime and ctime), but a new process starts with nothing parsed, so every command
that lists a large store — ``list``, ``doctor``, ``stats``, the context — parsed every file:
~6 s on a 10k store. This file keeps what the last such pass parsed. A process loads it at its
first cache miss; an entry is used only when its key is the file's key now, exactly as the
in-process cache is, so a file changed since (by memdir, a person or ``git``) is parsed again.

* **Derived.** Keyed by the code that parses (``markdown.py``, ``records.py``, this file):
  another memdir's file is ignored. A file that does not read back, or an entry that does not
  make a record, is ignored: the files are parsed.
* **Only what reads back the same.** A record whose frontmatter holds something JSON does not
  give back equal (a YAML date, a nested tuple) is not kept: it is parsed each time.
* **Written only where it may be.** Saved (by an atomic rename, no fsync: it is a cache) after a
  pass that parsed many files, and only into a scope's ``.index/`` that exists already: a read
  never creates a folder in a project (issue 18).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import BadFileError, ValidationError
from ..fs import replace_cache
from ..markdown import Document, split_body
from ..paths import ScopeDirs
from ..records import FIELD_ORDER, REQUIRED, MemoryRecord, check_field

__all__ = ["SAVE_AFTER", "Parsed"]

SAVE_AFTER = 16  # a pass that parsed more files than this (or one in a hundred) saves
Key = tuple[int, ...]
Entry = tuple[Key, MemoryRecord, object]  # stat key, record, the frontmatter's ``name``
_FIELDS = tuple(f.name for f in dataclasses.fields(MemoryRecord) if f.compare)
_TUPLES = ("tags", "related_files")


@cache
def _format() -> str:
    from ..derived import code_digest  # only when a kept file is read or written

    here = Path(__file__).parent.parent
    return f"parsed-v1:{code_digest(here / 'markdown.py', here / 'records.py', __file__)}"


def _row(path: str, entry: Entry) -> list[Any] | None:
    key, record, declared = entry
    values = []
    for name in _FIELDS:
        value = getattr(record, name)
        if name == "path":
            value = str(value)
        elif name in _TUPLES:
            value = list(value)
        elif name == "extra":
            value = dict(value)
        values.append(value)
    row = [path, list(key), values, declared]
    try:
        same = json.loads(json.dumps(row, ensure_ascii=False)) == row
    except (TypeError, ValueError):
        return None
    return row if same else None


def _entry(row: Any) -> tuple[str, Entry] | None:
    if not (isinstance(row, list) and len(row) == 4):
        return None
    path, key, values, declared = row
    if not (isinstance(path, str) and isinstance(key, list) and isinstance(values, list)):
        return None
    if len(values) != len(_FIELDS) or not all(isinstance(k, int) for k in key):
        return None
    fields = dict(zip(_FIELDS, values, strict=True))
    if not (isinstance(fields["path"], str) and isinstance(fields["extra"], dict)):
        return None
    if not all(isinstance(fields[n], list) for n in _TUPLES):
        return None
    fields["path"] = Path(fields["path"])
    for name in _TUPLES:
        fields[name] = tuple(fields[name])
    try:
        record = MemoryRecord(**fields)
    except TypeError:
        return None
    if str(record.path) != path:
        return None
    return path, (tuple(key), record, declared)


class Parsed:
    """``.index/parsed.json`` of one scope."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.loaded = False  # read once per process, by its first listing
        self.at = 0  # the store's parse count when this file was last saved

    def load(self) -> dict[str, Entry]:
        """The kept entries by path (empty when there is no file that reads back)."""
        self.loaded = True
        try:
            doc = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        if not isinstance(doc, dict) or doc.get("format") != _format():
            return {}
        rows = doc.get("entries")
        out: dict[str, Entry] = {}
        for row in rows if isinstance(rows, list) else []:
            got = _entry(row)
            if got is not None:
                out[got[0]] = got[1]
        return out

    def save(self, entries: dict[str, Entry]) -> None:
        """Keep ``entries`` (those that read back the same) where ``.index/`` exists already."""
        if not self.path.parent.is_dir():
            return
        rows = [row for p, e in entries.items() if (row := _row(p, e)) is not None]
        data = json.dumps({"format": _format(), "entries": rows}, ensure_ascii=False)
        with contextlib.suppress(OSError):  # a read-only .index/: the files are parsed next time
            replace_cache(self.path, data.encode("utf-8"))


def _record(doc: Document, path: Path, dirs: ScopeDirs, digest: str) -> MemoryRecord:
    """Build a record from a parsed file, or raise ``BadFileError`` naming what to fix."""
    meta = dict(doc.meta)
    missing = [key for key in REQUIRED if key not in meta]
    if missing:
        raise BadFileError(path, f"missing required key(s) {', '.join(missing)} in frontmatter")
    values: dict[str, Any] = {}
    for key in FIELD_ORDER:
        if key in meta and meta[key] is not None and key != "name":
            try:
                values[key] = check_field(key, meta[key])
            except ValidationError as exc:
                raise BadFileError(path, str(exc)) from None
    statement, why, how = split_body(doc.body)
    return MemoryRecord(
        name=path.stem,
        scope=dirs.scope,
        type=values["type"],
        description=values["description"],
        statement=statement,
        why=why,
        how_to_apply=how,
        source=values.get("source", "user"),
        confidence=values.get("confidence", "confirmed"),
        created=values.get("created"),
        updated=values.get("updated"),
        importance=values.get("importance"),
        tags=tuple(values.get("tags", ())),
        related_files=tuple(values.get("related_files", ())),
        quote=values.get("quote"),
        session=values.get("session"),
        body=doc.body,
        path=path,
        content_hash=digest,
        extra={k: v for k, v in meta.items() if k not in FIELD_ORDER},
    )
