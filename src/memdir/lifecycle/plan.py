"""The sleep plan: a pure function of the files, the index and the clock (SPEC H2–H5, H7).

``take_snapshot`` reads one scope — its memories, its archive, the use counts replayed from the
recall log, the embedding matrix — into a ``ScopeState``. ``plan_sleep`` turns snapshots, the
policy and ``now`` into a ``Plan``: a list of ``Step`` (what and why, for people) each carrying
the ``Op`` s that carry it out (for ``apply.py``). Nothing here writes, and nothing reads the
clock: the 90-day simulation drives ``now``.

Every op names the content hash its file had when the plan was made; applying checks them all
first, so a plan made before a hand edit is refused instead of overwriting it.

The rules, in the order they claim memories (a memory is touched by one step per run):

1. **Merge** duplicates into the most specific wording, keeping every source, quote, tag and
   related file, the highest importance and the summed use counts (``uses_merged``); the others
   move to ``archive/`` with a pointer (``merged_into``).
2. **Supersede**: of two statements where one value replaced another, the newer wins — except
   that an inference (or anything not said by the person) never overrides the person's own
   words. The loser is archived (``superseded_by``).
3. **Tentative**: a conflict the rules cannot settle marks both memories ``tentative`` with
   ``conflicts_with``; ``memdir list --tentative`` shows them, ``memdir confirm`` settles them.
   With an LLM the judge may instead make them one conditional memory.
4. **Archive** what decayed: strength ``(1 + uses) · importance/5 · ½^(idle / archive_after_days)``
   below ½ — so an unused memory of default importance goes after ``archive_after_days``, and
   every use or point of importance buys time. Tentative memories wait for the person.
5. **Delete** archived memories idle past ``archive_ttl_days`` — never the person's own words
   (``source: user``): those are listed as kept; only ``memdir forget --archived`` deletes them.
7. **Promote** notes of the daily log (``promote.py``): reused or asked for → a memory; the
   same note in several sessions → a ``feedback`` rule; a repeated procedure → a skill.
8. **Propose** project memories that would hold in any project for the user scope, tentative,
   with their provenance (``propose.py``, seed 001's second filter).
9. **Compress** daily logs older than ``archive_after_days`` into ``archive/log/`` and delete
   archived logs past ``archive_ttl_days`` (``logs.py``, seed 004's archive layer).
6. **Distill**: when a scope's MEMORY.md would still exceed its ``long_memory`` limit, the judge
   (an LLM) condenses the largest groups (type + first tag) into fewer, denser memories —
   merged like duplicates, the originals archived — until it fits. Offline, the plan names the
   largest groups for the person; the guide cuts the index at the limit with a pointer to the
   rest (E3), so nothing is silently truncated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from ..index.text import query_terms
from ..policy import Policy
from ..records import MemoryRecord, shorten, slugify, utc_iso
from .evidence import against
from .logs import LogFile, log_files, plan_logs
from .promote import Note, notes_in, plan_promotions
from .propose import plan_proposals
from .second import MIN_COSINE, SecondOpinion, second_opinion
from .similar import (
    NEIGHBOURS,
    calibrated,
    candidate_pairs,
    content_tokens,
    mutual_nearest,
    neighbour_pairs,
    normalise,
    relate,
    units,
)
from .steps import PLAN_VERSION, Op, Plan, Step, free_name, iso

if TYPE_CHECKING:
    from ..paths import Scope
    from ..ports import DocMeta, Store
    from .judge import Judge

__all__ = [
    "PLAN_VERSION",
    "Op",
    "Plan",
    "ScopeState",
    "SleepIndex",
    "Step",
    "plan_sleep",
    "strength",
    "take_snapshot",
]

THRESHOLD = 0.5  # strength below which a memory is archived
DISTILL_GROUP = 40  # memories shown to the judge at once when condensing a group
SOURCE_RANK = {"user": 3, "imported": 2, "external": 1, "inferred": 0}


@dataclass(frozen=True)
class ScopeState:
    """What the plan of one scope is a function of."""

    scope: Scope
    records: tuple[MemoryRecord, ...]
    archived: tuple[MemoryRecord, ...]
    uses: Mapping[str, tuple[int, str | None]]
    names: tuple[str, ...]  # the rows of ``vectors``
    vectors: np.ndarray[Any, Any]
    model_id: str
    max_index_chars: int
    notes: tuple[Note, ...] = ()  # the scope's daily log (``log/YYYY-MM-DD.md``)
    # candidate pairs from recall over each memory (keyword + vector neighbours, issue 22);
    # None: only the per-model cosine threshold finds candidates
    pairs: tuple[tuple[str, str, float | None], ...] | None = None
    # the daily logs (``log/``) and those compressed into ``archive/log/`` (``logs.py``)
    logs: tuple[LogFile, ...] = ()
    archived_logs: tuple[LogFile, ...] = ()
    # a second embedder asked about the pairs whose words say nothing (``second.py``); None:
    # not installed, forced off, or the index is not the default embedder's
    second: SecondOpinion | None = None


@runtime_checkable
class SleepIndex(Protocol):
    """What sleep reads of a scope's index: ``ports.Index``'s ``sync``, ``docs`` and
    ``keyword``, its embedder, and every memory vector at once (``vectors``) to compare every
    pair — the file backend's ``SqliteIndex`` and ``PgIndex`` both offer it."""

    embedder: Any

    def sync(self, progress: Any = None) -> Any: ...

    def docs(self) -> dict[str, DocMeta]: ...

    def keyword(self, terms: list[str], limit: int) -> dict[str, float]: ...

    def vectors(self, context: float = 0.0) -> tuple[list[str], np.ndarray[Any, Any]]: ...


