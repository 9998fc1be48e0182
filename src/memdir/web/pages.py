"""The read views: the list with counts, search with explain, a memory's page (body,
frontmatter, provenance, use, history as diffs, related memories), the archive, the changes
timeline, the sleep plan and the sessions. Each handler makes one facade call on the viewer's
worker and renders what came back with the REST API's serializers (``http.models``): the page
has no other way to read a memory. None of them needs JavaScript."""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import MemdirError, NotFoundError
from ..http.models import change_out, hit_out, info_out, memory_out, record_out
from ..memory import Memory
from ..paths import Scope
from ..records import MemoryRecord
from .auth import Refused, Viewer
from .render import diff_lines
from .site import PREFIX, answer_error, html, run, viewer
from .sleep_view import plan_view
from .transcript import context_before, session_view

__all__ = ["guarded", "router"]

router = APIRouter(prefix=PREFIX, include_in_schema=False)
PAGE = 50  # memories per page of the list
STATES = ("active", "tentative", "archived", "superseded")


async def guarded(request: Request, build: Callable[[Viewer], Awaitable[Response]]) -> Response:
    """``build(viewer)``, or the error page: not logged in, refused, or a library error."""
    who: Viewer | None = None
    try:
        who = viewer(request)
        return await build(who)
    except (Refused, MemdirError) as exc:
        return answer_error(request, exc, who)


# -- the list ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Item:
    """One line of the list: what the index keeps of a memory (no file is opened for it)."""

    name: str
    scope: str
    type: str
    confidence: str
    tags: tuple[str, ...]
    description: str


def _superseded(record: MemoryRecord) -> bool:
    return any(k in record.extra for k in ("superseded_by", "merged_into"))


def _active(m: Memory) -> builtins.list[Item]:
    """Every memory of both scopes from the index's metadata, brought up to date first (the
    same incremental sync recall runs: a stat per file, and only changed files are read), so a
    list of 10 000 costs no file reads (bench/results/web.md)."""
    items = []
    for scope in m.scopes():
        if not m.present(scope):
            continue  # reading creates nothing
        index = m.index(scope)
        index.sync()
        items += [
            Item(d.name, scope, d.type, d.confidence, d.tags, d.description)
            for d in index.docs().values()
        ]
    return items


def _item(record: MemoryRecord) -> Item:
    return Item(record.name, record.scope, record.type, record.confidence, record.tags,
                record.description)  # fmt: skip


def _listing(m: Memory, scope: str, type_: str, tag: str, state: str) -> dict[str, Any]:
    active, archived = _active(m), m.archived()
    counts = {
        "scope": Counter(r.scope for r in active),
        "type": Counter(r.type for r in active),
        "tag": Counter(t for r in active for t in r.tags),
        "state": {
            "active": len(active),
            "tentative": sum(r.confidence == "tentative" for r in active),
            "archived": len(archived),
            "superseded": sum(_superseded(r) for r in archived),
        },
    }
    pool = {
        "active": active,
        "tentative": [r for r in active if r.confidence == "tentative"],
        "archived": [_item(r) for r in archived],
        "superseded": [_item(r) for r in archived if _superseded(r)],
    }[state]
    chosen = [
        r
        for r in pool
        if (not scope or r.scope == scope)
        and (not type_ or r.type == type_)
        and (not tag or tag in r.tags)
    ]
    chosen.sort(key=lambda r: (r.scope, r.name))
    return {"counts": counts, "records": chosen}


@router.get("/")
async def home(request: Request) -> Response:
    q = request.query_params
    scope, type_, tag = q.get("scope", ""), q.get("type", ""), q.get("tag", "")
    state = q.get("state", "active") if q.get("state") in STATES else "active"
    offset = int(q["offset"]) if q.get("offset", "").isdigit() else 0

    async def build(who: Viewer) -> Response:
        found = await run(request, who, lambda m: _listing(m, scope, type_, tag, state))
        records = found["records"]
        return html(
            request,
            "list.html",
            who,
            counts=found["counts"],
            total=len(records),
            items=records[offset : offset + PAGE],
            offset=offset,
            page=PAGE,
            filters={"scope": scope, "type": type_, "tag": tag, "state": state},
            archived=state in ("archived", "superseded"),
        )

    return await guarded(request, build)


