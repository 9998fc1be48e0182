"""Seed 001's second filter: project facts that hold across projects, proposed for the user scope.

Seed 001 draws two filters between a conversation and the person's long-term memory: the first
keeps what is worth keeping as *project* memory; the second, a separate tidying pass over the
project memories, lifts what holds across projects into the *user* memory, keeping where it
came from. Seed 004's test is one question: "would it still hold in another project?"

Sleep asks it of every active, confirmed project memory (``plan_proposals``, pure). Offline the
answer is yes when both hold (with an LLM configured, the judge then confirms each yes —
``LLMJudge.crosses``, prompt ``sleep-scope-v1`` — so a model can only remove proposals):

* it is about the person, not the project — its type is ``user`` or ``feedback`` (their default
  scope is the user's, SPEC §terms), or it says what the person prefers or always does ("I
  prefer …", "the user likes …", "I always …", "我习惯…", "用户偏好…");
* nothing ties it to this project — no related files, no path or file name, no "this
  project / repo / service", "这个项目", and not the project directory's name.

A yes is a **proposal**, never a move: a ``propose`` step creates the memory in the user scope
marked ``tentative`` with ``proposed_from`` (the project memory's file, its provenance) and a
``review`` line saying how to decide, and marks the project memory ``proposed_as`` so it is
proposed once. ``memdir confirm NAME`` accepts it; ``--drop`` refuses it, and the project keeps its
memory. Once accepted, the next sleep archives the project copy (``moved_to``): the fact now
lives where it holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..records import MemoryRecord, slugify
from .similar import normalise
from .steps import Op, Step, free_name, iso

if TYPE_CHECKING:
    from .judge import Judge
    from .plan import ScopeState

__all__ = ["bound_to_project", "crosses_projects", "plan_proposals"]

_ABOUT_PERSON = re.compile(
    r"\b(?:i|the user|user|the person)\s+(?:prefers?|likes?|wants?|always|never|usually|"
    r"hates?|dislikes?)\b|我(?:喜欢|习惯|偏好|一般|总是|从不)|用户(?:喜欢|偏好|习惯)",
    re.IGNORECASE,
)
_PROJECT_BOUND = re.compile(
    r"\b(?:this|the|our) (?:project|repo|repository|codebase|service|app|monorepo)\b|\bhere\b"
    r"|这个项目|本项目|该项目|这个仓库|[\w-]+\.(?:py|ts|tsx|js|go|rs|java|rb|md|toml|ya?ml|json)\b"
    r"|(?:^|\s)[\w.-]*/[\w./-]+",
    re.IGNORECASE,
)
_FIELDS = ("description", "type", "source", "quote", "importance", "session", "created")


def bound_to_project(rec: MemoryRecord, project: str | None = None) -> bool:
    """Whether ``rec`` names something of its project (files, paths, "this repo", its name)."""
    text = f"{rec.statement} {rec.description}"
    if rec.related_files or _PROJECT_BOUND.search(text):
        return True
    return bool(project and len(project) > 2 and project.lower() in text.lower())


def crosses_projects(rec: MemoryRecord, project: str | None = None) -> bool:
    """Whether ``rec`` (a project memory) would still hold in another project (offline)."""
    if bound_to_project(rec, project):
        return False
    text = f"{rec.statement} {rec.description}"
    return rec.type in ("user", "feedback") or _ABOUT_PERSON.search(text) is not None


def _candidates(state: ScopeState, busy: set[str]) -> Iterable[MemoryRecord]:
    for rec in sorted(state.records, key=lambda r: r.name):
        if rec.name in busy or rec.confidence != "confirmed" or "proposed_as" in rec.extra:
            continue
        yield rec


def plan_proposals(
    states: Sequence[ScopeState],
    steps: Sequence[Step],
    *,
    now: datetime,
    judge: Judge | None = None,
) -> list[Step]:
    """The ``propose`` steps, and the archiving of project copies already accepted."""
    crosses = getattr(judge, "crosses", None)
    by_scope = {s.scope: s for s in states}
    project, user = by_scope.get("project"), by_scope.get("user")
    if project is None or user is None:
        return []
    busy = {name for s in steps if s.scope == "project" for name in s.names}
    busy |= {op.name for s in steps for op in s.ops if op.scope == "project"}
    users = {r.name: r for r in user.records}
    said = {normalise(r.statement) for r in (*user.records, *user.archived)}
    # a name neither scope has: the same name in both would make every command ask which
    taken = {r.name.lower() for st in (user, project) for r in (*st.records, *st.archived)}
    taken |= {op.name.lower() for s in steps for op in s.ops if op.scope == "user"}
    out: list[Step] = []
    for rec in sorted(project.records, key=lambda r: r.name):
        target = rec.extra.get("proposed_as")
        accepted = users.get(str(target).removeprefix("user/")) if target else None
        if rec.name in busy or accepted is None or accepted.confidence != "confirmed":
            continue
        pointer = {"archived": iso(now), "moved_to": str(target)}
        op = Op("archive", "project", rec.name, rec.content_hash, pointer)
        why = f"accepted for every project as {target}: the project copy is archived"
        out.append(Step("archive", "project", (rec.name,), why, (op,)))
        busy.add(rec.name)
    for rec in _candidates(project, busy):
        home = rec.path.parents[2].name if len(rec.path.parents) > 2 else None
        if normalise(rec.statement) in said or not crosses_projects(rec, home):
            continue
        if crosses is not None and not crosses(rec, home or "?"):
            continue  # the model says it is this project's after all
        name = free_name(slugify(rec.name), taken)
        out.append(_propose(rec, name, now))
    return out


def _propose(rec: MemoryRecord, name: str, now: datetime) -> Step:
    fields: dict[str, object] = {k: getattr(rec, k) for k in _FIELDS if getattr(rec, k)}
    fields.update(
        statement=rec.statement,
        why=rec.why,
        how_to_apply=rec.how_to_apply,
        tags=list(rec.tags) or None,
        confidence="tentative",
        updated=iso(now),
        proposed_from=str(rec.path),
        review=f"proposed from the project memory {rec.path}: does it hold in every project? "
        f"`memdir confirm {name}` keeps it for all of them, `--drop` leaves it to that project",
    )
    create = Op("create", "user", name, None, {k: v for k, v in fields.items() if v is not None})
    mark = Op("update", "project", rec.name, rec.content_hash, {"proposed_as": f"user/{name}"})
    return Step(
        "propose",
        "project",
        (rec.name, name),
        f"{rec.name!r} would still hold in another project (it is about the person and names "
        "nothing of this one): proposed for the user scope, tentative, with its provenance",
        (create, mark),
    )