def take_snapshot(store: Store, index: SleepIndex, max_index_chars: int) -> ScopeState:
    """Read one scope for planning (the index is synced first: it is derived from the store)."""
    index.sync()
    records, _ = store.scan()
    archived, _ = store.archived().scan()
    uses = {n: (m.uses, m.last_used) for n, m in index.docs().items() if m.uses}
    names, matrix = index.vectors()
    # a symlinked memory, and the file it points to, are left where they are: moving either
    # would leave the other dangling (a database's records have no file, so no link)
    linked = {r.path.resolve() for r in records if r.path.is_symlink()}
    records = [r for r in records if r.kind != "knowledge"]  # issue 24: sleep leaves it alone
    keyword = {r.name: list(index.keyword(query_terms(r.statement), NEIGHBOURS)) for r in records}
    live_logs, archived_logs = log_files(store)
    return ScopeState(
        scope=store.scope,
        records=tuple(r for r in records if not r.path.is_symlink() and r.path not in linked),
        archived=tuple(r for r in archived if not r.path.is_symlink()),
        uses=uses,
        names=tuple(names),
        vectors=matrix,
        model_id=index.embedder.model_id,
        max_index_chars=max_index_chars,
        notes=notes_in(store.daily_log().days()),  # no link out (issue 26)
        pairs=tuple(neighbour_pairs(names, matrix, keyword)),
        logs=live_logs,
        archived_logs=archived_logs,
        second=second_opinion(index.embedder.model_id),
    )


def _time(value: Any) -> datetime | None:
    stamp = utc_iso(value) if isinstance(value, str | datetime) else None
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else None


def _when(rec: MemoryRecord) -> datetime | None:
    """When the memory was last stated (updated, else created)."""
    return _time(rec.updated) or _time(rec.created)


def _merged_uses(rec: MemoryRecord) -> int:
    value = rec.extra.get("uses_merged")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def strength(
    rec: MemoryRecord, uses: tuple[int, str | None], now: datetime, archive_after_days: float
) -> float | None:
    """How alive a memory is (``None`` when it carries no time to measure from)."""
    count, last_used = uses
    moments = [t for t in (_time(last_used), _when(rec)) if t is not None]
    if not moments:
        return None
    idle = max((now - max(moments)).total_seconds() / 86400.0, 0.0)
    weight = (1 + count + _merged_uses(rec)) * (rec.importance or 5) / 5.0
    return float(weight * 0.5 ** (idle / archive_after_days))


# -- merge and conflicts -----------------------------------------------------------------------
def _specificity(rec: MemoryRecord) -> tuple[int, int, int, float, str]:
    when = _when(rec)
    return (
        len(set(content_tokens(rec.statement))),
        SOURCE_RANK.get(rec.source, 0),
        len(rec.statement),
        when.timestamp() if when else 0.0,
        rec.name,
    )


def _union(values: Iterable[Iterable[str]]) -> list[str]:
    out: list[str] = []
    for group in values:
        out += [v for v in group if v not in out]
    return out


