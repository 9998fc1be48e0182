"""A session as the page shows it: each record's text with every secret the guard knows
replaced by ``[REDACTED:<kind>]`` (a transcript holds what the person typed, keys included;
the page never shows one in clear), the lines that could not be read (repairs), what the model
would be sent next (the context, redacted the same way), and the memories written from it,
placed at the turn whose text holds their quote."""

from __future__ import annotations

import json
from typing import Any

from ..errors import NotFoundError
from ..guard import redact
from ..http.models import MemoryOut, info_out, memory_out
from ..memory import Memory
from ..records import MemoryRecord

__all__ = ["context_before", "session_view", "text_of"]


def text_of(content: Any) -> str:
    """The readable text of a record's content (a provider message or memdir's own note)."""
    if isinstance(content, dict):
        body = content.get("content", content.get("text"))
        if isinstance(body, str):
            return body
        if isinstance(body, list):
            parts = [b.get("text") if isinstance(b, dict) else None for b in body]
            if all(isinstance(p, str) for p in parts) and parts:
                return "\n".join(p for p in parts if isinstance(p, str))
    return json.dumps(content, ensure_ascii=False, indent=1, default=str)


def _written_from(m: Memory, session_id: str) -> list[MemoryRecord]:
    """The memories whose ``session`` is ``session_id``, found in the index's metadata (no
    file opened but theirs)."""
    found = []
    for scope in m.scopes():
        if not m.present(scope):
            continue
        index = m.index(scope)
        index.sync()
        names = [d.name for d in index.docs().values() if d.session == session_id]
        found += [m.store(scope).read(name) for name in names]  # just synced: no second check
    return found


def session_view(m: Memory, session_id: str, home: str | None = None) -> dict[str, Any]:
    """``home``: the user's directory on a team server, shown as ``~`` (as REST shows it)."""

    def _clean(text: str) -> str:
        text = redact(text)[0]
        return text.replace(home, "~") if home else text

    session = m.read_session(session_id)
    turns: list[dict[str, Any]] = [
        {
            "line": r.line,
            "type": r.type,
            "ts": r.ts,
            "text": _clean(text_of(r.content)),
            "memories": [],
        }
        for r in session.records
    ]
    unplaced: list[MemoryOut] = []
    raw = [text_of(r.content) for r in session.records]  # quotes were taken before redaction
    for record in _written_from(m, session.id):
        quote = (record.quote or "").strip()
        at = next((i for i, t in enumerate(raw) if quote and quote in t), None)
        (turns[at]["memories"] if at is not None else unplaced).append(memory_out(record))
    context = m.context(session, "text")
    return {
        "info": info_out(session.info()),
        "turns": turns,
        "problems": [p.reason for p in session.problems],
        "unplaced": unplaced,
        "context": _clean(context if isinstance(context, str) else json.dumps(context)),
    }


def context_before(m: Memory, session_id: str, line: int, home: str | None = None) -> str:
    """What the model was sent for the reply at ``line``: the context assembled from the
    records before it (the session as it was then; a read-only copy, nothing is written)."""
    session = m.read_session(session_id)
    if not any(r.line == line for r in session.records):
        raise NotFoundError(f"session {session_id} has no record at line {line}")
    session.records = [r for r in session.records if r.line < line]
    context = m.context(session, "text")
    text = redact(context if isinstance(context, str) else json.dumps(context))[0]
    return text.replace(home, "~") if home else text
