"""Running extraction for a ``Memory``: the hot path, the background pass and crash pickup.

* **Hot path (G3).** ``capture_explicit`` runs the offline rules over what the person just wrote
  and stores explicit requests ("remember that …", "记住…") at once, returning the records so the
  agent can say what it stored. ``after_turn`` does the same for the finished turn (a request
  already captured is not stored twice: same session, same quote).
* **Background pass (G1/G2).** ``after_turn`` then queues the session on the worker and returns.
  The job extracts every finished turn not yet handled: one LLM call per turn when a model is
  configured (``llm.py``), the offline rules otherwise. Every proposal is applied through the
  ``Memory`` facade, so the guard sees it and the change log records it (actor ``extractor``).
* **Crash pickup.** Progress is kept per session (``state.py``); ``resume`` finds sessions whose
  file grew since and queues them, so turns pending when a process died are extracted next time.

Applying keeps the person's words on top (SPEC H3): an inference never updates or deletes a
memory whose source is the person, and nothing identical to an existing memory is added again.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ExtractionError, NotFoundError, ProviderError, RefusedError, ValidationError
from ..observe.otel import background_result, record_span
from ..records import default_scope, shorten, slugify
from ..sessions import Session, find_session, list_sessions
from . import revise, rules
from .llm import PROMPT_VERSION, Existing, Operation, plan_turn
from .revise import keys
from .state import (
    ExtractState,
    Failure,
    append_log,
    locked,
    mark_captured,
    take_captured,
    was_captured,
)
from .turns import Turn, finished_turns
from .vet import vet, with_evidence
from .worker import Worker

if TYPE_CHECKING:
    from ..history import Change
    from ..paths import Scope
    from ..ports import Store
    from ..providers.llm import LLM
    from ..recall import Hit
    from ..records import MemoryRecord

__all__ = ["Extraction", "Outcome", "SessionReport", "Writer"]

ACTOR = "extractor"
FULL_LIST = 60  # up to this many memories the model sees them all; past it, the recalled ones
RECALLED = 40


class Writer(Protocol):
    """What extraction asks of the facade it writes through: a ``Memory`` conforms. The runner
    depends on this port, not on the facade, so the facade builds its ``Extraction`` without
    an import circle; every write still goes through the facade's guarded methods."""

    def as_actor(self, actor: str) -> Writer: ...

    def sessions_dir(self) -> Path: ...

    def memory_guide(self) -> str: ...

    def store(self, scope: Scope) -> Store: ...

    def list(self) -> builtins.list[MemoryRecord]: ...

    def get(self, name: str, *, scope: Scope | None = None) -> MemoryRecord: ...

    def recall(
        self, query: str, *, top_k: int = 5, types: Iterable[str] = (), track: bool = True
    ) -> builtins.list[Hit]: ...

    def remember(
        self,
        text: str,
        *,
        type: str,
        description: str | None = None,
        why: str | None = None,
        how_to_apply: str | None = None,
        source: str = "user",
        confidence: str = "confirmed",
        quote: str | None = None,
        session: str | None = None,
        reason: str | None = None,
    ) -> MemoryRecord: ...

    def update(
        self, name: str, *, scope: Scope | None = None, reason: str | None = None, **fields: Any
    ) -> MemoryRecord: ...

    def forget(
        self, name: str, *, scope: Scope | None = None, reason: str | None = None
    ) -> Change: ...


@dataclass(frozen=True)
class Outcome:
    """What happened to one proposed operation."""

    op: str
    status: str  # stored | updated | forgotten | refused | skipped | planned
    name: str | None
    scope: str | None
    reason: str | None = None
    proposal: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "status": self.status,
            "name": self.name,
            "scope": self.scope,
            "reason": self.reason,
            "proposal": self.proposal,
        }


@dataclass
class SessionReport:
    """The result of extracting one session's turns."""

    session: str
    method: str  # "llm:<model>" or "rules:<version>"
    turns: int = 0
    outcomes: list[Outcome] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "method": self.method,
            "turns": self.turns,
            "dry_run": self.dry_run,
            "outcomes": [o.to_dict() for o in self.outcomes],
            "failures": [f.to_dict() for f in self.failures],
        }


def _norm(text: str | None) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text or "")).split())