def _merge_fields(
    keep: MemoryRecord, others: Sequence[MemoryRecord], state: ScopeState, now: datetime
) -> dict[str, Any]:
    """The survivor's new frontmatter: everything the absorbed memories knew."""
    members = [keep, *others]
    quotes = _union(
        [[r.quote] if r.quote else [] for r in members]
        + [[q for q in r.extra.get("quotes") or [] if isinstance(q, str)] for r in members]
    )
    sources = _union(
        [[r.source] for r in members] + [_strs(r.extra.get("sources")) for r in members]
    )
    sessions = _union(
        [[r.session] if r.session else [] for r in members]
        + [_strs(r.extra.get("sessions")) for r in members]
    )
    importance = max((r.importance for r in members if r.importance), default=None)
    fields: dict[str, Any] = {
        "source": max(sources, key=lambda s: SOURCE_RANK.get(s, 0)),
        "importance": importance,
        "tags": _union(r.tags for r in members) or None,
        "related_files": _union(r.related_files for r in members) or None,
        "quote": keep.quote or (quotes[0] if quotes else None),
        "quotes": quotes if len(quotes) > 1 else None,
        "sources": sources if len(sources) > 1 else None,
        "sessions": sessions if len(sessions) > 1 else None,
        "merged_from": _union([_strs(keep.extra.get("merged_from")), [r.name for r in others]]),
        "uses_merged": _merged_uses(keep)
        + sum(state.uses.get(r.name, (0, None))[0] + _merged_uses(r) for r in others),
        "updated": iso(now),
    }
    return {k: v for k, v in fields.items() if v is not None}


