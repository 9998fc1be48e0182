"""The working layer (seeds 003, 004): what the agent notes in the daily log as it works, and
what the end of a session makes of it.

Seed 004 puts a task's working memory between the conversation (gone when the session ends)
and long-term memory (promoted into): ``<scope>/log/YYYY-MM-DD.md``, append-only. The agent loop
writes it at the end of every turn, offline and deterministic, one line per item::

    - 09:30:12Z (inferred, session 20260601-092811-ab12, decided) use pnpm for the frontend

The kinds (``NOTE_KINDS``), each read from the turn by rules (``turn_notes``):

* ``decided`` — a sentence of the person's message that settles something ("let's use …",
  "we'll go with …", "from now on …", "决定…", "就用…", "改用…");
* ``procedure`` — a sentence that gives ordered steps ("first …, then …", "1. … 2. …",
  "… → …", "先…再…", "然后"): repeated in ``promotion.min_reuse`` sessions it becomes a *skill*
  memory the guide offers at the start of a matching task (seed 003);
* ``learned`` — each memory stored in the turn (the person's explicit request, a memory-tool
  write), by its statement: already long-term, so never promoted again, but it is the record
  of where the memory was learned;
* ``done`` — each sentence of the reply in which the agent says what it did ("I've added …",
  "I ran …", "已完成…"): the episode, read at session end and by the person; never promoted
  by itself (an episode is not a rule);
* ``summary`` — the one line session end distills from the session's notes.

**Crash safety.** A turn's lines are one ``write`` of whole lines on an ``O_APPEND`` descriptor,
fsynced, under the scope's lock; if the file does not end in a newline (a write a crash cut
short, or a hand edit) a newline is written first, so a torn line never swallows the next one,
and ``promote.read_notes`` skips a memdir line with no newline at the very end of a file.

**Scope** (``working_memory.scope``, seed 004: "working memory — scope: session"): how long
the working memory lives, i.e. which notes a session end distills (``working_set``):

* ``session`` (seed 004's value, the default) — the working memory is the session's own: its
  end distills the notes *this* session wrote since its last summary; another session's notes
  on the same day are never folded into it (they had their own end);
* ``task`` — the working memory is the task's, and a task is the day's work in this scope: a
  session end distills every note of the session's day (each session's own lines, not their
  summaries), so several short sessions on one task leave one summary of the whole task.

Promotion is decided for the notes in that set either way (a note already promoted is known
and not promoted again).

**Session end** (``session_end``, run by ``Memory.end_session`` when the policy's
``working_memory.distill`` is on): the session's notes are distilled into one ``summary`` line
(by rules; by the configured LLM when there is one and ``offline`` is not asked) and promotion is
decided at once for the notes this session wrote — the same ``plan_promotions`` sleep uses
(reused ≥ ``min_reuse`` counting every log, or asked for), applied as one undoable run
(``promote-…``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ProviderError
from ..providers.llm import LLM
from ..records import shorten

if TYPE_CHECKING:
    from ..ports import DailyLog
    from .promote import Note

__all__ = [
    "NOTE_KINDS",
    "SUMMARY_PROMPT",
    "SUMMARY_PROMPT_VERSION",
    "SessionEnd",
    "TurnNote",
    "append_lines",
    "distill",
    "distill_rules",
    "is_procedure",
    "turn_notes",
    "working_set",
]

NOTE_KINDS = ("decided", "procedure", "learned", "done", "summary")
NOTE_CHARS = 300  # a log line is a pointer to what happened, not a transcript

_SENTENCE = re.compile(r"(?<=[.!?;。！？；])\s*|\n+")
_DECIDED = re.compile(
    r"\b(?:let'?s (?:use|go with|switch|stick|keep|move|do)|we(?:'ll| will) (?:use|go with|"
    r"switch|stick|keep|move)|(?:we )?decided|(?:i|we) chose|going forward|from now on|"
    r"the decision is|settled on|agreed (?:on|to))\b"
    r"|决定|就用|改用|定了|以后都|统一用|选定",
    re.IGNORECASE,
)
_PROCEDURE = re.compile(
    r"\bfirst\b.{3,}\bthen\b|\bthen\b.{3,}\bfinally\b|(?:^|\s)1[.)]\s.+\s2[.)]\s|→|->"
    r"|\bstep \d|\bsteps?:|先.{1,40}(?:再|然后)|步骤|然后",
    re.IGNORECASE | re.DOTALL,
)
_DONE = re.compile(
    r"^(?:i(?:'ve| have)? (?:added|created|updated|fixed|ran|wrote|changed|removed|deleted|"
    r"moved|renamed|refactored|installed|configured|set up|stored|saved|noted|merged)"
    r"|i (?:just )?(?:did|finished|completed))\b|^done\b"
    r"|^(?:我)?(?:已经?|已)(?:完成|添加|修改|修复|更新|删除|运行|创建|保存|记下)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TurnNote:
    """One line the turn adds to the daily log."""

    kind: str
    text: str
    source: str = "inferred"  # "user" for what the person's own message said


def _sentences(text: str) -> list[str]:
    return [s.strip(" -*\t") for s in _SENTENCE.split(text) if s and s.strip(" -*\t")]


def is_procedure(text: str) -> bool:
    """Whether ``text`` gives ordered steps (first … then …, 1. … 2. …, 先…再…)."""
    return _PROCEDURE.search(text) is not None


def turn_notes(
    person: str,
    reply: str,
    learned: Iterable[tuple[str, str]] = (),
    *,
    explicit: Iterable[str] = (),
    writes: Iterable[str] = (),
) -> list[TurnNote]:
    """What a finished turn puts in the daily log (see the module docstring). ``learned``: the
    (statement, source) of each memory stored in the turn; ``explicit``: the person's sentences
    already stored as asked (``learned``, not decisions to note twice); ``writes``: the
    memory-tool writes the turn made ("create /memories/…"), noted as ``done``."""
    notes: list[TurnNote] = []
    seen: set[str] = set()

    def add(kind: str, text: str, source: str = "inferred") -> None:
        line = shorten(" ".join(text.split()), NOTE_CHARS)
        key = line.lower()
        if line and key not in seen:
            seen.add(key)
            notes.append(TurnNote(kind, line, source))

    skip = {" ".join(e.split()).lower() for e in explicit}
    whole = " ".join(person.split())
    if is_procedure(whole) and whole.lower() not in skip:
        add("procedure", whole, "user")  # steps are one unit: split, they would no longer be steps
    else:
        for sentence in _sentences(person):
            if sentence.lower() in skip or sentence.endswith(("?", "？")):
                continue  # stored already, or a question: a question settles nothing
            if is_procedure(sentence):
                add("procedure", sentence, "user")
            elif _DECIDED.search(sentence):
                add("decided", sentence, "user")
    for statement, source in learned:
        add("learned", statement, source)
    for write in writes:
        add("done", f"memory tool: {write}")
    for sentence in _sentences(reply):
        if _DONE.search(sentence):
            add("done", sentence)
    return notes


def append_lines(
    log: DailyLog, notes: Sequence[TurnNote], *, now: datetime, session: str | None
) -> Path | None:
    """Append ``notes`` to today's daily log of ``log`` as one write (the caller holds the
    scope's lock); ``None`` when there is nothing to note."""
    if not notes:
        return None
    when = now.astimezone(UTC)
    at = f", session {session}" if session else ""
    lines = "".join(f"- {when:%H:%M:%S}Z ({n.source}{at}, {n.kind}) {n.text}\n" for n in notes)
    return log.append(f"{when:%Y-%m-%d}", lines)


