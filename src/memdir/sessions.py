"""Session transcripts: one JSONL file per conversation that survives crashes (SPEC C1–C6).

**Layout.** ``<root>/.agent/sessions/<id>.jsonl`` (``$MEMDIR_HOME/sessions`` outside a project);
expired sessions move to ``sessions/archive/``. The id is ``YYYYMMDD-HHMMSS-xxxx``: UTC start time
plus 4 random hex digits, so ids sort by start time and two sessions started in the same second
still get different files. A new file is created with ``O_EXCL``: no two sessions share one.

**Records.** One JSON object per line::

    {"type": "assistant", "ts": "2026-05-01T10:00:00.123Z", "content": <the message as sent>}

``type`` is ``user`` | ``assistant`` | ``tool_result`` (a provider message: ``content`` is the
message dict exactly as the caller passed it — OpenAI ``tool_calls``/``role: tool``, Anthropic
``tool_use``/``tool_result``/``thinking`` blocks and fields memdir has never heard of all come
back unchanged), ``summary`` (compaction, see ``context.py``) or ``meta`` (memdir's own notes:
the memory guide, "N days since" notes; ``content`` is a dict with a ``kind``). The envelope keys
sit *beside* the message, never inside it, so nothing the provider sent can collide with them.

**Disk first (C3).** ``append`` encodes the line, writes it with one ``write`` on an
``O_APPEND`` descriptor, ``fsync``s, and only then adds the message to the in-memory list: if the
process dies in between, the next resume reads it from the file. The in-memory copy is the
decoded line, so memory and disk cannot disagree.

**One writer (C1).** A writing ``Session`` holds an exclusive ``flock`` on its file for its
lifetime; a second writer gets ``SessionBusyError`` at once instead of interleaving lines. The
kernel drops the lock when the process dies, so a crash never leaves a session locked. Readers
(``sessions show``, ``context``) take no lock.

**Torn lines (C5).** A crash can leave at most the last line half-written. Readers skip any line
that is not a valid record and report it (``Session.problems``); a writer that opens a file whose
last line is torn starts the next record on a fresh line, so the damage never spreads.

**Listing (C4).** From the file name (start time) and the last complete line (last activity),
read from the end of the file: listing costs one small read per session, whatever its length.

**Chain (C5).** ``Session.chain()`` is what follows the memory guide in a request: the latest
compaction summary, the messages it does not cover repaired by ``chain.repair`` (a call without
a result gets an "interrupted" one; a result without a call is cut), and the recorded notes. It
is a pure function of the file and is never written back, so every resume sends the same bytes.

**Retention (C6).** ``plan_prune`` (pure) lists what expires and what happens to it;
``apply_prune`` hands each expiring session to the distill hook first, then archives it (or
deletes it when the policy says ``on_expiry: delete``); archived sessions are deleted only after
``delete_archived_after_days``, which is off by default. A session in use is skipped.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from .chain import Entry, is_result, message_text, repair, result_ids, tool_names
from .errors import (
    AmbiguousError,
    LinkError,
    MemdirError,
    NotFoundError,
    SessionBusyError,
    ValidationError,
)
from .files import Problem
from .fs import fsync_dir, inside
from .policy import SessionsPolicy

__all__ = [
    "MESSAGE_TYPES",
    "RECORD_TYPES",
    "Distill",
    "PruneAction",
    "PruneReport",
    "Record",
    "Session",
    "SessionInfo",
    "apply_prune",
    "find_session",
    "list_sessions",
    "new_session_id",
    "plan_prune",
]

RECORD_TYPES = ("user", "assistant", "tool_result", "summary", "meta")
MESSAGE_TYPES = ("user", "assistant", "tool_result")
ID_RE = re.compile(r"\d{8}-\d{6}-[0-9a-f]{4}")
GAP = timedelta(hours=24)
TAIL_CHUNK = 4096


# -- ids and times -----------------------------------------------------------------------
def new_session_id(now: datetime | None = None) -> str:
    """``YYYYMMDD-HHMMSS-xxxx``: the UTC start time and 4 random hex digits."""
    return f"{(now or datetime.now(UTC)).strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def _id_time(session_id: str) -> datetime:
    """The start time in an id; ``ValueError`` if it is not a real time. (Slicing, because
    ``strptime`` was a fifth of the cost of listing 10,000 sessions.)"""
    s = session_id
    numbers = (s[0:4], s[4:6], s[6:8], s[9:11], s[11:13], s[13:15])
    year, month, day, hour, minute, second = map(int, numbers)
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


def _ts(now: datetime | None = None) -> str:
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_ts(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# -- records -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Record:
    """One valid line of a session file. ``line`` is its 1-based line number."""

    type: str
    ts: str
    content: Any
    line: int

    @property
    def time(self) -> datetime | None:
        return _parse_ts(self.ts)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "ts": self.ts, "content": self.content}


def _classify(message: Mapping[str, Any]) -> str:
    """The record type of a provider message, from its role (and Anthropic result blocks)."""
    role = message.get("role")
    if role == "assistant":
        return "assistant"
    if role in ("tool", "function"):
        return "tool_result"
    if role == "user":
        return "tool_result" if result_ids(message) else "user"
    if role in ("system", "developer"):
        raise ValidationError(
            f"a {role!r} message cannot be appended: memdir builds the system message itself "
            "(SPEC E1) — put standing instructions in AGENT.md"
        )
    raise ValidationError(
        f"a message needs a role of user, assistant or tool (got {role!r}); pass the message "
        "exactly as the provider uses it"
    )


def _encode(record_type: str, ts: str, content: Any) -> bytes:
    record = {"type": record_type, "ts": ts, "content": content}
    try:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        # a lone surrogate (e.g. half an emoji from a cut stream) is not UTF-8: escape the
        # line instead, which json.loads turns back into the very same string
        text = json.dumps(record, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        return (text + "\n").encode("ascii")
    except (TypeError, ValueError) as exc:
        raise ValidationError(
            f"the message is not plain JSON ({exc}); convert it to dicts, lists, strings and "
            "numbers first (e.g. model_dump() for SDK objects)"
        ) from None


def _decode(raw: bytes, line: int) -> Record | None:
    try:
        data = json.loads(raw.decode("utf-8"))  # str: json skips guessing the encoding
    except ValueError:  # UnicodeDecodeError included
        return None
    if not isinstance(data, dict) or data.get("type") not in RECORD_TYPES:
        return None
    if not isinstance(data.get("ts"), str) or "content" not in data:
        return None
    content = data["content"]
    if data["type"] in MESSAGE_TYPES and not isinstance(content, dict):
        return None
    if data["type"] in ("meta", "summary") and not isinstance(content, dict):
        return None
    return Record(data["type"], data["ts"], content, line)


def _parse_records(data: bytes, path: Path) -> tuple[list[Record], list[Problem]]:
    records: list[Record] = []
    problems: list[Problem] = []
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        record = _decode(raw, number)
        if record is not None:
            records.append(record)
            continue
        torn = number == len(lines)
        problems.append(
            Problem(
                path,
                f"line {number} is not a complete record"
                + (" (a write cut short by a crash)" if torn else "")
                + "; skipped",
                "warning",
            )
        )
    return records, problems


def _last_record(path: Path, size: int) -> Record | None:
    """The last complete record, read from the end of the file (a few KiB in most cases)."""
    chunk = TAIL_CHUNK
    fd = os.open(path, os.O_RDONLY)
    try:
        while True:
            start = max(0, size - chunk)
            pieces = os.pread(fd, size - start, start).split(b"\n")
            if start > 0:
                pieces = pieces[1:]  # may begin mid-line
            for raw in reversed(pieces):
                if raw.strip() and (record := _decode(raw, 0)) is not None:
                    return record
            if start == 0:
                return None
            chunk *= 4
    finally:
        os.close(fd)


# -- sessions ----------------------------------------------------------------------------
def _open_locked(path: Path, flags: int) -> int:
    """Open ``path`` and take its exclusive lock, or raise ``SessionBusyError``."""
    fd = os.open(path, flags, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise SessionBusyError(
            f"session {path.stem} is open for writing in another process; one writer per "
            f"session — close that one, or read it with `memdir sessions show {path.stem}`"
        ) from None
    try:
        same = os.fstat(fd).st_ino == path.stat().st_ino
    except FileNotFoundError:
        same = False
    if not same:  # moved to the archive (or deleted) while we waited for the lock
        os.close(fd)
        raise NotFoundError(f"session {path.stem} was archived or deleted just now")
    return fd


class Session:
    """One conversation's transcript. Made by ``Memory.session()``; reading one never writes.

    ``records`` are the file's valid lines in order, ``problems`` the lines skipped.
    A writing session holds the file's lock until ``close()`` (or the end of a ``with``).
    """

    def __init__(self, path: Path, *, fd: int | None = None) -> None:
        self.id = path.stem
        self.path = path
        self._fd = fd
        self.records: list[Record] = []
        self.problems: list[Problem] = []
        self.notices: list[str] = []  # what opening it did: notes added, repairs, compaction
        data = path.read_bytes() if path.exists() else b""
        self.records, self.problems = _parse_records(data, path)
        self._lines = data.count(b"\n")  # complete lines so far
        # a torn last line: the next record must start on a line of its own
        self._fresh_line = bool(data) and not data.endswith(b"\n")

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def create(cls, directory: Path, *, now: datetime | None = None) -> Session:
        """A new, empty session file in ``directory``, locked for writing."""
        directory.mkdir(parents=True, exist_ok=True)
        for _ in range(20):
            path = directory / f"{new_session_id(now)}.jsonl"
            try:
                fd = _open_locked(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL)
            except FileExistsError:
                continue  # same second, same 4 hex digits: draw again
            fsync_dir(directory)
            return cls(path, fd=fd)
        raise MemdirError(f"could not create a new session file in {directory}")

    @classmethod
    def open(cls, path: Path, *, write: bool) -> Session:
        """An existing session; ``write`` takes its lock (``SessionBusyError`` if held)."""
        folder = path.parent.parent if path.parent.name == "archive" else path.parent
        inside(folder, path)  # a session file linked out of the sessions folder is refused
        if not path.is_file():
            raise NotFoundError(f"no session file {path}: see `memdir sessions list`")
        fd = _open_locked(path, os.O_RDWR | os.O_APPEND) if write else None
        return cls(path, fd=fd)

    @property
    def writable(self) -> bool:
        return self._fd is not None

    def close(self) -> None:
        """Release the write lock (closing the descriptor drops the ``flock``)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = "writing" if self.writable else "read-only"
        return f"<Session {self.id} {len(self.records)} records, {mode}>"

    # -- writing -------------------------------------------------------------------------
    def append(self, message: Mapping[str, Any]) -> Record:
        """Add a provider message (kept exactly as given): to disk first, then to memory."""
        if not isinstance(message, Mapping):
            raise ValidationError("a message must be a dict such as {'role': 'user', ...}")
        return self.write_record(_classify(message), dict(message))

    def write_record(self, record_type: str, content: Mapping[str, Any]) -> Record:
        """Append one record of any type (``summary`` and ``meta`` are written by memdir)."""
        if self._fd is None:
            raise ValidationError(
                f"session {self.id} was opened read-only; open it with Memory.session(id) to "
                "write to it"
            )
        if record_type not in RECORD_TYPES:
            raise ValidationError(f"record type must be one of {', '.join(RECORD_TYPES)}")
        data = _encode(record_type, _ts(), content)
        if self._fresh_line:
            data = b"\n" + data
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            os.fsync(self._fd)
        except OSError as exc:
            self._fresh_line = True  # part of the line may be on disk: never continue it
            raise MemdirError(
                f"could not write to {self.path} ({exc.strerror}); the message was not added — "
                "free some disk space or fix the permissions, then append it again"
            ) from None
        self._fresh_line = False
        self._lines += data.count(b"\n")
        decoded = _decode(data.strip(b"\n"), self._lines)
        assert decoded is not None  # we just encoded it
        self.records.append(decoded)
        return decoded

    # -- reading -------------------------------------------------------------------------
    @property
    def messages(self) -> list[dict[str, Any]]:
        """Every provider message in the file, in order, exactly as appended."""
        return [r.content for r in self.records if r.type in MESSAGE_TYPES]

    def meta(self, kind: str) -> list[Record]:
        return [r for r in self.records if r.type == "meta" and r.content.get("kind") == kind]

    @property
    def summary(self) -> Record | None:
        """The latest compaction summary, if the session was ever compacted."""
        found = [r for r in self.records if r.type == "summary"]
        return found[-1] if found else None

    def last_message_time(self) -> datetime | None:
        for record in reversed(self.records):
            if record.type in MESSAGE_TYPES:
                return record.time
        return None

    def gap_note(self, now: datetime | None = None) -> str | None:
        """ "N days since the last conversation" when the last message is over 24 hours old
        and no such note follows it yet (one note per gap)."""
        last = self.last_message_time()
        if last is None:
            return None
        for record in reversed(self.records):
            if record.type in MESSAGE_TYPES:
                break
            if record.type == "meta" and record.content.get("kind") == "note":
                return None
        elapsed = (now or datetime.now(UTC)) - last
        if elapsed <= GAP:
            return None
        days = max(1, math.floor(elapsed / timedelta(days=1)))
        unit = "day" if days == 1 else "days"
        return (
            f"[memdir] {days} {unit} since the last conversation (last message "
            f"{last.strftime('%Y-%m-%d %H:%M')} UTC). Things may have changed since then: "
            "check the current state before continuing earlier work."
        )

    def chain(self) -> tuple[list[Entry], list[str]]:
        """What follows the memory guide: the summary (if compacted), then the messages it
        does not cover, repaired, with notes where they were recorded."""
        summary = self.summary
        covers = int(summary.content.get("covers", 0)) if summary else 0
        messages: list[dict[str, Any]] = []
        notes: list[tuple[int, str]] = []  # (number of messages before the note, text)
        for record in self.records:
            if record.type in MESSAGE_TYPES:
                messages.append(record.content)
            elif record.type == "meta" and record.content.get("kind") == "note":
                notes.append((len(messages), str(record.content.get("text", ""))))
        entries, repairs = repair(messages[covers:])
        entries = [Entry(e.kind, e.content, e.origin + covers, e.synthetic) for e in entries]
        out: list[Entry] = []
        if summary is not None:
            out.append(Entry("summary", str(summary.content.get("text", "")), covers))
        pending = [(n, text) for n, text in notes if n >= covers and n > 0]
        for entry in entries:
            # a note goes before the first message recorded after it, but never between a
            # tool call and its results
            if not (entry.kind == "message" and is_result(entry.content)):
                while pending and entry.origin >= pending[0][0]:
                    n, text = pending.pop(0)
                    out.append(Entry("note", text, n - 1))
            out.append(entry)
        out += [Entry("note", text, n - 1) for n, text in pending]
        return out, repairs

    def info(self) -> SessionInfo:
        return _info(self.path, archived=self.path.parent.name == "archive")


