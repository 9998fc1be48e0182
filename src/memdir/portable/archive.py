"""The portable archive: one ``tar.gz`` that holds a memdir store losslessly (SPEC K1).

Layout (every member a regular file, paths relative, ``/``-separated)::

    manifest.json                          format, version, memdir version, sha256 of each member
    <scope>/memory/<name>.md               the memories (scope: user | project)
    <scope>/memory/archive/<name>.md       archived memories
    <scope>/memory/log/YYYY-MM-DD.md       the daily log
    <scope>/memory/archive/log/YYYY-MM-DD.md.gz   old daily logs sleep compressed (or ``.md``)
    <scope>/history/changes.jsonl          the change log (A7) …
    <scope>/history/objects/ab/cdef…       … with the bytes behind every hash in it
    <scope>/history/recalls.jsonl          the recall log (use counts are replayed from it)
    <scope>/history/logs.jsonl             the journal of sleep's daily-log moves (undo-run)
    policy/memory-policy.yaml              the lifecycle policy, when there is one

``MEMORY.md`` and ``.index/`` are left out: both are derived and rebuilt on import.

The archive is deterministic — members sorted, every timestamp and owner zeroed, gzip without a
name or time — so exporting the same store twice gives the same bytes, and a round trip through
``import`` into a fresh home gives an identical archive again (the test of losslessness).

Reading is all-or-nothing: ``read_archive`` loads every member, checks the manifest's format
version, that the members are exactly the ones listed, that each hashes as listed and that its
path is one of the shapes above. A truncated, tampered or foreign file raises ``ArchiveError``
before the caller has written anything.

Format 2 added the compressed daily logs and their journal. An archive that holds neither is
still written as format 1, so an older memdir reads it; one that does says format 2, and an
older memdir names the version it needs instead of calling the new paths foreign.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import tarfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ValidationError
from ..fs import atomic_write

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_ARCHIVE_BYTES",
    "Archive",
    "ArchiveError",
    "needed_version",
    "read_archive",
    "write_archive",
]

FORMAT = "memdir-archive"
# bump when a member's meaning changes; an older memdir then refuses the archive by name
FORMAT_VERSION = 2
MANIFEST = "manifest.json"
# what one archive may unpack to in memory: far above any personal store, far below a bomb
MAX_ARCHIVE_BYTES = 2 * 1024**3

_MEMBER = re.compile(
    r"(?:(?:user|project)/(?:memory/(?:archive/|log/)?[^/]+\.md"
    r"|memory/archive/log/\d{4}-\d{2}-\d{2}\.md(?:\.gz)?"
    r"|history/(?:changes|recalls|logs)\.jsonl"
    r"|history/objects/[0-9a-f]{2}/[0-9a-f]{62})"
    r"|policy/memory-policy\.yaml)"
)
# the members format 1 did not have (``needed_version``)
_SINCE_2 = re.compile(r"(?:user|project)/(?:memory/archive/log/.*|history/logs\.jsonl)")


def needed_version(paths: Iterable[str]) -> int:
    """The oldest archive format that can hold ``paths`` (see the module docstring)."""
    return 2 if any(_SINCE_2.fullmatch(p) for p in paths) else 1


class ArchiveError(ValidationError):
    """An archive that cannot be imported as it is (truncated, tampered, foreign, too new)."""


@dataclass
class Archive:
    """An archive's members in memory, already checked (``read_archive``) or to be written."""

    members: dict[str, bytes] = field(default_factory=dict)
    memdir_version: str = ""
    format_version: int = FORMAT_VERSION

    def manifest(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": self.format_version,
            "memdir_version": self.memdir_version,
            "members": {p: _sha256(d) for p, d in sorted(self.members.items())},
        }

    def scopes(self) -> list[str]:
        return sorted({p.split("/", 1)[0] for p in self.members} - {"policy"})

    def under(self, prefix: str) -> dict[str, bytes]:
        """The members below ``prefix`` (``user/memory/``), keyed by the rest of the path."""
        return {p[len(prefix) :]: d for p, d in self.members.items() if p.startswith(prefix)}


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _info(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = size, 0, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def pack(archive: Archive) -> bytes:
    """The archive's bytes: the manifest first, then the members in sorted order."""
    for path in archive.members:
        if not _MEMBER.fullmatch(path):
            raise ValueError(f"not an archive member path: {path}")  # a bug of ours, not input
    manifest = json.dumps(archive.manifest(), ensure_ascii=False, indent=1, sort_keys=True)
    raw = io.BytesIO()
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        entries = [(MANIFEST, manifest.encode("utf-8")), *sorted(archive.members.items())]
        for name, data in entries:
            tar.addfile(_info(name, len(data)), io.BytesIO(data))
    return raw.getvalue()


def write_archive(path: Path, archive: Archive) -> str:
    """Write ``archive`` to ``path`` atomically; its sha256."""
    data = pack(archive)
    atomic_write(path, data)
    return _sha256(data)


def read_archive(path: Path) -> Archive:
    """The checked contents of the archive at ``path``, or ``ArchiveError`` saying what is
    wrong with it. Nothing is written anywhere."""
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        raise ArchiveError(f"no archive at {path}: check the path") from None
    except IsADirectoryError:
        raise ArchiveError(f"{path} is a folder, not an archive file") from None
    members = _unpack(path, blob)
    manifest = _manifest(path, members.pop(MANIFEST, None))
    listed = manifest["members"]
    missing = sorted(set(listed) - set(members))
    extra = sorted(set(members) - set(listed))
    if missing or extra:
        detail = f"missing {missing[:3]}" if missing else f"unlisted {extra[:3]}"
        raise ArchiveError(
            f"{path} does not hold what its manifest lists ({detail}): the archive was altered "
            "or cut short — export it again from the original store"
        )
    for name, data in members.items():
        if not _MEMBER.fullmatch(name):
            raise ArchiveError(f"{path} holds {name!r}, which is not a memdir archive path")
        if _sha256(data) != listed[name]:
            raise ArchiveError(
                f"{name} in {path} does not match its hash in the manifest: the archive was "
                "altered after export — nothing was imported; export it again"
            )
    return Archive(members, str(manifest.get("memdir_version", "")), manifest["format_version"])


def _unpack(path: Path, blob: bytes) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
            for info in tar:
                if not info.isfile():
                    raise ArchiveError(
                        f"{path} holds {info.name!r}, which is not a plain file (a link or a "
                        "device): memdir archives hold files only"
                    )
                if info.name in members:
                    raise ArchiveError(f"{path} holds {info.name!r} twice: it was altered")
                total += info.size
                if total > MAX_ARCHIVE_BYTES:
                    raise ArchiveError(
                        f"{path} unpacks to more than {MAX_ARCHIVE_BYTES >> 30} GiB: "
                        "not a memdir archive"
                    )
                handle = tar.extractfile(info)
                assert handle is not None  # a regular file always has one
                members[info.name] = handle.read()
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile, OSError) as exc:
        raise ArchiveError(
            f"{path} is not a complete memdir archive ({exc.__class__.__name__}: {exc}); "
            "it may be truncated — copy it again or export it again"
        ) from None
    return members


def _manifest(path: Path, data: bytes | None) -> dict[str, Any]:
    if data is None:
        raise ArchiveError(f"{path} has no {MANIFEST}: it is not a memdir archive")
    try:
        manifest = json.loads(data)
    except ValueError:
        raise ArchiveError(
            f"the {MANIFEST} of {path} is not JSON: the archive was altered"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError(f"{path} is not a memdir archive (its manifest names no {FORMAT})")
    version = manifest.get("format_version")
    if not isinstance(version, int) or not isinstance(manifest.get("members"), dict):
        raise ArchiveError(f"the {MANIFEST} of {path} is incomplete: the archive was altered")
    if version > FORMAT_VERSION:
        made_by = manifest.get("memdir_version") or "a newer memdir"
        raise ArchiveError(
            f"{path} is archive format {version}, made by memdir {made_by}; this memdir reads "
            f"format {FORMAT_VERSION} and older — upgrade to memdir {made_by} or later to import it"
        )
    return manifest
