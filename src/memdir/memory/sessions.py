"""Sessions, context, the memory tool and extraction: the conversation half of ``Memory``."""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..context import (
    GUIDE_VERSION,
    SYSTEM,
    IndexLines,
    Summarizer,
    assemble,
    build_guide,
    first_user_text,
    prepare,
    recalled_block,
    recorded_guide,
)
from ..extract.state import Failure, all_states
from ..files import FileStore, Problem, inside
from ..files.memory_md import render_index
from ..index.heal import problems_of
from ..instructions import Instructions, load_instructions
from ..paths import Scope, ensure_agent_dir, policy_file, sessions_dir
from ..policy import Policy, load_policy
from ..providers.factory import get_llm, llm_configured
from ..providers.llm import LLM
from ..records import (
    MemoryRecord,
    check_field,
)
from ..sessions import (
    Distill,
    PruneReport,
    Session,
    SessionInfo,
    apply_prune,
    find_session,
    list_sessions,
    plan_prune,
)
from ..settings import load_settings
from ..tools import MemoryTool

if TYPE_CHECKING:
    from ..extract.runner import Extraction, SessionReport
    from ..lifecycle.stack import Drift

from .memories import MemoryBase

__all__ = ["ConversationMemory"]


class ConversationMemory(MemoryBase):
    """Sessions, context, the memory tool and extraction of ``Memory`` (use ``Memory``)."""

    # -- sessions and context (issue 3) --
    def policy(self) -> Policy:
        """The lifecycle policy: ``<root>/.agent/memory-policy.yaml`` (outside a project
        ``<home>/memory-policy.yaml``), every key defaulted. ``ConfigError`` if it is wrong."""
        path = policy_file(home=self.home, project_root=self.project_root)
        # a link out of the project (the file, or .agent/ itself) is refused
        return load_policy(inside(self.project_root or path.parent, path))

    def sessions_dir(self) -> Path:
        """Where this project's session transcripts live (``<root>/.agent/sessions``); a folder
        linked out of the project (or a linked ``.agent``) is refused with ``LinkError``."""
        folder = sessions_dir(home=self.home, project_root=self.project_root)
        return folder if self.project_root is None else inside(self.project_root, folder)

    def instructions(self) -> Instructions:
        """The AGENT.md levels with includes expanded; ``.problems`` lists what was skipped."""
        names = self.policy().instructions.file_names
        return load_instructions(home=self.home, project_root=self.project_root, file_names=names)

    def memory_guide(self, policy: Policy | None = None) -> str:
        """The memory guide a new session would get now (E2): instructions, both MEMORY.md
        indexes (refreshed first if files were edited by hand), and the usage guidance."""
        policy = policy or self.policy()
        index: dict[Scope, Path | IndexLines | None] = {"project": None, "user": None}
        for s in self.scopes():
            store = self.store(s)
            if not isinstance(store, FileStore):
                # a database scope keeps no MEMORY.md (docs/postgres.md): the same lines,
                # rendered from its rows, within the same budget
                records, problems = store.scan()
                block = render_index(records, len(problems), s)
                where = f"`memdir list --scope {s}`"
                index[s] = IndexLines(where, f"# Memory index ({s} scope)\n\n{block}")
                continue
            index[s] = store.memory_md()
        return build_guide(
            self.instructions(),
            project_index=index["project"],
            user_index=index["user"],
            policy=policy,
        )

    def _guide_for(self, session: Session, policy: Policy) -> tuple[str, str]:
        """The session's recorded (system, guide); built and recorded on first use (E4),
        followed by the memories recalled for its first user message when the policy asks."""
        recorded = recorded_guide(session)
        if recorded is None:
            system, guide = SYSTEM, self.memory_guide(policy)
            if session.writable:
                session.write_record(
                    "meta",
                    {"kind": "guide", "version": GUIDE_VERSION, "system": system, "text": guide},
                )
        else:
            system, guide = recorded
        recalled = self._recalled_for(session, policy)
        return system, f"{guide}\n{recalled}" if recalled else guide

    def _recalled_for(self, session: Session, policy: Policy) -> str:
        """E4: the memories recalled for the session's first user message, recalled once and
        recorded (a ``recalled`` meta record), so every later request sends the same bytes."""
        done = session.meta("recalled")
        if done:
            return str(done[-1].content.get("text", ""))
        k = policy.long_memory.recalled
        if k == 0:
            return ""
        query = first_user_text(session)
        if not query:
            return ""  # nothing asked yet: decided at the first user message
        from ..lifecycle.stack import weigh

        drift = self._drift(session)
        aside: builtins.list[str] = []
        if not drift.switched:
            hits = self.recall(query, top_k=k, track=session.writable)
        else:  # seed 003: memories about another stack are down-weighted, not injected
            found = self.recall(query, top_k=2 * k, track=False)
            hits, set_aside = weigh(found, drift, k)
            aside = [f"{h.record.scope}/{h.record.name}" for h in set_aside]
        text = recalled_block(hits, aside=aside, stack=sorted(drift.current))
        if session.writable:
            names = [f"{h.record.scope}/{h.record.name}" for h in hits]
            record = {"kind": "recalled", "names": names, "text": text}
            session.write_record("meta", {**record, "set_aside": aside} if aside else record)
        return text

    def session(
        self,
        id: str | None = None,
        *,
        summarizer: Summarizer | None = None,
        now: datetime | None = None,
    ) -> Session:
        """A new session (``id`` None) or the session ``id`` resumed, open for writing (one
        writer per session: ``SessionBusyError`` if another process has it). Resuming skips
        torn lines (``session.problems``), adds the "N days since" note when due and compacts
        when over the threshold (``session.notices`` says what was done). Close it when done
        (or use ``with``)."""
        policy = self.policy()
        folder = self.sessions_dir()
        if id is None:
            if self.project_root is not None:  # a first session makes .agent/ with .gitignore
                ensure_agent_dir(self.project_root / ".agent")
            session = Session.create(folder)
        else:
            session = Session.open(find_session(folder, id), write=True)
        try:
            system, guide = self._guide_for(session, policy)
            prepared = prepare(
                session,
                system=system,
                guide=guide,
                policy=policy,
                summarizer=summarizer,
                now=now,
            )
        except BaseException:
            session.close()
            raise
        session.notices = [*prepared.notes, *prepared.repairs, *prepared.compacted]
        return session

    def read_session(self, id: str) -> Session:
        """The session ``id``, read-only (no lock taken, nothing written); archived ones too."""
        return Session.open(find_session(self.sessions_dir(), id, archived=True), write=False)

    def sessions(self, *, archived: bool = False) -> builtins.list[SessionInfo]:
        """Every session, oldest first, from file names and last lines only (C4)."""
        return list_sessions(self.sessions_dir(), archived=archived)

    def context(
        self,
        session: Session | None = None,
        format: str = "openai",
        *,
        summarizer: Summarizer | None = None,
        now: datetime | None = None,
    ) -> builtins.list[dict[str, Any]] | dict[str, Any] | str:
        """Exactly what would be sent to the model next: ``openai`` (message list),
        ``anthropic`` (``{"system", "messages"}``) or ``text``. Without a session: what a new
        session would start with. A writable session is compacted first if it needs it."""
        policy = self.policy()
        if session is None:
            return assemble(SYSTEM, self.memory_guide(policy), [], format)
        system, guide = self._guide_for(session, policy)
        prepared = prepare(
            session, system=system, guide=guide, policy=policy, summarizer=summarizer, now=now
        )
        return assemble(system, guide, prepared.entries, format)

    context_for = context  # the name SPEC I1 uses

    def prune_sessions(
        self,
        older_than: timedelta | None = None,
        *,
        dry_run: bool = False,
        distill: Distill | None = None,
        now: datetime | None = None,
    ) -> PruneReport:
        """Expire sessions idle longer than ``older_than`` (default: the policy's
        ``sessions.retention_days``): each goes to ``distill`` first, then to the archive — or
        is deleted, only when the policy says so. ``dry_run`` returns the plan untouched.
        An MCP server's call logs (``<sessions>/mcp/``, ``observe.toollog``) expire by the
        same rule, into ``mcp/archive/``, with nothing to distill: they hold no conversation."""
        policy = self.policy().sessions
        folder = self.sessions_dir()
        plan = []
        for where, distills in ((folder, True), (folder / "mcp", False)):
            for action in plan_prune(
                list_sessions(where),
                list_sessions(where, archived=True),
                policy=policy,
                older_than=older_than,
                now=now,
            ):
                if not distills:
                    action = replace(action, distill=False, reason=f"MCP call log, {action.reason}")
                plan.append(action)
        if dry_run:
            return PruneReport(plan, dry_run=True)
        return apply_prune(plan, distill=distill)

    # -- memory tool support (issue 4) --
    def tool(self, *, actor: str = "agent") -> MemoryTool:
        """The memory tool a model reads and writes memories with (SPEC F1–F3): Anthropic's
        ``memory_20250818`` commands over ``/memories`` plus ``search``. Its writes go through
        ``acting_as(actor)``: this facade's scopes, logged as ``actor``."""
        return MemoryTool(self.acting_as(actor))

    def create_file(
        self,
        name: str,
        content: bytes,
        *,
        scope: Scope,
        reason: str | None = None,
        defaults: Mapping[str, Any] | None = None,
    ) -> MemoryRecord:
        """Store a new memory ``name`` from a whole file (frontmatter and body). It must read as
        a memory (``description`` and ``type`` at least); missing ``name`` / ``created`` /
        ``updated`` keys, and any key of ``defaults`` it lacks, are added. Nothing else of
        ``content`` changes. ``ConflictError`` if the name is taken."""
        checked = {k: check_field(k, v) for k, v in (defaults or {}).items()}

        def vet(record: MemoryRecord, data: bytes) -> bytes:
            safe = self._guard(
                scope,
                record.name,
                type=record.type,
                source=record.source,
                parts={"file": data.decode("utf-8", errors="replace")},
            )
            return (safe["file"] or "").encode("utf-8") if safe["redacted"] else data

        record, _ = self.files(scope, "creating a memory from a whole file").create_bytes(
            name, content, actor=self.actor, reason=reason, defaults=checked, vet=vet
        )
        return record

    def rename(
        self, name: str, new_name: str, *, scope: Scope | None = None, reason: str | None = None
    ) -> MemoryRecord:
        """Rename a memory within its scope (file name and ``name`` key, nothing else).
        Reversible: ``undo`` of the change puts the old name and bytes back."""
        record, _ = self._locate(name, scope).rename(
            name, new_name, actor=self.actor, reason=reason
        )
        return record

    # -- extraction (issue 4) --
    @property
    def llm(self) -> LLM | None:
        """The model extraction uses: the one given to ``Memory(llm=...)``, else the configured
        one (``memdir config set llm.*`` or ``MEMDIR_LLM_*``), else ``None`` (offline rules).
        ``llm=False`` forces the offline rules."""
        if self._llm_choice is None:
            self._llm_choice = _configured_llm(self.home)
        return self._llm_choice if isinstance(self._llm_choice, LLM) else None

    @property
    def extraction(self) -> Extraction:
        if self._extraction is None:
            from ..extract.runner import Extraction  # the rules' lexicon: for extraction only

            self._extraction = Extraction(self, self.llm)
        return self._extraction

    def capture_explicit(
        self, text: str, *, session: str | None = None
    ) -> builtins.list[MemoryRecord]:
        """Store the explicit requests in what the person just wrote ("remember that …",
        "记住 …") at once (SPEC G3) and return them, so the agent can say what it stored."""
        return self.extraction.capture_explicit(text, session=session)

    def after_turn(self, session: Session) -> builtins.list[MemoryRecord]:
        """Call when a turn has ended: stores its explicit requests now (returned), and queues
        the turn for extraction in the background (LLM if configured, else the offline rules).
        Returns at once; ``flush_extraction`` waits for the queue."""
        return self.extraction.after_turn(session)

    def flush_extraction(self, timeout: float | None = None) -> bool:
        """Wait for queued extraction; ``False`` if ``timeout`` passed first."""
        return self.extraction.flush(timeout)

    def resume_extraction(self) -> builtins.list[str]:
        """Queue the turns a previous process left unextracted (it crashed, or exited before
        the worker ran); returns the session ids queued."""
        return self.extraction.resume()

    def extract_session(
        self,
        id: str,
        *,
        dry_run: bool = False,
        everything: bool = False,
        offline: bool = False,
    ) -> SessionReport:
        """Extract a stored session's turns now (``memdir extract``): those not done yet and
        those that failed; ``everything`` reads every turn again; ``dry_run`` writes nothing."""
        return self.extraction.run_session(
            id, dry_run=dry_run, everything=everything, offline=offline
        )

    def extraction_failures(self) -> builtins.list[tuple[str, Failure]]:
        """``(session id, failure)`` for every turn whose extraction failed and was not
        retried successfully since."""
        return [(st.session, f) for st in all_states(self.sessions_dir()) for f in st.failed]

    def unreadable(self) -> builtins.list[Problem]:
        """The memory files every read skips (``doctor``'s errors), found by a scan alone — no
        change log, no extraction state, no second parse: what ``memdir list`` warns about."""
        return [p for s in self.scopes() for p in self.store(s).scan()[1]]

    def doctor(self, *, fix: bool = False) -> builtins.list[Problem]:
        """Every problem found in the scope directories, and every failed extraction; nothing
        is changed unless ``fix``: then a write a crash cut short is completed and each change
        made outside memdir is logged (undoable) first (issue 26)."""
        files = [st for s in self.scopes() if isinstance(st := self.store(s), FileStore)]
        if fix:  # a database has no hand edits or torn writes to settle: transactions
            for store in files:
                store.fix()
        problems = [p for s in self.scopes() for p in self.store(s).problems()]
        for store in files:  # issue 26: a damaged index, and the copies set aside
            problems += problems_of(store.index_path)
        for session_id, failure in self.extraction_failures():
            problems.append(
                Problem(
                    self.sessions_dir() / f"{session_id}.jsonl",
                    f"extraction of turn {failure.turn} failed at {failure.time}: {failure.error}",
                    severity="warning",
                )
            )
        return problems

    def _drift(self, session: Session | None) -> Drift:
        """The project's stack against what the memories describe — read once per session
        (it lists every memory), then kept for the session's later turns."""
        from ..lifecycle.stack import drift, project_stack

        cache: dict[str, Drift] = self.__dict__.setdefault("_drifts", {})
        key = session.id if session is not None else ""
        if key not in cache or session is None:
            every = [r for r in self.list() if r.kind == "memory"]
            cache[key] = drift(project_stack(self.project_root), every)
        return cache[key]


def _configured_llm(home: Path) -> LLM | bool:
    """The LLM from the user's settings, or ``False`` when none is configured (extraction then
    uses the offline rules). A configured but broken setting is a ``ConfigError``, not a
    silent fallback."""
    settings = load_settings(home)
    return get_llm(settings) if llm_configured(settings) else False
