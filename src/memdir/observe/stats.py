"""``memdir stats``: is memory working, scope by scope (issue 25).

``compute_stats`` is a pure function of what ``Memory.stats`` reads through the facade — each
scope's memories (live and archived), its change log, its recall log, the sizes of its files
and index — plus the traces of the sessions active in the window and the extraction failures.
Nothing here opens a file.

**The window** (``since``): writes, refusals, recalls and the funnel count only what happened
after it; the memory counts and sizes are the state now. **Never recalled**: live memories that
no recall in the last ``idle_days`` returned (the recall log keeps every recall, so this needs
no index), oldest first.

**Writes by source** come from the change log's ``actor``: ``user`` and ``api`` (the web page
and REST write as the person) are the *person*; ``agent`` the *tool* (the agent loop and MCP);
``extractor`` *extraction* (but an explicit request it stored at once — "remember that …" — is
the *person*'s); ``sleep``; ``import``; ``sync``; anything else is listed as it is.
**Refusals** are ``refuse`` changes, by the first kind their reason names: the guard's
``KINDS``, ``secret`` (nothing left once the secret is cut), ``external`` (tool output as the
person's words), ``injection``, or ``other``. **Hit rate**: the share of
recalls that returned at least one memory of the scope.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import ValidationError
from ..guard import KINDS
from ..history import Change
from ..records import MemoryRecord
from .trace import SessionTrace, TurnTrace, funnel_of

__all__ = [
    "SOURCES",
    "STATES",
    "ScopeInput",
    "ScopeStats",
    "Stats",
    "compute_stats",
    "parse_since",
    "source_of",
    "state_of",
]

STATES = ("active", "tentative", "superseded", "archived")
SOURCES = {
    "user": "person",
    "api": "person",
    "agent": "tool",
    "extractor": "extraction",
    "sleep": "sleep",
    "import": "import",
    "sync": "sync",
}
_SPAN = re.compile(r"(\d+)\s*([hdw])")
NEVER_SHOWN = 20  # names listed under "never recalled" (the count is always whole)


def parse_since(value: str | None, *, now: datetime | None = None) -> datetime | None:
    """``7d`` / ``12h`` / ``2w`` ago, or an ISO date or time; ``None`` for all time."""
    if value is None or not value.strip():
        return None
    now = now or datetime.now(UTC)
    text = value.strip().lower()
    if m := _SPAN.fullmatch(text):
        unit = {"h": "hours", "d": "days", "w": "weeks"}[m.group(2)]
        try:
            return now - timedelta(**{unit: int(m.group(1))})
        except OverflowError:
            pass  # longer than any date: said below
    else:
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            moment = None
        if moment is not None:
            return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    raise ValidationError(
        f"--since {value!r} is not a span or a date: use e.g. 7d (days), 12h (hours), 2w "
        "(weeks) or a date such as 2026-11-01"
    )


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def source_of(change: Change) -> str:
    """Who a write came from (see the module docstring): an explicit request ("remember that
    …") is stored by the extractor's hot path, but it is the person's."""
    if change.actor == "extractor" and (change.reason or "").startswith("explicit request"):
        return "person"
    return SOURCES.get(change.actor, change.actor)


def state_of(record: MemoryRecord, *, archived: bool) -> str:
    """One of ``STATES``: archived memories are ``superseded`` when something replaced them."""
    if archived:
        replaced = any(k in record.extra for k in ("superseded_by", "merged_into"))
        return "superseded" if replaced else "archived"
    return "tentative" if record.confidence == "tentative" else "active"


_OTHER_REFUSALS = (
    ("redacting the secret", "secret"),
    ("external content", "external"),
    ("instruction to the agent", "injection"),
)


def _refusal_kind(reason: str | None) -> str:
    """The guard's kind named in a refusal's reason (the first, when it names several)."""
    text = reason or ""
    found = [(text.find(f"({k}:"), k) for k in KINDS if f"({k}:" in text]
    found += [(text.find(words), kind) for words, kind in _OTHER_REFUSALS if words in text]
    return min(found)[1] if found else "other"


@dataclass(frozen=True)
class ScopeInput:
    """What ``Memory.stats`` reads of one scope."""

    scope: str
    memories: Sequence[MemoryRecord]
    archived: Sequence[MemoryRecord]
    changes: Sequence[Change]
    recalls: Sequence[Mapping[str, Any]]
    files_bytes: int
    index_bytes: int


@dataclass
class ScopeStats:
    scope: str
    memories: dict[str, dict[str, int]]  # type → state → count
    writes: dict[str, int]  # source → count
    refusals: dict[str, int]  # guard kind → count
    recalls: int
    recalls_with_hits: int
    never_recalled: int
    never_recalled_names: list[str]
    files_bytes: int
    index_bytes: int

    @property
    def hit_rate(self) -> float | None:
        return self.recalls_with_hits / self.recalls if self.recalls else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["hit_rate"] = None if self.hit_rate is None else round(self.hit_rate, 3)
        return data


@dataclass
class Stats:
    since: str | None
    idle_days: int
    scopes: list[ScopeStats]
    funnel: dict[str, int]
    sessions: int
    extraction_failures: int
    sessions_bytes: int
    measure: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "idle_days": self.idle_days,
            "scopes": [s.to_dict() for s in self.scopes],
            "funnel": self.funnel,
            "sessions": self.sessions,
            "extraction_failures": self.extraction_failures,
            "sessions_bytes": self.sessions_bytes,
            "measure": self.measure,
        }


