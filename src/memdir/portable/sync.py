"""Sync across devices through a shared folder or a git remote (SPEC K3, ``memdir sync``).

Each device publishes, per scope, into ``<folder>/<scope>/``:

- ``objects/ab/cdef…``          the bytes of every version it holds (content-addressed, shared);
- ``devices/<id>.changes.jsonl`` its change log (the history travels with the memories);
- ``devices/<id>.json``         its manifest, written last: for each memory name the hash it has
  now (``current``) and every hash it has *seen* under that name (``seen``) — the versions in
  its change log, and the versions it merged in from other devices.

The seen sets are what make replay safe without clocks. For a name where this device has ``l``
and a peer has ``o`` (``none`` for "no file"):

- ``l == o``, or the peer never had the name: nothing to do;
- ``o`` is in this device's seen set: the peer is behind; keep ``l``;
- ``l`` is in the peer's seen set (or this device never had the name): the peer moved on from
  ``l``; take ``o`` (a deletion included);
- neither: both changed it — a **true conflict**. Nothing is lost: with two versions, the one
  with the smaller hash keeps the name and the other goes to ``<name>-conflict-<hash8>``, both
  marked ``confidence: tentative`` (listed by the command, and by ``memdir list --tentative``);
  an edit against a deletion keeps the edit, tentative.

**Beyond the live memories** the same exchange carries, under keys that hold a ``/`` (which no
memory name can): ``archive/<name>.md`` (archived memories), ``log/YYYY-MM-DD.md`` (the daily
logs) and ``archive/log/YYYY-MM-DD.md.gz`` (those sleep compressed). Their seen sets come from
the change log's archive and restore lines and from ``.history/logs.jsonl``, the journal of the
logs' moves (a log that sleep compressed here was seen here, so a peer still holding it does not
bring it back). What a conflict is differs:

- an archived memory both sides changed: when the two differ only in their ``archived`` stamp
  (both devices archived the same memory), the one with the smaller hash stands; otherwise both
  are kept, the other as ``archive/<name>-conflict-<hash8>.md``;
- a daily log is append-only, so two versions of one day never conflict: they *merge* — the
  lines both start with, then every other line of either (each as often as the side that has it
  more), sorted; a log line begins with its time, so that is the day's order. Merging is
  symmetric, so both devices write the same bytes, and a version that only adds lines to one
  the other has seen is simply taken (a fast-forward). A log one side removed (compressed by
  sleep) and the other extended keeps the extended one: nothing is lost, and the next sleep
  compresses it again, lines included.

Archived memories are written and logged like memories (the change log line names the archive
path); a log is written atomically and journaled in ``.history/logs.jsonl`` (run ``sync``), its
bytes kept in the objects like every other version.

The resolution is a pure function of the two versions, so two devices that resolve the same
conflict independently write the same bytes, and one that took the other's resolution sees its
own version in the peer's seen set: replay is idempotent and, for changes that do not conflict,
independent of order — the stores converge to the same files.

Applying is crash-safe: the plan (the target hash of each name) is written to
``<home>/sync/<scope>.pending.json`` first, with the bytes kept in the change log's objects;
then each file is written atomically and logged (actor ``sync``); then the seen set is saved
and the plan removed. A sync killed midway finishes that plan when run again — every file it
already wrote is at its target and is skipped: nothing lost, nothing doubled. The manifest is
published only after the local files are settled.
"""

from __future__ import annotations

import builtins
import gzip
import json
import os
import re
import secrets
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, UnsupportedError, ValidationError
from ..fs import append_jsonl, atomic_write, crash_point, inside, read_jsonl
from ..markdown import FormatError, content_hash, parse, set_fields
from ..paths import Scope
from ..records import MAX_NAME_BYTES, MAX_NAME_CHARS

if TYPE_CHECKING:
    from ..files import FileStore
    from ..memory import Memory

__all__ = ["SyncReport", "device_id", "sync_folder", "sync_git"]

ACTOR = "sync"
NONE = "none"  # the hash of "no file" in seen sets and plans
_DEVICE = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
_LOG = re.compile(r"\d{4}-\d{2}-\d{2}\.md")
_ARCHIVED_LOG = re.compile(r"\d{4}-\d{2}-\d{2}\.md(?:\.gz)?")
JOURNAL = "logs.jsonl"  # lifecycle/logs.py's journal of the daily logs' moves
ARCHIVE = "archive/"


