"""Applying a sleep plan in one step, and undoing a whole run (SPEC H4, H7, A7).

**Apply.** Every scope the plan touches is locked and batched (one MEMORY.md rewrite each), every
op's expected content hash is checked *before* anything is written — a plan made before a hand
edit is refused whole, nothing half-applied — and then each op goes through the ``Store``
(``update``, ``archive``, ``delete_archived``, ``create``), so each file is written atomically and
logged with actor ``sleep``, the step's reason and the run id. Everything goes through the ports
(``ports.Store``, its ``DailyLog``), so a run is the same on every backend; on PostgreSQL the
locks and batches are one transaction, so a run is applied whole or not at all.

**Undo.** ``undo_run`` finds every change of a run in every scope and replays their undos newest
first under the same locks. It first walks the changes backwards over the current state
(``Store.hash_at``) to prove that every file is still exactly as the run left it; if one is not
(a later change or a hand edit), nothing is undone and the error names the file. The undo
changes carry the run id ``undo-<run>``, so undoing the undo redoes the run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError, NotFoundError, ValidationError
from ..history import Change
from ..paths import Scope
from ..records import check_name
from ..writes import admit
from .logs import LOG_OPS, apply_log_op, check_moves, current_hash, run_moves, undo_log_moves
from .logs import undone_runs as log_undone_runs
from .plan import Op, Plan
from .steps import Step

if TYPE_CHECKING:
    from ..ports import Store

__all__ = ["ACTOR", "SleepReport", "apply_plan", "new_run_id", "run_changes", "undo_run"]

ACTOR = "sleep"
_BODY = ("statement", "why", "how_to_apply")


def new_run_id(now: datetime, prefix: str = "sleep") -> str:
    """``sleep-YYYYMMDD-HHMMSS-xxxx`` (the plan's clock, 4 random hex)."""
    return f"{prefix}-{now.astimezone(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def _current(store: Store, op: Op) -> str | None:
    if op.kind == "create":
        return None
    if op.kind in LOG_OPS:
        return current_hash(store, op.name) or "missing"
    reader = store.archived() if op.kind == "delete_archived" else store
    try:
        return reader.read(op.name).content_hash
    except NotFoundError:
        return "missing"


def apply_plan(
    plan: Plan,
    stores: Mapping[Scope, Store],
    *,
    run: str,
    actor: str = ACTOR,
    moves: list[dict[str, Any]] | None = None,
) -> list[Change]:
    """Carry out ``plan``; returns the changes written (all logged with ``run``). The daily
    logs it moves (``logs.py``) are journalled with ``run`` too, and added to ``moves``."""
    changes: list[Change] = []
    scopes = sorted({op.scope for op in plan.ops})
    with contextlib.ExitStack() as stack:
        for scope in scopes:
            stack.enter_context(stores[scope].batch())
            stack.enter_context(stores[scope].run_as(run))
        for op in plan.ops:
            if op.kind == "create" and stores[op.scope].exists(op.name):
                raise ConflictError(
                    f"a memory named {op.name!r} ({op.scope} scope) appeared since the plan was "
                    "made; nothing was written — run `memdir sleep` again"
                )
            if op.kind != "create" and _current(stores[op.scope], op) != op.expect:
                raise ConflictError(
                    f"{op.name!r} ({op.scope} scope) changed since the plan was made; nothing "
                    "was written — run `memdir sleep` again"
                )
        for step in plan.steps:
            reason = f"sleep {step.action}: {step.reason}"
            ops = _admitted(stores, step, actor=actor)
            if ops is None:
                continue  # a merged or distilled text the guard refuses: the step is not taken
            for op in ops:
                if op.kind in LOG_OPS:
                    line = apply_log_op(stores[op.scope], op, run=run)
                    if moves is not None:
                        moves.append(line)
                    continue
                changes += _apply_op(stores[op.scope], op, actor=actor, reason=reason)
    return changes


_TEXTS = ("statement", "why", "how_to_apply", "description")


def _admitted(stores: Mapping[Scope, Store], step: Step, *, actor: str) -> list[Op] | None:
    """The step's ops as the guard lets them be written — the texts sleep's model wrote
    (merged, distilled) pass the same door as every other writer (SPEC G4), secrets redacted —
    or ``None`` when it refuses one: each refusal is logged, and the whole step is skipped so no
    memory is archived into a text never written."""
    out, refused = [], False
    for op in step.ops:
        parts = {k: op.fields[k] for k in _TEXTS if isinstance(op.fields.get(k), str)}
        if op.kind not in ("create", "update") or not parts:
            out.append(op)
            continue
        store = stores[op.scope]
        current = store.read(op.name) if op.kind == "update" else None
        kind = str(op.fields.get("type") or (current.type if current else "project"))
        source = str(op.fields.get("source") or (current.source if current else "inferred"))
        statement = op.fields.get("statement")
        try:  # the one write door (writes.py): text checks, the guard, the refusal logged
            admitted = admit(
                store, op.name, actor=actor, type=kind, source=source, parts=parts,
                statement=statement if isinstance(statement, str) else None,
                refusal=f"sleep {step.action}: ",
            )  # fmt: skip
        except ValidationError:  # RefusedError (logged), or a text no file can hold
            refused = True
            continue
        out.append(dataclasses.replace(op, fields={**op.fields, **admitted.parts}))
    return None if refused else out


def _apply_op(store: Store, op: Op, *, actor: str, reason: str) -> list[Change]:
    fields = dict(op.fields)
    if op.kind == "archive":
        stamp = str(fields.pop("archived"))
        out: list[Change] = []
        if fields:  # the pointer (merged_into / superseded_by) is written before the move
            _, pointer = store.update(op.name, fields, actor=actor, reason=reason)
            out += [pointer] if pointer else []
        return [*out, store.archive(op.name, actor=actor, stamp=stamp, reason=reason)]
    if op.kind == "delete_archived":
        return [store.delete_archived(op.name, actor=actor, reason=reason, expect=op.expect)]
    if op.kind == "update":
        _, change = store.update(op.name, fields, actor=actor, reason=reason)
        return [change] if change else []
    meta = {k: v for k, v in fields.items() if k not in _BODY}
    _, change = store.create(
        meta,
        statement=str(fields["statement"]),
        why=fields.get("why"),
        how_to_apply=fields.get("how_to_apply"),
        actor=actor,
        reason=reason,
        name=op.name,
    )
    return [change]


def run_changes(stores: Mapping[Scope, Store], run: str) -> dict[Scope, list[Change]]:
    """The changes of ``run`` per scope, oldest first."""
    found: dict[Scope, list[Change]] = {}
    for scope, store in stores.items():
        mine = [c for c in store.log.entries() if c.run == run]
        if mine:
            found[scope] = mine
    return found


def _where(change: Change) -> str:
    """The file ``change`` is about, inside its scope (``<name>.md``; for archive/restore and
    an archived memory's delete: ``archive/<name>.md``), checked — the log is a file a person
    can edit."""
    if not change.path:
        return f"{check_name(change.name)}.md"
    folder, _, file = change.path.partition("/")
    if folder != "archive" or not file.endswith(".md"):
        raise ValidationError(
            f"change {change.id} names the path {change.path!r}, which is not a memory "
            "file of this scope; fix or remove that line of the change log"
        )
    return f"archive/{check_name(file)}.md"


def _check_reversible(store: Store, changes: list[Change]) -> None:
    """Walk ``changes`` newest first over the store as it is now: each must find its file in
    the state it left it, else nothing may be undone."""
    state: dict[str, str | None] = {}

    def now(path: str) -> str | None:
        if path not in state:
            state[path] = store.hash_at(path)
        return state[path]

    for change in reversed(changes):
        where = _where(change)
        if change.op in ("archive", "restore"):
            memory_side = f"{check_name(change.name)}.md"
            src, dst = (where, memory_side) if change.op == "archive" else (memory_side, where)
            ok = now(src) == change.after and now(dst) is None
            state[src], state[dst] = None, change.before
        else:
            ok = now(where) == change.after
            state[where] = change.before
        if not ok:
            raise ConflictError(
                f"{change.name!r} ({store.scope} scope) changed after run {change.run} "
                f"(change {change.id}); nothing was undone — undo the later changes first "
                f"(see `memdir history {change.name}`)"
            )


def undo_run(stores: Mapping[Scope, Store], run: str, *, actor: str) -> list[Change]:
    """Revert every change of ``run``, newest first, in every scope — all or nothing; the
    daily logs it moved (``logs.py``) go back too."""
    found = run_changes(stores, run)
    moved = run_moves(stores, run)
    if not found and not moved:
        raise NotFoundError(f"no run {run!r}: `memdir history` shows run ids in --json")
    undone = {c.undoes for s in found for c in stores[s].log.entries() if c.undoes}
    if any(c.id in undone for cs in found.values() for c in cs) or run in log_undone_runs(
        {s: stores[s] for s in moved}
    ):
        raise ValidationError(
            f"run {run} was undone already; `memdir undo undo-{run}` would redo it"
        )
    out: list[Change] = []
    with contextlib.ExitStack() as stack:
        for scope in sorted({*found, *moved}):
            stack.enter_context(stores[scope].batch())
            stack.enter_context(stores[scope].run_as(f"undo-{run}"))
        for scope, changes in found.items():
            _check_reversible(stores[scope], changes)
        for scope, lines in moved.items():
            check_moves(stores[scope], lines)
        for scope, changes in found.items():
            for change in reversed(changes):
                out.append(stores[scope].undo(change, actor=actor))
        for scope, lines in moved.items():
            undo_log_moves(stores[scope], lines, run=run)
    return out


@dataclass
class SleepReport:
    """What ``Memory.sleep`` did: the plan, and (unless a dry run or skipped) the run."""

    plan: Plan | None
    run: str | None = None
    changes: list[Change] = field(default_factory=list)
    dry_run: bool = False
    skipped: str | None = None  # why nothing was planned (``--if-quiet`` and not quiet)
    notes: list[str] = field(default_factory=list)
    moves: list[dict[str, Any]] = field(default_factory=list)  # daily logs moved (logs.py)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "dry_run": self.dry_run,
            "skipped": self.skipped,
            "changes": len(self.changes),
            "log_moves": len(self.moves),
            "notes": self.notes,
            "plan": self.plan.to_dict() if self.plan else None,
        }
