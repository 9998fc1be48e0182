"""Old daily logs into ``archive/log/`` (seed 004's archive layer): planned, applied, undone.

A daily log (``<scope>/log/YYYY-MM-DD.md``) older than ``forgetting.archive_after_days`` (seed
004's ``archive.trigger``) is *compressed* into ``archive/log/YYYY-MM-DD.md.gz`` — gzip with no
timestamp, so the same log always gives the same bytes — or, with ``archive.compress: false``,
moved there as it is. An archived log older than ``archive_ttl_days`` (``archive.ttl_days``) is
deleted. Promotion still reads the archived logs (``promote.read_notes``), so compressing one
never loses a use of a note.

Logs are not memories, so these moves are not in the change log (whose lines name memory
files, and which sync exchanges between devices). They have a journal of their own (the
store's ``DailyLog``: ``.history/logs.jsonl`` on files, a ``scope_files`` row on PostgreSQL):
one line per move ``{run, time, from, to, before, after}`` (paths
inside the scope, content hashes; ``from`` is ``null`` for nothing, ``to`` for a deletion), with
both sides' bytes kept in the scope's object store. Undoing a move writes ``before`` back at
``from`` and removes ``to``; ``Memory.undo_run`` does that for every move of a run, after proving
each file is still as the run left it (else nothing is undone), and journals the undo as run
``undo-<run>`` — so undoing the undo redoes it, as for memories.

Everything here reads and writes through the ports (``Store.daily_log()``, the change log's
object store), never a directory, so sleep moves logs the same way on every backend. On files
a crash between writing the archive copy and removing the log leaves both; the next sleep
writes the same archive bytes again and finishes the move. Nothing is ever in neither place.
On PostgreSQL the whole run is one transaction: a crash leaves nothing of it.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError
from ..fs import crash_point
from ..markdown import content_hash
from .steps import Op, Step, iso

if TYPE_CHECKING:
    from ..paths import Scope
    from ..policy import Policy
    from ..ports import Store

__all__ = ["LOG_OPS", "LogFile", "apply_log_op", "log_files", "plan_logs", "undo_log_moves"]

LOG_OPS = ("compress_log", "delete_log")
_DAY = re.compile(r"log/(\d{4}-\d{2}-\d{2})\.md|archive/log/(\d{4}-\d{2}-\d{2})\.md(?:\.gz)?")


@dataclass(frozen=True)
class LogFile:
    """One daily log as the plan saw it: ``path`` inside the scope (``log/…``,
    ``archive/log/…``), its day and its content hash."""

    path: str
    day: str
    hash: str


def log_files(store: Store) -> tuple[tuple[LogFile, ...], tuple[LogFile, ...]]:
    """``(live, archived)`` daily logs of a scope, by path (links are left alone)."""
    live: list[LogFile] = []
    archived: list[LogFile] = []
    for day in sorted(store.daily_log().days(), key=lambda d: d.path):
        found = _DAY.fullmatch(day.path)
        if found is None or day.link:
            continue
        into = live if found.group(1) else archived
        into.append(LogFile(day.path, found.group(1) or found.group(2), content_hash(day.data)))
    return tuple(live), tuple(archived)


def _age(day: str, now: datetime) -> float:
    start = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC)
    return (now - start).total_seconds() / 86400.0 - 1  # a day's log is old once the day ended


def plan_logs(
    scope: Scope,
    live: Iterable[LogFile],
    archived: Iterable[LogFile],
    *,
    policy: Policy,
    now: datetime,
) -> list[Step]:
    """The ``compress`` and ``delete`` steps of one scope's logs (pure)."""
    after = policy.forgetting.archive_after_days
    ttl = policy.forgetting.archive_ttl_days
    gz = policy.archive.compress
    steps = []
    old = [f for f in live if _age(f.day, now) > after]
    if old:
        ops = tuple(
            Op(
                "compress_log",
                scope,
                f.path,
                f.hash,
                {"to": f"archive/log/{f.day}.md" + (".gz" if gz else ""), "compressed": iso(now)},
            )
            for f in old
        )
        how = "compressed (gzip)" if gz else "moved (archive.compress: false)"
        steps.append(
            Step(
                "compress",
                scope,
                tuple(f.path for f in old),
                f"daily logs older than {after} days {how} into archive/log/; promotion still "
                "reads them",
                ops,
            )
        )
    expired = [f for f in archived if _age(f.day, now) > ttl]
    if expired:
        ops = tuple(Op("delete_log", scope, f.path, f.hash) for f in expired)
        steps.append(
            Step(
                "delete",
                scope,
                tuple(f.path for f in expired),
                f"archived daily logs older than {ttl} days (archive_ttl_days); undo brings them "
                "back",
                ops,
            )
        )
    return steps