@dataclass
class SyncReport:
    """What one sync did (or, with ``dry_run``, would do)."""

    folder: str
    device: str
    dry_run: bool = False
    peers: builtins.list[str] = field(default_factory=builtins.list)
    taken: builtins.list[dict[str, str]] = field(default_factory=builtins.list)
    conflicts: builtins.list[dict[str, str]] = field(default_factory=builtins.list)
    merged: builtins.list[dict[str, str]] = field(default_factory=builtins.list)  # daily logs
    waiting: builtins.list[dict[str, str]] = field(default_factory=builtins.list)
    resumed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "folder": self.folder,
            "device": self.device,
            "dry_run": self.dry_run,
            "peers": self.peers,
            "taken": self.taken,
            "conflicts": self.conflicts,
            "merged": self.merged,
            "waiting": self.waiting,
            "resumed": self.resumed,
        }


def device_id(memory: Memory) -> str:
    """This home's device id (``<home>/sync/device``, made on first use: host name + random)."""
    path = memory.home / "sync" / "device"
    try:
        value = path.read_text(encoding="utf-8").strip()
        if _DEVICE.fullmatch(value):
            return value
    except FileNotFoundError:
        pass
    host = re.sub(r"[^a-z0-9-]+", "-", socket.gethostname().lower()).strip("-")[:40] or "device"
    value = f"{host}-{secrets.token_hex(4)}"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, (value + "\n").encode())
    return value


def _hash(data: bytes | None) -> str:
    return NONE if data is None else content_hash(data)


def fit_name(base: str, suffix: str) -> str:
    """``base + suffix``, ``base`` cut so that the result is still a valid memory name."""
    while base and (
        len(base + suffix) > MAX_NAME_CHARS or len((base + suffix).encode()) > MAX_NAME_BYTES
    ):
        base = base[:-1]
    return base.rstrip("-_.") + suffix


def _tentative(data: bytes, name: str | None = None) -> bytes:
    """``data`` marked ``confidence: tentative`` (and renamed to ``name``); as it is when it
    does not parse — deterministic, so both devices produce the same bytes."""
    try:
        doc = parse(data)
        fields: dict[str, Any] = {"confidence": "tentative"}
        if name is not None:
            fields["name"] = name
        return set_fields(doc, fields).dump()
    except FormatError:
        return data