# -- listing -----------------------------------------------------------------------------
@dataclass(frozen=True)
class SessionInfo:
    """What ``memdir sessions list`` shows, read from the file name and the last line."""

    id: str
    path: Path
    started: datetime
    last_active: datetime | None
    last_type: str | None
    preview: str
    size: int
    archived: bool = False

    @property
    def idle_since(self) -> datetime:
        return self.last_active or self.started

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": str(self.path),
            "started": _ts(self.started),
            "last_active": _ts(self.last_active) if self.last_active else None,
            "last_type": self.last_type,
            "preview": self.preview,
            "size": self.size,
            "archived": self.archived,
        }


def _preview(record: Record | None) -> str:
    if record is None:
        return ""
    if record.type in MESSAGE_TYPES:
        calls = [f"→ {name}" for name in tool_names(record.content).values()]
        text = " ".join([message_text(record.content), *calls])
    else:
        text = str(record.content.get("text", record.content.get("kind", "")))
    line = " ".join(text.split())
    return line if len(line) <= 80 else line[:79] + "…"


def _info(path: Path, *, archived: bool, size: int | None = None) -> SessionInfo:
    size = path.stat().st_size if size is None else size
    last = _last_record(path, size) if size else None
    return SessionInfo(
        id=path.stem,
        path=path,
        started=_id_time(path.stem),
        last_active=last.time if last else None,
        last_type=last.type if last else None,
        preview=_preview(last),
        size=size,
        archived=archived,
    )


