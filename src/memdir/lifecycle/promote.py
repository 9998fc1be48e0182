"""The daily log and promotion (SPEC A1, H6): session-level notes that earn a long-term place.

``<scope>/log/YYYY-MM-DD.md`` is append-only Markdown, one note per line::

    # Log 2026-06-01

    - 09:30:12Z (user, session 20260601-092811-ab12) run lint before commit

``append_note`` writes a line through the scope's ``DailyLog`` (``Store.daily_log()``: files
beside the memories, or rows; under the scope's lock, durably); a person may add lines by hand
— any ``- text`` line is a note (source ``user``). The log is never rewritten by memdir.
``notes_in`` reads the notes of a ``DailyLog``'s days, ``read_notes`` those of log folders.

``plan_promotions`` (pure, part of the sleep plan) groups notes by normalised text
(a leading ``remember:`` / ``记住`` / ``!`` marks a note as asked for and is dropped from it):

* seen in ``promotion.rule_sessions`` (3) different sessions → one ``feedback`` memory in the
  user scope: a repeated episode becomes a rule (episodic → procedural);
* else noted ``promotion.min_reuse`` (2) times — each line is one use — or asked for (when
  ``promotion.user_explicit``) → one memory of type ``project`` in the log's scope.

A note whose text already is a memory (active or archived) is not promoted again, so running
sleep twice promotes once. Each promoted memory records ``promoted_from`` (the log files).

The agent's own lines carry a kind after the session (``working.py``): ``learned`` (already a
memory), ``done`` (an episode) and ``summary`` lines are never promoted; a ``procedure`` noted
``min_reuse`` times (or asked for) becomes a **skill**: a ``feedback`` memory tagged ``skill`` in
the log's scope, which the agent offers at the start of a matching task (seed 003). Logs sleep
compressed into ``archive/log/`` still count (``read_notes(..., archived=...)``): compressing a
log never loses a use.
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..policy import PromotionPolicy
from ..records import LogDay, MemoryRecord, slugify
from .similar import normalise
from .steps import Op, Step, free_name, iso

if TYPE_CHECKING:
    from ..paths import Scope
    from ..ports import DailyLog

__all__ = ["Note", "append_note", "notes_in", "plan_promotions", "read_notes"]

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\.md")
_ARCHIVED_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\.md(?:\.gz)?")
NOT_PROMOTED = frozenset({"learned", "done", "summary"})
SKILL_TAG = "skill"
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
    kind: str | None = None  # the agent's lines: decided, procedure, learned, done, summary

    @property
    def asked(self) -> bool:
        return bool(_ASKED.match(self.text))

    @property
    def statement(self) -> str:
        return _ASKED.sub("", self.text, count=1).strip()


def append_note(
    log: DailyLog, text: str, *, now: datetime, source: str = "user", session: str | None = None
) -> Path:
    """Append ``text`` to today's daily log of ``log`` (the caller holds the scope's lock)."""
    line = " ".join(text.split())
    when = now.astimezone(UTC)
    meta = source + (f", session {session}" if session else "")
    return log.append(f"{when:%Y-%m-%d}", f"- {when:%H:%M:%S}Z ({meta}) {line}\n")


def _day_text(path: str, data: bytes) -> str | None:
    try:
        if path.endswith(".gz"):
            data = gzip.decompress(data)
        return data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile):
        return None  # a log a person broke is theirs to fix; it promotes nothing


def _notes_of(text: str, file: str, day: str) -> list[Note]:
    from .working import NOTE_KINDS

    notes: list[Note] = []
    lines = text.split("\n")
    for number, raw in enumerate(lines):
        raw = raw.rstrip("\r")
        match = _LINE.match(raw)
        if not match or not match.group(3).strip():
            continue
        parts = [p.strip() for p in (match.group(2) or "user").split(",")]
        if number == len(lines) - 1 and len(parts) > 1:
            continue  # memdir's line with no newline at the end: a write a crash cut short
        source = parts[0] if parts[0] in ("user", "inferred") else "user"
        session = next((p[8:] for p in parts if p.startswith("session ")), None)
        kind = next((p for p in parts[1:] if p in NOTE_KINDS), None)
        notes.append(Note(file, day, match.group(1), match.group(3), source, session, kind))
    return notes


_NOTED = re.compile(r"(?:log/\d{4}-\d{2}-\d{2}\.md|archive/log/\d{4}-\d{2}-\d{2}\.md(?:\.gz)?)")


def notes_in(days: Iterable[LogDay]) -> tuple[Note, ...]:
    """Every note of the daily logs ``days`` (``DailyLog.days()``), oldest day first — for one
    day, the log sleep compressed into ``archive/log/`` before the live one."""
    found = sorted(
        (d.path.rpartition("/")[2][:10], d.path, d.data) for d in days if _NOTED.fullmatch(d.path)
    )
    notes: list[Note] = []
    for day, file, data in found:
        text = _day_text(file, data)
        if text is not None:
            notes += _notes_of(text, file, day)
    return tuple(notes)


def read_notes(folder: Path, archived: Path | None = None) -> tuple[Note, ...]:
    """Every note in ``folder``'s daily logs, oldest day first — and, with ``archived``, those
    of the logs sleep compressed into it before them (``archive/log/``)."""
    days: list[LogDay] = []
    for where, pattern, prefix in ((archived, _ARCHIVED_DAY, "archive/log"), (folder, _DAY, "log")):
        if where is None:
            continue
        try:
            names = os.listdir(where)
        except FileNotFoundError:
            continue
        for name in (n for n in names if pattern.fullmatch(n)):
            try:
                days.append(LogDay(f"{prefix}/{name}", (where / name).read_bytes()))
            except OSError:
                continue  # a folder, a dangling link: nothing to read
    return notes_in(days)


def plan_promotions(
    notes: Mapping[Scope, Sequence[Note]],
    known: Mapping[Scope, Sequence[MemoryRecord]],
    *,
    policy: PromotionPolicy,
    now: datetime,
    taken: Mapping[Scope, set[str]] | None = None,
    only: set[str] | None = None,
) -> list[Step]:
    """The ``promote``, ``rule`` and ``skill`` steps the notes earn (see the module docstring).
    ``taken``: lowercased names already in use per scope (the plan's new names included);
    ``only``: the normalised statements to decide (session end: the session's own notes)."""
    names = {s: {r.name.lower() for r in recs} for s, recs in known.items()}
    for scope, extra in (taken or {}).items():
        names.setdefault(scope, set()).update(extra)
    seen = {s: {normalise(r.statement) for r in recs} for s, recs in known.items()}
    steps: list[Step] = []
    for scope, scope_notes in notes.items():
        groups: dict[str, list[Note]] = {}
        for note in scope_notes:
            key = normalise(note.statement)
            if key and note.kind not in NOT_PROMOTED and (only is None or key in only):
                groups.setdefault(key, []).append(note)
        for key, group in groups.items():
            sessions = sorted({n.session for n in group if n.session})
            target: Scope = scope
            asked = policy.user_explicit and any(n.asked for n in group)
            if any(n.kind == "procedure" for n in group):
                if len(group) < policy.min_reuse and not asked:
                    continue
                action, kind = "skill", "feedback"
                why = (
                    f"the same steps noted {len(group)} times: a repeated procedure becomes a "
                    "skill the agent offers when a matching task starts"
                )
            elif len(sessions) >= policy.rule_sessions and "user" in seen:
                action, target, kind = "rule", "user", "feedback"
                why = f"noted in {len(sessions)} sessions: a repeated episode becomes a rule"
            elif len(group) >= policy.min_reuse:
                action, kind = "promote", "project"
                why = f"noted {len(group)} times (min_reuse {policy.min_reuse})"
            elif asked:
                action, kind = "promote", "project"
                why = "the note asks to be remembered"
            else:
                continue
            if key in seen.get(target, set()):
                if action == "skill":  # the steps are a memory already: they become a skill
                    steps += _as_skill(target, key, known.get(target, ()), why)
                continue
            seen.setdefault(target, set()).add(key)
            op = _create(target, kind, group, sessions, now, names.setdefault(target, set()))
            if action == "skill":
                op = Op(op.kind, op.scope, op.name, None, {**op.fields, "tags": [SKILL_TAG]})
            steps.append(Step(action, target, (op.name,), why, (op,)))
    return steps


def _as_skill(scope: Scope, key: str, records: Sequence[MemoryRecord], why: str) -> list[Step]:
    """Tag the active memory holding these steps ``skill`` (none when it is one already, or
    only archived)."""
    for rec in records:
        if normalise(rec.statement) != key or rec.path.parent.name == "archive":
            continue
        if SKILL_TAG in rec.tags:
            return []
        op = Op("update", scope, rec.name, rec.content_hash, {"tags": [*rec.tags, SKILL_TAG]})
        return [Step("skill", scope, (rec.name,), why, (op,))]
    return []


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