SUMMARY_PROMPT_VERSION = "working-summary-v1"
SUMMARY_PROMPT = """\
These are the notes an assistant kept while working on one task with a person (decisions,
procedures, what it learned and did). Write the task's state in one line of at most 60 words:
what was decided, what was done, what is still open. Keep names, numbers and the notes'
language. Answer with the line only.
"""


def distill_rules(kinds_texts: Sequence[tuple[str, str]]) -> str:
    """The offline ``summary`` line of a session's notes: how many of each kind, then the
    decisions and procedures themselves (they are what the next session needs)."""
    counts: dict[str, int] = {}
    for kind, _ in kinds_texts:
        counts[kind] = counts.get(kind, 0) + 1
    tally = ", ".join(f"{n} {k}" for k, n in counts.items())
    kept = [text for kind, text in kinds_texts if kind in ("decided", "procedure")]
    tail = ("; " + "; ".join(kept)) if kept else ""
    return shorten(f"{tally}{tail}", NOTE_CHARS)


@dataclass
class SessionEnd:
    """What ``Memory.end_session`` did: the session's notes, the distilled line (``by``: rules
    or the model), and the promotion run (``None``: nothing earned a long-term place)."""

    session: str
    notes: int = 0
    summary: str | None = None
    by: str | None = None
    run: str | None = None
    promoted: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)  # of ``promoted``: the skill memories

    def to_dict(self) -> dict[str, object]:
        return {
            "session": self.session,
            "notes": self.notes,
            "summary": self.summary,
            "by": self.by,
            "run": self.run,
            "promoted": list(self.promoted),
            "skills": list(self.skills),
        }

    def lines(self) -> list[str]:
        """What a person is told when the session ends (``memdir chat``): the summary line,
        the notes promoted and the skills made, with how to undo them; none when the session
        noted nothing."""
        if not self.notes:
            return []
        out = [f"session end: {self.notes} note(s) distilled ({self.by}): {self.summary}"]
        if self.promoted:
            out.append(f"promoted to long-term memory: {', '.join(self.promoted)}")
        if self.skills:
            out.append(
                f"skills made (offered when a matching task starts): {', '.join(self.skills)}"
            )
        if self.run:
            out.append(f"undo the promotion with `memdir undo {self.run}`")
        return out


def distill(notes: Sequence[tuple[str, str]], llm: LLM | None) -> tuple[str, str]:
    """The session's summary line and who wrote it: ``llm`` (falling back to the rules when it
    fails or answers nothing) or the rules."""
    if llm is not None:
        listed = "\n".join(f"- ({kind}) {text}" for kind, text in notes)
        try:
            answer = llm.complete(
                [{"role": "user", "content": f"{SUMMARY_PROMPT}\n<notes>\n{listed}\n</notes>"}],
                max_tokens=200,
            )
        except ProviderError:
            answer = None
        if answer is not None and answer.text.strip():
            return " ".join(answer.text.split()), f"llm:{llm.model_id}:{SUMMARY_PROMPT_VERSION}"
    return distill_rules(notes), "memdir-rules"


def working_set(notes: Sequence[Note], session: str, scope: str) -> list[Note]:
    """The notes a session end distills under ``working_memory.scope`` (see the module
    docstring): ``session`` — this session's since its last summary; ``task`` — when this
    session noted something since, every session's notes of that day, summaries left out."""
    mine = [n for n in notes if n.session == session]
    last = max((i for i, n in enumerate(mine) if n.kind == "summary"), default=-1)
    fresh = mine[last + 1 :]
    if scope == "task" and fresh:  # nothing new in this session: nothing to distill
        day = fresh[-1].day
        return [n for n in notes if n.day == day and n.kind != "summary"]
    return fresh
