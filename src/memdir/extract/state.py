"""Where extraction is up to, per session, so no finished turn is lost to a crash (SPEC G1).

``<sessions>/.extract/<session-id>.json`` records how far extraction got in that session
(``done``: the number of messages whose turns were handled), the session file's size then
(``size``: a cheap "anything new?" check on start-up), and the turns whose extraction **failed**
(model unreachable, output unusable after the retry) with the error and the model's raw answer —
``memdir doctor`` lists them and ``memdir extract SESSION_ID`` retries them. The file is derived
bookkeeping: deleting it makes the next start extract that session's turns again (a quote
already stored from the same session is not stored twice).

Each state file is replaced atomically, and read-modify-write happens under an ``flock`` on
``<session-id>.lock`` beside it, so two processes picking up the same pending session do the work
once: the second waits, re-reads the state and finds nothing left.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fs import atomic_write

__all__ = [
    "ExtractState",
    "Failure",
    "all_states",
    "append_log",
    "locked",
    "mark_captured",
    "read_log",
    "state_dir",
    "take_captured",
    "was_captured",
]

STATE_VERSION = 1
RAW_LIMIT = 4000  # characters of a failed answer kept for a person to look at
CAPTURED_LIMIT = 200  # hot-path captures waiting for the background pass, per session


def state_dir(sessions: Path) -> Path:
    return sessions / ".extract"


@dataclass(frozen=True)
class Failure:
    """One turn whose extraction failed."""

    turn: str  # "start-end" message indices
    time: str
    error: str
    model: str | None = None
    prompt: str | None = None
    raw: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "time": self.time,
            "error": self.error,
            "model": self.model,
            "prompt": self.prompt,
            "raw": self.raw[:RAW_LIMIT],
        }


@dataclass
class ExtractState:
    """The extraction state of one session (see the module docstring)."""

    path: Path
    session: str
    done: int = 0
    size: int = 0
    failed: list[Failure] = field(default_factory=list)

    @classmethod
    def load(cls, sessions: Path, session_id: str) -> ExtractState:
        path = state_dir(sessions) / f"{session_id}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls(path, session_id)
        except (OSError, ValueError):
            # unreadable bookkeeping is rebuilt, not trusted: at worst a turn is read twice
            return cls(path, session_id)
        if not isinstance(data, dict):
            return cls(path, session_id)
        failed = [
            Failure(
                turn=f["turn"],
                time=str(f.get("time", "")),
                error=str(f.get("error", "")),
                model=f.get("model"),
                prompt=f.get("prompt"),
                raw=str(f.get("raw", "")),
            )
            for f in data.get("failed", [])
            if isinstance(f, dict) and isinstance(f.get("turn"), str)
        ]
        return cls(
            path,
            session_id,
            done=int(data.get("done", 0)),
            size=int(data.get("size", 0)),
            failed=failed,
        )

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "version": STATE_VERSION,
            "session": self.session,
            "done": self.done,
            "size": self.size,
            "failed": [f.to_dict() for f in self.failed],
        }
        atomic_write(self.path, json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"))

    def fail(self, failure: Failure) -> None:
        self.failed = [f for f in self.failed if f.turn != failure.turn] + [failure]

    def resolve(self, turn: str) -> None:
        self.failed = [f for f in self.failed if f.turn != turn]


@contextmanager
def locked(sessions: Path, session_id: str) -> Iterator[None]:
    """Hold the extraction lock of one session (blocking; the kernel drops it on a crash)."""
    folder = state_dir(sessions)
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"{session_id}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def all_states(sessions: Path) -> Iterator[ExtractState]:
    """Every state file of ``sessions`` (for ``memdir doctor``)."""
    folder = state_dir(sessions)
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.json")):
        yield ExtractState.load(sessions, path.stem)


# -- what the hot path stored, per message ----------------------------------------------------
# ``<session-id>.captured`` lists the messages whose explicit requests ``capture_explicit``
# stored already (a hash of the message and the quotes), until the background pass reads that
# turn and drops them: so a request is stored once per turn, and no pass scans the memories to
# find out. Its own file and lock: the hot path never waits for a background model call, which
# holds the state's lock.


def _captured_path(sessions: Path, session_id: str) -> Path:
    return state_dir(sessions) / f"{session_id}.captured"


def _read_captured(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []  # none yet, or unreadable: at worst a request meets the duplicate check again
    if not isinstance(data, list):
        return []
    return [
        {"key": e["key"], "quotes": [str(q) for q in e.get("quotes", [])]}
        for e in data
        if isinstance(e, dict) and isinstance(e.get("key"), str)
    ]


def _write_captured(path: Path, entries: list[dict[str, Any]]) -> None:
    atomic_write(path, json.dumps(entries[-CAPTURED_LIMIT:], ensure_ascii=False).encode("utf-8"))


def mark_captured(sessions: Path, session_id: str, key: str, quotes: list[str]) -> None:
    """Record that the hot path handled the message ``key`` (storing ``quotes``)."""
    path = _captured_path(sessions, session_id)
    with locked(sessions, f"{session_id}.captured"):
        _write_captured(path, [*_read_captured(path), {"key": key, "quotes": quotes}])


def was_captured(sessions: Path, session_id: str, key: str) -> bool:
    path = _captured_path(sessions, session_id)
    return any(e["key"] == key for e in _read_captured(path))


def take_captured(sessions: Path, session_id: str, keys: list[str]) -> dict[str, list[str]]:
    """The quotes stored by the hot path for each of ``keys`` that it handled; those entries
    are removed (one per key), so the next message with the same text is read afresh."""
    path = _captured_path(sessions, session_id)
    if not path.exists():
        return {}
    out: dict[str, list[str]] = {}
    with locked(sessions, f"{session_id}.captured"):
        entries = _read_captured(path)
        for key in keys:
            at = next((i for i, e in enumerate(entries) if e["key"] == key), None)
            if at is not None and key not in out:
                out[key] = entries.pop(at)["quotes"]
        if out:
            _write_captured(path, entries)
    return out


# -- the extraction log ------------------------------------------------------------------------
# ``<session-id>.log`` (JSON lines): every operation of this session's extraction that was not
# applied — skipped, refused, or dropped by the output checks — with the turn and the reason, so
# a person can see why something they said was not stored (or a model's answer was not used).


def append_log(sessions: Path, session_id: str, entries: list[dict[str, Any]]) -> None:
    if not entries:
        return
    folder = state_dir(sessions)
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)
    with open(folder / f"{session_id}.log", "a", encoding="utf-8") as f:
        f.write(lines)


def read_log(sessions: Path, session_id: str) -> list[dict[str, Any]]:
    """The extraction log of one session, oldest first (torn lines are skipped)."""
    try:
        text = (state_dir(sessions) / f"{session_id}.log").read_text(encoding="utf-8")
    except OSError:
        return []
    out: list[dict[str, Any]] = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            out.append(entry)
    return out