class _Scope:
    """One scope's side of a sync: local files, seen sets, the shared folder."""

    def __init__(self, memory: Memory, scope: Scope, folder: Path, device: str) -> None:
        self.store: FileStore = memory.files(scope, "sync")
        self.scope, self.device = scope, device
        self.shared = folder / scope
        self.state = memory.home / "sync" / f"{scope}-{_folder_key(folder)}.seen.json"
        self.pending = self.state.with_suffix(".pending")
        self.seen: dict[str, set[str]] = {}
        try:
            saved = json.loads(self.state.read_text(encoding="utf-8"))
            self.seen = {k: set(v) for k, v in saved.items()}
        except (FileNotFoundError, ValueError):
            pass

    # -- local state ---------------------------------------------------------------------
    def files(self) -> dict[str, bytes]:
        """Every file that syncs, by key: a memory's name, or its path for the rest."""
        dirs = self.store.dirs
        root = dirs.memory
        out = {n[:-3]: inside(root, root / n).read_bytes() for n in self.store.memory_names()}
        for folder, prefix, pattern in (
            (dirs.archive, ARCHIVE, None),
            (dirs.log, "log/", _LOG),
            (dirs.archive / "log", "archive/log/", _ARCHIVED_LOG),
        ):
            try:
                names = sorted(os.listdir(folder))
            except (FileNotFoundError, NotADirectoryError):
                continue
            for name in names:
                path = folder / name
                if pattern is None:
                    if name.startswith(".") or not name.endswith(".md"):
                        continue
                elif not pattern.fullmatch(name):
                    continue
                if path.is_file() and not path.is_symlink():
                    out[prefix + name] = inside(root, path).read_bytes()
        return out

    def learn_local(self, current: dict[str, bytes]) -> None:
        def saw(key: str, *hashes: str | None) -> None:
            self.seen.setdefault(key, set()).update(h for h in hashes if h is not None)

        for change in self.store.log.entries():
            if change.op == "refuse":
                continue
            # "no file" before a create is not a version; after a delete it is one
            if not change.path:
                saw(change.name, change.before, change.after or NONE)
            elif change.op == "archive":  # the live file went into archive/
                saw(change.name, change.before, NONE)
                saw(change.path, change.after)
            elif change.op == "restore":  # and back
                saw(change.path, change.before, NONE)
                saw(change.name, change.after)
            else:
                saw(change.path, change.before, change.after or NONE)
        journal, _, _ = read_jsonl(inside(self.store.dirs.memory, self._journal()))
        for move in journal:
            source, target = move.get("from"), move.get("to")
            if isinstance(source, str):
                saw(source, move.get("before"), NONE if source != target else None)
            if isinstance(target, str):
                saw(target, move.get("after"))
        for name, data in current.items():
            self.seen.setdefault(name, set()).add(_hash(data))

    def _journal(self) -> Path:
        return self.store.dirs.history / JOURNAL

    def object(self, digest: str) -> bytes | None:
        hexd = digest.removeprefix("sha256:")
        path = self.shared / "objects" / hexd[:2] / hexd[2:]
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        return data if content_hash(data) == digest else None

    def peers(self) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        devices = self.shared / "devices"
        for path in sorted(devices.glob("*.json")) if devices.is_dir() else []:
            if path.stem == self.device:
                continue
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # half-delivered by the sync tool: read on the next run
            if isinstance(data, dict) and isinstance(data.get("current"), dict):
                found[path.stem] = data
        return found


def _folder_key(folder: Path) -> str:
    import hashlib

    return hashlib.sha256(str(folder.expanduser().absolute()).encode()).hexdigest()[:12]


def _merge_peer(
    side: _Scope,
    target: dict[str, bytes | None],
    peer: str,
    data: dict[str, Any],
    report: SyncReport,
) -> None:
    """Fold one peer's manifest into ``target`` (this device's files as the plan has them)."""
    current: dict[str, str] = data["current"]
    seen_there: dict[str, list[str]] = data.get("seen") or {}
    for name in sorted(set(current) | set(seen_there) | set(target)):
        mine = target.get(name)
        l_hash, o_hash = _hash(mine), current.get(name, NONE)
        o_seen = set(seen_there.get(name, ())) | {o_hash}
        l_seen = side.seen.setdefault(name, set())
        if l_hash == o_hash or (name not in seen_there and name not in current):
            continue
        theirs = None if o_hash == NONE else side.object(o_hash)
        if o_hash != NONE and theirs is None:
            report.waiting.append({"scope": side.scope, "name": name, "from": peer})
            continue  # its bytes have not arrived in the folder yet: next time
        if o_hash in l_seen:
            pass  # the peer is behind: ours stands
        elif l_hash in o_seen or not l_seen:  # the peer moved on, or it is new here
            target[name] = theirs
            report.taken.append({"scope": side.scope, "name": name, "from": peer})
        elif name.startswith(("log/", "archive/log/")):
            _merge_log(side, target, name, mine, theirs, peer, report)
        elif name.startswith(ARCHIVE):
            _conflict_archived(side, target, name, mine, theirs, peer, report)
        else:
            _conflict(side, target, name, mine, theirs, peer, report)
        l_seen |= o_seen


def _conflict(
    side: _Scope,
    target: dict[str, bytes | None],
    name: str,
    mine: bytes | None,
    theirs: bytes | None,
    peer: str,
    report: SyncReport,
) -> None:
    """Both sides changed ``name``: keep both, tentative (see the module doc)."""
    if mine is None or theirs is None:
        kept = _tentative(mine if mine is not None else theirs or b"")
        target[name] = kept
        side.seen[name].add(_hash(kept))
        report.conflicts.append({"scope": side.scope, "name": name, "with": peer, "copy": ""})
        return
    first, second = sorted((mine, theirs), key=content_hash)
    copy = fit_name(name, f"-conflict-{content_hash(second).removeprefix('sha256:')[:8]}")
    target[name] = _tentative(first)
    target[copy] = _tentative(second, copy)
    side.seen[name].add(_hash(target[name]))
    side.seen.setdefault(copy, set()).add(_hash(target[copy]))
    report.conflicts.append({"scope": side.scope, "name": name, "with": peer, "copy": copy})


