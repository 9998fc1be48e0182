"""``Memory``: the one facade, and its lifecycle part (sleep, archive, confirm, daily log)."""

from __future__ import annotations

import builtins
import contextlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import (
    ExtractionError,
    NotFoundError,
    ValidationError,
)
from ..history import Change
from ..index.sqlite import SqliteIndex
from ..paths import Scope
from ..recall import Hit, Recaller, parse_time
from ..records import (
    MemoryRecord,
)
from ..sessions import (
    Session,
)

if TYPE_CHECKING:
    from ..lifecycle import SleepReport

    pass

from .conversation import ConversationMemory

__all__ = ["Memory"]


class Memory(ConversationMemory):
    """Long-term memory for one person and (optionally) one project.

    ``home`` defaults to ``$MEMDIR_HOME`` or ``~/.agent``; the project is ``project`` if given,
    else found from ``cwd`` (nearest ancestor with ``.agent/`` or ``.git/``). ``actor`` is
    recorded in the change log for every write made through this object.
    """

    # -- sleep (issue 5) --
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
        states = [take_snapshot(self.store(s), self.index(s), limits[s].max_chars) for s in scopes]
        llm = None if offline else self.llm
        plan = plan_sleep(
            states, policy=policy, now=now, judge=LLMJudge(llm) if llm is not None else None
        )
        report = SleepReport(plan, dry_run=dry_run)
        if not dry_run and plan.ops:
            report.run = new_run_id(now)
            stores = {s: self.store(s) for s in scopes}
            report.changes = apply_plan(plan, stores, run=report.run)  # actor "sleep"
        if sessions:
            report.notes += self._expire_sessions(dry_run=dry_run, now=now, offline=offline)
        return report

    def _expire_sessions(
        self, *, dry_run: bool, now: datetime, offline: bool
    ) -> builtins.list[str]:
        """C6: each session past retention goes through extraction, then to the archive (or
        away, if the policy says delete). A session whose extraction failed stays put."""

        def distill(session: Session) -> None:
            done = self.extract_session(session.path.stem, offline=offline)
            if done.failures:
                raise ExtractionError(
                    f"extraction of session {session.path.stem} failed "
                    f"({done.failures[0].error}); it stays until `memdir extract` succeeds"
                )

        pruned = self.prune_sessions(dry_run=dry_run, distill=distill, now=now)
        if dry_run:
            return [
                f"session {a.session.id}: {a.reason} — would be distilled, then {a.action}d"
                for a in pruned.plan
            ]
        notes = [f"session {a.session.id}: distilled, then {a.action}d" for a in pruned.done]
        notes += [f"session {a.session.id}: kept ({why})" for a, why in pruned.skipped]
        return notes

    consolidate = sleep  # the alias SPEC H7 names

    def undo_run(self, run: str) -> builtins.list[Change]:
        """Revert every change of one run (``sleep-…``, ``confirm-…``, ``undo-…``) in every
        scope, newest first: all of it, or — if a file moved on since — nothing."""
        from ..lifecycle import undo_run

        return undo_run({s: self.store(s) for s in self.scopes()}, run.strip(), actor=self.actor)

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
            store.check_links(store.dirs.log)  # log/ linked out is refused, never appended to
            return append_note(
                store.dirs.log,
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
            if not self.store(s).dirs.archive.is_dir():
                continue  # nothing archived: reading creates no index (nor a directory)
            if s not in self._archive_indexes:
                self._archive_indexes[s] = SqliteIndex(self.store(s).archived(), self.embedder)
            indexes[s] = self._archive_indexes[s]
        if not indexes:
            return []
        hits = Recaller(indexes, self.embedder).recall(
            query,
            top_k=top_k,
            types=types,
            tags=tags,
            since=parse_time(since),
            until=parse_time(until),
            track=False,
        )
        return hits if explain else [Hit(h.record, h.score) for h in hits]

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
                return self.store(s).restore_version(name, actor=self.actor)
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
                return self.store(s).delete_archived(
                    name, actor=self.actor, reason=reason or "forgotten by request"
                )
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
        needle = json.dumps(name, ensure_ascii=False).encode("utf-8")
        path = self.store(scope).dirs.changes
        try:
            with path.open("rb") as handle:
                lines = [raw for raw in handle if needle in raw and raw.endswith(b"\n")]
        except FileNotFoundError:
            return []
        found = []
        for raw in lines:
            with contextlib.suppress(ValueError):  # a torn line: skipped, as entries() does
                data = json.loads(raw)
                change = Change.from_dict(data) if isinstance(data, dict) else None
                if change is not None and change.name == name:
                    found.append(change)
        return sorted(found, key=lambda c: c.time)

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
