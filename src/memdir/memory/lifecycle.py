"""``Memory``: the one facade, and its lifecycle part (sleep, archive, confirm, daily log)."""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import (
    BadFileError,
    ConfigError,
    ExtractionError,
    NotFoundError,
    RefusedError,
    ValidationError,
)
from ..files import FileStore
from ..history import Change
from ..observe.otel import (
    extract_attributes,
    hits_attributes,
    recall_attributes,
    sleep_attributes,
    sleep_result,
    traced,
    write_attributes,
)
from ..paths import Scope
from ..recall import Hit, Recaller, parse_time
from ..records import (
    MemoryRecord,
)
from ..sessions import (
    Distill,
    PruneReport,
    Record,
    Session,
    find_session,
)

if TYPE_CHECKING:
    from ..jobs import Job, JobQueue
    from ..lifecycle import SleepReport
    from ..lifecycle.offer import Offer
    from ..lifecycle.plan import SleepIndex
    from ..lifecycle.promote import Note
    from ..lifecycle.working import SessionEnd, TurnNote
    from ..observe import SessionTrace, Stats
    from ..observe.toollog import ToolLog
    from ..providers.llm import LLM

from .sessions import ConversationMemory

__all__ = ["Memory"]


def _names(value: object) -> builtins.list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


class Memory(ConversationMemory):
    """Long-term memory for one person and (optionally) one project.

    ``home`` defaults to ``$MEMDIR_HOME`` or ``~/.agent``; the project is ``project`` if given,
    else found from ``cwd`` (nearest ancestor with ``.agent/`` or ``.git/``). ``actor`` is
    recorded in the change log for every write made through this object.
    """

    # -- sleep (issue 5) --
    def _whole(self, scope: Scope) -> SleepIndex:
        """The index of ``scope`` as sleep reads it: every vector at once, to compare every
        pair (``lifecycle.plan.SleepIndex``: both backends' indexes offer it)."""
        from ..lifecycle.plan import SleepIndex

        index = self.index(scope)
        if not isinstance(index, SleepIndex):
            raise ConfigError(
                f"sleep needs every memory vector at once, which the {self.backend.name} "
                "backend's index does not offer"
            )
        return index

    def _sleep_scopes(self, scope: Scope | None) -> builtins.list[Scope]:
        return [scope] if scope else self.scopes()

    def last_activity(self) -> datetime | None:
        """When a session of this project last had a message (``None``: no sessions)."""
        return max((info.idle_since for info in self.sessions()), default=None)

    def sleep(
        self,
        *,
        dry_run: bool = False,
        now: datetime | None = None,
        if_quiet: timedelta | None = None,
        scope: Scope | None = None,
        offline: bool = False,
        sessions: bool = True,
    ) -> SleepReport:
        """Consolidate (SPEC H2–H7): plan merges, conflict resolutions, archiving and deletions
        from the files, the index and ``now``; apply them in one step unless ``dry_run``. The
        report's ``run`` id undoes the whole run (``undo_run``). ``if_quiet``: do nothing unless
        no session had activity for that long. ``offline`` ignores a configured LLM.
        ``sessions``: sessions past the retention window are distilled (extraction runs over
        them) and then archived (SPEC C6); the report's ``notes`` say which."""
        from ..lifecycle import (
            LLMJudge,
            SleepReport,
            apply_plan,
            new_run_id,
            plan_sleep,
            take_snapshot,
        )

        now = now or datetime.now(UTC)
        if if_quiet is not None:
            last = self.last_activity()
            if last is not None and now - last < if_quiet:
                idle = max(int((now - last).total_seconds() // 60), 0)
                return SleepReport(
                    None,
                    dry_run=dry_run,
                    skipped=f"not quiet: last session activity {idle} min ago",
                )
        policy = self.policy()
        limits = {"project": policy.long_memory.project, "user": policy.long_memory.user}
        scopes = self._sleep_scopes(scope)
        states = [take_snapshot(self.store(s), self._whole(s), limits[s].max_chars) for s in scopes]
        llm = None if offline else self.llm
        plan = plan_sleep(
            states, policy=policy, now=now, judge=LLMJudge(llm) if llm is not None else None
        )
        report = SleepReport(plan, dry_run=dry_run)
        if not dry_run and plan.ops:
            report.run = new_run_id(now)
            stores = {s: self.store(s) for s in scopes}
            report.changes = apply_plan(  # actor "sleep"
                plan, stores, run=report.run, moves=report.moves
            )
        if sessions:
            report.notes += self._expire_sessions(dry_run=dry_run, now=now, offline=offline)
        return report

    def _expire_sessions(
        self, *, dry_run: bool, now: datetime, offline: bool
    ) -> builtins.list[str]:
        """C6: each session past retention goes through extraction, then to the archive (or
        away, if the policy says delete). A session whose extraction failed stays put."""

        pruned = self.prune_sessions(dry_run=dry_run, now=now, offline=offline)
        if dry_run:
            return [
                f"session {a.session.id}: {a.reason} — would be distilled, then {a.action}d"
                for a in pruned.plan
            ]
        notes = [
            f"session {a.session.id}: {'distilled, then ' if a.distill else ''}{a.action}d"
            for a in pruned.done
        ]
        notes += [f"session {a.session.id}: kept ({why})" for a, why in pruned.skipped]
        return notes

    consolidate = sleep  # the alias SPEC H7 names

    def prune_sessions(
        self,
        older_than: timedelta | None = None,
        *,
        dry_run: bool = False,
        distill: Distill | None = None,
        now: datetime | None = None,
        offline: bool = False,
    ) -> PruneReport:
        """C6 retention that never loses what was asked for (issue 22): each expiring session is
        extracted first (``distill``, by default extraction of its turns not yet done — rules
        offline, the LLM where one is configured), then archived or deleted; a session whose
        extraction failed stays where it is."""

        def extract(session: Session) -> None:
            from ..extract.turns import finished_turns

            turns = finished_turns(session.messages)
            said = [i for i, m in enumerate(session.messages) if m.get("role") == "user"]
            if said and (not turns or said[-1] >= turns[-1].end):
                raise ExtractionError(
                    f"session {session.path.stem} ends on a message that was never answered, so "
                    "it was never extracted; it stays: answer it (`memdir sessions resume`) or "
                    "delete it yourself (`rm`) once nothing in it is needed"
                )
            done = self.extract_session(session.path.stem, offline=offline)
            if done.failures:
                raise ExtractionError(
                    f"extraction of session {session.path.stem} failed "
                    f"({done.failures[0].error}); it stays until `memdir extract` succeeds"
                )

        return super().prune_sessions(
            older_than, dry_run=dry_run, distill=distill or extract, now=now
        )

    def undo_run(self, run: str) -> builtins.list[Change]:
        """Revert every change of one run (``sleep-…``, ``confirm-…``, ``undo-…``) in every
        scope, newest first: all of it, or — if a file moved on since — nothing."""
        from ..lifecycle import undo_run

        stores = {s: self.store(s) for s in self.scopes()}
        return undo_run(stores, run.strip(), actor=self.actor)

    def tentative(self, *, scope: Scope | None = None) -> builtins.list[MemoryRecord]:
        """Memories marked ``tentative`` (a conflict sleep could not settle, or an uncertain
        extraction), waiting for the person to confirm or drop them."""
        return [r for r in self.list(scope=scope) if r.confidence == "tentative"]

    def confirm(
        self,
        name: str,
        *,
        drop: bool = False,
        scope: Scope | None = None,
        now: datetime | None = None,
    ) -> builtins.list[Change]:
        """Settle a tentative memory with one call, as one undoable run (``confirm-…``):
        confirm it (its rivals, the memories it conflicted with, are archived as superseded),
        or ``drop`` it (it is deleted and its rivals lose the conflict mark)."""
        from ..lifecycle import settle

        store = self._locate(name, scope)
        return settle(store, name, drop=drop, now=now or datetime.now(UTC), actor=self.actor)

    def log_note(
        self,
        text: str,
        *,
        scope: Scope | None = None,
        source: str = "user",
        session: str | None = None,
        now: datetime | None = None,
    ) -> Path:
        """Append a note to today's daily log (``<scope>/log/YYYY-MM-DD.md``, append-only;
        the project's by default). Sleep promotes notes reused ``promotion.min_reuse`` times or
        asked for ("remember: …", "!"), and turns one seen in ``promotion.rule_sessions``
        sessions into a feedback rule (SPEC H6)."""
        from ..lifecycle import append_note

        if not isinstance(text, str) or not text.strip():
            raise ValidationError("the note is empty: say what to note")
        if source not in ("user", "inferred"):
            raise ValidationError(f"a note's source is user or inferred (got {source!r})")
        target = scope or ("project" if self.project_root is not None else "user")
        safe = self._guard(target, "log", type="project", source=source, parts={"text": text})
        store = self.store(target)
        with store.locked():
            return append_note(
                store.daily_log(),
                safe["text"] or "",
                now=now or datetime.now(UTC),
                source=source,
                session=session,
            )

    def archived(self, *, scope: Scope | None = None) -> builtins.list[MemoryRecord]:
        """The memories in each scope's ``archive/`` (still readable, out of the guide)."""
        return [r for s in self._sleep_scopes(scope) for r in self.store(s).archived().scan()[0]]

    def recall_archived(
        self,
        query: str,
        *,
        top_k: int = 5,
        scopes: Iterable[Scope] | None = None,
        types: Iterable[str] = (),
        tags: Iterable[str] = (),
        since: str | None = None,
        until: str | None = None,
        explain: bool = False,
    ) -> builtins.list[Hit]:
        """``recall`` over the archived memories only (``recall --archived``), with their own
        index under ``archive/.index/``. Not tracked: a memory found in the archive gains no
        use until it is restored."""
        chosen = tuple(sorted(scopes if scopes is not None else self.scopes()))
        indexes = {}
        for s in chosen:
            store = self.store(s)
            if isinstance(store, FileStore) and not store.has_archive():
                continue  # nothing archived: reading creates no index (nor a directory)
            if s not in self._archive_indexes:
                self._archive_indexes[s] = self.backend.index(
                    self.store(s).archived(), self.embedder
                )
            indexes[s] = self._archive_indexes[s]
        if not indexes:
            return []
        stores = {s: self.store(s).archived() for s in indexes}
        hits = Recaller(indexes, self.embedder, stores=stores).recall(
            query,
            top_k=top_k,
            types=types,
            tags=tags,
            since=parse_time(since),
            until=parse_time(until),
            track=False,
        )
        return hits if explain else [Hit(h.record, h.score) for h in hits]

    def forget(self, name: str, *, scope: Scope | None = None, reason: str | None = None) -> Change:
        """Delete a memory (undoable) — and flag for review every memory sleep merged or
        distilled from it (issue 22): nothing the person deleted lives on unseen in a summary.
        Each is marked ``tentative`` with a ``review`` note; ``memdir confirm NAME`` keeps it."""
        change = super().forget(name, scope=scope, reason=reason)
        self._review_built_from(name)
        return change

    def _review_built_from(self, name: str) -> None:
        for rec in self._built_from(name):
            if name not in _names(rec.extra.get("merged_from")) or rec.confidence == "tentative":
                continue
            self.update(
                rec.name,
                scope=rec.scope,
                reason=f"built in part from {name!r}, which was forgotten",
                confidence="tentative",
                review=f"built in part from {name}, which was forgotten: check it keeps nothing "
                "you wanted gone, then `memdir confirm` it (or edit it)",
            )

    def _built_from(self, name: str) -> builtins.list[MemoryRecord]:
        """The memories that may have been built from ``name``: in a file scope, those its
        MEMORY.md pass finds naming it (no file is parsed that has not changed); elsewhere,
        every memory (the caller checks each)."""
        found: builtins.list[MemoryRecord] = []
        for scope in self.scopes():
            store = self.store(scope)
            if not isinstance(store, FileStore):
                found += self.list(scope=scope)
                continue
            for stem in store.built_from(name):
                with contextlib.suppress(NotFoundError, BadFileError):  # gone or bad since
                    found.append(store.read(stem))
        return found

    def recall_as_of(
        self, query: str, when: str, *, top_k: int = 5, scopes: Iterable[Scope] | None = None
    ) -> builtins.list[Hit]:
        """What held at ``when`` (``recall --as-of``, issue 22): memories created by then and
        not yet valid only later, plus archived ones superseded after ``when``."""
        stamp = parse_time(when)
        if stamp is None:
            raise ValidationError(f"--as-of needs a date such as 2026-03-01 (got {when!r})")

        def held(rec: MemoryRecord, archived: bool) -> bool:
            since, until = rec.extra.get("valid_from"), rec.extra.get("valid_to")
            if isinstance(since, str) and since > stamp:
                return False
            if archived:  # only a superseded memory held before it was archived
                return isinstance(until, str) and until > stamp
            return not (isinstance(until, str) and until <= stamp)

        wide = max(top_k * 4, 20)
        hits = [
            h
            for h in self.recall(query, top_k=wide, scopes=scopes, until=stamp, track=False)
            if held(h.record, False)
        ]
        hits += [
            h
            for h in self.recall_archived(query, top_k=wide, scopes=scopes, until=stamp)
            if held(h.record, True)
        ]
        return sorted(hits, key=lambda h: -h.score)[:top_k]

    def supersession(self, name: str) -> builtins.list[MemoryRecord]:
        """The chain a memory belongs to, oldest first: what it superseded and what superseded
        it (``memdir history NAME``); just the memory when it has none."""
        every = {r.name: r for r in (*self.archived(), *self.list())}
        if name not in every:
            return []
        first = every[name]
        seen = {first.name}
        while True:  # walk back to the oldest
            older = [n for n in _names(first.extra.get("supersedes")) if n in every]
            if not older or older[0] in seen:
                break
            first = every[older[0]]
            seen.add(first.name)
        chain = [first]
        while isinstance(nxt := chain[-1].extra.get("superseded_by"), str) and nxt in every:
            if nxt in {r.name for r in chain}:
                break
            chain.append(every[nxt])
        return chain

    def restore(self, name: str, *, scope: Scope | None = None) -> Change:
        """Bring an archived memory back among the others (undoable) — or, when none is
        archived under ``name``, put back the version memdir last wrote of a memory changed or
        deleted outside memdir (issue 26)."""
        for s in self._sleep_scopes(scope):
            archive = self.store(s).archived()
            if archive.exists(name):
                return self.store(s).restore(name, actor=self.actor, reason="restored by request")
        for s in self._sleep_scopes(scope):
            if any(c.name == name for c in self.store(s).log.entries()):
                return self.files(s, "restoring a hand-edited file").restore_version(
                    name, actor=self.actor
                )
        raise NotFoundError(
            f"no archived memory named {name!r}, and none in the history: see "
            "`memdir list --archived` and `memdir history`"
        )

    def forget_archived(
        self, name: str, *, scope: Scope | None = None, reason: str | None = None
    ) -> Change:
        """Delete an archived memory — the explicit command that the person's own words need
        (sleep never deletes them). Undoable like every change."""
        for s in self._sleep_scopes(scope):
            if self.store(s).archived().exists(name):
                change = self.store(s).delete_archived(
                    name, actor=self.actor, reason=reason or "forgotten by request"
                )
                self._review_built_from(name)  # issue 22: no summary keeps it unseen
                return change
        raise NotFoundError(f"no archived memory named {name!r}: see `memdir list --archived`")

    # -- the web page (issue 23) --
    def version(self, digest: str | None, *, scope: Scope) -> bytes | None:
        """The bytes a memory file had under content hash ``digest`` (a change's ``before`` or
        ``after``), from the scope's object store; ``None`` when there is none (a create's
        before, a delete's after)."""
        log = self.store(scope).log
        return log.load(digest) if digest and log.has(digest) else None

    def history_of(self, name: str, *, scope: Scope) -> builtins.list[Change]:
        """``history(name, scope=scope)``, decoding only the log lines that hold the name (the
        log is written with ``ensure_ascii=False``): one memory's page on a store with 10k
        changes parsed them all (bench/results/web.md)."""
        store = self.store(scope)
        if not isinstance(store, FileStore):  # a database looks the name up by its column
            return sorted((c for c in store.log.entries() if c.name == name), key=lambda c: c.time)
        return store.log.of(name)

    def apply_sleep_steps(
        self, steps: Iterable[int], *, scope: Scope | None = None, now: datetime | None = None
    ) -> SleepReport:
        """Apply only the chosen steps (by position) of the plan an offline sleep makes now:
        what a person accepted item by item. One run, undone with ``undo_run``."""
        import dataclasses

        from ..lifecycle import SleepReport, apply_plan, new_run_id

        now = now or datetime.now(UTC)
        plan = self.sleep(dry_run=True, now=now, scope=scope, offline=True, sessions=False).plan
        chosen = set(steps)
        if plan is None or not chosen <= set(range(len(plan.steps))):
            raise ValidationError("no such step in the plan sleep makes now: review it again")
        subset = dataclasses.replace(
            plan, steps=tuple(s for i, s in enumerate(plan.steps) if i in chosen)
        )
        report = SleepReport(subset)
        if subset.ops:
            report.run = new_run_id(now)
            stores = {s: self.store(s) for s in self._sleep_scopes(scope)}
            report.changes = apply_plan(subset, stores, run=report.run)
        return report

    # -- observability (issue 25) --
    def trace(self, session_id: str) -> SessionTrace:
        """What memory did in each turn of session ``session_id`` (archived ones too): the
        guide seen, memories recalled, opened and read, what the answer used, what the turn
        wrote (``observe.trace``). ``NotFoundError`` for an unknown id."""
        try:
            session = self.read_session(session_id)
        except NotFoundError as missing:  # an MCP server's log of calls (observe.toollog)?
            folder = self.sessions_dir() / "mcp"
            try:
                found = find_session(folder, session_id, archived=True)
                session = Session.open(found, write=False)
            except NotFoundError:
                raise missing from None
        return self._trace_of(session.id, session.records, self._extracted())

    def tool_log(self) -> ToolLog:
        """Where an MCP server records the calls it serves, for ``memdir trace``
        (``observe.toollog``; made on the first call)."""
        from ..observe.toollog import ToolLog

        return ToolLog(self.sessions_dir() / "mcp")

    def _extracted(self) -> builtins.list[Change]:
        """The extractor's changes in every scope (what a trace places in its turns)."""
        return [
            c for s in self.scopes() for c in self.store(s).log.entries() if c.actor == "extractor"
        ]

    def _trace_of(
        self, session_id: str, records: Iterable[Record], changes: builtins.list[Change]
    ) -> SessionTrace:
        from ..observe import trace_records

        mine = [c for c in changes if session_id in (c.reason or "")]
        return trace_records(session_id, builtins.list(records), mine)

    def stats(
        self,
        *,
        since: str | None = None,
        idle_days: int = 30,
        now: datetime | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> Stats:
        """Is memory working: per scope, memories by type and state, writes by source,
        refusals by kind, recalls and hit rate, memories no recall returned in ``idle_days``,
        file and index sizes; the seen → chosen → read → used funnel over the sessions active
        since ``since`` (``7d``, ``12h``, ``2w`` or a date; all time by default). ``progress``
        is called with (sessions traced, sessions to trace)."""
        from ..observe import ScopeInput, compute_stats, parse_since

        now = now or datetime.now(UTC)
        after = parse_since(since, now=now)
        scopes = []
        for s in self.scopes():
            store = self.store(s)
            files = store if isinstance(store, FileStore) else None  # PG: no files to size
            index = files.index_path if files else None
            scopes.append(
                ScopeInput(
                    scope=s,
                    memories=self.list(scope=s),
                    archived=self.archived(scope=s),
                    changes=builtins.list(store.log.entries()),
                    recalls=self.backend.recalls(store).entries(),
                    files_bytes=files.files_bytes() if files else 0,
                    index_bytes=index.stat().st_size if index and index.is_file() else 0,
                )
            )
        infos = self.sessions() + self.sessions(archived=True)
        active = [i for i in infos if after is None or i.idle_since >= after]
        changes = self._extracted()
        traces = []
        for done, info in enumerate(active, 1):
            traces.append(self._trace_of(info.id, self.read_session(info.id).records, changes))
            if progress is not None:
                progress(done, len(active))
        return compute_stats(
            scopes,
            traces,
            since=after,
            idle_days=idle_days,
            extraction_failures=len(self.extraction_failures()),
            sessions_bytes=sum(i.size for i in infos),
            now=now,
        )

    # spans and metrics when OpenTelemetry is on (observe.otel); a flag check when it is off
    recall = traced("memdir.recall", recall_attributes, hits_attributes)(ConversationMemory.recall)
    remember = traced("memdir.write", write_attributes("remember"))(ConversationMemory.remember)
    update = traced("memdir.write", write_attributes("update"))(ConversationMemory.update)
    rewrite = traced("memdir.write", write_attributes("rewrite"))(ConversationMemory.rewrite)
    create_file = traced("memdir.write", write_attributes("create"))(ConversationMemory.create_file)
    rename = traced("memdir.write", write_attributes("rename"))(ConversationMemory.rename)
    forget = traced("memdir.write", write_attributes("forget"))(forget)
    capture_explicit = traced("memdir.extract", extract_attributes("explicit"))(
        ConversationMemory.capture_explicit
    )
    extract_session = traced("memdir.extract", extract_attributes("session"))(
        ConversationMemory.extract_session
    )
    sleep = traced("memdir.sleep", sleep_attributes, sleep_result)(sleep)
    consolidate = sleep

    # -- the working layer and the seeds' rules (issue 22, items 5 and 6) --
    def _log_scope(self) -> Scope:
        return "project" if self.project_root is not None else "user"

    def log_turn(
        self,
        text: str,
        reply: str,
        *,
        stored: Sequence[MemoryRecord] = (),
        writes: Sequence[str] = (),
        session: str | None = None,
        now: datetime | None = None,
    ) -> Path | None:
        """The working layer (seed 004): append what a finished turn decided, did and learned
        (``lifecycle.working.turn_notes`` of the person's ``text``, the ``reply``, the memories
        ``stored`` and the memory-tool ``writes``) to today's daily log."""
        from ..lifecycle.working import turn_notes

        notes = turn_notes(
            text,
            reply,
            [(r.statement, r.source) for r in stored],
            explicit=[r.quote for r in stored if r.quote],
            writes=writes,
        )
        return self.log_notes(notes, session=session, now=now)

    def log_notes(
        self,
        notes: Sequence[TurnNote],
        *,
        session: str | None = None,
        now: datetime | None = None,
    ) -> Path | None:
        """Append ``notes`` to today's daily log (the project's; the user's outside a project)
        in one crash-safe write, each text through the guard first: a secret is redacted, a
        refused text is left out (and logged as refused). ``None`` when nothing was written."""
        from ..lifecycle.working import TurnNote, append_lines

        target = self._log_scope()
        kept: builtins.list[TurnNote] = []
        for note in notes:
            try:
                safe = self._guard(
                    target, "log", type="project", source=note.source, parts={"text": note.text}
                )
            except RefusedError:
                continue  # a log line is never a way round the guard
            if safe["text"]:
                kept.append(TurnNote(note.kind, safe["text"], note.source))
        if not kept:
            return None
        store = self.store(target)
        with store.locked():
            return append_lines(
                store.daily_log(), kept, now=now or datetime.now(UTC), session=session
            )

    def _session_notes(self, session: str) -> tuple[builtins.list[Note], builtins.list[Note]]:
        """(every note of the log scope, the notes this session's end distills)."""
        from ..lifecycle.promote import notes_in
        from ..lifecycle.working import working_set

        notes = builtins.list(notes_in(self.store(self._log_scope()).daily_log().days()))
        scope = self.policy().working_memory.scope  # seed 004: session (or task)
        return notes, working_set(notes, session, scope)

    def end_session(
        self,
        session: str,
        *,
        llm: LLM | None = None,
        offline: bool = False,
        now: datetime | None = None,
    ) -> SessionEnd:
        """Seed 004's session end for the working layer: distill the session's daily-log notes
        into one ``summary`` line (the configured model — or ``llm`` — writes it unless
        ``offline``; the rules otherwise, or when the model fails) and decide promotion now for
        the notes it wrote (reused ``promotion.min_reuse`` times across every log, or asked
        for; repeated procedures become skills), applied as one undoable run. Nothing happens
        when ``working_memory.distill`` is off, or the session noted nothing new."""
        from ..lifecycle import Plan, apply_plan, new_run_id, normalise
        from ..lifecycle.promote import NOT_PROMOTED, plan_promotions
        from ..lifecycle.working import SessionEnd, TurnNote, distill

        now = now or datetime.now(UTC)
        report = SessionEnd(session)
        if not self.policy().working_memory.distill:
            return report
        notes, mine = self._session_notes(session)
        report.notes = len(mine)
        if not mine:
            return report
        model = llm if llm is not None else (None if offline else self.llm)
        report.summary, report.by = distill([(n.kind or "note", n.statement) for n in mine], model)
        self.log_notes([TurnNote("summary", report.summary)], session=session, now=now)
        known = {
            s: (*self.store(s).scan()[0], *self.store(s).archived().scan()[0])
            for s in self.scopes()
        }
        keys = {normalise(n.statement) for n in mine if n.kind not in NOT_PROMOTED}
        steps = plan_promotions(
            {self._log_scope(): notes}, known, policy=self.policy().promotion, now=now, only=keys
        )
        if steps:
            report.run = new_run_id(now)
            plan = Plan(now, tuple(steps))
            apply_plan(
                plan,
                {s: self.store(s) for s in {op.scope for op in plan.ops}},
                run=report.run,
            )
            report.promoted = [f"{op.scope}/{op.name}" for op in plan.ops]
            report.skills = [
                f"{s.scope}/{n}" for s in steps if s.action == "skill" for n in s.names
            ]
        return report

    def offer_for(self, text: str, *, session: Session | None = None) -> Offer:
        """What the agent is handed for the person's ``text`` besides the guide
        (``lifecycle.offer``): skills for a task's first message, a question about a tentative
        memory that became relevant, and the memories set aside because the project's stack
        differs from what most memories describe. With a writable ``session`` the note is
        written into it (``meta`` kind ``note``), with the names offered (kind ``offered``)."""
        from ..lifecycle.offer import MAX_SKILLS, Offer, plan_offer
        from ..lifecycle.promote import SKILL_TAG

        said = [m for m in (session.messages if session else []) if _said(m)]
        first = len(said) <= 1
        offered: set[str] = set()
        for record in session.meta("offered") if session else []:
            offered.update(_names(record.content.get("names")))
        if not any(self.present(s) for s in self.scopes()):
            return Offer()  # nothing remembered yet: nothing to offer, nothing to read
        skills: builtins.list[MemoryRecord] = []
        if first:
            found = self.recall(text, top_k=MAX_SKILLS * 2, tags=[SKILL_TAG], track=False)
            skills = [h.record for h in found]
        recalled = [h.record for h in self.recall(text, top_k=8, track=False)]
        rivals: dict[tuple[str, str], MemoryRecord] = {}
        for rec in recalled:
            for other in _names(rec.extra.get("conflicts_with")):
                with contextlib.suppress(NotFoundError):
                    rivals[(rec.scope, other)] = self.get(other, scope=rec.scope)
        offer = plan_offer(
            text,
            first=first,
            skills=skills,
            recalled=recalled,
            rivals=rivals,
            drift=self._drift(session),
            offered=offered,
        )
        if session is not None and session.writable and offer.note:
            session.write_record("meta", {"kind": "note", "text": offer.note})
            session.write_record("meta", {"kind": "offered", "names": offer.names})
        return offer

    # -- background jobs (issue 20, SPEC J2) --
    def jobs(self) -> JobQueue:
        """This owner's background jobs (docs/postgres.md 'Workers and jobs'): the database
        backend's queue; ``UnsupportedError`` on a backend without one, saying how to get one."""
        from ..errors import UnsupportedError
        from ..jobs import WORKERS_NEED_POSTGRES

        opener: Callable[[], JobQueue] | None = getattr(self.backend, "jobs", None)
        if opener is None:
            raise UnsupportedError(WORKERS_NEED_POSTGRES.format(backend=self.backend.name))
        return opener()

    def enqueue(
        self,
        kind: str,
        *,
        scope: Scope | None = None,
        session: str | None = None,
        rebuild: bool = False,
        embedder: str | None = None,
        max_attempts: int = 3,
    ) -> tuple[Job, bool]:
        """Queue a background job (``reembed``, ``extract`` a session, ``sleep``) for this
        owner; ``(job, created)`` — an identical job still queued or running is returned, not
        doubled. ``UnsupportedError`` on a backend without a queue."""
        from .jobs import enqueue

        return enqueue(
            self,
            kind,
            scope=scope,
            session=session,
            rebuild=rebuild,
            embedder=embedder,
            max_attempts=max_attempts,
        )


def _said(message: Mapping[str, Any]) -> bool:
    """A message the person wrote (not a tool result, which Anthropic sends as a user turn)."""
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    results = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)
    return message.get("role") == "user" and not results