def _log_lines(name: str, data: bytes) -> builtins.list[bytes] | None:
    try:
        text = gzip.decompress(data) if name.endswith(".gz") else data
    except (OSError, EOFError, ValueError):
        return None  # a compressed log someone broke: it is not merged, it is kept
    return text.splitlines(keepends=True)


def merge_log_lines(a: builtins.list[bytes], b: builtins.list[bytes]) -> builtins.list[bytes]:
    """Two versions of one day's log as one (see the module doc): symmetric, loses no line."""
    if a[: len(b)] == b:
        return a
    if b[: len(a)] == a:
        return b
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    tail: dict[bytes, int] = {}
    for side in (a[n:], b[n:]):
        counts: dict[bytes, int] = {}
        for line in side:
            line = line if line.endswith(b"\n") else line + b"\n"
            counts[line] = counts.get(line, 0) + 1
        for line, k in counts.items():
            tail[line] = max(tail.get(line, 0), k)
    return a[:n] + [line for line in sorted(tail) for _ in range(tail[line])]


def _merge_log(
    side: _Scope,
    target: dict[str, bytes | None],
    name: str,
    mine: bytes | None,
    theirs: bytes | None,
    peer: str,
    report: SyncReport,
) -> None:
    """Both sides changed one day's log: the lines of both (an extended log against a removed
    one keeps the extended one)."""
    entry = {"scope": side.scope, "name": name, "with": peer}
    if mine is None or theirs is None:
        target[name] = mine if mine is not None else theirs
        report.merged.append(entry)
        return
    a, b = _log_lines(name, mine), _log_lines(name, theirs)
    if a is None or b is None:
        _conflict_archived(side, target, name, mine, theirs, peer, report)
        return
    merged = b"".join(merge_log_lines(a, b))
    target[name] = gzip.compress(merged, mtime=0) if name.endswith(".gz") else merged
    side.seen[name].add(_hash(target[name]))
    report.merged.append(entry)


def _without_stamp(data: bytes) -> bytes:
    try:
        return set_fields(parse(data), {"archived": None}).dump()
    except FormatError:
        return data


def _conflict_archived(
    side: _Scope,
    target: dict[str, bytes | None],
    name: str,
    mine: bytes | None,
    theirs: bytes | None,
    peer: str,
    report: SyncReport,
) -> None:
    """Both sides changed a file in ``archive/``: one copy when they differ only in when they
    were archived, else both kept (not tentative: an archived memory is out of the guide)."""
    if mine is None or theirs is None:
        target[name] = mine if mine is not None else theirs  # the change beats the removal
        report.conflicts.append({"scope": side.scope, "name": name, "with": peer, "copy": ""})
        return
    first, second = sorted((mine, theirs), key=content_hash)
    target[name] = first
    side.seen[name].add(_hash(first))
    if _without_stamp(first) == _without_stamp(second):
        return  # the same memory, archived on both devices: nothing to tell anyone
    folder, _, file = name.rpartition("/")
    stem, dot, ext = file.partition(".")
    copy_stem = fit_name(stem, f"-conflict-{content_hash(second).removeprefix('sha256:')[:8]}")
    copy = f"{folder}/{copy_stem}{dot}{ext}"
    target[copy] = second
    side.seen.setdefault(copy, set()).add(_hash(second))
    report.conflicts.append({"scope": side.scope, "name": name, "with": peer, "copy": copy})