# -- search with explain -----------------------------------------------------------------
def _floor_of(hits: builtins.list[Any]) -> float | None:
    return next((h.explain.get("min_score") for h in hits if "min_score" in h.explain), None)


def _why_not(m: Memory, query: str, name: str, scopes: Any, types: Any) -> str:
    """Why ``name`` is not among the hits: below the floor, outranked, filtered, or no match."""
    where = [s for s in m.scopes() if name in m.names(scope=s)]
    if not where:
        return f"{name!r} is not a memory here (see the list; archived ones are not searched)"
    every = m.recall(query, top_k=100, scopes=scopes, types=types, explain=True, track=False,
                     min_score=0.0)  # fmt: skip
    rank = next((i for i, h in enumerate(every) if h.record.name == name), None)
    if rank is None:
        record = m.store(where[0]).read(name)  # its file, not a parse of every memory
        if (scopes and record.scope not in scopes) or (types and record.type not in types):
            return f"{name!r} is filtered out: its scope is {record.scope}, its type {record.type}"
        return f"{name!r} is not a candidate: no keyword, meaning or entity of the query reaches it"
    hit = every[rank]
    floor = m.recall(query, top_k=1, explain=True, track=False)
    cut = _floor_of(floor) or 0.0
    return (
        f"{name!r} ranks #{rank + 1} with score {hit.score:.3f}"
        + (f", below the floor {cut:.3f}" if hit.score < cut else "")
        + " — its signals: "
        + ", ".join(f"{k} {v:.3f}" for k, v in hit.explain.items() if k != "below_min_score")
    )


def _search(m: Memory, q: dict[str, str]) -> dict[str, Any]:
    query = q.get("q", "").strip()
    if not query:
        return {"hits": [], "cut": [], "floor": None, "why_not": None}
    scopes = [cast(Scope, q["scope"])] if q.get("scope") in ("user", "project") else None
    types = [q["type"]] if q.get("type") else []
    top_k = int(q["top_k"]) if q.get("top_k", "").isdigit() else 10
    floor = float(q["min_score"]) if q.get("min_score") else None
    hits = m.recall(query, top_k=max(1, min(top_k, 100)), scopes=scopes, types=types,
                    explain=True, track=False, min_score=floor)  # fmt: skip
    why = q.get("why_not", "").strip()
    return {
        "hits": [hit_out(h, True) for h in hits if not h.below_min_score],
        "cut": [hit_out(h, True) for h in hits if h.below_min_score],
        "floor": _floor_of(hits),
        "why_not": _why_not(m, query, why, scopes, types) if why else None,
    }


@router.get("/search")
async def search(request: Request) -> Response:
    q = dict(request.query_params)

    async def build(who: Viewer) -> Response:
        try:
            float(q.get("min_score") or 0)
        except ValueError:
            raise Refused(422, "min_score is a number from 0 to 1, such as 0.2") from None
        found = await run(request, who, lambda m: _search(m, q))
        return html(request, "search.html", who, q=q, **found)

    return await guarded(request, build)


