"""The ``Memory`` facade: the one door every frontend (CLI, servers, agent loop) goes through.

A ``Memory`` knows two scopes — ``user`` under ``$MEMDIR_HOME/memory`` and ``project`` under
``<root>/.agent/memory`` — each a ``FileStore`` with its own lock, change log and MEMORY.md.
It turns friendly arguments into validated frontmatter, picks the scope (the memory type decides
the default; a name is looked up in both), and returns typed records. It holds no state of its
own beyond the paths: every call reads the files, so hand edits are always seen.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from . import guard
from .config import Policy, load_policy
from .context import (
    GUIDE_VERSION,
    SYSTEM,
    Summarizer,
    assemble,
    build_guide,
    prepare,
    recorded_guide,
)
from .errors import (
    AmbiguousError,
    ConfigError,
    ExtractionError,
    NotFoundError,
    RefusedError,
    ValidationError,
)
from .extract.runner import Extraction, SessionReport
from .extract.state import Failure, all_states
from .files import BODY_PARTS, FileStore, Problem
from .history import Change
from .index.sqlite import SqliteIndex, SyncReport
from .instructions import Instructions, load_instructions
from .lifecycle import (
    LLMJudge,
    SleepReport,
    append_note,
    apply_plan,
    new_run_id,
    plan_sleep,
    settle,
    take_snapshot,
    undo_run,
)
from .paths import Scope, find_project_root, home_dir, policy_file, scope_dirs, sessions_dir
from .providers.embeddings import Embedder, get_embedder
from .providers.factory import get_llm, llm_configured
from .providers.llm import LLM
from .recall import Hit, Recaller, parse_time
from .records import (
    FIELD_ORDER,
    SOURCES,
    TYPES,
    MemoryRecord,
    check_field,
    default_scope,
    slugify,
)
from .sessions import (
    Distill,
    PruneReport,
    Session,
    SessionInfo,
    apply_prune,
    find_session,
    list_sessions,
    plan_prune,
)
from .settings import load_settings

if TYPE_CHECKING:
    from .tools import MemoryTool

__all__ = ["Memory"]

SCOPES: tuple[Scope, ...] = get_args(Scope)
_EXTRA_KEY = re.compile(r"[A-Za-z_][\w-]*")
# what the guard reads before a change is written: everything a model could later read as a rule
_GUARDED = ("statement", "body", "why", "how_to_apply", "description", "quote")
_GITIGNORE = """\
# Written by `memdir init`: personal and derived files stay out of git.
AGENT.md
sessions/
memory/.index/
memory/.history/lock
"""


def _short(text: str, limit: int = 150) -> str:
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0] if " " in line[: limit - 1] else line[: limit - 1]
    return cut + "…"


def _one_line(key: str, value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if "\n" in value or "\r" in value:
        raise ValidationError(f"{key} must be one line: put longer text in the statement")
    return value or None


class Memory:
    """Long-term memory for one person and (optionally) one project.

    ``home`` defaults to ``$MEMDIR_HOME`` or ``~/.agent``; the project is ``project`` if given,
    else found from ``cwd`` (nearest ancestor with ``.agent/`` or ``.git/``). ``actor`` is
    recorded in the change log for every write made through this object.
    """

    def __init__(
        self,
        *,
        home: str | Path | None = None,
        project: str | Path | None = None,
        cwd: str | Path | None = None,
        actor: str = "user",
        embedder: str | Embedder | None = None,
        llm: LLM | bool | None = None,
    ) -> None:
        self.home = Path(home).expanduser().absolute() if home else home_dir()
        if project is not None:
            root = Path(project).expanduser().absolute()
            if not root.is_dir():
                raise ConfigError(f"project directory {root} does not exist: create it first")
            self.project_root: Path | None = root
        else:
            self.project_root = find_project_root(Path(cwd or Path.cwd()), self.home)
        self.actor = actor
        self._stores: dict[Scope, FileStore] = {}
        self._embedder_choice = embedder
        self._indexes: dict[Scope, SqliteIndex] = {}
        self._recallers: dict[tuple[Scope, ...], Recaller] = {}
        self._llm_choice = llm
        self._extraction: Extraction | None = None
        self._archive_indexes: dict[Scope, SqliteIndex] = {}

    def as_actor(self, actor: str) -> Memory:
        """The same home, project, embedder and model, recording ``actor`` in the change log
        (the memory tool writes as ``agent``, extraction as ``extractor``)."""
        return Memory(
            home=self.home,
            project=self.project_root,
            actor=actor,
            embedder=self._embedder_choice,
            llm=self._llm_choice,
        )

    # -- scopes --------------------------------------------------------------------------
    def store(self, scope: Scope) -> FileStore:
        """The file store of ``scope``; ``ConfigError`` for ``project`` outside a project."""
        if scope not in SCOPES:
            raise ValidationError(f"scope must be one of {', '.join(SCOPES)} (got {scope!r})")
        if scope not in self._stores:
            dirs = scope_dirs(scope, home=self.home, project_root=self.project_root)
            if dirs is None:
                raise ConfigError(
                    f"no project found from {Path.cwd()}: run `memdir init` in the project's "
                    "root, or pass --project DIR"
                )
            self._stores[scope] = FileStore(dirs)
        return self._stores[scope]

    def scopes(self) -> builtins.list[Scope]:
        """The scopes available here: always ``user``, and ``project`` inside a project."""
        return ["project", "user"] if self.project_root is not None else ["user"]

    def _locate(self, name: str, scope: Scope | None) -> FileStore:
        if scope is not None:
            return self.store(scope)
        found = [s for s in self.scopes() if self.store(s).exists(name)]
        if len(found) > 1:
            raise AmbiguousError(
                f"{name!r} exists in both the project and the user scope: "
                "pass scope='project' or scope='user' (--scope on the command line)"
            )
        if not found:
            where = " or ".join(self.scopes())
            raise NotFoundError(f"no memory named {name!r} in the {where} scope: see `memdir list`")
        return self.store(found[0])

    # -- setup ---------------------------------------------------------------------------
    def init(self) -> dict[str, Path]:
        """Create both scope directories and their MEMORY.md; the cwd becomes the project root
        if no project was found. Safe to run again."""
        if self.project_root is None:
            self.project_root = Path.cwd().absolute()
        created: dict[str, Path] = {}
        for scope in SCOPES:
            store = self.store(scope)
            store.dirs.memory.mkdir(parents=True, exist_ok=True)
            store.regenerate_index()
            created[scope] = store.dirs.memory
        gitignore = self.project_root / ".agent" / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text(_GITIGNORE, encoding="utf-8")
        return created

    # -- writing -------------------------------------------------------------------------
    def _guard(
        self,
        scope: Scope,
        name: str,
        *,
        type: str,
        source: str,
        parts: Mapping[str, str | None],
    ) -> dict[str, str | None]:
        """``parts`` with secrets redacted, or ``RefusedError`` (logged as a ``refuse`` change)
        when the guard will not store them at all (SPEC G4). ``redacted`` says what was cut."""
        joined = "\n".join(v for v in parts.values() if v)
        verdict = guard.check(joined, type=type, source=source, quote=parts.get("quote"))
        if not verdict.allowed:
            why = "; ".join(verdict.reasons) or "refused by the guard"
            self.store(scope).log_refusal(
                name, actor=self.actor, source=source, reason=f"{guard.GUARD_VERSION}: {why}"
            )
            raise RefusedError(
                f"not stored: {why}. Nothing was written; the refusal is in `memdir history`",
                verdict.reasons,
            )
        out: dict[str, str | None] = {k: guard.redact(v)[0] if v else v for k, v in parts.items()}
        count = sum(guard.redact(v)[1] for v in parts.values() if v)
        out["redacted"] = f"{count} secret(s) redacted ({guard.GUARD_VERSION})" if count else None
        return out

    def remember(
        self,
        text: str,
        *,
        type: str,
        scope: Scope | None = None,
        name: str | None = None,
        description: str | None = None,
        why: str | None = None,
        how_to_apply: str | None = None,
        tags: Iterable[str] = (),
        related_files: Iterable[str] = (),
        importance: int | None = None,
        source: str = "user",
        confidence: str = "confirmed",
        quote: str | None = None,
        session: str | None = None,
        created: str | None = None,
        reason: str | None = None,
    ) -> MemoryRecord:
        """Store a new memory and return it. ``text`` is the statement; the description
        defaults to its first line. The scope defaults from the type (SPEC: user/feedback →
        user, project/reference → project). ``created`` (ISO 8601) is for imports of things
        learned earlier; it defaults to now."""
        if not isinstance(text, str) or not text.strip():
            raise ValidationError("the memory text is empty: say what to remember")
        if type not in TYPES:
            raise ValidationError(f"type must be one of {', '.join(TYPES)} (got {type!r})")
        if source not in SOURCES:
            raise ValidationError(f"source must be one of {', '.join(SOURCES)} (got {source!r})")
        target = scope or default_scope(type)
        safe = self._guard(
            target,
            name or slugify(description or _short(text)),
            type=type,
            source=source,
            parts={
                "text": text,
                "description": description,
                "why": why,
                "how": how_to_apply,
                "quote": quote,
            },
        )
        text, why, how_to_apply, quote = safe["text"] or "", safe["why"], safe["how"], safe["quote"]
        description = safe["description"]
        if safe["redacted"]:
            reason = f"{reason}; {safe['redacted']}" if reason else safe["redacted"]
        description = description if description is not None else _short(text)
        meta: dict[str, Any] = {
            "description": description,
            "type": type,
            "source": source,
            "confidence": confidence,
            "importance": importance,
            "tags": list(tags) or None,
            "related_files": list(related_files) or None,
            "quote": quote,
            "session": session,
            "created": created,
            "updated": created,
        }
        meta = {k: check_field(k, v) for k, v in meta.items() if v is not None}
        store = self.store(target)
        record, _ = store.create(
            meta,
            statement=text.strip(),
            why=_one_line("why", why),
            how_to_apply=_one_line("how_to_apply", how_to_apply),
            actor=self.actor,
            reason=reason,
            name=name,
            base_name=slugify(description),
        )
        return record

    save = remember

    def remember_many(
        self, items: Iterable[Mapping[str, Any]], *, progress: Any = None
    ) -> builtins.list[MemoryRecord]:
        """Store many memories at once: each item holds ``remember``'s arguments (``text`` and
        ``type`` at least). One lock per scope and one MEMORY.md rewrite for the whole batch;
        every file is still written atomically. ``progress(done, total)`` is called as it goes.
        Items are checked as they are written: a bad item raises, the ones before it stay."""
        items = builtins.list(items)
        out: builtins.list[MemoryRecord] = []
        with contextlib.ExitStack() as stack:
            for scope in self.scopes():
                stack.enter_context(self.store(scope).batch())
            for item in items:
                out.append(self.remember(**item))
                if progress:
                    progress(len(out), len(items))
        return out

    def update(
        self, name: str, *, scope: Scope | None = None, reason: str | None = None, **fields: Any
    ) -> MemoryRecord:
        """Change any frontmatter key, or the ``statement`` / ``why`` / ``how_to_apply`` /
        whole ``body``. ``None`` removes an optional key. Untouched bytes stay as they were."""
        if not fields:
            raise ValidationError("nothing to update: pass at least one field")
        checked: dict[str, Any] = {}
        for key, value in fields.items():
            if key in ("name", "created"):
                raise ValidationError(f"{key} cannot be changed with update")
            if key in BODY_PARTS:
                if key in ("why", "how_to_apply"):
                    value = _one_line(key, value) or ""
                elif not isinstance(value, str) or (key == "statement" and not value.strip()):
                    raise ValidationError(f"{key} must be non-empty text")
                checked[key] = value
            elif key in FIELD_ORDER:
                if value is None and key in ("description", "type"):
                    raise ValidationError(f"{key} is required and cannot be removed")
                checked[key] = None if value is None else check_field(key, value)
            elif _EXTRA_KEY.fullmatch(key):
                checked[key] = value
            else:
                raise ValidationError(f"{key!r} is not a usable frontmatter key")
        store = self._locate(name, scope)
        texts = {k: v for k, v in checked.items() if k in _GUARDED and isinstance(v, str)}
        if texts:
            current = store.read(name)
            safe = self._guard(
                store.dirs.scope,
                name,
                type=checked.get("type") or current.type,
                source=checked.get("source") or current.source,
                parts=texts,
            )
            checked.update({k: safe[k] for k in texts})
            if safe["redacted"]:
                reason = f"{reason}; {safe['redacted']}" if reason else safe["redacted"]
        record, _ = store.update(name, checked, actor=self.actor, reason=reason)
        return record

    def rewrite(
        self,
        name: str,
        content: bytes,
        *,
        expected_hash: str,
        scope: Scope | None = None,
        reason: str | None = None,
    ) -> MemoryRecord:
        """Replace a memory file with ``content`` (a whole edited file, as ``memdir edit``
        produces). It must parse, keep its name, and the file must still hash to
        ``expected_hash`` — otherwise nothing is written."""
        store = self._locate(name, scope)
        current = store.read(name)
        text = content.decode("utf-8", errors="replace")
        safe = self._guard(
            store.dirs.scope, name, type=current.type, source=current.source, parts={"file": text}
        )
        if safe["redacted"]:
            content = (safe["file"] or "").encode("utf-8")
            reason = f"{reason}; {safe['redacted']}" if reason else safe["redacted"]
        record, _ = store.replace_bytes(
            name, content, actor=self.actor, reason=reason, expect_hash=expected_hash
        )
        return record

    def forget(self, name: str, *, scope: Scope | None = None, reason: str | None = None) -> Change:
        """Delete a memory. Reversible: ``undo(change.id)`` restores it byte-for-byte."""
        return self._locate(name, scope).delete(name, actor=self.actor, reason=reason)

    def undo(self, change_id: str) -> Change:
        """Revert one change (any scope), restoring the file's previous bytes exactly."""
        change_id = change_id.strip()
        if len(change_id) < 4:
            raise ValidationError("give at least 4 characters of the change id")
        matches = [(s, c) for s in self.scopes() if (c := self.store(s).log.find(change_id))]
        if not matches:
            raise NotFoundError(f"no change {change_id!r}: see `memdir history` for ids")
        if len(matches) > 1:
            raise AmbiguousError(f"change id {change_id!r} is in both scopes: give more characters")
        scope, change = matches[0]
        if change.op == "refuse":
            raise ValidationError(
                f"change {change.id} is a refusal: nothing was written then, so there is nothing "
                "to undo — remember it again if you mean it"
            )
        return self.store(scope).undo(change, actor=self.actor)

    # -- reading -------------------------------------------------------------------------
    def get(self, name: str, *, scope: Scope | None = None) -> MemoryRecord:
        """The memory called ``name`` (looked up in both scopes unless ``scope`` is given)."""
        store = self._locate(name, scope)
        store.refresh_index()
        return store.read(name)

    def list(
        self,
        *,
        scope: Scope | None = None,
        type: str | None = None,
        tags: Iterable[str] = (),
    ) -> builtins.list[MemoryRecord]:
        """Readable memories, filtered; files that do not parse are skipped (see ``doctor``)."""
        if type is not None and type not in TYPES:
            raise ValidationError(f"type must be one of {', '.join(TYPES)} (got {type!r})")
        wanted = set(tags)
        out: builtins.list[MemoryRecord] = []
        for s in [scope] if scope else self.scopes():
            store = self.store(s)
            store.refresh_index()
            records, _ = store.scan()
            out += [
                r for r in records if (type is None or r.type == type) and wanted.issubset(r.tags)
            ]
        return out

    def history(
        self, name: str | None = None, *, scope: Scope | None = None
    ) -> builtins.list[Change]:
        """Change-log entries, oldest first, for one memory or for everything."""
        entries: builtins.list[Change] = []
        for s in [scope] if scope else self.scopes():
            entries += [c for c in self.store(s).log.entries() if name is None or c.name == name]
        return sorted(entries, key=lambda c: c.time)

    # -- recall --------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The embedder recall uses (``$MEMDIR_EMBEDDER``, default: the best one installed)."""
        if not isinstance(self._embedder_choice, Embedder):
            self._embedder_choice = get_embedder(self._embedder_choice)
        return self._embedder_choice

    def index(self, scope: Scope) -> SqliteIndex:
        """The derived search index of ``scope`` (under its ``.index/``)."""
        if scope not in self._indexes:
            self._indexes[scope] = SqliteIndex(self.store(scope), self.embedder)
        return self._indexes[scope]

    def recall(
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
        track: bool = True,
    ) -> builtins.list[Hit]:
        """The memories that best answer ``query``, best first, from both scopes by default.

        Each ``Hit`` has the record, its final score and (with ``explain``) every signal and
        weight that made it. ``since``/``until`` filter on ``created`` (ISO time or a span such
        as ``7d``). ``track=False`` leaves no trace in the recall log or the use counts."""
        chosen = tuple(scopes) if scopes is not None else tuple(self.scopes())
        for scope in chosen:
            self.store(scope)  # raises a clear error for an unavailable scope
        types = builtins.list(types)
        for t in types:
            if t not in TYPES:
                raise ValidationError(f"type must be one of {', '.join(TYPES)} (got {t!r})")
        key = tuple(sorted(chosen))
        if key not in self._recallers:
            self._recallers[key] = Recaller({s: self.index(s) for s in key}, self.embedder)
        hits = self._recallers[key].recall(
            query,
            top_k=top_k,
            types=types,
            tags=tags,
            since=parse_time(since),
            until=parse_time(until),
            track=track,
        )
        return hits if explain else [Hit(h.record, h.score) for h in hits]

    def reindex(
        self, *, scope: Scope | None = None, rebuild: bool = False, progress: Any = None
    ) -> dict[Scope, SyncReport]:
        """Bring the search index up to date (``rebuild`` drops it first; nothing is lost:
        it is derived from the files). ``progress(done, total)`` is called while embedding."""
        reports: dict[Scope, SyncReport] = {}
        for s in [scope] if scope else self.scopes():
            index = self.index(s)
            if rebuild:
                index.drop()
            reports[s] = index.sync(progress)
        return reports

    def verify_index(self, *, scope: Scope | None = None) -> builtins.list[str]:
        """Bring the index up to date, then list where it and the files still disagree (empty
        when the incremental sync did its job)."""
        self.reindex(scope=scope)
        return [
            f"{s}: {p}"
            for s in ([scope] if scope else self.scopes())
            for p in self.index(s).verify()
        ]

    def doctor(self) -> builtins.list[Problem]:
        """Every problem found in the scope directories, and every failed extraction;
        nothing is changed."""
        problems = [p for s in self.scopes() for p in self.store(s).problems()]
        for session_id, failure in self.extraction_failures():
            problems.append(
                Problem(
                    self.sessions_dir() / f"{session_id}.jsonl",
                    f"extraction of turn {failure.turn} failed at {failure.time}: {failure.error}",
                    severity="warning",
                )
            )
        return problems

    # -- sessions and context (issue 3) --
    def policy(self) -> Policy:
        """The lifecycle policy: ``<root>/.agent/memory-policy.yaml`` (outside a project
        ``<home>/memory-policy.yaml``), every key defaulted. ``ConfigError`` if it is wrong."""
        return load_policy(policy_file(home=self.home, project_root=self.project_root))

    def sessions_dir(self) -> Path:
        """Where this project's session transcripts live (``<root>/.agent/sessions``)."""
        return sessions_dir(home=self.home, project_root=self.project_root)

    def instructions(self) -> Instructions:
        """The AGENT.md levels with includes expanded; ``.problems`` lists what was skipped."""
        names = self.policy().instructions.file_names
        return load_instructions(home=self.home, project_root=self.project_root, file_names=names)

    def memory_guide(self, policy: Policy | None = None) -> str:
        """The memory guide a new session would get now (E2): instructions, both MEMORY.md
        indexes (refreshed first if files were edited by hand), and the usage guidance."""
        policy = policy or self.policy()
        index: dict[Scope, Path | None] = {"project": None, "user": None}
        for s in self.scopes():
            store = self.store(s)
            if store.dirs.memory.is_dir():
                store.refresh_index()
            index[s] = store.dirs.index_file
        return build_guide(
            self.instructions(),
            project_index=index["project"],
            user_index=index["user"],
            policy=policy,
        )

    def _guide_for(self, session: Session, policy: Policy) -> tuple[str, str]:
        """The session's recorded (system, guide); built and recorded on first use (E4)."""
        recorded = recorded_guide(session)
        if recorded is not None:
            return recorded
        guide = self.memory_guide(policy)
        if session.writable:
            session.write_record(
                "meta", {"kind": "guide", "version": GUIDE_VERSION, "system": SYSTEM, "text": guide}
            )
        return SYSTEM, guide

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
        is deleted, only when the policy says so. ``dry_run`` returns the plan untouched."""
        policy = self.policy().sessions
        folder = self.sessions_dir()
        plan = plan_prune(
            list_sessions(folder),
            list_sessions(folder, archived=True),
            policy=policy,
            older_than=older_than,
            now=now,
        )
        if dry_run:
            return PruneReport(plan, dry_run=True)
        return apply_prune(plan, distill=distill)

    # -- memory tool support (issue 4) --
    def tool(self, *, actor: str = "agent") -> MemoryTool:
        """The memory tool a model reads and writes memories with (SPEC F1–F3): Anthropic's
        ``memory_20250818`` commands over ``/memories`` plus ``search``. Its writes go through
        a copy of this facade (same paths, stores and indexes) that logs them as ``actor``."""
        from .tools import MemoryTool  # the tool sits above the facade, so import it on use

        twin = copy.copy(self)
        twin.actor = actor
        return MemoryTool(twin)

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

        record, _ = self.store(scope).create_bytes(
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
        if not isinstance(text, str) or not text.strip():
            raise ValidationError("the note is empty: say what to note")
        if source not in ("user", "inferred"):
            raise ValidationError(f"a note's source is user or inferred (got {source!r})")
        target = scope or ("project" if self.project_root is not None else "user")
        safe = self._guard(target, "log", type="project", source=source, parts={"text": text})
        store = self.store(target)
        with store.locked():
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
            if s not in self._archive_indexes:
                self._archive_indexes[s] = SqliteIndex(self.store(s).archived(), self.embedder)
            indexes[s] = self._archive_indexes[s]
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
        """Bring an archived memory back among the others (undoable)."""
        for s in self._sleep_scopes(scope):
            archive = self.store(s).archived()
            if archive.exists(name):
                return self.store(s).restore(name, actor=self.actor, reason="restored by request")
        raise NotFoundError(f"no archived memory named {name!r}: see `memdir list --archived`")

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


def _configured_llm(home: Path) -> LLM | bool:
    """The LLM from the user's settings, or ``False`` when none is configured (extraction then
    uses the offline rules). A configured but broken setting is a ``ConfigError``, not a
    silent fallback."""
    settings = load_settings(home)
    return get_llm(settings) if llm_configured(settings) else False
