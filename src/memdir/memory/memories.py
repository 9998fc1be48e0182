"""The core of the ``Memory`` facade: scopes, writes (through the guard), reads and recall.

``MemoryBase`` holds what every later part builds on; ``sessions.py`` adds sessions, context,
the memory tool and extraction, and ``lifecycle.py`` adds sleep and is the ``Memory`` users get.
The split is by concern only: one object, one set of paths and caches (see ``__init__.py``).
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import dataclasses
import inspect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Self, get_args, runtime_checkable

from ..backends import open_backend
from ..errors import (
    AmbiguousError,
    ConfigError,
    ConflictError,
    MemdirError,
    NotFoundError,
    UnsupportedError,
    ValidationError,
)
from ..files import BODY_PARTS, FileStore
from ..history import Change
from ..index.sqlite import SyncReport
from ..paths import AGENT_GITIGNORE, Scope, find_project_root, home_dir
from ..ports import Backend, Index, Store, ToolTree
from ..providers.embeddings import Embedder, get_embedder
from ..providers.llm import LLM
from ..recall import Hit, Recaller, parse_time
from ..records import (
    FIELD_ORDER,
    SOURCES,
    TYPES,
    MemoryRecord,
    check_field,
    check_name,
    default_scope,
    now_iso,
    shorten,
    slugify,
)
from ..writes import admit
from .names import Listing, prefixed, same_statement, similar

if TYPE_CHECKING:
    from ..extract.runner import Extraction

__all__ = ["SCOPES", "MemoryBase"]

SCOPES: tuple[Scope, ...] = get_args(Scope)
_EXTRA_KEY = re.compile(r"[A-Za-z_][\w-]*")
# what the guard reads before a change is written: everything a model could later read as a rule
_GUARDED = ("statement", "body", "why", "how_to_apply", "description", "quote")
_LISTED = ("tags", "related_files")  # judged and redacted with the text (writes.admit lists)


def _one_line(key: str, value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if "\n" in value or "\r" in value:
        raise ValidationError(f"{key} must be one line: put longer text in the statement")
    return value or None


class MemoryBase:
    """The stores, writes, reads and recall of ``Memory`` (use ``Memory``)."""

    def __init__(
        self,
        *,
        home: str | Path | None = None,
        project: str | Path | None = None,
        cwd: str | Path | None = None,
        actor: str = "user",
        embedder: str | Embedder | None = None,
        llm: LLM | bool | None = None,
        backend: str | Backend | None = None,
    ) -> None:
        self.home = Path(home).expanduser().absolute() if home else home_dir()
        # where the scopes live (``memdir.backends``): a name, a backend, or the configured one
        self.backend: Backend = open_backend(backend, home=self.home)
        if project is not None:
            root = Path(project).expanduser().absolute()
            if not root.is_dir():
                raise ConfigError(f"project directory {root} does not exist: create it first")
            self.project_root: Path | None = root
        else:
            self.project_root = find_project_root(Path(cwd or Path.cwd()), self.home)
        self.actor = actor
        self._stores: dict[Scope, Store] = {}
        self._embedder_choice = embedder
        self._indexes: dict[Scope, Index] = {}
        self._recallers: dict[tuple[Scope, ...], Recaller] = {}
        self._llm_choice = llm
        self._extraction: Extraction | None = None
        self._archive_indexes: dict[Scope, Index] = {}

    def acting_as(self, actor: str) -> Self:
        """A light view of this facade whose writes record ``actor`` in the change log (the
        memory tool writes as ``agent``): it shares the scopes — the same stores, indexes and
        recallers, no second set opened — so a write through either is seen by both. Use it
        on the thread that uses this facade (an index connection belongs to its thread)."""
        if actor == self.actor:
            return self
        view = copy.copy(self)
        view.actor = actor
        return view

    def as_actor(self, actor: str) -> Self:
        """A separate facade (own stores and index connections) on the same home, project,
        embedder, model and backend, recording ``actor``: for another thread (extraction's
        worker writes as ``extractor``). On the same thread, ``acting_as`` is the light one."""
        return type(self)(
            home=self.home,
            project=self.project_root,
            actor=actor,
            embedder=self._embedder_choice,
            llm=self._llm_choice,
            backend=self.backend,
        )

    # -- scopes --------------------------------------------------------------------------
    def store(self, scope: Scope) -> Store:
        """The store of ``scope`` (``ports.Store``, from the backend); ``ConfigError`` for
        ``project`` outside a project."""
        if scope not in SCOPES:
            raise ValidationError(f"scope must be one of {', '.join(SCOPES)} (got {scope!r})")
        if scope not in self._stores:
            opened = self.backend.store(scope, home=self.home, project_root=self.project_root)
            if opened is None:
                raise ConfigError(
                    f"no project found from {Path.cwd()}: run `memdir init` in the project's "
                    "root, or pass --project DIR"
                )
            self._stores[scope] = opened
        return self._stores[scope]

    def files(self, scope: Scope, feature: str) -> FileStore:
        """The file store of ``scope``, for a ``feature`` that keeps files beside the memories
        (MEMORY.md, sleep's daily log, the memory tool's tree, sync); ``ConfigError`` on a
        backend whose scopes are not directories (docs/postgres.md says what it does instead)."""
        store = self.store(scope)
        if not isinstance(store, FileStore):
            raise UnsupportedError(
                f"{feature} works on the file backend only for now; this memdir keeps its "
                f"memories in the {self.backend.name} backend (docs/postgres.md)"
            )
        return store

    def tool_tree(self, scope: Scope) -> ToolTree:
        """``scope`` as the memory tool's ``/memories/<scope>`` folder, on any backend."""
        return self.store(scope).tool_tree()

    def present(self, scope: Scope) -> bool:
        """Whether ``scope`` may hold memories: a file scope once its directory exists (reading
        never creates one), a database scope always."""
        folder = self.folder(scope)
        return folder.is_dir() if folder is not None else True

    def folder(self, scope: Scope) -> Path | None:
        """The directory of a file scope (``None`` for a database scope): for showing paths
        as the memory tool names them."""
        store = self.store(scope)
        return store.folder if isinstance(store, FileStore) else None

    def scopes(self) -> builtins.list[Scope]:
        """The scopes available here: always ``user``, and ``project`` inside a project."""
        return ["project", "user"] if self.project_root is not None else ["user"]

    def _locate(self, name: str, scope: Scope | None) -> Store:
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

    def resolve(self, name: str, *, scope: Scope | None = None, archived: bool = False) -> str:
        """The full name ``name`` stands for, as the CLI takes names: an exact name always wins;
        else the one memory whose name starts with ``name`` (case aside) in ``scope`` (default:
        both); ``AmbiguousError`` listing them when several do. A name nothing starts with is
        returned as it is, for the operation to report."""
        available = [scope] if scope else self.scopes()
        stores = [self.store(s).archived() if archived else self.store(s) for s in available]
        if not name or any(store.exists(name) for store in stores):
            return name
        found = prefixed(name, (n[:-3] for store in stores for n in store.memory_names()))
        return found if found is not None else name

    def names(self, *, scope: Scope | None = None, archived: bool = False) -> builtins.list[str]:
        """The memory names of ``scope`` (default: both; ``archived``: the archive's), sorted:
        a directory listing, no file read (what shell completion offers)."""
        stores = [self.store(s) for s in ([scope] if scope else self.scopes())]
        if archived:
            stores = [store.archived() for store in stores]
        return sorted({n[:-3] for store in stores for n in store.memory_names()})

    # -- setup ---------------------------------------------------------------------------
    def init(self) -> dict[str, Path]:
        """Create both scope directories and their MEMORY.md; the cwd becomes the project root
        if no project was found. Safe to run again."""
        if self.project_root is None:
            self.project_root = Path.cwd().absolute()
        created: dict[str, Path] = {}
        for scope in SCOPES:
            store = self.store(scope)
            if not isinstance(store, FileStore):
                continue  # a database scope needs no folder: the schema is made at open
            created[scope] = store.create_folder()
        gitignore = self.project_root / ".agent" / ".gitignore"
        if created and not gitignore.exists():  # a database backend made no folder here
            gitignore.write_text(AGENT_GITIGNORE, encoding="utf-8")
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
        allow: Iterable[str] = (),
    ) -> dict[str, str | None]:
        """``parts`` with secrets redacted, or ``RefusedError`` (logged as a ``refuse`` change)
        when the guard will not store them at all (SPEC G4). ``redacted`` says what was cut.
        The door is ``writes.admit``, the same for every writer."""
        safe, _ = self._guard_all(
            scope, name, type=type, source=source, parts=parts, lists={}, allow=allow
        )
        return safe

    def _guard_all(
        self,
        scope: Scope,
        name: str,
        *,
        type: str,
        source: str,
        parts: Mapping[str, str | None],
        lists: Mapping[str, Iterable[str]],
        allow: Iterable[str] = (),
    ) -> tuple[dict[str, str | None], dict[str, builtins.list[str]]]:
        """``_guard``, and the items of ``lists`` (tags, related files) judged with the text and
        returned redacted: a secret in a tag is cut like one in the body, an instruction in a
        related file refuses the write like one in the statement."""
        from .. import guard

        own = parts.get("text") or parts.get("statement") or guard.body_of(parts.get("file"))
        admitted = admit(
            self.store(scope), name, actor=self.actor, type=type, source=source, parts=parts,
            statement=own, quote=parts.get("quote"), allow=allow,
            lists={k: builtins.list(v) for k, v in lists.items()},
        )  # fmt: skip
        out = dict(admitted.parts)
        count = admitted.redacted
        out["redacted"] = f"{count} secret(s) redacted ({guard.GUARD_VERSION})" if count else None
        return out, {k: builtins.list(v) for k, v in admitted.lists.items()}

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
        allow: Iterable[str] = (),
    ) -> MemoryRecord:
        """Store a new memory and return it. ``text`` is the statement; the description
        defaults to its first line. The scope defaults from the type (SPEC: user/feedback →
        user, project/reference → project). ``created`` (ISO 8601) is for imports of things
        learned earlier; it defaults to now.

        Idempotent: the same statement again (whitespace and case aside) in the same scope
        returns the existing memory reinforced — a use and a fresh ``updated`` — with
        ``is_new=False`` (with ``name``: when that name holds it). A very similar memory is
        named in ``similar_to`` of the new one, never blocking it."""
        if not isinstance(text, str) or not text.strip():
            raise ValidationError("the memory text is empty: say what to remember")
        if type not in TYPES:
            raise ValidationError(f"type must be one of {', '.join(TYPES)} (got {type!r})")
        if source not in SOURCES:
            raise ValidationError(f"source must be one of {', '.join(SOURCES)} (got {source!r})")
        target = scope or default_scope(type)
        safe, listed = self._guard_all(
            target,
            name or _default_name(text, description),
            type=type,
            source=source,
            parts={
                "text": text,
                "description": description,
                "why": why,
                "how": how_to_apply,
                "quote": quote,
            },
            lists={"tags": tags, "related_files": related_files},
            allow=allow,
        )
        tags, related_files = listed["tags"], listed["related_files"]
        if allow:  # the person's own choice (``memdir remember --allow``), kept with the change
            allowed = f"stored with --allow {','.join(sorted(allow))} by the person"
            reason = f"{reason}; {allowed}" if reason else allowed
        text, why, how_to_apply, quote = safe["text"] or "", safe["why"], safe["how"], safe["quote"]
        description = safe["description"]
        if safe["redacted"]:
            reason = f"{reason}; {safe['redacted']}" if reason else safe["redacted"]
        description = description if description is not None else shorten(text, at_word=True)
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
        return self._create_or_reinforce(
            self.store(target), text.strip(), meta, description=description, name=name,
            why=why, how_to_apply=how_to_apply, reason=reason,
        )  # fmt: skip

    def _create_or_reinforce(
        self,
        store: Store,
        statement: str,
        meta: dict[str, Any],
        *,
        description: str,
        name: str | None,
        why: str | None,
        how_to_apply: str | None,
        reason: str | None,
    ) -> MemoryRecord:
        """``remember``'s write: the same statement already there is reinforced, else a new
        memory is created (naming the very similar ones)."""
        with store.locked():  # the lookup and the write as one step: no twin from a race
            listing = Listing.of(store)  # MEMORY.md read once for both look-ups below
            # an explicit name is a chosen identity: only that name is "the same memory" then
            existing = (
                same_statement(store, statement, {check_name(name)}, "")
                if name is not None
                else same_statement(
                    store,
                    statement,
                    {slugify(description), slugify(shorten(statement, at_word=True))},
                    description,
                    listing,
                )
            )
            if existing is not None and (name is None or existing.name == check_name(name)):
                return self._reinforce(store, existing)
            record, _ = store.create(
                meta,
                statement=statement,
                why=_one_line("why", why),
                how_to_apply=_one_line("how_to_apply", how_to_apply),
                actor=self.actor,
                reason=reason,
                name=name,
                base_name=slugify(description),
            )
        # a hint, looked for after the lock is gone: the scope's other writers need not wait
        near = similar(store, description, exclude=record.name, listing=listing)
        return dataclasses.replace(record, is_new=True, similar_to=tuple(near))

    def _reinforce(self, store: Store, record: MemoryRecord) -> MemoryRecord:
        """The same statement was remembered again: ``record`` gains a use (a line in the
        scope's recall log, which use counts are replayed from) and a fresh ``updated``."""
        stamp = now_iso()
        line = {"time": stamp, "query": record.statement[:200], "top_k": 1}
        line |= {"formula": "remember-again", "returned": [record.name], "scores": {}}
        self.backend.recalls(store).append(line)
        if record.updated != stamp:
            record, _ = store.update(
                record.name, {"updated": stamp}, actor=self.actor, reason="remembered again"
            )
        return dataclasses.replace(record, is_new=False)

    save = remember

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Many writes as one: inside, every scope's lock is held once and MEMORY.md rewritten
        once, at the end (each file is still written atomically, each change still logged).
        What ``remember_many`` and the REST server's grouped writes use."""
        with contextlib.ExitStack() as stack:
            for scope in self.scopes():
                stack.enter_context(self.store(scope).batch())
            yield

    def remember_many(
        self,
        items: Iterable[Mapping[str, Any]],
        *,
        progress: Any = None,
        on_error: Callable[[int, Mapping[str, Any], MemdirError], None] | None = None,
    ) -> builtins.list[MemoryRecord]:
        """Store many memories at once: each item holds ``remember``'s arguments (``text`` and
        ``type`` at least). One lock per scope and one MEMORY.md rewrite for the whole batch;
        every file is still written atomically. ``progress(done, total)`` is called as it goes.
        Items are checked as they are written: a bad item raises, the ones before it stay;
        with ``on_error``, an item refused for its own content (invalid, refused by the guard,
        a name already taken) is handed to ``on_error(position, item, error)`` instead and the
        batch goes on — what an importer wants. The records written are returned."""
        items = builtins.list(items)
        out: builtins.list[MemoryRecord] = []
        with self.batch():
            for position, item in enumerate(items):
                try:
                    _check_item(position, item)
                    out.append(self.remember(**item))
                except (ValidationError, ConflictError) as error:
                    if on_error is None:
                        raise
                    on_error(position, item, error)
                if progress:
                    progress(position + 1, len(items))
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
        current = store.read(name)
        if all(_holds(current, key, value) for key, value in checked.items()):
            return current  # it already says that: no write, no change in the log
        if (
            isinstance(checked.get("statement"), str)
            and "description" not in checked
            and current.description == shorten(current.statement, at_word=True)
        ):  # a description never set by hand follows its statement (MEMORY.md, list)
            checked["description"] = shorten(checked["statement"].strip(), at_word=True)
        texts = {k: v for k, v in checked.items() if k in _GUARDED and isinstance(v, str)}
        lists = {k: v for k, v in checked.items() if k in _LISTED and isinstance(v, list)}
        if texts or lists:
            safe, listed = self._guard_all(
                current.scope,
                name,
                type=checked.get("type") or current.type,
                source=checked.get("source") or current.source,
                parts=texts,
                lists=lists,
            )
            checked.update({k: safe[k] for k in texts})
            checked.update(listed)
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
            current.scope, name, type=current.type, source=current.source, parts={"file": text}
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
        _refresh(store)
        return store.read(name)

    def file_bytes(self, record: MemoryRecord) -> bytes:
        """The whole file of ``record`` (frontmatter and body) as its backend keeps it: what
        ``memdir show`` prints and ``memdir edit`` opens."""
        store = self.store(record.scope)
        if isinstance(store, _WholeFiles):
            return store.read_bytes(record.name)
        return record.path.read_bytes()

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
            _refresh(store)
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

    def memory_history(self, name: str, *, scope: Scope | None = None) -> builtins.list[Change]:
        """``history(name)`` for a door that is handed a name: a path is refused
        (``ValidationError``) and a name with neither a file nor a change is ``NotFoundError``
        (a forgotten memory still has its history). REST and MCP answer the same."""
        changes = self.history(check_name(name), scope=scope)
        if not changes:
            self.get(name, scope=scope)  # NotFoundError unless the file is there
        return changes

    # -- recall --------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The embedder recall uses (``$MEMDIR_EMBEDDER``, default: the best one installed)."""
        if not isinstance(self._embedder_choice, Embedder):
            self._embedder_choice = get_embedder(self._embedder_choice)
        return self._embedder_choice

    def lease(self) -> contextlib.AbstractContextManager[None]:
        """Hold the backend's resources for the calls inside: on PostgreSQL one pooled
        connection serves all of their statements (a server's call, a CLI command); without
        it each statement block borrows one. Files hold nothing."""
        return self.backend.lease()

    def index(self, scope: Scope) -> Index:
        """The derived search index of ``scope`` (the file backend: under its ``.index/``)."""
        if scope not in self._indexes:
            self._indexes[scope] = self.backend.index(self.store(scope), self.embedder)
        return self._indexes[scope]

    def _recaller(self, indexes: Mapping[Scope, Index]) -> Recaller:
        """A recaller over ``indexes``, reading hits from and logging to the same scopes."""
        stores = {s: self.store(s) for s in indexes}
        logs = {s: self.backend.recalls(store) for s, store in stores.items()}
        return Recaller(indexes, self.embedder, stores=stores, logs=logs)

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
        min_score: float | None = None,
    ) -> builtins.list[Hit]:
        """The memories that best answer ``query``, best first, from both scopes by default.

        Each ``Hit`` has the record, its final score (a calibrated relevance in [0, 1]) and
        (with ``explain``) every signal and weight that made it. Nothing scoring below
        ``min_score`` (default ``recall.MIN_SCORE``; 0 keeps every candidate) is returned;
        with ``explain`` the hits it cut follow, marked ``below_min_score``. ``since``/``until``
        filter on ``created`` (ISO time or a span such as ``7d``). ``track=False`` leaves no
        trace in the recall log or the use counts."""
        chosen = tuple(scopes) if scopes is not None else tuple(self.scopes())
        for scope in chosen:
            self.store(scope)  # raises a clear error for an unavailable scope
        types = builtins.list(types)
        for t in types:
            if t not in TYPES:
                raise ValidationError(f"type must be one of {', '.join(TYPES)} (got {t!r})")
        # a scope with no directory yet has no memories: reading it must not create its index
        # (in a repository nobody ran memdir in, that would be litter in `git status`)
        key = tuple(sorted(s for s in chosen if self.present(s)))
        if not key:
            return []
        if key not in self._recallers:
            self._recallers[key] = self._recaller({s: self.index(s) for s in key})
        hits = self._recallers[key].recall(
            query,
            top_k=top_k,
            types=types,
            tags=tags,
            since=parse_time(since),
            until=parse_time(until),
            track=track,
            min_score=min_score,
            with_cut=explain,
        )
        return hits if explain else [Hit(h.record, h.score) for h in hits]

    def reindex(
        self, *, scope: Scope | None = None, rebuild: bool = False, progress: Any = None
    ) -> dict[Scope, SyncReport]:
        """Bring the search index up to date (``rebuild`` drops it first; nothing is lost:
        it is derived from the files). ``progress(done, total)`` is called while embedding."""
        reports: dict[Scope, SyncReport] = {}
        for s in [scope] if scope else self.scopes():
            if not self.present(s):
                continue  # no memories yet, and reading creates nothing (made by a first write)
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
            if self.present(s)
            for p in self.index(s).verify()
        ]


