"""What the agent is handed at a turn besides the guide (seeds 003, 004, issue 22 item 6).

``Memory.offer_for(text, session=)`` recalls over what the person just wrote and asks
``plan_offer`` (pure) what to say; the agent loop writes the answer as a ``note`` in the session
right after the message (``[memdir] …``: part of what the model sees, recorded so a resumed
session sends the same bytes, never read by extraction), and records the names it offered
(``meta`` kind ``offered``) so nothing is offered twice in one session.

* **Skills at the start of a task** (seed 003: skill memory is recalled "as a warm-up when the
  task starts", not when something goes wrong). On the session's first message, the skill
  memories (``feedback`` tagged ``skill``: repeated procedures, ``promote.py``) recalled for it
  that share a content word with it are offered, at most ``MAX_SKILLS``.
* **A tentative memory, when it becomes relevant** (seed 003 §5.1: "periodically take the
  to-be-confirmed memories to the person"). A tentative memory recalled for the message and
  sharing a content word with it is named with its rivals and the model is told to ask the
  person which holds — one short question — before relying on either; once per session.
* **A stack switch** (seed 003 §5.2, ``stack.py``). When the project's stack differs from what
  most memories describe, memories that name only other stacks weigh ``FOREIGN_WEIGHT``: they
  are not offered (skills, questions), and the note says how many were set aside and why, once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..records import MemoryRecord, shorten
from .similar import units
from .stack import Drift

__all__ = ["MAX_SKILLS", "Offer", "plan_offer"]

MAX_SKILLS = 3
_LINE_CHARS = 240


@dataclass(frozen=True)
class Offer:
    """What to tell the model now (``note``) and the names that told it (``names``)."""

    skills: tuple[MemoryRecord, ...] = ()
    ask: tuple[tuple[MemoryRecord, tuple[MemoryRecord, ...]], ...] = ()
    set_aside: tuple[MemoryRecord, ...] = ()
    drift: Drift | None = None

    @property
    def names(self) -> list[str]:
        out = [f"{r.scope}/{r.name}" for r in self.skills]
        out += [f"{r.scope}/{r.name}" for rec, rivals in self.ask for r in (rec, *rivals)]
        if self.set_aside:
            out.append("stack")
        return out

    @property
    def note(self) -> str:
        """The ``[memdir]`` note for the model; ``""`` when there is nothing to say."""
        parts: list[str] = []
        if self.skills:
            lines = [
                f"- {r.scope}/{r.name}: {shorten(r.statement, _LINE_CHARS)}" for r in self.skills
            ]
            parts.append(
                "[memdir] Skills remembered for this kind of task (steps that were used before; "
                "follow them unless the person or the project says otherwise):\n" + "\n".join(lines)
            )
        for rec, rivals in self.ask:
            against = "; ".join(
                f"{r.scope}/{r.name}: {shorten(r.statement, _LINE_CHARS)}" for r in rivals
            )
            parts.append(
                f"[memdir] A tentative memory bears on this: {rec.scope}/{rec.name}: "
                f"{shorten(rec.statement, _LINE_CHARS)}"
                + (f" — it may conflict with {against}" if against else " — never confirmed")
                + ". Ask the person which holds (one short question) before relying on it, then "
                "update or delete the memory that no longer holds."
            )
        if self.set_aside and self.drift is not None:
            current = ", ".join(sorted(self.drift.current))
            where = f" ({', '.join(self.drift.manifests)})" if self.drift.manifests else ""
            named = ", ".join(f"{r.scope}/{r.name}" for r in self.set_aside[:5])
            more = f" and {len(self.set_aside) - 5} more" if len(self.set_aside) > 5 else ""
            parts.append(
                f"[memdir] This project uses {current}{where}, but most remembered memories "
                f"describe {self.drift.majority}. {len(self.set_aside)} memory(ies) about other "
                f"stacks were set aside, not offered: {named}{more}. They come from other "
                "projects: do not apply them here unless the person asks."
            )
        return "\n\n".join(parts)


def _shares(text: str, rec: MemoryRecord) -> bool:
    asked = set(units(text))
    return bool(asked & set(units(f"{rec.statement} {rec.description}")))


def plan_offer(
    text: str,
    *,
    first: bool,
    skills: Sequence[MemoryRecord],
    recalled: Sequence[MemoryRecord],
    rivals: Mapping[tuple[str, str], MemoryRecord],
    drift: Drift,
    offered: set[str],
) -> Offer:
    """What to offer for the person's ``text`` (see the module docstring). ``skills``: the skill
    memories recalled for it; ``recalled``: every memory recalled for it; ``rivals``: the
    memories tentative ones conflict with, by (scope, name); ``offered``: names offered earlier
    in the session."""
    by_name = rivals
    aside = [r for r in (*skills, *recalled) if drift.weight(r) < 1.0]
    aside_keys = {(r.scope, r.name) for r in aside}
    chosen: list[MemoryRecord] = []
    if first:
        for rec in skills:
            key = f"{rec.scope}/{rec.name}"
            if key in offered or (rec.scope, rec.name) in aside_keys or not _shares(text, rec):
                continue
            chosen.append(rec)
            if len(chosen) == MAX_SKILLS:
                break
    ask: list[tuple[MemoryRecord, tuple[MemoryRecord, ...]]] = []
    for rec in recalled:
        key = f"{rec.scope}/{rec.name}"
        if rec.confidence != "tentative" or key in offered or (rec.scope, rec.name) in aside_keys:
            continue
        if not _shares(text, rec):
            continue
        names = rec.extra.get("conflicts_with")
        against = tuple(
            by_name[(rec.scope, n)]
            for n in (names if isinstance(names, list) else [])
            if isinstance(n, str) and (rec.scope, n) in by_name
        )
        if any(f"{r.scope}/{r.name}" in offered for r in against):
            continue  # the question was asked already, about its rival
        ask.append((rec, against))
        break  # one question at a time
    unique = {(r.scope, r.name): r for r in aside}
    return Offer(
        tuple(chosen), tuple(ask), tuple(unique.values()) if "stack" not in offered else (), drift
    )
