"""The daily log and promotion (SPEC A1, H6): session-level notes that earn a long-term place.

``<scope>/log/YYYY-MM-DD.md`` is append-only Markdown, one note per line::

    # Log 2026-06-01

    - 09:30:12Z (user, session 20260601-092811-ab12) run lint before commit

``append_note`` writes a line (under the scope's lock, fsynced); a person may add lines by hand —
any ``- text`` line is a note (source ``user``). The log is never rewritten by memdir.

``plan_promotions`` (pure, part of the sleep plan) groups notes by normalised text
(a leading ``remember:`` / ``记住`` / ``!`` marks a note as asked for and is dropped from it):

* seen in ``promotion.rule_sessions`` (3) different sessions → one ``feedback`` memory in the
  user scope: a repeated episode becomes a rule (episodic → procedural);
* else noted ``promotion.min_reuse`` (2) times — each line is one use — or asked for (when
  ``promotion.user_explicit``) → one memory of type ``project`` in the log's scope.

A note whose text already is a memory (active or archived) is not promoted again, so running
sleep twice promotes once. Each promoted memory records ``promoted_from`` (the log files).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import PromotionPolicy
from ..history import fsync_dir
from ..records import MemoryRecord, slugify
from .similar import normalise
from .steps import Op, Step, free_name, iso

if TYPE_CHECKING:
    from ..paths import Scope

__all__ = ["Note", "append_note", "plan_promotions", "read_notes"]

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\.md")
_LINE = re.compile(r"^- (?:(\d\d:\d\d:\d\d)Z )?(?:\(([^)]*)\) )?(.+?)\s*$")
_ASKED = re.compile(
    r"^(?:!\s*|(?:please\s+)?remember(?:\s+that)?\s*[:,]?\s+|记住[:：，,]?\s*)", re.I
)


@dataclass(frozen=True)
class Note:
    """One line of a daily log."""

    file: str  # "log/2026-06-01.md"
    day: str
    time: str | None
    text: str
    source: str
    session: str | None

    @property
    def asked(self) -> bool:
        return bool(_ASKED.match(self.text))

    @property
    def statement(self) -> str:
        return _ASKED.sub("", self.text, count=1).strip()


def append_note(
    folder: Path, text: str, *, now: datetime, source: str = "user", session: str | None = None
) -> Path:
    """Append ``text`` to today's log in ``folder`` (the caller holds the scope's lock)."""
    line = " ".join(text.split())
    when = now.astimezone(UTC)
    path = folder / f"{when:%Y-%m-%d}.md"
    meta = source + (f", session {session}" if session else "")
    folder.mkdir(parents=True, exist_ok=True)
    new = not path.exists()
    with open(path, "a", encoding="utf-8") as handle:
        if new:
            handle.write(f"# Log {when:%Y-%m-%d}\n\n")
        handle.write(f"- {when:%H:%M:%S}Z ({meta}) {line}\n")
        handle.flush()
        os.fsync(handle.fileno())
    if new:
        fsync_dir(folder)
    return path


def read_notes(folder: Path) -> tuple[Note, ...]:
    """Every note in ``folder``'s daily logs, oldest day first."""
    try:
        files = sorted(n for n in os.listdir(folder) if _DAY.fullmatch(n))
    except FileNotFoundError:
        return ()
    notes: list[Note] = []
    for name in files:
        try:
            text = (folder / name).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue  # a log a person broke is theirs to fix; it promotes nothing
        for raw in text.splitlines():
            match = _LINE.match(raw)
            if not match or not match.group(3).strip():
                continue
            parts = [p.strip() for p in (match.group(2) or "user").split(",")]
            source = parts[0] if parts[0] in ("user", "inferred") else "user"
            session = next((p[8:] for p in parts if p.startswith("session ")), None)
            notes.append(
                Note(f"log/{name}", name[:-3], match.group(1), match.group(3), source, session)
            )
    return tuple(notes)


def plan_promotions(
    notes: Mapping[Scope, Sequence[Note]],
    known: Mapping[Scope, Sequence[MemoryRecord]],
    *,
    policy: PromotionPolicy,
    now: datetime,
    taken: Mapping[Scope, set[str]] | None = None,
) -> list[Step]:
    """The ``promote`` and ``rule`` steps the notes earn (see the module docstring).
    ``taken``: lowercased names already in use per scope (the plan's new names included)."""
    names = {s: {r.name.lower() for r in recs} for s, recs in known.items()}
    for scope, extra in (taken or {}).items():
        names.setdefault(scope, set()).update(extra)
    seen = {s: {normalise(r.statement) for r in recs} for s, recs in known.items()}
    steps: list[Step] = []
    for scope, scope_notes in notes.items():
        groups: dict[str, list[Note]] = {}
        for note in scope_notes:
            key = normalise(note.statement)
            if key:
                groups.setdefault(key, []).append(note)
        for key, group in groups.items():
            sessions = sorted({n.session for n in group if n.session})
            target: Scope = scope
            if len(sessions) >= policy.rule_sessions and "user" in seen:
                action, target, kind = "rule", "user", "feedback"
                why = f"noted in {len(sessions)} sessions: a repeated episode becomes a rule"
            elif len(group) >= policy.min_reuse:
                action, kind = "promote", "project"
                why = f"noted {len(group)} times (min_reuse {policy.min_reuse})"
            elif policy.user_explicit and any(n.asked for n in group):
                action, kind = "promote", "project"
                why = "the note asks to be remembered"
            else:
                continue
            if key in seen.get(target, set()):
                continue
            seen.setdefault(target, set()).add(key)
            op = _create(target, kind, group, sessions, now, names.setdefault(target, set()))
            steps.append(Step(action, target, (op.name,), why, (op,)))
    return steps


def _create(
    scope: Scope,
    kind: str,
    group: Sequence[Note],
    sessions: Sequence[str],
    now: datetime,
    taken: set[str],
) -> Op:
    first = group[0]
    statement = first.statement
    fields = {
        "description": statement if len(statement) <= 150 else statement[:149] + "…",
        "type": kind,
        "source": "user" if any(n.source == "user" for n in group) else "inferred",
        "confidence": "confirmed",
        "created": iso(now),
        "updated": iso(now),
        "session": sessions[0] if sessions else None,
        "promoted_from": sorted({n.file for n in group}),
        "statement": statement,
    }
    name = free_name(slugify(statement), taken)
    return Op("create", scope, name, None, {k: v for k, v in fields.items() if v})