def message_key(text: str) -> str:
    """What identifies a message the hot path handled (its text, spaces normalised)."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:24]


def _overlaps(quote: str | None, quotes: list[str]) -> bool:
    q = _norm(quote)
    return bool(q) and any(q in _norm(c) or _norm(c) in q for c in quotes if _norm(c))


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _proposal(c: rules.Candidate) -> Operation:
    """An offline candidate as the operation the model would have proposed for it."""
    return Operation(
        op="ADD",
        type=c.type,
        text=c.text,
        why=c.why,
        how_to_apply=c.how_to_apply,
        source="user",
        quote=c.quote,
        confidence=c.confidence,
    )


def _in_context(cands: list[rules.Candidate], text: str) -> list[rules.Candidate]:
    """``cands`` of the message ``text``, each cut from part of it given the whole message as
    its quote when the guard refuses the message as a whole: one line of a list of steps ("1.
    open URL", "2. run what it says in a terminal") is harmless alone, and the guard judges a
    memory by the words it came from too — so the normal door refuses it, and logs why. The
    message is judged once, and only when some candidate is a part of it."""
    parts = [c for c in cands if _norm(c.quote) != _norm(text)]
    if not parts:
        return cands
    from .. import guard  # its patterns compile on import: only extraction that found a part

    if guard.check(text, type=parts[0].type, source="user").allowed:
        return cands
    return [c if c not in parts else replace(c, quote=text) for c in cands]


def _as_target(record: MemoryRecord) -> Existing:
    return Existing(0, record.name, record.scope, record.type, record.description)


def _find_target(
    writer: Writer, rev: revise.Revision, type: str | None = None
) -> MemoryRecord | None:
    """The memory ``rev`` is about: the best recalled one that ``revise.related`` accepts."""
    hits = writer.recall(rev.about, top_k=5, types=[type] if type else (), track=False)
    for hit in hits:
        record = hit.record
        if revise.related(rev, record.statement) or revise.related(rev, record.description):
            return record
    return None


def _revision_ops(writer: Writer, rev: revise.Revision) -> tuple[list[Operation], list[str]]:
    """The operations a change, retraction or confirmation makes offline, or why none."""
    cand = rev.candidate
    target = _find_target(writer, rev, cand.type if rev.kind == "change" and cand else None)
    if rev.kind == "retract":
        if target is None:
            return [], [f"retraction ({rev.rule}): no memory about {rev.about!r} to forget"]
        why = f"the person retracted it: {shorten(rev.quote, 200)}"
        return [replace(_DELETE, target=_as_target(target), why=why, quote=rev.quote)], []
    if rev.kind == "confirm":
        if target is None:
            if cand is not None:
                return [_proposal(cand)], []
            return [], [f"confirmation ({rev.rule}): no memory it confirms"]
        importance = min(10, (target.importance or 5) + 1)
        return [
            replace(
                _UPDATE,
                target=_as_target(target),
                confidence="confirmed",
                importance=importance,
                why=None,
                quote=None,
            )
        ], []
    assert cand is not None
    if target is None or _norm(target.statement) == _norm(cand.text):
        return [_proposal(cand)], []
    op = replace(
        _proposal(cand),
        op="UPDATE",
        target=_as_target(target),
        description=shorten(cand.text, at_word=True),
    )
    return [op], []


_DELETE = Operation(op="DELETE", source="user")
_UPDATE = Operation(op="UPDATE", source="user")


def _offline_ops(
    writer: Writer, turn: Turn, previous: str | None
) -> tuple[list[Operation], list[str]]:
    """What the rules make of a turn: new memories, and (issue 21) changes, retractions and
    confirmations of existing ones, each found by recall. The sentence of a revision is not
    also read as a new memory ("别再记住 Redis 那条了" is not a rule to store)."""
    ops: list[Operation] = []
    notes: list[str] = []
    for text in turn.user:
        revs = revise.revisions(text, previous_assistant=previous)
        quotes = [r.quote for r in revs]
        found = [c for c in rules.extract(text, previous_assistant=previous)
                 if not _overlaps(c.quote, quotes)]  # fmt: skip
        ops += [_proposal(c) for c in _in_context(found, text)]
        for rev in revs:
            more, why = _revision_ops(writer, rev)
            ops += more
            notes += why
    return ops, notes


def _rules_floor(
    writer: Writer, turn: Turn, previous: str | None, planned: list[Operation]
) -> tuple[list[Operation], list[Operation]]:
    """With a model configured (issue 21, L2), the rules are the floor under its plan: what a
    model misses is not lost by configuring one. Return (revisions, facts):

    * the changes and retractions the rules find, for memories the plan does not touch — a
      small model plans ADD or NONE for "Forget the staging database fact" (SmolLM2-135M), and
      a missed retraction keeps what the person took back; confirmations are left to the model
      (nothing is lost without them);
    * the new memories the rules find that nothing planned says — no operation quotes the
      words a candidate came from, and none says most of what it says (SmolLM2 plans nothing
      for "I prefer answers in British English"). A sentence read as a revision is the
      revision's."""
    touched = {(op.target.scope, op.target.name) for op in planned if op.target is not None}
    revisions: list[Operation] = []
    read = [(text, revise.revisions(text, previous_assistant=previous)) for text in turn.user]
    for _, revs in read:
        for rev in revs:
            if rev.kind == "confirm":
                continue
            for op in _revision_ops(writer, rev)[0]:
                if op.target is not None and (op.target.scope, op.target.name) not in touched:
                    touched.add((op.target.scope, op.target.name))
                    revisions.append(op)
    quotes = [op.quote for op in (*planned, *revisions) if op.quote]
    said = [keys(op.text) for op in (*planned, *revisions) if op.text]
    facts: list[Operation] = []
    for text, revs in read:
        taken = [r.quote for r in revs]
        found = [
            c
            for c in rules.extract(text, previous_assistant=previous)
            if not _overlaps(c.quote, taken)
            and not _overlaps(c.quote, quotes)
            and not _said(keys(c.text), said)
        ]
        facts += [_proposal(c) for c in _in_context(found, text)]
    return revisions, facts


def _said(words: set[str], said: list[set[str]]) -> bool:
    """Whether one of ``said`` holds at least half of ``words``."""
    return bool(words) and any(len(words & other) * 2 >= len(words) for other in said)


class Extraction:
    """Extraction for one ``Memory`` (made by the facade; use its methods)."""

    def __init__(self, memory: Writer, llm: LLM | None) -> None:
        self.memory = memory
        self.llm = llm
        self._writer: Writer | None = None
        self._bg_writer: Writer | None = None
        self._worker: Worker | None = None
        # the hot path and the background thread both add: the duplicate check and the write
        # are one step, so a request caught by both at the same moment is stored once
        self._adding = threading.Lock()
        self._dropped: list[Outcome] = []

    # -- the writer the extractor's changes go through (actor "extractor") ----------------
    def _clone(self) -> Writer:
        # its own facade (own stores, own index connections) for the thread that writes
        return self.memory.as_actor(ACTOR)

    @property
    def writer(self) -> Writer:
        if self._writer is None:
            self._writer = self._clone()
        return self._writer

    # -- hot path -------------------------------------------------------------------------
    def capture_explicit(self, text: str, *, session: str | None = None) -> list[MemoryRecord]:
        """Store the explicit memory requests in ``text`` now; return what was stored.

        With ``session``, the message is marked as handled (``state.mark_captured``) so
        ``after_turn`` and the background pass do not store it again."""
        found = _in_context(rules.explicit_requests(text), text)
        stored: list[MemoryRecord] = []
        for cand in found:
            outcome = self._apply(
                self.writer, _proposal(cand), session, f"explicit request ({rules.RULES_VERSION})"
            )
            if outcome.status == "stored" and outcome.name and outcome.scope:
                stored.append(self.writer.get(outcome.name, scope=outcome.scope))  # type: ignore[arg-type]
        if session and found:
            mark_captured(
                self.memory.sessions_dir(), session, message_key(text), [c.quote for c in found]
            )
        return stored

    def after_turn(self, session: Session) -> list[MemoryRecord]:
        turns = finished_turns(session.messages)
        stored: list[MemoryRecord] = []
        if turns:
            folder = self.memory.sessions_dir()
            for text in turns[-1].user:
                # a message the agent loop already passed to capture_explicit is not read again
                if not was_captured(folder, session.id, message_key(text)):
                    stored += self.capture_explicit(text, session=session.id)
        if self._worker is None:
            self._worker = Worker()
            # the first turn of this process also picks up what an earlier one left pending
            # (a crash, or an exit before its worker ran) — found in the background
            self._worker.submit(self._background_pending)
        session_id = session.id
        self._worker.submit(lambda: self._background(session_id))
        return stored

    def _background_pending(self) -> None:
        for session_id in self.pending():
            self._background(session_id)

    def _background(self, session_id: str) -> None:
        # one facade for the worker thread, kept across jobs (its stores, index connections and
        # loaded embedder are the thread's own)
        if self._bg_writer is None:
            self._bg_writer = self._clone()
        writer = self._bg_writer
        worker = self._worker

        def attributes() -> dict[str, str | int]:  # only asked for when telemetry is on
            queued = worker.pending() - 1 if worker is not None else 0  # this job aside
            return {"memdir.extract.kind": "background", "memdir.session": session_id,
                    "memdir.extract.queued": max(0, queued)}  # fmt: skip

        try:
            record_span(
                "memdir.extract.background",
                attributes,
                lambda: self.run_session(session_id, writer=writer),
                background_result,
            )
        except NotFoundError:
            return  # the session was pruned before its turn came: nothing left to read

    def flush(self, timeout: float | None = None) -> bool:
        return self._worker.flush(timeout) if self._worker else True

    # -- a whole session ------------------------------------------------------------------
    def run_session(
        self,
        session_id: str,
        *,
        writer: Writer | None = None,
        dry_run: bool = False,
        everything: bool = False,
        offline: bool = False,
        on_turn: Callable[[int, int, ExtractState], None] | None = None,
    ) -> SessionReport:
        """Extract the turns of ``session_id`` not handled yet (and those that failed);
        ``everything`` reads every turn again; ``dry_run`` plans without writing.
        ``on_turn(handled, to_handle, state)`` after each turn's state is saved (a background
        job records its progress there)."""
        writer = writer or self.writer
        llm = None if offline else self.llm
        method = f"llm:{llm.model_id}" if llm else f"rules:{rules.RULES_VERSION}"
        folder = self.memory.sessions_dir()
        path = find_session(folder, session_id, archived=True)
        report = SessionReport(path.stem, method, dry_run=dry_run)
        # a dry run only reads: no lock file, no state written
        with contextlib.nullcontext() if dry_run else locked(folder, path.stem):
            state = ExtractState.load(folder, path.stem)
            session = Session.open(path, write=False)
            turns = finished_turns(session.messages)
            retry = {f.turn for f in state.failed}
            todo = [
                i
                for i, turn in enumerate(turns)
                if everything or turn.end > state.done or turn.key in retry
            ]
            for i in todo:
                turn = turns[i]
                report.turns += 1
                previous = turns[i - 1].assistant[-1] if i and turns[i - 1].assistant else None
                self._run_turn(writer, llm, turn, previous, path.stem, state, report)
                if not dry_run:
                    state.done = max(state.done, turn.end)
                    state.save()
                    if on_turn is not None:
                        on_turn(report.turns, len(todo), state)
            if not dry_run:
                state.size = path.stat().st_size
                state.save()
        return report

    def _run_turn(
        self,
        writer: Writer,
        llm: LLM | None,
        turn: Turn,
        previous: str | None,
        session_id: str,
        state: ExtractState,
        report: SessionReport,
    ) -> None:
        floor: list[Operation] = []
        try:
            invalid: list[str] = []
            if llm is None:
                ops, invalid = _offline_ops(writer, turn, previous)
            else:
                plan = plan_turn(llm, turn, self._existing(writer, turn, session_id))
                ops, invalid = self._checked(writer, plan.operations, turn, report), plan.invalid
                revisions, floor = _rules_floor(writer, turn, previous, ops)
                ops += revisions + floor
        except (ExtractionError, ProviderError) as exc:
            failure = Failure(
                turn=turn.key,
                time=_now(),
                error=str(exc),
                model=llm.model_id if llm else None,
                prompt=PROMPT_VERSION,
                raw=getattr(exc, "raw", ""),
            )
            report.failures.append(failure)
            if not report.dry_run:
                state.fail(failure)
            return
        state.resolve(turn.key)
        ops = self._without_captured(ops, turn, session_id, report)
        report.outcomes += [
            Outcome("?", "skipped", None, None, why if llm is None else f"invalid: {why}")
            for why in invalid
        ]
        method = f"{report.method}, {PROMPT_VERSION}" if llm else report.method
        why = f"session {session_id} turn {turn.key} ({method})"
        ruled = f"session {session_id} turn {turn.key} (rules:{rules.RULES_VERSION}: {method} "
        ruled += "left it out)"
        first = len(report.outcomes)
        for op in ops:
            if report.dry_run:
                target = op.target
                report.outcomes.append(
                    Outcome(
                        op.op,
                        "planned",
                        target.name if target else None,
                        target.scope if target else None,
                        None,
                        op.to_dict(),
                    )
                )
            else:
                by = ruled if any(op is f for f in floor) else why
                report.outcomes.append(self._apply(writer, op, session_id, by))
        if not report.dry_run:
            self._log(session_id, turn, report, since=first)

    def _log(self, session_id: str, turn: Turn, report: SessionReport, *, since: int) -> None:
        """The operations of this turn that were not applied, with why, in the extraction log
        (``state.append_log``); the dropped ones were put in the report before ``since``."""
        kept = ("stored", "updated", "forgotten", "planned")
        entries = [
            {"time": _now(), "turn": turn.key, "method": report.method, **o.to_dict()}
            for o in [*self._dropped, *report.outcomes[since:]]
            if o.status not in kept
        ]
        self._dropped = []
        append_log(self.memory.sessions_dir(), session_id, entries)

    def _checked(
        self, writer: Writer, ops: list[Operation], turn: Turn, report: SessionReport
    ) -> list[Operation]:
        """The model's operations that pass ``vet`` (each given its evidence first); the others
        are reported as skipped with the reason."""
        guide = writer.memory_guide()
        kept: list[Operation] = []
        for op in ops:
            op = with_evidence(op, turn, op.target.description if op.target else "")
            reason = vet(op, turn, guide=guide)
            if reason is None:
                kept.append(op)
                continue
            target = op.target
            outcome = Outcome(
                op.op,
                "skipped",
                target.name if target else None,
                target.scope if target else None,
                f"dropped: {reason}",
                op.to_dict(),
            )
            report.outcomes.append(outcome)
            self._dropped.append(outcome)
        return kept

    def _without_captured(
        self, ops: list[Operation], turn: Turn, session_id: str, report: SessionReport
    ) -> list[Operation]:
        """``ops`` less the requests the hot path stored from this turn's messages already
        (matched by quote), each reported as skipped; the hot path's marks are used up."""
        if report.dry_run:
            return ops
        keys = [message_key(text) for text in turn.user]
        taken = take_captured(self.memory.sessions_dir(), session_id, keys)
        quotes = [q for qs in taken.values() for q in qs]
        if not quotes:
            return ops
        kept: list[Operation] = []
        for op in ops:
            if op.op == "ADD" and _overlaps(op.quote, quotes):
                report.outcomes.append(
                    Outcome(
                        op.op, "skipped", None, None, "stored already by the hot path", op.to_dict()
                    )
                )
            else:
                kept.append(op)
        return kept

    def _existing(self, writer: Writer, turn: Turn, session_id: str) -> list[Existing]:
        records = writer.list()
        if len(records) > FULL_LIST:
            query = " ".join(turn.user)[:2000]
            picked = (
                {
                    (h.record.scope, h.record.name): h.record
                    for h in writer.recall(query, top_k=RECALLED, track=False)
                }
                if query.strip()
                else {}
            )
            for r in records:
                if r.session == session_id:
                    picked[(r.scope, r.name)] = r
            records = list(picked.values())
        return [
            Existing(i + 1, r.name, r.scope, r.type, r.description) for i, r in enumerate(records)
        ]

    # -- applying one operation -----------------------------------------------------------
    def _apply(self, writer: Writer, op: Operation, session: str | None, why: str) -> Outcome:
        proposal = op.to_dict()
        try:
            if op.op == "ADD":
                return self._add(writer, op, session, why, proposal)
            assert op.target is not None  # parse_operations guarantees it
            target = writer.get(op.target.name, scope=op.target.scope)  # type: ignore[arg-type]
            if target.source == "user" and op.source != "user":
                return Outcome(
                    op.op,
                    "skipped",
                    target.name,
                    target.scope,
                    "an inference never overrides the person's own words",
                    proposal,
                )
            if op.op == "DELETE":
                # the turn and the person's words that caused it, in the change log (undoable)
                said = f"; quote: {shorten(op.quote, 200)}" if op.quote else ""
                writer.forget(
                    target.name,
                    scope=target.scope,
                    reason=f"extractor: {op.why or 'retracted'} — {why}{said}",
                )
                return Outcome(op.op, "forgotten", target.name, target.scope, op.why, proposal)
            fields: dict[str, Any] = {
                k: v
                for k, v in (
                    ("statement", op.text),
                    ("description", op.description),
                    ("why", op.why),
                    ("how_to_apply", op.how_to_apply),
                    ("importance", op.importance),
                )
                if v
            }
            if op.source == "user" and op.quote:
                # the memory now says what the person said in this turn: quote and source too
                fields.update(quote=op.quote, source="user")
                if session:
                    fields["session"] = session
            record = writer.update(
                target.name, scope=target.scope, reason=why, confidence=op.confidence, **fields
            )
            return Outcome(op.op, "updated", record.name, record.scope, None, proposal)
        except RefusedError as exc:
            return Outcome(op.op, "refused", None, None, str(exc), proposal)
        except (ValidationError, NotFoundError) as exc:
            return Outcome(op.op, "skipped", None, None, str(exc), proposal)

    def _add(
        self, writer: Writer, op: Operation, session: str | None, why: str, proposal: dict[str, Any]
    ) -> Outcome:
        with self._adding:
            return self._add_once(writer, op, session, why, proposal)

    def _add_once(
        self, writer: Writer, op: Operation, session: str | None, why: str, proposal: dict[str, Any]
    ) -> Outcome:
        assert op.type is not None and op.text is not None
        same = _same_statement(writer, op)
        if same is not None:
            return Outcome(op.op, "skipped", same.name, same.scope, "already remembered", proposal)
        record = writer.remember(
            op.text,
            type=op.type,
            description=op.description,
            why=op.why,
            how_to_apply=op.how_to_apply,
            source=op.source,
            quote=op.quote if op.source == "user" else None,
            confidence=op.confidence,
            session=session,
            reason=why,
        )
        return Outcome(op.op, "stored", record.name, record.scope, None, proposal)

    # -- crash pickup and reporting -------------------------------------------------------
    def pending(self, *, within: timedelta = timedelta(days=30)) -> list[str]:
        """Sessions with turns not yet extracted: the file grew since its state was saved."""
        folder = self.memory.sessions_dir()
        cutoff = datetime.now(UTC) - within
        out: list[str] = []
        for info in list_sessions(folder):
            if info.idle_since < cutoff:
                continue
            state = ExtractState.load(folder, info.id)
            if state.size == info.size:
                continue
            done = finished_turns(Session.open(info.path, write=False).messages)
            if any(t.end > state.done for t in done):
                out.append(info.id)
        return out

    def resume(self) -> list[str]:
        """Queue every session with pending turns on the background worker."""
        ids = self.pending()
        if ids and self._worker is None:
            self._worker = Worker()
        for session_id in ids:
            assert self._worker is not None
            self._worker.submit(lambda s=session_id: self._background(s))  # type: ignore[misc]
        return ids


def _same_statement(writer: Writer, op: Operation) -> MemoryRecord | None:
    """A memory that already says ``op.text``, found by name, not by a scan: a new memory is
    named after its description (default: the statement shortened), so an identical statement
    lives under that name or one of its first numbered variants."""
    assert op.type is not None and op.text is not None
    scope = default_scope(op.type)
    want = _norm(op.text)
    bases = {
        slugify(op.description or shorten(op.text, at_word=True)),
        slugify(shorten(op.text, at_word=True)),
    }
    store = writer.store(scope)
    for base in bases:
        for name in [base] + [f"{base}-{n}" for n in range(2, 5)]:
            if not store.exists(name):
                break
            try:
                record = writer.get(name, scope=scope)
            except (NotFoundError, ValidationError):
                continue
            if _norm(record.statement) == want:
                return record
    return None