def list_sessions(directory: Path, *, archived: bool = False) -> list[SessionInfo]:
    """Every session in ``directory`` (its ``archive/`` with ``archived``), oldest first."""
    folder = inside(directory, directory / "archive") if archived else directory
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return []
    found: list[SessionInfo] = []
    for entry in entries:
        stem = entry.name.removesuffix(".jsonl")
        if entry.name.endswith(".jsonl") and ID_RE.fullmatch(stem) and entry.is_file():
            if entry.is_symlink() and not _stays(directory, Path(entry.path)):
                continue  # a link out of the folder is not read (``open`` says why)
            try:
                found.append(_info(Path(entry.path), archived=archived, size=entry.stat().st_size))
            except FileNotFoundError:
                continue  # archived or deleted while we listed
            except ValueError:
                continue  # a name shaped like an id that is not a time (month 13): not ours
    return sorted(found, key=lambda info: info.id)


def _stays(directory: Path, path: Path) -> bool:
    try:
        inside(directory, path)
    except LinkError:
        return False
    return True


def _match(folder: Path, session_id: str) -> Path | None:
    exact = folder / f"{session_id}.jsonl"
    if ID_RE.fullmatch(session_id) and exact.is_file():
        return exact
    matches = sorted(folder.glob(f"{session_id}*.jsonl")) if folder.is_dir() else []
    if len(matches) > 1:
        raise AmbiguousError(f"{session_id!r} matches {len(matches)} sessions: give more of the id")
    return matches[0] if matches else None