def _write(side: _Scope, name: str, data: bytes | None, reason: str) -> None:
    """One file to its target bytes, logged like every change (under the scope's lock)."""
    if name.startswith(("log/", "archive/log/")):
        _write_log(side, name, data)
        return
    store = side.store
    archived = name.startswith(ARCHIVE)
    file = name if archived else f"{name}.md"
    path = inside(store.dirs.memory, store.dirs.memory / file)
    now = path.read_bytes() if path.is_file() else None
    if _hash(now) == _hash(data):
        return  # already there: a resumed sync skips what it wrote before the kill
    if now is not None:
        store.log.keep(_hash(now), now)
    if data is not None:
        store.log.keep(_hash(data), data)
    op = "delete" if data is None else ("create" if now is None else "update")
    source = None
    if data is not None:
        try:
            source = parse(data).meta.get("source")
        except FormatError:
            source = None
    store.log.append(
        op=op,
        name=name.removeprefix(ARCHIVE).removesuffix(".md") if archived else name,
        actor=ACTOR,
        source=source,
        before=None if now is None else _hash(now),
        after=None if data is None else _hash(data),
        reason=reason,
        path=name if archived else None,
    )
    if data is None:
        path.unlink()
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
    crash_point("sync-applied")


def _write_log(side: _Scope, name: str, data: bytes | None) -> None:
    """A daily log to its target bytes, journaled in ``.history/logs.jsonl`` (run ``sync``)."""
    from datetime import UTC, datetime

    store = side.store
    path = inside(store.dirs.memory, store.dirs.memory / name)
    now = path.read_bytes() if path.is_file() else None
    if _hash(now) == _hash(data):
        return
    for version in (now, data):
        if version is not None:
            store.log.keep(_hash(version), version)
    if data is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    line = {
        "run": ACTOR,
        "time": stamp,
        "from": name if now is not None else None,
        "to": name if data is not None else None,
        "before": None if now is None else _hash(now),
        "after": None if data is None else _hash(data),
    }
    append_jsonl(inside(store.dirs.memory, side._journal()), line)
    if data is None:
        path.unlink()
    crash_point("sync-applied")


def _apply(side: _Scope, plan: dict[str, str], reasons: dict[str, str]) -> None:
    for name, digest in sorted(plan.items()):
        data = None if digest == NONE else side.store.log.load(digest)
        _write(side, name, data, reasons.get(name, "sync"))


def _save_seen(side: _Scope) -> None:
    side.state.parent.mkdir(parents=True, exist_ok=True)
    data = {k: sorted(v) for k, v in sorted(side.seen.items())}
    atomic_write(side.state, json.dumps(data, indent=0).encode())


def _finish_pending(side: _Scope) -> bool:
    try:
        pending = json.loads(side.pending.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return False
    _apply(side, pending["plan"], pending.get("reasons", {}))
    side.seen = {k: set(v) for k, v in pending["seen"].items()}
    _save_seen(side)
    side.pending.unlink()
    return True


def _publish(side: _Scope, current: dict[str, bytes]) -> None:
    objects = side.shared / "objects"
    for data in current.values():
        hexd = _hash(data).removeprefix("sha256:")
        path = objects / hexd[:2] / hexd[2:]
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data)
    devices = side.shared / "devices"
    devices.mkdir(parents=True, exist_ok=True)
    if side.store.dirs.changes.is_file():
        atomic_write(devices / f"{side.device}.changes.jsonl", side.store.dirs.changes.read_bytes())
    manifest = {
        "device": side.device,
        "current": {n: _hash(d) for n, d in sorted(current.items())},
        "seen": {k: sorted(v) for k, v in sorted(side.seen.items())},
    }
    atomic_write(devices / f"{side.device}.json", json.dumps(manifest, indent=0).encode())


def _sync_scope(memory: Memory, scope: Scope, folder: Path, report: SyncReport) -> None:
    side = _Scope(memory, scope, folder, report.device)
    store = side.store
    with store.locked():
        if not report.dry_run and _finish_pending(side):
            report.resumed = True
        current = side.files()
        side.learn_local(current)
        target: dict[str, bytes | None] = dict(current)
        peers = side.peers()
        report.peers = sorted(set(report.peers) | set(peers))
        for peer, manifest in sorted(peers.items()):
            _merge_peer(side, target, peer, manifest, report)
        plan = {n: _hash(d) for n, d in target.items() if _hash(d) != _hash(current.get(n))}
        plan |= {n: NONE for n in current if n not in target}
        if report.dry_run:
            return
        if plan:
            reasons = {c["name"]: f"sync: taken from {c['from']}" for c in report.taken}
            for c in report.conflicts:
                why = f"sync conflict with {c['with']}: both changed it; both kept, tentative"
                reasons[c["name"]] = why
                if c["copy"]:
                    reasons[c["copy"]] = why
            for name, data in target.items():
                if data is not None and name in plan:
                    store.log.keep(_hash(data), data)
            pending = {
                "plan": plan,
                "reasons": reasons,
                "seen": {k: sorted(v) for k, v in side.seen.items()},
            }
            side.pending.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(side.pending, json.dumps(pending).encode())
            _finish_pending(side)
            store.regenerate_index()
        else:
            _save_seen(side)
        _publish(side, side.files())