def _strs(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _archive_op(rec: MemoryRecord, now: datetime, **pointer: str) -> Op:
    return Op("archive", rec.scope, rec.name, rec.content_hash, {"archived": iso(now), **pointer})


def _merge_step(
    cluster: Sequence[MemoryRecord], state: ScopeState, now: datetime, statement: str | None = None
) -> Step:
    keep = max(cluster, key=_specificity)
    others = sorted((r for r in cluster if r is not keep), key=lambda r: r.name)
    fields = _merge_fields(keep, others, state, now)
    action = "merge"
    if statement is not None:  # a conditional memory the judge wrote
        fields["statement"] = statement
        action = "conditional"
    ops = [Op("update", keep.scope, keep.name, keep.content_hash, fields)]
    ops += [_archive_op(r, now, merged_into=keep.name) for r in others]
    what = "one conditional memory" if statement else "the most specific wording"
    return Step(
        action,
        keep.scope,
        (keep.name, *(r.name for r in others)),
        f"{len(cluster)} memories say the same thing: kept {keep.name!r} ({what}) with every "
        "source, quote and use; the others are archived",
        tuple(ops),
    )


def _winner(a: MemoryRecord, b: MemoryRecord) -> tuple[MemoryRecord, MemoryRecord, str] | None:
    """``(winner, loser, why)`` of a replaced value, or ``None`` when nothing decides it."""
    if (a.source == "user") != (b.source == "user"):
        win, lose = (a, b) if a.source == "user" else (b, a)
        return win, lose, "an inference never overrides the person's own words"
    ta, tb = _when(a), _when(b)
    if ta is None or tb is None or ta == tb:
        return None
    win, lose = (a, b) if ta > tb else (b, a)
    return win, lose, "the newer statement wins"


def _tentative_step(a: MemoryRecord, b: MemoryRecord, now: datetime, why: str) -> Step | None:
    ops = []
    for rec, other in ((a, b), (b, a)):
        rivals = _union([_strs(rec.extra.get("conflicts_with")), [other.name]])
        if rec.confidence == "tentative" and rivals == _strs(rec.extra.get("conflicts_with")):
            continue
        fields = {"confidence": "tentative", "conflicts_with": rivals, "updated": iso(now)}
        ops.append(Op("update", rec.scope, rec.name, rec.content_hash, fields))
    if not ops:
        return None  # already waiting for the person
    return Step(
        "tentative",
        a.scope,
        (a.name, b.name),
        f"{why}: both marked tentative — confirm one with `memdir confirm NAME`",
        tuple(ops),
    )


def _pair_steps(
    state: ScopeState, now: datetime, threshold: float, judge: Judge | None, claimed: set[str]
) -> list[Step]:
    by_name = {r.name: r for r in state.records}
    groups: dict[tuple[str, str], list[str]] = {}
    for r in state.records:
        groups.setdefault((r.type, normalise(r.statement)), []).append(r.name)
    found: dict[tuple[str, str], float | None] = {
        (a, b): cos
        for a, b, cos in candidate_pairs(
            state.names, state.vectors, threshold, groups=[g for g in groups.values() if len(g) > 1]
        )
    }
    for a_name, b_name, cos in state.pairs or ():
        if (a_name, b_name) not in found and (b_name, a_name) not in found:
            found[(a_name, b_name)] = cos
    relations: list[tuple[MemoryRecord, MemoryRecord, str, str | None]] = []
    silent: list[tuple[MemoryRecord, MemoryRecord, float | None]] = []
    nearest = mutual_nearest(state.names, state.vectors)  # relate-v7: the store's evidence
    for (a_name, b_name), cos in sorted(found.items()):
        a, b = by_name.get(a_name), by_name.get(b_name)
        if a is None or b is None or a.type != b.type:
            continue
        if _when(a) and _when(b) and _when(b) < _when(a):  # type: ignore[operator]
            a, b = b, a  # relate reads b as the newer statement
        relation: str = relate(
            a.statement,
            b.statement,
            calibrated(cos, threshold),
            nearest=nearest.get(frozenset((a.name, b.name)), 0.0),
        )
        text = None
        if judge is not None and normalise(a.statement) != normalise(b.statement):
            relation, text = judge.relate(a, b)
        if relation != "unrelated":
            relations.append((a, b, relation, text))
        elif judge is None and state.second is not None:
            silent.append((a, b, calibrated(cos, threshold)))
    if silent and state.second is not None:
        relations += _second_opinion(
            state.second, silent, found, {r.name: r.statement for r in state.records}
        )
    steps = _merge_clusters(
        [(a, b) for a, b, rel, _ in relations if rel == "duplicate"], state, now, claimed
    )
    # the strongest evidence first: a replaced value claims its pair before a "may contradict"
    # of one of them with a third memory can (a stable sort keeps the name order otherwise)
    strength = {"conditional": 0, "conflict": 0, "replace": 0, "unclear": 1}
    relations.sort(key=lambda r: strength.get(r[2], 1))
    for a, b, relation, text in relations:
        if relation == "duplicate" or a.name in claimed or b.name in claimed:
            continue
        step = _conflict_step(a, b, relation, text, state, now)
        if step is not None:
            claimed.update(step.names)
            steps.append(step)
    return steps


def _second_opinion(
    second: SecondOpinion,
    silent: Sequence[tuple[MemoryRecord, MemoryRecord, float | None]],
    found: Iterable[tuple[str, str]],
    statements: Mapping[str, str],
) -> list[tuple[MemoryRecord, MemoryRecord, str, str | None]]:
    """relate-v11: the pairs the words left ``unrelated`` and nothing argues against, which the
    second embedder vouches for as one fact (``second.py``), as duplicates."""
    asked = [
        (a, b, cos)
        for a, b, cos in silent
        if cos is not None
        and cos >= MIN_COSINE
        and against(units(a.statement), units(b.statement), a.statement, b.statement) is None
    ]
    if not asked:
        return []
    neighbours: dict[str, set[str]] = {}
    for x, y in found:
        if x in statements and y in statements:
            neighbours.setdefault(x, set()).add(y)
            neighbours.setdefault(y, set()).add(x)
    vouched = second.vouched([(a.name, b.name, c) for a, b, c in asked], statements, neighbours)
    return [
        (a, b, "duplicate", None) for a, b, _ in asked if frozenset((a.name, b.name)) in vouched
    ]


def _merge_clusters(
    pairs: Sequence[tuple[MemoryRecord, MemoryRecord]],
    state: ScopeState,
    now: datetime,
    claimed: set[str],
) -> list[Step]:
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    records: dict[str, MemoryRecord] = {}
    for a, b in pairs:
        records[a.name], records[b.name] = a, b
        parent[root(a.name)] = root(b.name)
    clusters: dict[str, list[MemoryRecord]] = {}
    for name, rec in records.items():
        clusters.setdefault(root(name), []).append(rec)
    steps = []
    for cluster in sorted(clusters.values(), key=lambda c: sorted(r.name for r in c)):
        claimed.update(r.name for r in cluster)
        steps.append(_merge_step(cluster, state, now))
    return steps


def _supersede(a: MemoryRecord, b: MemoryRecord, now: datetime) -> Step | None:
    decided = _winner(a, b)
    if decided is None:
        return _tentative_step(a, b, now, "a contradiction with no newer side")
    win, lose, why = decided
    # a fact that stopped being true (issue 22): the old one is kept, in the archive, with when
    # it stopped holding; the new one says what it replaced and since when it holds
    since = iso(_when(win) or now)
    rivals = _union([_strs(win.extra.get("supersedes")), [lose.name]])
    ops = (
        Op(
            "update",
            win.scope,
            win.name,
            win.content_hash,
            {"supersedes": rivals, "valid_from": since},
        ),
        _archive_op(lose, now, superseded_by=win.name, valid_to=since),
    )
    return Step(
        "supersede",
        a.scope,
        (win.name, lose.name),
        f"{lose.name!r} contradicts {win.name!r}: {why}; the loser is archived, valid to {since}",
        ops,
    )


def _conflict_step(
    a: MemoryRecord,
    b: MemoryRecord,
    relation: str,
    text: str | None,
    state: ScopeState,
    now: datetime,
) -> Step | None:
    if relation == "conditional" and text:
        return _merge_step([a, b], state, now, statement=text)
    if relation in ("replace", "conflict"):
        return _supersede(a, b, now)
    return _tentative_step(
        a, b, now, "these may hold under different conditions, or contradict each other"
    )


# -- forgetting ----------------------------------------------------------------------------------
# a calendar date or a bounded stretch of time: "freeze merges after 2026-03-05", "this sprint",
# "本周五之前" — such a project fact is true for a while, then quietly not (seed 002)
_DATED = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b"
    r"|\b(?:this|next|until|till|by) (?:week|sprint|month|release|friday|monday|tuesday|"
    r"wednesday|thursday|saturday|sunday)\b|\btoday\b|\btomorrow\b"
    r"|\d{1,2}月\d{1,2}[日号]|本周|下周|这周|本月|下个月|今天|明天|这个迭代|本迭代",
    re.IGNORECASE,
)