def find_session(directory: Path, session_id: str, *, archived: bool = False) -> Path:
    """The file of ``session_id`` (a unique prefix of at least 8 characters will do);
    ``archived`` also looks in ``archive/`` (for reading: archived sessions are not resumed)."""
    session_id = session_id.strip().removesuffix(".jsonl")
    if not re.fullmatch(r"[0-9a-f-]{8,20}", session_id):
        raise ValidationError(
            f"{session_id!r} is not a session id: ids look like 20260131-093000-a1b2 "
            "(see `memdir sessions list`)"
        )
    found = _match(directory, session_id)
    if found is not None:
        return found
    in_archive = _match(inside(directory, directory / "archive"), session_id)
    if in_archive is not None and archived:
        return in_archive
    if in_archive is not None:
        raise NotFoundError(
            f"session {session_id} was archived; read it with `memdir sessions show "
            f"{session_id}` (its file is {in_archive})"
        )
    raise NotFoundError(f"no session {session_id!r} in {directory}: see `memdir sessions list`")


# -- retention ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PruneAction:
    """One step of a prune plan: ``archive`` or ``delete`` one session, and why."""

    session: SessionInfo
    action: Literal["archive", "delete"]
    reason: str
    distill: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.session.id,
            "action": self.action,
            "reason": self.reason,
            "distill": self.distill,
            "path": str(self.session.path),
        }