# -- a memory's page ---------------------------------------------------------------------
def _memory_page(m: Memory, scope: Scope, name: str) -> dict[str, Any]:
    """One freshness check for the whole page: the index sync that the related memories'
    recall runs (per scope: the directory's and the change log's stat, and a full stat pass
    at most every ``SCAN_INTERVAL`` on a large store). The memory itself is read from its
    file (``Store.read``: a parse cached by inode, size and times), so a hand edit shows at
    once; ``Memory.get`` would first stat every file of the scope to keep MEMORY.md in step
    (SPEC A5), which this page does not show — the next CLI read or write refreshes it. At 10k
    memories that pass was two thirds of the page (bench/results/web.md)."""
    record = m.store(scope).read(name)
    changes = m.history_of(name, scope=record.scope)
    history = [
        (
            change_out(c),
            diff_lines(
                m.version(c.before, scope=record.scope), m.version(c.after, scope=record.scope)
            ),
        )
        for c in reversed(changes[-30:])
    ]
    related = [
        hit_out(h, False)
        for h in m.recall(record.description, top_k=6, track=False)
        if (h.record.name, h.record.scope) != (name, record.scope)
    ][:5]
    doc = m.index(record.scope).docs().get(name)  # after recall's sync: no second check
    return {
        "memory": memory_out(record),
        "uses": doc.uses if doc else 0,
        "last_used": doc.last_used if doc else None,
        "history": history,
        "related": related,
    }


@router.get("/m/{scope}/{name}")
async def memory_page(request: Request, scope: str, name: str) -> Response:
    async def build(who: Viewer) -> Response:
        if scope not in ("user", "project"):
            raise Refused(404, f"no scope {scope!r}: a scope is user or project")
        found = await run(request, who, lambda m: _memory_page(m, cast(Scope, scope), name))
        return html(request, "memory.html", who, **found)

    return await guarded(request, build)


def _archived_page(m: Memory, scope: str, name: str) -> dict[str, Any]:
    found = [r for r in m.archived() if r.scope == scope and r.name == name]
    if not found:
        raise NotFoundError(f"no archived memory {name!r} in the {scope} scope: see the archive")
    changes = m.history(name, scope=found[0].scope)
    return {"memory": memory_out(found[0]), "history": [(change_out(c), []) for c in changes]}


@router.get("/archive/{scope}/{name}")
async def archived_page(request: Request, scope: str, name: str) -> Response:
    async def build(who: Viewer) -> Response:
        found = await run(request, who, lambda m: _archived_page(m, scope, name))
        return html(request, "archived.html", who, **found)

    return await guarded(request, build)


# -- the timeline, sleep, sessions -------------------------------------------------------
@router.get("/history")
async def timeline(request: Request) -> Response:
    async def build(who: Viewer) -> Response:
        changes = await run(request, who, lambda m: m.history())
        items = [change_out(c) for c in reversed(changes[-200:])]
        return html(request, "history.html", who, changes=items, total=len(changes))

    return await guarded(request, build)


@router.get("/sleep")
async def sleep_page(request: Request) -> Response:
    async def build(who: Viewer) -> Response:
        found = await run(request, who, plan_view)
        return html(request, "sleep.html", who, run_id=request.query_params.get("run"), **found)

    return await guarded(request, build)


@router.get("/sessions")
async def sessions_page(request: Request) -> Response:
    async def build(who: Viewer) -> Response:
        infos = await run(request, who, lambda m: m.sessions() + m.sessions(archived=True))
        return html(request, "sessions.html", who, sessions=[info_out(i) for i in infos])

    return await guarded(request, build)


def _home(request: Request, who: Viewer) -> str | None:
    """The viewer's directory on a team server (shown as ``~``); ``None`` for ``memdir ui``."""
    users = getattr(request.app.state, "users", None)
    return str(users.home(who.user)) if users is not None else None


@router.get("/sessions/{session_id}/context")
async def turn_context(request: Request, session_id: str) -> Response:
    line = request.query_params.get("line", "")

    async def build(who: Viewer) -> Response:
        if not line.isdigit():
            raise Refused(422, "line is the record's line number, such as ?line=3")
        home = _home(request, who)
        text = await run(request, who, lambda m: context_before(m, session_id, int(line), home))
        return html(request, "context.html", who, session_id=session_id, line=line, text=text)

    return await guarded(request, build)


@router.get("/sessions/{session_id}")
async def session_page(request: Request, session_id: str) -> Response:
    async def build(who: Viewer) -> Response:
        home = _home(request, who)
        found = await run(request, who, lambda m: session_view(m, session_id, home))
        return html(request, "session.html", who, record_out=record_out, **found)

    return await guarded(request, build)