def dated(statement: str) -> bool:
    """Whether a statement is tied to a date or a bounded stretch of time."""
    return _DATED.search(statement) is not None


def _decay_steps(state: ScopeState, now: datetime, policy: Policy, claimed: set[str]) -> list[Step]:
    steps = []
    for rec in sorted(state.records, key=lambda r: r.name):
        if rec.name in claimed or rec.confidence == "tentative":
            continue
        is_dated = rec.type == "project" and dated(rec.statement)
        days = policy.forgetting.idle_days(rec.type, is_dated)
        value = strength(rec, state.uses.get(rec.name, (0, None)), now, days)
        if value is None or value >= THRESHOLD:
            continue
        claimed.add(rec.name)
        kind = "a dated project fact" if is_dated else f"type {rec.type}"
        steps.append(
            Step(
                "archive",
                rec.scope,
                (rec.name,),
                f"strength {value:.2f} < {THRESHOLD} (unused; {kind} ages over {days:g} days)",
                (_archive_op(rec, now),),
            )
        )
    return steps


def _ttl_steps(state: ScopeState, now: datetime, policy: Policy) -> list[Step]:
    ttl = policy.forgetting.archive_ttl_days
    steps, kept = [], []
    for rec in sorted(state.archived, key=lambda r: r.name):
        since = _time(rec.extra.get("archived")) or _when(rec)
        if since is None or (now - since).total_seconds() / 86400.0 <= ttl:
            continue
        if rec.source == "user":
            kept.append(rec.name)
            continue
        steps.append(
            Step(
                "delete",
                rec.scope,
                (rec.name,),
                f"archived over {ttl} days ago (archive_ttl_days)",
                (Op("delete_archived", rec.scope, rec.name, rec.content_hash),),
            )
        )
    if kept:
        steps.append(
            Step(
                "keep",
                state.scope,
                tuple(kept),
                f"archived over {ttl} days ago but the person's own words: never deleted by "
                "sleep (`memdir forget --archived NAME` deletes one)",
            )
        )
    return steps


def _line(name: str, description: str) -> int:
    """The characters a memory's pointer line takes in MEMORY.md."""
    return len(f"- [{name}]({name}.md) — {description}\n")


def _listing(state: ScopeState, groups: list[tuple[str, list[MemoryRecord]]], total: int) -> Step:
    listed = "; ".join(f"{key}: {len(members)} memories" for key, members in groups[:5])
    return Step(
        "distill",
        state.scope,
        tuple(r.name for _, members in groups[:5] for r in sorted(members, key=_name)[:5]),
        f"MEMORY.md would be {total} chars, over its limit of {state.max_index_chars}: the guide "
        f"cuts it there with a pointer to the rest. Largest groups to condense: {listed}",
    )