@dataclass
class PruneReport:
    """A plan and, unless it was a dry run, what became of each step."""

    plan: list[PruneAction]
    dry_run: bool
    done: list[PruneAction] = field(default_factory=list)
    skipped: list[tuple[PruneAction, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "plan": [a.to_dict() for a in self.plan],
            "done": [a.to_dict() for a in self.done],
            "skipped": [{**a.to_dict(), "why": why} for a, why in self.skipped],
        }


def plan_prune(
    active: Sequence[SessionInfo],
    archived: Sequence[SessionInfo],
    *,
    policy: SessionsPolicy,
    older_than: timedelta | None = None,
    now: datetime | None = None,
) -> list[PruneAction]:
    """What a prune would do (pure: reads nothing, changes nothing)."""
    now = now or datetime.now(UTC)
    limit = older_than or timedelta(days=policy.retention_days)
    plan: list[PruneAction] = []
    for info in active:
        idle = now - info.idle_since
        if idle > limit:
            reason = f"idle {idle.days} days (retention {_span(limit)})"
            plan.append(
                PruneAction(
                    info, "delete" if policy.on_expiry == "delete" else "archive", reason, True
                )
            )
    if policy.delete_archived_after_days is not None:
        ttl = timedelta(days=policy.delete_archived_after_days)
        for info in archived:
            idle = now - info.idle_since
            if idle > ttl:
                reason = f"archived, idle {idle.days} days (delete_archived_after_days {ttl.days})"
                plan.append(PruneAction(info, "delete", reason, False))
    return plan


def _span(delta: timedelta) -> str:
    if delta % timedelta(days=1):
        return f"{delta.total_seconds() / 3600:g} hours"
    return f"{delta.days} days"


Distill = Callable[[Session], None]


def apply_prune(plan: Sequence[PruneAction], *, distill: Distill | None = None) -> PruneReport:
    """Carry out ``plan``: each expiring session goes to ``distill`` first (under its write
    lock), then to the archive or away. A session in use, or one whose distill raised a
    ``MemdirError``, is skipped and reported — never half-handled."""
    report = PruneReport(list(plan), dry_run=False)
    for action in plan:
        path = action.session.path
        try:
            with Session.open(path, write=True) as session:
                if action.distill and distill is not None:
                    distill(session)
                if action.action == "archive":
                    archive = path.parent / "archive"
                    archive.mkdir(exist_ok=True)
                    os.replace(path, archive / path.name)
                    fsync_dir(archive)
                else:
                    path.unlink()
                fsync_dir(path.parent)
        except MemdirError as exc:
            report.skipped.append((action, str(exc)))
            continue
        report.done.append(action)
    return report