def _scope_stats(data: ScopeInput, since: str | None, idle_from: str) -> ScopeStats:
    table: dict[str, dict[str, int]] = {}
    for records, archived in ((data.memories, False), (data.archived, True)):
        for record in records:
            row = table.setdefault(record.type, dict.fromkeys(STATES, 0))
            row[state_of(record, archived=archived)] += 1
    recent = [c for c in data.changes if since is None or c.time >= since]
    writes = Counter(source_of(c) for c in recent if c.op != "refuse")
    refusals = Counter(_refusal_kind(c.reason) for c in recent if c.op == "refuse")
    window = [e for e in data.recalls if since is None or str(e.get("time", "")) >= since]
    returned = [e.get("returned") for e in window]
    hits = sum(1 for r in returned if isinstance(r, list) and r)
    lately = {
        str(name)
        for e in data.recalls
        if str(e.get("time", "")) >= idle_from and isinstance(e.get("returned"), list)
        for name in e["returned"]
    }
    idle = sorted(
        (r for r in data.memories if r.name not in lately and (r.created or "") < idle_from),
        key=lambda r: (r.created or "", r.name),
    )
    return ScopeStats(
        scope=data.scope,
        memories=dict(sorted(table.items())),
        writes=dict(sorted(writes.items())),
        refusals=dict(sorted(refusals.items())),
        recalls=len(window),
        recalls_with_hits=hits,
        never_recalled=len(idle),
        never_recalled_names=[r.name for r in idle[:NEVER_SHOWN]],
        files_bytes=data.files_bytes,
        index_bytes=data.index_bytes,
    )


def compute_stats(
    scopes: Sequence[ScopeInput],
    traces: Sequence[SessionTrace],
    *,
    since: datetime | None,
    idle_days: int,
    extraction_failures: int,
    sessions_bytes: int,
    now: datetime | None = None,
) -> Stats:
    """The stats over ``scopes`` and ``traces`` (see the module docstring)."""
    if idle_days < 1:
        raise ValidationError(f"--idle-days must be at least 1 (got {idle_days})")
    now = now or datetime.now(UTC)
    after = _stamp(since) if since is not None else None
    idle_from = _stamp(now - timedelta(days=idle_days))
    turns: list[TurnTrace] = [
        t for trace in traces for t in trace.turns if after is None or t.started >= after
    ]
    return Stats(
        since=after,
        idle_days=idle_days,
        scopes=[_scope_stats(s, after, idle_from) for s in scopes],
        funnel=funnel_of(turns),
        sessions=len(traces),
        extraction_failures=extraction_failures,
        sessions_bytes=sessions_bytes,
        measure=traces[0].measure if traces else "",
    )