def _refuse_database_scopes(memory: Memory, scopes: builtins.list[Scope]) -> None:
    """``UnsupportedError`` before anything is written when a scope is not a folder: sync
    exchanges a scope's files (memories, archive, daily logs) through a shared folder."""
    for scope in scopes:
        if memory.folder(scope) is None:
            raise UnsupportedError(
                f"sync works on the file backend only: it exchanges a scope's files through a "
                f"shared folder, and this memdir keeps its {scope} memories in the "
                f"{memory.backend.name} backend. Devices that share one database are already "
                "in step (point each at the same DSN); to copy memories to or from another "
                "memdir, use `memdir export FILE` there and `memdir import FILE` here "
                "(docs/postgres.md). Nothing was written."
            )


def sync_folder(
    memory: Memory,
    folder: Path,
    *,
    scopes: builtins.list[Scope] | None = None,
    dry_run: bool = False,
) -> SyncReport:
    """Exchange changes with the other devices that use ``folder`` (see the module doc)."""
    _refuse_database_scopes(memory, scopes or memory.scopes())
    folder = folder.expanduser().absolute()
    if folder.exists() and not folder.is_dir():
        raise ValidationError(f"{folder} is a file: give the folder your devices share")
    report = SyncReport(folder=str(folder), device=device_id(memory), dry_run=dry_run)
    for scope in scopes or memory.scopes():
        if not dry_run:
            (folder / scope).mkdir(parents=True, exist_ok=True)
        _sync_scope(memory, scope, folder, report)
    return report


def _git(args: builtins.list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    identity = ["-c", "user.name=memdir", "-c", "user.email=memdir@localhost"]
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(
        ["git", *identity, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def sync_git(
    memory: Memory, url: str, *, scopes: builtins.list[Scope] | None = None, dry_run: bool = False
) -> SyncReport:
    """``sync_folder`` over a clone of the git remote ``url``: pull, sync, commit, push. Every
    device writes only its own manifest and content-addressed objects, so pulls merge cleanly."""
    import hashlib

    _refuse_database_scopes(memory, scopes or memory.scopes())
    clone = memory.home / "sync" / "git" / hashlib.sha256(url.encode()).hexdigest()[:12]
    if not (clone / ".git").is_dir():
        clone.parent.mkdir(parents=True, exist_ok=True)
        done = _git(["clone", "--quiet", url, str(clone)], clone.parent)
        if done.returncode != 0:
            raise ConfigError(
                f"cannot clone {url}: {done.stderr.strip()[:300]} — check the URL and your access"
            )
    else:
        pulled = _git(["pull", "--quiet", "--no-rebase", "--no-edit"], clone)
        if (
            pulled.returncode != 0
            and "no such ref" not in pulled.stderr.lower()
            and "couldn't find remote ref" not in pulled.stderr.lower()
        ):
            raise ConfigError(f"cannot pull from {url}: {pulled.stderr.strip()[:300]}")
    report = sync_folder(memory, clone, scopes=scopes, dry_run=dry_run)
    report.folder = url
    if dry_run:
        return report
    _git(["add", "-A"], clone)
    if _git(["diff", "--cached", "--quiet"], clone).returncode != 0:
        _git(["commit", "--quiet", "-m", f"memdir sync from {report.device}"], clone)
    for _ in range(3):
        pushed = _git(["push", "--quiet", "origin", "HEAD"], clone)
        if pushed.returncode == 0:
            return report
        _git(["pull", "--quiet", "--no-rebase", "--no-edit"], clone)  # another device pushed
    raise ConfigError(f"cannot push to {url}: {pushed.stderr.strip()[:300]} — run the sync again")