@runtime_checkable
class _WholeFiles(Protocol):
    """A store that keeps each memory's whole file somewhere other than ``record.path``."""

    def read_bytes(self, name: str) -> bytes: ...


def _refresh(store: Store) -> None:
    """Bring a file scope's MEMORY.md up to date with hand edits (SPEC A5) before a read; a
    database scope has no MEMORY.md to keep in step (docs/postgres.md)."""
    if isinstance(store, FileStore):
        store.refresh_index()


def _holds(record: MemoryRecord, key: str, value: Any) -> bool:
    """Whether ``record`` already has ``value`` for ``key`` (as ``update`` checked it)."""
    if key in BODY_PARTS or key in FIELD_ORDER:
        now = getattr(record, key, None)
    else:
        now = record.extra.get(key)
    if isinstance(now, tuple):
        now = builtins.list(now) or None
    if isinstance(value, tuple | builtins.list):
        value = builtins.list(value) or None
    if key in ("why", "how_to_apply"):
        return (now or "") == (value or "")
    return bool(now == value)


# what an item of ``remember_many`` may hold: the arguments of ``remember``
_REMEMBER_KEYS = frozenset(inspect.signature(MemoryBase.remember).parameters) - {"self"}


def _check_item(position: int, item: Mapping[str, Any]) -> None:
    """A ``remember_many`` item's keys, checked before ``remember`` sees them."""
    problems = [f"'{key}' is missing" for key in ("text", "type") if key not in item]
    unknown = sorted(set(item) - _REMEMBER_KEYS)
    if unknown:
        problems.append(f"unknown keys {unknown}")
    if problems:
        raise ValidationError(
            f"item {position}: {'; '.join(problems)} "
            f"(an item holds remember()'s arguments: {', '.join(sorted(_REMEMBER_KEYS))})"
        )


def _default_name(text: str, description: str | None) -> str:
    """The name a memory without one is known by before it is stored — also the name a refusal
    is logged under, so it is made from the text with its secrets redacted (a token's first
    characters in the change log are a leak)."""
    from .. import guard  # compiled on first use: remember needs it for the guard anyway

    if description:
        return slugify(guard.redact(description)[0])
    return slugify(shorten(guard.redact(text)[0], at_word=True))  # redacted whole, then cut