def _name(rec: MemoryRecord) -> str:
    return rec.name


def _distill_steps(
    state: ScopeState, steps: Sequence[Step], judge: Judge | None, now: datetime, taken: set[str]
) -> list[Step]:
    """H5: over the index limit, the judge condenses the largest groups (type + first tag) into
    fewer memories until the index fits; offline, the groups are listed for the person."""
    gone = {op.name for s in steps for op in s.ops if op.kind == "archive"}
    left = [r for r in state.records if r.name not in gone]
    total = sum(_line(r.name, r.description) for r in left)
    if total <= state.max_index_chars:
        return []
    by_key: dict[str, list[MemoryRecord]] = {}
    for r in left:
        by_key.setdefault(f"{r.type}/{r.tags[0] if r.tags else '-'}", []).append(r)
    groups = sorted(
        by_key.items(), key=lambda kv: (-sum(_line(r.name, r.description) for r in kv[1]), kv[0])
    )
    if judge is None:
        return [_listing(state, groups, total)]
    out: list[Step] = []
    for key, members in groups:
        if total <= state.max_index_chars:
            break
        members = sorted(members, key=_name)[:DISTILL_GROUP]
        used: set[int] = set()
        for statement, ids in judge.condense(members):
            picked = [members[i] for i in dict.fromkeys(ids) if 0 <= i < len(members)]
            picked = [r for r in picked if id(r) not in used]
            if len(picked) < 2:
                continue
            used.update(id(r) for r in picked)
            step = _condensed(state, key, picked, statement, now, taken)
            out.append(step)
            total += _line(step.names[0], shorten(statement)) - sum(
                _line(r.name, r.description) for r in picked
            )
    if total > state.max_index_chars:
        out.append(_listing(state, groups, total))
    return out


def _condensed(
    state: ScopeState,
    key: str,
    members: Sequence[MemoryRecord],
    statement: str,
    now: datetime,
    taken: set[str],
) -> Step:
    name = free_name(slugify(shorten(statement, 60)), taken)
    fields = _merge_fields(members[0], members[1:], state, now)
    fields.update(
        statement=statement.strip(),
        description=shorten(statement),
        type=members[0].type,
        confidence="confirmed",
        created=iso(now),
        merged_from=[r.name for r in members],
    )
    ops = [Op("create", state.scope, name, None, fields)]
    ops += [_archive_op(r, now, merged_into=name) for r in members]
    return Step(
        "distill",
        state.scope,
        (name, *(r.name for r in members)),
        f"{len(members)} related memories ({key}) condensed into one: MEMORY.md was over its "
        f"limit of {state.max_index_chars} chars",
        tuple(ops),
    )


def _created(steps: Sequence[Step]) -> dict[Scope, set[str]]:
    out: dict[Scope, set[str]] = {}
    for op in (op for s in steps for op in s.ops if op.kind == "create"):
        out.setdefault(op.scope, set()).add(op.name.lower())
    return out


def plan_sleep(
    states: Sequence[ScopeState],
    *,
    policy: Policy,
    now: datetime,
    judge: Judge | None = None,
) -> Plan:
    """Everything one sleep would do, as steps; reads nothing but its arguments."""
    steps: list[Step] = []
    for state in states:
        threshold = policy.duplicates.similarity.for_model(state.model_id)
        claimed: set[str] = set()
        scope_steps = _pair_steps(state, now, threshold, judge, claimed)
        scope_steps += _decay_steps(state, now, policy, claimed)
        scope_steps += _ttl_steps(state, now, policy)
        taken = {r.name.lower() for r in (*state.records, *state.archived)}
        scope_steps += _distill_steps(state, scope_steps, judge, now, taken)
        scope_steps += plan_logs(
            state.scope, state.logs, state.archived_logs, policy=policy, now=now
        )
        steps += scope_steps
    steps += plan_proposals(states, steps, now=now, judge=judge)  # seed 001's second filter
    steps += plan_promotions(
        {s.scope: s.notes for s in states},
        {s.scope: (*s.records, *s.archived) for s in states},
        policy=policy.promotion,
        now=now,
        taken=_created(steps),
    )
    return Plan(now, tuple(steps))
