"""The small entity graph of a memory: the memories it is linked to by a shared entity — a tag
or a related file (its path, or just its file name) — drawn as an inline SVG and listed as
links, both rendered on the server (the page has no JavaScript; the CSP allows none).

**Light by construction.** It reads the index's entity map (``Index.entities``: lowercased
tags, related paths and file names → the memories that carry them, kept with the index's views
until the next change) after one sync per scope, the same check the list runs; no memory file
is opened but the one shown. It shows at most ``MAX_ENTITIES`` entities, the rarest first (a
tag half the store carries says little), and at most ``PER_ENTITY`` memories on each, with the
count of the others; the layout is two rings around the memory, computed here, so the SVG is
only positions and names (every name escaped by the template like everything else).

It works on any backend whose index offers ``entities`` (the file backend and PostgreSQL).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..http.models import memory_out
from ..memory import Memory
from ..paths import Scope
from ..records import MemoryRecord
from .auth import Refused, Viewer
from .pages import guarded
from .site import PREFIX, html, run

__all__ = ["Graph", "entity_graph", "router"]

router = APIRouter(prefix=PREFIX, include_in_schema=False)
MAX_ENTITIES = 8
PER_ENTITY = 6
MAX_MEMORIES = 24  # on the outer ring; the list below the drawing has them all
SIZE = 640  # the SVG's square viewBox; it scales down to a phone's width


@dataclass(frozen=True)
class Node:
    x: float
    y: float
    label: str


@dataclass(frozen=True)
class Linked:
    """A memory linked to the shown one, placed on the outer ring."""

    scope: str
    name: str
    x: float
    y: float
    via: tuple[str, ...]  # the shared entities, as shown


@dataclass(frozen=True)
class Entity:
    key: str  # as the index keeps it (lowercased)
    kind: str  # "tag" | "file"
    total: int  # memories carrying it, the shown one aside
    shown: tuple[tuple[str, str], ...]  # (scope, name) of those listed, at most PER_ENTITY
    node: Node


@dataclass(frozen=True)
class Graph:
    centre: Node
    entities: tuple[Entity, ...]
    memories: tuple[Linked, ...]
    edges: tuple[tuple[float, float, float, float], ...]  # x1, y1, x2, y2
    size: int = SIZE


def _keys_of(record: MemoryRecord) -> dict[str, tuple[str, str | None]]:
    """The entity keys of ``record`` as the index makes them (``views.entity_keys``): key →
    (kind, the path a file name was taken from, if it is one)."""
    keys: dict[str, tuple[str, str | None]] = {t.lower(): ("tag", None) for t in record.tags}
    for path in record.related_files:
        lowered = path.lower().strip("./")
        keys.setdefault(lowered, ("file", None))
        keys.setdefault(lowered.rsplit("/", 1)[-1], ("file", lowered))
    return keys


def _labels(record: MemoryRecord) -> dict[str, str]:
    """Each key as the memory spells it (a tag's case, as the list's tag filter takes it)."""
    out = {t.lower(): t for t in record.tags}
    for path in record.related_files:
        lowered = path.lower().strip("./")
        out.setdefault(lowered, path.strip("./"))
        out.setdefault(lowered.rsplit("/", 1)[-1], path.strip("./").rsplit("/", 1)[-1])
    return out


def _at(angle: float, radius: float) -> tuple[float, float]:
    centre = SIZE / 2
    return (
        round(centre + radius * math.cos(angle), 1),
        round(centre + radius * math.sin(angle), 1),
    )


def _angles(count: int) -> list[float]:
    """``count`` angles evenly round the circle, the first at the top."""
    return [2 * math.pi * i / count - math.pi / 2 for i in range(count)]


def layout(record: MemoryRecord, carriers: dict[str, set[tuple[str, str]]]) -> Graph:
    """The graph of ``record`` from ``carriers`` (entity key → the (scope, name) of every
    memory that carries it, in any scope): a pure function, so the page costs only the
    lookups."""
    me = (record.scope, record.name)
    found: list[tuple[str, str, list[tuple[str, str]]]] = []
    for key, (kind, path) in _keys_of(record).items():
        others = sorted(carriers.get(key, set()) - {me})
        if others and (path is None or others != sorted(carriers.get(path, set()) - {me})):
            found.append((key, kind, others))  # (a file name adding nobody to its path: out)
    found.sort(key=lambda f: (len(f[2]), f[0]))
    found = found[:MAX_ENTITIES]
    centre = Node(SIZE / 2, SIZE / 2, record.name)
    labels = _labels(record)
    placed: dict[tuple[str, str], list[str]] = {}
    for key, _, others in found:
        for other in others[:PER_ENTITY]:
            if other in placed or len(placed) < MAX_MEMORIES:
                placed.setdefault(other, []).append(key)
    # each memory sits in the sector of the first entity it hangs from, so edges stay short
    angles = dict(zip((key for key, _, _ in found), _angles(len(found)), strict=True))
    sector = 2 * math.pi / max(1, len(found))
    hanging: dict[str, list[tuple[str, str]]] = {}
    for other, via in sorted(placed.items()):
        hanging.setdefault(via[0], []).append(other)
    memories = []
    for key, group in hanging.items():
        step = min(sector / len(group), math.pi / 9)
        for i, (s, n) in enumerate(group):
            x, y = _at(angles[key] + (i - (len(group) - 1) / 2) * step, SIZE * 0.4)
            memories.append(Linked(s, n, x, y, tuple(placed[(s, n)])))
    entities = tuple(
        Entity(
            key,
            kind,
            len(others),
            tuple(others[:PER_ENTITY]),
            Node(*_at(angles[key], SIZE * 0.2), labels[key]),
        )
        for key, kind, others in found
    )
    where = {e.key: e.node for e in entities}
    edges = [(centre.x, centre.y, e.node.x, e.node.y) for e in entities]
    edges += [(where[k].x, where[k].y, m.x, m.y) for m in memories for k in m.via]
    return Graph(centre, entities, tuple(memories), tuple(edges))


def entity_graph(m: Memory, scope: Scope, name: str) -> dict[str, Any]:
    """The record and its graph: one sync per scope, then the index's entity maps."""
    record = m.store(scope).read(name)  # the file itself, as the memory's page reads it
    keys = _keys_of(record)
    carriers: dict[str, set[tuple[str, str]]] = {}
    for s in m.scopes():
        if not m.present(s):
            continue  # reading creates nothing
        index = m.index(s)
        index.sync()
        entities = index.entities()
        for key, (_, path) in keys.items():
            for wanted in (key, path) if path else (key,):
                carriers.setdefault(wanted, set()).update((s, n) for n in entities.get(wanted, ()))
    limits = {"entities": MAX_ENTITIES, "per_entity": PER_ENTITY}
    return {"memory": memory_out(record), "graph": layout(record, carriers), "limits": limits}


@router.get("/m/{scope}/{name}/graph")
async def graph_page(request: Request, scope: str, name: str) -> Response:
    async def build(who: Viewer) -> Response:
        if scope not in ("user", "project"):
            raise Refused(404, f"no scope {scope!r}: a scope is user or project")
        found = await run(request, who, lambda m: entity_graph(m, cast(Scope, scope), name))
        return html(request, "graph.html", who, **found)

    return await guarded(request, build)
