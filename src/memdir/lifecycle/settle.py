"""Settling a tentative memory with one command (SPEC H3): ``memdir confirm NAME [--drop]``.

A conflict sleep could not settle leaves both memories ``tentative`` with ``conflicts_with``
naming each other. ``settle`` ends it as one undoable run (``confirm-…``):

* **confirm** — the memory becomes ``confirmed``; each rival that still names it is archived
  with ``superseded_by``;
* **drop** — the memory is deleted; each rival forgets it, and is ``confirmed`` when no other
  conflict is left.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import NotFoundError, RefusedError, ValidationError
from ..history import Change
from ..records import MemoryRecord
from ..writes import admit
from .apply import new_run_id
from .steps import iso

if TYPE_CHECKING:
    from ..ports import Store

__all__ = ["settle"]


def _rivals_of(rec: MemoryRecord) -> list[str]:
    value = rec.extra.get("conflicts_with")
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def settle(store: Store, name: str, *, drop: bool, now: datetime, actor: str) -> list[Change]:
    """Confirm or drop the tentative memory ``name``; returns the changes (one run)."""
    rec = store.read(name)
    if rec.confidence != "tentative":
        raise ValidationError(
            f"{name!r} is not tentative: see `memdir list --tentative` for those that are"
        )
    if not drop:  # confirming writes the memory as the person's settled word: guard it again
        try:  # the one write door (writes.py)
            admit(store, name, actor=actor, type=rec.type, source=rec.source,
                  parts={"statement": rec.statement})  # fmt: skip
        except RefusedError as exc:
            raise RefusedError(
                f"not confirmed: {'; '.join(exc.reasons)}. Nothing was changed; drop it with "
                f"`memdir confirm {name} --drop`",
                exc.reasons,
            ) from None
    rivals: list[MemoryRecord] = []
    for other in _rivals_of(rec):
        with contextlib.suppress(NotFoundError):
            rivals.append(store.read(other))
    rivals = [r for r in rivals if name in _rivals_of(r)]
    why = "dropped by the person" if drop else "confirmed by the person"
    changes: list[Change | None] = []
    with store.batch(), store.run_as(new_run_id(now, "confirm")):
        if drop:
            changes.append(store.delete(name, actor=actor, reason=why))
        else:
            fields = {"confidence": "confirmed", "conflicts_with": None, "updated": iso(now)}
            fields["review"] = None  # a review asked for by `forget` (issue 22) is done too
            changes.append(store.update(name, fields, actor=actor, reason=why)[1])
        for r in rivals:
            left = [n for n in _rivals_of(r) if n != name]
            if drop:
                update: dict[str, Any] = {"conflicts_with": left or None}
                if not left:
                    update["confidence"] = "confirmed"
                changes.append(store.update(r.name, update, actor=actor, reason=why)[1])
                continue
            reason = f"{name!r} was confirmed instead"
            changes.append(
                store.update(r.name, {"superseded_by": name}, actor=actor, reason=reason)[1]
            )
            changes.append(store.archive(r.name, actor=actor, stamp=iso(now), reason=reason))
    return [c for c in changes if c is not None]