def current_hash(store: Store, path: str) -> str | None:
    """The content hash of the log file ``path`` now (``None``: there is none)."""
    data = store.daily_log().read(path)
    return content_hash(data) if data is not None else None


def _move(
    store: Store,
    *,
    run: str,
    source: str | None,
    target: str | None,
    before: bytes | None,
    after: bytes | None,
    undoes: str | None = None,
) -> dict[str, Any]:
    """Write ``after`` at ``target``, journal the move, then remove ``source`` (see the
    module docstring for why in this order)."""
    line: dict[str, Any] = {
        "run": run,
        "time": iso(datetime.now(UTC)),
        "from": source,
        "to": target,
        "before": content_hash(before) if before is not None else None,
        "after": content_hash(after) if after is not None else None,
    }
    if undoes:
        line["undoes"] = undoes
    for data in (before, after):
        if data is not None:
            store.log.keep(content_hash(data), data)
    logs = store.daily_log()
    if target is not None and after is not None:
        logs.write(target, after)
    crash_point("log.written")  # the crash tests: the copy is there, the log still too
    logs.record(line)
    crash_point("log.journalled")
    if source is not None and source != target:
        logs.remove(source)
    return line


def apply_log_op(store: Store, op: Op, *, run: str) -> dict[str, Any]:
    """Carry out one ``compress_log`` / ``delete_log`` op (the caller holds the lock and has
    checked ``op.expect``); returns its journal line."""
    data = store.daily_log().read(op.name)
    if data is None:  # the plan's hash check comes first: only a race gets here
        raise ConflictError(f"{op.name} ({op.scope} scope) is gone; run `memdir sleep` again")
    if op.kind == "delete_log":
        return _move(store, run=run, source=op.name, target=None, before=data, after=None)
    target = str(op.fields["to"])
    packed = gzip.compress(data, mtime=0) if target.endswith(".gz") else data
    return _move(store, run=run, source=op.name, target=target, before=data, after=packed)


def run_moves(stores: Mapping[Scope, Store], run: str) -> dict[Scope, list[dict[str, Any]]]:
    """The journal lines of ``run`` per scope, oldest first."""
    found: dict[Scope, list[dict[str, Any]]] = {}
    for scope, store in stores.items():
        lines = store.daily_log().journal()
        mine = [line for line in lines if line.get("run") == run]
        if mine:
            found[scope] = mine
    return found


def undone_runs(stores: Mapping[Scope, Store]) -> set[str]:
    """The runs whose log moves were undone already."""
    out: set[str] = set()
    for store in stores.values():
        lines = store.daily_log().journal()
        out.update(str(line["undoes"]) for line in lines if isinstance(line.get("undoes"), str))
    return out


def check_moves(store: Store, moves: list[dict[str, Any]]) -> None:
    """Every move of a run must find its files as it left them (newest first), else nothing
    may be undone."""
    state: dict[str, str | None] = {}

    def now(path: str) -> str | None:
        if path not in state:
            state[path] = current_hash(store, path)
        return state[path]

    for move in reversed(moves):
        source, target = move.get("from"), move.get("to")
        ok = target is None or now(str(target)) == move.get("after")
        if isinstance(source, str):
            ok = ok and now(source) in (None, move.get("before"))
            state[source] = move.get("before")
        if isinstance(target, str) and target != source:
            state[target] = None
        if not ok:
            raise ConflictError(
                f"{target or source} ({store.scope} scope) changed after run {move['run']}; "
                "nothing was undone — put it back as the run left it, or leave the run as it is"
            )


def undo_log_moves(store: Store, moves: list[dict[str, Any]], *, run: str) -> int:
    """Reverse ``moves`` (checked by ``check_moves``) newest first; returns how many."""
    for move in reversed(moves):
        source, target = move.get("from"), move.get("to")
        before = store.log.load(str(move["before"])) if move.get("before") else None
        after = store.log.load(str(move["after"])) if move.get("after") else None
        _move(
            store,
            run=f"undo-{run}",
            source=target if isinstance(target, str) else None,
            target=source if isinstance(source, str) else None,
            before=after,
            after=before,
            undoes=run,
        )
    return len(moves)
